import math

import numpy as np
import pytest
from scipy.stats import norm

from sklearn_dpgd.accounting import (
    GaussianPrivacyFilter,
    calibrate_noise_multipliers,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
    gdp_to_zcdp,
    zcdp_epsilon,
)

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
