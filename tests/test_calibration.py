"""The default L2 penalty (alpha="auto"): calibrated probabilities, privately."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.schedules import PURSchedule

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

M = 3000  # the declared public size


def _quasi_separable(n, rng):
    """Logistic data plus a rare indicator seen with label 0 only.

    The unpenalised maximum-likelihood coefficient of the indicator is -inf;
    scikit-learn's C=1 penalty keeps it near -2.3. Rows have norm at most 1.
    """
    X = rng.normal(size=(n, 12))
    p = 1.0 / (1.0 + np.exp(-(X @ np.linspace(-1.0, 1.0, 12) - 0.5)))
    y = (rng.random(n) < p).astype(int)
    rare = rng.random(n) < 0.01
    y[rare] = 0
    X = np.column_stack([X, 3.0 * rare])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, y


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X, y = _quasi_separable(M, rng)
    X_test, y_test = _quasi_separable(M, rng)
    reference = LogisticRegression().fit(X, y)
    return X, y, X_test, y_test, reference


def _fit(X, y, seed, **params):
    return DPLogisticRegression(
        epsilon=4.0,
        delta=1e-6,
        classes=[0, 1],
        public_n_samples=M,
        random_state=seed,
        **params,
    ).fit(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_keeps_coefficients_near_scikit_learns(data, seed):
    # Without the penalty, normalised heavy-ball steps drive the indicator's
    # coefficient to -37 and -50 on seeds 0 and 2 (scikit-learn: -2.3).
    X, y, X_test, y_test, reference = data
    clf = _fit(X, y, seed)
    assert np.abs(clf.coef_).max() <= 2.0 * np.abs(reference.coef_).max()
    reference_loss = log_loss(y_test, reference.predict_proba(X_test))
    assert log_loss(y_test, clf.predict_proba(X_test)) <= 1.05 * reference_loss


def test_auto_alpha_is_one_over_the_public_size(data):
    X, y = data[0][:500], data[1][:500]
    declared = _fit(X, y, 0)  # public_n_samples=M: never the 500 rows
    assert declared.alpha_ == pytest.approx(1.0 / M, rel=1e-15)
    counted = DPLogisticRegression(epsilon=4.0, classes=[0, 1], random_state=0)
    counted.fit(X, y)  # add/remove: the size is a noisy count
    assert counted.alpha_ == pytest.approx(1.0 / counted.public_n_samples_)
    assert _fit(X, y, 0, alpha=0.25).alpha_ == 0.25


def test_penalty_leaves_the_privacy_plan_unchanged(data):
    # The penalty's gradient is public: the same Gaussian steps run with the
    # same noise, so the accounting is exactly that of alpha=0.
    X, y = data[0], data[1]
    auto, zero = _fit(X, y, 3), _fit(X, y, 3, alpha=0.0)
    np.testing.assert_array_equal(auto.noise_multipliers_, zero.noise_multipliers_)
    assert auto.ledger_ == zero.ledger_
    assert auto.epsilon_ == zero.epsilon_ and auto.mu_ == zero.mu_
    assert not np.allclose(auto.coef_, zero.coef_)


def test_defaults_and_other_solvers(data):
    X, y = data[0][:400], data[1][:400]
    assert DPLogisticRegression().alpha == "auto"
    assert DPHuberSVM().alpha == 0.0
    svm = DPHuberSVM(alpha="auto", classes=[0, 1], public_n_samples=400)
    assert svm.fit(X, y).alpha_ == pytest.approx(1.0 / 400)
    # Snowball-SGD plans without a penalty: "auto" is 0 there.
    snowball = DPLogisticRegression(
        solver="snowball", epsilon=4.0, classes=[0, 1], public_n_samples=400
    )
    assert snowball.fit(X, y).alpha_ == 0.0
    # PURSchedule picks its analysis from alpha: "auto" keeps its convex one.
    pur = DPLogisticRegression(
        schedule=PURSchedule(), epsilon=4.0, classes=[0, 1], public_n_samples=400
    )
    assert pur.fit(X, y).alpha_ == 0.0


def test_alpha_validation(data):
    X, y = data[0][:50], data[1][:50]
    with pytest.raises(ValueError, match="alpha"):
        DPLogisticRegression(alpha="big", classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        DPLogisticRegression(alpha=-1.0, classes=[0, 1]).fit(X, y)
