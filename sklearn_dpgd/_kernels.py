"""Compiled kernels: the clipped per-example gradient sum of a linear model.

Kernels take only arrays and numbers. They never draw random numbers (noise is drawn
in NumPy by :mod:`sklearn_dpgd._oracle` and added outside), so a kernel gives the same
result with ``NUMBA_DISABLE_JIT=1`` and can be compared with its NumPy twin in
``tests/_reference.py``.

The sum runs over fixed blocks of rows in parallel; each block writes its own partial
sum and the partials are added in block order. The block size is a constant, not the
thread count, so the result is bit-for-bit the same on any machine and any number of
threads (reproducibility with a fixed ``random_state``).
"""

import math

import numpy as np
from numba import njit, prange

from ._losses import loss_derivative

# Rows per block of the parallel sum. Large enough that the per-block overhead
# (one (n_features + 1)-vector) is negligible, small enough for load balance.
BLOCK_ROWS = 2048

# Reassociation lets LLVM vectorise the dot product and the row norm; inputs are
# validated finite before they reach the kernel, so NaN/inf flags are not needed.
_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, fastmath=_FASTMATH, parallel=True)
def clipped_gradient_sum(X, y, coef, intercept, fit_intercept, clip_norm, loss, h):
    """Sum over rows of per-example gradients clipped to L2 norm ``clip_norm``.

    One pass over the rows of ``X``: for each row, the margin ``m = x . w + b`` and the
    squared norm of ``[x, 1]`` are accumulated together; the loss derivative gives the
    per-example gradient ``g_i = l'(y m) y [x, 1]``, whose norm is
    ``|l'(y m)| * ||[x, 1]||``, so the clip factor is known before the row is read
    again (from L1 cache) to accumulate ``clip(g_i, C)``. No n-by-d array is formed.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous float64
    y : ndarray of shape (n_samples,), float64 in {-1.0, +1.0}
    coef : ndarray of shape (n_features,), float64
    intercept : float
        Ignored when ``fit_intercept`` is False.
    fit_intercept : bool
        Whether the constant 1 is one more coordinate of each row (its gradient is
        the last entry of the result and counts in the clipped norm).
    clip_norm : float
        The clipping threshold ``C`` (> 0).
    loss : int
        Loss code from :mod:`sklearn_dpgd._losses`.
    h : float
        Huber width (used by the Huber hinge only).

    Returns
    -------
    grad_sum : ndarray of shape (n_features + 1,)
        ``sum_i clip(g_i, C)``; the last entry is the intercept coordinate (0 when
        ``fit_intercept`` is False). Its L2 sensitivity is ``C`` under add/remove-one
        neighbouring (``../shared/algorithms.md``, Notation).
    """
    n, d = X.shape
    n_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    partial = np.zeros((n_blocks, d + 1))
    base_sq = 1.0 if fit_intercept else 0.0
    b0 = intercept if fit_intercept else 0.0
    for b in prange(n_blocks):
        acc = partial[b]
        stop = min(n, (b + 1) * BLOCK_ROWS)
        for i in range(b * BLOCK_ROWS, stop):
            m = b0
            sq = base_sq
            for j in range(d):
                v = X[i, j]
                m += v * coef[j]
                sq += v * v
            yi = y[i]
            dm = loss_derivative(yi * m, loss, h) * yi
            gnorm = abs(dm) * math.sqrt(sq)
            if gnorm > clip_norm:
                dm *= clip_norm / gnorm
            if dm != 0.0:
                for j in range(d):
                    acc[j] += dm * X[i, j]
                acc[d] += dm
    out = np.zeros(d + 1)
    for b in range(n_blocks):
        for j in range(d + 1):
            out[j] += partial[b, j]
    if not fit_intercept:
        out[d] = 0.0
    return out
