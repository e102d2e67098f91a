import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_dpgd._engine import _kernels, _losses
from sklearn_dpgd._engine._kernels import (
    BLOCK_ROWS,
    _csr_block_rows,
    clipped_gradient_sum,
    clipped_gradient_sum_csr,
    row_norms,
    row_norms_csr,
)

from . import _reference as ref


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
def test_scalar_losses_match_reference(loss):
    z = np.concatenate([np.linspace(-40, 40, 2001), [0.5, 1.0, 1.5, -750.0, 750.0]])
    code = _losses.LOSS_CODES[loss]
    got_d = np.array([_kernels.loss_derivative(v, code, 0.5) for v in z])
    got_v = np.array([_kernels.loss_value(v, code, 0.5) for v in z])
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
            _kernels.loss_value(v + eps, code, 0.5)
            - _kernels.loss_value(v - eps, code, 0.5)
        )
        / (2 * eps)
        for v in z
    ]
    got = [_kernels.loss_derivative(v, code, 0.5) for v in z]
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def _problem(n, d, K, seed=0, density=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 3, size=(n, 1))
    if density is not None:
        X[rng.random((n, d)) > density] = 0.0
    n_classes = 2 if K == 1 else K
    y = rng.integers(0, n_classes, size=n).astype(np.int64)
    W = rng.standard_normal((K, d))
    b = rng.standard_normal(K)
    return X, y, W, b


def _kernel(X, y, W, b, fit_intercept, clip_norm, loss, h=0.5, rows=None, weights=None):
    code = _losses.LOSS_CODES[loss]
    if sp.issparse(X):
        norms = row_norms_csr(X.data, X.indptr, fit_intercept)
        return clipped_gradient_sum_csr(
            X.data,
            X.indices,
            X.indptr,
            X.shape[1],
            y,
            W,
            b,
            norms,
            rows,
            fit_intercept,
            clip_norm,
            code,
            h,
            weights,
        )
    norms = row_norms(X, fit_intercept)
    return clipped_gradient_sum(
        X, y, W, b, norms, rows, fit_intercept, clip_norm, code, h, weights
    )


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("K", [1, 4])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("clip_norm", [0.05, 1.0, 100.0])
# More rows than one block, and not a multiple of it, to exercise the block split.
@pytest.mark.parametrize("n", [7, BLOCK_ROWS * 2 + 13])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_clipped_gradient_sum_matches_reference(
    loss, K, fit_intercept, clip_norm, n, fmt
):
    X, y, W, b = _problem(n, 9, K, density=0.4 if fmt == "csr" else None)
    Xk = sp.csr_matrix(X) if fmt == "csr" else X
    got = _kernel(Xk, y, W, b, fit_intercept, clip_norm, loss)
    want = ref.clipped_gradient_sum(X, y, W, b, fit_intercept, clip_norm, loss)
    assert got.shape == (K, 10)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * n * clip_norm)
    if not fit_intercept:
        assert np.all(got[:, -1] == 0.0)


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("K", [1, 4])
@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
def test_weighted_sum_matches_reference(loss, K, fmt):
    n = BLOCK_ROWS + 29
    X, y, W, b = _problem(n, 7, K, seed=3, density=0.5 if fmt == "csr" else None)
    X = X.astype(np.float32) if fmt == "float32" else X
    Xk = sp.csr_matrix(X) if fmt == "csr" else X
    weights = np.random.default_rng(4).uniform(0.0, 2.5, size=n)
    weights[::7] = 0.0
    got = _kernel(Xk, y, W, b, True, 0.3, loss, weights=weights)
    want = ref.clipped_gradient_sum(
        X.astype(np.float64), y, W, b, True, 0.3, loss, weights=weights
    )
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * n)
    # A row sample reads the weights of the sampled rows (indexed like X).
    rows = np.arange(0, n, 3, dtype=np.int64)
    got = _kernel(Xk, y, W, b, True, 0.3, loss, rows=rows, weights=weights)
    want = ref.clipped_gradient_sum(
        X[rows].astype(np.float64),
        y[rows],
        W,
        b,
        True,
        0.3,
        loss,
        weights=weights[rows],
    )
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * n)


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_unit_weights_give_the_unweighted_sum_bit_for_bit(K, fmt):
    X, y, W, b = _problem(BLOCK_ROWS + 5, 6, K, seed=5, density=0.4)
    Xk = sp.csr_matrix(X) if fmt == "csr" else X
    ones = np.ones(X.shape[0])
    assert np.array_equal(
        _kernel(Xk, y, W, b, True, 0.5, "logistic", weights=ones),
        _kernel(Xk, y, W, b, True, 0.5, "logistic"),
    )


