"""Compiled kernels: the clipped per-example gradient sum of a linear model.

Kernels take only arrays and numbers. They never draw random numbers (noise is drawn
in NumPy by :mod:`sklearn_dpgd._engine._oracle` and added outside), so a kernel gives
the same result with ``NUMBA_DISABLE_JIT=1`` and can be compared with its NumPy twin in
``tests/_reference.py``. Each kernel has a dense and a CSR twin; both are compiled
lazily for the dtype of ``X`` (float32 or float64) and accumulate in float64.

Every per-example gradient of the models here is an outer product ``r_i [x_i, 1]``
of a residual vector ``r_i`` of length ``K`` (one entry per output) with the row, so
its Frobenius norm is ``||r_i|| * ||[x_i, 1]||``: the clip factor is known after
the margins, before the row is read again (from cache) to accumulate. No n-by-d (or
n-by-K-by-d) array is ever formed.

The sum runs over fixed blocks of rows in parallel; each block writes its own partial
sum and the partials are added in block order. The block size depends on the shapes
only, never on the thread count (``BLOCK_ROWS`` rows; more for wide sparse data, see
:func:`_csr_block_rows`), so results are bit-for-bit the same on any number of
threads.

Which twin runs, and on how many threads, is decided per call by
:mod:`sklearn_dpgd._engine._threads`
(:data:`~sklearn_dpgd._engine._threads.SERIAL_WORK`,
:func:`~sklearn_dpgd._engine._threads.fit_threads`,
:class:`~sklearn_dpgd._engine._threads.ThreadChooser`, the threading layer); the kernels
here declare only the work of a call, for that decision.
"""

import math

import numpy as np

from ._losses import HUBER_HINGE

# The threading policy, re-exported: the oracle and the benchmarks import them here.
from ._threads import (  # noqa: F401
    BLOCK_ROWS,
    SERIAL_WORK,
    ThreadChooser,
    _choose_threading_layer,
    _KernelByOutputs,
    _parallel_kernel,
    fit_threads,
)

# Numba is imported with the kernels, and its threading layer chosen before any of
# them can start one (_threads.py).
_choose_threading_layer()

from numba import njit, prange  # noqa: E402

from . import _norm_kernels, _objective_kernels  # noqa: E402
from ._kernel_parts import (  # noqa: E402, F401
    _CSR_ENTRY_WORK,
    _FASTMATH,
    _entries,
    _row_index,
    _rows_read,
    _stored_read,
)
from ._loss_kernels import (  # noqa: E402, F401
    example_loss,
    loss_derivative,
    loss_value,
    residual,
)


@njit(cache=True, inline="always")
def _residuals(margins, yi, loss, h, r):
    """Fill ``r`` (K,) with d loss / d margin of one example; return ``||r||``.

    K == 1: binary, ``yi`` in {0, 1}, signed label ``s = 2 yi - 1``,
    ``r = l'(s m) s``, or regression, ``r = l'(m - yi)`` (``_loss_kernels.residual``).
    K > 1 with the logistic loss: softmax,
    ``r_k = p_k - [yi == k]``. K > 1 with the Huber hinge: one-vs-rest,
    ``r_k = l'(s_k m_k) s_k`` with ``s_k = +1`` if ``yi == k`` else ``-1``.
    """
    K = margins.shape[0]
    if K == 1:
        r[0] = residual(margins[0], yi, loss, h)
        return abs(r[0])
    if loss == HUBER_HINGE:
        for k in range(K):
            s = 1.0 if k == yi else -1.0
            r[k] = loss_derivative(s * margins[k], loss, h) * s
    else:
        top = margins[0]
        for k in range(1, K):
            top = max(top, margins[k])
        total = 0.0
        for k in range(K):
            r[k] = math.exp(margins[k] - top)
            total += r[k]
        for k in range(K):
            r[k] /= total
        r[int(yi)] -= 1.0  # int(): a no-op for labels; the kernel also compiles
        # for the float targets of regression, which never reach this branch (K = 1)
    sq = 0.0
    for k in range(K):
        sq += r[k] * r[k]
    return math.sqrt(sq)


@njit(cache=True, inline="always")
def _clip_scale(r_norm, row_norm, clip_norm):
    """Factor applied to ``r``: 1 if within ``C``, else ``C / ||g||``; 0 if NaN.

    A NaN norm can only come from overflow in a margin (finite but huge inputs); the
    row is then dropped, which keeps its contribution (zero) within the sensitivity.
    """
    g = r_norm * row_norm
    if not (g <= clip_norm or g > clip_norm):
        return 0.0  # NaN: never taken on sane data, so the branch is predicted
    # C / max(g, C) is exactly 1.0 when g <= C and C / g otherwise; written without
    # a branch on g, whose outcome varies unpredictably from row to row.
    return clip_norm / max(g, clip_norm)


