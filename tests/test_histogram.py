"""The stable histogram's noise and threshold, in closed form."""

import math

import pytest
from scipy.stats import norm

from sklearn_dpgd.accounting import gdp_delta
from sklearn_dpgd.preprocessing._histogram import stable_histogram_threshold


@pytest.mark.parametrize("d, neighboring", [(1, "add_remove"), (4, "replace")])
def test_histogram_threshold_closed_form(d, neighboring):
    eps, delta = 0.5, 1e-7
    sigma, tau = stable_histogram_threshold(eps, delta, d, neighboring)
    # A singleton value (count 1) passes in any of d columns w.p. delta / 2.
    assert d * norm.sf((tau - 1) / sigma) == pytest.approx(delta / 2, rel=1e-9)
    # The common counts: a Gaussian mechanism of sensitivity sqrt(d) (sqrt(2d)).
    sens = math.sqrt(d) * (1.0 if neighboring == "add_remove" else math.sqrt(2))
    eps_g = eps + math.log1p(-delta / 2)
    assert gdp_delta(sens / sigma, eps_g) == pytest.approx(delta / 2, rel=1e-6)


@pytest.mark.parametrize("delta", [1e-10, 1e-8, 1e-5, 0.3])
@pytest.mark.parametrize("n_features", [1, 3, 14, 200])
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_threshold_is_scipy_norm_isf_bit_for_bit(delta, n_features, neighboring):
    # The threshold's quantile is computed as -ndtri (what norm.isf computes,
    # without its argument handling): the same float, so the same releases.
    epsilon = 0.7
    sigma, tau = stable_histogram_threshold(epsilon, delta, n_features, neighboring)
    assert tau == 1.0 + sigma * float(norm.isf(delta / 2.0 / n_features))
