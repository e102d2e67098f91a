"""The scikit-learn internals this package builds on, imported in one place.

These names live in scikit-learn's private modules (``sklearn.utils._param_validation``,
``sklearn.utils._set_output``, ...) or are underscore-prefixed, so they are not part of
scikit-learn's public API and may move or change between releases. Every module of the
package imports them from here, so that a version shim, when a release needs one, is
written once. None is needed for the supported range (``scikit-learn>=1.6``,
``pyproject.toml``); nothing here branches on a version today.
"""

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

__all__ = [
    "HasMethods",
    "Interval",
    "StrOptions",
    "_BaseComposition",
    "_check_feature_names",
    "_check_n_features",
    "_safe_set_output",
    "available_if",
    "validate_params",
]
