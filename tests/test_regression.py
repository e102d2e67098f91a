"""DPLinearRegression and DPHuberRegressor: the regression losses in the shared
kernels, the sensitivity on worst-case neighbouring pairs, the accounting, the
target map, scikit-learn's checks and the estimator plumbing."""

import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from scipy.stats import norm
from sklearn.base import clone, is_regressor
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import ParameterGrid
from sklearn.preprocessing import MinMaxScaler, Normalizer

from sklearn_dpgd import (
    DPHuberRegressor,
    DPLinearRegression,
    PrivacyLeakWarning,
    UniformSchedule,
    _public_size,
)
from sklearn_dpgd._engine import _loss_kernels, _losses
from sklearn_dpgd._engine._kernels import (
    clipped_gradient_sum,
    clipped_gradient_sum_csr,
    clipped_objective_along,
    row_norms,
    row_norms_csr,
)
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd.accounting import PrivacyLedger, gdp_mu, ledger_epsilon
from sklearn_dpgd.audit import audit
from sklearn_dpgd.exceptions import BudgetExhaustedError
from sklearn_dpgd.linear_model import _base
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV
from sklearn_dpgd.model_selection._selection import validation_score
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPMinMaxScaler
from sklearn_dpgd.schedules import AdaptiveStepSchedule

from . import _reference as ref
from ._sklearn_checks import (
    _LARGE_WEIGHT_CHECKS,
    _LARGE_WEIGHT_REASON,
    _WEIGHTED_REASONS,
    parametrize_with_checks,
)

REGRESSORS = [DPLinearRegression, DPHuberRegressor]
LOSSES = ["squared", "huber"]


@pytest.fixture(autouse=True)
def _quiet_fixed_seed():
    # Tests fix random_state on purpose; the leak warning is tested once below.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*random_state", PrivacyLeakWarning)
        yield


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return Normalizer().fit_transform(MinMaxScaler().fit_transform(X)), y


# ------------------------------------------------------------------ the losses


