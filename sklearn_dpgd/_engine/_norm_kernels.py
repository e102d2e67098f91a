"""The row-norm kernels: ``||[x_i, 1]||`` of each row, once per fit.

Imported by :mod:`sklearn_dpgd._engine._kernels` only (hence with Numba, when a fit
first needs the kernels), which re-exports them; the NumPy twin is
:func:`sklearn_dpgd._engine._twins.row_norms`.
"""

import math

import numpy as np
from numba import njit, prange

from ._threads import _parallel_kernel

__all__ = ["row_norms", "row_norms_csr"]

# Sums of squares only: "arcp" would turn v / top into v * (1 / top), which is
# 0 * inf = NaN when top is subnormal.
_REASSOC = {"reassoc", "contract", "nsz"}


@njit(cache=True, inline="always")
def _safe_norm(values, intercept):
    # ||[v, 1]|| without overflow for entries up to the float64 maximum. One pass
    # of squares in float64 when their sum is well inside the float64 range (every
    # row of sane data); else a second, scaled pass.
    s = 0.0
    for v in values:
        w = np.float64(v)
        s += w * w
    if 1e-290 < s < 1e290:
        norm = math.sqrt(s)
        return math.hypot(norm, 1.0) if intercept else norm
    top = 0.0
    for v in values:
        top = max(top, abs(np.float64(v)))
    if top == 0.0:
        return 1.0 if intercept else 0.0
    s = 0.0
    for v in values:
        u = np.float64(v) / top
        s += u * u
    norm = top * math.sqrt(s)
    return math.hypot(norm, 1.0) if intercept else norm


@_parallel_kernel(work=lambda X, fit_intercept: X.size, fastmath=_REASSOC)
def row_norms(X, fit_intercept):
    """``||[x_i, 1]||`` (or ``||x_i||``) of each row, shape (n_samples,), float64.

    Computed once per fit, scaled so that finite rows never overflow to inf.
    """
    n = X.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = _safe_norm(X[i], fit_intercept)
    return out


@_parallel_kernel(
    work=lambda data, indptr, fit_intercept: data.shape[0], fastmath=_REASSOC
)
def row_norms_csr(data, indptr, fit_intercept):
    """CSR twin of :func:`row_norms`."""
    n = indptr.shape[0] - 1
    out = np.empty(n)
    for i in prange(n):
        out[i] = _safe_norm(data[indptr[i] : indptr[i + 1]], fit_intercept)
    return out
