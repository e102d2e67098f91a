"""What the package tells a scikit-learn user: habits that mean something else here.

Issue 43, items 4 and 5: scikit-learn's ``HuberRegressor(epsilon=1.35)`` would
silently set the privacy budget, and scikit-learn parameters this package does
not have must raise a TypeError naming what to use instead.
"""

import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_dpgd import (
    DPHuberRegressor,
    DPHuberSVM,
    DPLinearRegression,
    DPLogisticRegression,
)
from sklearn_dpgd.baselines import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
)
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPSimpleImputer,
    DPStandardScaler,
)


def _regression_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)) / 3.0
    return X, X @ np.array([1.0, -1.0, 0.5])


def test_huber_epsilon_habit_warns_that_epsilon_is_the_budget():
    X, y = _regression_data()
    est = DPHuberRegressor(epsilon=1.35, y_bounds=(-2, 2), max_iter=5)
    with pytest.warns(UserWarning, match="threshold=") as record:
        est.fit(X, y)
    # The warning points at this file (the user's fit call).
    (hit,) = [w for w in record if "HuberRegressor default" in str(w.message)]
    assert hit.filename == __file__


@pytest.mark.parametrize(
    "params", [{"epsilon": 1.0}, {"epsilon": 1.35, "threshold": 0.5}]
)
def test_huber_other_budgets_or_an_explicit_threshold_stay_silent(params):
    X, y = _regression_data()
    est = DPHuberRegressor(y_bounds=(-2, 2), max_iter=5, **params)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est.fit(X, y)
    assert not [w for w in record if "HuberRegressor default" in str(w.message)]


# Every public estimator, with a parameter of scikit-learn's counterpart it
# lacks and the replacement its TypeError must name (None: none to name).
_SKLEARN_HABITS = [
    (DPLogisticRegression, "penalty", "l1", "l1_ratio"),
    (DPLogisticRegression, "tol", 1e-4, "max_iter"),
    (DPLogisticRegression, "n_jobs", 2, "NUMBA_NUM_THREADS"),
    (DPLogisticRegression, "warm_start", True, "coef_init"),
    (DPLogisticRegression, "dual", False, None),
    (DPHuberSVM, "penalty", "l2", "C"),
    (DPLinearRegression, "penalty", "l2", "alpha"),
    (DPLinearRegression, "tol", 1e-4, "max_iter"),
    (DPHuberRegressor, "warm_start", True, "coef_init"),
    (OutputPerturbationClassifier, "n_jobs", 2, None),
    (PhasedLocalizationClassifier, "tol", 1e-4, None),
    (DPStandardScaler, "with_mean", False, "bounds"),
    (DPMinMaxScaler, "feature_range", (0, 1), "bounds"),
    (DPOneHotEncoder, "handle_unknown", "ignore", "_other"),
    (DPOneHotEncoder, "sparse_output", False, None),
    (DPSimpleImputer, "add_indicator", True, None),
    (PrivateGridSearchCV, "scoring", "f1", "accuracy"),
    (PrivateGridSearchCV, "refit", False, "refit_share"),
    (PrivateGridSearchCV, "return_train_score", True, None),
    (LinearScalingSearch, "scoring", "f1", None),
]


@pytest.mark.parametrize(
    "cls, name, value, replacement",
    _SKLEARN_HABITS,
    ids=[f"{c.__name__}-{n}" for c, n, _, _ in _SKLEARN_HABITS],
)
def test_sklearn_parameters_raise_a_type_error_naming_the_replacement(
    cls, name, value, replacement
):
    args = (DPLogisticRegression(),) if "Search" in cls.__name__ else ()
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'") as err:
        cls(*args, **{name: value})
    assert "Coming from scikit-learn" in str(err.value)
    if replacement is not None:
        assert replacement in str(err.value)


def test_unknown_parameters_keep_pythons_type_error():
    with pytest.raises(TypeError) as err:
        DPLogisticRegression(no_such_parameter=1)
    assert "Coming from scikit-learn" not in str(err.value)


def test_the_check_keeps_get_params_clone_and_pickle():
    # The wrapped __init__ has the class's own signature: scikit-learn's
    # get_params and clone see the parameters, and a parameter the class has
    # (the search's n_jobs) is stored as given.
    est = DPLogisticRegression(C=2.0, l1_ratio=0.5)
    assert "C" in est.get_params() and "penalty" not in est.get_params()
    assert clone(est).get_params() == est.get_params()
    assert pickle.loads(pickle.dumps(est)).get_params() == est.get_params()
    assert PrivateGridSearchCV(est, n_jobs=2).n_jobs == 2
    signature = inspect.signature(DPLogisticRegression.__init__)
    assert "penalty" not in signature.parameters and "C" in signature.parameters
