"""Epsilon and calibration of Poisson-subsampled Gaussian runs
(accounting/_subsampled.py): RDP and PLD accountants, the PLD grid and level plans,
calibration to the budget."""

import time

import dp_accounting
import numpy as np
import pytest
from dp_accounting import NeighboringRelation

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    _pld,
    calibrate_poisson_noise_multipliers,
    pld_epsilon,
    pld_grid_step,
    pld_plan_levels,
    poisson_gaussian_epsilon,
    poisson_gaussian_rdp,
    rdp_epsilon,
)
from sklearn_dpgd.accounting import _subsampled_rdp as sub
from sklearn_dpgd.accounting._records import _expand_ledger
from sklearn_dpgd.accounting._subsampled_rdp import _group_steps
from sklearn_dpgd.schedules import ExponentialDecaySchedule


def _dp_rdp():
    from dp_accounting.rdp import rdp_privacy_accountant

    return rdp_privacy_accountant


def _pld_module():
    from dp_accounting.pld import privacy_loss_distribution

    return privacy_loss_distribution


def _finer_epsilon(z, q, delta, step):
    """PLD epsilon of exactly these steps, each level exactly (no rounding)."""
    zg, qg, counts = sub._group_steps(np.asarray(z, float), np.broadcast_to(q, z.shape))
    levels = [(a, b, int(n)) for a, b, n in zip(zg, qg, counts, strict=True)]
    return _pld.epsilon_of(_pld.composed_pmfs(levels, step, delta), step, delta)


@pytest.mark.parametrize(
    "epsilon, delta", [(0.1, 1e-8), (1.0, 1e-5), (8.0, 1e-5), (0.01, 1e-10)]
)
@pytest.mark.parametrize(
    "profile, q",
    [
        (0.995 ** np.arange(1000), 0.01),
        (np.ones(10_000), 0.001),
        (np.ones(50), 1.0),
        (np.repeat([1.0, 0.8, 0.6], [100, 200, 300]), 0.05),
        (np.linspace(1.0, 0.5, 40), np.linspace(0.001, 0.5, 40)),
    ],
)
def test_rdp_calibration_spends_the_budget_to_1e6_and_never_more(
    profile, q, epsilon, delta
):
    z = calibrate_poisson_noise_multipliers(profile, q, epsilon, delta, "rdp")
    assert z.shape == profile.shape
    np.testing.assert_allclose(z / profile, z[0] / profile[0], rtol=1e-14)
    spent = poisson_gaussian_epsilon(z, q, delta, accountant="rdp")
    assert spent <= epsilon
    assert spent >= epsilon * (1 - 1e-6)


@pytest.mark.parametrize("epsilon", [0.05, 0.4, 1.6, 8.0])
def test_pld_calibration_spends_the_budget_to_1e4_and_never_more(epsilon):
    # The default: the PLD epsilon on the grid fixed by the target. It needs less
    # noise than the RDP root for the same promise (RDP is an upper bound on PLD).
    _pld_module()
    q, delta = 256 / 32561, 1e-8  # Adult, batch_size=256
    profile = np.repeat([1.0, 0.8, 0.6], [300, 300, 400])
    z = calibrate_poisson_noise_multipliers(profile, q, epsilon, delta)
    np.testing.assert_allclose(z / profile, z[0] / profile[0], rtol=1e-14)
    spent = pld_epsilon(z, q, delta, pld_grid_step(epsilon, z.size))
    assert epsilon * (1 - 1e-4) <= spent <= epsilon
    z_rdp = calibrate_poisson_noise_multipliers(profile, q, epsilon, delta, "rdp")
    assert z[0] < 0.97 * z_rdp[0]


def test_pld_calibration_of_1000_poisson_steps_is_fast():
    # One PLD build and one FFT power per evaluation, 2-4 evaluations (measured
    # 0.1-0.5 s; benchmarks/bench_accounting.py). Building the 1,000 steps one by
    # one would take seconds per evaluation.
    _pld_module()
    pld_epsilon([1.0], 0.5, 1e-5, 0.01)  # import dp_accounting outside the timing
    start = time.perf_counter()
    calibrate_poisson_noise_multipliers(np.ones(1000), 256 / 32561, 0.4, 1e-8)
    assert time.perf_counter() - start < 2.0


def test_calibration_of_a_single_full_batch_step_is_the_rdp_gaussian():
    # q = 1: RDP alpha / (2 z^2); compare with dp-accounting's RDP accountant.
    rdp_mod = _dp_rdp()
    z = calibrate_poisson_noise_multipliers([1.0], 1.0, 1.0, 1e-5, "rdp")[0]
    want, _ = rdp_mod.compute_epsilon(
        DEFAULT_ORDERS, DEFAULT_ORDERS / (2 * z * z), 1e-5
    )
    assert want == pytest.approx(1.0, rel=1e-6) and want <= 1.0


