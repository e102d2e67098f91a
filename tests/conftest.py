import os
from pathlib import Path

import pytest

# CI clones the repository with ../shared beside it.
DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "data"


def pytest_collection_modifyitems(config, items):
    # Tests marked slow (minutes: studies, whole pages, Dask end to end) run only
    # with SKLEARN_DPGD_SLOW=1; .ci/run runs them with -m slow.
    if os.environ.get("SKLEARN_DPGD_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: set SKLEARN_DPGD_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def data_home():
    if not (DATA_HOME / "adult" / "adult.data.gz").exists():
        pytest.skip(f"real data not found at {DATA_HOME}")
    return DATA_HOME
