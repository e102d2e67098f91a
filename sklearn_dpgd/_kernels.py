"""Compiled kernels: the clipped per-example gradient sum of a linear model.

Kernels take only arrays and numbers. They never draw random numbers (noise is drawn
in NumPy by :mod:`sklearn_dpgd._oracle` and added outside), so a kernel gives the same
result with ``NUMBA_DISABLE_JIT=1`` and can be compared with its NumPy twin in
``tests/_reference.py``. Each kernel has a dense and a CSR twin; both are compiled
lazily for the dtype of ``X`` (float32 or float64) and accumulate in float64.

Every per-example gradient of the models here is an outer product ``r_i [x_i, 1]``
of a residual vector ``r_i`` of length ``K`` (one entry per output) with the row, so
its Frobenius norm is ``||r_i|| * ||[x_i, 1]||``: the clip factor is known after
the margins, before the row is read again (from cache) to accumulate. No n-by-d (or
n-by-K-by-d) array is ever formed.

The sum runs over fixed blocks of rows in parallel; each block writes its own partial
sum and the partials are added in block order. The block size is a constant, not the
thread count, so results are bit-for-bit the same on any number of threads.
"""

import math

import numpy as np
from numba import njit, prange

from ._losses import HUBER_HINGE, loss_derivative

# Rows per block of the parallel sum. Large enough that the per-block overhead
# (one K-by-(d+1) partial) is negligible, small enough for load balance.
BLOCK_ROWS = 2048

# Reassociation lets LLVM vectorise dot products; inputs are validated finite before
# they reach the kernel and NaN from overflow is caught by an explicit comparison.
_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, inline="always")
def _residuals(margins, yi, loss, h, r):
    """Fill ``r`` (K,) with d loss / d margin of one example; return ``||r||``.

    K == 1: binary, ``yi`` in {0, 1}, signed label ``s = 2 yi - 1``,
    ``r = l'(s m) s``. K > 1 with the logistic loss: softmax,
    ``r_k = p_k - [yi == k]``. K > 1 with the Huber hinge: one-vs-rest,
    ``r_k = l'(s_k m_k) s_k`` with ``s_k = +1`` if ``yi == k`` else ``-1``.
    """
    K = margins.shape[0]
    if K == 1:
        s = 2.0 * yi - 1.0
        r[0] = loss_derivative(s * margins[0], loss, h) * s
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
        r[yi] -= 1.0
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
    if g <= clip_norm:
        return 1.0
    if g > clip_norm:
        return clip_norm / g
    return 0.0


@njit(cache=True, fastmath=_FASTMATH, parallel=True)
def clipped_gradient_sum(
    X, y, W, b, row_norms, rows, fit_intercept, clip_norm, loss, h
):
    """Sum over rows of per-example gradients clipped to Frobenius norm ``clip_norm``.

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
    rows : ndarray of shape (n_rows,), int64
        Indices of the rows to sum (all rows for full-batch steps; the Poisson
        sample, drawn outside the kernel, for minibatch steps).
    fit_intercept : bool
    clip_norm : float
        The clipping threshold ``C`` (> 0).
    loss : int
        Loss code from :mod:`sklearn_dpgd._losses`.
    h : float
        Huber width (used by the Huber hinge only).

    Returns
    -------
    grad_sum : ndarray of shape (K, n_features + 1), float64
        ``sum_{i in rows} clip(r_i [x_i, 1], C)``; the last column is the intercept's
        (0 when
        ``fit_intercept`` is False). Its L2 (Frobenius) sensitivity is ``C`` under
        add/remove-one neighbouring (``../shared/algorithms.md``, Notation).
    """
    d = X.shape[1]
    n = rows.shape[0]
    K = W.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.zeros((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        acc = partial[blk]
        m = np.empty(K)
        r = np.empty(K)
        for ii in range(blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)):
            i = rows[ii]
            for k in range(K):
                s = b[k] if fit_intercept else 0.0
                for j in range(d):
                    s += X[i, j] * W[k, j]
                m[k] = s
            scale = _clip_scale(
                _residuals(m, y[i], loss, h, r), row_norms[i], clip_norm
            )
            if scale == 0.0:
                continue  # dropped row (overflowed margins): r may hold NaN
            for k in range(K):
                c = scale * r[k]
                if c != 0.0:
                    for j in range(d):
                        acc[k, j] += c * X[i, j]
                    acc[k, d] += c
    return _finish(partial, fit_intercept)


@njit(cache=True, fastmath=_FASTMATH, parallel=True)
def clipped_gradient_sum_csr(
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
):
    """CSR twin of :func:`clipped_gradient_sum`: iterates the stored entries only.

    ``data``, ``indices``, ``indptr`` are the arrays of a CSR matrix of shape
    (n_samples, n_features) (duplicates summed, any index order); other parameters
    and the result as in :func:`clipped_gradient_sum`.
    """
    n = rows.shape[0]
    d = n_features
    K = W.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.zeros((n_blocks, K, d + 1))
    for blk in prange(n_blocks):
        acc = partial[blk]
        m = np.empty(K)
        r = np.empty(K)
        for ii in range(blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)):
            i = rows[ii]
            start, stop = indptr[i], indptr[i + 1]
            for k in range(K):
                s = b[k] if fit_intercept else 0.0
                for p in range(start, stop):
                    s += data[p] * W[k, indices[p]]
                m[k] = s
            scale = _clip_scale(
                _residuals(m, y[i], loss, h, r), row_norms[i], clip_norm
            )
            if scale == 0.0:
                continue  # dropped row (overflowed margins): r may hold NaN
            for k in range(K):
                c = scale * r[k]
                if c != 0.0:
                    for p in range(start, stop):
                        acc[k, indices[p]] += c * data[p]
                    acc[k, d] += c
    return _finish(partial, fit_intercept)


@njit(cache=True)
def _finish(partial, fit_intercept):
    out = np.zeros(partial.shape[1:])
    for blk in range(partial.shape[0]):
        out += partial[blk]
    if not fit_intercept:
        out[:, -1] = 0.0
    return out


@njit(cache=True, inline="always")
def _safe_norm(values, intercept):
    # ||[v, 1]|| without overflow for entries up to the float64 maximum.
    top = 0.0
    for v in values:
        top = max(top, abs(v))
    if top == 0.0:
        return 1.0 if intercept else 0.0
    s = 0.0
    for v in values:
        u = v / top
        s += u * u
    norm = top * math.sqrt(s)
    return math.hypot(norm, 1.0) if intercept else norm


@njit(cache=True, parallel=True)
def row_norms(X, fit_intercept):
    """``||[x_i, 1]||`` (or ``||x_i||``) of each row, shape (n_samples,), float64.

    Computed once per fit, scaled so that finite rows never overflow to inf.
    """
    n = X.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = _safe_norm(X[i], fit_intercept)
    return out


@njit(cache=True, parallel=True)
def row_norms_csr(data, indptr, fit_intercept):
    """CSR twin of :func:`row_norms`."""
    n = indptr.shape[0] - 1
    out = np.empty(n)
    for i in prange(n):
        out[i] = _safe_norm(data[indptr[i] : indptr[i + 1]], fit_intercept)
    return out
