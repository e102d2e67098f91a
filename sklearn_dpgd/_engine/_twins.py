"""NumPy twins of the compiled kernels, run for small problems.

A fit whose data are small (:data:`SMALL_WORK` stored entries or fewer) runs the
same algorithm through these functions instead of :mod:`sklearn_dpgd._engine._kernels`,
so its process never compiles a kernel nor loads one from Numba's cache: on a
first fit that costs 0.2-3 s, against a few milliseconds of NumPy work for the
whole fit of a table like scikit-learn's breast cancer (569 x 30).

Each function returns what its kernel returns, with the same clipping, the same
treatment of overflowed rows (dropped: their contribution is zero) and the same
weights; only the order of the floating-point sums differs (BLAS instead of the
kernels' blocks), so the results agree to about 1e-15 relative. The arithmetic
is vectorised over rows: the largest temporaries are ``n_rows x K`` (margins and
residuals) and, for a row sample, the sampled rows themselves, both bounded by
:data:`SMALL_WORK` entries; the n-by-K-by-(d+1) array of per-example gradients is
never formed (the gradient of row ``i`` is ``r_i [x_i, 1]``, so its norm is
``||r_i|| ||[x_i, 1]||``, as in the kernels).
"""

import numpy as np
import scipy.sparse as sp

from ._losses import HUBER, HUBER_HINGE, LOGISTIC, REGRESSION, SQUARED
from ._threads import serial_blas

__all__ = [
    "SMALL_WORK",
    "clipped_gradient_sum",
    "clipped_objective_along",
    "is_small",
    "row_norms",
]

#: Stored entries (``n x d`` dense, ``nnz`` sparse) times outputs ``K`` up to which
#: a fit runs on the NumPy twins. Measured by ``benchmarks/bench_speed.py --small``
#: (performance page): at this size a whole default fit on the twins costs about what
#: loading the compiled kernels from a warm cache costs, far less than compiling them.
SMALL_WORK = 100_000


def is_small(X, n_outputs=1):
    """Whether a fit on ``X`` is small enough for the NumPy twins.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
    n_outputs : int, default=1
        ``K``, the model's outputs (1 for binary models).

    Returns
    -------
    small : bool
        ``K`` times ``X.size`` (dense) or ``X.nnz`` (sparse) <= :data:`SMALL_WORK`.
    """
    stored = X.nnz if sp.issparse(X) else X.size
    return stored * n_outputs <= SMALL_WORK


def row_norms(X, fit_intercept):
    """``||[x_i, 1]||`` (or ``||x_i||``) of each row, in float64.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix, float32 or float64
    fit_intercept : bool

    Returns
    -------
    norms : ndarray of shape (n_samples,), float64
        Finite rows never overflow: rows whose sum of squares leaves
        ``(1e-290, 1e290)`` are rescaled by their largest entry first, as in the
        kernel.
    """
    if sp.issparse(X):
        data = X.data.astype(np.float64)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        sq = np.bincount(rows, weights=data * data, minlength=X.shape[0])
    else:
        X64 = np.asarray(X, dtype=np.float64)
        sq = np.einsum("ij,ij->i", X64, X64)
    with np.errstate(over="ignore"):
        norms = np.sqrt(sq)
    odd = np.flatnonzero(~((sq > 1e-290) & (sq < 1e290)))
    for i in odd:
        row = X.data[X.indptr[i] : X.indptr[i + 1]] if sp.issparse(X) else X[i]
        row = np.asarray(row, dtype=np.float64)
        top = np.max(np.abs(row)) if row.size else 0.0
        norms[i] = 0.0 if top == 0.0 else top * np.sqrt(np.sum((row / top) ** 2))
    return np.hypot(norms, 1.0) if fit_intercept else norms


def _check_loss(loss):
    if loss not in (LOGISTIC, HUBER_HINGE, SQUARED, HUBER):
        raise ValueError(f"the NumPy twins have no loss code {loss!r}.")


