"""The adaptive strategy objects of sklearn_dpgd.schedules._adaptive.

Their validation, their public path (``sklearn_dpgd.schedules``: documentation and
pickles name it), the privacy filter and nominal iteration they plan from public
quantities, and their public step-size default. The drivers that run them against
the oracle are tested in test_adaptive.py.
"""

import dataclasses
import math
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from sklearn_dpgd import DPLogisticRegression, schedules
from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    FixedOrderRenyiFilter,
    GaussianSteps,
    NoisyMaxSteps,
    SparseVectorSteps,
)
from sklearn_dpgd.schedules import (
    AdaptiveSchedule,
    AdaptiveStepSchedule,
    LineSearchSchedule,
    ScheduleContext,
)
from sklearn_dpgd.schedules import _adaptive as _adaptive_schedules


def _context(epsilon=1.0, sampling_rate=1.0):
    return ScheduleContext(
        epsilon=epsilon,
        delta=1e-6,
        n_samples=3000,
        n_features=8,
        n_outputs=1,
        fit_intercept=True,
        clip_norm=1.0,
        sensitivity=1.0,
        alpha=0.01,
        margin_smoothness=0.25,
        initial_loss=math.log(2),
        sampling_rate=sampling_rate,
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"gamma": 0.0}, "gamma"),
        ({"n_candidates": 1}, "n_candidates"),
        ({"selection_fraction": 1.0}, "selection_fraction"),
        ({"growth": 0.9}, "growth"),
        ({"selection": "gumbel"}, "selection"),
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


def test_line_search_budget_rule_validation():
    with pytest.raises(ValueError, match="budget_rule must be 'adaptive', 'always'"):
        LineSearchSchedule(budget_rule="must")
    with pytest.raises(ValueError, match="budget_rule must be 'adaptive' when"):
        LineSearchSchedule(sampling_rate=1.0, budget_rule="never")


@pytest.mark.parametrize(
    "schedule", [AdaptiveStepSchedule(), LineSearchSchedule(noise="gaussian")]
)
def test_frozen_values_with_the_public_path(schedule):
    cls = type(schedule)
    assert cls.__module__ == "sklearn_dpgd.schedules"
    assert getattr(schedules, cls.__name__) is getattr(
        _adaptive_schedules, cls.__name__
    )
    assert isinstance(schedule, AdaptiveSchedule)
    assert schedule == cls(**dataclasses.asdict(schedule))
    assert hash(schedule) == hash(cls(**dataclasses.asdict(schedule)))
    assert repr(schedule).startswith(f"{cls.__name__}(")
    with pytest.raises(dataclasses.FrozenInstanceError):
        schedule.objective_clip = 2.0
    data = pickle.dumps(schedule)
    assert b"sklearn_dpgd.schedules" in data and b"schedules._adaptive" not in data
    assert pickle.loads(data) == schedule


def test_a_fitted_estimator_holding_one_pickles():
    X, y = make_classification(n_samples=400, n_features=4, random_state=0)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    clf = DPLogisticRegression(
        epsilon=1.0, schedule=LineSearchSchedule(), classes=[0, 1], random_state=0
    ).fit(X, y)
    data = pickle.dumps(clf)
    assert b"schedules._adaptive" not in data
    back = pickle.loads(data)
    assert back.schedule_ == clf.schedule_ == LineSearchSchedule()
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))


def test_nominal_iterations_are_the_documented_mechanisms():
    ctx = _context(epsilon=1.2)
    agd = AdaptiveStepSchedule(selection_fraction=0.01, gradient_fraction=0.02)
    gauss, select = agd._nominal_iteration(ctx)
    # rho_ng = (0.02 epsilon)^2 / 2 is a Gaussian step of multiplier 1 / sqrt(2 rho).
    assert gauss.noise_multiplier == pytest.approx(1 / (0.02 * 1.2), rel=1e-12)
    assert select == NoisyMaxSteps(0.01 * 1.2)
    # The exponential mechanism spends Lee & Kifer's rho_nmax = eps_nmax^2 / 2 at
    # bounded range 2 eps_nmax: (2 eps_nmax)^2 / 8 = eps_nmax^2 / 2.
    em = AdaptiveStepSchedule(
        selection="exponential_mechanism", selection_fraction=0.01
    )._nominal_iteration(ctx)[1]
    assert em == NoisyMaxSteps(2 * 0.01 * 1.2, noise="gumbel")
    assert em.rdp(3.0) == pytest.approx(select.rdp(3.0), rel=1e-12)
    assert em.rdp(3.0) == pytest.approx(3.0 * (0.01 * 1.2) ** 2 / 2, rel=1e-12)
    for noise, budget in (("laplace", 0.012), ("gaussian", 0.5 * 0.012**2)):
        line = LineSearchSchedule(noise=noise, iteration_fraction=0.01)
        gauss, search = line._nominal_iteration(ctx)
        assert gauss == GaussianSteps(1 / 0.012, 0.1)
        assert search.noise == noise and search.sampling_rate == 0.1
        assert search.budget == pytest.approx(budget, rel=1e-12)
        assert isinstance(search, SparseVectorSteps)


