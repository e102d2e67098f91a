"""Preprocessing recipes for the benchmark data sets: the papers' and private ones.

:func:`paper_preprocessor` is the (non-private) preprocessing of the experiments of
Lee & Kifer (KDD 2018); :func:`private_pipeline` the whole private model of Adult
or Bank from the raw DataFrame, every step private under one budget;
:func:`public_preprocessor` the same preprocessing with the public ranges as
bounds, which reads nothing private. All three are re-exported by
:mod:`sklearn_dpgd.datasets`, where they are documented.
"""

from numbers import Real

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer

from .._sklearn_compat import Interval, StrOptions, validate_params
from .._validation import as_float64
from ..linear_model import DPLogisticRegression
from ..pipeline import PREPROCESSING_SHARE, make_private_pipeline
from ..preprocessing import (
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPTableVectorizer,
    row_wise,
)
from ._schema import (
    _ADULT_BOUNDS,
    _ADULT_CATEGORIES,
    _ADULT_RANGES,
    _BANK_BOUNDS,
    _BANK_N_FEATURES,
    _BANK_RANGES,
    _BREAST_CANCER_UPPER,
)

# The breast-cancer recipe's choices, measured on 10 stratified 80/20 splits
# (benchmarks/bench_recipes.py): a share of 0.5 for the scaler (at 0.2 its noisy
# variances sit below their noise, and with the scaler's public variance floor
# the recipe lost 0.13 at epsilon 0.5; before that floor, noise-driven scales
# near 0 blew columns up by 1,000) and a stronger L2 penalty than the default
# 1 / n (455 rows, 30 correlated columns: alpha = 0.1 gains 0.02 at epsilon 1).
_BREAST_CANCER_SHARE = 0.5
_BREAST_CANCER_ALPHA = 0.1


def paper_preprocessor():
    """The preprocessing of the papers' DP experiments, as an unfitted Pipeline.

    One-hot encoding of the ``category`` columns, min-max scaling of the numeric
    columns to [0, 1] (values outside the training range are clipped, so no row can
    exceed the bounds at prediction time), then every row scaled to unit L2 norm:
    the protocol of Lee & Kifer (KDD 2018, Sec. 6) and Chen & Lee (Sec. V-B) for
    Adult and Bank.

    Returns
    -------
    preprocessor : sklearn.pipeline.Pipeline
        ``ColumnTransformer(OneHotEncoder, MinMaxScaler) -> Normalizer``; its output is
        a dense float64 array of shape (n_samples, n_output_features) with rows of unit
        norm. Works on the DataFrames of :func:`load_adult` and :func:`load_bank`.

    Notes
    -----
    As in the papers, the categories and the min/max are read from the training data
    when the pipeline is fitted; the privacy guarantee of a downstream estimator does
    not cover them. Where that matters, use :func:`private_pipeline` (the data
    dictionary's categories, DP bounds, one total budget) or replace them by
    public bounds and category lists (e.g. ``MinMaxScaler`` fitted on a public
    range, ``OneHotEncoder`` with ``categories=`` from the data dictionary).
    """
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MinMaxScaler, Normalizer, OneHotEncoder

    columns = ColumnTransformer(
        [
            (
                "categorical",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                make_column_selector(dtype_include="category"),
            ),
            (
                "numeric",
                MinMaxScaler(clip=True),
                make_column_selector(dtype_include="number"),
            ),
        ],
        sparse_threshold=0.0,
    )
    return Pipeline([("columns", columns), ("normalize", Normalizer())])


def _adult_columns():
    """Adult's public schema: declared categories, DP bounds in public ranges."""
    categorical = list(_ADULT_CATEGORIES)
    numeric = list(_ADULT_RANGES)
    # The categories of adult.names, in the (sorted) order of load_adult's dtypes.
    encoder = DPOneHotEncoder([sorted(_ADULT_CATEGORIES[c]) for c in categorical])
    scaler = DPMinMaxScaler(bounds_range=[_ADULT_RANGES[c] for c in numeric])
    return ColumnTransformer([("cat", encoder, categorical), ("num", scaler, numeric)])


@row_wise
def _as_array(X):
    """The 30 measurements by position, from an array or a DataFrame.

    As ``np.asarray(X, dtype=np.float64)``; an error prints no value.
    """
    return as_float64(X)


