"""Pieces the compiled kernels share: row indexing, CSR entries, the work of a call.

Imported by :mod:`sklearn_dpgd._engine._kernels` and
:mod:`sklearn_dpgd._engine._objective_kernels` only (hence with Numba, when a fit
first needs the kernels, after the threading layer is chosen).
"""

import numpy as np
from numba import njit

__all__ = [
    "_CSR_ENTRY_WORK",
    "_FASTMATH",
    "_entries",
    "_row_index",
    "_rows_read",
    "_stored_read",
]

# Reassociation lets LLVM vectorise dot products; inputs are validated finite before
# they reach the kernel and NaN from overflow is caught by an explicit comparison.
_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


def _rows_read(n_total, rows):
    return n_total if rows is None else rows.shape[0]


@njit(cache=True, inline="always")
def _row_index(ii, rows):
    """Row ``ii`` of the call (``rows[ii]`` for a row sample), as an unsigned index.

    A signed index makes Numba handle negative indices (``i + n`` for ``i < 0``)
    at every ``X[i, j]``, which LLVM cannot drop when the block bounds are runtime
    values; rows are never negative, and an unsigned index has no such branch.
    Same sums bit for bit; one thread, the full-batch binary sum of an Adult-shaped
    float64 matrix (32,561 x 108) went from 1.32 to 1.04 ms and of a 400,000 x 100
    one from 14.8 to 12.0 ms, a CSR Adult sum from 1.39 to 1.26 ms.

    Parameters
    ----------
    ii : int
        Position in the call's rows, ``lo <= ii < hi`` of a block.
    rows : ndarray of shape (n_rows,), int64, or None
        The call's row sample; None for all rows in order.

    Returns
    -------
    i : uint64
        The row of ``X`` to read.
    """
    return np.uint64(ii) if rows is None else np.uint64(rows[ii])


@njit(cache=True, inline="always")
def _entries(indptr, i):
    """Positions ``start, stop`` of row ``i``'s stored entries, as unsigned integers.

    As for :func:`_row_index`: signed positions and column indices make Numba
    handle negative indices at every ``data[p]``, ``w[indices[p]]`` and
    ``acc[indices[p]]``. With unsigned ones (and columns read through
    ``np.uint64(indices[p])``) the sums are the same bit for bit. One thread, a
    CSR matrix of 200,000 x 20,000 with 20 entries a row: in standalone loops the
    gathered products of all rows went from 11.1 to 5.4 ms and the scattered
    updates from 12.2 to 6.0 ms (SciPy's ``X @ w``: 7.4 ms); a private step of the
    package (``PrivateGradientOracle.noisy_gradient``) from 30.9 to 15.3 ms.

    Parameters
    ----------
    indptr : ndarray of shape (n_samples + 1,), int32 or int64
        The CSR row pointers.
    i : int or uint64
        The row.

    Returns
    -------
    start, stop : uint64
        ``indptr[i]`` and ``indptr[i + 1]``.
    """
    return np.uint64(indptr[i]), np.uint64(indptr[i + 1])


# Work of one stored entry of a CSR matrix, in dense entries: gathered and scattered
# one by one (no SIMD), it took 4 ns against 0.46 ns per dense entry of Adult.
_CSR_ENTRY_WORK = 8


def _stored_read(data, indptr, rows):
    # Stored entries a CSR call reads, in units of dense entries (_CSR_ENTRY_WORK).
    n = indptr.shape[0] - 1
    nnz = data.shape[0] if rows is None else data.shape[0] * rows.shape[0] // max(n, 1)
    return _CSR_ENTRY_WORK * nnz