def _loss_derivative(z, loss, h):
    """``dl/dz`` elementwise (the kernels' ``loss_derivative``)."""
    _check_loss(loss)
    if loss == LOGISTIC:
        e = np.exp(-np.abs(z))
        return -np.where(z > 0.0, e, 1.0) / (1.0 + e)
    return np.where(
        z < 1.0 - h, -1.0, np.where(z <= 1.0 + h, -(1.0 + h - z) / (2.0 * h), 0.0)
    )


def _loss_value(z, loss, h):
    """Loss at signed margins ``z`` elementwise (the kernels' ``loss_value``)."""
    _check_loss(loss)
    if loss == LOGISTIC:
        return np.logaddexp(0.0, -z)
    return np.where(
        z < 1.0 - h,
        1.0 - z,
        np.where(z <= 1.0 + h, (1.0 + h - z) ** 2 / (4.0 * h), 0.0),
    )


def _regression_residual(M0, y, loss, h):
    """``dl/dm`` of the regression losses: ``m - y``, clipped to ``[-h, h]`` (Huber)."""
    r = M0 - y
    return np.clip(r, -h, h) if loss == HUBER else r


def _example_losses(Z0, y, loss, h):
    """Per-row loss at margins ``Z0`` (K == 1): regression, or the signed margin's."""
    _check_loss(loss)
    if loss >= REGRESSION:
        r = np.abs(Z0 - y)
        if loss == HUBER:
            return np.where(r > h, h * r - 0.5 * h * h, 0.5 * r * r)
        return 0.5 * r * r
    s = 2.0 * y - 1.0
    return _loss_value(s * Z0, loss, h)


def _signs(y, K):
    """``+1`` where ``y == k``, else ``-1``: shape (n_rows, K)."""
    return np.where(np.arange(K)[None, :] == y[:, None], 1.0, -1.0)


def _residuals(M, y, loss, h):
    """``d loss / d margin`` (n_rows, K) and its row norms (the kernels' rule)."""
    _check_loss(loss)
    K = M.shape[1]
    if K == 1:
        if loss >= REGRESSION:
            R = _regression_residual(M[:, 0], y, loss, h)[:, None]
        else:
            s = 2.0 * y - 1.0
            R = (_loss_derivative(s * M[:, 0], loss, h) * s)[:, None]
        return R, np.abs(R[:, 0])
    if loss == HUBER_HINGE:
        S = _signs(y, K)
        R = _loss_derivative(S * M, loss, h) * S
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            E = np.exp(M - M.max(axis=1, keepdims=True))
            R = E / E.sum(axis=1, keepdims=True)
        R[np.arange(M.shape[0]), y] -= 1.0
    return R, np.sqrt(np.einsum("ik,ik->i", R, R))


def _selected(X, y, rows):
    """The rows of ``X`` and ``y`` a call reads (all of them for None)."""
    if rows is None:
        return X, y
    return X[rows], y[rows]