def _breast_cancer_pipeline(epsilon, delta, random_state):
    """log1p and DP standardisation in the public ranges, DP logistic regression."""
    upper = np.tile(_BREAST_CANCER_UPPER, 3)
    vectorizer = DPTableVectorizer(
        bounds={f"x{i}": (0.0, float(u)) for i, u in enumerate(upper)},
        # The sizes span orders of magnitude: log1p keeps public ranges tight.
        log=[f"x{i}" for i in range(len(upper))],
        scaler="standard",
        norm=None,
    )
    return make_private_pipeline(
        # Any table of the 30 columns, by position: row-wise, no budget.
        FunctionTransformer(_as_array),
        vectorizer,
        DPLogisticRegression(classes=[0, 1], alpha=_BREAST_CANCER_ALPHA),
        epsilon=float(epsilon),
        delta=float(delta),
        preprocessing_share=_BREAST_CANCER_SHARE,
        random_state=random_state,
    )


def _bank_columns():
    """Bank's public schema: 0/1 indicators declared, DP bounds in public ranges."""
    numeric = list(_BANK_RANGES)
    binary = [f"x{i}" for i in range(_BANK_N_FEATURES) if f"x{i}" not in numeric]
    scaler = DPMinMaxScaler(bounds_range=[_BANK_RANGES[c] for c in numeric])
    return ColumnTransformer(
        [("binary", DPMinMaxScaler(bounds=(0, 1)), binary), ("num", scaler, numeric)]
    )