@pytest.mark.parametrize("loss", LOSSES)
def test_scalar_losses_match_reference_and_derivative(loss):
    code, h = _losses.LOSS_CODES[loss], 0.3
    m = np.linspace(-5, 5, 101)
    for yi in (-1.0, 0.2, 1.0):
        got_r = np.array([_loss_kernels.residual(v, yi, code, h) for v in m])
        got_l = np.array([_loss_kernels.example_loss(v, yi, code, h) for v in m])
        want_r = ref.residuals(m[:, None], np.full(m.size, yi), loss, h)[:, 0]
        W = np.ones((1, 1))
        want_l = ref.per_example_losses(
            m[:, None], np.full(m.size, yi), W, np.zeros(1), False, loss, h
        )
        np.testing.assert_allclose(got_r, want_r, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(got_l, want_l, rtol=1e-14, atol=1e-14)
        eps = 1e-6
        num = [
            (
                _loss_kernels.example_loss(v + eps, yi, code, h)
                - _loss_kernels.example_loss(v - eps, yi, code, h)
            )
            / (2 * eps)
            for v in m
        ]
        np.testing.assert_allclose(got_r, num, rtol=1e-6, atol=1e-6)
    # The squared residual is unbounded; Huber's is within the threshold.
    assert _loss_kernels.residual(1e6, 0.0, _losses.LOSS_CODES["squared"], h) == 1e6
    assert _loss_kernels.residual(1e6, 0.0, _losses.LOSS_CODES["huber"], h) == h


def _regression_problem(n, d, seed=0, density=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 3, size=(n, 1))
    if density is not None:
        X[rng.random((n, d)) > density] = 0.0
    y = rng.uniform(-1, 1, size=n) * 3.0
    W, b = rng.standard_normal((1, d)), rng.standard_normal(1)
    return X, y, W, b


def _kernel(X, y, W, b, clip_norm, loss, h=0.5, fit_intercept=True):
    code = _losses.LOSS_CODES[loss]
    if sp.issparse(X):
        norms = row_norms_csr(X.data, X.indptr, fit_intercept)
        return clipped_gradient_sum_csr(
            X.data, X.indices, X.indptr, X.shape[1], y, W, b, norms, None,
            fit_intercept, clip_norm, code, h, None,
        )  # fmt: skip
    norms = row_norms(X, fit_intercept)
    return clipped_gradient_sum(
        X, y, W, b, norms, None, fit_intercept, clip_norm, code, h, None
    )


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
@pytest.mark.parametrize("clip_norm", [0.05, 1.0, 100.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_clipped_gradient_sum_matches_reference(loss, fmt, clip_norm, fit_intercept):
    X, y, W, b = _regression_problem(57, 6, density=0.4 if fmt == "csr" else None)
    Xk = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[fmt]
    got = _kernel(Xk, y, W, b, clip_norm, loss, 0.4, fit_intercept)
    Xr = X.astype(np.float32).astype(float) if fmt == "float32" else X
    want = ref.clipped_gradient_sum(Xr, y, W, b, fit_intercept, clip_norm, loss, 0.4)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * clip_norm)


@pytest.mark.parametrize("loss", LOSSES)
def test_clipped_objective_matches_reference(loss):
    X, y, W, b = _regression_problem(40, 5, seed=2)
    rng = np.random.default_rng(3)
    D, db = rng.standard_normal((1, 5)), rng.standard_normal(1)
    etas = np.linspace(0.0, 1.0, 7)
    code = _losses.LOSS_CODES[loss]
    got = clipped_objective_along(
        X, y, W, b, D, db, etas, np.arange(40), True, 3.0, code, 0.4
    )
    want = ref.clipped_objective_along(X, y, W, b, D, db, etas, True, 3.0, loss, 0.4)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_huge_targets_and_rows_are_clipped_not_nan():
    X, y, W, b = _regression_problem(20, 4)
    X[0] = 1e300
    y[1] = 1e300
    y[2] = -1e300
    g = _kernel(X, y, W * 1e10, b, 0.7, "squared")
    assert np.all(np.isfinite(g)) and np.linalg.norm(g) <= 20 * 0.7


# ------------------------------------------------- sensitivity: worst-case pairs


class _RecordingOracle(PrivateGradientOracle):
    """Records a fit's oracle, its scaled target and the noise std of each step."""

    last = None

    def __init__(self, X, y, *args, **kwargs):
        super().__init__(X, y, *args, **kwargs)
        self.sigmas, self.y = [], np.array(y)
        type(self).last = self

    def _add_noise(self, grad, noise_multiplier):
        self.sigmas.append(noise_multiplier * self._sensitivity)
        super()._add_noise(grad, noise_multiplier)


def _noiseless_sum(oracle, X, y, coef, intercept):
    other = PrivateGradientOracle(
        X,
        y,
        n_outputs=1,
        loss=oracle._loss,
        huber_width=oracle._h,
        clip_norm=oracle._clip_norm,
        sensitivity=1.0,
        fit_intercept=True,
        privacy_filter=None,
        rng=None,
        public_n_samples=len(y),
    )
    return other._rows.clipped_sum_rows(coef, intercept, other._kernel_args, None)


def _pair_delta(distances, sigmas, epsilon):
    """Exact ``delta(epsilon)`` of the composed Gaussian steps on a pair whose sums
    are ``distances[t]`` apart (Balle & Wang, ICML 2018, Thm 8; GDP composition,
    Dong, Roth & Su 2022, Cor. 3.3), written out independently of the package."""
    mu = math.sqrt(sum((d / s) ** 2 for d, s in zip(distances, sigmas, strict=True)))
    return norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(
        -epsilon / mu - mu / 2
    )


@pytest.mark.parametrize("Regressor", REGRESSORS)
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_worst_case_pair_moves_the_sum_by_the_calibrated_sensitivity(
    monkeypatch, Regressor, neighboring
):
    # The squared loss's gradient grows with y and the margin without bound; the
    # clipping alone bounds a row's term by C. A row with a far target and a long
    # row is clipped; under add/remove it moves the sum by exactly C, and a row
    # replaced by the same row with the opposite target by 2C (at margin 0 the
    # residuals are -1 and +1: exactly opposite clipped gradients). The noise must be
    # calibrated to that: with C under replace the pair breaks the guarantee.
    monkeypatch.setattr(_base, "PrivateGradientOracle", _RecordingOracle)
    X, y = _diabetes()
    C, m = 0.5, len(y)
    reg = Regressor(
        epsilon=1.0,
        delta=1e-6,
        y_bounds=(25, 346),
        max_iter=8,
        clip_norm=C,
        neighboring=neighboring,
        public_n_samples=m,
        random_state=0,
    ).fit(X, y)
    oracle = _RecordingOracle.last
    factor = {"add_remove": 1.0, "replace": 2.0}[neighboring]
    assert oracle._sensitivity == factor * C
    np.testing.assert_allclose(oracle.sigmas, reg.noise_multipliers_ * factor * C)
    coef, intercept = np.zeros((1, X.shape[1])), np.zeros(1)
    far = np.full((1, X.shape[1]), 30.0)
    y_scaled = oracle.y
    D = _noiseless_sum(oracle, X, y_scaled, coef, intercept)
    if neighboring == "add_remove":
        Dp = _noiseless_sum(oracle, np.vstack([X, far]), np.append(y_scaled, 1.0),
                            coef, intercept)  # fmt: skip
        moved = np.linalg.norm(Dp - D)
        np.testing.assert_allclose(moved, C, rtol=1e-12)
    else:
        y1, y2 = np.append(y_scaled[:-1], 1.0), np.append(y_scaled[:-1], -1.0)
        Xs = np.vstack([X[:-1], far])
        moved = np.linalg.norm(
            _noiseless_sum(oracle, Xs, y1, coef, intercept)
            - _noiseless_sum(oracle, Xs, y2, coef, intercept)
        )  # same row, opposite targets: exactly opposite clipped gradients
        np.testing.assert_allclose(moved, 2 * C, rtol=1e-12)
    assert moved <= oracle._sensitivity * (1 + 1e-12)
    # The exact privacy profile of this pair over the steps that ran meets the
    # claim; with the noise of half the sensitivity it would not.
    n_steps = len(oracle.sigmas)
    sigmas = np.asarray(oracle.sigmas)
    assert _pair_delta([moved] * n_steps, sigmas, reg.epsilon_) <= 1e-6 * (1 + 1e-6)
    if neighboring == "replace":
        assert _pair_delta([moved] * n_steps, sigmas / 2, reg.epsilon_) > 1e-6


def test_targets_outside_the_bounds_are_clipped_to_them(monkeypatch):
    monkeypatch.setattr(_base, "PrivateGradientOracle", _RecordingOracle)
    X, y = _diabetes()
    y = y.copy()
    y[:3] = [1e12, -1e12, 346.0]
    DPLinearRegression(y_bounds=(25, 346), max_iter=2, random_state=0).fit(X, y)
    y_scaled = _RecordingOracle.last.y
    assert y_scaled[0] == 1.0 and y_scaled[1] == -1.0 and y_scaled[2] == 1.0
    assert np.all(np.abs(y_scaled) <= 1.0)
    np.testing.assert_allclose(y_scaled[3:], (y[3:] - 185.5) / 160.5)


def test_without_intercept_the_target_is_only_scaled(monkeypatch):
    monkeypatch.setattr(_base, "PrivateGradientOracle", _RecordingOracle)
    X, y = _diabetes()
    reg = DPLinearRegression(
        y_bounds=(-10, 400), fit_intercept=False, max_iter=2, random_state=0
    ).fit(X, y)
    np.testing.assert_allclose(_RecordingOracle.last.y, y / 400.0)
    assert reg.intercept_ == 0.0


# ---------------------------------------------------------------- accounting


@pytest.mark.parametrize("Regressor", REGRESSORS)
def test_full_batch_spend_matches_dp_accounting(Regressor):
    X, y = _diabetes()
    reg = Regressor(
        epsilon=1.0, delta=1e-6, y_bounds=(25, 346), public_n_samples=442,
        max_iter=20, random_state=0,
    ).fit(X, y)  # fmt: skip
    accountant = pld_privacy_accountant.PLDAccountant(
        value_discretization_interval=1e-4
    )
    # The whole ledger: the training steps and the residual check after them.
    assert len(reg.ledger_) == 2 and reg.ledger_[0].count == len(reg.noise_multipliers_)
    for record in reg.ledger_:
        accountant.compose(
            dp_event.GaussianDpEvent(float(record.noise_multiplier)), record.count
        )
    assert accountant.get_epsilon(1e-6) == pytest.approx(1.0, abs=2e-3)
    assert reg.epsilon_ <= 1.0 + 1e-9
    assert ledger_epsilon(reg.ledger_, 1e-6) == pytest.approx(reg.epsilon_, rel=1e-9)
    assert reg.mu_ == pytest.approx(gdp_mu(1.0, 1e-6), rel=1e-9)


def test_minibatch_spend_matches_dp_accounting():
    X, y = _diabetes()
    reg = DPLinearRegression(
        epsilon=2.0, delta=1e-6, y_bounds=(25, 346), public_n_samples=442,
        batch_size=64, max_iter=30, random_state=0,
    ).fit(X, y)  # fmt: skip
    q = 64 / 442
    accountant = pld_privacy_accountant.PLDAccountant(
        value_discretization_interval=1e-3
    )
    for z in reg.noise_multipliers_:
        accountant.compose(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(float(z)))
        )
    assert accountant.get_epsilon(1e-6) <= 2.0 * 1.01
    assert accountant.get_epsilon(1e-6) >= 2.0 * 0.95
    assert reg.n_iter_ == 30 and reg.mu_ is None


def test_ledger_is_charged_before_data_is_read(monkeypatch):
    X, y = _diabetes()
    params = dict(epsilon=0.7, delta=1e-6, y_bounds=(25, 346), max_iter=3)
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-6)
    with ledger:
        DPLinearRegression(**params).fit(X, y)
        before = ledger.entries

        class _NoOracle:
            def __init__(self, *args, **kwargs):
                raise AssertionError("the data was read")

        monkeypatch.setattr(_base, "PrivateGradientOracle", _NoOracle)
        with pytest.raises(BudgetExhaustedError, match="refused before reading"):
            DPHuberRegressor(**params).fit(X, y)
    assert ledger.entries == before and len(before) == 1