@njit(cache=True, inline="always")
def _weighted(scale, weights, i):
    """The clip factor times row ``i``'s weight (``weights`` None: unweighted).

    Weighting the clip factor makes the row's contribution ``w_i clip(g_i, C)``,
    of norm at most ``w_i C``: the sensitivity of the sum scales by the largest
    weight, and the caller calibrates the noise to it. None is pruned when the
    kernel is compiled, so an unweighted call runs the code it ran before weights
    existed (and a weight of exactly 1 gives the same bits: ``scale * 1.0``).
    """
    return scale if weights is None else scale * weights[i]


@njit(cache=True, inline="always")
def _binary_block(
    X, y, w, b0, row_norms, rows, lo, hi, clip_norm, loss, h, acc, weights
):
    """Rows ``lo:hi`` of :func:`clipped_gradient_sum` for one output (K == 1).

    The same arithmetic in the same order as the general loop, so the same sum bit
    for bit, with the margin and residual in scalars instead of length-K arrays:
    the general loop's per-row array traffic cost about 20 ns a row, 3 x the whole
    work of a row at d = 8 and 30% of it on Adult (d = 108).
    """
    d = X.shape[1]
    for ii in range(lo, hi):
        i = _row_index(ii, rows)
        s = b0
        for j in range(d):
            s += X[i, j] * w[j]
        r = residual(s, y[i], loss, h)
        scale = _weighted(_clip_scale(abs(r), row_norms[i], clip_norm), weights, i)
        if scale == 0.0:
            continue  # dropped row (overflowed margin): r may be NaN
        c = scale * r
        if c != 0.0:
            for j in range(d):
                acc[j] += c * X[i, j]
            acc[d] += c


@njit(cache=True, inline="always")
def _binary_block_csr(
    data,
    indices,
    indptr,
    y,
    w,
    b0,
    row_norms,
    rows,
    lo,
    hi,
    clip_norm,
    loss,
    h,
    acc,
    weights,
):
    """Rows ``lo:hi`` of :func:`clipped_gradient_sum_csr` for one output (K == 1);
    the same sum bit for bit as the general loop (see :func:`_binary_block`)."""
    d = acc.shape[0] - 1
    for ii in range(lo, hi):
        i = _row_index(ii, rows)
        start, stop = _entries(indptr, i)
        s = b0
        for p in range(start, stop):
            s += data[p] * w[np.uint64(indices[p])]
        r = residual(s, y[i], loss, h)
        scale = _weighted(_clip_scale(abs(r), row_norms[i], clip_norm), weights, i)
        if scale == 0.0:
            continue
        c = scale * r
        if c != 0.0:
            for p in range(start, stop):
                acc[np.uint64(indices[p])] += c * data[p]
            acc[d] += c


# The options of the dense gradient sums (binary and multiclass kernels alike).
_dense_sum = _parallel_kernel(
    work=lambda X, y, W, b, norms, rows, *_: (
        _rows_read(X.shape[0], rows) * X.shape[1] * W.shape[0]
    ),
    fastmath=_FASTMATH,
)


