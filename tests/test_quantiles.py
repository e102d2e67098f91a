"""The exponential-mechanism quantile: its weights, its sampler, its privacy loss."""

import math

import numpy as np
import pytest

from sklearn_dpgd.preprocessing._quantiles import (
    _dp_quantile,
    exponential_quantile_log_weights,
)


def test_quantile_weights_match_direct_computation():
    # Points 1, 2 in [0, 4], median, epsilon 1: intervals [0,1], [1,2], [2,4]
    # with 0, 1, 2 points below; u = -|k - 1|.
    edges, log_w = exponential_quantile_log_weights(np.array([2.0, 1.0]), 0, 4, 0.5, 1)
    np.testing.assert_allclose(edges, [0, 1, 2, 4])
    expected = np.log([1 * math.exp(-0.5), 1.0, 2 * math.exp(-0.5)])
    np.testing.assert_allclose(log_w, expected)


def test_quantile_sampler_frequencies():
    rng = np.random.default_rng(1)
    draws = np.array(
        [_dp_quantile(np.array([1.0, 2.0]), 0, 4, 0.5, 1.0, rng) for _ in range(8000)]
    )
    p_mid = 1.0 / (1.0 + 3.0 * math.exp(-0.5))
    freq = np.mean((draws > 1) & (draws < 2))
    assert abs(freq - p_mid) < 4 * math.sqrt(p_mid * (1 - p_mid) / 8000)
    assert draws.min() >= 0 and draws.max() <= 4


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
def test_quantile_privacy_loss_is_bounded_by_epsilon(q):
    # Exact check on neighbours (one row added) over a fine grid of outputs t:
    # the unnormalised log-density moves by at most epsilon/2 * max(q, 1 - q)
    # (attained), and so does the log-normaliser, so the density ratio is within
    # exp(epsilon).
    eps, lo, hi = 0.7, 0.0, 10.0
    grid = np.linspace(0.01, 9.99, 2000)

    def log_density(x):
        edges, log_w = exponential_quantile_log_weights(x, lo, hi, q, eps)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_dens = log_w - np.log(np.diff(edges))
        k = np.searchsorted(edges, grid, side="right") - 1
        return log_dens[k], np.logaddexp.reduce(log_w)

    x = np.array([1.0, 3.0, 3.5, 7.0])
    dens, log_z = log_density(x)
    worst = 0.0
    for extra in (0.5, 3.2, 9.0):
        dens2, log_z2 = log_density(np.append(x, extra))
        worst = max(worst, np.max(np.abs(dens2 - dens)))
        assert abs(log_z2 - log_z) <= eps / 2 + 1e-12
    assert worst == pytest.approx(eps / 2 * max(q, 1 - q), rel=1e-9)
