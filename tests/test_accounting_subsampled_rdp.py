import math

import numpy as np
import pytest

from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
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


# ---------------------------------------------------------------------------- PLD


# --------------------------------------------------------------------- validation
