"""The noiseless sums of ``solver="newton"``: pure functions of rows.

:class:`~sklearn_dpgd._engine._oracle.PrivateNewtonOracle` is the only caller
that releases anything (it charges the filter, adds the noise and divides); these
functions only sum, over all rows in memory (:class:`LocalNewtonRows`) or over one
Dask chunk on the worker holding it
(:class:`~sklearn_dpgd._engine._dask.DaskNewtonRows`). Every row lies in exactly
one chunk and each row's term depends on that row only, so a chunked total has
the sensitivity of the in-memory one.

Rows are clipped to feature norm ``row_clip`` (scaled, never read beyond it): the
loss is that of ``x~_i = [s_i x_i, 1]``. ``theta`` is flat: ``K`` blocks of
``n_features + 1`` (coefficients, then the intercept), class by class.
"""

import numpy as np
from scipy.special import expit, softmax

from ._losses import LOSS_CODES
from ._twins import _regression_residual


def squared_norms(X):
    """``||x_i||^2`` of each row ``(n,)``, float64: one pass over ``X``."""
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def row_scales(X, row_clip, squared=None):
    """``s_i = min(1, row_clip / ||x_i||)``: each row's clip factor (``squared``:
    the rows' :func:`squared_norms` if already known)."""
    norms = np.sqrt(squared_norms(X) if squared is None else squared)
    return np.minimum(1.0, row_clip / np.maximum(norms, 1e-300))


def margins(X, scale, theta, fit_intercept, n_outputs):
    """The margins ``(n, K)`` of the clipped rows: ``s_i x_i . w_k + b_k``."""
    d, k = X.shape[1], n_outputs
    params = np.asarray(theta, dtype=np.float64).reshape(k, d + 1)
    scores = (X @ params[:, :d].T.astype(X.dtype)).astype(np.float64)
    scores *= scale[:, None]
    if fit_intercept:
        scores += params[:, d]
    return scores


def probabilities(X, scale, theta, fit_intercept, n_outputs):
    """Sigmoid ``(n,)`` (``n_outputs == 1``) or softmax ``(n, K)`` probabilities of
    the clipped rows."""
    scores = margins(X, scale, theta, fit_intercept, n_outputs)
    if n_outputs == 1:
        return expit(scores[:, 0])
    return softmax(scores, axis=1)


#: The losses of :func:`gradient_sum` (``solver="pgd"``): the logistic loss of
#: 0/1 labels, and the squared and Huber losses of a real (scaled) target.
GRADIENT_LOSSES = ("logistic", "squared", "huber")


def _binary_residual(X, y, scale, theta, fit_intercept, loss, huber_width):
    """The derivative ``(n,)`` of each row's loss in its margin ``m_i``:
    ``sigma(m_i) - y_i`` (logistic), ``m_i - y_i`` (squared) or that clipped to
    ``[-h, h]`` (Huber, ``h = huber_width``)."""
    if loss == "logistic":
        labels = np.asarray(y, dtype=np.int64)
        return probabilities(X, scale, theta, fit_intercept, 1) - labels
    return _regression_residual(
        margins(X, scale, theta, fit_intercept, 1)[:, 0],
        np.asarray(y, dtype=np.float64),
        LOSS_CODES[loss],
        huber_width,
    )


def clipped_norms(X, scale, fit_intercept, squared=None):
    """``||x~_i|| = sqrt(s_i^2 ||x_i||^2 + fit_intercept)``: each clipped row's
    norm ``(n,)``, the intercept's 1 included (``squared``: the rows'
    :func:`squared_norms` if already known)."""
    if squared is None:
        squared = squared_norms(X)
    return np.sqrt(scale**2 * squared + float(fit_intercept))


def gradient_sum(
    X, y, scale, theta, fit_intercept, n_outputs, gradient_clip=None,
    loss="logistic", huber_width=0.0, norms=None,
):  # fmt: skip
    """``sum_i l'(m_i) (x) x~_i`` as ``(K, n_features + 1)`` (intercept column
    0 without an intercept); with ``gradient_clip``, each
    row's term scaled to norm at most ``gradient_clip``. ``l'`` is the
    softmax's ``p_i - e_{y_i}`` for ``K > 1``, else that of ``loss`` (one of
    :data:`GRADIENT_LOSSES`; :func:`_binary_residual`). ``norms``: the rows'
    :func:`clipped_norms` if already known (computed here otherwise)."""
    d, k = X.shape[1], n_outputs
    if k == 1:
        residual = _binary_residual(
            X, y, scale, theta, fit_intercept, loss, huber_width
        )[:, None]
        if gradient_clip is not None:
            # ||l'(m_i) x~_i|| = |l'(m_i)| sqrt(s_i^2 ||x_i||^2 + 1).
            if norms is None:
                norms = clipped_norms(X, scale, fit_intercept)
            norms = norms * np.abs(residual[:, 0])
            residual *= np.minimum(1.0, gradient_clip / np.maximum(norms, 1e-300))[
                :, None
            ]
    else:
        labels = np.asarray(y, dtype=np.int64)
        residual = probabilities(X, scale, theta, fit_intercept, k).copy()
        residual[np.arange(labels.shape[0]), labels] -= 1.0
        if gradient_clip is not None:
            # ||(pi_i - e_{y_i}) (x) x~_i|| = ||pi_i - e_{y_i}|| ||x~_i||.
            if norms is None:
                norms = clipped_norms(X, scale, fit_intercept)
            norms = norms * np.sqrt(np.einsum("ij,ij->i", residual, residual))
            residual *= np.minimum(1.0, gradient_clip / np.maximum(norms, 1e-300))[
                :, None
            ]
    grad = np.zeros((k, d + 1))
    grad[:, :d] = (X.T @ (residual * scale[:, None]).astype(X.dtype)).T
    if fit_intercept:
        grad[:, d] = residual.sum(axis=0)
    return grad


