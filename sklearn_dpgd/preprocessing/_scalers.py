"""DPMinMaxScaler and DPStandardScaler, public in :mod:`sklearn_dpgd.preprocessing`."""

import math
from numbers import Integral

import numpy as np
from sklearn.base import OneToOneFeatureMixin
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)

from .._public_size import resolve_public_size, split_count_budget
from .._sklearn_compat import Interval
from ..accounting import EpsilonDeltaRecord, GaussianSteps, gdp_mu
from ._base import _SENSITIVITY_FACTOR, _check_bounds, _PrivateTransformer
from ._quantiles import _dp_quantile


def variance_floor(noise_std, n_samples):
    """Public floor of :class:`DPStandardScaler`'s variances, in units of ``r^2``.

    The noisy mean of a column mapped to ``[-1, 1]`` is ``s1 / m``, whose noise
    has std ``noise_std / m`` (the noise of the sum divided by the public size);
    the noisy variance ``s2 / m + 1/2 - mean^2`` has noise of the same std. A
    scale below ``noise_std / m`` is smaller than the error of the centre it
    divides: a near-constant column, or a noise draw that takes a variance
    towards 0, would map that error alone far outside ``[-1, 1]`` (a floor of
    ``1e-3 r`` made scaled values near 2,000 on the breast-cancer recipe and on
    digits). So the scale is floored at ``noise_std / m`` (post-processing of
    public quantities: the noise std and the public size), which bounds every
    scaled value of a clipped column by ``2 m / noise_std`` (a clipped value is
    within ``2 r`` of the mean).

    Parameters
    ----------
    noise_std : float
        Std of the Gaussian noise on each clipped sum (``noise_std_``), > 0.
    n_samples : int
        The public size ``m`` (``public_n_samples_``), >= 1.

    Returns
    -------
    floor : float
        ``min(1, max(1e-6, (noise_std / m)^2))``.
    """
    return min(1.0, max(1e-6, (noise_std / n_samples) ** 2))