def test_private_size_under_add_remove_and_the_penalty_on_it(monkeypatch):
    # Without public_n_samples the size is a noisy count: no rule reads n.
    X, y = _diabetes()
    reg = DPLinearRegression(
        epsilon=1.0, delta=1e-6, y_bounds=(25, 346), alpha=3.0, max_iter=3,
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert reg.public_n_samples_ != len(y)
    assert reg.alpha_ == pytest.approx(3.0 / reg.public_n_samples_)
    assert reg.epsilon_ <= 1.0 + 1e-9


# --------------------------------------------------------------- the estimators


@pytest.mark.parametrize("Regressor", REGRESSORS)
def test_utility_close_to_ols_at_a_large_budget(Regressor):
    X, y = _diabetes()
    ols = r2_score(y, LinearRegression().fit(X, y).predict(X))
    scores = [
        Regressor(
            epsilon=200.0, delta=1e-6, y_bounds=(25, 346), threshold=2.0, random_state=s
        )
        .fit(X, y)
        .score(X, y)  # fmt: skip
        if Regressor is DPHuberRegressor
        else Regressor(epsilon=200.0, delta=1e-6, y_bounds=(25, 346), random_state=s)
        .fit(X, y)
        .score(X, y)  # fmt: skip
        for s in range(3)
    ]
    assert np.mean(scores) > ols - 0.03
    assert is_regressor(Regressor())


def test_coef_and_intercept_are_in_the_target_units():
    # A noiseless-like fit on y = 1000 + 50 x0 recovers the offset far from 0.
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(3000, 2)) / np.sqrt(2)
    y = 1000.0 + 50.0 * X[:, 0]
    reg = DPLinearRegression(
        epsilon=500.0, delta=1e-6, y_bounds=(950, 1100), public_n_samples=3000,
        random_state=0, max_iter=600, normalize_steps=False,
    ).fit(X, y)  # fmt: skip
    assert reg.coef_.shape == (2,) and isinstance(reg.intercept_, float)
    assert reg.intercept_ == pytest.approx(1000.0, abs=0.5)
    np.testing.assert_allclose(reg.predict(X), y, atol=0.5)


