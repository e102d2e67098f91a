"""Compiled kernels of the private step-size selections: clipped objective sums
along a direction, for many step sizes in one pass over the rows.

Imported by :mod:`sklearn_dpgd._engine._kernels` only (hence with Numba, when a fit
first needs the kernels), which re-exports them; the NumPy twin is
:func:`sklearn_dpgd._engine._twins.clipped_objective_along`.
"""

import math

import numpy as np
from numba import njit, prange

from ._kernel_parts import _FASTMATH, _entries, _stored_read
from ._loss_kernels import example_loss, loss_value
from ._losses import HUBER_HINGE, LOGISTIC
from ._threads import BLOCK_ROWS, _parallel_kernel

__all__ = ["clipped_objective_along", "clipped_objective_along_csr"]

# Binary logistic fast path: rows per flush of the running products (each factor is
# at most e^C_obj; 32 factors stay far from overflow for C_obj <= 20).
_PRODUCT_ROWS = 32
_MAX_PRODUCT_CLIP = 20.0


@njit(cache=True, inline="always")
def _clipped_losses_along(u, v, yi, etas, loss, h, objective_clip, out, weight):
    """Add ``weight min(l(u - eta v), C_obj)`` of one example to ``out[j]`` for each
    eta (``weight`` 1.0 when unweighted: the same bits as without it).

    ``u`` (K,) are the margins at the current point and ``v`` (K,) the margins of
    the direction, so the candidate ``theta - eta D`` has margins ``u - eta v``.
    K == 1: sigmoid or Huber of the signed margin, or a regression loss; K > 1:
    softmax cross-entropy (logistic) or the sum of one-vs-rest Huber losses. A loss
    that is NaN (overflow) counts as ``C_obj``: every term stays in ``[0, C_obj]``.
    """
    K = u.shape[0]
    for j in range(etas.shape[0]):
        eta = etas[j]
        if K == 1:
            val = example_loss(u[0] - eta * v[0], yi, loss, h)
        elif loss == HUBER_HINGE:
            val = 0.0
            for k in range(K):
                s = 1.0 if k == yi else -1.0
                val += loss_value(s * (u[k] - eta * v[k]), loss, h)
        else:
            top = u[0] - eta * v[0]
            for k in range(1, K):
                top = max(top, u[k] - eta * v[k])
            total = 0.0
            for k in range(K):
                total += math.exp(u[k] - eta * v[k] - top)
            yk = int(yi)  # as in _residuals: labels only (K > 1)
            val = top + math.log(total) - (u[yk] - eta * v[yk])
        if not val <= objective_clip:
            val = objective_clip
        out[j] += val * weight


@njit(cache=True, inline="always")
def _logistic_factors_along(t, w, etas, uniform, objective_clip, prod):
    """Multiply ``prod[j]`` by ``min(1 + exp(-(t - eta_j w)), e^C_obj)``.

    ``t`` and ``w`` are the signed margins of the point and of the direction, so
    the candidate's loss is ``log(1 + exp(-(t - eta_j w)))`` and
    ``min(l, C_obj) = log(min(1 + e^{-z}, e^C_obj))``: the sum over rows of the
    clipped losses is the log of a product, taken once per block of rows instead of
    one logarithm per row and candidate. With ``uniform`` (``eta_j = j eta_1``) the
    exponentials follow a geometric progression: one ``exp`` per row.
    """
    cap = math.exp(objective_clip)
    z_clip = -math.log(math.expm1(objective_clip))  # l(z) >= C_obj iff z <= z_clip
    valid = False
    e = 0.0
    ratio = math.exp(etas[1] * w) if uniform and etas.shape[0] > 1 else 1.0
    for j in range(etas.shape[0]):
        z = t - etas[j] * w
        if not z > z_clip:  # clipped (or NaN from overflow): the factor is e^C
            prod[j] *= cap
            valid = False
            continue
        if uniform and valid:
            e *= ratio
        else:
            e = math.exp(-z)  # z > z_clip, so e < e^C stays finite
            valid = True
        f = 1.0 + e
        prod[j] *= f if f < cap else cap


@_parallel_kernel(
    work=lambda X, y, W, b, D, db, etas, rows, *_: (
        rows.shape[0] * (2 * X.shape[1] * W.shape[0] + etas.shape[0])
    ),
    fastmath=_FASTMATH,
)
def _objective_blocks(
    X,
    y,
    W,
    b,
    D,
    db,
    etas,
    rows,
    fit_intercept,
    objective_clip,
    loss,
    h,
    uniform,
    fast,
    weights,
):
    d = X.shape[1]
    n = rows.shape[0]
    K = W.shape[0]
    n_eta = etas.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.zeros((n_blocks, n_eta))
    for blk in prange(n_blocks):
        u = np.empty(K)
        v = np.empty(K)
        acc = partial[blk]
        prod = np.ones(n_eta)
        count = 0
        for ii in range(blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)):
            i = rows[ii]
            for k in range(K):
                su = b[k] if fit_intercept else 0.0
                sv = db[k] if fit_intercept else 0.0
                for j in range(d):
                    su += X[i, j] * W[k, j]
                    sv += X[i, j] * D[k, j]
                u[k] = su
                v[k] = sv
            if fast:
                s = 2.0 * y[i] - 1.0
                _logistic_factors_along(
                    s * u[0], s * v[0], etas, uniform, objective_clip, prod
                )
                count += 1
                if count == _PRODUCT_ROWS:
                    for j in range(n_eta):
                        acc[j] += math.log(prod[j])
                        prod[j] = 1.0
                    count = 0
            else:
                wi = 1.0 if weights is None else weights[i]
                _clipped_losses_along(
                    u, v, y[i], etas, loss, h, objective_clip, acc, wi
                )
        if fast and count > 0:
            for j in range(n_eta):
                acc[j] += math.log(prod[j])
    out = np.zeros(n_eta)
    for blk in range(n_blocks):
        out += partial[blk]
    return out