def test_each_weighted_row_contributes_at_most_its_weight_times_clip_norm():
    # The weighted sum's sensitivity is w_max C: removing row i moves it by
    # exactly w_i ||clip(g_i)|| <= w_i C, and by w_max C for a clipped row of
    # weight w_max (the bound is attained, so C alone would be too small).
    X, y, W, b = _problem(30, 4, 3, seed=2)
    X *= 10  # every row clipped: moderate margins, long rows
    W *= 0.01
    C, w_max = 0.7, 3.0
    weights = np.full(30, w_max)
    weights[1::2] = 0.5
    full = _kernel(X, y, W, b, True, C, "logistic", weights=weights)
    for i in range(30):
        keep = np.arange(30) != i
        part = _kernel(
            X[keep], y[keep], W, b, True, C, "logistic", weights=weights[keep]
        )
        moved = np.linalg.norm(full - part)
        assert moved <= weights[i] * C * (1 + 1e-9)
        np.testing.assert_allclose(moved, weights[i] * C, rtol=1e-9)


@pytest.mark.parametrize("K", [1, 3])
def test_csr_equals_dense_and_ignores_index_order(K):
    X, y, W, b = _problem(500, 12, K, density=0.3)
    dense = _kernel(X, y, W, b, True, 0.5, "logistic")
    csr = sp.csr_matrix(X)
    # Reverse the column order inside each row: the kernel must not rely on sorting.
    for i in range(csr.shape[0]):
        lo, hi = csr.indptr[i], csr.indptr[i + 1]
        csr.indices[lo:hi] = csr.indices[lo:hi][::-1].copy()
        csr.data[lo:hi] = csr.data[lo:hi][::-1].copy()
    csr.has_sorted_indices = False
    np.testing.assert_allclose(
        _kernel(csr, y, W, b, True, 0.5, "logistic"), dense, rtol=1e-12, atol=1e-13
    )


def test_float32_input_is_read_as_float32_and_accumulated_in_float64():
    X, y, W, b = _problem(300, 6, 1)
    X32 = X.astype(np.float32)
    got = _kernel(X32, y, W, b, True, 1.0, "logistic")
    want = ref.clipped_gradient_sum(
        X32.astype(np.float64), y, W, b, True, 1.0, "logistic"
    )
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_each_row_contributes_at_most_clip_norm():
    # Sensitivity: removing any one row moves the sum by at most C (Frobenius).
    for K, loss in [(1, "logistic"), (3, "logistic"), (3, "huber_hinge")]:
        X, y, W, b = _problem(40, 4, K, seed=1)
        X *= 10
        C = 0.7
        full = _kernel(X, y, W, b, True, C, loss)
        for i in range(40):
            keep = np.arange(40) != i
            part = _kernel(X[keep], y[keep], W, b, True, C, loss)
            assert np.linalg.norm(full - part) <= C * (1 + 1e-12)


def test_extreme_rows_are_clipped_not_nan():
    X, y, W, b = _problem(20, 5, 3)
    X[0] = 1e300
    X[1, 0] = -1e300
    W *= 1e10  # margins overflow to inf and inf - inf
    for fmt in ("dense", "csr"):
        Xk = sp.csr_matrix(X) if fmt == "csr" else X
        norms = row_norms(X, True)
        assert np.all(np.isfinite(norms))
        g = _kernel(Xk, y, W, b, True, 1.0, "logistic")
        assert np.all(np.isfinite(g))
        assert np.linalg.norm(g) <= 20 * 1.0


def test_row_norms_are_safe_and_exact():
    X = np.array([[3.0, 4.0], [1e300, 1e300], [0.0, 0.0]])
    np.testing.assert_allclose(row_norms(X, False), [5.0, np.sqrt(2) * 1e300, 0.0])
    np.testing.assert_allclose(
        row_norms(X, True), [np.sqrt(26), np.sqrt(2) * 1e300, 1.0]
    )
    csr = sp.csr_matrix(X)
    np.testing.assert_allclose(
        row_norms_csr(csr.data, csr.indptr, True), row_norms(X, True)
    )