def test_huber_is_more_robust_to_outlying_targets():
    # 10% of the targets replaced by the top of the range: Huber's bounded pull
    # keeps the coefficients closer to the truth than the squared loss.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4000, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w = np.array([2.0, -1.0, 0.5])
    y = X @ w + 0.1 * rng.standard_normal(4000)
    y[::10] = 3.0
    params = dict(epsilon=20.0, delta=1e-6, y_bounds=(-3, 3))

    def error(Regressor, **extra):
        fits = [
            Regressor(**params, **extra, random_state=s).fit(X, y) for s in range(3)
        ]
        return np.mean([np.linalg.norm(f.coef_ - w) for f in fits])

    assert error(DPHuberRegressor, threshold=0.1) < 0.85 * error(DPLinearRegression)


@pytest.mark.parametrize("Regressor", REGRESSORS)
def test_fixed_seed_is_reproducible_sparse_equals_dense_and_pickles(Regressor):
    X, y = _diabetes()
    params = dict(epsilon=1.0, y_bounds=(25, 346), max_iter=10, random_state=3)
    a = Regressor(**params).fit(X, y)
    b = Regressor(**params).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10)
    assert a.intercept_ == pytest.approx(b.intercept_, rel=1e-10)
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict(X), a.predict(X))
    assert np.asarray(Regressor(**params).fit(X.astype(np.float32), y).coef_).dtype \
        == np.float32  # fmt: skip