def _objective_mode(etas, K, loss, objective_clip, weighted):
    """(uniform, fast) flags of the objective kernels for these candidates (the
    product of :func:`_logistic_factors_along` sums unweighted losses only)."""
    etas = np.asarray(etas)
    fast = (
        not weighted
        and K == 1
        and loss == LOGISTIC
        and objective_clip <= _MAX_PRODUCT_CLIP
    )
    with np.errstate(over="ignore", invalid="ignore"):
        uniform = (
            etas.shape[0] > 1
            and etas[0] == 0.0
            and bool(np.all(etas == etas[1] * np.arange(etas.shape[0])))
        )
    return uniform, fast


def clipped_objective_along(
    X,
    y,
    W,
    b,
    D,
    db,
    etas,
    rows,
    fit_intercept,
    objective_clip,
    loss,
    h,
    weights=None,
    threads=None,
):
    """Clipped objective sums ``sum_i w_i min(l_i(theta - eta D), C_obj)`` for many
    eta.

    One pass over the rows: the margins of ``theta`` and of the direction ``D`` are
    computed once per row, and every candidate step size reuses them. Used by the
    private step-size selections (report-noisy-min of Lee & Kifer, KDD 2018; the
    sparse-vector line search of Chen & Lee, Algorithm 1), whose scores have L1
    sensitivity ``C_obj`` per row.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous float32 or float64
    y : ndarray of shape (n_samples,), int64
    W, D : ndarray of shape (K, n_features), float64
        Current coefficients and the direction.
    b, db : ndarray of shape (K,), float64
        Current intercepts and their direction (ignored without intercept).
    etas : ndarray of shape (n_etas,), float64
        Step sizes of the candidates ``theta - eta D``.
    rows : ndarray of shape (n_rows,), int64
        Rows to sum.
    fit_intercept : bool
    objective_clip : float
        ``C_obj`` > 0: each example's loss is clipped to it.
    loss : int
    h : float
    weights : ndarray of shape (n_samples,), float64, or None, default=None
        Per-row weights ``w_i`` in ``[0, w_max]``; None: every weight is 1. Each
        term is then at most ``w_max C_obj``.
    threads : int, optional
        Most threads to use (default: Numba's count); see :class:`_Kernel`.

    Returns
    -------
    sums : ndarray of shape (n_etas,), float64
    """
    uniform, fast = _objective_mode(
        etas, W.shape[0], loss, objective_clip, weights is not None
    )
    return _objective_blocks.run(
        threads,
        X,
        y,
        W,
        b,
        D,
        db,
        etas,
        rows,
        fit_intercept,
        objective_clip,
        loss,
        h,
        uniform,
        fast,
        weights,
    )


@_parallel_kernel(
    work=lambda data, indices, indptr, d, y, W, b, D, db, etas, rows, *_: (
        2 * _stored_read(data, indptr, rows) * W.shape[0]
        + rows.shape[0] * etas.shape[0]
    ),
    fastmath=_FASTMATH,
)
def clipped_objective_along_csr(
    data,
    indices,
    indptr,
    n_features,
    y,
    W,
    b,
    D,
    db,
    etas,
    rows,
    fit_intercept,
    objective_clip,
    loss,
    h,
    weights=None,
):
    """CSR twin of :func:`clipped_objective_along`."""
    n = rows.shape[0]
    K = W.shape[0]
    n_eta = etas.shape[0]
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.zeros((n_blocks, n_eta))
    for blk in prange(n_blocks):
        u = np.empty(K)
        v = np.empty(K)
        acc = partial[blk]
        for ii in range(blk * BLOCK_ROWS, min(n, (blk + 1) * BLOCK_ROWS)):
            i = rows[ii]
            start, stop = _entries(indptr, i)
            for k in range(K):
                su = b[k] if fit_intercept else 0.0
                sv = db[k] if fit_intercept else 0.0
                for p in range(start, stop):
                    j = np.uint64(indices[p])
                    su += data[p] * W[k, j]
                    sv += data[p] * D[k, j]
                u[k] = su
                v[k] = sv
            wi = 1.0 if weights is None else weights[i]
            _clipped_losses_along(u, v, y[i], etas, loss, h, objective_clip, acc, wi)
    out = np.zeros(n_eta)
    for blk in range(n_blocks):
        out += partial[blk]
    return out
