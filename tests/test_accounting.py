"""The public API of sklearn_dpgd.accounting (accounting/__init__.py): every name
importable before the package was split still is, the renamed filters keep their old
names for one release (with a FutureWarning), the API page lists ``__all__``, and no
module of the package outgrows the layout."""

import importlib
import re
import warnings
from pathlib import Path

import pytest

import sklearn_dpgd.accounting as accounting

# Every name sklearn_dpgd.accounting exported (``__all__``), and those the package's
# other modules and benchmarks imported from it or from the former _subsampled.py.
NAMES_BEFORE_THE_SPLIT = [
    "AmplifiedIterationFilter",
    "EpsilonDeltaRecord",
    "GaussianPrivacyFilter",
    "GaussianSteps",
    "LedgerEntry",
    "NoisyMaxSteps",
    "PrivacyLedger",
    "PldPrivacyFilter",
    "SnowballSteps",
    "SparseVectorSteps",
    "active_ledgers",
    "best_filter_order",
    "poisson_amplified_rdp",
    "pure_dp_rdp",
    "sparse_vector_rdp",
    "compress_ledger",
    "ledger_epsilon",
    "recording_only",
    "calibrate_noise_multipliers",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_mu_from_noise_multipliers",
    "gdp_to_zcdp",
    "zcdp_epsilon",
    "DEFAULT_ORDERS",
    "pld_epsilon",
    "pld_grid_step",
    "poisson_gaussian_epsilon",
    "poisson_gaussian_rdp",
    "rdp_epsilon",
    "_charge_active_ledgers",
    "_compose_entries",
    "_exact_compose",
    "_ledger_guard_state",
    "_record_rdp",
    # from the former sklearn_dpgd._subsampled
    "calibrate_poisson_noise_multipliers",
    "pld_plan_levels",
    "scale_to_budget",
]

RENAMED = {
    "RdpPrivacyFilter": "PlannedStepsRdpFilter",
    "RenyiPrivacyFilter": "FixedOrderRenyiFilter",
}


@pytest.mark.parametrize("name", NAMES_BEFORE_THE_SPLIT)
def test_names_of_the_former_module_are_importable(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and none of them is deprecated
        assert getattr(accounting, name) is not None


def test_all_names_resolve_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in accounting.__all__:
            getattr(accounting, name)
    assert set(RENAMED.values()) <= set(accounting.__all__)
    assert not set(RENAMED) & set(accounting.__all__)


@pytest.mark.parametrize("old, new", RENAMED.items())
def test_renamed_filters_keep_their_old_name_for_one_release(old, new):
    with pytest.warns(FutureWarning, match=f"{old} is deprecated.*use {new}"):
        cls = getattr(accounting, old)
    assert cls is getattr(accounting, new)
    with pytest.warns(FutureWarning, match=old):
        exec(f"from sklearn_dpgd.accounting import {old}", {})
    with pytest.raises(AttributeError, match="no attribute 'NoSuchFilter'"):
        accounting.NoSuchFilter  # noqa: B018


def test_api_page_lists_every_public_name():
    api = (Path(__file__).parents[1] / "doc" / "api.rst").read_text(encoding="utf-8")
    section = api.split(".. currentmodule:: sklearn_dpgd.accounting")[1]
    section = section.split("\n----")[0].rsplit("\n", 2)[0]
    listed = set(re.findall(r"^   (\w+)$", section, flags=re.M))
    assert listed == set(accounting.__all__)


def test_every_module_of_the_package_stays_under_800_lines():
    root = Path(accounting.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in root.glob("*.py")}
    assert len(sizes) >= 9
    assert max(sizes.values()) <= 800, sizes
    for name in sizes:
        if name != "__init__.py":
            importlib.import_module(f"sklearn_dpgd.accounting.{name[:-3]}")