@pytest.mark.parametrize("Regressor", REGRESSORS)
def test_schedules_secure_mode_and_sample_weight_run(Regressor):
    X, y = _diabetes()
    base = dict(epsilon=1.0, delta=1e-6, y_bounds=(25, 346), max_iter=10)
    for params in (
        dict(schedule=UniformSchedule(), secure_mode=True),
        dict(schedule=AdaptiveStepSchedule()),
        dict(normalize_steps=False),
    ):
        reg = Regressor(**base, **params).fit(X, y)
        assert np.all(np.isfinite(reg.coef_)) and reg.epsilon_ <= 1.0 + 1e-9
    reg = Regressor(**base, random_state=0, max_sample_weight=2.0).fit(
        X, y, sample_weight=np.full(len(y), 2.0)
    )
    assert np.all(np.isfinite(reg.coef_))
    with pytest.raises(ValueError, match="sample_weight needs a data-independent"):
        Regressor(**base, schedule=AdaptiveStepSchedule()).fit(
            X, y, sample_weight=np.ones(len(y))
        )


def test_warm_start_is_in_the_target_units():
    X, y = _diabetes()
    ols = LinearRegression().fit(X, y)
    reg = DPLinearRegression(
        epsilon=1.0, y_bounds=(25, 346), max_iter=1, learning_rate=1e-9,
        momentum=0.0, random_state=0,
    ).fit(X, y, coef_init=ols.coef_, intercept_init=[ols.intercept_])  # fmt: skip
    np.testing.assert_allclose(reg.coef_, ols.coef_, rtol=1e-6, atol=1e-6)
    assert reg.intercept_ == pytest.approx(ols.intercept_, rel=1e-6)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(), "y_bounds is required"),
        (dict(y_bounds=(1, 1)), "low < high"),
        (dict(y_bounds=(0, np.inf)), "two finite numbers"),
        (dict(y_bounds=(0, 1, 2)), "two finite numbers"),
        (dict(y_bounds=(0, 1), learning_rate=np.inf), "learning_rate"),
    ],
)
def test_bad_parameters_raise_naming_the_parameter(params, match):
    X, y = _diabetes()
    with pytest.raises(ValueError, match=match):
        DPLinearRegression(**params).fit(X, y)


def test_bad_threshold_and_targets_raise():
    X, y = _diabetes()
    with pytest.raises(ValueError, match="'alpha' parameter"):
        DPLinearRegression(y_bounds=(0, 1), alpha="auto").fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        DPHuberRegressor(y_bounds=(0, 1), threshold=0.0).fit(X, y)
    with pytest.raises(ValueError, match="y must be 1-D|1d array|column"):
        DPLinearRegression(y_bounds=(0, 1)).fit(X, np.c_[y, y])
    with pytest.raises(ValueError):
        DPLinearRegression(y_bounds=(0, 1)).fit(X, np.array(["a"] * len(y)))


