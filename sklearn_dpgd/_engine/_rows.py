"""The in-memory data backends of the oracle: compiled kernels or NumPy twins.

:class:`LocalRows` runs the compiled kernels of :mod:`sklearn_dpgd._engine._kernels`
(imported when the first one is built, through :mod:`sklearn_dpgd._engine._lazy`);
:class:`SmallRows` runs their NumPy twins (:mod:`sklearn_dpgd._engine._twins`) for
small data. Both hold the private rows and return only clipped sums; the oracle
(:mod:`sklearn_dpgd._engine._oracle`) adds the noise and charges the filter.
"""

import numpy as np
import scipy.sparse as sp

from . import _twins
from ._lazy import kernels
from ._secure import poisson_indices
from ._threads import ThreadChooser, fit_threads

__all__ = ["LocalRows", "SmallRows", "row_norms"]


def row_norms(X, fit_intercept=False):
    """``||x_i||`` (or ``||[x_i, 1]||``) of in-memory rows, in one pass over ``X``.

    The NumPy twin for small data (no kernel is loaded), else the serial kernel:
    no n-by-d temporary (``np.linalg.norm(X, axis=1)`` squares a copy of ``X``).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous, or CSR matrix
        Float32 or float64, validated finite.
    fit_intercept : bool, default=False
        Whether each norm includes the intercept's constant 1.

    Returns
    -------
    norms : ndarray of shape (n_samples,), float64
    """
    if _twins.is_small(X, 1):
        return _twins.row_norms(X, fit_intercept)
    if sp.issparse(X):
        return kernels().row_norms_csr.serial(X.data, X.indptr, fit_intercept)
    return kernels().row_norms.serial(np.ascontiguousarray(X), fit_intercept)


