from pathlib import Path

import pytest

# CI clones the repository with ../shared beside it.
DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def data_home():
    if not (DATA_HOME / "adult" / "adult.data.gz").exists():
        pytest.skip(f"real data not found at {DATA_HOME}")
    return DATA_HOME
