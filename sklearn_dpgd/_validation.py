"""Validation of the private training data, shared by every estimator.

What is checked here is refused before any mechanism runs, and no message names a
value of the private data: labels outside the declared ``classes`` are refused
without saying which (or how many) they are.
"""

import re

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array as _sklearn_check_array
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from ._warnings import warn_once
from .exceptions import PrivacyLeakWarning

__all__ = [
    "as_float64",
    "check_array",
    "encode_labels",
    "validate_data",
    "validate_fit_data",
    "without_private_values",
]

_RESHAPE = (
    "Reshape your data either using array.reshape(-1, 1) if your data has a single "
    "feature or array.reshape(1, -1) if it contains a single sample."
)
_NOT_SHOWN = " (The values are not shown: they are private data.)"
# NumPy's and scikit-learn's messages that print the offending values (the
# string that is not a number, the whole 1-D or complex array), and what the
# package says instead: the same advice, no value.
_VALUE_ECHOES = (
    (
        ("could not convert", "invalid literal"),
        "The input holds a value that is not a number (a string?): encode the "
        "categorical columns first (sklearn_dpgd.preprocessing.DPOneHotEncoder, "
        "or DPTableVectorizer for a DataFrame).",
    ),
    (("Complex data not supported",), "Complex data not supported."),
    (
        ("Expected 2D array, got 1D array instead",),
        "Expected 2D array, got 1D array instead. " + _RESHAPE,
    ),
    (
        ("Expected 2D array, got scalar array instead",),
        "Expected 2D array, got scalar array instead. " + _RESHAPE,
    ),
)


# scikit-learn's messages that print the number of rows, which is private under
# add/remove-one: the same words without the numbers.
_SIZE_ECHOES = (
    (re.compile(r"numbers of samples: \[[^\]]*\]"), "numbers of samples"),
    (re.compile(r"of shape \([^)]*\) instead"), "of another shape instead"),
    # The feature count stays (scikit-learn's estimator checks match on it).
    (re.compile(r"\(shape=\(\d+, (\d+)\)\)"), r"(shape=(, \1))"),
    (re.compile(r", expected \(\d+,\)"), ""),
)
_SIZE_NOT_SHOWN = " (The number of rows is not shown: it is private data.)"


def without_private_values(exc):
    """The message to raise instead of ``exc``'s, or None if it prints no data.

    Parameters
    ----------
    exc : Exception
        An error of NumPy's or scikit-learn's input validation.

    Returns
    -------
    message : str or None
        ``exc``'s advice without the data values (strings, arrays) or the
        number of rows it printed; None when it printed neither.
    """
    text = str(exc)
    for needles, message in _VALUE_ECHOES:
        if any(needle in text for needle in needles):
            return message + _NOT_SHOWN
    hidden = text
    for pattern, replacement in _SIZE_ECHOES:
        hidden = pattern.sub(replacement, hidden)
    return None if hidden == text else hidden + _SIZE_NOT_SHOWN


def validate_data(*args, **kwargs):
    """:func:`sklearn.utils.validation.validate_data`, with no data value in errors.

    Same parameters and return values. NumPy's "could not convert string to
    float: '...'" and scikit-learn's 1-D and complex-array errors print the
    offending values, and its shape errors the number of rows (private under
    add/remove-one); those errors are raised again with the same advice and no
    value (and without the original exception attached,
    whose message would show it in a traceback). Other errors pass unchanged.

    Raises
    ------
    ValueError
        As :func:`sklearn.utils.validation.validate_data`.
    """
    try:
        return _sklearn_validate_data(*args, **kwargs)
    except ValueError as exc:
        message = without_private_values(exc)
        if message is None:
            raise
    raise ValueError(message)


def check_array(*args, **kwargs):
    """:func:`sklearn.utils.check_array`, with no data value in errors.

    As :func:`validate_data`: same parameters and return value.

    Raises
    ------
    ValueError
        As :func:`sklearn.utils.check_array`.
    """
    try:
        return _sklearn_check_array(*args, **kwargs)
    except ValueError as exc:
        message = without_private_values(exc)
        if message is None:
            raise
    raise ValueError(message)


