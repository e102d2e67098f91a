"""Validation of the private training data, shared by every estimator.

What is checked here is refused before any mechanism runs, and no message names a
value of the private data: labels outside the declared ``classes`` are refused
without saying which (or how many) they are.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._warnings import warn_once
from .exceptions import PrivacyLeakWarning

__all__ = ["encode_labels", "validate_fit_data"]


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
