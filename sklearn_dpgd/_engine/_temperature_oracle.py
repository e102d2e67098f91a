"""The private oracle of the shared temperature of a multinomial model's scores.

Split from :mod:`sklearn_dpgd._engine._oracle` (which re-exports it) to keep that
module within the house style's size; like every oracle, it charges its filter
before it reads a row.
"""

import numpy as np

from ..accounting import GaussianSteps

__all__ = ["SharedTemperatureOracle"]


class SharedTemperatureOracle:
    """The private gradient of one shared temperature of multinomial scores.

    The model is ``softmax(w u_i)`` with ``u_i`` a row of fixed features in
    ``[-1, 1]^K`` (the released model's scores, scaled and clipped) and one weight
    ``w``. A row's gradient is ``g_i = sum_k (p_ik - [y_i = k]) u_ik``: since the
    ``p_i - e_{y_i}`` has L1 norm at most 2 and ``|u_ik| <= 1``, ``|g_i| <= 2``,
    so the sum's sensitivity is 2 under add/remove (4 under replace-one) without
    any clipping. Each query charges a
    :class:`~sklearn_dpgd.accounting.GaussianSteps` before it reads a row.

    Parameters
    ----------
    U : ndarray of shape (n_samples, n_classes)
        The features, each entry in ``[-1, 1]`` (checked).
    y : ndarray of shape (n_samples,)
        Class indices in ``[0, n_classes)``.
    sensitivity_factor : float
        1 (add/remove one row) or 2 (replace one row).
    privacy_filter : GaussianPrivacyFilter
        Charged before each query.
    rng : numpy.random.Generator or SecureGenerator
        Source of the Gaussian noise.
    public_n_samples : int
        ``m``, the public size: the divisor of the sum.

    Notes
    -----
    Temperature scaling (Guo, Pleiss, Sun & Weinberger, ICML 2017, Sec. 4.2) of a
    multinomial model, trained as the binary stage of
    :mod:`sklearn_dpgd.linear_model._calibration` is, by noisy gradient descent
    (Hong, Wang & Zhou, FAccT 2022, Algorithm 1) on a one-parameter model.
    """

    #: ``sup |g_i|``: the L1 norm of ``p - e_y`` (2) times ``max |u_ik|`` (1).
    ROW_BOUND = 2.0

    def __init__(
        self, U, y, *, sensitivity_factor, privacy_filter, rng, public_n_samples
    ):
        U = np.asarray(U, dtype=np.float64)
        if U.ndim != 2 or np.abs(U).max(initial=0.0) > 1.0:
            raise ValueError("U must be a 2-D array with entries in [-1, 1].")
        self._U = U
        self._onehot = np.zeros_like(U)
        self._onehot[np.arange(U.shape[0]), np.asarray(y, dtype=np.int64)] = 1.0
        self._factor = float(sensitivity_factor)
        self.privacy_filter = privacy_filter
        self._rng = rng
        self.n_samples = int(public_n_samples)

    def noisy_gradient(self, w, noise_multiplier):
        """Private mean gradient ``(sum_i g_i + N(0, (z 2 factor)^2)) / m``.

        Parameters
        ----------
        w : float
            The shared weight of the scores.
        noise_multiplier : float
            ``z`` > 0.

        Returns
        -------
        grad : float

        Raises
        ------
        BudgetExhaustedError
            If the query would overspend; nothing is computed then.
        """
        self.privacy_filter.charge(GaussianSteps(noise_multiplier))
        logits = w * self._U
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        total = float(np.sum((p - self._onehot) * self._U))
        sigma = noise_multiplier * self._factor * self.ROW_BOUND
        return (total + sigma * float(self._rng.standard_normal())) / self.n_samples
