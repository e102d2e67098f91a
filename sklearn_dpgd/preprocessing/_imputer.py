"""DPSimpleImputer, re-exported by :mod:`sklearn_dpgd.preprocessing`."""

import math
from numbers import Real

import numpy as np
from sklearn.base import OneToOneFeatureMixin
from sklearn.utils.validation import check_is_fitted

from .._sklearn_compat import StrOptions
from .._validation import validate_data
from ..accounting import GaussianSteps, gdp_mu
from ._base import _SENSITIVITY_FACTOR, _check_bounds, _PrivateTransformer


class DPSimpleImputer(OneToOneFeatureMixin, _PrivateTransformer):
    """Fill missing values (NaN) with a constant or a DP mean within bounds.

    ``strategy="constant"`` reads nothing. ``strategy="mean"`` clips each column
    to the declared ``bounds``, maps it to ``u`` in ``[-1, 1]`` and releases, by
    the Gaussian mechanism, the sums of ``u`` over the observed values and the
    numbers of observed values: one row's vector has L2 norm at most
    ``sqrt(2 n_features)`` (twice it under replace). The mean is ``c + r S / max(C,
    1)``, clipped to the bounds (post-processing); no public size is needed.

    Parameters
    ----------
    strategy : {"mean", "constant"}, default="mean"
        DP mean within ``bounds``, or ``fill_value``.
    fill_value : float, default=0.0
        The constant of ``strategy="constant"``.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Public ``(lo, hi)`` of every column; required by ``"mean"``.
    epsilon : float, default=1.0
        Budget of the DP mean, > 0 (unused by "constant").
    delta : float, default=1e-8
        In (0, 1) (unused by "constant").
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation.
    random_state : None, int or RandomState, default=None
        None: fresh OS entropy; an int fixes the noise and warns.
    secure_mode : bool, default=False
        Draw from the OS CSPRNG (ignores ``random_state``).

    Attributes
    ----------
    statistics_ : ndarray of shape (n_features,)
        The fill value of every column.
    noise_std_ : float
        Noise std on each sum and count (NaN for "constant").
    epsilon_, delta_ : float
    ledger_ : tuple of GaussianSteps
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Raises
    ------
    ValueError
        In ``fit``: if ``strategy="mean"`` without valid ``bounds``.
    """

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "strategy": [StrOptions({"mean", "constant"})],
        "fill_value": [Real],
        "bounds": ["array-like", None],
    }

    def __init__(
        self,
        strategy="mean",
        *,
        fill_value=0.0,
        bounds=None,
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        random_state=None,
        secure_mode=False,
    ):
        self.strategy = strategy
        self.fill_value = fill_value
        self.bounds = bounds
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _reads_data(self):
        return self.strategy == "mean"

    def _validate(self, X, reset):
        return validate_data(
            self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset
        )

    def fit(self, X, y=None):
        """Set the fill values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric; NaN marks a missing value.
        y : None
            Ignored.

        Returns
        -------
        self : DPSimpleImputer
            The fitted transformer.
        """
        self._check_common()
        X = self._validate(X, reset=True)
        d = X.shape[1]
        self.noise_std_ = math.nan
        if not self._reads_data():
            self.statistics_ = np.full(d, float(self.fill_value))
            self._set_spend(None)
            return self
        if self.bounds is None:
            raise ValueError('strategy="mean" requires bounds (public (lo, hi)).')
        b = _check_bounds(self.bounds, d, "bounds")
        mu = gdp_mu(self.epsilon, self.delta)
        steps = (GaussianSteps(1.0 / mu),)
        rng = self._charge(steps)
        c, r = (b[:, 0] + b[:, 1]) / 2, (b[:, 1] - b[:, 0]) / 2
        observed = ~np.isnan(X)
        u = np.where(observed, (np.clip(X, b[:, 0], b[:, 1]) - c) / r, 0.0)
        sensitivity = _SENSITIVITY_FACTOR[self.neighboring] * math.sqrt(2.0 * d)
        self.noise_std_ = sensitivity / mu
        noise = self.noise_std_ * np.asarray(rng.standard_normal(2 * d))
        s = u.sum(axis=0) + noise[:d]
        n_obs = np.maximum(observed.sum(axis=0) + noise[d:], 1.0)
        self.statistics_ = c + r * np.clip(s / n_obs, -1.0, 1.0)
        self._set_spend(steps)
        return self

    def transform(self, X):
        """Replace NaN by ``statistics_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to transform.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
            The transformed data.
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        return np.where(np.isnan(X), self.statistics_, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
