import math
import os
import time

import numpy as np
import pytest

from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    calibrate_poisson_noise_multipliers,
    pld_epsilon,
    pld_grid_step,
    poisson_gaussian_epsilon,
    poisson_gaussian_rdp,
    rdp_epsilon,
)
from sklearn_dpgd.accounting._subsampled_rdp import (
    _closed_form_log_a,
    _group_steps,
    _interpolated_log_a,
    _min_epsilon,
    _quadrature_log_a,
)

INTEGER_ORDERS = DEFAULT_ORDERS[(DEFAULT_ORDERS == np.floor(DEFAULT_ORDERS))]
FRACTIONAL_ORDERS = DEFAULT_ORDERS[(DEFAULT_ORDERS != np.floor(DEFAULT_ORDERS))]


def _dp_rdp():
    from dp_accounting.rdp import rdp_privacy_accountant

    return rdp_privacy_accountant


def _pld_module():
    from dp_accounting.pld import privacy_loss_distribution

    return privacy_loss_distribution


def _mp_log_a(q, z, alpha, dps=30):
    """``log A_alpha`` from its definition ``E_{x ~ N(0, z^2)}[r(x)^alpha]``, ``r(x) =
    1 - q + q e^((2x - 1) / (2 z^2))`` (Mironov, Talwar & Zhang 2019, Sec. 3), by
    mpmath quadrature at 30 digits. ``E[r - 1] = 0`` is subtracted (``alpha (r - 1)``)
    so that tiny values of ``A - 1`` keep their digits."""
    import mpmath  # a dependency of dp-accounting

    with mpmath.workdps(dps):
        q, z, a = mpmath.mpf(q), mpmath.mpf(z), mpmath.mpf(alpha)

        def f(x):
            ratio = 1 - q + q * mpmath.exp((2 * x - 1) / (2 * z * z))
            return mpmath.npdf(x, 0, z) * (ratio**a - 1 - a * (ratio - 1))

        cuts = sorted({-10 * z, mpmath.mpf(0), mpmath.mpf(1), a, a + 10 * z})
        am1 = mpmath.quad(f, [-mpmath.inf, *cuts, mpmath.inf], maxdegree=10)
        return float(mpmath.log1p(am1))


def _schedules():
    rng = np.random.default_rng(3)
    return [
        (np.full(500, 1.1), 0.01),
        (4.0 * 0.99 ** np.arange(100), 0.02),
        (np.repeat([3.0, 2.0, 1.5], 40), 0.1),
        (np.exp(rng.normal(0, 0.3, 50)) * 0.8, 0.005),
        (np.linspace(30.0, 60.0, 20), 1.0),
        (np.array([0.6]), 0.3),
        (np.linspace(2.0, 1.0, 30), rng.uniform(0.001, 1.0, 30)),
    ]


# ------------------------------------------------------------------------ orders


def test_default_orders():
    assert DEFAULT_ORDERS.ndim == 1
    assert np.all(np.diff(DEFAULT_ORDERS) > 0)
    assert DEFAULT_ORDERS[0] == 1.25 and DEFAULT_ORDERS[-1] <= 8192
    assert set(range(2, 65)) <= set(INTEGER_ORDERS.astype(int))
    assert FRACTIONAL_ORDERS.max() < 8
    with pytest.raises(ValueError):
        DEFAULT_ORDERS[0] = 2.0  # read-only


# ------------------------------------------------------------------- RDP values

AGREEMENT_Q = [1e-4, 1e-3, 1e-2, 0.1, 0.5, 0.99, 1.0]
AGREEMENT_Z = [0.5, 1.0, 2.0, 5.0, 20.0, 50.0]


@pytest.mark.parametrize("q", AGREEMENT_Q)
def test_rdp_matches_dp_accounting_on_integer_orders(q):
    rdp_mod = _dp_rdp()
    orders = INTEGER_ORDERS[INTEGER_ORDERS <= 1024]
    for z in AGREEMENT_Z:
        want = rdp_mod._compute_rdp_poisson_subsampled_gaussian(q, z, orders)
        got = poisson_gaussian_rdp([z], q, orders)
        # dp-accounting sums terms near 1 and loses relative precision when the RDP
        # is tiny (small q, large z); there the definition decides (next test).
        if q * q * math.expm1(1.0 / z**2) > 1e-8:
            np.testing.assert_allclose(got, want, rtol=1e-9)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize(
    "q, z, alpha",
    [
        (1e-4, 50.0, 2),
        (1e-4, 20.0, 7),
        (1e-3, 50.0, 3),
        (1e-4, 5.0, 12),
        (1e-3, 50, 300),
    ],
)
def test_rdp_is_precise_where_dp_accounting_is_not(q, z, alpha):
    want = _mp_log_a(q, z, alpha) / (alpha - 1)
    got = poisson_gaussian_rdp([z], q, [alpha])[0]
    assert got == pytest.approx(want, rel=1e-11)


