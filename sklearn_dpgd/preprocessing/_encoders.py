"""DPOneHotEncoder, re-exported by :mod:`sklearn_dpgd.preprocessing`."""

import math
from collections import Counter

import numpy as np
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
    validate_data,
)

from .._sklearn_compat import StrOptions
from ..accounting import EpsilonDeltaRecord
from ._base import _PrivateTransformer
from ._histogram import _category_key, _is_missing, stable_histogram_threshold


class DPOneHotEncoder(_PrivateTransformer):
    """One-hot encoding with declared or privately selected categories.

    With declared ``categories`` (a data dictionary) nothing is read and nothing
    charged. With ``categories="private"`` the categories of every column are
    those whose noisy count passes the threshold of
    :func:`stable_histogram_threshold` (an ``(epsilon, delta)``-DP stable
    histogram). Values outside the categories (unknown, rare, missing) go to one
    ``<feature>_other`` column per feature, so the output width depends only on
    the (public or private) categories.

    Parameters
    ----------
    categories : "private" or list of array-like, default="private"
        ``categories[j]``: the declared values of column ``j``.
    epsilon : float, default=1.0
        > 0 (unused with declared categories).
    delta : float, default=1e-8
        In (0, 1) (unused with declared categories).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation.
    random_state : None, int or RandomState, default=None
        None: fresh OS entropy; an int fixes the noise and warns.
    secure_mode : bool, default=False
        Draw from the OS CSPRNG (ignores ``random_state``).

    Attributes
    ----------
    categories_ : list of ndarray of object
        The categories of every column (sorted by their string when private).
    noise_std_, threshold_ : float
        ``sigma`` and ``tau`` of the private selection (NaN when declared).
    epsilon_, delta_ : float
    ledger_ : EpsilonDeltaRecord or tuple
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Raises
    ------
    ValueError
        In ``fit``: if ``categories`` has the wrong length.
    """

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "categories": [StrOptions({"private"}), list],
    }

    def __init__(
        self,
        categories="private",
        *,
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        random_state=None,
        secure_mode=False,
    ):
        self.categories = categories
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _reads_data(self):
        return isinstance(self.categories, str)

    def _gdp_ledger_refusal(self):
        if self._reads_data():
            return "private categories are an (epsilon, delta) stable histogram"
        return None

    def _validate(self, X, reset):
        return validate_data(
            self, X, dtype=None, ensure_all_finite=False, reset=reset
        ).astype(object)

    def fit(self, X, y=None):
        """Set the categories: declared, or selected by the stable histogram.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Any values; None and NaN count as missing.
        y : None
            Ignored.

        Returns
        -------
        self : DPOneHotEncoder
            The fitted transformer.
        """
        self._check_common()
        X = self._validate(X, reset=True)
        d = X.shape[1]
        self.noise_std_ = self.threshold_ = math.nan
        if not self._reads_data():
            if len(self.categories) != d:
                raise ValueError(
                    f"categories must hold one list per column ({d}), got "
                    f"{len(self.categories)}."
                )
            self.categories_ = [
                np.array(list(c), dtype=object) for c in self.categories
            ]
            self._set_spend(None)
            return self
        sigma, tau = stable_histogram_threshold(
            float(self.epsilon), float(self.delta), d, self.neighboring
        )
        record = EpsilonDeltaRecord(float(self.epsilon), float(self.delta))
        rng = self._charge(record)
        self.categories_ = []
        for j in range(d):
            # One bin per exact spelling (type and repr): values Python calls
            # equal (1, 1.0, True; 0.0, -0.0) must not share a bin whose released
            # form would be that of whichever row came first.
            counts = Counter(_category_key(v) for v in X[:, j] if not _is_missing(v))
            keys = sorted(counts, key=lambda k: (k[1], k[0]))
            values = [value for _, _, value in keys]
            noisy = np.array([counts[k] for k in keys], dtype=float)
            noisy += sigma * np.asarray(rng.standard_normal(len(values)))
            kept = [v for v, c in zip(values, noisy, strict=True) if c > tau]
            self.categories_.append(np.array(kept, dtype=object))
        self.noise_std_, self.threshold_ = sigma, tau
        self._set_spend(record)
        return self

    def transform(self, X):
        """One column per category and one ``other`` column per feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to transform.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_output_features)
            0/1 floats.
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        blocks = []
        for j, cats in enumerate(self.categories_):
            index = {c: i for i, c in enumerate(cats)}
            codes = np.array(
                [
                    index.get(v, len(cats)) if not _is_missing(v) else len(cats)
                    for v in X[:, j]
                ],
                dtype=np.intp,
            )
            block = np.zeros((X.shape[0], len(cats) + 1))
            block[np.arange(X.shape[0]), codes] = 1.0
            blocks.append(block)
        return np.hstack(blocks)

    def get_feature_names_out(self, input_features=None):
        """``<feature>_<category>`` and ``<feature>_other`` for every feature.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; ``feature_names_in_`` or ``x0, x1, ...`` if None.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        out = [
            f"{name}_{c}"
            for name, cats in zip(names, self.categories_, strict=True)
            for c in [*cats, "other"]
        ]
        return np.asarray(out, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags
