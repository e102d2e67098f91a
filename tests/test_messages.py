"""What the package tells a scikit-learn user: habits that mean something else here.

Issue 43, items 4 and 5: scikit-learn's ``HuberRegressor(epsilon=1.35)`` would
silently set the privacy budget, and scikit-learn parameters this package does
not have must raise a TypeError naming what to use instead.
"""

import warnings

import numpy as np
import pytest

from sklearn_dpgd import DPHuberRegressor


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
