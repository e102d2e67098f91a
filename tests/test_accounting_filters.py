"""The privacy filters (accounting/_filters.py): one ``charge(record)`` protocol,
refusal before a mechanism runs, reservations of whole plans, the deprecated names
and call shapes."""

import math
import warnings

import numpy as np
import pytest

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    AmplifiedIterationFilter,
    FixedOrderRenyiFilter,
    GaussianPrivacyFilter,
    GaussianSteps,
    NoisyMaxSteps,
    PlannedStepsRdpFilter,
    PldPrivacyFilter,
    SnowballSteps,
    SparseVectorSteps,
    best_filter_order,
    calibrate_noise_multipliers,
    gdp_mu,
    ledger_epsilon,
    scale_to_budget,
)
from sklearn_dpgd.exceptions import BudgetExhaustedError, PrivacyLeakWarning
from sklearn_dpgd.schedules import LineSearchSchedule


def test_filter_refuses_the_step_that_would_overspend():
    f = GaussianPrivacyFilter(1.0)
    f.charge(GaussianSteps(2.0))
    f.charge(GaussianSteps(2.0))
    f.charge(GaussianSteps(2.0))
    f.charge(GaussianSteps(2.0))  # mu spent is now exactly 1.0
    assert f.mu_spent == pytest.approx(1.0)
    with pytest.raises(BudgetExhaustedError, match="budget"):
        f.charge(GaussianSteps(1000.0))
    np.testing.assert_array_equal(f.noise_multipliers, [2.0] * 4)
    assert "steps=4" in repr(f)


def test_filter_accepts_a_calibrated_run_to_the_last_step():
    z = calibrate_noise_multipliers(0.97 ** np.arange(500), 0.3, 1e-8)
    f = GaussianPrivacyFilter(gdp_mu(0.3, 1e-8))
    for v in z:
        f.charge(GaussianSteps(v))
    assert f.noise_multipliers.shape == (500,)


@pytest.mark.parametrize("Filter", [PlannedStepsRdpFilter, PldPrivacyFilter])
def test_filter_refuses_and_reservation_is_all_or_nothing(Filter):
    f = Filter(0.5, 1e-6)
    with pytest.raises(BudgetExhaustedError, match="planned"):
        f.reserve(np.full(100, 0.8), 0.5)
    assert f.ledger == ()  # nothing was approved
    f.reserve(np.full(10, 5.0), 0.01)
    for _ in range(10):
        f.charge(GaussianSteps(5.0, 0.01))
    assert 0 < f.epsilon_spent <= 0.5 and len(f.noise_multipliers) == 10
    with pytest.raises(BudgetExhaustedError, match="budget"):
        f.charge(
            GaussianSteps(0.3, 1.0)
        )  # one unplanned, very noisy-free step is refused
    g = Filter(1.0, 1e-6)
    g.reserve([4.0, 4.0], 0.1)
    with pytest.raises(ValueError, match="reserved plan"):
        g.charge(GaussianSteps(3.0, 0.1))


def test_pld_filter_decides_with_the_pld_of_the_count_and_the_plan():
    # Adult at batch_size=256: a plan rescaled to spend 0.4 with the count in one
    # PLD is approved by the PLD filter, refused by the RDP one (looser), and 1%
    # less noise is refused by the PLD filter too.
    q, delta = 256 / 32561, 1e-8

    def with_count(Filter):
        f = Filter(0.4, delta)
        f.charge(GaussianSteps(122.0, 1.0))  # the noisy count of the public size
        return f

    f = with_count(PldPrivacyFilter)
    z = scale_to_budget(lambda zz: f.epsilon_with(zz, q), np.full(1000, 3.0), 0.4)
    with pytest.raises(BudgetExhaustedError, match="planned"):
        with_count(PlannedStepsRdpFilter).reserve(z, q)
    with pytest.raises(BudgetExhaustedError, match="planned"):
        with_count(PldPrivacyFilter).reserve(0.99 * z, q)
    f.reserve(z, q)
    for zi in z:
        f.charge(GaussianSteps(zi, q))
    assert 0.4 * (1 - 1e-4) <= f.epsilon_spent <= 0.4
    # ledger_epsilon's default for subsampled steps is the PLD too, and its
    # re-audit of the filter's ledger never exceeds what the filter approved.
    assert ledger_epsilon(f.ledger, delta) == f.epsilon_spent


def test_amplified_iteration_filter_refuses_overspending_and_off_plan_steps():
    plan = SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1))
    filt = AmplifiedIterationFilter(epsilon=1e-3, delta=1e-6)
    with pytest.raises(BudgetExhaustedError, match="Snowball plan"):
        filt.reserve(plan)
    filt = AmplifiedIterationFilter(epsilon=100.0, delta=1e-6)
    with pytest.raises(BudgetExhaustedError):
        filt.charge(SnowballSteps((2,), (0.5,), (0.1,)))  # nothing reserved
    filt.reserve(plan)
    with pytest.raises(ValueError, match="plan"):
        filt.charge(SnowballSteps((3,), (0.5,), (0.1,)))
    filt.charge(SnowballSteps((2,), (0.5,), (0.1,)))
    filt.charge(SnowballSteps((3,), (0.75,), (0.1,)))
    with pytest.raises(BudgetExhaustedError):
        filt.charge(SnowballSteps((3,), (0.75,), (0.1,)))
    assert filt.ledger == (plan,)
    assert filt.epsilon_spent == ledger_epsilon((plan,), 1e-6)


