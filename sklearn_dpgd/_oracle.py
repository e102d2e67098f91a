"""The private oracle: the only code that reads the private data.

Every answer it gives is privatised, and every call is charged to the privacy filter
*before* it touches the data: a call that would overspend raises
:class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` and computes nothing.
Optimisers (``_solver.py``) see only what the oracle returns.

Where the rows live is a pluggable *data backend*: :class:`LocalRows` (NumPy or CSR in
this process) or :class:`sklearn_dpgd._dask.DaskRows` (row chunks in the memory of
Dask workers). A backend only returns the clipped-gradient sum of the kernel in
:mod:`sklearn_dpgd._kernels` over all rows or a Poisson sample of them; charging the
filter, adding the noise and dividing by the batch size happen here, once, for every
backend.
"""

import numpy as np
import scipy.sparse as sp

from ._dask import DaskRows, is_dask_collection
from ._kernels import (
    clipped_gradient_sum,
    clipped_gradient_sum_csr,
    row_norms,
    row_norms_csr,
)


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
    """

    def __init__(self, X, y, *, fit_intercept):
        self._sparse = sp.issparse(X)
        if self._sparse:
            self._csr = (X.data, X.indices, X.indptr, X.shape[1])
            self._row_norms = row_norms_csr(X.data, X.indptr, fit_intercept)
        else:
            self._X = X
            self._row_norms = row_norms(X, fit_intercept)
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
        if sampling_rate < 1.0:
            # The sample is drawn outside the kernel; which rows were drawn is never
            # returned (only the noisy sum leaves the oracle).
            rows = np.flatnonzero(rng.random(self.n_samples) < sampling_rate)
        else:
            rows = self._all_rows
        args = (W, b, self._row_norms, rows, *kernel_args)
        if self._sparse:
            data, indices, indptr, d = self._csr
            return clipped_gradient_sum_csr(data, indices, indptr, d, self._y, *args)
        return clipped_gradient_sum(self._X, self._y, *args)


class PrivateGradientOracle:
    """Noisy clipped gradients of a linear model with K outputs (Gaussian mechanism).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous, CSR matrix or \
            dask.array.Array
        Private features (float32 or float64), validated finite. A dask array
        (validated by :func:`sklearn_dpgd._dask.check_fit_data`, chunked by rows
        only) selects the :class:`~sklearn_dpgd._dask.DaskRows` backend.
    y : ndarray or dask.array.Array of shape (n_samples,), int64
        Private labels as class indices (0/1 when ``n_outputs == 1``), with the
        row chunks of ``X`` when it is a dask array.
    n_outputs : int
        K: 1 for binary models, the number of classes otherwise.
    loss : int
        Loss code (:mod:`sklearn_dpgd._losses`).
    huber_width : float
        Huber width ``h`` (ignored by the logistic loss).
    clip_norm : float
        Per-example clipping threshold ``C`` of the whole gradient (all outputs and
        intercepts, Frobenius norm).
    sensitivity : float
        L2 sensitivity ``Delta`` of the clipped sum under the neighbouring relation:
        ``C`` (add/remove one row) or ``2 C`` (replace one row).
    fit_intercept : bool
        Whether the last gradient column is the intercepts'.
    privacy_filter : GaussianPrivacyFilter
        The ledger charged for each call.
    rng : numpy.random.Generator
        Source of the Gaussian noise and of the Poisson samples (for dask data: of
        the per-chunk seeds of the samples, drawn by the client).
    sampling_rate : float, default=1.0
        ``q``: each step sums each row independently with probability ``q``
        (Poisson sampling, as the accounting of Mironov, Talwar & Zhang 2019
        assumes) and divides by the public expected batch size ``q n``. 1.0 is the
        full batch (no random draw for sampling).
    """

    def __init__(
        self,
        X,
        y,
        *,
        n_outputs,
        loss,
        huber_width,
        clip_norm,
        sensitivity,
        fit_intercept,
        privacy_filter,
        rng,
        sampling_rate=1.0,
    ):
        if is_dask_collection(X):
            self._rows = DaskRows(X, y, fit_intercept=fit_intercept)
        else:
            self._rows = LocalRows(X, y, fit_intercept=fit_intercept)
        self._kernel_args = (fit_intercept, clip_norm, loss, huber_width)
        self._sensitivity = sensitivity
        self._fit_intercept = fit_intercept
        self.privacy_filter = privacy_filter
        self._rng = rng
        self.n_samples, self.n_features = self._rows.n_samples, self._rows.n_features
        self.n_outputs = n_outputs
        self.sampling_rate = float(sampling_rate)

    def noisy_gradient(self, W, b, noise_multiplier):
        """Private mean gradient ``(sum_{i in S} clip(g_i, C) + N(0, (z D)^2 I)) / B``.

        ``D`` is the sensitivity ``Delta``. ``S`` is all rows and ``B = n`` for
        full-batch steps; for minibatch steps
        ``S`` is a fresh Poisson sample with rate ``q`` and ``B = q n``.

        Parameters
        ----------
        W : ndarray of shape (n_outputs, n_features), float64
        b : ndarray of shape (n_outputs,), float64
        noise_multiplier : float
            ``z``: noise std in units of the sensitivity ``Delta``.

        Returns
        -------
        grad : ndarray of shape (n_outputs, n_features + 1)
            The last column is the intercepts' (exactly 0 without an intercept: that
            column is then neither computed nor noised).

        Raises
        ------
        BudgetExhaustedError
            If the step would overspend; nothing is computed then.

        Notes
        -----
        ``../shared/algorithms.md``, Notation: the private gradient of Hong, Wang &
        Zhou (FAccT 2022), Algorithm 1, line 4, without the L2 term (which is public
        and added by the solver). ``n`` is treated as public.
        """
        self.privacy_filter.charge(noise_multiplier, self.sampling_rate)
        grad = self._rows.clipped_sum(
            W, b, self._kernel_args, self.sampling_rate, self._rng
        )
        width = self.n_features + 1 if self._fit_intercept else self.n_features
        sigma = noise_multiplier * self._sensitivity
        grad[:, :width] += sigma * self._rng.standard_normal((self.n_outputs, width))
        grad /= self.sampling_rate * self.n_samples
        return grad