def test_result_does_not_depend_on_thread_count():
    import numba

    X, y, W, b = _problem(BLOCK_ROWS * 5 + 1, 6, 2)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _kernel(X, y, W, b, True, 1.0, "logistic")
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = _kernel(X, y, W, b, True, 1.0, "logistic")
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("K", [1, 3])
def test_all_rows_without_index_array_is_bit_identical(fmt, K):
    # rows=None (the full-batch path, no index array) must sum exactly what the
    # explicit index array 0..n-1 sums, in the same order and blocks.
    X, y, W, b = _problem(BLOCK_ROWS * 2 + 13, 7, K, density=0.5)
    Xk = sp.csr_matrix(X) if fmt == "csr" else X
    full = _kernel(Xk, y, W, b, True, 0.6, "logistic")
    indexed = _kernel(Xk, y, W, b, True, 0.6, "logistic", rows=np.arange(len(y)))
    np.testing.assert_array_equal(full, indexed)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("K", [1, 3])
def test_rows_subset_sums_only_the_sampled_rows(fmt, K):
    X, y, W, b = _problem(BLOCK_ROWS + 300, 7, K, density=0.5)
    rows = np.flatnonzero(np.random.default_rng(3).random(X.shape[0]) < 0.3)
    Xk = sp.csr_matrix(X) if fmt == "csr" else X
    got = _kernel(Xk, y, W, b, True, 0.6, "logistic", rows=rows)
    want = ref.clipped_gradient_sum(X[rows], y[rows], W, b, True, 0.6, "logistic")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-11)
    empty = _kernel(Xk, y, W, b, True, 0.6, "logistic", rows=rows[:0])
    assert empty.shape == (K, 8) and np.all(empty == 0.0)


def test_csr_blocks_grow_with_the_width_of_the_partial_sums():
    # 200,000 x 20,000 with 20 entries per row: 13 blocks (not 98 of BLOCK_ROWS
    # rows), so zeroing and adding the partials costs 1/16 of the pass.
    block = _csr_block_rows(200_000, 4_000_000, 20_001)
    assert block > BLOCK_ROWS and -(-200_000 // block) <= 13
    assert _csr_block_rows(200_000, 4_000_000, 11) == BLOCK_ROWS


# K = 3 compiles the parallel multiclass CSR kernel for this test alone (~60 s on
# a loaded machine): slow set.
@pytest.mark.parametrize("K", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_wide_sparse_sum_in_few_blocks_matches_reference(K):
    # Wide and sparse: a few entries per row, so all rows fall in one block.
    n, d = BLOCK_ROWS * 3 + 5, 400
    X, y, W, b = _problem(n, d, K, density=0.004)
    assert _csr_block_rows(n, np.count_nonzero(X), K * (d + 1)) >= n
    csr = sp.csr_matrix(X)
    got = _kernel(csr, y, W, b, True, 0.5, "logistic")
    want = ref.clipped_gradient_sum(X, y, W, b, True, 0.5, "logistic")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * n * 0.5)
    norms = row_norms_csr(csr.data, csr.indptr, True)
    args = (csr.data, csr.indices, csr.indptr, d, y, W, b, norms, None, True, 0.5)
    np.testing.assert_array_equal(
        clipped_gradient_sum_csr.serial(*args, _losses.LOGISTIC, 0.5),
        clipped_gradient_sum_csr.parallel(*args, _losses.LOGISTIC, 0.5),
    )


def test_row_norms_of_tiny_rows_and_large_float32_rows():
    # One pass of float64 squares, with a scaled second pass when they underflow.
    tiny = np.array([[3e-200, 4e-200], [0.0, 1e-310]])
    np.testing.assert_allclose(row_norms(tiny, False), [5e-200, 1e-310], rtol=1e-12)
    big32 = np.array([[3e30, 4e30]], dtype=np.float32)  # squares overflow float32
    np.testing.assert_allclose(row_norms(big32, False), [5e30], rtol=1e-6)
    csr = sp.csr_matrix(tiny)
    np.testing.assert_allclose(
        row_norms_csr(csr.data, csr.indptr, False), [5e-200, 1e-310], rtol=1e-12
    )