def test_rdp_sums_over_steps_like_dp_accounting():
    rdp_mod = _dp_rdp()
    z = np.array([0.8, 1.3, 2.0, 4.5, 9.0])
    q = np.array([0.02, 0.02, 0.3, 0.001, 1.0])
    orders = INTEGER_ORDERS[INTEGER_ORDERS <= 256]
    want = sum(
        rdp_mod._compute_rdp_poisson_subsampled_gaussian(qi, zi, orders)
        for zi, qi in zip(z, q, strict=True)
    )
    np.testing.assert_allclose(poisson_gaussian_rdp(z, q, orders), want, rtol=1e-9)


@pytest.mark.parametrize(
    "q, z",
    [(1e-5, 1.0), (1e-3, 0.5), (0.01, 0.4), (0.01, 3.0), (0.1, 1.0), (0.5, 0.7)]
    + [(0.9, 5.0), (0.02, 40.0), (0.999, 2.0), (1e-4, 300.0)],
)
def test_fractional_orders_match_the_definition(q, z):
    alphas = FRACTIONAL_ORDERS[::8]
    got = poisson_gaussian_rdp([z], q, alphas)
    want = [_mp_log_a(q, z, a) / (a - 1) for a in alphas]
    np.testing.assert_allclose(got, want, rtol=1e-11)


def test_fractional_orders_are_below_dp_accounting_series():
    # dp-accounting adds the absolute values of an alternating series for fractional
    # orders: an upper bound, loose by up to a factor 3 here, and sometimes inf.
    rdp_mod = _dp_rdp()
    for q, z in [(0.001, 0.5), (0.01, 1.0), (0.1, 5.0), (0.5, 1.0), (0.9, 0.5)]:
        alphas = FRACTIONAL_ORDERS[::5]
        ours = poisson_gaussian_rdp([z], q, alphas)
        theirs = rdp_mod._compute_rdp_poisson_subsampled_gaussian(q, z, alphas)
        assert np.all(ours <= theirs * (1 + 1e-12))


def test_large_integer_orders_by_quadrature_match_the_closed_form():
    # At large z a high integer order is computed by quadrature (cheaper).
    q = np.array([0.01, 0.3, 1e-4])
    z = np.array([60.0, 200.0, 30.0])
    for alpha in (300, 1015, 4241):
        quad = _quadrature_log_a(q, z, [alpha])[:, 0]
        closed = _closed_form_log_a(q, z, alpha)
        np.testing.assert_allclose(quad, closed, rtol=1e-10)


def test_interpolation_fallback_is_an_upper_bound():
    # For z too small for quadrature, fractional orders use the chord of the convex
    # log A between integers; check it against quadrature where both work.
    q = np.array([0.01, 0.2, 0.9, 1e-4])
    z = np.array([0.3, 0.5, 1.0, 0.2])
    alphas = FRACTIONAL_ORDERS
    exact = _quadrature_log_a(q, z, alphas)
    bound = _interpolated_log_a(q, z, alphas)
    assert np.all(bound >= exact * (1 - 1e-12))
    # Tiny z (the fallback is used): finite and non-decreasing in the order.
    rdp = poisson_gaussian_rdp([0.02], 0.01, DEFAULT_ORDERS)
    assert np.all(np.isfinite(rdp))
    assert np.all(np.diff(rdp) >= -1e-12 * rdp[1:])


@pytest.mark.parametrize("z", [0.3, 1.0, 7.0, 1e3])
def test_full_batch_steps_are_exactly_gaussian(z):
    got = poisson_gaussian_rdp([z], 1.0, DEFAULT_ORDERS)
    np.testing.assert_array_equal(got, DEFAULT_ORDERS / (2 * z * z))
    zs = np.array([z, 2 * z, 3 * z])
    want = DEFAULT_ORDERS / 2 * np.sum(1 / zs**2)
    np.testing.assert_allclose(poisson_gaussian_rdp(zs, 1.0), want, rtol=1e-14)


