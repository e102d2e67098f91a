import numpy as np
import pytest

from sklearn_dpgd import _losses
from sklearn_dpgd._kernels import BLOCK_ROWS, clipped_gradient_sum

from . import _reference as ref


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
def test_scalar_losses_match_reference(loss):
    z = np.concatenate([np.linspace(-40, 40, 2001), [0.5, 1.0, 1.5, -750.0, 750.0]])
    code = _losses.LOSS_CODES[loss]
    got_d = np.array([_losses.loss_derivative(v, code, 0.5) for v in z])
    got_v = np.array([_losses.loss_value(v, code, 0.5) for v in z])
    np.testing.assert_allclose(
        got_d, ref.loss_derivative(z, loss), rtol=1e-12, atol=1e-300
    )
    np.testing.assert_allclose(got_v, ref.loss_value(z, loss), rtol=1e-12, atol=1e-300)
    assert np.all(np.isfinite(got_v)) and np.all((got_d >= -1) & (got_d <= 0))


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
def test_derivative_is_derivative_of_value(loss):
    code = _losses.LOSS_CODES[loss]
    z = np.array([-3.0, -0.3, 0.2, 0.7, 1.2, 1.4, 2.5])
    eps = 1e-6
    num = [
        (
            _losses.loss_value(v + eps, code, 0.5)
            - _losses.loss_value(v - eps, code, 0.5)
        )
        / (2 * eps)
        for v in z
    ]
    got = [_losses.loss_derivative(v, code, 0.5) for v in z]
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("clip_norm", [0.05, 1.0, 100.0])
# More rows than one block, and not a multiple of it, to exercise the block split.
@pytest.mark.parametrize("n", [7, BLOCK_ROWS * 2 + 13])
def test_clipped_gradient_sum_matches_reference(loss, fit_intercept, clip_norm, n):
    rng = np.random.default_rng(0)
    d = 9
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 3, size=(n, 1))
    y = rng.choice([-1.0, 1.0], size=n)
    coef = rng.standard_normal(d)
    got = clipped_gradient_sum(
        X, y, coef, 0.3, fit_intercept, clip_norm, _losses.LOSS_CODES[loss], 0.5
    )
    want = ref.clipped_gradient_sum(X, y, coef, 0.3, fit_intercept, clip_norm, loss)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * n * clip_norm)
    if not fit_intercept:
        assert got[-1] == 0.0


def test_each_row_contributes_at_most_clip_norm():
    # Sensitivity: removing any one row moves the sum by at most C.
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 4)) * 10
    y = rng.choice([-1.0, 1.0], size=50)
    coef = rng.standard_normal(4)
    C = 0.7
    full = clipped_gradient_sum(X, y, coef, 0.0, True, C, 0, 0.5)
    for i in range(50):
        keep = np.arange(50) != i
        part = clipped_gradient_sum(X[keep], y[keep], coef, 0.0, True, C, 0, 0.5)
        assert np.linalg.norm(full - part) <= C * (1 + 1e-12)


def test_result_does_not_depend_on_thread_count():
    numba = pytest.importorskip("numba")
    rng = np.random.default_rng(2)
    X = rng.standard_normal((BLOCK_ROWS * 5 + 1, 6))
    y = rng.choice([-1.0, 1.0], size=X.shape[0])
    coef = rng.standard_normal(6)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = clipped_gradient_sum(X, y, coef, 0.1, True, 1.0, 0, 0.5)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = clipped_gradient_sum(X, y, coef, 0.1, True, 1.0, 0, 0.5)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)