def _direct_pld_epsilon(z, q, delta, step, pessimistic=True, group=False):
    """Step-by-step dp-accounting PLD composition (no accountant, no grouping)."""
    pld_mod = _pld_module()
    z = np.asarray(z, float)
    q = np.broadcast_to(np.asarray(q, float), z.shape)
    if group:
        z, q, counts = _group_steps(z, q)
    else:
        counts = np.ones(z.size)
    total = None
    for zi, qi, n in zip(z, q, counts, strict=True):
        pld = pld_mod.from_gaussian_mechanism(
            float(zi),
            value_discretization_interval=step,
            sampling_prob=float(qi),
            pessimistic_estimate=pessimistic,
        )
        if n > 1:
            pld = pld.self_compose(int(n))
        total = pld if total is None else total.compose(pld)
    return total.get_epsilon_for_delta(delta)


@pytest.mark.parametrize("delta", [1e-6])
def test_rdp_is_an_upper_bound_on_pld(delta):
    _pld_module()
    schedules = [
        (np.full(500, 1.1), 0.01),
        (np.repeat([3.0, 2.0, 1.5], 40), 0.1),
        (2.0 * 0.98 ** np.arange(20), 0.02),
        (np.linspace(3.0, 6.0, 10), 1.0),
        (np.array([0.6]), 0.3),
    ]
    for z, q in schedules:
        rdp = poisson_gaussian_epsilon(z, q, delta, accountant="rdp")
        pld = poisson_gaussian_epsilon(z, q, delta)
        assert 0 < pld < rdp


def test_pld_matches_an_ungrouped_dp_accounting_composition():
    import dp_accounting

    import sklearn_dpgd.accounting._subsampled as mod

    z = np.repeat([2.0, 1.2, 0.9], [5, 10, 15])
    q = np.repeat([0.05, 0.05, 0.02], [5, 10, 15])
    delta = 1e-6
    step = mod.pld_grid_step(1.0, z.size)
    got = pld_epsilon(z, q, delta, step)
    # The default grid is pessimistic: never below a 4x finer grid, at most 2%
    # above it.
    auto = poisson_gaussian_epsilon(z, q, delta)
    finer = pld_epsilon(z, q, delta, step / 4)
    assert finer <= auto <= 1.02 * finer
    assert auto == pytest.approx(got, rel=2e-2)
    accountant = dp_accounting.pld.PLDAccountant(
        dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
        value_discretization_interval=step,
    )
    for zi, qi in zip(z, q, strict=True):
        accountant.compose(
            dp_accounting.PoissonSampledDpEvent(qi, dp_accounting.GaussianDpEvent(zi))
        )
    # Self-composition by FFT powers and sequential composition differ by rounding;
    # the tail truncation of at most 1e-3 delta in all (sklearn_dpgd._pld) can
    # only add, and by far less than 1e-4.
    reference = accountant.get_epsilon(delta)
    assert reference * (1 - 1e-8) <= got <= reference * (1 + 1e-4)
    # The pessimistic PLD is above the optimistic one, a lower bound on the truth.
    assert got >= _direct_pld_epsilon(z, q, delta, step, pessimistic=False)


