"""The private oracle: the only code that reads the private data.

Every answer it gives is privatised, and every call is charged to the privacy filter
*before* it touches the data: a call that would overspend raises
:class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` and computes nothing.
Optimisers (``_solver.py``) see only what the oracle returns.
"""

from ._kernels import clipped_gradient_sum


class PrivateGradientOracle:
    """Noisy clipped gradients of a linear model (the Gaussian mechanism).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous float64
        Private features, validated finite.
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
        Private labels.
    loss : int
        Loss code (:mod:`sklearn_dpgd._losses`).
    huber_width : float
        Huber width ``h`` (ignored by the logistic loss).
    clip_norm : float
        Per-example clipping threshold ``C`` of the gradient (intercept included).
    sensitivity : float
        L2 sensitivity ``Delta`` of the clipped sum under the neighbouring relation:
        ``C`` (add/remove one row) or ``2 C`` (replace one row).
    fit_intercept : bool
        Whether the last gradient coordinate is the intercept's.
    privacy_filter : GaussianPrivacyFilter
        The ledger charged for each call.
    rng : numpy.random.Generator
        Source of the Gaussian noise.
    """

    def __init__(
        self,
        X,
        y,
        *,
        loss,
        huber_width,
        clip_norm,
        sensitivity,
        fit_intercept,
        privacy_filter,
        rng,
    ):
        self._X = X
        self._y = y
        self._loss = loss
        self._h = huber_width
        self._clip_norm = clip_norm
        self._sensitivity = sensitivity
        self._fit_intercept = fit_intercept
        self.privacy_filter = privacy_filter
        self._rng = rng
        self.n_samples = X.shape[0]
        self.n_features = X.shape[1]

    def noisy_gradient(self, coef, intercept, noise_multiplier):
        """Private mean gradient ``(sum_i clip(g_i, C) + N(0, (z Delta)^2 I)) / n``.

        Parameters
        ----------
        coef : ndarray of shape (n_features,)
        intercept : float
        noise_multiplier : float
            ``z``: noise std in units of the sensitivity ``Delta``.

        Returns
        -------
        grad : ndarray of shape (n_features + 1,)
            The last entry is the intercept's (exactly 0 without an intercept: that
            coordinate is then neither computed nor noised).

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
        self.privacy_filter.charge(noise_multiplier)
        grad = clipped_gradient_sum(
            self._X,
            self._y,
            coef,
            float(intercept),
            self._fit_intercept,
            self._clip_norm,
            self._loss,
            self._h,
        )
        sigma = noise_multiplier * self._sensitivity
        width = self.n_features + 1 if self._fit_intercept else self.n_features
        grad[:width] += sigma * self._rng.standard_normal(width)
        grad /= self.n_samples
        return grad