def test_fixed_seed_warns_and_unseeded_fits_differ():
    X, y = _diabetes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPLinearRegression(y_bounds=(25, 346), max_iter=2, random_state=0).fit(X, y)
    assert any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
    a = DPLinearRegression(y_bounds=(25, 346), max_iter=2).fit(X, y)
    b = clone(a).fit(X, y)
    assert not np.array_equal(a.coef_, b.coef_)


# ------------------------------------------------------- scikit-learn's checks

# The weighted linear models' expected failures, each with its privacy reason.
_CHECK_REASONS = {
    **_WEIGHTED_REASONS,
    **dict.fromkeys(_LARGE_WEIGHT_CHECKS, _LARGE_WEIGHT_REASON),
}


@parametrize_with_checks(
    [
        DPLinearRegression(epsilon=50.0, delta=1e-6, y_bounds=(-50, 50)),
        DPHuberRegressor(epsilon=50.0, delta=1e-6, y_bounds=(-50, 50)),
    ],
    expected_failed_checks=lambda est: _CHECK_REASONS,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


# ------------------------------------------- pipeline, searches, ledger composition


def test_private_pipeline_trains_a_regressor_within_its_budget():
    X, y = load_diabetes(return_X_y=True)
    pipe = make_private_pipeline(
        DPMinMaxScaler(bounds=(-0.2, 0.2)),  # public: the data set's scaling
        Normalizer(),
        DPLinearRegression(y_bounds=(25, 346)),
        epsilon=4.0,
        delta=1e-6,
        random_state=0,
    )
    ledger = PrivacyLedger()
    with ledger:
        pipe.fit(X, y)
    assert is_regressor(pipe)
    assert pipe.score(X, y) > 0.2  # R^2
    assert ledger.epsilon(1e-6) <= 4.0 + 1e-6


def test_private_grid_search_tunes_a_regressor_within_its_budget():
    X, y = _diabetes()
    search = PrivateGridSearchCV(
        DPLinearRegression(y_bounds=(25, 346)),
        param_grid={"clip_norm": [0.5, 1.0], "alpha": [0.0, 1.0]},
        epsilon=8.0,
        delta=1e-6,
        random_state=0,
    )
    ledger = PrivacyLedger()
    with ledger:
        search.fit(X, y)
    assert is_regressor(search) and isinstance(
        search.best_estimator_, DPLinearRegression
    )
    assert not hasattr(search, "classes_")
    assert search.epsilon_ <= 8.0 + 1e-9 and ledger.epsilon(1e-6) <= 8.0 + 1e-6
    assert search.score(X, y) == pytest.approx(search.best_estimator_.score(X, y))
    assert search.best_params_ in list(ParameterGrid(search.param_grid))


def test_regression_validation_score_has_sensitivity_one():
    # Each row's term lies in [0, 1] whatever the prediction and the target (far
    # outside the bounds, NaN): adding a row moves every candidate's score by a
    # value in [0, 1], in the same direction, as a count of correct predictions.
    X, y = _diabetes()
    reg = DPLinearRegression(y_bounds=(25, 346), max_iter=3, random_state=0).fit(X, y)
    base = validation_score(reg, X[:50], y[:50], regression=True)
    for x_new, y_new in [(X[:1] * 1e6, 1e12), (X[:1], -1e12), (X[:1], np.nan),
                         (X[:1], 25.0), (X[:1], 346.0)]:  # fmt: skip
        more = validation_score(
            reg, np.vstack([X[:50], x_new]), np.append(y[:50], y_new), regression=True
        )
        assert 0.0 <= more - base <= 1.0
    # The worst row: prediction at one bound, target at the other, adds 0; a
    # perfect one adds 1.
    pred = reg.predict(X[:1])[0]
    perfect = validation_score(
        reg, np.vstack([X[:50], X[:1]]), np.append(y[:50], pred), regression=True
    )
    assert perfect - base == pytest.approx(1.0)
    far = X[:1] * 1e6
    other = 25.0 if reg.predict(far)[0] == 346.0 else 346.0
    worst = validation_score(
        reg, np.vstack([X[:50], far]), np.append(y[:50], other), regression=True
    )
    assert worst - base == pytest.approx(0.0, abs=1e-12)


def test_linear_scaling_search_refuses_regressors_before_reading_data():
    X, y = _diabetes()
    search = LinearScalingSearch(
        DPLinearRegression(y_bounds=(25, 346)), epsilon=1.0, delta=1e-6
    )
    ledger = PrivacyLedger()
    with ledger, pytest.raises(TypeError, match="tunes classifiers only"):
        search.fit(X, y)
    assert len(ledger.entries) == 0


# ------------------------------------------------------------- dask, predictions


@pytest.mark.parametrize("Regressor", REGRESSORS)
def test_dask_fit_is_the_numpy_fit(Regressor):
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    X, y = _diabetes()
    params = dict(
        epsilon=1.0, delta=1e-6, y_bounds=(25, 346), public_n_samples=442,
        max_iter=20, random_state=0,
    )  # fmt: skip
    ref_fit = Regressor(**params).fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        fitted = Regressor(**params).fit(
            da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
        )
        pred = fitted.predict(da.from_array(X, chunks=(100, -1))).compute()
    np.testing.assert_allclose(fitted.coef_, ref_fit.coef_, rtol=0, atol=1e-9)
    assert fitted.intercept_ == pytest.approx(ref_fit.intercept_, abs=1e-7)
    assert fitted.epsilon_ == ref_fit.epsilon_
    np.testing.assert_allclose(pred, ref_fit.predict(X), atol=1e-7)
    bad = y.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="y contains NaN"):
        with dask.config.set(scheduler="synchronous"):
            Regressor(**params).fit(da.from_array(X, chunks=(100, -1)),
                                    da.from_array(bad, chunks=100))  # fmt: skip


