"""``C``, ``alpha`` and ``l1_ratio`` (``linear_model/_penalty.py``) and the proximal
L1 steps of the gd solver."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd._solvers.gd import _soft_threshold, noisy_gradient_descent
from sklearn_dpgd.schedules import AdaptiveStepSchedule

ESTIMATORS = [DPLogisticRegression, DPHuberSVM]


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=2000, d=20, n_classes=2, seed=0):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        random_state=seed,
    )
    return Normalizer().fit_transform(X), y


def test_C_and_alpha_together_name_both():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=r"C=0\.5 and alpha=0\.01 are both set"):
        DPLogisticRegression(C=0.5, alpha=0.01).fit(X, y)
    with pytest.raises(ValueError, match=r"C=2\.0 and alpha=0\.1 are both set"):
        DPHuberSVM(C=2.0, alpha=0.1).fit(X, y)
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(InvalidParameterError, match="'C' parameter"):
            DPLogisticRegression(C=bad).fit(X, y)
    for bad in (-0.1, 1.5):
        with pytest.raises(InvalidParameterError, match="'l1_ratio' parameter"):
            DPLogisticRegression(l1_ratio=bad).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(solver="snowball", l1_ratio=0.5), "l1_ratio=0.5 needs solver='gd'"),
        (dict(schedule=AdaptiveStepSchedule(), l1_ratio=1.0), "needs solver='gd'"),
        (dict(solver="snowball", C=1.0), "C is not supported by solver='snowball'"),
    ],
)
def test_settings_without_proximal_steps_are_refused(params, match):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(**params).fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_C_is_alpha_over_C_times_the_public_size(Estimator):
    X, y = _data()
    params = dict(epsilon=2.0, max_iter=30, random_state=0, public_n_samples=1600)
    by_C = Estimator(C=0.25, **params).fit(X, y)
    by_alpha = Estimator(alpha=1.0 / (0.25 * 1600), **params).fit(X, y)
    assert by_C.alpha_ == pytest.approx(1.0 / 400)
    np.testing.assert_allclose(by_C.coef_, by_alpha.coef_, rtol=1e-12)
    # C=np.inf is no penalty; C=1 is alpha="auto" (scikit-learn's default C).
    none = Estimator(C=np.inf, **params).fit(X, y)
    assert none.alpha_ == 0.0
    np.testing.assert_array_equal(
        none.coef_, Estimator(alpha=0.0, **params).fit(X, y).coef_
    )
    if Estimator is DPLogisticRegression:
        np.testing.assert_allclose(
            Estimator(C=1.0, **params).fit(X, y).coef_,
            Estimator(**params).fit(X, y).coef_,
            rtol=1e-12,
        )


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("params", [{}, dict(batch_size=300), dict(n_classes=3)])
def test_l1_is_post_processing_same_ledger_and_sparser(Estimator, params):
    params = dict(params)
    X, y = _data(n_classes=params.pop("n_classes", 2))
    common = dict(epsilon=4.0, C=0.02, random_state=0, max_iter=200, **params)
    l2 = Estimator(**common).fit(X, y)
    l1 = Estimator(l1_ratio=1.0, **common).fit(X, y)
    # Same noisy steps, same cost: the proximal steps read only private iterates.
    assert l1.ledger_ == l2.ledger_
    assert l1.epsilon_ == l2.epsilon_
    np.testing.assert_array_equal(l1.noise_multipliers_, l2.noise_multipliers_)
    # 17 of the 20 features are noise: the lasso zeroes coefficients, L2 none.
    assert np.count_nonzero(l2.coef_) == l2.coef_.size
    assert np.count_nonzero(l1.coef_) < 0.8 * l1.coef_.size
    assert l1.alpha_ == pytest.approx(l2.alpha_)


def test_l1_ratio_zero_is_bit_identical_to_the_default():
    X, y = _data()
    params = dict(epsilon=1.0, max_iter=40, random_state=1)
    a = DPLogisticRegression(**params).fit(X, y)
    b = DPLogisticRegression(l1_ratio=0.0, C=None, **params).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and a.alpha_ == b.alpha_


def test_soft_threshold():
    v = np.array([[-3.0, -0.5, 0.0, 0.2, 2.0]])
    np.testing.assert_array_equal(_soft_threshold(v, 0.5), [[-2.5, 0.0, 0.0, 0.0, 1.5]])


class _FixedOracle:
    """An oracle returning a fixed gradient (no data, no noise): the solver alone."""

    n_features, n_outputs = 3, 1

    def __init__(self, grad):
        self.grad = np.asarray(grad, dtype=float)

    def noisy_gradient(self, W, b, z):
        return self.grad.copy()


def test_proximal_steps_follow_ipiano():
    # theta_{t+1} = prox_{eta l1}(theta_t - eta g + m (theta_t - theta_{t-1})),
    # intercept untouched by the threshold.
    g = np.array([[0.3, -0.05, 0.0, 0.1]])
    eta, m, l1, T = 0.5, 0.5, 0.2, 6
    coef, intercept, _ = noisy_gradient_descent(
        _FixedOracle(g),
        noise_multipliers=np.ones(T),
        learning_rates=np.full(T, eta),
        alpha=0.0,
        momentum=m,
        average=0.0,
        l1=l1,
    )
    theta, prev = np.zeros((1, 4)), np.zeros((1, 4))
    for _ in range(T):
        nxt = theta - eta * g + m * (theta - prev)
        nxt[:, :3] = _soft_threshold(nxt[:, :3], eta * l1)
        prev, theta = theta, nxt
    theta[:, :3] = _soft_threshold(theta[:, :3], eta * l1)  # the released iterate
    np.testing.assert_allclose(coef, theta[:, :3], rtol=1e-12)
    np.testing.assert_allclose(intercept, theta[:, 3], rtol=1e-12)
    assert coef[0, 1] == 0.0 and coef[0, 2] == 0.0 and coef[0, 0] < 0
