"""The base of the private transformers: bounds checking and spend attributes."""

import math

import numpy as np
import pytest

from sklearn_dpgd.accounting import EpsilonDeltaRecord, GaussianSteps, gdp_epsilon
from sklearn_dpgd.preprocessing._base import _check_bounds, _PrivateTransformer


def test_check_bounds_tiles_a_pair_and_keeps_a_table():
    np.testing.assert_array_equal(_check_bounds((0, 2), 3, "bounds"), [[0.0, 2.0]] * 3)
    table = [[0, 1], [-1, 5]]
    np.testing.assert_array_equal(_check_bounds(table, 2, "bounds"), table)


@pytest.mark.parametrize(
    "bounds, match",
    [
        ([[0, 1]], r"shape \(n_features, 2\)"),
        ((1, 0), "lo < hi"),
        ((0, math.inf), "finite"),
        ([[0, 1], [2, 2]], "lo < hi"),
    ],
)
def test_check_bounds_names_the_parameter(bounds, match):
    with pytest.raises(ValueError, match=match):
        _check_bounds(bounds, 2, "bounds_range")
    with pytest.raises(ValueError, match="bounds_range"):
        _check_bounds(bounds, 2, "bounds_range")


class _Transformer(_PrivateTransformer):
    def __init__(self, delta=1e-6):
        self.delta = delta


@pytest.mark.parametrize(
    "mechanism, epsilon, delta",
    [
        (None, 0.0, 0.0),
        (EpsilonDeltaRecord(0.3, 1e-7), 0.3, 1e-7),
        ((GaussianSteps(2.0, count=4),), gdp_epsilon(1.0, 1e-6), 1e-6),
    ],
)
def test_set_spend_reports_what_ran(mechanism, epsilon, delta):
    t = _Transformer()
    t._set_spend(mechanism)
    assert t.epsilon_ == pytest.approx(epsilon, rel=1e-12)
    assert t.delta_ == delta
    assert t.ledger_ == (() if mechanism is None else mechanism)