@validate_params(
    {
        "name": [StrOptions({"adult", "bank", "breast_cancer"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def private_pipeline(name, *, epsilon, delta=1e-8, random_state=None):
    """An unfitted private model of Adult, Bank or breast cancer, from raw data.

    Every step that reads the training data does so through a differentially
    private mechanism, on one total budget: ``fit`` on the raw DataFrame of
    :func:`load_benchmark_split` (or of :func:`fetch_adult`, :func:`fetch_bank`)
    spends at most ``(epsilon, delta)`` on everything, records every mechanism
    on the active :class:`~sklearn_dpgd.accounting.PrivacyLedger` objects and
    reports the total as ``epsilon_``. The recipe is built from the public schema
    only, never from the data:

    * ``"adult"``: a :class:`~sklearn_dpgd.preprocessing.DPTableVectorizer`
      given the public schema: the 8 categorical columns one-hot encoded with the
      categories listed in ``adult.names`` (declared, no budget; missing values
      go to one ``<feature>_other`` column per feature); the 6 numeric columns
      clipped to public ranges from ``adult.names`` and the survey's coding
      (``age`` from 17 to 100, ``fnlwgt`` from 0 to 1.5e6, ``education-num``
      from 1 to 16, ``capital-gain`` and ``capital-loss`` from 0 to 99999,
      ``hours-per-week`` from 1 to 99), the three whose range spans three
      orders of magnitude (``fnlwgt``, ``capital-gain``, ``capital-loss``:
      money and weights, most of them small) mapped by ``log1p`` (row-wise, no
      budget), and every one scaled to ``[0, 1]`` with bounds estimated
      privately (the 0.01 and 0.99 quantiles; see Notes);
    * ``"bank"``: the same vectorizer with the 25 indicator columns of the
      one-hot file kept as they are (declared bounds ``(0, 1)``, no budget) and
      the 7 numeric attributes of the UCI data dictionary (age, balance, a day
      count, call duration, contacts, days since the previous campaign,
      previous contacts: columns ``x0``, ``x18``, ``x23``, ``x24``, ``x25``,
      ``x27``, ``x28``) in public ranges from their meaning (the dictionary
      gives none; the day counts and the duration, from 0 to 1000 and 7200,
      through ``log1p``) with bounds estimated privately;

    then, for both, every row scaled to unit L2 norm (the vectorizer's last,
    row-wise step) and :class:`~sklearn_dpgd.DPLogisticRegression` with its
    defaults: the protocol of Lee & Kifer (2018), with the preprocessing made
    private. The ``log1p`` of the heavy-tailed columns raises Adult's mean test
    accuracy (6 fits) from 0.828 to 0.832 at ``epsilon=0.1``, from 0.842 to
    0.845 at 0.4 (``benchmarks/bench_table_vectorizer.py``).

    * ``"breast_cancer"`` (the 30 columns of
      :func:`sklearn.datasets.load_breast_cancer`, Street, Wolberg & Mangasarian
      1993; labels 0/1), by position: the vectorizer with ``scaler="standard"``
      and no row norm; every value mapped by ``log1p`` (row-wise, no budget:
      the sizes span orders of magnitude, so that public ranges stay tight in
      log space), standardised by
      :class:`~sklearn_dpgd.preprocessing.DPStandardScaler` (a DP mean and
      variance of each column clipped to a public range: ``[0, u]`` before
      ``log1p``, with ``u`` = 50 pixels for the radius, 100 grey levels for the
      texture, 400 for the perimeter, 8000 square pixels for the area, 0.5
      for smoothness and fractal dimension, 2 for compactness and concavity, 1
      for concave points and symmetry; the same for the mean, error and worst
      columns), on half of the budget, then
      :class:`~sklearn_dpgd.DPLogisticRegression` with ``alpha=0.1``. No
      ``Normalizer``: the standardised rows keep their relative lengths. Mean
      test accuracy on 10 stratified 80/20 splits at ``delta=1e-6``: 0.883 at
      ``epsilon=0.5``, 0.919 at ``epsilon=1``, 0.933 at ``epsilon=2``
      (majority class 0.63; non-private logistic regression on standardised
      data 0.98; the papers' non-private MinMax and ``Normalizer`` in front of
      the default classifier 0.74, 0.84, 0.87; ``benchmarks/bench_recipes.py``).
      At ``epsilon=0.1`` (0.59) the classifier warns
      :class:`~sklearn_dpgd.exceptions.UtilityWarning`: 455 rows are too few.

    Parameters
    ----------
    name : {"adult", "bank", "breast_cancer"}
        The data set.
    epsilon : float
        Total privacy budget of the whole fit, preprocessing included, > 0.
    delta : float, default=1e-8
        Total delta, in (0, 1).
    random_state : None, int or RandomState, default=None
        None: every step draws fresh OS entropy (use this for a release); an int
        makes the fit reproducible and warns
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` (the noise can
        then be subtracted).

    Returns
    -------
    model : sklearn_dpgd.pipeline.PrivatePipeline
        Unfitted, with the steps ``dptablevectorizer`` (its ``columns`` blocks
        ``categorical`` and ``numeric`` for Adult, ``exact`` and ``numeric`` for
        Bank, then its ``normalizer``) and ``dplogisticregression``; for
        breast cancer ``functiontransformer``,
        ``dptablevectorizer`` and ``dplogisticregression``. ``fit(X, y)`` takes
        the raw DataFrame of shape (n_samples, 14) (Adult) or (n_samples, 32)
        (Bank), or the raw array (or DataFrame) of shape (n_samples, 30) (breast
        cancer), and the 0/1 labels; ``predict``, ``predict_proba``, ``score``
        take raw data of the same columns. The classifier sees 113 features
        (Adult), 32 (Bank) or 30 (breast cancer), a width fixed by the public
        schema.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        A ValueError (and TypeError) naming the parameter, if ``name`` is not
        ``"adult"``, ``"bank"`` or ``"breast_cancer"``, ``epsilon`` is not a
        positive finite number, ``delta`` is not in (0, 1), or ``random_state``
        is not None, an int or a RandomState. At ``fit``,
        :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` if an open capped
        :class:`~sklearn_dpgd.accounting.PrivacyLedger` cannot cover a step
        (raised before that step reads data).

    See Also
    --------
    sklearn_dpgd.pipeline.make_private_pipeline : Build such a pipeline for
        other data.
    paper_preprocessor : The papers' non-private preprocessing.

    Notes
    -----
    **The budget split** (the default of
    :class:`~sklearn_dpgd.pipeline.PrivatePipeline`): the private bounds get
    10% of ``epsilon`` (and of ``delta``, unused by them), the classifier 90%,
    by basic composition (Dwork & Roth, "The algorithmic foundations of
    differential privacy", 2014, Thm 3.16); the declared categories and
    indicator bounds read nothing and get nothing. The bounds are the
    exponential mechanism over the public range (Smith, "Privacy-preserving
    statistical estimation with optimal convergence rates", STOC 2011; McSherry
    & Talwar, FOCS 2007), ``epsilon / 10 / (2 d)`` per quantile for ``d``
    numeric columns, pure DP. That mechanism weighs each interval between
    consecutive data points by its width, so a value shared by many rows at the
    start of the range (most capital losses are 0) would leave no candidate at
    the true quantile: the vectorizer's candidates extend 1% of the (transformed)
    range below and above it. The classifier spends 1% of its share's GDP
    ``mu^2`` on a noisy count of the rows (the number of rows is private
    under add/remove neighbouring) and the rest on the noisy gradient steps (Lee &
    Kifer, "Concentrated differentially private gradient descent with adaptive
    per-iteration privacy budget", KDD 2018). After ``fit``, ``budget_`` holds
    the ``(epsilon, delta)`` of every data-reading step, ``epsilon_`` their sum
    (at most ``epsilon``), and ``ledger_`` what ran. Each share is scaled down
    by ``1e-9`` relative so that float error cannot exceed the total. For
    breast cancer the scaler is a Gaussian mechanism with 50% of the budget
    (its noisy sums and a noisy count of the rows), the classifier 50%.

    The sources are listed in the package's references page: Kohavi & Becker
    (1996), Moro, Cortez & Rita (2014) and Street, Wolberg & Mangasarian
    ("Nuclear feature extraction for breast tumor diagnosis", IS&T/SPIE
    Electronic Imaging 1905, 1993) for the data and their dictionaries, Lee &
    Kifer (2018) for the protocol.

    Examples
    --------
    >>> from sklearn_dpgd.datasets import load_benchmark_split, private_pipeline
    >>> X, X_test, y, y_test = load_benchmark_split("adult")  # doctest: +SKIP
    >>> model = private_pipeline("adult", epsilon=0.4).fit(X, y)  # doctest: +SKIP
    >>> model.epsilon_ <= 0.4, round(model.score(X_test, y_test), 2)  # doctest: +SKIP
    (True, 0.84)
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = private_pipeline("breast_cancer", epsilon=1.0).fit(X, y)
    >>> model.epsilon_ <= 1.0
    True
    """
    if name == "breast_cancer":
        return _breast_cancer_pipeline(epsilon, delta, random_state)
    return make_private_pipeline(
        _table_vectorizer(name),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=float(epsilon),
        delta=float(delta),
        preprocessing_share=PREPROCESSING_SHARE,
        random_state=random_state,
    )


def _table_vectorizer(name):
    """The :class:`DPTableVectorizer` of Adult or Bank's public schema."""
    if name == "adult":
        return DPTableVectorizer(
            categories={c: sorted(v) for c, v in _ADULT_CATEGORIES.items()},
            bounds=_ADULT_BOUNDS,
        )
    binary = [f"x{i}" for i in range(_BANK_N_FEATURES) if f"x{i}" not in _BANK_RANGES]
    return DPTableVectorizer(
        bounds={**dict.fromkeys(binary, (0, 1)), **_BANK_BOUNDS},
        exact_bounds=binary,
    )


@validate_params(
    {"name": [StrOptions({"adult", "bank"})]}, prefer_skip_nested_validation=True
)
def public_preprocessor(name):
    """The public-schema preprocessing of Adult or Bank: it reads nothing private.

    Every statistic declared: Adult's categories from ``adult.names`` one-hot
    encoded (unknown values to an ``other`` column), every numeric column
    clipped to its public range and mapped to [0, 1]
    (:class:`~sklearn_dpgd.preprocessing.DPOneHotEncoder` and
    :class:`~sklearn_dpgd.preprocessing.DPMinMaxScaler` with declared
    ``categories`` and ``bounds``), then unit-norm rows
    (:class:`~sklearn.preprocessing.Normalizer`). These are not the steps of
    :func:`private_pipeline`, whose
    :class:`~sklearn_dpgd.preprocessing.DPTableVectorizer` also maps the
    heavy-tailed columns by ``log1p``: they are the builders it replaced, kept
    (with DP bounds) as the baseline of ``benchmarks/bench_table_vectorizer.py``.
    Its ``fit`` reads only the column names and dtypes, so it spends no budget
    and can be fitted on the private data before any estimator of this package;
    the estimator's guarantee then covers the whole model. The ranges are wide
    (e.g. capital-gain in [-1, 99999]), so columns whose values crowd one end
    lose resolution: :func:`private_pipeline` estimates tighter bounds for 10%
    of its budget.
    Sources of the schema: the category lists of ``adult.names`` (Kohavi & Becker,
    UCI, 1996) and the attribute descriptions of the Bank Marketing data (Moro,
    Cortez & Rita, Decision Support Systems 62, 2014), as in
    :func:`private_pipeline`.

    Parameters
    ----------
    name : {"adult", "bank"}
        Data set whose raw DataFrame (:func:`fetch_adult`, :func:`fetch_bank`,
        :func:`load_benchmark_split`) the transformer takes.

    Returns
    -------
    preprocessor : sklearn.pipeline.Pipeline
        Unfitted; ``fit_transform`` maps a raw DataFrame of shape
        ``(n_samples, 14)`` (Adult) or ``(n_samples, 32)`` (Bank) to an array
        of shape ``(n_samples, 113)`` or ``(n_samples, 32)`` with unit-norm rows.

    Raises
    ------
    ValueError
        If ``name`` is not ``"adult"`` or ``"bank"``.

    See Also
    --------
    private_pipeline : A table vectorizer (log1p of the heavy-tailed columns,
        bounds estimated privately) and the classifier, on one budget.
    paper_preprocessor : The papers' preprocessing, which reads min/max and
        categories from the data (not private).

    Examples
    --------
    >>> from sklearn_dpgd.datasets import fetch_adult, public_preprocessor
    >>> X_raw, y = fetch_adult()  # doctest: +SKIP
    >>> public_preprocessor("adult").fit_transform(X_raw).shape  # doctest: +SKIP
    (32561, 113)
    """
    columns = _adult_columns() if name == "adult" else _bank_columns()
    ranges = columns.get_params()["num__bounds_range"]
    columns.set_params(num__bounds=ranges, num__bounds_range=None)
    return make_pipeline(columns, Normalizer())
