import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from sklearn_dpgd.accounting import (
    GaussianPrivacyFilter,
    _gdp,
    calibrate_noise_multipliers,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
    gdp_to_zcdp,
    zcdp_epsilon,
)
from sklearn_dpgd.linear_model import DPLinearRegression, DPLogisticRegression

MUS = [0.01, 0.05, 0.3, 1.0, 3.0, 10.0]
EPSILONS = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 8.0]


@pytest.mark.parametrize("mu", MUS)
@pytest.mark.parametrize("epsilon", [0.0, 0.1, 1.0, 5.0])
def test_gdp_delta_matches_textbook_formula(mu, epsilon):
    # Dong, Roth & Su (2022), Cor. 2.13, written out with scipy's normal cdf.
    want = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(
        -epsilon / mu - mu / 2
    )
    assert gdp_delta(mu, epsilon) == pytest.approx(want, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("mu", MUS)
@pytest.mark.parametrize("delta", [1e-10, 1e-8, 1e-5, 1e-2])
def test_gdp_epsilon_matches_dp_accounting_analytic_gaussian(mu, delta):
    from dp_accounting import gaussian_mechanism as ga

    want = ga.get_epsilon_gaussian(1.0 / mu, delta, tol=1e-14)
    got = gdp_epsilon(mu, delta)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert gdp_delta(mu, got) <= delta  # rounded to the valid side


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", [1e-10, 1e-8, 1e-5])
def test_gdp_mu_inverts_and_is_valid(epsilon, delta):
    mu = gdp_mu(epsilon, delta)
    assert gdp_delta(mu, epsilon) <= delta
    assert gdp_delta(mu, epsilon) == pytest.approx(delta, rel=1e-9)
    assert gdp_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-9)


def test_gdp_epsilon_is_zero_when_delta_is_large():
    mu = 0.1
    assert gdp_epsilon(mu, gdp_delta(mu, 0.0) * 1.01) == 0.0


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize(
    "profile",
    [np.ones(100), 0.99 ** np.arange(300), np.linspace(3, 1, 17), np.array([2.5])],
)
def test_calibration_spends_the_budget_exactly_and_never_more(epsilon, profile):
    delta = 1e-8
    z = calibrate_noise_multipliers(profile, epsilon, delta)
    assert z.shape == profile.shape
    np.testing.assert_allclose(z / z[0], profile / profile[0], rtol=1e-12)
    spent = gdp_epsilon(gdp_mu_from_noise_multipliers(z), delta)
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.1, 1.6])
def test_calibrated_schedule_matches_dp_accounting_pld(epsilon):
    # Independent check: compose the actual Gaussian steps with dp-accounting's
    # privacy-loss-distribution accountant (Doroshenko et al. 2022).
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    z = calibrate_noise_multipliers(0.99 ** np.arange(60), epsilon, 1e-8)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(
        dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(v) for v in z])
    )
    assert acc.get_epsilon(1e-8) == pytest.approx(epsilon, rel=1e-3)


def test_zcdp_conversion_is_looser_than_exact_gdp():
    mu = gdp_mu(1.0, 1e-8)
    rho = gdp_to_zcdp(mu)
    assert rho == pytest.approx(mu**2 / 2)
    # Bun & Steinke's conversion of the same steps claims a larger epsilon.
    assert zcdp_epsilon(rho, 1e-8) > 1.0
    assert zcdp_epsilon(0.5, 1e-5) == pytest.approx(
        0.5 + 2 * math.sqrt(0.5 * math.log(1e5))
    )


def test_mu_from_noise_multipliers():
    assert gdp_mu_from_noise_multipliers([2.0, 2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert gdp_mu_from_noise_multipliers([np.inf, 1.0]) == pytest.approx(1.0)
    assert gdp_mu_from_noise_multipliers([]) == 0.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: gdp_delta(0.0, 1.0), "mu"),
        (lambda: gdp_delta(1.0, -1.0), "epsilon"),
        (lambda: gdp_delta(float("nan"), 1.0), "mu"),
        (lambda: gdp_epsilon(1.0, 0.0), "delta"),
        (lambda: gdp_epsilon(1.0, 1.0), "delta"),
        (lambda: gdp_mu(0.0, 1e-5), "epsilon"),
        (lambda: gdp_mu(float("inf"), 1e-5), "epsilon"),
        (lambda: gdp_mu_from_noise_multipliers([1.0, 0.0]), "noise_multipliers"),
        (lambda: gdp_mu_from_noise_multipliers([[1.0]]), "noise_multipliers"),
        (lambda: calibrate_noise_multipliers([], 1.0, 1e-5), "profile"),
        (lambda: calibrate_noise_multipliers([1.0, -1.0], 1.0, 1e-5), "profile"),
        (lambda: calibrate_noise_multipliers([1.0, np.nan], 1.0, 1e-5), "profile"),
        (lambda: zcdp_epsilon(-1.0, 1e-5), "rho"),
        (lambda: GaussianPrivacyFilter(0.0), "mu"),
    ],
)
def test_invalid_arguments_raise_value_error_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_type_errors():
    with pytest.raises(TypeError, match="mu"):
        gdp_delta("1", 1.0)
    with pytest.raises(TypeError, match="delta"):
        gdp_epsilon(1.0, None)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.7])
@pytest.mark.parametrize("delta", [1e-10, 1e-5])
def test_gdp_mu_cache_returns_the_root_finders_value(epsilon, delta):
    _gdp._MU_CACHE.clear()
    first = gdp_mu(epsilon, delta)  # computed
    assert _gdp._MU_CACHE[(epsilon, delta)] == first
    assert gdp_mu(epsilon, delta) == first  # cached
    assert first == _gdp._gdp_mu(epsilon, delta)  # the uncached root, bit for bit
    # Cached keys are validated floats: invalid arguments still raise.
    with pytest.raises(TypeError, match="epsilon"):
        gdp_mu(True, delta)
    assert gdp_mu(np.float32(1.0), 1e-5) == gdp_mu(1, 1e-5) == _gdp._gdp_mu(1.0, 1e-5)


def test_gdp_mu_cache_is_bounded():
    _gdp._MU_CACHE.clear()
    for i in range(_gdp._MU_CACHE_SIZE + 5):
        gdp_mu(1.0 + i / 1024, 1e-5)
    assert len(_gdp._MU_CACHE) <= _gdp._MU_CACHE_SIZE


def test_gdp_mu_cache_keys_hold_no_value_of_the_data():
    # Fits with the same parameters on two different tables (sizes, values,
    # labels) must leave the same keys: only public budgets are cached, never a
    # noisy or exact count or any other value read from the rows.
    rng = np.random.default_rng(0)
    keys = []
    for n, d in ((300, 5), (517, 9)):
        X = rng.normal(size=(n, d)) / np.sqrt(d)
        y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
        _gdp._MU_CACHE.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            DPLogisticRegression(classes=[0, 1], epsilon=0.7, random_state=0).fit(X, y)
            DPLinearRegression(epsilon=0.9, y_bounds=(-1.0, 1.0), random_state=0).fit(
                X, X[:, 0]
            )
        keys.append(set(_gdp._MU_CACHE))
    # The budgets, and public shares of them (the training's, after the count).
    assert keys[0] == keys[1]
    assert {0.7, 0.9} <= {eps for eps, _ in keys[0]}
