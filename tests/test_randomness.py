"""Seeds (``_randomness.py``): ``random_state=None`` draws fresh entropy, never
NumPy's global state; a fixed seed warns and reproduces the fit."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.exceptions import PrivacyLeakWarning


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(501, 5)) / 2.0
    y = (X[:, 0] + 0.3 * rng.normal(size=501) > 0).astype(int)
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return clone(estimator).fit(X, y)


def test_none_seed_ignores_numpy_global_state(data):
    # np.random.seed makes the global state predictable; random_state=None must
    # not read it, so two fits after the same global seed draw different noise.
    X, y = data
    est = DPLogisticRegression(classes=[0, 1], public_n_samples=500)
    coefs = []
    for _ in range(2):
        np.random.seed(0)  # noqa: NPY002 (the legacy global state is the point)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)
            coefs.append(clone(est).fit(X, y).coef_)
    assert not np.array_equal(coefs[0], coefs[1])


@pytest.mark.parametrize("random_state", [0, np.random.RandomState(0)])
def test_fixed_seed_warns(data, random_state):
    X, y = data
    est = DPLogisticRegression(classes=[0, 1], random_state=random_state)
    with pytest.warns(PrivacyLeakWarning, match="subtract"):
        est.fit(X, y)


def test_fixed_seed_is_reproducible(data):
    X, y = data
    est = DPLogisticRegression(classes=[0, 1], random_state=5)
    np.testing.assert_array_equal(_fit(est, X, y).coef_, _fit(est, X, y).coef_)


def test_fixed_seed_fits_inside_a_ledger_draw_distinct_noise_reproducibly():
    # A ledger composes its fits as independent mechanisms: two fits sharing an
    # integer seed must not share noise there (before: identical coefficients).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)

    def coefs(n):
        return [
            DPLogisticRegression(classes=[0, 1], max_iter=5, random_state=7)
            .fit(X, y)
            .coef_.copy()
            for _ in range(n)
        ]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outside = coefs(2)
        with PrivacyLedger():
            first = coefs(2)
        with PrivacyLedger():
            again = coefs(2)
    np.testing.assert_array_equal(outside[0], outside[1])
    assert not np.array_equal(first[0], first[1])
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