def test_grouping_gives_the_same_result_as_step_by_step():
    rng = np.random.default_rng(0)
    levels = np.array([0.7, 1.1, 2.5, 6.0])
    z = levels[rng.integers(0, 4, 200)]
    q = np.where(z > 2, 0.05, 0.01)
    zg, qg, counts = _group_steps(z, q)
    assert zg.size == 4 and counts.sum() == 200
    orders = DEFAULT_ORDERS[DEFAULT_ORDERS <= 100]
    grouped = poisson_gaussian_rdp(z, q, orders)
    one_by_one = sum(
        poisson_gaussian_rdp([zi], qi, orders) for zi, qi in zip(z, q, strict=True)
    )
    np.testing.assert_allclose(grouped, one_by_one, rtol=1e-12)
    # Order of the steps does not matter; steps with no noise limit are free.
    perm = rng.permutation(200)
    np.testing.assert_allclose(poisson_gaussian_rdp(z[perm], q[perm], orders), grouped)
    with_free = poisson_gaussian_rdp(np.append(z, np.inf), np.append(q, 0.5), orders)
    np.testing.assert_array_equal(with_free, grouped)
    assert poisson_gaussian_epsilon([np.inf, np.inf], 0.1, 1e-5) == 0.0


def test_rdp_increases_with_order():
    for z, q in _schedules():
        rdp = poisson_gaussian_rdp(z, q)
        assert np.all(np.diff(rdp) >= -1e-12 * rdp[1:])


# ----------------------------------------------------------- RDP -> (eps, delta)


def test_rdp_epsilon_matches_dp_accounting_compute_epsilon():
    rdp_mod = _dp_rdp()
    rng = np.random.default_rng(1)
    orders = np.concatenate([[1.0, 1.005], DEFAULT_ORDERS])
    for _ in range(50):
        rho = 10 ** rng.uniform(-6, 1)
        rdp = rho * orders * (1 + rng.uniform(0, 0.1, orders.size))
        rdp[rng.integers(0, orders.size)] = np.inf
        delta = 10 ** rng.uniform(-12, -2)
        want, _ = rdp_mod.compute_epsilon(orders, rdp, delta)
        assert rdp_epsilon(rdp, orders, delta) == pytest.approx(want, rel=1e-12)
    # The KL branch: a tiny RDP certifies epsilon 0.
    assert rdp_epsilon([1e-14, 1e-13], [2.0, 3.0], 1e-5) == 0.0


@pytest.mark.parametrize("delta", [1e-10, 1e-6, 1e-3])
def test_lazy_epsilon_equals_the_full_order_grid(delta):
    # poisson_gaussian_epsilon evaluates only the orders that can win (branch and
    # bound on the convexity of (alpha - 1) * rdp): the same minimum as all orders.
    for z, q in _schedules():
        for scale in (0.5, 30.0):
            full = rdp_epsilon(
                poisson_gaussian_rdp(scale * z, q), DEFAULT_ORDERS, delta
            )
            lazy = poisson_gaussian_epsilon(scale * z, q, delta, accountant="rdp")
            assert lazy == pytest.approx(full, rel=1e-12, abs=1e-300)


def test_branch_and_bound_evaluates_few_orders():
    z, q = 3.0 * 0.998 ** np.arange(1000), 0.01
    zg, qg, counts = _group_steps(z, np.full(z.size, q))
    evaluated = []
    import sklearn_dpgd.accounting._subsampled_rdp as mod

    original = mod._step_rdp

    def spy(q_, z_, orders):
        evaluated.extend(orders)
        return original(q_, z_, orders)

    mod._step_rdp = spy
    try:
        _min_epsilon(qg, zg, counts, 1e-5, DEFAULT_ORDERS)
    finally:
        mod._step_rdp = original
    assert len(evaluated) < 40 and max(evaluated) < 200


# ------------------------------------------------------------------- calibration


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


# ---------------------------------------------------------------------------- PLD


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
@pytest.mark.skipif(
    not os.environ.get("SKLEARN_DPGD_SLOW"), reason="slow: set SKLEARN_DPGD_SLOW=1"
)
def test_reported_epsilon_is_pld_within_2_percent_on_50_random_schedules():
    # Lengths 1-2,000, sampling rates 0.001-1, epsilon 0.1-10, delta 1e-8-1e-5.
    _pld_module()
    _check_reported_epsilon(n_schedules=50, max_steps=2000, seed=0)


# --------------------------------------------------------------------- validation


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
