"""The private oracle: the only code that reads the private data.

Every answer it gives is privatised, and every call is charged to the privacy filter
*before* it touches the data: a call that would overspend raises
:class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` and computes nothing.
Optimisers (``_solver.py``) see only what the oracle returns.
"""

import numpy as np
import scipy.sparse as sp

from ._kernels import (
    clipped_gradient_sum,
    clipped_gradient_sum_csr,
    row_norms,
    row_norms_csr,
)


class PrivateGradientOracle:
    """Noisy clipped gradients of a linear model with K outputs (Gaussian mechanism).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous, or CSR matrix
        Private features (float32 or float64), validated finite.
    y : ndarray of shape (n_samples,), int64
        Private labels as class indices (0/1 when ``n_outputs == 1``).
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
        Source of the Gaussian noise and of the Poisson samples.
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
        self._sparse = sp.issparse(X)
        if self._sparse:
            self._csr = (X.data, X.indices, X.indptr, X.shape[1])
            self._row_norms = row_norms_csr(X.data, X.indptr, fit_intercept)
        else:
            self._X = X
            self._row_norms = row_norms(X, fit_intercept)
        self._y = y
        self._loss = loss
        self._h = huber_width
        self._clip_norm = clip_norm
        self._sensitivity = sensitivity
        self._fit_intercept = fit_intercept
        self.privacy_filter = privacy_filter
        self._rng = rng
        self.n_samples, self.n_features = X.shape
        self.n_outputs = n_outputs
        self.sampling_rate = float(sampling_rate)
        self._all_rows = np.arange(self.n_samples, dtype=np.int64)

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
        if self.sampling_rate < 1.0:
            # The sample is drawn outside the kernel; which rows were drawn is never
            # returned (only the noisy sum leaves the oracle).
            rows = np.flatnonzero(self._rng.random(self.n_samples) < self.sampling_rate)
        else:
            rows = self._all_rows
        grad = self._clipped_sum(W, b, rows)
        self._add_noise(grad, noise_multiplier)
        grad /= self.sampling_rate * self.n_samples
        return grad

    def noisy_batch_gradient(self, W, b, rows, noise_multiplier):
        """Private mean gradient over given rows: ``(sum_{i in rows} clip(g_i, C) +
        N(0, (z D)^2 I)) / len(rows)``.

        The query of Snowball-SGD (:mod:`sklearn_dpgd._snowball`): the batch is a
        block of a random permutation drawn by the caller before any data is read,
        and the filter (an :class:`~sklearn_dpgd.accounting.AmplifiedIterationFilter`
        holding the approved plan) is charged with ``(len(rows), z)`` first.

        Parameters
        ----------
        W : ndarray of shape (n_outputs, n_features), float64
        b : ndarray of shape (n_outputs,), float64
        rows : ndarray of shape (batch_size,), int64
            Distinct row indices of the batch.
        noise_multiplier : float
            ``z``: noise std on the sum in units of the sensitivity ``Delta``.

        Returns
        -------
        grad : ndarray of shape (n_outputs, n_features + 1)
            As :meth:`noisy_gradient`.

        Raises
        ------
        BudgetExhaustedError
            If the step is not the next one of the approved plan; nothing is
            computed then.
        """
        rows = np.asarray(rows, dtype=np.int64)
        self.privacy_filter.charge(rows.shape[0], noise_multiplier)
        grad = self._clipped_sum(W, b, rows)
        self._add_noise(grad, noise_multiplier)
        grad /= rows.shape[0]
        return grad

    def _clipped_sum(self, W, b, rows):
        args = (
            W,
            b,
            self._row_norms,
            rows,
            self._fit_intercept,
            self._clip_norm,
            self._loss,
            self._h,
        )
        if self._sparse:
            data, indices, indptr, d = self._csr
            return clipped_gradient_sum_csr(data, indices, indptr, d, self._y, *args)
        return clipped_gradient_sum(self._X, self._y, *args)

    def _add_noise(self, grad, noise_multiplier):
        width = self.n_features + 1 if self._fit_intercept else self.n_features
        sigma = noise_multiplier * self._sensitivity
        grad[:, :width] += sigma * self._rng.standard_normal((self.n_outputs, width))