def as_float64(X):
    """``np.asarray(X, dtype=np.float64)``, with no data value in errors.

    For the package's row-wise functions: any shape, NaN and inf pass as with
    ``np.asarray``; a string that is not a number is refused as by
    :func:`check_array`, without the value.

    Parameters
    ----------
    X : array-like

    Returns
    -------
    X : ndarray of float64
        ``X`` itself when it already is one.
    """
    return check_array(
        X,
        dtype=np.float64,
        ensure_all_finite=False,
        ensure_2d=False,
        allow_nd=True,
        ensure_min_samples=0,
        ensure_min_features=0,
    )


def encode_labels(estimator, y, *, stacklevel=4):
    """Set ``estimator.classes_`` and return the labels as class indices.

    Parameters
    ----------
    estimator : estimator object
        With a ``classes`` parameter: the public label set, or None.
    y : ndarray of shape (n_samples,)
        Private labels (or, for dask input, the labels outside ``classes``).
    stacklevel : int, default=4
        Of the warning, so that it points at the user's ``fit`` call.

    Returns
    -------
    y_index : ndarray of shape (n_samples,), int64
        Indices into ``classes_``.

    Raises
    ------
    ValueError
        If ``y`` is not a classification target, ``classes`` is not 1-D, has
        duplicates or fewer than 2 labels, ``y`` has a label outside it (the
        message does not name it), or, with ``classes=None``, ``y`` has one class.

    Warns
    -----
    PrivacyLeakWarning
        If ``classes`` is None: the label set is read from ``y``.
    """
    check_classification_targets(y)
    if estimator.classes is None:
        warn_once(
            "classes=None: the set of labels is read from y, so which labels are "
            "present in the private data is not protected. Pass the public label "
            "set as `classes` to avoid this.",
            PrivacyLeakWarning,
            stacklevel=stacklevel,
        )
        classes = np.unique(y)
        if classes.shape[0] < 2:
            # Under the warning above the label set is released anyway.
            raise ValueError(
                "This solver needs samples of at least 2 classes in the data, but "
                f"the data contains only one class: {classes[0]!r}."
            )
    else:
        declared = np.asarray(estimator.classes)
        if declared.ndim != 1:
            raise ValueError(
                f"classes must be one-dimensional, got shape {declared.shape}."
            )
        classes = np.unique(declared)
        if classes.shape[0] != declared.shape[0]:
            raise ValueError("classes must not contain duplicates.")
        if classes.shape[0] < 2:
            raise ValueError(
                f"classes must name at least 2 classes, got {classes.tolist()}."
            )
        if not np.all(np.isin(y, classes)):
            raise ValueError(
                f"y contains labels that are not in classes={classes.tolist()} (the "
                "labels are not shown: they are private data)."
            )
    estimator.classes_ = classes
    return np.searchsorted(classes, y).astype(np.int64)


def validate_fit_data(estimator, X, y):
    """Validate in-memory training data; return ``(X, y_index)``.

    Parameters
    ----------
    estimator : estimator object
        Receives ``n_features_in_``, ``feature_names_in_`` and ``classes_``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    X : ndarray (C-contiguous) or CSR matrix (canonical), float32 or float64
    y_index : ndarray of shape (n_samples,), int64

    Raises
    ------
    ValueError
        As :func:`sklearn.utils.validation.validate_data` (fewer than 2 rows, NaN,
        inf, strings) and :func:`encode_labels`.
    """
    X, y = validate_data(
        estimator,
        X,
        y,
        accept_sparse="csr",
        dtype=[np.float64, np.float32],
        order="C",
        ensure_min_samples=2,
    )
    if sp.issparse(X) and not X.has_canonical_format:
        # Duplicate entries would make the precomputed row norms (and so the clip
        # factors) wrong; sum them on a copy, never in the caller's matrix.
        X = X.copy()
        X.sum_duplicates()
    return X, encode_labels(estimator, y, stacklevel=5)
