"""Calibrated probabilities, privately: the default L2 penalty (alpha="auto") and
the temperature scaling that ends a binary fit (calibration="auto")."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd._engine._oracle import SharedTemperatureOracle
from sklearn_dpgd._public_size import SENSITIVITY_FACTOR
from sklearn_dpgd._solvers.gd import noisy_gradient_descent
from sklearn_dpgd.accounting import (
    GaussianPrivacyFilter,
    GaussianSteps,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
)
from sklearn_dpgd.exceptions import BudgetExhaustedError
from sklearn_dpgd.linear_model._calibration import (
    AVERAGE,
    CALIBRATION_SHARE,
    LEARNING_RATE,
    MARGIN_SCALE,
    MOMENTUM,
    N_STEPS,
    calibration_noise_multiplier,
    temperature_scale,
)
from sklearn_dpgd.linear_model._utility import DIAGNOSTICS_SHARE
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


# --- Temperature scaling (sklearn_dpgd.linear_model._calibration) --------------------------------

N_WIDE = 20000


@pytest.fixture(scope="module")
def wide_rows():
    """Logistic data on rows of norm about 3.3, over the default clip_norm of 1.

    Clipping then caps the pull of misclassified rows: the uncalibrated margins
    come out about twice too large (the over-confidence of StandardScaler rows).
    """
    rng = np.random.default_rng(1)
    n = 2 * N_WIDE
    X = rng.normal(size=(n, 10))
    y = (X @ np.linspace(-0.6, 0.6, 10) + rng.logistic(size=n) > 0).astype(int)
    return X[:N_WIDE], y[:N_WIDE], X[N_WIDE:], y[N_WIDE:]


def _wide_fit(X, y, seed=0, **params):
    # Temperature scaling is gradient descent's: "auto" would run "pgd" here.
    params = {"epsilon": 4.0, "public_n_samples": N_WIDE, "solver": "gd", **params}
    return DPLogisticRegression(classes=[0, 1], random_state=seed, **params).fit(X, y)


def test_temperature_restores_log_loss_on_wide_rows(wide_rows):
    X, y, X_test, y_test = wide_rows
    reference = log_loss(y_test, LogisticRegression().fit(X, y).predict_proba(X_test))
    calibrated = _wide_fit(X, y)
    raw = _wide_fit(X, y, calibration=None)
    assert calibrated.calibration_ == "temperature"
    assert raw.calibration_ is None and raw.calibration_scale_ is None
    calibrated_loss = log_loss(y_test, calibrated.predict_proba(X_test))
    # Uncalibrated: 11% above scikit-learn's; calibrated: within 2%.
    assert log_loss(y_test, raw.predict_proba(X_test)) > 1.08 * reference
    assert calibrated_loss <= 1.03 * reference
    assert 0.3 < calibrated.calibration_scale_ < 0.8


def test_temperature_spends_its_share_and_no_more(wide_rows):
    X, y, _, _ = wide_rows
    clf = _wide_fit(X, y)
    mu = gdp_mu(4.0, 1e-8)
    z_cal = calibration_noise_multiplier(mu)
    # The calibration's record, N_STEPS steps worth sqrt(0.02) mu, comes just
    # before the last one, the utility diagnostic's count of predicted classes.
    assert clf.ledger_[-2] == GaussianSteps(z_cal, count=N_STEPS)
    assert math.sqrt(N_STEPS) / z_cal == pytest.approx(
        math.sqrt(CALIBRATION_SHARE) * mu, rel=1e-12
    )
    # The training steps got the rest (less the diagnostics' 1%), and the
    # whole fit is mu-GDP.
    train_mu = gdp_mu_from_noise_multipliers(clf.noise_multipliers_)
    rest = 1 - CALIBRATION_SHARE - DIAGNOSTICS_SHARE
    assert train_mu == pytest.approx(math.sqrt(rest) * mu, rel=1e-6)
    assert clf.noise_multipliers_.shape == (clf.n_iter_,)
    assert clf.mu_ == pytest.approx(mu, rel=1e-9) and clf.mu_ <= mu
    assert clf.epsilon_ <= 4.0


class _ConstantGradient:
    """A stand-in oracle whose every noisy gradient is the same constant."""

    n_samples, n_features, n_outputs = 1, 1, 1

    def __init__(self, value):
        self.value = value

    def noisy_gradient(self, W, b, noise_multiplier):
        return np.array([[self.value, 0.0]])


class _Ones:
    """A generator whose standard normal draws are all 1."""

    def standard_normal(self, shape):
        return np.ones(shape)


@pytest.mark.parametrize("neighboring, factor", [("add_remove", 1), ("replace", 2)])
def test_temperature_noise_has_the_stated_sensitivity(neighboring, factor):
    # With coef = 0 every u_i is 0: the gradient sums are exactly 0 and each step's
    # noisy mean gradient is z * Delta * xi / m, here with xi = 1. The solver is
    # linear in its gradients, so the displacement of a is that constant times the
    # displacement a constant gradient of 1 gives. Delta is 1 under add/remove and
    # 2 under replace-one; a missing or extra factor of 2 fails.
    m, z = 1000, 0.2
    X = np.random.default_rng(0).normal(size=(m, 4))
    y = np.arange(m) % 2
    coef, intercept, a = temperature_scale(
        X,
        y,
        np.zeros((1, 4)),
        np.zeros(1),
        sensitivity_factor=SENSITIVITY_FACTOR[neighboring],
        privacy_filter=GaussianPrivacyFilter(1e6),
        rng=_Ones(),
        public_n_samples=m,
        noise_multiplier=z,
    )
    w_unit, _, _ = noisy_gradient_descent(
        _ConstantGradient(1.0),
        noise_multipliers=np.full(N_STEPS, z),
        learning_rates=np.full(N_STEPS, LEARNING_RATE),
        alpha=0.0,
        momentum=MOMENTUM,
        average=AVERAGE,
        initial=np.array([[MARGIN_SCALE, 0.0]]),
    )
    unit_shift = (w_unit[0, 0] - MARGIN_SCALE) / MARGIN_SCALE
    assert a - 1.0 == pytest.approx(factor * z / m * unit_shift, rel=1e-9)
    assert np.all(coef == 0.0) and np.all(intercept == 0.0)


def test_temperature_keeps_predictions_and_scales_the_model():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] > 0).astype(int)
    coef, intercept = np.array([[2.0, -1.0, 0.5]]), np.array([0.3])
    new_coef, new_intercept, a = temperature_scale(
        X,
        y,
        coef,
        intercept,
        sensitivity_factor=1,
        privacy_filter=GaussianPrivacyFilter(1e6),
        rng=np.random.default_rng(0),
        public_n_samples=500,
        noise_multiplier=1e-3,
    )
    assert 0.05 <= a <= 20.0
    np.testing.assert_allclose(new_coef, a * coef, rtol=1e-15)
    np.testing.assert_allclose(new_intercept, a * intercept, rtol=1e-15)
    before = np.sign(X @ coef.T + intercept)
    assert np.array_equal(np.sign(X @ new_coef.T + new_intercept), before)


def test_temperature_charges_before_it_reads():
    # A filter with no budget left refuses the first step: nothing is computed.
    spent = GaussianPrivacyFilter(1.0)
    spent.charge(GaussianSteps(1.0))
    with pytest.raises(BudgetExhaustedError):
        temperature_scale(
            np.ones((10, 2)),
            np.arange(10) % 2,
            np.ones((1, 2)),
            np.zeros(1),
            sensitivity_factor=1,
            privacy_filter=spent,
            rng=np.random.default_rng(0),
            public_n_samples=10,
            noise_multiplier=1.0,
        )
    assert spent.noise_multipliers.shape == (1,)


def test_auto_calibration_where_it_runs(wide_rows):
    X, y, _, _ = wide_rows
    # sqrt(0.02) * m * mu below 300: the stage's noise would cost more than it saves.
    small = _wide_fit(X[:2000], y[:2000], epsilon=1.0, public_n_samples=2000)
    assert small.calibration_ is None and small.calibration_scale_ is None
    forced = _wide_fit(
        X[:2000],
        y[:2000],
        epsilon=1.0,
        public_n_samples=2000,
        calibration="temperature",
    )
    assert forced.calibration_ == "temperature"
    assert _wide_fit(X, y, batch_size=2000, max_iter=20).calibration_ is None
    three = np.arange(N_WIDE) % 3
    multiclass = DPLogisticRegression(
        epsilon=4.0, classes=[0, 1, 2], public_n_samples=N_WIDE, max_iter=20
    ).fit(X, three)
    # Multinomial: one shared temperature, where half the binary signal is >= 300.
    assert multiclass.calibration_ == "temperature"
    small = DPLogisticRegression(
        epsilon=1.0, classes=[0, 1, 2], public_n_samples=4000, max_iter=20
    ).fit(X[:4000], three[:4000])
    assert small.calibration_ is None  # sqrt(0.02) 4000 mu / 2 = 76
    svm = DPHuberSVM(classes=[0, 1], public_n_samples=N_WIDE, max_iter=20).fit(X, y)
    assert svm.calibration_ is None and svm.calibration_scale_ is None


@pytest.mark.parametrize(
    "params",
    [{"batch_size": 100}, {"solver": "snowball"}],
)
def test_forced_temperature_where_unavailable_raises(params):
    X = np.random.default_rng(0).normal(size=(300, 3))
    y = np.arange(300) % 2
    clf = DPLogisticRegression(
        calibration="temperature", **{"classes": [0, 1], **params}
    )
    with pytest.raises(ValueError, match="calibration='temperature'"):
        clf.fit(X, y)


@pytest.mark.parametrize("value", ["sigmoid", "isotonic", 1, True])
def test_calibration_validation(value):
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match="calibration"):
        DPLogisticRegression(calibration=value, classes=[0, 1]).fit(
            X, np.arange(50) % 2
        )


def test_shared_temperature_gradient_is_bounded_and_exact():
    rng = np.random.default_rng(0)
    U = np.clip(rng.normal(scale=2.0, size=(400, 4)), -1.0, 1.0)
    y = rng.integers(0, 4, size=400)
    w = 3.0
    # Each row's gradient sum_k (p_k - [y = k]) u_k is within the bound 2, also at
    # the extremes (u = +-1, a confident wrong prediction).
    P = np.exp(w * U - logsumexp(w * U, axis=1, keepdims=True))
    rows = np.sum((P - np.eye(4)[y]) * U, axis=1)
    assert np.abs(rows).max() <= SharedTemperatureOracle.ROW_BOUND
    worst = np.array([[1.0, -1.0, -1.0, -1.0]])
    Pw = np.exp(50 * worst - logsumexp(50 * worst))
    assert np.sum((Pw - np.eye(4)[[1]]) * worst) == pytest.approx(2.0, abs=1e-9)
    # The query: the exact mean gradient of the cross-entropy of softmax(w U),
    # plus noise of std z * factor * 2 (same seed), charged before it reads.
    for factor in (1.0, 2.0):
        filt = GaussianPrivacyFilter(mu=10.0)
        oracle = SharedTemperatureOracle(
            U,
            y,
            sensitivity_factor=factor,
            privacy_filter=filt,
            rng=np.random.default_rng(7),
            public_n_samples=400,
        )
        got = oracle.noisy_gradient(w, 5.0)
        noise = 5.0 * factor * 2.0 * np.random.default_rng(7).standard_normal()
        assert got == pytest.approx((rows.sum() + noise) / 400, rel=1e-12)

        def loss(v):
            return -np.mean((v * U)[np.arange(400), y] - logsumexp(v * U, axis=1))

        assert rows.mean() == pytest.approx((loss(w + 1e-6) - loss(w - 1e-6)) / 2e-6)
        assert filt.ledger == (GaussianSteps(5.0),)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        SharedTemperatureOracle(
            2 * U,
            y,
            sensitivity_factor=1.0,
            privacy_filter=filt,
            rng=rng,
            public_n_samples=400,
        )


def test_multinomial_temperature_is_charged_and_keeps_predictions(wide_rows):
    X, _, _, _ = wide_rows
    three = np.arange(X.shape[0]) % 3
    kw = dict(epsilon=4.0, classes=[0, 1, 2], public_n_samples=N_WIDE, max_iter=20)
    kw.update(random_state=0, utility_diagnostics=False)
    clf = DPLogisticRegression(calibration="temperature", **kw).fit(X, three)
    assert clf.calibration_ == "temperature" and clf.calibration_scale_ > 0
    # The stage's N_STEPS steps are the ledger's last record, at the binary
    # stage's noise multiplier: 2% of mu^2 (its sensitivity 2 is in the noise).
    mu = gdp_mu(4.0, clf.delta)
    assert clf.ledger_[-1] == GaussianSteps(
        calibration_noise_multiplier(mu), count=N_STEPS
    )
    assert clf.epsilon_ <= 4.0 + 1e-9
    raw = clf.coef_ / clf.calibration_scale_, clf.intercept_ / clf.calibration_scale_
    np.testing.assert_array_equal(
        np.argmax(X @ raw[0].T + raw[1], axis=1), clf.predict(X)
    )
