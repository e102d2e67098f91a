"""The base of the private transformers of :mod:`sklearn_dpgd.preprocessing`.

Shared parameters and their validation, the seed, the charge of every active
ledger before any row is read, and the spend attributes (``ledger_``,
``epsilon_``, ``delta_``) of what ran.
"""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._boundary import add_secure_support, charge_ledgers
from .._engine._randomness import draw_seed, make_generator
from .._errors import NotFittedAttributesMixin
from .._public_size import SENSITIVITY_FACTOR
from .._sklearn_compat import Interval, StrOptions
from .._validation import validate_data
from ..accounting import (
    EpsilonDeltaRecord,
    _ledger_guard_state,
    gdp_epsilon,
)

# L2 sensitivity of a sum of per-row vectors of bounded norm: the norm bound under
# add/remove-one, twice it under replace-one (a bound on ||v - v'||).
_SENSITIVITY_FACTOR = SENSITIVITY_FACTOR


def _check_bounds(bounds, n_features, name):
    """Bounds as an array of shape (n_features, 2) with finite lo < hi."""
    b = np.asarray(bounds, dtype=float)
    if b.shape == (2,):
        b = np.tile(b, (n_features, 1))
    if b.shape != (n_features, 2):
        raise ValueError(
            f"{name} must be a pair (lo, hi) or of shape (n_features, 2) = "
            f"({n_features}, 2), got shape {b.shape}."
        )
    if not np.all(np.isfinite(b)) or not np.all(b[:, 0] < b[:, 1]):
        raise ValueError(f"{name} must be finite with lo < hi in every row.")
    return b


def _validate_numeric(estimator, X, reset=True):
    """``validate_data`` to float64, with a useful message for missing values.

    scikit-learn's "Input X contains NaN" leaves the user to find the fix; a
    private scaler needs a private imputer in front of it (a non-private
    ``SimpleImputer`` would read the column means). The message names no value.
    """
    try:
        return validate_data(estimator, X, dtype=np.float64, reset=reset)
    except ValueError as exc:
        if "NaN" not in str(exc):
            raise
        name = type(estimator).__name__
        raise ValueError(
            f"{name} does not accept missing values (NaN): put "
            f"sklearn_dpgd.preprocessing.DPSimpleImputer before it (a private "
            f"mean or a constant fill value), or use DPTableVectorizer with the "
            f"column listed in missing=."
        ) from None


class _PrivateTransformer(NotFittedAttributesMixin, TransformerMixin, BaseEstimator):
    """Shared parameters, seed, charge and spend of the private transformers."""

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
    }

    def _reads_data(self):
        """Whether ``fit`` reads the private rows (else nothing is charged)."""
        raise NotImplementedError

    def _gdp_ledger_refusal(self):
        """Why a fit is not recorded as full-batch Gaussian steps; None if it is.

        Read by :class:`~sklearn_dpgd.pipeline.PrivatePipeline` (to split the
        budget in ``mu^2``) and by the private searches.
        """
        return None

    def __getstate__(self):
        return _ledger_guard_state(super().__getstate__())

    def _check_common(self):
        self._validate_params()
        if not math.isfinite(self.epsilon):
            raise ValueError(f"epsilon must be finite, got {self.epsilon!r}.")

    def _charge(self, mechanism):
        """Charge the planned mechanism, then return the fit's generator."""
        random_state = None if self.secure_mode else self.random_state
        seed = draw_seed(random_state, owner=type(self).__name__)
        charge = charge_ledgers(self, mechanism, neighboring=self.neighboring)
        charge.settle(mechanism)
        return make_generator(seed, self.secure_mode)

    def _set_spend(self, mechanism):
        """``ledger_``, ``epsilon_`` and ``delta_`` of what ran (None: nothing)."""
        if mechanism is None:
            self.ledger_ = ()
            self.epsilon_, self.delta_ = 0.0, 0.0
        elif isinstance(mechanism, EpsilonDeltaRecord):
            self.ledger_ = mechanism
            self.epsilon_, self.delta_ = mechanism.epsilon, mechanism.delta
        else:
            self.ledger_ = mechanism
            mu = math.sqrt(
                math.fsum(r.count / r.noise_multiplier**2 for r in mechanism)
            )
            self.delta_ = float(self.delta)
            self.epsilon_ = gdp_epsilon(mu, self.delta_)
        if mechanism is not None:
            add_secure_support(self, n_generators=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Declared statistics read nothing: the fit is then deterministic.
        tags.non_deterministic = self._reads_data()
        return tags


def row_wise(func):
    """Declare a function row-wise, so a ``FunctionTransformer`` of it is safe.

    A :class:`~sklearn.preprocessing.FunctionTransformer` runs its ``func`` on the
    whole matrix, so ``func`` may read every row (``scipy.stats.zscore``
    standardises each column by its mean and standard deviation: private
    statistics, released without noise). The package therefore treats a
    ``FunctionTransformer`` as a leak unless its ``func`` is None, a NumPy ufunc
    (element-wise) or declared row-wise here: each output row a function of its
    own input row and of public constants only. The declaration is the user's
    promise; nothing checks it. It also promises that every private value lies in
    the function's domain: ``np.log`` of a zero or negative value gives ``-inf``
    or ``nan`` with NumPy's ``RuntimeWarning``, so the fit fails or warns exactly
    when some private row is outside the domain, which releases that fact (a
    ufunc is accepted as row-wise, this is not detected). Clip to public bounds
    first, or use a total function (``np.arcsinh``, ``np.log1p`` of clipped
    non-negative values).

    Parameters
    ----------
    func : callable
        The function, e.g. ``lambda X: np.log1p(np.abs(X))``. It is returned
        unchanged, marked with the attribute ``__sklearn_dpgd_row_wise__ = True``
        (kept by ``clone`` and pickling, which keep the function itself).

    Returns
    -------
    func : callable
        The same object.

    Raises
    ------
    TypeError
        If ``func`` is not callable or cannot carry the mark (e.g. a builtin
        function: wrap it in a ``def``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from sklearn_dpgd.pipeline import find_privacy_leaks
    >>> from sklearn_dpgd.preprocessing import row_wise
    >>> @row_wise
    ... def signed_log(X):
    ...     return np.sign(X) * np.log1p(np.abs(X))
    >>> find_privacy_leaks(FunctionTransformer(signed_log))
    []
    """
    if not callable(func):
        raise TypeError(f"row_wise takes a callable, got {type(func).__name__}.")
    try:
        func.__sklearn_dpgd_row_wise__ = True
    except (AttributeError, TypeError):
        raise TypeError(
            f"{func!r} cannot be marked row-wise; wrap it in a def and mark that."
        ) from None
    return func
