"""The private comparison of the searches: report-noisy-max and its budget."""

import math

import numpy as np
import pytest

from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    _compose_entries,
    gdp_mu,
)
from sklearn_dpgd.model_selection._selection import _selection_epsilon, report_noisy_max

DELTA = 1e-6


@pytest.mark.parametrize("share", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_selection_epsilon_fills_the_budget_without_exceeding_it(share, epsilon):
    # The mechanisms on all rows take ``share`` of the budget's mu^2.
    mu_all_rows = math.sqrt(share) * gdp_mu(epsilon, DELTA)
    e = _selection_epsilon(mu_all_rows, epsilon, DELTA)
    spent = _compose_entries(
        [
            LedgerEntry(EpsilonDeltaRecord(e)),
            LedgerEntry((GaussianSteps(1.0 / mu_all_rows),)),
        ],
        DELTA,
        "auto",
    )
    assert 0 < e < epsilon
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-6)


def test_selection_epsilon_refuses_when_the_refit_takes_everything():
    with pytest.raises(ValueError, match="refit_share"):
        _selection_epsilon(50.0, 0.5, DELTA)


class _RecordingRng:
    def __init__(self, noise):
        self.noise, self.scales = np.asarray(noise, float), []

    def gumbel(self, *, scale, size):
        self.scales.append(scale)
        return scale * self.noise[:size]


@pytest.mark.parametrize("neighboring, factor", [("add_remove", 1.0), ("replace", 2.0)])
def test_report_noisy_max_scale_is_the_sensitivity_over_epsilon(neighboring, factor):
    rng = _RecordingRng([0.0, 0.0, 0.0])
    report_noisy_max(np.array([1.0, 2.0, 3.0]), 0.25, neighboring, rng)
    assert rng.scales == [factor / 0.25]


def test_report_noisy_max_returns_the_argmax_of_the_noised_counts():
    counts = np.array([10.0, 12.0, 11.0])
    # Noise of scale 1/epsilon = 2 reverses the order of the first two counts.
    assert report_noisy_max(counts, 0.5, "add_remove", _RecordingRng([0, 0, 0])) == 1
    assert report_noisy_max(counts, 0.5, "add_remove", _RecordingRng([2, 0, 0])) == 0
    assert isinstance(
        report_noisy_max(counts, 1.0, "add_remove", _RecordingRng([0] * 3)), int
    )


def test_report_noisy_max_is_the_exponential_mechanism():
    # Gumbel-max samples index j with probability proportional to
    # exp(epsilon * count_j) under add/remove (scale 1 / epsilon).
    counts = np.array([0.0, 1.0, 2.0])
    epsilon = 1.0
    rng = np.random.default_rng(0)
    n = 20000
    picks = np.bincount(
        [report_noisy_max(counts, epsilon, "add_remove", rng) for _ in range(n)],
        minlength=3,
    )
    weights = np.exp(epsilon * counts)
    expected = weights / weights.sum()
    assert np.allclose(picks / n, expected, atol=4 * math.sqrt(0.25 / n))