def test_amplified_iteration_filter_composes_a_count_before_the_plan():
    plan = SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1))
    count = GaussianSteps(10.0)
    filt = AmplifiedIterationFilter(epsilon=100.0, delta=1e-6)
    filt.charge(count)
    assert filt.ledger == (count,)
    assert filt.epsilon_spent == ledger_epsilon((count,), 1e-6, accountant="rdp")
    filt.reserve(plan)
    with pytest.raises(ValueError, match="before"):
        filt.charge(count)
    filt.charge(SnowballSteps((2,), (0.5,), (0.1,)))
    filt.charge(SnowballSteps((3,), (0.75,), (0.1,)))
    assert filt.ledger == (count, plan)
    assert filt.epsilon_spent == ledger_epsilon((count, plan), 1e-6)
    # The budget covers the composition, not each part alone.
    both = ledger_epsilon((count, plan), 1e-6)
    alone = ledger_epsilon((plan,), 1e-6)
    filt = AmplifiedIterationFilter(epsilon=(both + alone) / 2, delta=1e-6)
    filt.charge(count)
    with pytest.raises(BudgetExhaustedError, match="Snowball plan"):
        filt.reserve(plan)
    with pytest.raises(BudgetExhaustedError, match="before"):
        AmplifiedIterationFilter(epsilon=1e-3, delta=1e-6).charge(count)
    with pytest.raises(ValueError, match="full-batch"):
        AmplifiedIterationFilter(1.0, 1e-6).charge(GaussianSteps(1.0, 0.5))


def test_filter_budget_and_order_choice():
    filt = FixedOrderRenyiFilter(1.0, 1e-6, 20.0)
    conv = math.log1p(-1 / 20) - (math.log(1e-6) + math.log(20)) / 19
    assert filt.budget == pytest.approx(1.0 - conv)
    with pytest.raises(ValueError, match="larger order"):
        FixedOrderRenyiFilter(0.1, 1e-8, 2.0)
    orders = np.arange(2.0, 400.0)
    order = best_filter_order(0.5, 1e-8, orders, orders * 1e-4)
    # For a zCDP-like nominal step the best order maximises (eps - c(a)) / a.
    rooms = [
        (0.5 - (math.log1p(-1 / a) - (math.log(1e-8) + math.log(a)) / (a - 1))) / a
        for a in orders
    ]
    assert order == orders[int(np.argmax(rooms))]


# ------------------------------------------------------- one charge(record) protocol


def _gaussian_filters():
    return [
        GaussianPrivacyFilter(1.0),
        PlannedStepsRdpFilter(1.0, 1e-6),
        PldPrivacyFilter(1.0, 1e-6),
        FixedOrderRenyiFilter(1.0, 1e-6, 32.0),
    ]


def _state(filt):
    spent = getattr(filt, "mu_spent", None)
    if spent is None:
        spent = getattr(filt, "rdp_spent", None)
    if spent is None:
        spent = filt.epsilon_spent
    return spent, filt.noise_multipliers.tolist(), filt.ledger


@pytest.mark.parametrize("index", range(4))
def test_a_record_of_count_steps_charges_as_count_single_steps(index):
    one, many = _gaussian_filters()[index], _gaussian_filters()[index]
    q = 1.0 if isinstance(one, GaussianPrivacyFilter) else 0.1
    for _ in range(3):
        one.charge(GaussianSteps(6.0, q))
    many.charge(GaussianSteps(6.0, q, count=3))
    assert (
        _state(many)[1:] == _state(one)[1:] == ([6.0] * 3, (GaussianSteps(6.0, q, 3),))
    )
    assert _state(many)[0] == pytest.approx(_state(one)[0], rel=1e-12)
    assert _state(many)[0] > 0


@pytest.mark.parametrize("Filter", [PlannedStepsRdpFilter, PldPrivacyFilter])
def test_a_record_of_count_steps_runs_that_many_reserved_steps(Filter):
    f = Filter(1.0, 1e-6)
    f.reserve([6.0, 6.0, 5.0], 0.1)
    with pytest.raises(ValueError, match="reserved plan"):
        f.charge(GaussianSteps(6.0, 0.1, count=3))  # the third step differs
    f.charge(GaussianSteps(6.0, 0.1, count=2))
    assert f.epsilon_spent == 0.0  # the plan has not fully run
    f.charge(GaussianSteps(5.0, 0.1))
    g = Filter(1.0, 1e-6)
    for z in (6.0, 6.0, 5.0):
        g.charge(GaussianSteps(z, 0.1))
    assert f.epsilon_spent == pytest.approx(g.epsilon_spent, rel=1e-9)
    assert f.epsilon_spent > 0
    assert f.ledger == (GaussianSteps(6.0, 0.1, 2), GaussianSteps(5.0, 0.1))