class LocalRows:
    """Data backend of rows held in this process (dense C-contiguous or CSR).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous, or CSR matrix
        Private features (float32 or float64), validated finite, CSR duplicates
        summed.
    y : ndarray of shape (n_samples,), int64
        Private labels as class indices.
    fit_intercept : bool
        Whether the row norms include the intercept's constant 1 (computed once).
    sample_weight : ndarray of shape (n_samples,), float64, or None, default=None
        Private per-row weights, validated by the oracle in ``[0, w_max]``; each
        row's clipped gradient is multiplied by its weight inside the kernels.
        None: unweighted (the kernels read no weight array).

    Notes
    -----
    The kernels' thread count is read once, here: Numba's count under
    ``threadpoolctl`` limits (``sklearn_dpgd._engine._kernels.fit_threads``); small
    calls run on one thread whatever it is
    (``sklearn_dpgd._engine._kernels.SERIAL_WORK``), and
    the gradient sums of a fit run on one thread or on all of them, whichever
    ``sklearn_dpgd._engine._kernels.ThreadChooser`` times as faster (same result bit for
    bit).
    """

    def __init__(self, X, y, *, fit_intercept, sample_weight=None):
        self._kernels = kernels()  # imports Numba on the first large fit
        self._weights = sample_weight
        self._sparse = sp.issparse(X)
        self._threads = fit_threads()
        self._chooser = ThreadChooser(self._threads)
        # The row norms are read once per fit: their serial twin (a few ms on
        # Adult) beats compiling the parallel one (0.7 s on a first fit).
        if self._sparse:
            self._csr = (X.data, X.indices, X.indptr, X.shape[1])
            self._row_norms = self._kernels.row_norms_csr.serial(
                X.data, X.indptr, fit_intercept
            )
        else:
            self._X = X
            self._row_norms = self._kernels.row_norms.serial(X, fit_intercept)
        self._y = y
        self.n_samples, self.n_features = X.shape
        self._all_rows = np.arange(self.n_samples, dtype=np.int64)

    def clipped_sum(self, W, b, kernel_args, sampling_rate, rng):
        """Clipped-gradient sum over all rows or a Poisson sample (no noise).

        Parameters
        ----------
        W : ndarray of shape (K, n_features), float64
        b : ndarray of shape (K,), float64
        kernel_args : tuple
            ``(fit_intercept, clip_norm, loss, h)`` of the kernel.
        sampling_rate : float
            ``q``; below 1, one uniform per row is drawn from ``rng`` and the rows
            with ``u < q`` are summed. At 1 nothing is drawn.
        rng : numpy.random.Generator
            The oracle's generator (shared with the noise).

        Returns
        -------
        grad_sum : ndarray of shape (K, n_features + 1), float64
        """
        # Full batch: None sums all rows in order with no index array to read.
        rows = self._sample(sampling_rate, rng) if sampling_rate < 1.0 else None
        return self.clipped_sum_rows(W, b, kernel_args, rows)

    def clipped_sum_rows(self, W, b, kernel_args, rows):
        """Clipped-gradient sum over the given rows (no noise).

        Parameters
        ----------
        W : ndarray of shape (K, n_features), float64
        b : ndarray of shape (K,), float64
        kernel_args : tuple
            ``(fit_intercept, clip_norm, loss, h)`` of the kernel.
        rows : ndarray of shape (n_rows,), int64, or None
            None: all rows, in order.

        Returns
        -------
        grad_sum : ndarray of shape (K, n_features + 1), float64
        """
        args = (W, b, self._row_norms, rows, *kernel_args, self._weights)
        if self._sparse:
            data, indices, indptr, d = self._csr
            return self._chooser.run(
                self._kernels.clipped_gradient_sum_csr,
                data,
                indices,
                indptr,
                d,
                self._y,
                *args,
            )
        return self._chooser.run(
            self._kernels.clipped_gradient_sum, self._X, self._y, *args
        )

    def _sample(self, sampling_rate, rng):
        if sampling_rate < 1.0:
            # The sample is drawn outside the kernel; which rows were drawn is never
            # returned (only privatised values leave the oracle).
            return poisson_indices(rng, self.n_samples, sampling_rate)
        return self._all_rows

    def objective_along(self, W, b, D, db, etas, objective_args, sampling_rate, rng):
        """Clipped objective sums at ``theta - eta D`` for each eta (no noise).

        Parameters
        ----------
        W, D : ndarray of shape (K, n_features), float64
        b, db : ndarray of shape (K,), float64
        etas : ndarray of shape (n_etas,), float64
        objective_args : tuple
            ``(fit_intercept, objective_clip, loss, h)`` of the kernel.
        sampling_rate : float
            ``q`` of a fresh Poisson sample (1: all rows, nothing drawn).
        rng : numpy.random.Generator

        Returns
        -------
        sums : ndarray of shape (n_etas,), float64
        """
        rows = self._sample(sampling_rate, rng)
        args = (W, b, D, db, etas, rows, *objective_args, self._weights)
        if self._sparse:
            data, indices, indptr, d = self._csr
            return self._kernels.clipped_objective_along_csr.run(
                self._threads, data, indices, indptr, d, self._y, *args
            )
        return self._kernels.clipped_objective_along(
            self._X, self._y, *args, threads=self._threads
        )


class SmallRows(LocalRows):
    """:class:`LocalRows` for small data, on the NumPy twins of the kernels.

    Same interface, same row samples drawn from the same generator, same clipping
    and weights (:mod:`sklearn_dpgd._engine._twins`): a fit on it equals the same
    fit on :class:`LocalRows` to about 1e-15 relative for the same noise, and
    never compiles nor loads a kernel. Chosen by :class:`PrivateGradientOracle`
    when :func:`~sklearn_dpgd._engine._twins.is_small` holds.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        Private features (float32 or float64), validated finite.
    y : ndarray of shape (n_samples,), int64
    fit_intercept : bool
    sample_weight : ndarray of shape (n_samples,), float64, or None, default=None
    """

    def __init__(self, X, y, *, fit_intercept, sample_weight=None):
        self._weights = sample_weight
        self._X, self._y = X, y
        self._row_norms = _twins.row_norms(X, fit_intercept)
        self.n_samples, self.n_features = X.shape
        self._all_rows = np.arange(self.n_samples, dtype=np.int64)

    def clipped_sum_rows(self, W, b, kernel_args, rows):
        """As :meth:`LocalRows.clipped_sum_rows`, on the NumPy twin."""
        return _twins.clipped_gradient_sum(
            self._X, self._y, W, b, self._row_norms, rows, *kernel_args, self._weights
        )

    def objective_along(self, W, b, D, db, etas, objective_args, sampling_rate, rng):
        """As :meth:`LocalRows.objective_along`, on the NumPy twin."""
        rows = self._sample(sampling_rate, rng)
        return _twins.clipped_objective_along(
            self._X, self._y, W, b, D, db, etas, rows, *objective_args, self._weights
        )
