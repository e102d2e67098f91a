"""The fast PLD of subsampled Gaussian steps and the PLD calibration (issue 18).

Each accountant is checked against dp-accounting on the same mechanisms, and the
reported epsilon against a PLD of exactly what ran on a 4x finer grid.
"""

import dp_accounting
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import EpsilonDeltaRecord, GaussianSteps, LedgerEntry, _pld
from sklearn_dpgd.accounting import _subsampled_rdp as sub
from sklearn_dpgd.accounting._compose import _LEDGER_PLD_STEP, _pld_compose
from sklearn_dpgd.accounting._records import _expand_ledger
from sklearn_dpgd.accounting._subsampled import (
    calibrate_poisson_noise_multipliers,
    pld_epsilon,
    pld_grid_step,
    pld_plan_levels,
)
from sklearn_dpgd.schedules import ExponentialDecaySchedule


def _finer_epsilon(z, q, delta, step):
    """PLD epsilon of exactly these steps, each level exactly (no rounding)."""
    zg, qg, counts = sub._group_steps(np.asarray(z, float), np.broadcast_to(q, z.shape))
    levels = [(a, b, int(n)) for a, b, n in zip(zg, qg, counts, strict=True)]
    return _pld.epsilon_of(_pld.composed_pmfs(levels, step, delta), step, delta)


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


def test_ledger_composes_subsampled_steps_with_records_as_dp_accounting():
    # A ledger with (epsilon, delta) records composes its subsampled steps with
    # the fast PMFs; dp-accounting's own composition on the same grid agrees,
    # the tail truncation (at most 1e-3 delta) only adding.
    delta = 1e-6
    steps = (GaussianSteps(2.0, 0.05, 20), GaussianSteps(1.5, 0.05, 10))
    entries = [LedgerEntry(steps), LedgerEntry(EpsilonDeltaRecord(0.2, 1e-7))]
    got = _pld_compose(entries, delta)
    reference = pld_lib.from_privacy_parameters(
        common.DifferentialPrivacyParameters(0.2, 1e-7),
        value_discretization_interval=_LEDGER_PLD_STEP,
    )
    for r in steps:
        reference = reference.compose(
            pld_lib.from_gaussian_mechanism(
                r.noise_multiplier,
                sampling_prob=r.sampling_rate,
                value_discretization_interval=_LEDGER_PLD_STEP,
            ).self_compose(r.count)
        )
    expected = reference.get_epsilon_for_delta(delta)
    assert expected * (1 - 1e-8) <= got <= expected * (1 + 1e-4)


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
