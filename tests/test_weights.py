"""Sample and class weights (``linear_model/_weights.py``): validation, the bound the
sensitivity is scaled by, bit-identity at unit weights, and "balanced"."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd._solvers import snowball as snowball_solver
from sklearn_dpgd.accounting import GaussianSteps, gdp_mu, ledger_epsilon
from sklearn_dpgd.linear_model import _base
from sklearn_dpgd.linear_model._weights import (
    CLASS_COUNT_SHARE,
    balanced_weights,
    noisy_class_counts,
)
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule

from . import _reference as ref

ESTIMATORS = [DPLogisticRegression, DPHuberSVM]


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=1500, d=6, n_classes=2, seed=0, weights=None):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=4,
        n_classes=n_classes,
        weights=weights,
        random_state=seed,
    )
    return Normalizer().fit_transform(X), y


# --- validation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", [-0.1, np.nan, np.inf, 1.5], ids=["negative", "nan", "inf", "above"]
)
def test_sample_weight_outside_the_bound_names_it(bad):
    X, y = _data(n=50)
    weights = np.ones(50)
    weights[3] = bad
    with pytest.raises(ValueError, match=r"\[0, max_sample_weight=1\]"):
        DPLogisticRegression(max_iter=2).fit(X, y, sample_weight=weights)
    # The same weight is accepted under a larger public bound (unless not finite
    # or negative).
    clf = DPLogisticRegression(max_iter=2, max_sample_weight=2.0)
    if bad == 1.5:
        clf.fit(X, y, sample_weight=weights)
    else:
        with pytest.raises(ValueError, match=r"\[0, max_sample_weight=2\]"):
            clf.fit(X, y, sample_weight=weights)


def test_sample_weight_shape_and_bound_parameter():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(49,\)"):
        DPLogisticRegression(max_iter=2).fit(X, y, sample_weight=np.ones(49))
    for bad in (0.0, -1.0):
        with pytest.raises(InvalidParameterError, match="max_sample_weight"):
            DPLogisticRegression(max_sample_weight=bad).fit(X, y)
    with pytest.raises(ValueError, match=r"max_sample_weight.*\(0.0, inf\). Got inf"):
        DPLogisticRegression(max_sample_weight=np.inf).fit(X, y)


def test_sample_weight_is_not_written_to():
    X, y = _data(n=50)
    weights = np.full(50, 0.5)
    DPLogisticRegression(max_iter=2).fit(X, y, sample_weight=weights)
    assert np.all(weights == 0.5)


def test_class_weight_validation():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=r"labels \[7\] not in classes_"):
        DPLogisticRegression(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="finite and >= 0"):
        DPLogisticRegression(class_weight={0: -1.0}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="class_weight"):
        DPLogisticRegression(class_weight="balance").fit(X, y)


@pytest.mark.parametrize(
    "params, weighted, message",
    [
        (dict(solver="newton"), "sample", "need solver='gd' or 'snowball'"),
        (dict(solver="newton", class_weight={0: 2.0}), None, "or 'snowball'"),
        (dict(solver="snowball", class_weight="balanced"), None, "'balanced' needs"),
    ],
)
def test_weights_refused_where_not_implemented(params, weighted, message):
    X, y = _data(n=80)
    sample_weight = np.ones(80) if weighted else None
    with pytest.raises(ValueError, match=message):
        DPLogisticRegression(**params).fit(X, y, sample_weight=sample_weight)


# --- unit weights change nothing, bit for bit --------------------------------------


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "fmt, n_classes, params",
    [
        ("dense", 2, {}),
        ("csr", 2, {}),
        ("float32", 2, {}),
        ("dense", 3, {}),
        ("csr", 3, {}),
        ("dense", 2, dict(batch_size=200)),
        ("dense", 2, dict(neighboring="replace")),
    ],
)
def test_unit_weights_are_bit_identical_to_no_weights(
    Estimator, fmt, n_classes, params
):
    X, y = _data(n_classes=n_classes)
    if fmt == "csr":
        X[np.abs(X) < 0.2] = 0.0
        X = sp.csr_matrix(X)
    elif fmt == "float32":
        X = X.astype(np.float32)
    params = dict(epsilon=2.0, max_iter=40, random_state=3, **params)
    plain = Estimator(**params).fit(X, y)
    ones = Estimator(**params).fit(X, y, sample_weight=np.ones(len(y)))
    unit_classes = Estimator(
        class_weight=dict.fromkeys(np.unique(y), 1.0), **params
    ).fit(X, y)
    for fitted in (ones, unit_classes):
        assert np.array_equal(fitted.coef_, plain.coef_)
        assert np.array_equal(fitted.intercept_, plain.intercept_)
        assert fitted.ledger_ == plain.ledger_ and fitted.epsilon_ == plain.epsilon_
    # Not vacuous: other weights give another model.
    halves = Estimator(**params).fit(X, y, sample_weight=np.full(len(y), 0.5))
    assert not np.array_equal(halves.coef_, plain.coef_)


# --- the sensitivity is scaled by the weight bound ---------------------------------


class _RecordingOracle(PrivateGradientOracle):
    """Records the oracle of a fit and the noise std of each of its steps."""

    last = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sigmas = []
        type(self).last = self

    def _add_noise(self, grad, noise_multiplier):
        self.sigmas.append(noise_multiplier * self._sensitivity)
        super()._add_noise(grad, noise_multiplier)


def _noiseless_sum(oracle, X, y, weights, coef, intercept):
    # The clipped sum a fit's oracle computes on another data set (no noise): the
    # same backend, kernel arguments and weights as the fit's.
    other = PrivateGradientOracle(
        X,
        y,
        n_outputs=oracle.n_outputs,
        loss=oracle._loss,
        huber_width=oracle._h,
        clip_norm=oracle._clip_norm,
        sensitivity=1.0,
        fit_intercept=True,
        privacy_filter=None,
        rng=None,
        public_n_samples=len(y),
        sample_weight=weights,
        max_weight=float(np.max(weights)),
    )
    return other._rows.clipped_sum_rows(coef, intercept, other._kernel_args, None)


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_worst_case_neighbours_within_the_scaled_sensitivity(
    monkeypatch, neighboring, n_classes
):
    # A row of weight max_sample_weight whose gradient is clipped moves the sum by
    # exactly w_max C (add/remove) or up to 2 w_max C (replace): the noise must be
    # calibrated to that, not to C, or the guarantee fails for this pair.
    monkeypatch.setattr(_base, "PrivateGradientOracle", _RecordingOracle)
    X, y = _data(n=400, n_classes=n_classes)
    w_max, C = 4.0, 0.5
    weights = np.random.default_rng(0).uniform(0.0, w_max, size=len(y))
    clf = DPLogisticRegression(
        epsilon=1.0,
        max_iter=5,
        clip_norm=C,
        max_sample_weight=w_max,
        neighboring=neighboring,
        random_state=0,
    ).fit(X, y, sample_weight=weights)
    oracle = _RecordingOracle.last
    factor = {"add_remove": 1.0, "replace": 2.0}[neighboring]
    assert oracle._sensitivity == factor * C * w_max
    # Every step's noise std is z_t times the scaled sensitivity.
    np.testing.assert_allclose(
        oracle.sigmas, clf.noise_multipliers_ * factor * C * w_max, rtol=1e-15
    )
    # The worst-case pair at a point where the extra rows' gradients are clipped.
    K = 1 if n_classes == 2 else n_classes
    coef, intercept = np.zeros((K, X.shape[1])), np.zeros(K)
    far = np.full((2, X.shape[1]), 30.0)  # long rows: ||g|| >> C
    labels = np.array([0, 1])
    D = _noiseless_sum(oracle, X, y, weights, coef, intercept)
    if neighboring == "add_remove":
        Xp = np.vstack([X, far[:1]])
        yp, wp = np.append(y, labels[0]), np.append(weights, w_max)
        moved = np.linalg.norm(_noiseless_sum(oracle, Xp, yp, wp, coef, intercept) - D)
        np.testing.assert_allclose(moved, w_max * C, rtol=1e-9)
    else:
        X1, X2 = np.vstack([X, far[:1]]), np.vstack([X, -far[:1]])
        y1, w1 = np.append(y, labels[0]), np.append(weights, w_max)
        moved = np.linalg.norm(
            _noiseless_sum(oracle, X1, y1, w1, coef, intercept)
            - _noiseless_sum(oracle, X2, y1, w1, coef, intercept)
        )
        # Opposite rows, same intercept entry: nearly opposite clipped gradients.
        np.testing.assert_allclose(moved, 2 * w_max * C, rtol=1e-3)
    # Within the sensitivity the noise is calibrated to, and beyond the unscaled
    # one: without the scaling this pair would break the guarantee.
    assert moved <= oracle._sensitivity * (1 + 1e-12)
    assert moved > factor * C * 1.5


def test_ledger_records_the_mechanism_in_units_of_the_scaled_sensitivity():
    # The ledger's noise multipliers are z = sigma / Delta with Delta = w_max C: a
    # weighted fit at bound 3 runs the same records (and spends the same epsilon)
    # as the unweighted fit, with three times the noise std.
    X, y = _data()
    params = dict(epsilon=1.0, max_iter=30, random_state=0, max_sample_weight=3.0)
    plain = DPLogisticRegression(**params).fit(X, y)
    weighted = DPLogisticRegression(**params).fit(
        X, y, sample_weight=np.full(len(y), 3.0)
    )
    assert weighted.ledger_ == plain.ledger_
    assert ledger_epsilon(weighted.ledger_, weighted.delta_) == pytest.approx(
        weighted.epsilon_, rel=1e-9
    )
    assert weighted.epsilon_ <= 1.0 + 1e-9


def test_dict_class_weight_scales_the_noise_by_the_largest_weight(monkeypatch):
    monkeypatch.setattr(_base, "PrivateGradientOracle", _RecordingOracle)
    X, y = _data()
    clf = DPLogisticRegression(
        epsilon=1.0, max_iter=5, clip_norm=1.0, class_weight={0: 0.5, 1: 2.5}
    ).fit(X, y, sample_weight=np.full(len(y), 0.8))
    oracle = _RecordingOracle.last
    # w_max = max_sample_weight (1) times the largest class weight (2.5).
    assert oracle._sensitivity == 2.5
    np.testing.assert_allclose(oracle.sigmas, clf.noise_multipliers_ * 2.5)


# --- class_weight="balanced" ---------------------------------------------------------


def test_balanced_weights_rescaled_clamped_and_independent_of_n():
    weights, factor = balanced_weights(
        np.array([900.0, 100.0]), noise_multiplier=1.0, neighboring="add_remove"
    )
    np.testing.assert_allclose(weights, [100 / 900, 1.0])
    # scikit-learn's n / (K n_k) = [1000/1800, 1000/200]; ours are factor times it.
    np.testing.assert_allclose(weights / factor, [1000 / 1800, 1000 / 200])
    # A count under its noise std (sigma = 20 * sqrt(2) under replace) is raised to
    # it: the weight ratio is capped by max count / sigma.
    weights, _ = balanced_weights(
        np.array([1000.0, -5.0, 3.0]), noise_multiplier=20.0, neighboring="replace"
    )
    sigma = 20.0 * math.sqrt(2.0)
    np.testing.assert_allclose(weights, [sigma / 1000.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "neighboring, scale", [("add_remove", 1.0), ("replace", 2**0.5)]
)
def test_noisy_class_counts_noise_matches_the_histogram_sensitivity(neighboring, scale):
    y = np.array([0, 0, 1, 2, 2, 2], dtype=np.int64)
    counts = noisy_class_counts(
        y,
        3,
        neighboring=neighboring,
        noise_multiplier=7.0,
        rng=np.random.default_rng(5),
    )
    draws = np.random.default_rng(5).standard_normal(3)
    np.testing.assert_allclose(counts, [2, 1, 3] + 7.0 * scale * draws, rtol=1e-12)


def test_balanced_is_charged_and_recorded_before_training():
    X, y = _data(n=3000, weights=[0.9])
    clf = DPLogisticRegression(epsilon=1.0, class_weight="balanced", random_state=0)
    clf.fit(X, y)
    mu = gdp_mu(1.0, clf.delta)
    z_share = 1.0 / (math.sqrt(CLASS_COUNT_SHARE) * mu)
    # The row count, then the class counts (same share: one record of count 2).
    assert clf.ledger_[0] == GaussianSteps(z_share, count=2)
    assert clf.epsilon_ <= 1.0 + 1e-9
    assert ledger_epsilon(clf.ledger_, clf.delta_) == pytest.approx(clf.epsilon_)
    assert len(clf.noise_multipliers_) == clf.n_iter_
    # Minority rows weigh about 9 times the majority's: predictions move to it.
    plain = DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    assert np.mean(clf.predict(X) == 1) > np.mean(plain.predict(X) == 1)
    # The penalty follows the rescaled weights (K min n~ / sum n~, about 0.2).
    assert 0.1 < clf.alpha_ * clf.public_n_samples_ < 0.35


def test_balanced_under_a_declared_size_has_the_class_counts_only():
    X, y = _data(n=1000, weights=[0.8])
    clf = DPLogisticRegression(
        epsilon=1.0,
        class_weight="balanced",
        public_n_samples=1000,
        random_state=0,
        utility_diagnostics=False,  # their records: test_utility.py
    ).fit(X, y)
    mu = gdp_mu(1.0, clf.delta)
    assert clf.ledger_[0] == GaussianSteps(1.0 / (math.sqrt(CLASS_COUNT_SHARE) * mu))
    assert clf.ledger_[1].count == clf.n_iter_
    assert clf.epsilon_ <= 1.0 + 1e-9


@pytest.mark.parametrize("accountant", ["pld", "rdp"])
def test_balanced_with_minibatches_composes_the_counts_with_the_plan(accountant):
    # The class counts (a full-batch Gaussian step) come first in the filter; the
    # subsampled plan is fitted to what they left, in the same accountant.
    X, y = _data(n=3000, weights=[0.9])
    params = dict(
        epsilon=1.0,
        batch_size=300,
        public_n_samples=3000,
        accountant=accountant,
        random_state=0,
        utility_diagnostics=False,
    )
    clf = DPLogisticRegression(class_weight="balanced", **params).fit(X, y)
    mu = gdp_mu(1.0, clf.delta)
    counts = GaussianSteps(1.0 / (math.sqrt(CLASS_COUNT_SHARE) * mu))
    assert clf.ledger_[0] == counts
    assert all(step.sampling_rate == pytest.approx(0.1) for step in clf.ledger_[1:])
    assert clf.epsilon_ <= 1.0 + 1e-9
    spent = ledger_epsilon(clf.ledger_, clf.delta, accountant=accountant)
    assert spent == pytest.approx(clf.epsilon_, rel=1e-6)
    assert spent > 0.99  # the plan spends what the counts left
    # Without the counts' record the steps alone spend visibly less: the counts
    # are composed, not dropped (a filter that forgot them would reach 1 here).
    alone = ledger_epsilon(clf.ledger_[1:], clf.delta, accountant=accountant)
    assert alone < 0.995
    plain = DPLogisticRegression(**params).fit(X, y)
    assert np.mean(clf.predict(X) == 1) > np.mean(plain.predict(X) == 1)


def test_balanced_with_minibatches_without_a_declared_size():
    # The row count sized the plan: the fixed-order Rényi filter holds both counts.
    X, y = _data(n=3000, weights=[0.9])
    clf = DPLogisticRegression(
        epsilon=1.0,
        class_weight="balanced",
        batch_size=300,
        random_state=0,
        utility_diagnostics=False,
    ).fit(X, y)
    mu = gdp_mu(1.0, clf.delta)
    z_share = 1.0 / (math.sqrt(CLASS_COUNT_SHARE) * mu)
    assert clf.ledger_[0] == GaussianSteps(z_share, count=2)
    assert clf.epsilon_ <= 1.0 + 1e-9
    assert clf.n_iter_ > 0


# --- weights with the adaptive schedules (private step-size selections) ------------


def _objective_oracle(X, y, weights, w_max):
    return PrivateGradientOracle(
        X, y, n_outputs=1, loss=0, huber_width=0.5, clip_norm=1.0, sensitivity=1.0,
        fit_intercept=True, privacy_filter=None, rng=None, public_n_samples=len(y),
        sample_weight=weights, max_weight=w_max,
    )  # fmt: skip


@pytest.mark.parametrize("sparse", [False, True])
def test_weighted_objective_sums_attain_the_scaled_sensitivity(sparse):
    # A far, misclassified row of weight w_max has a clipped loss C_obj at every
    # candidate: adding it moves each score by exactly w_max C_obj, the
    # sensitivity the selections' noise is scaled to (and 4 times the unweighted
    # one: a selection calibrated to C_obj would break the guarantee here).
    X, y = _data(n=20000)  # above the twins' threshold: the compiled kernels
    w_max, c_obj = 4.0, 2.0
    weights = np.random.default_rng(1).uniform(0.0, w_max, size=len(y))
    far = np.full((1, X.shape[1]), 50.0)
    Xp, yp, wp = np.vstack([X, far]), np.append(y, 0), np.append(weights, w_max)
    if sparse:
        X, Xp = sp.csr_matrix(X), sp.csr_matrix(Xp)
    W, b = np.ones((1, X.shape[1])), np.zeros(1)
    D, db = np.ones((1, X.shape[1])) * 0.1, np.zeros(1)
    etas = np.array([0.0, 0.5, 1.0])
    oracle = _objective_oracle(X, y, weights, w_max)
    before = oracle._objective_along(W, b, D, db, etas, 1.0, c_obj)
    after = _objective_oracle(Xp, yp, wp, w_max)._objective_along(
        W, b, D, db, etas, 1.0, c_obj
    )
    np.testing.assert_allclose(after - before, w_max * c_obj, rtol=1e-9)
    assert oracle._objective_sensitivity(c_obj) == w_max * c_obj
    # And the sums are the weighted ones (the twins agree on a small subset).
    small = _objective_oracle(X[:200], y[:200], weights[:200], w_max)
    assert not _objective_oracle(X, y, weights, w_max).runs_twins
    assert small.runs_twins
    want = ref.clipped_objective_along(
        np.asarray(sp.csr_matrix(X[:200]).toarray()), y[:200], W, b, D, db, etas,
        True, c_obj, "logistic", weights=weights[:200],
    )  # fmt: skip
    np.testing.assert_allclose(
        small._objective_along(W, b, D, db, etas, 1.0, c_obj), want, rtol=1e-12
    )


@pytest.mark.parametrize("schedule", [AdaptiveStepSchedule, LineSearchSchedule])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("n", [3000, 20000], ids=["twins", "kernels"])
def test_adaptive_fits_with_unit_weights_equal_unweighted_fits(schedule, fmt, n):
    # The weighted selections run the same algorithm: unit weights reproduce the
    # unweighted fit (to rounding: the weighted sums skip one product shortcut).
    X, y = _data(n=n)
    if fmt == "csr":
        X = sp.csr_matrix(X)
    params = dict(epsilon=1.0, schedule=schedule(), max_iter=20, random_state=3)
    plain = DPLogisticRegression(**params).fit(X, y)
    unit = DPLogisticRegression(**params).fit(X, y, sample_weight=np.ones(n))
    np.testing.assert_allclose(unit.coef_, plain.coef_, rtol=1e-8, atol=1e-12)
    assert unit.ledger_ == plain.ledger_
    assert unit.epsilon_ <= 1.0 + 1e-9


def test_balanced_with_an_adaptive_schedule_records_the_counts_first():
    X, y = _data(n=3000, weights=[0.9])
    params = dict(epsilon=1.0, schedule=AdaptiveStepSchedule(), random_state=0)
    clf = DPLogisticRegression(class_weight="balanced", **params).fit(X, y)
    mu = gdp_mu(1.0, clf.delta)
    z_share = 1.0 / (math.sqrt(CLASS_COUNT_SHARE) * mu)
    # The row count and the class counts, then the strategy's own records.
    assert clf.ledger_[0] == GaussianSteps(z_share, count=2)
    # The counts are records of the filter, not training steps: sliced off.
    assert clf.n_iter_ > 0
    assert not np.any(np.isclose(clf.noise_multipliers_, z_share, rtol=1e-12))
    assert clf.epsilon_ <= 1.0 + 1e-9
    plain = DPLogisticRegression(**params).fit(X, y)
    assert np.mean(clf.predict(X) == 1) > np.mean(plain.predict(X) == 1)


# --- weights with Snowball-SGD (amplification by iteration) ------------------------


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_snowball_unit_weights_are_bit_identical_to_no_weights(fmt):
    X, y = _data(n=3000)
    if fmt == "csr":
        X = sp.csr_matrix(X)
    params = dict(solver="snowball", epsilon=1.0, random_state=4)
    plain = DPLogisticRegression(**params).fit(X, y)
    unit = DPLogisticRegression(**params).fit(X, y, sample_weight=np.ones(3000))
    np.testing.assert_array_equal(unit.coef_, plain.coef_)
    np.testing.assert_array_equal(unit.intercept_, plain.intercept_)
    assert unit.ledger_ == plain.ledger_


@pytest.mark.parametrize("n_classes", [2, 3])
def test_snowball_weights_scale_the_sensitivity_and_the_step_cap(
    monkeypatch, n_classes
):
    # A weighted row's loss w_i l_i is w_max L-Lipschitz and w_max beta-smooth: the
    # noise scales by w_max (same records in its units) and the steps stay below
    # 2 / (w_max beta), or they would stop being contractions.
    monkeypatch.setattr(snowball_solver, "PrivateGradientOracle", _RecordingOracle)
    X, y = _data(n=3000, n_classes=n_classes)
    w_max = 50.0
    weights = np.random.default_rng(2).uniform(0.0, w_max, size=len(y))
    params = dict(solver="snowball", epsilon=1.0, random_state=4, radius=1e6)
    plain = DPLogisticRegression(**params).fit(X, y)
    clf = DPLogisticRegression(**params, max_sample_weight=w_max).fit(
        X, y, sample_weight=weights
    )
    oracle = _RecordingOracle.last
    assert oracle._sensitivity == snowball_solver.SENSITIVITY_FACTOR * w_max
    # The same plan in units of the sensitivity (only its step sizes differ).
    assert clf.ledger_[0] == plain.ledger_[0]  # the row count
    for field in ("batch_sizes", "noise_multipliers"):
        assert getattr(clf.ledger_[1], field) == getattr(plain.ledger_[1], field)
    assert clf.epsilon_ == pytest.approx(plain.epsilon_, rel=1e-12)
    c = clf._loss_constants(1 if n_classes == 2 else n_classes)[0]
    bound = 1.0 if n_classes == 2 else math.sqrt(2.0)  # rows scaled to 1 / bound
    cap = 2.0 / (w_max * c / bound**2)
    assert np.all(clf.learning_rates_ <= cap * (1 + 1e-12))
    # Unweighted, the same (large) radius lets the step reach the unweighted cap.
    assert plain.learning_rates_[0] > cap