def test_filters_refuse_other_records_by_type():
    sparse = SparseVectorSteps(0.1)
    for filt in _gaussian_filters()[:3]:
        with pytest.raises(TypeError, match="record must be a GaussianSteps"):
            filt.charge(sparse)
        with pytest.raises(TypeError, match="record"):
            filt.charge("2.0")
    with pytest.raises(TypeError, match="record"):
        FixedOrderRenyiFilter(1.0, 1e-6, 32.0).charge(
            SnowballSteps((2,), (1.0,), (0.1,))
        )
    with pytest.raises(TypeError, match="SnowballSteps or GaussianSteps"):
        AmplifiedIterationFilter(1.0, 1e-6).charge(NoisyMaxSteps(0.1))
    with pytest.raises(ValueError, match="full-batch"):
        GaussianPrivacyFilter(1.0).charge(GaussianSteps(2.0, 0.5))


def test_fixed_order_filter_takes_every_mechanism_through_charge():
    filt = FixedOrderRenyiFilter(2.0, 1e-6, 16.0)
    records = [GaussianSteps(5.0, 0.1), SparseVectorSteps(0.1), NoisyMaxSteps(0.05)]
    for r in records:
        filt.charge(r)
    assert filt.ledger == tuple(records)
    assert filt.rdp_spent == pytest.approx(sum(filt.cost(r) for r in records))


def test_snowball_step_must_match_the_planned_step_size():
    filt = AmplifiedIterationFilter(100.0, 1e-6)
    filt.reserve(SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1)))
    with pytest.raises(ValueError, match="plan"):
        filt.charge(SnowballSteps((2,), (0.5,), (0.2,)))
    filt.charge(SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1)))  # two steps at once
    np.testing.assert_array_equal(filt.noise_multipliers, [0.5, 0.75])


def test_deprecated_call_shapes_warn_and_charge_the_same():
    pairs = [
        (lambda f: f.charge(GaussianSteps(2.0)), lambda f: f.charge(2.0), 0),
        (lambda f: f.charge(GaussianSteps(5.0, 0.1)), lambda f: f.charge(5.0, 0.1), 1),
        (lambda f: f.charge(GaussianSteps(5.0, 0.1)), lambda f: f.charge(5.0, 0.1), 2),
        (lambda f: f.charge(GaussianSteps(5.0, 0.1)), lambda f: f.charge(5.0, 0.1), 3),
        (
            lambda f: f.charge(NoisyMaxSteps(0.1)),
            lambda f: f.charge_mechanism(NoisyMaxSteps(0.1)),
            3,
        ),
    ]
    for new, old, index in pairs:
        a, b = _gaussian_filters()[index], _gaussian_filters()[index]
        new(a)
        with pytest.warns(FutureWarning, match="deprecated"):
            old(b)
        assert _state(a) == _state(b)
    plan = SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1))
    a, b = AmplifiedIterationFilter(100.0, 1e-6), AmplifiedIterationFilter(100.0, 1e-6)
    a.charge(GaussianSteps(10.0))
    with pytest.warns(FutureWarning, match="charge_before"):
        b.charge_before(GaussianSteps(10.0))
    a.reserve(plan)
    b.reserve(plan)
    a.charge(SnowballSteps((2,), (0.5,), (0.1,)))
    with pytest.warns(FutureWarning, match=r"charge\(batch_size, noise_multiplier\)"):
        b.charge(2, 0.5)
    assert a.ledger == b.ledger and a.epsilon_spent == b.epsilon_spent
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="plan"):
        b.charge(2, 0.75)  # the old shape is still checked against the plan
    with pytest.raises(TypeError, match="one record"):
        GaussianPrivacyFilter(1.0).charge(GaussianSteps(2.0), 1.0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # full batch, the noisy count first (GaussianPrivacyFilter)
        {"batch_size": 40},  # the count, then a fixed-order filter
        {"batch_size": 40, "public_n_samples": 200},  # PLD filter, reserved plan
        {"batch_size": 40, "public_n_samples": 200, "accountant": "rdp"},
        {"schedule": LineSearchSchedule(), "max_iter": 3},  # adaptive
        {"solver": "snowball", "epsilon": 4.0},  # amplified iteration, the count
    ],
)
def test_fits_charge_their_filters_with_records(kwargs):
    # The package's own fit paths use charge(record) only: a deprecated call shape
    # would raise here.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    params = {"epsilon": 1.0, "delta": 1e-6, "random_state": 0, "max_iter": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf = DPLogisticRegression(**{**params, **kwargs}).fit(X, y)
    assert 0 < clf.epsilon_ <= clf.epsilon * (1 + 1e-9)