def hessian_sum(X, scale, theta, fit_intercept, n_outputs, chunk_rows):
    """The Hessian sum over the fitted coordinates, ``(K w, K w)`` with ``w =
    n_features + fit_intercept``: ``sum_i sigma'(m_i) x~_i x~_i^T`` (sigmoid) or
    ``sum_i (diag(pi_i) - pi_i pi_i^T) (x) x~_i x~_i^T`` (softmax), in blocks of
    ``chunk_rows`` rows."""
    d, k = X.shape[1], n_outputs
    width = d + int(fit_intercept)
    p_hat = probabilities(X, scale, theta, fit_intercept, k)
    hessian = np.zeros((k * width, k * width))
    if X.shape[0] == 0:
        return hessian
    if k == 1:
        # A^T A for the rows a_i = sqrt(sigma'_i) [s_i x_i, 1] (a symmetric
        # rank-k update in BLAS); the intercept's 1 is not scaled.
        root = np.sqrt(p_hat * (1.0 - p_hat))
        root_scaled = root * scale
        block = np.empty((min(chunk_rows, X.shape[0]), width))
        for start in range(0, X.shape[0], chunk_rows):
            rows = slice(start, start + chunk_rows)
            r = root_scaled[rows]
            a = block[: r.shape[0]]
            np.multiply(X[rows], r[:, None], out=a[:, :d])
            if fit_intercept:
                a[:, d] = root[rows]
            hessian += a.T @ a
        return hessian
    # blockdiag_k(X~^T diag(pi_k) X~) - Z^T Z, with the rows z_i = pi_i (x) x~_i:
    # one product of width K w and K of width w per block of rows.
    for start in range(0, X.shape[0], chunk_rows):
        rows = slice(start, start + chunk_rows)
        pi = p_hat[rows]
        xt = np.empty((pi.shape[0], width))
        np.multiply(X[rows], scale[rows, None], out=xt[:, :d])
        if fit_intercept:
            xt[:, d] = 1.0
        z = (pi[:, :, None] * xt[:, None, :]).reshape(pi.shape[0], k * width)
        hessian -= z.T @ z
        for j in range(k):
            block = slice(j * width, (j + 1) * width)
            hessian[block, block] += xt.T @ (pi[:, j, None] * xt)
    return hessian


def gram_sum(X, scale, fit_intercept, chunk_rows):
    """The Gram sum ``sum_i x~_i x~_i^T`` of the clipped rows ``x~_i = [s_i x_i,
    1]``, ``(w, w)`` with ``w = n_features + fit_intercept``, in blocks of
    ``chunk_rows`` rows (``solver="pgd"``'s preconditioner)."""
    d = X.shape[1]
    width = d + int(fit_intercept)
    gram = np.zeros((width, width))
    block = np.empty((min(chunk_rows, max(X.shape[0], 1)), width))
    for start in range(0, X.shape[0], chunk_rows):
        rows = slice(start, start + chunk_rows)
        a = block[: X[rows].shape[0]]
        np.multiply(X[rows], scale[rows, None], out=a[:, :d])
        if fit_intercept:
            a[:, d] = 1.0
        gram += a.T @ a
    return gram


class LocalNewtonRows:
    """The Newton sums over rows in this process.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int
    row_clip : float
    fit_intercept : bool
    n_outputs : int
    chunk_rows : int
    """

    def __init__(self, X, y, *, row_clip, fit_intercept, n_outputs, chunk_rows):
        self._X = np.asarray(X)
        self._y = np.asarray(y)  # labels, or a regressor's real target
        squared = squared_norms(self._X)  # the one pass over the rows' norms
        self._scale = row_scales(self._X, row_clip, squared)
        self._args = (bool(fit_intercept), int(n_outputs))
        self._chunk = int(chunk_rows)
        self.n_features = self._X.shape[1]
        # The clipped rows' norms, for the gradient clip of every step.
        self._norms = clipped_norms(self._X, self._scale, self._args[0], squared)

    def _clipped_norms(self):
        return self._norms

    def gradient_sum(self, theta, gradient_clip=None, loss=("logistic", 0.0)):
        """:func:`gradient_sum` over all rows (``loss``: its name and Huber width)."""
        norms = None if gradient_clip is None else self._clipped_norms()
        return gradient_sum(
            self._X, self._y, self._scale, theta, *self._args, gradient_clip, *loss,
            norms,
        )  # fmt: skip

    def hessian_sum(self, theta):
        """:func:`hessian_sum` over all rows."""
        return hessian_sum(self._X, self._scale, theta, *self._args, self._chunk)

    def gram_sum(self):
        """:func:`gram_sum` over all rows."""
        return gram_sum(self._X, self._scale, self._args[0], self._chunk)