def test_predictions_are_clipped_to_the_public_range():
    X, y = _diabetes()
    reg = DPLinearRegression(y_bounds=(25, 346), max_iter=5, random_state=0).fit(X, y)
    raw = X @ reg.coef_ + reg.intercept_
    far = np.vstack([X[:1] * 1e6, -X[:1] * 1e6])
    np.testing.assert_allclose(reg.predict(X), np.clip(raw, 25, 346))
    assert set(reg.predict(far)) <= {25.0, 346.0}


# ------------------------------------------------------------------- the audit


@pytest.mark.slow  # two audits of 400 trials each: 35-45 s per relation, loaded
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_small_audit_fails_if_a_factor_of_two_is_missing(neighboring, monkeypatch):
    # The regression canary: a fresh column, the target at the top of y_bounds
    # (flipped to the bottom under replace), started far below it under
    # add/remove so that its residual, hence its clipped gradient, stays maximal.
    # The claim survives the audit; with the sensitivity factors halved the true
    # mu doubles and the same audit refutes it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=60)
    est = DPLinearRegression(
        epsilon=12.0, delta=1e-5, y_bounds=(-10, 10), public_n_samples=60,
        momentum=0.0, average=0.0, max_iter=20, neighboring=neighboring,
    )  # fmt: skip
    kwargs = dict(n_trials=400, confidence=0.999, progress=False)
    correct = audit(est, X, y, **kwargs)
    claim = gdp_mu(12.0, 1e-5)
    assert correct.mu_claimed == pytest.approx(claim, rel=1e-6)
    assert correct.mu_lower <= claim
    assert correct.epsilon_lower <= correct.epsilon_claimed
    factors = _public_size.SENSITIVITY_FACTOR
    for relation in ("add_remove", "replace"):
        monkeypatch.setitem(factors, relation, factors[relation] / 2.0)
    broken = audit(est, X, y, **kwargs)
    assert broken.mu_lower > claim


def test_loss_constants_are_those_of_the_scaled_target():
    # Smoothness 1 in the margin; the loss at the zero start is at most 1/2
    # (squared, |y| <= 1) or h - h^2 / 2 (Huber below h = 1).
    assert DPLinearRegression()._loss_constants(1) == (1.0, 0.5)
    assert DPHuberRegressor(threshold=0.25)._loss_constants(1) == (1.0, 0.21875)
    assert DPHuberRegressor(threshold=3.0)._loss_constants(1) == (1.0, 0.5)