def _product(A, B):
    """``A @ B`` in float64; the caller holds ``_threads.serial_blas`` (one block
    per gradient or objective query, not per product: each costs microseconds,
    as much as a product on a small table)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(A @ B, dtype=np.float64)


def _margins(Xr, W, b, fit_intercept):
    """Margins ``Xr W^T (+ b)``, shape (n_rows, K)."""
    M = _product(Xr, W[0])[:, None] if W.shape[0] == 1 else _product(Xr, W.T)
    return M + b if fit_intercept else M


def clipped_gradient_sum(
    X, y, W, b, norms, rows, fit_intercept, clip_norm, loss, h, weights=None
):
    """Twin of :func:`sklearn_dpgd._engine._kernels.clipped_gradient_sum`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix, float32 or float64
    y : ndarray of shape (n_samples,), int64 (labels) or float64 (scaled targets)
    W : ndarray of shape (K, n_features), float64
    b : ndarray of shape (K,), float64
    norms : ndarray of shape (n_samples,), float64
        :func:`row_norms` of ``X``.
    rows : ndarray of shape (n_rows,), int64, or None
        Rows to sum (None: all, in order).
    fit_intercept : bool
    clip_norm : float
        ``C`` > 0.
    loss : int
    h : float
    weights : ndarray of shape (n_samples,), float64, or None, default=None

    Returns
    -------
    grad_sum : ndarray of shape (K, n_features + 1), float64
        ``sum_{i in rows} w_i clip(r_i [x_i, 1], C)``, L2 sensitivity ``w_max C``
        under add/remove and ``2 w_max C`` under replace-one (Hong, Wang & Zhou,
        FAccT 2022, Algorithm 1), as the kernel's.
    """
    Xr, yr = _selected(X, y, rows)
    with serial_blas():  # the two products' one BLAS thread
        M = _margins(Xr, W, b, fit_intercept)
        with np.errstate(over="ignore", invalid="ignore"):
            R, r_norm = _residuals(M, yr, loss, h)
            g = r_norm * (norms if rows is None else norms[rows])
            # C / max(g, C); a NaN norm (overflowed margin) drops the row.
            scale = np.where(np.isnan(g), 0.0, clip_norm / np.maximum(g, clip_norm))
        if weights is not None:
            scale = scale * (weights if rows is None else weights[rows])
        C = np.where(scale[:, None] == 0.0, 0.0, scale[:, None] * R)
        out = np.empty((W.shape[0], W.shape[1] + 1))
        if C.shape[1] == 1:
            out[0, :-1] = _product(Xr.T, C[:, 0])
        else:
            out[:, :-1] = _product(Xr.T, C).T
    out[:, -1] = C.sum(axis=0) if fit_intercept else 0.0
    return out


def clipped_objective_along(
    X, y, W, b, D, db, etas, rows, fit_intercept, objective_clip, loss, h, weights=None
):
    """Twin of :func:`sklearn_dpgd._engine._kernels.clipped_objective_along`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
    y : ndarray of shape (n_samples,), int64 (labels) or float64 (scaled targets)
    W, D : ndarray of shape (K, n_features), float64
    b, db : ndarray of shape (K,), float64
    etas : ndarray of shape (n_etas,), float64
    rows : ndarray of shape (n_rows,), int64
    fit_intercept : bool
    objective_clip : float
        ``C_obj`` > 0: each example's loss is clipped to it (NaN counts as
        ``C_obj``).
    loss : int
    h : float
    weights : ndarray of shape (n_samples,), float64, or None, default=None
        Per-row weights; None: every weight is 1.

    Returns
    -------
    sums : ndarray of shape (n_etas,), float64
        ``sum_i w_i min(l_i(theta - eta D), C_obj)`` for each eta (L1 sensitivity
        ``w_max C_obj`` per row).
    """
    Xr, yr = _selected(X, y, rows)
    wr = None if weights is None else (weights if rows is None else weights[rows])
    with serial_blas():
        U = _margins(Xr, W, b, fit_intercept)
        V = _margins(Xr, D, db, fit_intercept)
    K = W.shape[0]
    out = np.empty(len(etas))
    with np.errstate(over="ignore", invalid="ignore"):
        for j, eta in enumerate(etas):
            Z = U - eta * V
            if K == 1:
                val = _example_losses(Z[:, 0], yr, loss, h)
            elif loss == HUBER_HINGE:
                val = _loss_value(_signs(yr, K) * Z, loss, h).sum(axis=1)
            else:
                top = Z.max(axis=1)
                lse = top + np.log(np.exp(Z - top[:, None]).sum(axis=1))
                val = lse - Z[np.arange(Z.shape[0]), yr]
            clipped = np.where(val <= objective_clip, val, objective_clip)
            out[j] = clipped.sum() if wr is None else clipped @ wr
    return out
