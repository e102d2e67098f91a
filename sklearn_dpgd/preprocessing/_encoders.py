"""DPOneHotEncoder, re-exported by :mod:`sklearn_dpgd.preprocessing`."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
)

from .._sklearn_compat import Interval, StrOptions
from .._validation import validate_data
from ..accounting import EpsilonDeltaRecord, GaussianSteps, gdp_mu
from ._base import _PrivateTransformer
from ._histogram import (
    _category_key,
    _is_missing,
    _key_counts,
    stable_histogram_threshold,
)


class DPOneHotEncoder(_PrivateTransformer):
    """One-hot encoding with declared or privately selected categories.

    With declared ``categories`` (a data dictionary) nothing is read and nothing
    charged. With ``categories="private"`` the categories of every column are
    those whose noisy count passes the threshold of
    :func:`stable_histogram_threshold` (an ``(epsilon, delta)``-DP stable
    histogram). Values outside the categories (unknown, rare, missing) go to one
    ``<feature>_other`` column per feature, so the output width depends only on
    the (public or private) categories.

    ``min_frequency`` and ``max_categories`` have scikit-learn's meaning
    (:class:`~sklearn.preprocessing.OneHotEncoder`), decided on noisy counts:
    the infrequent categories join the ``<feature>_other`` column, which plays
    scikit-learn's infrequent category. With private categories the stable
    histogram's noisy counts decide (no extra budget); with declared categories
    the counts of the declared values are released by the Gaussian mechanism
    (L2 sensitivity ``sqrt(n_features)`` under add/remove, ``sqrt(2
    n_features)`` under replace-one: a row holds one value per column) on the
    whole ``(epsilon, delta)``, and the categories themselves stay declared. A
    one-hot column seen in a handful of rows gets a coefficient learned from
    those rows alone under the same noise as every other, so it is as large as
    real effects: grouping them removes that noise (user guide, "Getting good
    accuracy").

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
    min_frequency : int >= 1, float in (0, 1) or None, default=None
        A category whose noisy count is below ``min_frequency`` (an int), or
        below ``min_frequency`` times the column's noisy total (a float: the sum
        of the noisy counts of its categories, since the exact number of rows
        is private), is infrequent. None: no minimum.
    max_categories : int >= 2 or None, default=None
        At most this many output columns per feature, the ``other`` column
        included: the ``max_categories - 1`` categories with the largest noisy
        counts are kept (ties by category order), the rest are infrequent.
        None: no limit.
    random_state : None, int or RandomState, default=None
        None: fresh OS entropy; an int fixes the noise and warns.
    secure_mode : bool, default=False
        Draw from the OS CSPRNG (ignores ``random_state``).

    Attributes
    ----------
    categories_ : list of ndarray of object
        The categories of every column (sorted by their string when private),
        the infrequent ones removed.
    infrequent_categories_ : list of ndarray of object
        The categories of every column grouped into ``other`` by
        ``min_frequency`` or ``max_categories`` (empty arrays without them).
    noise_std_, threshold_ : float
        ``sigma`` and ``tau`` of the private selection (NaN when declared; with
        declared categories and a frequency rule, ``noise_std_`` is the std of
        the Gaussian counts).
    epsilon_, delta_ : float
    ledger_ : EpsilonDeltaRecord or tuple
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Raises
    ------
    ValueError
        In ``fit``: if ``categories`` has the wrong length, or ``min_frequency``
        or ``max_categories`` is out of range (naming it).

    References
    ----------
    Korolova, Kenthapadi, Mishra & Ntoulas, "Releasing search queries and
    clicks privately", WWW 2009 (the stable histogram); Dwork & Roth, "The
    algorithmic foundations of differential privacy", 2014, Thm A.1 (the
    Gaussian counts of declared categories).
    """

    # Pickles from before these parameters existed load and refit as they were.
    min_frequency = None
    max_categories = None

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "categories": [StrOptions({"private"}), list],
        "min_frequency": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
            None,
        ],
        "max_categories": [Interval(Integral, 2, None, closed="left"), None],
    }

    def __init__(
        self,
        categories="private",
        *,
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        min_frequency=None,
        max_categories=None,
        random_state=None,
        secure_mode=False,
    ):
        self.categories = categories
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _frequency_rule(self):
        return self.min_frequency is not None or self.max_categories is not None

    def _reads_data(self):
        return isinstance(self.categories, str) or self._frequency_rule()

    def _gdp_ledger_refusal(self):
        if isinstance(self.categories, str):
            return "private categories are an (epsilon, delta) stable histogram"
        return None  # declared: nothing, or Gaussian counts (GDP)

    def _split_infrequent(self, values, noisy):
        """``(frequent, infrequent)`` values of one column by their noisy counts."""
        keep = np.ones(len(values), dtype=bool)
        if self.min_frequency is not None:
            floor = self.min_frequency
            if isinstance(floor, Real) and not isinstance(floor, Integral):
                floor = floor * max(float(np.sum(noisy)), 0.0)
            keep &= noisy >= floor
        if self.max_categories is not None:
            # Stable sort: ties keep the categories' order.
            order = np.argsort(-noisy, kind="stable")
            top = np.zeros(len(values), dtype=bool)
            top[order[: self.max_categories - 1]] = True
            keep &= top
        frequent = [v for v, k in zip(values, keep, strict=True) if k]
        rare = [v for v, k in zip(values, keep, strict=True) if not k]
        return np.array(frequent, dtype=object), np.array(rare, dtype=object)

    def _fit_declared(self, X):
        """Declared categories; Gaussian counts of them if a frequency rule is set."""
        declared = [list(c) for c in self.categories]
        empty = [np.array([], dtype=object) for _ in declared]
        if not self._frequency_rule():
            self.categories_ = [np.array(c, dtype=object) for c in declared]
            self.infrequent_categories_ = empty
            self._set_spend(None)
            return
        # One row holds one value per column: it changes at most n_features
        # counts by 1 (add/remove), or moves one count to another in each
        # column (replace): L2 sensitivity sqrt(d), or sqrt(2 d).
        d = len(declared)
        mu = gdp_mu(float(self.epsilon), float(self.delta))
        steps = (GaussianSteps(1.0 / mu),)
        rng = self._charge(steps)  # before a row is read
        factor = 1.0 if self.neighboring == "add_remove" else math.sqrt(2.0)
        sigma = factor * math.sqrt(d) / mu
        self.categories_, self.infrequent_categories_ = [], []
        for j, cats in enumerate(declared):
            index = {_category_key(c): i for i, c in enumerate(cats)}
            counts = np.zeros(len(cats))
            for key, count in _key_counts(X[:, j]).items():
                i = index.get(key)
                if i is not None:
                    counts[i] += count
            noisy = counts + sigma * np.asarray(rng.standard_normal(len(cats)))
            frequent, rare = self._split_infrequent(cats, noisy)
            self.categories_.append(frequent)
            self.infrequent_categories_.append(rare)
        self.noise_std_ = sigma
        self._set_spend(steps)

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
        if not isinstance(self.categories, str):
            if len(self.categories) != d:
                raise ValueError(
                    f"categories must hold one list per column ({d}), got "
                    f"{len(self.categories)}."
                )
            self._fit_declared(X)
            return self
        sigma, tau = stable_histogram_threshold(
            float(self.epsilon), float(self.delta), d, self.neighboring
        )
        record = EpsilonDeltaRecord(float(self.epsilon), float(self.delta))
        rng = self._charge(record)
        self.categories_, self.infrequent_categories_ = [], []
        for j in range(d):
            # One bin per exact spelling (type and repr): values Python calls
            # equal (1, 1.0, True; 0.0, -0.0) must not share a bin whose released
            # form would be that of whichever row came first.
            counts = _key_counts(X[:, j])
            keys = sorted(counts, key=lambda k: (k[1], k[0]))
            values = [value for _, _, value in keys]
            noisy = np.array([counts[k] for k in keys], dtype=float)
            noisy += sigma * np.asarray(rng.standard_normal(len(values)))
            released = noisy > tau
            # The frequency rules read only the released noisy counts.
            frequent, rare = self._split_infrequent(
                [v for v, r in zip(values, released, strict=True) if r],
                noisy[released],
            )
            self.categories_.append(frequent)
            self.infrequent_categories_.append(rare)
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
        if _categorical_frame(X):
            # Each column's codes index its categories: code each category once.
            validate_data(self, X, skip_check_array=True, reset=False)
            columns = [X.iloc[:, j].array for j in range(X.shape[1])]
            coder = _categorical_codes
        else:
            X = self._validate(X, reset=False)
            columns = [X[:, j] for j in range(X.shape[1])]
            coder = _category_codes
        n = X.shape[0]
        widths = [len(cats) + 1 for cats in self.categories_]
        out = np.zeros((n, sum(widths)))
        rows = np.arange(n)
        offset = 0
        for column, cats, width in zip(columns, self.categories_, widths, strict=True):
            out[rows, offset + coder(column, cats)] = 1.0
            offset += width
        return out

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


def _category_codes(column, cats):
    """The position of every value of ``column`` in ``cats``; ``len(cats)`` if absent.

    Missing values (None, NaN) and values outside ``cats`` get ``len(cats)`` (the
    ``other`` column). The code of each distinct value is computed once and read
    back for every row through a dict: two values that the dict takes for one
    key (equal, with equal hashes) have the same code either way, since the code
    is itself a dict lookup and no missing value equals a present one.

    Parameters
    ----------
    column : ndarray of object, shape (n_samples,)
    cats : sequence of shape (n_categories,)

    Returns
    -------
    codes : ndarray of intp, shape (n_samples,)
    """
    other = len(cats)
    index = {c: i for i, c in enumerate(cats)}
    table = {v: other if _is_missing(v) else index.get(v, other) for v in set(column)}
    return np.fromiter(map(table.__getitem__, column), dtype=np.intp, count=len(column))


def _categorical_frame(X):
    """Whether ``X`` is a non-empty DataFrame of pandas categorical columns only."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "iloc") or X.shape[0] == 0:
        return False
    return len(dtypes) > 0 and all(
        getattr(dtype, "name", None) == "category" for dtype in dtypes
    )


def _categorical_codes(column, cats):
    """:func:`_category_codes` of a pandas ``Categorical``, from its codes.

    Its values are ``column.categories[code]``, and NaN where the code is -1
    (missing): the code of every category is that of the same value in
    :func:`_category_codes`, and -1 gets ``len(cats)``, as NaN does there.
    """
    values = np.asarray(column.categories, dtype=object)
    table = np.append(_category_codes(values, cats), len(cats))
    return table[column.codes]
