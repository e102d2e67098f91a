"""A private transformer for a whole pandas DataFrame, and the schema it needs.

:class:`DPTableVectorizer` chooses a private step for every column from its dtype
and the public schema the user declares (the ranges of a data dictionary, the
categories of a codebook), fits them as one
:class:`~sklearn_dpgd.pipeline.PrivatePipeline` on its own budget share, and
:func:`schema_from_dtypes` writes the skeleton of that schema from the column
names and dtypes alone.
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer
from sklearn.utils.validation import check_is_fitted

from .._sklearn_compat import Interval, StrOptions
from ..pipeline import PrivatePipeline
from ._base import _PrivateTransformer
from ._encoders import DPOneHotEncoder
from ._imputer import DPSimpleImputer
from ._scalers import DPMinMaxScaler, DPStandardScaler
from ._table_rows import (
    _booleans,
    _datetime_names,
    _datetime_parts,
    _pandas,
    _shifted_log1p,
    _transformed_range,
)

__all__ = ["DPTableVectorizer", "schema_from_dtypes"]

# The parts of a datetime column, each mapped to [0, 1] by a public constant.
_DATETIME_PARTS = ("time", "month", "weekday", "hour")


def _kind(dtype, pd):
    """``"bool"``, ``"datetime"``, ``"numeric"`` or ``"categorical"`` of a dtype."""
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "categorical"


def schema_from_dtypes(X, *, dtype_categories=False):
    """The skeleton of the public schema of a DataFrame, from its dtypes only.

    Reads the column names and dtypes of ``X`` (public: the table's layout), never
    its values, and returns the ``bounds`` and ``categories`` dicts of
    :class:`DPTableVectorizer` with ``None`` where the user writes the public
    range of a data dictionary (numeric and datetime columns) or the category
    list of a codebook (every other column except booleans, whose domain
    ``{False, True}`` needs no declaration). A vectorizer given ``None`` entries
    refuses them and lists them.

    Parameters
    ----------
    X : pandas.DataFrame
        The table; its values are not read.
    dtype_categories : bool, default=False
        Copy the categories of ``pandas.CategoricalDtype`` columns into the
        skeleton. Only safe when those categories were declared, e.g.
        ``astype(pd.CategoricalDtype(codebook))``: ``astype("category")`` and
        ``read_csv(dtype="category")`` set them to the values present in the
        data, so copying them would release which values occur (a value held by
        one person identifies that person). Hence off by default.

    Returns
    -------
    schema : dict
        ``{"bounds": {column: None}, "categories": {column: None or list}}``
        in column order; ``DPTableVectorizer(**schema)`` once filled in.

    Raises
    ------
    TypeError
        If ``X`` is not a pandas DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [31, 45], "job": ["a", "b"], "member": [True, False]})
    >>> schema_from_dtypes(X)
    {'bounds': {'age': None}, 'categories': {'job': None}}
    """
    pd = _pandas()
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}.")
    bounds, categories = {}, {}
    for column, dtype in X.dtypes.items():
        kind = _kind(dtype, pd)
        if kind in ("numeric", "datetime"):
            bounds[column] = None
        elif kind == "categorical":
            declared = None
            if dtype_categories and isinstance(dtype, pd.CategoricalDtype):
                declared = list(dtype.categories)
            categories[column] = declared
    return {"bounds": bounds, "categories": categories}


class DPTableVectorizer(_PrivateTransformer):
    """A private step for every column of a DataFrame, from its declared schema.

    The private counterpart of a table vectorizer: ``fit`` builds, from the
    column dtypes and the **public** schema given (never from the values), a
    :class:`~sklearn.compose.ColumnTransformer` of the package's private
    transformers, followed by a row norm, and fits it as a
    :class:`~sklearn_dpgd.pipeline.PrivatePipeline` on this transformer's
    ``(epsilon, delta)``, split among the steps that read data in proportion to
    the columns they read. Inside :func:`~sklearn_dpgd.pipeline.make_private_pipeline`
    or :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` it is one private
    step that gets its share of their one budget. Each column is dispatched by
    its declaration, then its dtype:

    * declared in ``categories``: one-hot encoded with those categories
      (:class:`DPOneHotEncoder`; missing and undeclared values go to one
      ``<column>_other`` column; with ``min_frequency`` the categories with a
      small Gaussian noisy count are grouped there too);
    * boolean dtype: 0/1, its domain being public (no declaration needed); a
      missing value (NA) of a nullable boolean (``"boolean"`` dtype) gives the
      public constant 0.5, row-wise;
    * datetime dtype declared in ``bounds`` with two instants: the parts of
      ``datetime_parts`` in [0, 1] (the time within the declared range, and if
      asked the month, the weekday, the hour; NaT gives 0.5), row-wise, reading
      nothing;
    * numeric dtype declared in ``bounds`` with ``(lo, hi)``: clipped to it;
      ``log1p(x - lo)`` first when the range spans orders of magnitude (``lo >= 0``
      and ``(hi + 1) / (lo + 1) >= log_ratio``, or the column is listed in
      ``log``: money and counts, most of them small); a private mean
      (:class:`DPSimpleImputer`) filling the missing values of the columns
      listed in ``missing``; then :class:`DPMinMaxScaler` with bounds from DP
      quantiles inside the (transformed) range, or the range itself for the
      columns listed in ``exact_bounds`` or when ``quantiles`` is None (with
      ``scaler="standard"``, :class:`DPStandardScaler` in that range instead).

    A 2-D array is taken as a table of columns named ``x0, x1, ...`` (as
    scikit-learn names them).

    Columns with no declaration are refused (the error lists them and the dicts
    to write); :func:`schema_from_dtypes` writes the skeleton.

    Parameters
    ----------
    categories : dict of str to list or "private", or None, default=None
        Public category list of every categorical column; ``"private"`` (an
        explicit opt-in) selects the categories present by the stable histogram
        of :class:`DPOneHotEncoder` instead, charged to the budget
        (``(epsilon, delta)``-DP: Korolova et al., WWW 2009).
    bounds : dict of str to tuple or None, default=None
        Public range ``(lo, hi)`` of every numeric column (``lo < hi``, finite),
        two instants (anything :class:`pandas.Timestamp` takes) for a datetime
        column.
    missing : list of str, default=()
        Numeric columns that may hold missing values (NaN): imputed privately.
        Public knowledge (the data dictionary says blanks occur); whether a
        column has any is never looked up in the data.
    exact_bounds : list of str, default=()
        Numeric columns scaled with their declared range as it is (no budget).
    log : "auto" or list of str, default="auto"
        Numeric columns mapped by ``log1p(x - lo)``; "auto" applies the
        ``log_ratio`` rule.
    log_ratio : float, default=1000.0
        The rule of ``log="auto"``: ``(hi + 1) / (lo + 1) >= log_ratio`` and
        ``lo >= 0``.
    quantiles : tuple of float or None, default=(0.01, 0.99)
        The quantiles estimated as the scaling bounds (see
        :class:`DPMinMaxScaler`); None uses every declared range as it is.
    scaler : {"minmax", "standard"}, default="minmax"
        "minmax": :class:`DPMinMaxScaler` to [0, 1] (the protocol of Lee &
        Kifer 2018, with a row norm); "standard": :class:`DPStandardScaler`, a
        DP mean and variance of each column clipped to its (transformed)
        declared range (Gaussian mechanism; better without a row norm on small
        all-numeric tables, as the breast-cancer recipe).
    min_frequency : float or None, default=None
        Passed to :class:`DPOneHotEncoder` (rare categories grouped, from
        Gaussian noisy counts).
    norm : {"l2", "l1", "max"} or None, default="l2"
        Row norm of the output (:class:`~sklearn.preprocessing.Normalizer`,
        row-wise); None keeps the rows as they are.
    datetime_parts : list of {"time", "month", "weekday", "hour"}, default=("time",)
        The features of every datetime column. Only the time by default: each
        extra part is one more dimension for the noisy gradient and, under a
        row norm, takes norm from the other features (a date without a time
        of day has a constant hour); add the others when seasons or weekdays
        matter.
    epsilon : float, default=1.0
        Budget of the whole vectorizer, > 0 (set by a private pipeline).
    delta : float, default=1e-8
        Its delta, in (0, 1).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of every step.
    public_n_samples : int or None, default=None
        A declared public number of rows, passed to the steps that take one
        (:class:`DPStandardScaler` then divides by it instead of spending part
        of its budget on a noisy count; set by a private pipeline that has one).
    random_state : None, int or RandomState, default=None
        None draws OS entropy; an int fixes the noise (warns).
    secure_mode : bool, default=False
        Passed to every step.

    Attributes
    ----------
    pipeline_ : sklearn_dpgd.pipeline.PrivatePipeline
        The fitted private pipeline of a ``ColumnTransformer`` named
        ``columns`` (transformers ``categorical``, ``categorical_private``,
        ``bool``, ``datetime``,
        ``numeric``, ``numeric_missing``, ``exact``, ``exact_missing``, those
        that have columns) and, if ``norm``, ``normalizer``.
    log_columns_ : list of str
        The numeric columns mapped by ``log1p``.
    epsilon_, delta_ : float
        Spent (``pipeline_.epsilon_``; 0 when every statistic is declared).
    ledger_ : PrivacyLedger
        What ran.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Raises
    ------
    ValueError
        In ``fit``: columns with no declaration (listed, with the dicts to
        write), declarations of absent columns, of a column in both
        ``categories`` and ``bounds``, ``missing`` or ``exact_bounds`` entries
        not numeric columns of ``bounds``, ranges not finite with ``lo < hi``;
        at ``transform``, columns different from ``fit``'s.
    TypeError
        If ``X`` is not a DataFrame or 2-D array, or a column declared in ``bounds``
        is not numeric, boolean or datetime (naming it and its dtype).

    See Also
    --------
    schema_from_dtypes : The skeleton of ``bounds`` and ``categories``.
    sklearn_dpgd.datasets.private_pipeline : Built on it for Adult and Bank.

    Notes
    -----
    The quantile bounds are the exponential mechanism over the declared range
    (Smith, STOC 2011), pure DP; its candidates extend 1% of the range's width
    beyond each end, so that a value shared by many rows at an end (most capital
    gains are 0) still has candidates at the true quantile. The imputer's mean
    and the encoder's counts are Gaussian mechanisms. When no step estimates
    quantiles the whole vectorizer is a Gaussian mechanism and its share is
    split in ``mu^2`` (see :class:`~sklearn_dpgd.pipeline.PrivatePipeline`);
    otherwise in ``epsilon`` and ``delta`` (basic composition, Dwork & Roth
    2014, Thm 3.16). Error messages name columns and dtypes (the schema), never
    values.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.pipeline import make_private_pipeline
    >>> X = pd.DataFrame({"age": [25, 40, 61, 33] * 25,
    ...                   "job": ["a", "b", "a", "c"] * 25})
    >>> y = [0, 1, 1, 0] * 25
    >>> model = make_private_pipeline(
    ...     DPTableVectorizer(bounds={"age": (17, 100)},
    ...                       categories={"job": ["a", "b", "c"]}),
    ...     DPLogisticRegression(classes=[0, 1]), epsilon=1.0).fit(X, y)
    >>> list(model.pipeline_[0].get_feature_names_out())
    ['job_a', 'job_b', 'job_c', 'job_other', 'age']
    """

    _parameter_constraints = {
        **_PrivateTransformer._parameter_constraints,
        "categories": [dict, None],
        "bounds": [dict, None],
        "missing": ["array-like"],
        "exact_bounds": ["array-like"],
        "log": [StrOptions({"auto"}), "array-like"],
        "log_ratio": [Interval(Real, 1, None, closed="neither")],
        "quantiles": ["array-like", None],
        "scaler": [StrOptions({"minmax", "standard"})],
        "min_frequency": [Interval(Real, 0, None, closed="neither"), None],
        "norm": [StrOptions({"l1", "l2", "max"}), None],
        "datetime_parts": ["array-like"],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
    }

    def __init__(
        self,
        categories=None,
        bounds=None,
        *,
        missing=(),
        exact_bounds=(),
        log="auto",
        log_ratio=1000.0,
        quantiles=(0.01, 0.99),
        scaler="minmax",
        min_frequency=None,
        norm="l2",
        datetime_parts=("time",),
        epsilon=1.0,
        delta=1e-8,
        neighboring="add_remove",
        public_n_samples=None,
        random_state=None,
        secure_mode=False,
    ):
        self.categories = categories
        self.bounds = bounds
        self.missing = missing
        self.exact_bounds = exact_bounds
        self.log = log
        self.log_ratio = log_ratio
        self.quantiles = quantiles
        self.scaler = scaler
        self.min_frequency = min_frequency
        self.norm = norm
        self.datetime_parts = datetime_parts
        self.epsilon = epsilon
        self.delta = delta
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _estimated(self):
        """Declared numeric columns scaled by a private statistic (by parameters)."""
        if self.scaler == "minmax" and self.quantiles is None:
            return []
        exact = set(self.exact_bounds)
        # Instants (strings, Timestamps) declare a datetime column: read nothing.
        return [
            c
            for c, pair in (self.bounds or {}).items()
            if c not in exact
            and pair is not None
            and all(isinstance(v, Real) for v in pair)
        ]

    def _private_categories(self):
        return [c for c, v in (self.categories or {}).items() if _is_private(v)]

    def _reads_data(self):
        return bool(
            self._estimated()
            or len(self.missing)
            or (self.min_frequency is not None and self.categories)
            or self._private_categories()
        )

    def _gdp_ledger_refusal(self):
        if self._private_categories():
            return "private categories are an (epsilon, delta) stable histogram"
        if self.scaler == "minmax" and self._estimated():
            return "private bounds are a pure-DP exponential mechanism"
        return None

    def _check_parts(self):
        parts = list(self.datetime_parts)
        if (
            not parts
            or not set(parts) <= set(_DATETIME_PARTS)
            or len(set(parts)) != len(parts)
        ):
            raise ValueError(
                f"datetime_parts must be distinct values among {_DATETIME_PARTS}, "
                f"got {self.datetime_parts!r}."
            )

    def _columns(self, X, pd):
        """``{kind: [column, ...]}`` from the declarations and dtypes."""
        categories, bounds = self.categories or {}, self.bounds or {}
        names = [str(c) for c in X.columns]
        absent = sorted(
            {str(c) for c in [*categories, *bounds, *self.missing] if c not in names}
        )
        if absent:
            raise ValueError(f"Declared columns not in X: {absent}.")
        both = [str(c) for c in bounds if categories.get(c) is not None]
        if both:
            raise ValueError(f"Columns declared in both categories and bounds: {both}.")
        kinds = {
            k: [] for k in ("categorical", "private", "bool", "datetime", "numeric")
        }
        undeclared = []
        for column, dtype in X.dtypes.items():
            kind = _kind(dtype, pd)
            declared = categories.get(column)
            if isinstance(declared, str) and not _is_private(declared):
                raise ValueError(
                    f"categories[{column!r}] must be a list of categories or "
                    f"'private', got {declared!r}."
                )
            if _is_private(declared):
                kinds["private"].append(column)
            elif declared is not None:
                kinds["categorical"].append(column)
            elif column in bounds and bounds[column] is not None:
                if kind == "categorical":
                    raise TypeError(
                        f"bounds declares column {column!r} of dtype {dtype}; "
                        "bounds are for numeric, boolean or datetime columns "
                        "(declare its categories instead, or convert it)."
                    )
                kinds["numeric" if kind == "bool" else kind].append(column)
            elif kind == "bool":
                kinds["bool"].append(column)
            else:
                undeclared.append((column, kind, dtype))
        if undeclared:
            raise ValueError(_undeclared_message(undeclared))
        # Elsewhere they would be ignored, their budget share reserved unspent.
        for param in ("missing", "exact_bounds"):
            wrong = [str(c) for c in getattr(self, param) if c not in kinds["numeric"]]
            if wrong:
                raise ValueError(
                    f"{param} lists columns that are not numeric columns declared "
                    f"in bounds: {wrong}."
                )
        return kinds

    def _numeric_blocks(self, columns):
        """``[(name, transformer, columns, readers)]`` of the numeric columns."""
        exact, missing = set(self.exact_bounds), set(self.missing)
        if self.scaler == "minmax" and self.quantiles is None:
            exact = set(columns)
        ranges = {c: _check_range(c, self.bounds[c]) for c in columns}
        if self.log == "auto":
            logged = [
                c
                for c in columns
                if ranges[c][0] >= 0
                and (ranges[c][1] + 1) / (ranges[c][0] + 1) >= self.log_ratio
            ]
        else:
            logged = [c for c in columns if c in set(self.log)]
        self.log_columns_ = logged
        blocks = []
        for name, is_exact, is_missing in [
            ("numeric", False, False),
            ("numeric_missing", False, True),
            ("exact", True, False),
            ("exact_missing", True, True),
        ]:
            cols = [
                c
                for c in columns
                if (c in exact) == is_exact and (c in missing) == is_missing
            ]
            if cols:
                blocks.append(
                    _numeric_block(
                        name, cols, ranges, logged, is_exact, is_missing, self
                    )
                )
        return blocks

    def _build(self, X, pd):
        """The unfitted ``PrivatePipeline`` and the share of each reader."""
        kinds = self._columns(X, pd)
        blocks = []
        if kinds["categorical"]:
            encoder = DPOneHotEncoder(
                [list(self.categories[c]) for c in kinds["categorical"]],
                min_frequency=self.min_frequency,
            )
            readers = {"": len(kinds["categorical"])} if encoder._reads_data() else {}
            blocks.append(("categorical", encoder, kinds["categorical"], readers))
        if kinds["private"]:
            # An opt-in, charged: the categories present, by a stable histogram.
            encoder = DPOneHotEncoder("private")
            readers = {"": len(kinds["private"])}
            blocks.append(("categorical_private", encoder, kinds["private"], readers))
        if kinds["bool"]:
            scaler = DPMinMaxScaler(bounds=(0, 1))
            if any(isinstance(X[c].dtype, pd.BooleanDtype) for c in kinds["bool"]):
                # NA to 0.5 first, row-wise; plain booleans are as they were.
                fill = FunctionTransformer(_booleans, feature_names_out="one-to-one")
                scaler = Pipeline([("fill", fill), ("scale", scaler)])
            blocks.append(("bool", scaler, kinds["bool"], {}))
        if kinds["datetime"]:
            lower, upper = zip(
                *(_check_instants(c, self.bounds[c], pd) for c in kinds["datetime"]),
                strict=True,
            )
            parts = FunctionTransformer(
                _datetime_parts,
                kw_args={
                    "lower": np.array(lower),
                    "upper": np.array(upper),
                    "parts": tuple(self.datetime_parts),
                },
                feature_names_out=_datetime_names,
            )
            blocks.append(("datetime", parts, kinds["datetime"], {}))
        blocks += self._numeric_blocks(kinds["numeric"])
        columns = ColumnTransformer(
            [(name, est, cols) for name, est, cols, _ in blocks],
            sparse_threshold=0.0,
            verbose_feature_names_out=False,
        )
        steps = [("columns", columns)]
        if self.norm is not None:
            steps.append(("normalizer", Normalizer(norm=self.norm)))
        units = {
            "__".join(["columns", name, *([path] if path else [])]): n
            for name, _, _, readers in blocks
            for path, n in readers.items()
        }
        total = sum(units.values())
        split = {p: n / total for p, n in units.items()} if units else None
        return PrivatePipeline(
            steps,
            epsilon=float(self.epsilon),
            delta=float(self.delta),
            budget_split=split,
            neighboring=self.neighboring,
            public_n_samples=self.public_n_samples,
            random_state=None if self.secure_mode else self.random_state,
            secure_mode=self.secure_mode,
        )

    def fit(self, X, y=None):
        """Build the private steps from the schema and dtypes, then fit them.

        Parameters
        ----------
        X : pandas.DataFrame or ndarray of shape (n_samples, n_columns)
            The private table (an array's columns are ``x0, x1, ...``).
        y : None
            Ignored.

        Returns
        -------
        self : DPTableVectorizer
            The fitted transformer.
        """
        self._fit(X, transform=False)
        return self

    def fit_transform(self, X, y=None):
        """Fit (see :meth:`fit`) and return the transformed training table.

        The same values as ``fit(X).transform(X)``, in one pass over ``X``
        instead of two (the steps transform the rows they were fitted on).

        Parameters
        ----------
        X : pandas.DataFrame or ndarray of shape (n_samples, n_columns)
            The private table (an array's columns are ``x0, x1, ...``).
        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_output_features)
            Dense float64; the width is fixed by the schema.
        """
        return self._fit(X, transform=True)

    def _fit(self, X, transform):
        """Build and fit the steps; their training output if ``transform``."""
        self._check_common()
        pd = _pandas()
        X = _frame(X, pd)
        self._check_parts()
        pipeline = self._build(X, pd)
        # The columns are schema: they are public, like the dtypes.
        self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
        self.n_features_in_ = X.shape[1]
        output = pipeline.fit_transform(X) if transform else pipeline.fit(X)
        self.pipeline_ = pipeline
        self.ledger_ = pipeline.ledger_
        self.epsilon_, self.delta_ = pipeline.epsilon_, pipeline.delta_
        return output

    def _check_columns(self, X):
        X = _frame(X, _pandas())
        names = [str(c) for c in X.columns]
        if names != list(self.feature_names_in_):
            raise ValueError(
                f"X has columns {names}, but DPTableVectorizer was fitted with "
                f"{list(self.feature_names_in_)}."
            )
        return X

    def transform(self, X):
        """Apply the fitted steps (public constants and released statistics only).

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_samples, n_columns)
            With the columns seen in ``fit``.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_output_features)
            Dense float64; the width is fixed by the schema.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.transform(self._check_columns(X))

    def get_feature_names_out(self, input_features=None):
        """The output column names (``<column>_<category>``, ``<column>_month``...).

        Parameters
        ----------
        input_features : None
            Ignored: the names are those seen in ``fit``.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column.
        """
        check_is_fitted(self, "pipeline_")
        return np.asarray(self.pipeline_.get_feature_names_out(), dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        return tags


def _is_private(declared):
    return isinstance(declared, str) and declared == "private"


def _frame(X, pd):
    """``X`` as a DataFrame; a 2-D array's columns are named ``x0, x1, ...``."""
    if isinstance(X, pd.DataFrame):
        return X
    if not hasattr(X, "shape") or len(X.shape) != 2:
        raise TypeError(
            "DPTableVectorizer takes a pandas DataFrame (or a 2-D array, whose "
            f"columns are named x0, x1, ...), got {type(X).__name__}."
        )
    return pd.DataFrame(np.asarray(X), columns=[f"x{i}" for i in range(X.shape[1])])


def _check_range(column, declared):
    """A finite ``(lo, hi)`` with ``lo < hi``, naming the column if not."""
    try:
        # Numbers only: _reads_data decides from the same test, before fit.
        if not all(isinstance(v, Real) for v in declared):
            raise TypeError
        lo, hi = (float(v) for v in declared)
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds[{column!r}] must be a pair (lo, hi) of numbers."
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"bounds[{column!r}] must be finite with lo < hi.")
    return lo, hi


def _check_instants(column, declared, pd):
    """Two public instants as nanoseconds since the epoch, ``lo < hi``."""
    try:
        lo, hi = (pd.Timestamp(v) for v in declared)
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds[{column!r}] of a datetime column must be two instants."
        ) from None
    lo, hi = (t.tz_localize(None) if t.tz is not None else t for t in (lo, hi))
    if not lo < hi:
        raise ValueError(f"bounds[{column!r}] must have lo < hi.")
    return lo.value, hi.value


def _numeric_block(name, cols, ranges, logged, exact, missing, params):
    """``(name, transformer, cols, {reader path: n_columns})`` of numeric columns."""
    lower = np.array([ranges[c][0] for c in cols])
    upper = np.array([ranges[c][1] for c in cols])
    log = np.array([c in logged for c in cols])
    target = np.array([_transformed_range(*ranges[c], c in logged) for c in cols])
    steps = [
        (
            "log",
            FunctionTransformer(
                _shifted_log1p,
                kw_args={"lower": lower, "upper": upper, "log": log},
                feature_names_out="one-to-one",
            ),
        )
    ]
    readers = {}
    if missing:
        steps.append(("impute", DPSimpleImputer(bounds=target)))
        readers["impute"] = len(cols)
    if exact:
        steps.append(("scale", DPMinMaxScaler(bounds=target)))
    elif params.scaler == "standard":
        steps.append(("scale", DPStandardScaler(bounds=target)))
        readers["scale"] = len(cols)
    else:
        pad = 0.01 * (target[:, 1] - target[:, 0])
        search = np.column_stack([target[:, 0] - pad, target[:, 1] + pad])
        quantiles = tuple(params.quantiles)
        scaler = DPMinMaxScaler(bounds_range=search, quantiles=quantiles)
        steps.append(("scale", scaler))
        readers["scale"] = len(cols)
    return name, Pipeline(steps), cols, readers


def _undeclared_message(undeclared):
    """The refusal of undeclared columns: names, dtypes and the dicts to write."""
    listed = [f"{c!r} ({dtype})" for c, _, dtype in undeclared]
    bounds = {c: "(lo, hi)" for c, k, _ in undeclared if k in ("numeric", "datetime")}
    cats = {c: "[...]" for c, k, _ in undeclared if k == "categorical"}
    write = []
    if bounds:
        write.append(
            "bounds={" + ", ".join(f"{c!r}: {v}" for c, v in bounds.items()) + "}"
        )
    if cats:
        write.append(
            "categories={" + ", ".join(f"{c!r}: {v}" for c, v in cats.items()) + "}"
        )
    return (
        f"DPTableVectorizer has no public schema for the columns {', '.join(listed)}. "
        f"Declare them from a data dictionary or codebook, never from the private "
        f"data: {', '.join(write)} (schema_from_dtypes(X) writes the skeleton), or "
        "drop them. A categorical column may instead be declared 'private': its "
        "categories are then selected by a DP stable histogram, charged to the "
        "budget."
    )