@_dense_sum
def _binary_gradient_sum(
    X, y, W, b, row_norms, rows, fit_intercept, clip_norm, loss, h, weights=None
):
    """:func:`clipped_gradient_sum` for one output (K == 1): binary and regression."""
    d = X.shape[1]
    n = X.shape[0] if rows is None else rows.shape[0]
    K = W.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.empty((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        # A block-local accumulator (not a view of ``partial``) lets LLVM keep it
        # apart from X and vectorise the update without aliasing checks.
        acc = np.zeros((K, d + 1))
        lo, hi = blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)
        b0 = b[0] if fit_intercept else 0.0
        _binary_block(
            X,
            y,
            W[0],
            b0,
            row_norms,
            rows,
            lo,
            hi,
            clip_norm,
            loss,
            h,
            acc[0],
            weights,
        )
        _store(partial, blk, acc)
    return _finish(partial, fit_intercept)


@_dense_sum
def _multiclass_gradient_sum(
    X, y, W, b, row_norms, rows, fit_intercept, clip_norm, loss, h, weights=None
):
    """:func:`clipped_gradient_sum` for K > 1 outputs (softmax or one-vs-rest)."""
    d = X.shape[1]
    n = X.shape[0] if rows is None else rows.shape[0]
    K = W.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.empty((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        # A block-local accumulator (not a view of ``partial``) lets LLVM keep it
        # apart from X and vectorise the update without aliasing checks.
        acc = np.zeros((K, d + 1))
        lo, hi = blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)
        m = np.empty(K)
        r = np.empty(K)
        for ii in range(lo, hi):
            i = _row_index(ii, rows)
            for k in range(K):
                s = b[k] if fit_intercept else 0.0
                for j in range(d):
                    s += X[i, j] * W[k, j]
                m[k] = s
            scale = _weighted(
                _clip_scale(_residuals(m, y[i], loss, h, r), row_norms[i], clip_norm),
                weights,
                i,
            )
            if scale == 0.0:
                continue  # zero weight, or dropped row (overflowed margins)
            for k in range(K):
                c = scale * r[k]
                if c != 0.0:
                    for j in range(d):
                        acc[k, j] += c * X[i, j]
                    acc[k, d] += c
        _store(partial, blk, acc)
    return _finish(partial, fit_intercept)


clipped_gradient_sum = _KernelByOutputs(
    _binary_gradient_sum, _multiclass_gradient_sum, coef_arg=2
)
clipped_gradient_sum.__doc__ = """Sum over rows of per-example gradients clipped to
    Frobenius norm ``clip_norm``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous float32 or float64
    y : ndarray of shape (n_samples,), int64
        Class index of each row (0 or 1 when K == 1; 0..K-1 otherwise).
    W : ndarray of shape (K, n_features), float64
        Coefficients, one row per output (K = 1 for binary models).
    b : ndarray of shape (K,), float64
        Intercepts (ignored when ``fit_intercept`` is False).
    row_norms : ndarray of shape (n_samples,), float64
        ``||[x_i, 1]||`` (or ``||x_i||`` without intercept), from :func:`row_norms`.
    rows : ndarray of shape (n_rows,), int64, or None
        Indices of the rows to sum (the Poisson sample, drawn outside the kernel,
        for minibatch steps); None sums all rows in order (full-batch steps), with
        no index array to read.
    fit_intercept : bool
    clip_norm : float
        The clipping threshold ``C`` (> 0).
    loss : int
        Loss code from :mod:`sklearn_dpgd._engine._losses`.
    h : float
        Huber width (used by the Huber hinge only).
    weights : ndarray of shape (n_samples,), float64, or None, default=None
        Per-row weights ``w_i`` in ``[0, w_max]`` (validated by the caller), indexed
        like the rows of ``X``; None: every weight is 1 (no array is read).

    Returns
    -------
    grad_sum : ndarray of shape (K, n_features + 1), float64
        ``sum_{i in rows} w_i clip(r_i [x_i, 1], C)``; the last column is the
        intercept's (0 when ``fit_intercept`` is False). Its L2 (Frobenius)
        sensitivity is ``w_max C`` under add/remove-one neighbouring and ``2 w_max
        C`` under replace-one (Hong, Wang & Zhou, FAccT 2022, Algorithm 1, with
        ``w_max = 1`` when unweighted).
    """


# A block's partial sum has K (d + 1) entries however sparse its rows: CSR blocks
# hold at least this many stored entries per partial entry, so that zeroing and
# adding the partials costs at most a sixteenth of the pass over the data (on a
# 200,000 x 20,000 matrix with 20 entries per row, 13 blocks instead of 98).
_STORED_PER_PARTIAL = 16


@njit(cache=True, inline="always")
def _csr_block_rows(n, stored, width):
    """Rows per block of a CSR sum over ``n`` rows holding ``stored`` entries.

    ``BLOCK_ROWS``, or more rows when the ``width``-entry partials would otherwise
    cost more than ``1 / _STORED_PER_PARTIAL`` of the pass. Depends on the shapes
    only (not on the thread count), so the sum is the same on any number of threads.
    """
    max_blocks = max(1, stored // (_STORED_PER_PARTIAL * width))
    return max(BLOCK_ROWS, (n + max_blocks - 1) // max_blocks)


@njit(cache=True, inline="always")
def _csr_blocks(indptr, rows, width):
    """``(n, block, n_blocks)`` of a CSR sum: the rows it reads, rows per block
    (:func:`_csr_block_rows`, on the stored entries it reads, estimated from the
    row count for a sample) and the number of blocks."""
    n_total = indptr.shape[0] - 1
    n = n_total if rows is None else rows.shape[0]
    stored = indptr[n_total] if rows is None else indptr[n_total] * n // max(n_total, 1)
    block = _csr_block_rows(n, stored, width)
    return n, block, (n + block - 1) // block


# The options of the CSR gradient sums. No fastmath: with reassociation LLVM
# vectorises the short gathered and scattered row loops, which made them 1.4 x
# slower (rows of 20 entries).
_csr_sum = _parallel_kernel(
    work=lambda data, indices, indptr, d, y, W, b, norms, rows, *_: (
        _stored_read(data, indptr, rows) * W.shape[0]
    ),
)


@_csr_sum
def _binary_gradient_sum_csr(
    data,
    indices,
    indptr,
    n_features,
    y,
    W,
    b,
    row_norms,
    rows,
    fit_intercept,
    clip_norm,
    loss,
    h,
    weights=None,
):
    """:func:`clipped_gradient_sum_csr` for one output (K == 1)."""
    d = n_features
    K = W.shape[0]
    n, block, n_blocks = _csr_blocks(indptr, rows, K * (d + 1))
    partial = np.zeros((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        # Scattered updates do not vectorise: accumulate in place, with no copy.
        acc = partial[blk]
        lo, hi = blk * block, min(n, (blk + 1) * block)
        b0 = b[0] if fit_intercept else 0.0
        _binary_block_csr(
            data,
            indices,
            indptr,
            y,
            W[0],
            b0,
            row_norms,
            rows,
            lo,
            hi,
            clip_norm,
            loss,
            h,
            acc[0],
            weights,
        )
    return _finish(partial, fit_intercept)


@_csr_sum
def _multiclass_gradient_sum_csr(
    data,
    indices,
    indptr,
    n_features,
    y,
    W,
    b,
    row_norms,
    rows,
    fit_intercept,
    clip_norm,
    loss,
    h,
    weights=None,
):
    """:func:`clipped_gradient_sum_csr` for K > 1 outputs."""
    d = n_features
    K = W.shape[0]
    n, block, n_blocks = _csr_blocks(indptr, rows, K * (d + 1))
    partial = np.zeros((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        # Scattered updates do not vectorise: accumulate in place, with no copy.
        acc = partial[blk]
        lo, hi = blk * block, min(n, (blk + 1) * block)
        m = np.empty(K)
        r = np.empty(K)
        for ii in range(lo, hi):
            i = _row_index(ii, rows)
            start, stop = _entries(indptr, i)
            for k in range(K):
                s = b[k] if fit_intercept else 0.0
                for p in range(start, stop):
                    s += data[p] * W[k, np.uint64(indices[p])]
                m[k] = s
            scale = _weighted(
                _clip_scale(_residuals(m, y[i], loss, h, r), row_norms[i], clip_norm),
                weights,
                i,
            )
            if scale == 0.0:
                continue  # zero weight, or dropped row (overflowed margins)
            for k in range(K):
                c = scale * r[k]
                if c != 0.0:
                    # 2-D indexing, not a view per row (each view costs two
                    # reference-count updates).
                    for p in range(start, stop):
                        acc[k, np.uint64(indices[p])] += c * data[p]
                    acc[k, d] += c
    return _finish(partial, fit_intercept)


clipped_gradient_sum_csr = _KernelByOutputs(
    _binary_gradient_sum_csr, _multiclass_gradient_sum_csr, coef_arg=5
)
clipped_gradient_sum_csr.__doc__ = """CSR twin of :func:`clipped_gradient_sum`: iterates
    the stored entries only.

    ``data``, ``indices``, ``indptr`` are the arrays of a CSR matrix of shape
    (n_samples, n_features) (duplicates summed, any index order); other parameters
    and the result as in :func:`clipped_gradient_sum`.
    """


@njit(cache=True, inline="always")
def _store(partial, blk, acc):
    """``partial[blk] = acc``, written as loops.

    Numba compiles an array assignment (and an in-place array ``+=``) with a
    shape check whose error message needs its string formatting compiled too:
    about 2.3 s of the first fit's compile time, for a check these loops do not
    need (the shapes match by construction).
    """
    for k in range(acc.shape[0]):
        for j in range(acc.shape[1]):
            partial[blk, k, j] = acc[k, j]


@njit(cache=True, inline="always")
def _finish(partial, fit_intercept):
    K, width = partial.shape[1], partial.shape[2]
    out = np.zeros((K, width))
    for blk in range(partial.shape[0]):  # the same order of sums as before
        for k in range(K):
            for j in range(width):
                out[k, j] += partial[blk, k, j]
    if not fit_intercept:
        for k in range(K):
            out[k, width - 1] = 0.0
    return out


# The row-norm and objective kernels live in their own modules; the backends read
# them here.
row_norms, row_norms_csr = _norm_kernels.row_norms, _norm_kernels.row_norms_csr
clipped_objective_along = _objective_kernels.clipped_objective_along
clipped_objective_along_csr = _objective_kernels.clipped_objective_along_csr
