"""Adaptive strategies (DP-AGD, DP-BLSGD): oracle queries, accounting, filter, fits."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd._engine._kernels import (
    clipped_objective_along,
    clipped_objective_along_csr,
)
from sklearn_dpgd._engine._losses import LOSS_CODES
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd.accounting import (
    GaussianSteps,
    NoisyMaxSteps,
    SparseVectorSteps,
    gdp_mu,
    ledger_epsilon,
)
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule

from . import _reference as ref


def _problem(n=300, d=6, K=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2 if K == 1 else K, size=n).astype(np.int64)
    W = rng.normal(size=(K, d))
    b = rng.normal(size=K)
    D = rng.normal(size=(K, d))
    db = rng.normal(size=K)
    return X, y, W, b, D, db


# ----------------------------------------------------------------- the kernels


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("etas", [np.arange(21) * 0.15, np.array([0.0, 2.0, 1.6, 0.5])])
@pytest.mark.parametrize("clip", [0.7, 3.0])
def test_objective_kernel_matches_numpy(K, loss, etas, clip):
    X, y, W, b, D, db = _problem(K=K)
    rows = np.arange(X.shape[0])
    code = LOSS_CODES[loss]
    got = clipped_objective_along(X, y, W, b, D, db, etas, rows, True, clip, code, 0.5)
    want = ref.clipped_objective_along(X, y, W, b, D, db, etas, True, clip, loss)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    Xs = sp.csr_matrix(X)
    got_csr = clipped_objective_along_csr(
        Xs.data,
        Xs.indices,
        Xs.indptr,
        X.shape[1],
        y,
        W,
        b,
        D,
        db,
        etas,
        rows,
        True,
        clip,
        code,
        0.5,
    )
    np.testing.assert_allclose(got_csr, want, rtol=1e-12)


def test_objective_kernel_rows_and_overflow():
    X, y, W, b, D, db = _problem()
    rows = np.array([3, 7, 7, 250], dtype=np.int64)
    etas = np.array([0.0, 1e308, -1e308])  # overflowing margins count as the clip
    got = clipped_objective_along(X, y, W, b, D, db, etas, rows, False, 2.0, 0, 0.5)
    want = ref.clipped_objective_along(
        X[rows], y[rows], W, b, D, db, etas[:1], False, 2.0, "logistic"
    )
    assert got[0] == pytest.approx(want[0], rel=1e-12)
    assert np.all(got[1:] <= 2.0 * len(rows)) and np.all(np.isfinite(got))


# ------------------------------------------------------------------ accounting


# ------------------------------------------------------------------ the fits


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(
        n_samples=3000, n_features=8, n_informative=5, random_state=0
    )
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, y


SCHEDULES = [
    AdaptiveStepSchedule(),
    LineSearchSchedule(),
    LineSearchSchedule(sampling_rate=1.0),
    LineSearchSchedule(noise="gaussian", clip_decay=0.05),
]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=repr)
@pytest.mark.parametrize("Estimator", [DPLogisticRegression, DPHuberSVM])
def test_fit_never_overspends_and_learns(schedule, Estimator, binary):
    X, y = binary
    est = Estimator(
        epsilon=1.0, delta=1e-6, schedule=schedule, classes=[0, 1], random_state=0
    ).fit(X, y)
    assert est.epsilon_ == 1.0 and est.delta_ == 1e-6 and est.mu_ is None
    # Re-audit at the filter's order from the ledger (independent of the filter's
    # running sum): within the budget.
    filt = schedule.make_filter(_context(est, X))
    spent = sum(filt.cost(r) for r in est.ledger_)
    assert spent <= filt.budget * (1 + 1e-12)
    assert spent >= 0.5 * filt.budget  # and the budget was used
    assert ledger_epsilon(est.ledger_, 1e-6) <= 1.0 + 1e-9
    assert est.n_iter_ == est.learning_rates_.shape[0] >= 5
    assert np.all(est.learning_rates_ > 0)
    n_gauss = sum(r.count for r in est.ledger_ if isinstance(r, GaussianSteps))
    # The first Gaussian is the noisy count of the public size, not a gradient.
    assert est.ledger_[0] == GaussianSteps(
        count_noise_multiplier(gdp_mu(1.0, 1e-6)), 1.0, 1
    )
    # A full-batch fit ends with the count of its predicted classes, run on what
    # the filter left (when that affords it): in the ledger, not a training step
    # (training ends with a selection or a search).
    n_check = int(
        schedule.sampling_rate == 1.0 and isinstance(est.ledger_[-1], GaussianSteps)
    )
    assert est.noise_multipliers_.shape == (n_gauss - 1 - n_check,)
    assert est.score(X, y) > 0.75


def _context(est, X):
    from sklearn_dpgd.schedules import ScheduleContext

    q = est.schedule_.sampling_rate
    return ScheduleContext(
        epsilon=est.epsilon,
        delta=est.delta,
        n_samples=X.shape[0],
        n_features=X.shape[1],
        n_outputs=1,
        fit_intercept=True,
        clip_norm=1.0,
        sensitivity=1.0,
        alpha=0.0,
        margin_smoothness=0.25,
        initial_loss=math.log(2),
        sampling_rate=q,
        # The loss-aware "auto" fields (the filter's order reads
        # iteration_fraction) resolve as in the fit.
        loss=est._loss,
    )


def test_adaptive_fit_is_reproducible_and_multiclass():
    X, y = make_classification(
        n_samples=1500, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    for schedule in (AdaptiveStepSchedule(), LineSearchSchedule()):
        a = DPLogisticRegression(
            epsilon=2.0, schedule=schedule, classes=[0, 1, 2], random_state=4
        ).fit(X, y)
        b = clone(a).fit(X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert a.coef_.shape == (3, 6) and a.score(X, y) > 0.5


def test_max_iter_caps_updates(binary):
    X, y = binary
    est = DPLogisticRegression(
        schedule=AdaptiveStepSchedule(), max_iter=7, classes=[0, 1], random_state=0
    ).fit(X, y)
    assert est.n_iter_ == 7


def test_adaptive_rejects_batch_size_and_replace_with_sampling(binary):
    X, y = binary
    with pytest.raises(ValueError, match="batch_size must be None"):
        DPLogisticRegression(schedule=LineSearchSchedule(), batch_size=64).fit(X, y)
    with pytest.raises(ValueError, match="add/remove"):
        DPLogisticRegression(schedule=LineSearchSchedule(), neighboring="replace").fit(
            X, y
        )
    # Full batch under replace-one is fine: sensitivities double.
    est = DPLogisticRegression(
        schedule=AdaptiveStepSchedule(),
        neighboring="replace",
        classes=[0, 1],
        random_state=0,
    ).fit(X, y)
    assert est.epsilon_ == 1.0


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_dp_agd_exponential_mechanism_selection_is_charged_bounded_range(
    binary, neighboring
):
    X, y = binary
    schedule = AdaptiveStepSchedule(selection="exponential_mechanism")
    est = DPLogisticRegression(
        epsilon=1.0,
        schedule=schedule,
        neighboring=neighboring,
        classes=[0, 1],
        random_state=0,
        utility_diagnostics=False,
    ).fit(X, y)
    selections = [r for r in est.ledger_ if isinstance(r, NoisyMaxSteps)]
    # 2 eps_nmax, Gumbel: the same zCDP as permute-and-flip's eps_nmax.
    assert selections and {(r.epsilon, r.noise) for r in selections} == {
        (2.0 / 120.0, "gumbel")
    }
    assert est.epsilon_ <= 1.0 and est.score(X, y) > 0.7


# ------------------------------------------- DP-BLSGD variants (Chen & Lee, Sec. V)


class _ScriptedOracle:
    """Stands in for the oracle: scripted gradients and search answers, real charges.

    Every call charges a real filter first (as the oracle does) and is logged with
    the noise multiplier / search budget and the clipping norms it was given.
    """

    def __init__(self, filt, grads, answers, sampling_rate):
        self.privacy_filter = filt
        self.n_features, self.n_outputs, self.n_samples = 2, 1, 1000
        self.sampling_rate = sampling_rate
        self._grads, self._answers = list(grads), list(answers)
        self.calls = []

    def noisy_gradient(self, W, b, z, clip_norm=None):
        self.privacy_filter.charge(GaussianSteps(z, self.sampling_rate))
        self.calls.append(("grad", z, clip_norm))
        g = self._grads.pop(0) if self._grads else [1.0, 0.0, 0.0]
        return np.array([g], dtype=float)

    def sparse_vector_armijo(self, W, b, D, db, etas, public, c_obj, budget, noise):
        q = self.sampling_rate
        self.privacy_filter.charge(SparseVectorSteps(budget, noise, q))
        self.calls.append(("search", budget, c_obj))
        return self._answers.pop(0) if self._answers else 0


def _blsgd_run(schedule, grads, answers, max_updates=2):
    from sklearn_dpgd._solvers._adaptive_drivers import dp_blsgd
    from sklearn_dpgd.schedules import ScheduleContext

    context = ScheduleContext(
        epsilon=1.0,
        delta=1e-6,
        n_samples=1000,
        n_features=2,
        n_outputs=1,
        fit_intercept=True,
        clip_norm=1.0,
        sensitivity=1.0,
        alpha=0.0,
        margin_smoothness=0.25,
        initial_loss=math.log(2),
        sampling_rate=schedule.sampling_rate,
    )
    oracle = _ScriptedOracle(
        schedule.make_filter(context), grads, answers, schedule.sampling_rate
    )
    dp_blsgd(oracle, schedule, context, max_updates=max_updates)
    return oracle.calls, oracle.privacy_filter


# epsilon_iter = 0.01: the first gradient has rho = 0.01^2 / 2, z0 = 1 / 0.01.
_Z0, _E0, _XI = 100.0, 0.01, 0.3


def _z(growth):
    return 1.0 / math.sqrt(2.0 * growth * 0.5 * _E0**2)


def test_budget_rule_never_keeps_both_budgets():
    calls, _ = _blsgd_run(LineSearchSchedule(budget_rule="never"), [], [-1, -1])
    # gradient, failed search, CHEB's second gradient (same z), search, ...
    kinds = [c[0] for c in calls]
    assert kinds == ["grad", "search", "grad", "search", "grad", "search"] + [
        "grad",
        "search",
    ]
    assert [c[1] for c in calls if c[0] == "grad"] == pytest.approx([_Z0] * 4)
    assert [c[1] for c in calls if c[0] == "search"] == pytest.approx([_E0] * 4)


def test_budget_rule_always_grows_the_gradient_budget_at_each_failure():
    calls, _ = _blsgd_run(LineSearchSchedule(budget_rule="always"), [], [-1, -1])
    z = [c[1] for c in calls if c[0] == "grad"]
    # CHEB's second gradient uses the budget before the increase (Algorithm 3,
    # line 4); the next update's gradient the grown one, (1 + xi)^2 rho.
    np.testing.assert_allclose(z, [_Z0, _Z0, _z(1 + _XI), _z((1 + _XI) ** 2)])
    assert [c[1] for c in calls if c[0] == "search"] == pytest.approx([_E0] * 4)


@pytest.mark.parametrize(
    "second, grows",
    [([-1.0, 0.2, 0.0], "gradient"), ([1.0, 0.01, 0.0], "search")],
)
def test_budget_rule_adaptive_follows_the_angle(second, grows):
    # theta_bar starts at 90 degrees: an obtuse pair (negative inner product)
    # grows rho_grad, a pair within phi_min * 90 = 45 degrees grows epsilon_BT.
    calls, _ = _blsgd_run(
        LineSearchSchedule(), [[1.0, 0.0, 0.0], second], [-1], max_updates=1
    )
    grads = [c[1] for c in calls if c[0] == "grad"]
    searches = [c[1] for c in calls if c[0] == "search"]
    assert grads == pytest.approx([_Z0, _Z0])
    if grows == "gradient":
        assert searches == pytest.approx([_E0, _E0])
    else:
        assert searches == pytest.approx([_E0, (1 + _XI) * _E0])


def test_clip_decay_once_per_update_stochastic():
    schedule = LineSearchSchedule(budget_rule="always", clip_decay=0.05)
    calls, _ = _blsgd_run(schedule, [], [-1, -1])
    clips = [c[2] for c in calls if c[0] == "grad"]
    objective = [c[2] for c in calls if c[0] == "search"]
    # Eq. (9): after the first increase both norms shrink by 0.95, and only once
    # although the update saw two increases.
    assert clips == pytest.approx([1.0, 1.0, 0.95, 0.95])
    assert objective == pytest.approx([1.0, 0.95, 0.95, 0.95])


@pytest.mark.parametrize("clip_decay", [0.0, 0.05])
def test_full_batch_grows_the_dp_agd_way(clip_decay):
    schedule = LineSearchSchedule(sampling_rate=1.0, clip_decay=clip_decay)
    calls, filt = _blsgd_run(schedule, [], [-1])
    grads = [(c[1], c[2]) for c in calls if c[0] == "grad"]
    # The extra draw is paid with the increase xi rho only (Lee & Kifer, Alg. 1).
    z_extra = 1.0 / math.sqrt(2.0 * _XI * 0.5 * _E0**2)
    shrink = 1.0 - clip_decay
    # gradient, failed search, extra draw, accepted search; next update's gradient.
    assert [g[0] for g in grads] == pytest.approx([_Z0, z_extra, _z(1 + _XI)])
    assert [g[1] for g in grads] == pytest.approx([1.0, 1.0, shrink])
    searches = [c[1:] for c in calls if c[0] == "search"]
    assert searches == [pytest.approx((_E0, 1.0)), pytest.approx((_E0, shrink))] + [
        pytest.approx((_E0, shrink))
    ]
    assert all(r.sampling_rate == 1.0 for r in filt.ledger)


def test_gaussian_search_charges_its_rho():
    calls, filt = _blsgd_run(LineSearchSchedule(noise="gaussian"), [], [])
    assert [c[1] for c in calls if c[0] == "search"] == pytest.approx(
        [0.5 * _E0**2] * 2
    )
    assert SparseVectorSteps(0.5 * _E0**2, "gaussian", 0.1) in filt.ledger


# A large per-iteration share so that each run ends by exhausting its budget.
VARIANTS = [
    LineSearchSchedule(budget_rule="always", iteration_fraction=0.3),
    LineSearchSchedule(budget_rule="never", noise="gaussian", iteration_fraction=0.1),
    LineSearchSchedule(sampling_rate=1.0, clip_decay=0.05, iteration_fraction=0.1),
]


@pytest.mark.parametrize("schedule", VARIANTS, ids=repr)
def test_variant_fit_within_budget_and_reproducible(schedule):
    X, y = make_classification(n_samples=800, n_features=5, random_state=2)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    est = DPLogisticRegression(
        epsilon=0.5,
        delta=1e-6,
        schedule=schedule,
        classes=[0, 1],
        random_state=3,
    )
    a = est.fit(X, y).coef_.copy()
    assert est.epsilon_ <= 0.5
    assert ledger_epsilon(est.ledger_, 1e-6) <= 0.5 + 1e-9
    filt = schedule.make_filter(_context(est, X))
    spent = sum(filt.cost(r) for r in est.ledger_)
    assert 0.5 * filt.budget <= spent <= filt.budget * (1 + 1e-12)
    np.testing.assert_array_equal(clone(est).fit(X, y).coef_, a)


# ------------------------------------- DP-BLGD with the Huber hinge (issue 31, 5)


def _adult_like(n=3000, d=10, scale=30.0, shift=5.0, seed=0):
    # Positive unit-norm rows and a rare positive class (about 19%): like Adult
    # (24%), where the full-batch hinge line search returned the majority class.
    rng = np.random.default_rng(seed)
    X = np.abs(rng.standard_normal((n, d)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    z = scale * (X @ rng.standard_normal(d)) - shift
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(int)
    return X, y


def test_full_batch_hinge_line_search_is_not_the_majority_class():
    X, y = _adult_like()
    majority = max(y.mean(), 1.0 - y.mean())
    kwargs = {"epsilon": 1.0, "classes": [0, 1], "utility_diagnostics": False}
    for seed in range(2):
        new = DPHuberSVM(
            schedule=LineSearchSchedule(sampling_rate=1.0), random_state=seed, **kwargs
        ).fit(X, y)
        assert new.score(X, y) > majority + 0.08
        # The earlier defaults (C_obj = 1, eta_0 = 2 / M = 1 here, epsilon_iter
        # = epsilon / 100) stay near the majority class: what the defaults fixed.
        old = LineSearchSchedule(
            sampling_rate=1.0,
            objective_clip=1.0,
            initial_learning_rate=1.0,
            iteration_fraction=0.01,
        )
        was = DPHuberSVM(schedule=old, random_state=seed, **kwargs).fit(X, y)
        assert was.score(X, y) < majority + 0.03


@pytest.mark.parametrize("neighboring, factor", [("add_remove", 1.0), ("replace", 2.0)])
def test_search_noise_follows_the_resolved_objective_clip(
    monkeypatch, neighboring, factor
):
    seen = []
    sensitivity = PrivateGradientOracle._objective_sensitivity

    def spy(self, objective_clip):
        value = sensitivity(self, objective_clip)
        seen.append((float(objective_clip), value))
        return value

    monkeypatch.setattr(PrivateGradientOracle, "_objective_sensitivity", spy)
    X, y = _adult_like(n=600)
    for Estimator, clip in ((DPHuberSVM, 5.0), (DPLogisticRegression, 1.0)):
        seen.clear()
        Estimator(
            epsilon=1.0,
            schedule=LineSearchSchedule(sampling_rate=1.0),
            neighboring=neighboring,
            classes=[0, 1],
            random_state=0,
            utility_diagnostics=False,
        ).fit(X, y)
        # Every search sums min(l_i, C_obj) and is noised at C_obj per row
        # (2 C_obj under replace-one), C_obj the value the run used.
        assert seen and set(seen) == {(clip, factor * clip)}


@pytest.mark.parametrize(
    "Estimator, schedule, same",
    [
        # The logistic loss at full batch: "auto" is the old C_obj and eta_0.
        (
            DPLogisticRegression,
            LineSearchSchedule(sampling_rate=1.0),
            LineSearchSchedule(
                sampling_rate=1.0, objective_clip=1.0, initial_learning_rate=4.0
            ),
        ),
        # The hinge, subsampled: unchanged too.
        (
            DPHuberSVM,
            LineSearchSchedule(),
            LineSearchSchedule(objective_clip=1.0, initial_learning_rate=1.0),
        ),
    ],
)
def test_auto_line_search_is_unchanged_off_the_full_batch_hinge(
    Estimator, schedule, same
):
    # 2 / M = 2 / (s (data_norm^2 + 1)) with alpha = 0 here: 4 (s = 1/4), 1 (s = 1).
    X, y = _adult_like(n=600)
    fits = [
        Estimator(
            epsilon=1.0, alpha=0.0, schedule=s, classes=[0, 1], random_state=4
        ).fit(X, y)
        for s in (schedule, same)
    ]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    np.testing.assert_array_equal(fits[0].intercept_, fits[1].intercept_)
    assert fits[0].ledger_ == fits[1].ledger_