class DPMinMaxScaler(OneToOneFeatureMixin, _PrivateTransformer):
    """Clip each column to bounds and map it to ``[0, 1]``; private bounds.

    The bounds are either declared public (``bounds``, e.g. from a data
    dictionary: nothing is read, nothing is charged) or estimated privately from
    a public candidate range (``bounds_range``): the ``quantiles`` of every column,
    each drawn by the exponential mechanism (Smith, "Privacy-preserving
    statistical estimation with optimal convergence rates", STOC 2011), with
    ``epsilon / (2 n_features)`` each: ``epsilon``-DP in total by basic
    composition (Dwork & Roth 2014, Thm 3.16), recorded as an
    :class:`~sklearn_dpgd.accounting.EpsilonDeltaRecord` with ``delta = 0``.

    The mechanism draws an interval between consecutive clipped values with
    probability proportional to its width, so a value that many rows share has
    no width of its own: when a column's mass sits on the lower end of
    ``bounds_range`` (e.g. a capital loss that is 0 for most people and a range
    starting at 0), the low quantile lands on the first value above it. Start the
    range one unit below the smallest possible value, as
    :func:`~sklearn_dpgd.datasets.private_pipeline` does, so that the shared value
    owns the interval below it.

    Parameters
    ----------
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Public ``(lo, hi)`` of every column (a pair applies to all columns).
    bounds_range : array-like of shape (2,) or (n_features, 2), default=None
        Public range in which the private bounds are searched; required when
        ``bounds`` is None. Values outside it count as its ends.
    quantiles : tuple of two floats, default=(0.01, 0.99)
        The quantiles that become the lower and upper bound, ``0 <= q_lo < q_hi
        <= 1``.
    epsilon : float, default=1.0
        Budget of the private bounds, > 0 (unused with declared ``bounds``).
    delta : float, default=1e-8
        Unused by this pure-DP mechanism (``delta_ = 0``); kept so that a
        pipeline can set every step alike.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation (the mechanism is ``epsilon``-DP under both).
    random_state : None, int or RandomState, default=None
        None: fresh OS entropy; an int fixes the noise and warns.
    secure_mode : bool, default=False
        Draw from the OS CSPRNG (ignores ``random_state``).

    Attributes
    ----------
    bounds_ : ndarray of shape (n_features, 2)
        The bounds used (declared, or private: differentially private).
    epsilon_, delta_ : float
        Spent (0 with declared bounds).
    ledger_ : EpsilonDeltaRecord or tuple
        What ran (empty tuple with declared bounds).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Raises
    ------
    ValueError
        In ``fit``: if both or neither of ``bounds`` and ``bounds_range`` are
        given, their shape or values are invalid, or ``quantiles`` is invalid.
    """

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "bounds": ["array-like", None],
        "bounds_range": ["array-like", None],
        "quantiles": [tuple, list],
    }

    def __init__(
        self,
        bounds=None,
        *,
        bounds_range=None,
        quantiles=(0.01, 0.99),
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        random_state=None,
        secure_mode=False,
    ):
        self.bounds = bounds
        self.bounds_range = bounds_range
        self.quantiles = quantiles
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _reads_data(self):
        return self.bounds is None

    def _gdp_ledger_refusal(self):
        if self._reads_data():
            return "private bounds are a pure-DP exponential mechanism"
        return None

    def fit(self, X, y=None):
        """Set the bounds: declared, or DP quantiles of each column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric; NaN is not accepted (impute first).
        y : None
            Ignored.

        Returns
        -------
        self : DPMinMaxScaler
            The fitted transformer.
        """
        self._check_common()
        if (self.bounds is None) == (self.bounds_range is None):
            raise ValueError("give exactly one of bounds and bounds_range.")
        q = tuple(float(v) for v in self.quantiles)
        if len(q) != 2 or not 0.0 <= q[0] < q[1] <= 1.0:
            raise ValueError(
                f"quantiles must be two floats 0 <= q_lo < q_hi <= 1, got "
                f"{self.quantiles!r}."
            )
        X = validate_data(self, X, dtype=np.float64)
        d = X.shape[1]
        if self.bounds is not None:
            self.bounds_ = _check_bounds(self.bounds, d, "bounds")
            self._set_spend(None)
            return self
        search = _check_bounds(self.bounds_range, d, "bounds_range")
        record = EpsilonDeltaRecord(float(self.epsilon), 0.0)
        rng = self._charge(record)
        eps_each = float(self.epsilon) / (2 * d)
        bounds = np.empty((d, 2))
        for j in range(d):
            lo, hi = search[j]
            est = sorted(_dp_quantile(X[:, j], lo, hi, qk, eps_each, rng) for qk in q)
            if est[1] <= est[0]:
                # Post-processing: a degenerate pair keeps a positive width.
                est[1] = min(hi, est[0] + 1e-9 * (hi - lo))
                est[0] = est[1] - 1e-9 * (hi - lo)
            bounds[j] = est
        self.bounds_ = bounds
        self._set_spend(record)
        return self

    def transform(self, X):
        """Clip to ``bounds_`` and map to ``[0, 1]``.

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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        lo, hi = self.bounds_[:, 0], self.bounds_[:, 1]
        return (np.clip(X, lo, hi) - lo) / (hi - lo)


class DPStandardScaler(OneToOneFeatureMixin, _PrivateTransformer):
    """Standardize with a DP mean and variance of columns clipped to bounds.

    Each column ``j`` is clipped to the declared ``bounds`` ``[a_j, b_j]`` and
    mapped to ``u = (x - c_j) / r_j`` in ``[-1, 1]`` (``c``: centre, ``r``: half
    width). The vector of sums ``(sum u_j, sum (u_j^2 - 1/2))`` over the rows has
    L2 sensitivity ``sqrt(1.25 n_features)`` under add/remove (one row's vector
    has at most that norm; twice it under replace) and is released by the
    Gaussian mechanism (Dwork & Roth 2014, Thm A.1) with noise std
    ``sensitivity / mu_sums``. The divisor is the public size
    (:mod:`sklearn_dpgd._public_size`): declared, exact under replace, or a noisy
    count that takes ``COUNT_SHARE`` of ``mu^2``. Both are Gaussian steps:
    ``mu^2 = mu_count^2 + mu_sums^2 = gdp_mu(epsilon, delta)^2``.

    Parameters
    ----------
    bounds : array-like of shape (2,) or (n_features, 2)
        Public ``(lo, hi)`` of every column (required). For private bounds, put a
        :class:`DPMinMaxScaler` with ``bounds_range`` first and declare
        ``bounds=(0, 1)`` here: its output is in ``[0, 1]``, and the two
        mechanisms compose (e.g. in a
        :class:`~sklearn_dpgd.pipeline.PrivatePipeline`).
    epsilon : float, default=1.0
        Budget of the mechanism, > 0.
    delta : float, default=1e-8
        In (0, 1).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation (replace-one doubles the sensitivity).
    public_n_samples : int or None, default=None
        A declared public number of rows (>= 2); under add/remove, None spends
        ``COUNT_SHARE`` of the budget on a noisy count.
    clip : bool, default=True
        Clip the columns to ``bounds`` in ``transform`` too.
    random_state : None, int or RandomState, default=None
        None: fresh OS entropy; an int fixes the noise and warns.
    secure_mode : bool, default=False
        Draw from the OS CSPRNG (ignores ``random_state``).

    Attributes
    ----------
    mean_, var_, scale_ : ndarray of shape (n_features,)
        DP mean, variance and ``sqrt(var_)``. The variance is floored at
        ``var_floor_ r^2`` (``r``: half the width of the column's bounds): a
        scale below the std of the noisy mean cannot be told from 0, and
        would blow the column's values up. Every scaled value of a clipped
        column is then within ``2 / sqrt(var_floor_)``.
    var_floor_ : float
        ``(noise_std_ / public_n_samples_)^2`` (within ``[1e-6, 1]``): the
        public floor of the variances in units of ``r^2``
        (:func:`variance_floor`).
    noise_std_ : float
        Std of the Gaussian noise on each clipped sum (units of ``u``).
    public_n_samples_ : int
        The public size used as divisor.
    epsilon_, delta_ : float
    ledger_ : tuple of GaussianSteps
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Raises
    ------
    ValueError
        In ``fit``: if ``bounds`` is missing or invalid, or a parameter is out of
        range.
    """

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "bounds": ["array-like", None],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "clip": ["boolean"],
    }

    def __init__(
        self,
        bounds=None,
        *,
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        public_n_samples=None,
        clip=True,
        random_state=None,
        secure_mode=False,
    ):
        self.bounds = bounds
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.clip = clip
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _reads_data(self):
        return True

    def fit(self, X, y=None):
        """Estimate the DP mean and variance of every clipped column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The private training data (numeric, finite).
        y : None
            Ignored.

        Returns
        -------
        self : DPStandardScaler
            The fitted transformer.
        """
        self._check_common()
        if self.bounds is None:
            raise ValueError("bounds is required (public (lo, hi) of every column).")
        X = validate_data(self, X, dtype=np.float64)
        d = X.shape[1]
        b = self.bounds_ = _check_bounds(self.bounds, d, "bounds")
        mu = gdp_mu(self.epsilon, self.delta)
        z_count, mu_sums = split_count_budget(
            mu, self.neighboring, self.public_n_samples
        )
        count = z_count is not None
        steps = ((GaussianSteps(z_count),) if count else ()) + (
            GaussianSteps(1.0 / mu_sums),
        )
        rng = self._charge(steps)
        size = resolve_public_size(
            X.shape[0],
            neighboring=self.neighboring,
            public_n_samples=self.public_n_samples,
            noise_multiplier=z_count,
            rng=rng,
        )
        m = self.public_n_samples_ = size.n_samples
        c, r = (b[:, 0] + b[:, 1]) / 2, (b[:, 1] - b[:, 0]) / 2
        u = (np.clip(X, b[:, 0], b[:, 1]) - c) / r
        sensitivity = _SENSITIVITY_FACTOR[self.neighboring] * math.sqrt(1.25 * d)
        self.noise_std_ = sensitivity / mu_sums
        noise = self.noise_std_ * np.asarray(rng.standard_normal(2 * d))
        s1 = u.sum(axis=0) + noise[:d]
        s2 = (u * u - 0.5).sum(axis=0) + noise[d:]
        # Post-processing of the noisy sums: means in [-1, 1], variances in
        # [floor, 1] (units of r), the floor public (see variance_floor).
        mean_u = np.clip(s1 / m, -1.0, 1.0)
        self.var_floor_ = variance_floor(self.noise_std_, m)
        var_u = np.clip(s2 / m + 0.5 - mean_u**2, self.var_floor_, 1.0)
        self.mean_ = c + r * mean_u
        self.var_ = var_u * r * r
        self.scale_ = np.sqrt(self.var_)
        self._set_spend(steps)
        return self

    def transform(self, X):
        """Clip (if ``clip``), subtract ``mean_`` and divide by ``scale_``.

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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.clip:
            X = np.clip(X, self.bounds_[:, 0], self.bounds_[:, 1])
        return (X - self.mean_) / self.scale_