@pytest.mark.parametrize(
    "schedule, q",
    [
        (AdaptiveStepSchedule(), 1.0),
        (LineSearchSchedule(sampling_rate=1.0), 1.0),
        (LineSearchSchedule(), 0.1),
    ],
)
def test_make_filter_fixes_the_budget_and_an_order(schedule, q):
    ctx = _context(epsilon=0.7, sampling_rate=q)
    filt = schedule.make_filter(ctx)
    assert isinstance(filt, FixedOrderRenyiFilter)
    assert (filt.epsilon, filt.delta) == (0.7, 1e-6)
    assert filt.order in DEFAULT_ORDERS and filt.rdp_spent == 0.0
    if schedule.sampling_rate < 1.0:
        # Subsampled: an integer order (the amplification bound needs one).
        assert float(filt.order).is_integer()


def test_initial_learning_rate_from_public_constants():
    ctx = _context()
    # 2 / M with M = 0.25 (data_norm^2 + 1) + alpha.
    assert LineSearchSchedule().resolved_initial_learning_rate(ctx) == pytest.approx(
        2 / (0.25 * 2 + 0.01)
    )
    assert LineSearchSchedule(data_norm=3.0).resolved_initial_learning_rate(
        ctx
    ) == pytest.approx(2 / (0.25 * 10 + 0.01))
    assert LineSearchSchedule(initial_learning_rate=0.3).resolved_initial_learning_rate(
        ctx
    ) == pytest.approx(0.3)


def _hinge_context(sampling_rate=1.0, loss="huber_hinge"):
    # DPHuberSVM at h = 0.5: margin smoothness 1 / (2 h), loss 1 at margin 0.
    return dataclasses.replace(
        _context(sampling_rate=sampling_rate),
        margin_smoothness=1.0,
        initial_loss=1.0,
        loss=loss,
    )


def test_objective_clip_auto_is_the_papers_except_full_batch_hinge():
    assert LineSearchSchedule().objective_clip == "auto"
    for q in (0.1, 1.0):
        schedule = LineSearchSchedule(sampling_rate=q)
        # Chen & Lee's C_obj = 1 for every other loss and for subsampled runs.
        for loss in (None, "logistic", "squared", "huber"):
            ctx = _hinge_context(q, loss)
            assert schedule.resolved_objective_clip(ctx) == 1.0
    hinge = _hinge_context(0.1)
    assert LineSearchSchedule().resolved_objective_clip(hinge) == 1.0
    # Full batch with the hinge: the clip sits well above its loss at margin 0.
    full = LineSearchSchedule(sampling_rate=1.0)
    assert full.resolved_objective_clip(_hinge_context()) == 5.0
    assert _adaptive_schedules.HINGE_FULL_BATCH_OBJECTIVE_CLIP == 5.0
    # An explicit value is the value, whatever the loss (the old default too).
    for clip in (1.0, 2):
        explicit = LineSearchSchedule(sampling_rate=1.0, objective_clip=clip)
        assert explicit.resolved_objective_clip(_hinge_context()) == float(clip)


def test_iteration_fraction_auto_is_the_papers_except_full_batch_hinge():
    assert LineSearchSchedule().iteration_fraction == "auto"
    for q in (0.1, 1.0):
        for loss in (None, "logistic", "squared", "huber"):
            ctx = _hinge_context(q, loss)
            schedule = LineSearchSchedule(sampling_rate=q)
            assert schedule.resolved_iteration_fraction(ctx) == 0.01
    assert LineSearchSchedule().resolved_iteration_fraction(_hinge_context(0.1)) == 0.01
    full = LineSearchSchedule(sampling_rate=1.0)
    assert full.resolved_iteration_fraction(_hinge_context()) == 0.003
    explicit = LineSearchSchedule(sampling_rate=1.0, iteration_fraction=0.01)
    assert explicit.resolved_iteration_fraction(_hinge_context()) == 0.01
    # The filter's order is planned from the fraction the run uses.
    assert full._nominal_iteration(_hinge_context()) == LineSearchSchedule(
        sampling_rate=1.0, iteration_fraction=0.003
    )._nominal_iteration(_hinge_context())


def test_objective_clip_validation():
    with pytest.raises(ValueError, match="iteration_fraction must be 'auto'"):
        LineSearchSchedule(iteration_fraction="paper")
    with pytest.raises(ValueError, match="objective_clip must be 'auto'"):
        LineSearchSchedule(objective_clip="fixed")
    with pytest.raises(ValueError, match="objective_clip"):
        LineSearchSchedule(objective_clip=0.0)
    with pytest.raises(TypeError, match="objective_clip"):
        LineSearchSchedule(objective_clip=None)


def test_full_batch_hinge_first_step_is_four_times_two_over_m():
    M = 1.0 * (1.0**2 + 1) + 0.01  # (1 / (2 h)) (data_norm^2 + 1) + alpha
    full = LineSearchSchedule(sampling_rate=1.0)
    assert full.resolved_initial_learning_rate(_hinge_context()) == pytest.approx(8 / M)
    assert LineSearchSchedule().resolved_initial_learning_rate(
        _hinge_context(0.1)
    ) == pytest.approx(2 / M)
    # The logistic loss keeps 2 / M at full batch; an explicit eta_0 is kept.
    assert full.resolved_initial_learning_rate(_context()) == pytest.approx(
        2 / (0.25 * 2 + 0.01)
    )
    explicit = LineSearchSchedule(sampling_rate=1.0, initial_learning_rate=1.0)
    assert explicit.resolved_initial_learning_rate(_hinge_context()) == 1.0
