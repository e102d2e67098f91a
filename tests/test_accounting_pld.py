"""The fast PLD of subsampled Gaussian steps and the PLD calibration.

Each accountant is checked against dp-accounting on the same mechanisms, and the
reported epsilon against a PLD of exactly what ran on a 4x finer grid.
"""

import dp_accounting
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from sklearn_dpgd.accounting import _pld
from sklearn_dpgd.accounting._subsampled import (
    pld_epsilon,
)


@pytest.mark.parametrize(
    "z, q, step",
    [(1.0, 0.008, 2**-9), (0.6, 0.02, 2**-8), (3.0, 0.001, 2**-11), (2.0, 1.0, 2**-9)],
)
def test_step_pmf_is_dp_accountings_connect_the_dots_pmf(z, q, step):
    lib = pld_lib.from_gaussian_mechanism(
        standard_deviation=z,
        value_discretization_interval=step,
        pessimistic_estimate=True,
        sampling_prob=q,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
        use_connect_dots=True,
    )
    for add, pmf in ((False, lib._pmf_remove), (True, lib._pmf_add)):
        dense = pmf.to_dense_pmf()
        lower, probs, infinity = _pld._step_pmf(z, q, step, add)
        assert lower == dense._lower_loss
        np.testing.assert_allclose(probs, dense._probs, rtol=0, atol=1e-12)
        assert infinity == pytest.approx(dense._infinity_mass, rel=1e-9, abs=1e-30)


def test_composition_matches_dp_accounting_and_truncation_only_adds():
    # Three levels, 45 steps, composed by dp-accounting's PLDAccountant one event
    # at a time on the same grid.
    z = np.repeat([2.0, 1.2, 0.9], [5, 15, 25])
    q = np.repeat([0.05, 0.05, 0.02], [5, 15, 25])
    delta, step = 1e-6, 2**-9
    accountant = dp_accounting.pld.PLDAccountant(
        NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=step
    )
    for zi, qi in zip(z, q, strict=True):
        accountant.compose(
            dp_accounting.PoissonSampledDpEvent(qi, dp_accounting.GaussianDpEvent(zi))
        )
    reference = accountant.get_epsilon(delta)
    levels = [(2.0, 0.05, 5), (1.2, 0.05, 15), (0.9, 0.02, 25)]
    exact = _pld.epsilon_of(_pld.composed_pmfs(levels, step), step, delta)
    assert exact == pytest.approx(reference, rel=1e-8)
    # Truncating up to 1e-3 delta of tail mass in all is pessimistic and tiny.
    fast = _pld.epsilon_of(_pld.composed_pmfs(levels, step, delta), step, delta)
    assert exact * (1 - 1e-12) <= fast <= exact * (1 + 1e-4)
    # The same levels in another order truncate elsewhere: equal to 1e-6.
    assert pld_epsilon(z, q, delta, step) == pytest.approx(fast, rel=1e-6)


@pytest.mark.parametrize("add", [False, True], ids=["remove", "add"])
@pytest.mark.parametrize(
    # Under "add" the loss is at most -log(1 - q): epsilons below it.
    "z, q, eps",
    [(1.0, 0.01, 0.005), (0.7, 0.2, 0.1), (0.5, 0.05, 0.02), (3.0, 1.0, 0.1)],
)
def test_hockey_stick_is_the_integral_of_the_neighbouring_densities(z, q, eps, add):
    # Independent of dp-accounting: delta(eps) = int (p(x) - e^eps p'(x))_+ dx for
    # the pair of a sensitivity-1 step (a mixture shifted by 1, not 2 or 1/2):
    # dropping or adding a factor 2 in the sensitivity moves delta by far more.
    from scipy.integrate import quad
    from scipy.stats import norm

    def pair(x, shift):
        base = norm.pdf(x, scale=z)
        mixture = (1 - q) * base + q * norm.pdf(x, loc=shift, scale=z)
        return (base, mixture) if add else (mixture, base)

    def delta_for(shift):
        def excess(x):
            upper, lower = pair(x, shift)
            return max(upper - np.exp(eps) * lower, 0.0)

        return quad(
            excess,
            -40 * z,
            40 * z,
            points=[0.0, shift],
            limit=400,
            epsabs=1e-15,
            epsrel=1e-10,
        )[0]

    got = _pld._hockey_stick(z, q, np.array([eps]), add)[0]
    shift = 1.0 if add else -1.0
    assert got == pytest.approx(delta_for(shift), rel=1e-6, abs=1e-12)
    assert got != pytest.approx(delta_for(2 * shift), rel=0.05)
