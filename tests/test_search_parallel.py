"""``n_jobs`` of the private searches: candidates fitted in threads or worker
processes record exactly what ``n_jobs=1`` records.

Each candidate fit records into a scratch ledger where it runs and sends the
entries back; the search copies them into ``ledger_`` in the candidates' order, so
the seeds, the fits, the winner and every ledger (the search's and the user's) are
those of the sequential search.
"""

import warnings

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_dpgd import DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.exceptions import UtilityWarning
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV

GRID = {"momentum": [0.0, 0.9], "max_iter": [20, 60]}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", UtilityWarning)
        yield


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=1500, n_features=6, n_informative=4, random_state=0
    )
    return Normalizer().fit_transform(X), y


def _search(n_jobs):
    return PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]),
        GRID,
        epsilon=1.0,
        delta=1e-6,
        random_state=11,
        n_jobs=n_jobs,
    )


def _entries(ledger):
    return [(e.mechanism, e.neighboring, e.source, e.part) for e in ledger.entries]


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_grid_search_in_parallel_equals_the_sequential_search(data, backend):
    X, y = data
    with PrivacyLedger() as sequential_ledger:
        sequential = _search(None).fit(X, y)
    with PrivacyLedger() as parallel_ledger, parallel_config(backend=backend):
        parallel = _search(2).fit(X, y)
    assert parallel.best_params_ == sequential.best_params_
    assert _entries(parallel.ledger_) == _entries(sequential.ledger_)
    assert len(parallel.ledger_.entries) > len(GRID) * 2  # every candidate's steps
    assert parallel.epsilon_ == sequential.epsilon_
    np.testing.assert_array_equal(
        parallel.best_estimator_.coef_, sequential.best_estimator_.coef_
    )
    # The user's ledger was charged once for the whole search, the same either way.
    assert _entries(parallel_ledger) == _entries(sequential_ledger)
    assert parallel_ledger.epsilon(1e-6) == pytest.approx(
        sequential_ledger.epsilon(1e-6)
    )


def test_linear_scaling_search_in_parallel_equals_the_sequential_search(data):
    X, y = data
    searches = [
        LinearScalingSearch(
            DPLogisticRegression(classes=[0, 1]),
            epsilon=1.0,
            delta=1e-6,
            n_candidates=3,
            random_state=5,
            n_jobs=n_jobs,
        ).fit(X, y)
        for n_jobs in (1, 2)
    ]
    assert searches[1].best_params_ == searches[0].best_params_
    assert _entries(searches[1].ledger_) == _entries(searches[0].ledger_)


def test_n_jobs_is_validated(data):
    X, y = data
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        _search("two").fit(X, y)
