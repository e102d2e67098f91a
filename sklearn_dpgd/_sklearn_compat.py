"""The scikit-learn internals this package builds on, imported in one place.

These names live in scikit-learn's private modules (``sklearn.utils._param_validation``,
``sklearn.utils._set_output``, ...) or are underscore-prefixed, so they are not part of
scikit-learn's public API and may move or change between releases. Every module of the
package imports them from here, so that a version shim, when a release needs one, is
written once. One is needed for the supported range (``scikit-learn>=1.6``,
``pyproject.toml``): :func:`_check_sample_weight`.
"""

import inspect

from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
    validate_params,
)
from sklearn.utils._set_output import _safe_set_output
from sklearn.utils.metaestimators import _BaseComposition
from sklearn.utils.validation import _check_feature_names, _check_n_features
from sklearn.utils.validation import (
    _check_sample_weight as _sklearn_check_sample_weight,
)

# scikit-learn 1.9 refuses all-zero weights unless ``allow_all_zero_weights=True``;
# 1.6-1.8 neither refuse them nor know the keyword.
_HAS_ALLOW_ALL_ZERO = "allow_all_zero_weights" in (
    inspect.signature(_sklearn_check_sample_weight).parameters
)


def _check_sample_weight(sample_weight, X, *, dtype=None, copy=False):
    """scikit-learn's ``_check_sample_weight``, all-zero weights allowed.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), float or None
        The weights to check (a scalar or None gives equal weights).
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data the weights belong to (only its number of rows is read).
    dtype : numpy dtype or None, default=None
        The dtype of the returned weights.
    copy : bool, default=False
        Whether to copy the weights.

    Returns
    -------
    ndarray of shape (n_samples,)
        The weights.

    Raises
    ------
    ValueError
        If the weights' shape does not match ``X``'s rows.
    """
    if _HAS_ALLOW_ALL_ZERO:
        return _sklearn_check_sample_weight(
            sample_weight, X, dtype=dtype, copy=copy, allow_all_zero_weights=True
        )
    return _sklearn_check_sample_weight(sample_weight, X, dtype=dtype, copy=copy)


__all__ = [
    "HasMethods",
    "Interval",
    "StrOptions",
    "_BaseComposition",
    "_check_feature_names",
    "_check_n_features",
    "_check_sample_weight",
    "_safe_set_output",
    "available_if",
    "validate_params",
]