def _random_schedule(rng, max_steps=2000):
    n_steps = int(np.round(np.exp(rng.uniform(0, np.log(max_steps)))))
    shape = rng.choice(["uniform", "exponential", "step", "time", "random"])
    t = np.arange(n_steps)
    if shape == "uniform":
        profile = np.ones(n_steps)
    elif shape == "exponential":
        profile = np.exp(-rng.uniform(0, np.log(20)) * t / n_steps)
    elif shape == "step":
        k = int(rng.integers(1, max(n_steps // 2, 1) + 1))
        profile = rng.uniform(0.5, 1.0) ** (t // k)
    elif shape == "time":
        profile = 1 / np.sqrt(1 + rng.uniform(0.001, 0.1) * t)
    else:
        profile = np.exp(rng.normal(0, 0.3, n_steps))
    q = float(np.exp(rng.uniform(np.log(1e-3), 0)))
    epsilon = float(np.exp(rng.uniform(np.log(0.1), np.log(10))))
    delta = float(np.exp(rng.uniform(np.log(1e-8), np.log(1e-5))))
    return profile, q, epsilon, delta


def _check_reported_epsilon(n_schedules, max_steps, seed):
    # The project's check: for random schedules the reported epsilon is at least the
    # PLD value and within 2% of it. RDP alone is not (on the 50 schedules of the
    # slow test it exceeds PLD by 6% to 30x, median 24%). What holds: calibrate the
    # noise to the pessimistic PLD epsilon (the default), on the grid of the target,
    # which is what a minibatch fit reports. It is at most the target, and at least
    # (and within 2% of) a PLD on a 4x finer grid, built step by step here.
    rng = np.random.default_rng(seed)
    for _ in range(n_schedules):
        profile, q, epsilon, delta = _random_schedule(rng, max_steps)
        z = calibrate_poisson_noise_multipliers(profile, q, epsilon, delta)
        step = pld_grid_step(epsilon, z.size)
        reported = pld_epsilon(z, q, delta, step)
        finer = _direct_pld_epsilon(z, q, delta, step / 4, group=True)
        assert reported <= epsilon
        assert finer <= reported <= 1.02 * finer


def test_reported_epsilon_is_pld_within_2_percent_on_short_schedules():
    _pld_module()
    _check_reported_epsilon(n_schedules=5, max_steps=40, seed=1)


def test_many_noise_levels_are_rounded_down_within_2_percent():
    # 100 distinct levels > 48: each is rounded down onto a geometric grid of
    # ratio 1.01 (21 points here; less noise, still an upper bound).
    _pld_module()
    z = 2.0 * 0.998 ** np.arange(100)
    q, delta, step = 0.02, 1e-6, 1e-3
    reported = pld_epsilon(z, q, delta, step)
    exact = _direct_pld_epsilon(z, np.full(z.size, q), delta, step, group=True)
    assert exact <= reported <= 1.02 * exact


@pytest.mark.slow
def test_reported_epsilon_is_pld_within_2_percent_on_50_random_schedules():
    # Lengths 1-2,000, sampling rates 0.001-1, epsilon 0.1-10, delta 1e-8-1e-5.
    _pld_module()
    _check_reported_epsilon(n_schedules=50, max_steps=2000, seed=0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: poisson_gaussian_rdp([], 0.1), "noise_multipliers"),
        (lambda: poisson_gaussian_rdp([[1.0]], 0.1), "noise_multipliers"),
        (lambda: poisson_gaussian_rdp([1.0, 0.0], 0.1), "noise_multipliers"),
        (lambda: poisson_gaussian_rdp([1.0, -2.0], 0.1), "noise_multipliers"),
        (lambda: poisson_gaussian_rdp([np.nan], 0.1), "noise_multipliers"),
        (lambda: poisson_gaussian_rdp([1.0], 0.0), "sampling_rates"),
        (lambda: poisson_gaussian_rdp([1.0], 1.5), "sampling_rates"),
        (lambda: poisson_gaussian_rdp([1.0], -0.1), "sampling_rates"),
        (lambda: poisson_gaussian_rdp([1.0], np.nan), "sampling_rates"),
        (lambda: poisson_gaussian_rdp([1.0, 2.0], [0.1, 0.2, 0.3]), "sampling_rates"),
        (lambda: poisson_gaussian_rdp([1.0], 0.1, orders=[1.0, 2.0]), "orders"),
        (lambda: poisson_gaussian_rdp([1.0], 0.1, orders=[]), "orders"),
        (lambda: poisson_gaussian_epsilon([1.0], 0.1, 0.0), "delta"),
        (lambda: poisson_gaussian_epsilon([1.0], 0.1, 1.0), "delta"),
        (lambda: poisson_gaussian_epsilon([1.0], 0.1, 1e-5, "gdp"), "accountant"),
        (
            lambda: calibrate_poisson_noise_multipliers([1.0], 0.1, 1.0, 1e-5, "x"),
            "accountant",
        ),
        (lambda: pld_epsilon([1.0], 0.1, 1e-5, 0.0), "value_discretization"),
        (lambda: poisson_gaussian_epsilon([], 0.1, 1e-5), "noise_multipliers"),
        (lambda: poisson_gaussian_epsilon([1.0], 2.0, 1e-5), "sampling_rates"),
        (lambda: rdp_epsilon([0.1, 0.2], [2.0], 1e-5), "rdp and orders"),
        (lambda: rdp_epsilon([-0.1], [2.0], 1e-5), "rdp"),
        (lambda: rdp_epsilon([0.1], [0.5], 1e-5), "orders"),
        (lambda: rdp_epsilon([0.1], [2.0], 2.0), "delta"),
        (lambda: calibrate_poisson_noise_multipliers([], 0.1, 1.0, 1e-5), "profile"),
        (lambda: calibrate_poisson_noise_multipliers([0.0], 0.1, 1.0, 1e-5), "profile"),
        (
            lambda: calibrate_poisson_noise_multipliers([np.inf], 0.1, 1.0, 1e-5),
            "profile",
        ),
        (
            lambda: calibrate_poisson_noise_multipliers([1.0], 0.0, 1.0, 1e-5),
            "sampling",
        ),
        (lambda: calibrate_poisson_noise_multipliers([1.0], 0.1, 0.0, 1e-5), "epsilon"),
        (lambda: calibrate_poisson_noise_multipliers([1.0], 0.1, 1.0, 0.0), "delta"),
    ],
)
def test_invalid_arguments_raise_value_error_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_plan_levels_round_down_where_rounding_costs_least():
    q = 0.01
    p = np.linspace(1.0, 3.0, 500)
    z = pld_plan_levels(p, q)
    assert np.unique(z).size <= 32
    assert np.all(z <= p) and np.all(np.diff(z) >= 0)
    # The low-noise steps (which spend most) are rounded the least.
    assert np.max(1 - z[:50] / p[:50]) < np.max(1 - z[-50:] / p[-50:])
    few = np.repeat([1.0, 2.0], 250)
    np.testing.assert_array_equal(pld_plan_levels(few, q), few)
    with pytest.raises(ValueError, match="max_levels"):
        pld_plan_levels(p, q, max_levels=0)
    with pytest.raises(ValueError, match="noise_multipliers"):
        pld_plan_levels(-p, q)


@pytest.mark.parametrize("epsilon", [0.4, 1.6])
def test_calibrating_distinct_levels_reports_within_2_percent_of_what_ran(
    epsilon, monkeypatch
):
    # 1,000 distinct noise levels at Adult's batch_size=256 rate: the plan that
    # runs has at most 32 levels, its reported epsilon is the budget (to 1e-4,
    # never more), and that is in [PLD, 1.02 PLD] for a 4x finer grid of exactly
    # these steps. Few PLD evaluations (the benchmark times them).
    calls = []
    composed = _pld.composed_pmfs

    def counting(levels, step, delta=None):
        calls.append(len(levels))
        return composed(levels, step, delta)

    monkeypatch.setattr(_pld, "composed_pmfs", counting)
    q, delta = 256 / 32561, 1e-8
    profile = np.linspace(1.0, 3.0, 1000)
    z = calibrate_poisson_noise_multipliers(profile, q, epsilon, delta)
    assert len(calls) <= 6 and max(calls) <= 32
    assert np.unique(z).size <= 32
    # Rounding down to the levels keeps the profile's order (a staircase).
    assert np.all(np.diff(z) >= 0)
    step = pld_grid_step(epsilon, z.size)
    reported = pld_epsilon(z, q, delta, step)
    assert epsilon * (1 - 1e-4) <= reported <= epsilon
    finer = _finer_epsilon(z, q, delta, step / 4)
    assert finer <= reported <= 1.02 * finer


def test_minibatch_fit_runs_the_levels_its_pld_composes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 5))
    y = (X[:, 0] + 0.5 * rng.standard_normal(2000) > 0).astype(int)
    clf = DPLogisticRegression(
        epsilon=1.0,
        delta=1e-6,
        batch_size=50,
        max_iter=400,
        schedule=ExponentialDecaySchedule(0.997),
        public_n_samples=2000,
        random_state=0,
    ).fit(X, y)
    assert 1 < np.unique(clf.noise_multipliers_).size <= 32
    z, q = _expand_ledger(clf.ledger_)
    finer = _finer_epsilon(z, q, 1e-6, pld_grid_step(1.0, z.size) / 4)
    assert finer <= clf.epsilon_ <= 1.02 * finer
    assert clf.epsilon_ <= 1.0


@pytest.mark.parametrize("epsilon", [0.4, 1.6])
def test_calibrated_distinct_levels_against_dp_accountings_own_pld(epsilon):
    # The reference is dp-accounting's PLDAccountant itself (its own PMFs and
    # compositions) on a 2x finer grid, for exactly the 1,000 steps that run.
    q, delta = 256 / 32561, 1e-8
    z = calibrate_poisson_noise_multipliers(
        np.linspace(1.0, 3.0, 1000), q, epsilon, delta
    )
    step = pld_grid_step(epsilon, z.size)
    accountant = dp_accounting.pld.PLDAccountant(
        NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=step / 2
    )
    for level, count in zip(*np.unique(z, return_counts=True), strict=True):
        accountant.compose(
            dp_accounting.PoissonSampledDpEvent(
                q, dp_accounting.GaussianDpEvent(float(level))
            ),
            int(count),
        )
    reference = accountant.get_epsilon(delta)
    reported = pld_epsilon(z, q, delta, step)
    assert reference <= reported <= 1.02 * reference
