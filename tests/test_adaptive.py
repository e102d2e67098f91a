"""Adaptive strategies (DP-AGD, DP-BLSGD): oracle queries, accounting, filter, fits."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd._kernels import clipped_objective_along, clipped_objective_along_csr
from sklearn_dpgd._losses import LOSS_CODES
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd.accounting import (
    GaussianSteps,
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
    assert est.noise_multipliers_.shape == (n_gauss - 1,)
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


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"gamma": 0.0}, "gamma"),
        ({"n_candidates": 1}, "n_candidates"),
        ({"selection_fraction": 1.0}, "selection_fraction"),
        ({"growth": 0.9}, "growth"),
    ],
)
def test_adaptive_step_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        AdaptiveStepSchedule(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sampling_rate": 0.0}, "sampling_rate"),
        ({"noise": "cauchy"}, "noise"),
        ({"armijo": 1.0}, "armijo"),
        ({"backtrack": 1.5}, "backtrack"),
        ({"max_backtracks": 0}, "max_backtracks"),
        ({"phi_max": 1.0}, "phi_max"),
        ({"clip_decay": 1.0}, "clip_decay"),
    ],
)
def test_line_search_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LineSearchSchedule(**kwargs)
    with pytest.raises(TypeError, match="max_backtracks"):
        LineSearchSchedule(max_backtracks=2.5)
