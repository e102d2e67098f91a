"""The frozen records of what ran (accounting/_records.py): plain numbers,
validation, and each record's own RDP."""

import math

import numpy as np
import pytest

from sklearn_dpgd.accounting import (
    GaussianSteps,
    SparseVectorSteps,
    poisson_amplified_rdp,
    sparse_vector_rdp,
)


def test_gaussian_steps_hold_plain_python_numbers():
    # A ledger entry reads, compares and pickles the same whichever fit path built
    # it (the PLD calibration returns NumPy scalars).
    record = GaussianSteps(np.float64(3.2), np.float64(0.5), np.int64(7))
    assert type(record.noise_multiplier) is float
    assert type(record.sampling_rate) is float
    assert type(record.count) is int
    assert (
        repr(record)
        == "GaussianSteps(noise_multiplier=3.2, sampling_rate=0.5, count=7)"
    )
    assert record == GaussianSteps(3.2, 0.5, 7)


@pytest.mark.parametrize("q", [0.1, 0.01, 1.0])
def test_laplace_sparse_vector_rdp_is_the_smaller_valid_bound(q):
    # Two valid RDP bounds of a (Poisson-subsampled) Laplace line search; the
    # record charges the smaller: Chen & Lee's amplified by Zhu & Wang, and the
    # search's pure epsilon_BT-DP amplified by subsampling, then converted.
    budget, count = 0.005, 3
    record = SparseVectorSteps(budget, "laplace", q, count)
    amplified = math.log1p(q * math.expm1(budget))
    for order in (2, 10, 100):
        chen_lee = count * (
            float(sparse_vector_rdp([order], budget)[0])
            if q == 1.0
            else poisson_amplified_rdp(lambda o: sparse_vector_rdp(o, budget), q, order)
        )
        pure = count * min(amplified, 0.5 * order * amplified**2)
        assert record.rdp(order) == pytest.approx(min(chen_lee, pure), rel=1e-12)
    # Gaussian searches keep Chen & Lee's bound alone.
    gaussian = SparseVectorSteps(budget, "gaussian", q)
    assert gaussian.rdp(10) == pytest.approx(
        float(sparse_vector_rdp([10], budget, "gaussian")[0])
        if q == 1.0
        else poisson_amplified_rdp(
            lambda o: sparse_vector_rdp(o, budget, "gaussian"), q, 10
        ),
        rel=1e-12,
    )


def test_gaussian_steps_fields_keep_their_type_checks_on_the_fast_path():
    # Plain floats and ints skip the abstract-class checks; everything else is
    # still checked, and stored as plain Python numbers.
    record = GaussianSteps(np.float64(2.0), np.float32(0.5), np.int64(3))
    fields = (record.noise_multiplier, record.sampling_rate, record.count)
    assert fields == (2.0, 0.5, 3)
    assert type(record.noise_multiplier) is float and type(record.count) is int
    assert GaussianSteps(2, 1, 1) == GaussianSteps(2.0, 1.0, 1)
    with pytest.raises(TypeError, match="noise_multiplier"):
        GaussianSteps(True)
    with pytest.raises(TypeError, match="sampling_rate"):
        GaussianSteps(1.0, "1")
    for count in (True, 2.0, 0, -1):
        with pytest.raises(ValueError, match="count"):
            GaussianSteps(1.0, 1.0, count)
    for z in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="noise_multiplier"):
            GaussianSteps(z)
