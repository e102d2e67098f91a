"""Fetchers and loaders for the real tabular benchmark data sets of :mod:`sklearn_dpgd`.

Two binary classification data sets are supported:

- :func:`fetch_adult` / :func:`load_adult`: UCI Adult (Census Income), Kohavi &
  Becker 1996, with its standard train and test splits. :func:`fetch_adult`
  downloads the two files from the UCI repository on first use (checking their
  SHA-256) and stores them where :func:`load_adult` reads them;
- :func:`fetch_bank` / :func:`load_bank`: UCI Bank Marketing (Moro, Cortez & Rita
  2014) in the one-hot encoded version used by Lee & Kifer (KDD 2018). That file is
  not distributed by UCI, so :func:`fetch_bank` cannot download it: it checks the
  SHA-256 of a copy put in place by hand.

The folder is the ``data_home`` argument of each function or, when that is ``None``,
the environment variable ``SKLEARN_DPGD_DATA`` or, if that is unset, scikit-learn's
data home (:func:`sklearn.datasets.get_data_home`, ``~/scikit_learn_data`` unless
``SCIKIT_LEARN_DATA`` says otherwise); see :func:`get_data_home`. It holds the
files ``adult/adult.data.gz``, ``adult/adult.test.gz`` and ``bank/BANK.dat.gz``.

The loaders return raw features. The differential-privacy experiments of Lee & Kifer
(2018) one-hot encode the categorical features, scale every numeric feature to
``[0, 1]``, scale every row to unit L2 norm and use ``delta = 1e-8``; with
scikit-learn this is a :class:`~sklearn.compose.ColumnTransformer` of
:class:`~sklearn.preprocessing.OneHotEncoder` and
:class:`~sklearn.preprocessing.MinMaxScaler` followed by
:class:`~sklearn.preprocessing.Normalizer`. Note that fitting the min-max scaler on
the private data itself is not differentially private; public bounds should be used
when the privacy guarantee must cover the preprocessing too. :func:`private_pipeline`
does so: it returns the whole model, from the raw DataFrame, with every step
private and one total budget.

References
----------
.. [1] R. Kohavi and B. Becker, "Adult" (Census Income) data set, UCI Machine
   Learning Repository, 1996. https://doi.org/10.24432/C5XW20
.. [2] S. Moro, P. Cortez and P. Rita, "A data-driven approach to predict the success
   of bank telemarketing", Decision Support Systems 62:22-31, 2014. Data: UCI Bank
   Marketing, https://doi.org/10.24432/C5K306
.. [3] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
   with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.
   https://doi.org/10.1145/3219819.3220076
"""

from numbers import Real

from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from ._fetch import (
    _ADULT_FILES,
    _data_file,
    check_bank_file,
    fetch_adult_file,
    get_data_home,
)
from ._sklearn_compat import Interval, StrOptions, validate_params
from .linear_model import DPLogisticRegression
from .pipeline import PREPROCESSING_SHARE, make_private_pipeline
from .preprocessing import DPMinMaxScaler, DPOneHotEncoder

__all__ = [
    "fetch_adult",
    "fetch_bank",
    "get_data_home",
    "load_adult",
    "load_bank",
    "load_benchmark_split",
    "paper_preprocessor",
    "private_pipeline",
    "public_preprocessor",
]

_ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]

# Categories as listed in ``adult.names``. They are fixed (not read from the file) so
# that the train and test splits get identical ``category`` dtypes.
_ADULT_CATEGORIES = {
    "workclass": [
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ],
    "education": [
        "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
        "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
        "Doctorate", "5th-6th", "Preschool",
    ],
    "marital-status": [
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ],
    "occupation": [
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ],
    "relationship": [
        "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried",
    ],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": [
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
        "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
        "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
        "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
        "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ],
}  # fmt: skip

_ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
]

_ADULT_LABELS = {"<=50K": 0, ">50K": 1}

# Public ranges of Adult's numeric columns, from adult.names and the coding of the
# Current Population Survey, never from the data: age > 16 (the extraction rule of
# adult.names), at most 100; education-num codes the 16 education levels;
# capital-gain and capital-loss are >= 0, top-coded at 99999; hours-per-week > 0
# (the extraction rule), top-coded at 99; fnlwgt, a survey weight with no
# published range, within [0, 1.5e6]. private_pipeline searches the DP bounds
# inside them. Each range starts one unit below the smallest possible value: the
# exponential mechanism weighs an interval by its width, and a floor shared by
# many rows (95% of capital-loss is 0) leaves no positive-width interval at the
# floor when the range starts there, which pushes the lower bound far up.
_ADULT_RANGES = {
    "age": (16, 100),
    "fnlwgt": (-1, 1.5e6),
    "education-num": (0, 16),
    "capital-gain": (-1, 99999),
    "capital-loss": (-1, 99999),
    "hours-per-week": (0, 99),
}

# Bank (the one-hot file of Lee & Kifer 2018): the columns that are numeric
# attributes of the UCI data dictionary (Moro et al. 2014), with public ranges
# from their meaning, never from the data (starting one unit below the smallest
# possible value, as for Adult); every other column is a 0/1 indicator of the
# one-hot coding (bounds (0, 1) by construction). The dictionary documents no
# ranges: the campaigns ran from May 2008 to November 2010 (about 900 days),
# which bounds the day counts.
_BANK_RANGES = {
    "x0": (17, 100),  # age in years (clients of a bank deposit are adults)
    "x18": (-1e5, 1e6),  # average yearly balance in euros (may be negative)
    "x23": (-1, 1000),  # day count of the last contact date (within the campaigns)
    "x24": (-1, 7200),  # duration of the last call in seconds (at most two hours)
    "x25": (0, 100),  # contacts during this campaign (at least one)
    "x27": (-1, 1000),  # days since the previous campaign's contact (0: none)
    "x28": (-1, 300),  # contacts before this campaign
}
_BANK_N_FEATURES = 32


def _pandas():
    """Import pandas, an optional dependency (the "datasets" extra), when a loader runs.

    Lazy so that ``python -m sklearn_dpgd`` on scikit-learn's breast-cancer data, which
    imports this module, needs no pandas.
    """
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            "sklearn_dpgd.datasets needs pandas: pip install 'sklearn-dpgd[datasets]'"
        ) from exc
    return pd


def fetch_adult(data_home=None, *, subset="train", download_if_missing=True):
    """Load the UCI Adult data set, downloading it from UCI on first use.

    Like :func:`load_adult`, whose layout the download is stored in: the first call
    downloads ``adult.data`` and ``adult.test`` from the UCI Machine Learning
    Repository [1]_, checks the SHA-256 of each against the published originals
    and stores them as ``<data_home>/adult/adult.data.gz`` and ``adult.test.gz``
    (gzip, with a header line); later calls read them from there. Offline, a
    copy of a UCI file saved by other means as ``<data_home>/adult/adult.data``
    (or ``adult.test``) is checked and converted instead.

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        Folder to read from and download into (``adult/`` inside it). If None, the
        environment variable ``SKLEARN_DPGD_DATA``, else scikit-learn's data home
        (see :func:`get_data_home`).

    subset : {"train", "test"}, default="train"
        Split to load: ``"train"`` (32,561 rows) or ``"test"`` (16,281 rows).

    download_if_missing : bool, default=True
        If False, raise a FileNotFoundError instead of downloading a missing file.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 14)
        Features, as returned by :func:`load_adult`.

    y : pandas.Series of shape (n_samples,), dtype int64
        Labels, 1 for ``>50K``, as returned by :func:`load_adult`.

    Raises
    ------
    FileNotFoundError
        If the file is missing and ``download_if_missing`` is False, or the download
        fails (e.g. offline); the message names the address to download from, its
        SHA-256 and the path to store it at.
    OSError
        If the downloaded bytes do not have the expected SHA-256 (nothing is
        stored).
    ValueError
        If ``subset`` is not ``"train"`` or ``"test"``, or the stored file is
        malformed (see :func:`load_adult`).
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.

    See Also
    --------
    load_adult : Read the files without downloading.

    References
    ----------
    .. [1] R. Kohavi and B. Becker, "Adult" (Census Income) data set, UCI Machine
       Learning Repository, 1996. https://doi.org/10.24432/C5XW20

    Examples
    --------
    >>> from sklearn_dpgd.datasets import fetch_adult
    >>> X, y = fetch_adult()  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (32561, 14)
    """
    if not isinstance(subset, str) or subset not in _ADULT_FILES:
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}.")
    fetch_adult_file(data_home, subset, download_if_missing, _ADULT_COLUMNS)
    return load_adult(data_home, subset=subset)


def fetch_bank(data_home=None):
    """Load the one-hot encoded Bank Marketing data set after checking its SHA-256.

    Like :func:`load_bank`, but the file is first checked against the SHA-256 of
    the version used by Lee & Kifer (2018) [2]_, so that results are comparable
    with theirs. That file is not distributed by the UCI repository (which has the
    raw ``bank-full.csv`` [1]_), so it cannot be downloaded: put it at
    ``<data_home>/bank/BANK.dat.gz`` by hand.

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        Folder holding ``bank/BANK.dat.gz``. If None, the environment variable
        ``SKLEARN_DPGD_DATA``, else scikit-learn's data home (see
        :func:`get_data_home`).

    Returns
    -------
    X : pandas.DataFrame of shape (45211, 32), dtype float64
        Features, as returned by :func:`load_bank`.

    y : pandas.Series of shape (45211,), dtype int64
        Labels, as returned by :func:`load_bank`.

    Raises
    ------
    FileNotFoundError
        If the file is missing; the message names the path and the SHA-256.
    OSError
        If the uncompressed file does not have the expected SHA-256.
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.

    See Also
    --------
    load_bank : Read the file without the SHA-256 check.

    References
    ----------
    .. [1] S. Moro, P. Cortez and P. Rita, "A data-driven approach to predict the
       success of bank telemarketing", Decision Support Systems 62:22-31, 2014.
       Data: UCI Bank Marketing, https://doi.org/10.24432/C5K306
    .. [2] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
       with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.
    """
    check_bank_file(data_home)
    return load_bank(data_home)


def load_adult(data_home=None, *, subset="train"):
    """Load the UCI Adult (Census Income) data set, train or test split.

    The task is to predict whether a person's yearly income exceeds 50,000 USD from
    14 census attributes (6 numeric, 8 categorical).

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        Folder that contains ``adult/adult.data.gz`` and ``adult/adult.test.gz``. If
        None, the environment variable ``SKLEARN_DPGD_DATA``, else scikit-learn's
        data home (see :func:`get_data_home`). Nothing is downloaded: use
        :func:`fetch_adult` for that.

    subset : {"train", "test"}, default="train"
        Split to load: ``"train"`` (``adult.data.gz``, 32,561 rows) or ``"test"``
        (``adult.test.gz``, 16,281 rows).

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 14)
        Features, columns named as in the file header: ``age``, ``workclass``,
        ``fnlwgt``, ``education``, ``education-num``, ``marital-status``,
        ``occupation``, ``relationship``, ``race``, ``sex``, ``capital-gain``,
        ``capital-loss``, ``hours-per-week``, ``native-country``. The 6 numeric
        columns have dtype int64 (float64 if a value is missing). The 8 categorical
        columns have dtype ``category`` with the categories listed in
        ``adult.names``, the same for both splits. Missing values (``?`` in the
        file) are NaN.

    y : pandas.Series of shape (n_samples,), dtype int64
        Label named ``"income"``: 1 for ``>50K``, 0 for ``<=50K`` (the trailing
        ``.`` of the labels in the test file is ignored).

    Raises
    ------
    ValueError
        If ``subset`` is not ``"train"`` or ``"test"``; if the file has unexpected
        columns, categories or labels.
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.
    FileNotFoundError
        If the data file does not exist (the message names the expected path).
    ImportError
        If pandas (the ``datasets`` extra) is not installed.

    See Also
    --------
    fetch_adult : The same, downloading the files on first use.
    load_bank : The Bank Marketing data set.

    Notes
    -----
    The training split has 24.1% positive labels, the test split 23.6%; the
    categorical columns ``workclass``, ``occupation`` and ``native-country`` have
    missing values. The category ``Holand-Netherlands`` of ``native-country`` only
    occurs in the training split.

    One-hot encoding of the categorical columns (with missing values as an extra
    category) gives about 100-110 features. The differential-privacy protocol of Lee
    & Kifer (2018) [2]_ one-hot encodes the categorical columns, scales the numeric
    columns to ``[0, 1]``, scales every row to unit L2 norm and uses
    ``delta = 1e-8``.

    References
    ----------
    .. [1] R. Kohavi and B. Becker, "Adult" (Census Income) data set, UCI Machine
       Learning Repository, 1996. https://doi.org/10.24432/C5XW20
    .. [2] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
       with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.

    Examples
    --------
    >>> from sklearn_dpgd.datasets import load_adult
    >>> X, y = load_adult()  # doctest: +SKIP
    >>> X.shape, round(y.mean(), 3)  # doctest: +SKIP
    ((32561, 14), 0.241)
    """
    if not isinstance(subset, str) or subset not in _ADULT_FILES:
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}.")
    path = _data_file(data_home, f"adult/{_ADULT_FILES[subset]}")

    pd = _pandas()
    df = pd.read_csv(path, skipinitialspace=True, na_values="?", keep_default_na=False)
    df.columns = df.columns.str.strip()
    expected = [*_ADULT_COLUMNS, "Y"]
    if list(df.columns) != expected:
        raise ValueError(
            f"Unexpected columns in '{path}': {list(df.columns)}; expected {expected}."
        )

    labels = df.pop("Y").str.strip().str.rstrip(".")
    unknown = sorted(set(labels.dropna()) - set(_ADULT_LABELS))
    if labels.isna().any() or unknown:
        raise ValueError(
            f"Unexpected labels in '{path}': {unknown or ['<missing>']}; expected "
            "'<=50K' or '>50K' (optionally followed by '.')."
        )
    y = labels.map(_ADULT_LABELS).astype("int64").rename("income")

    for column, categories in _ADULT_CATEGORIES.items():
        values = df[column]
        unknown = values.notna() & ~values.isin(categories)
        if unknown.any():
            raise ValueError(
                f"Unexpected values in column {column!r} of '{path}': "
                f"{sorted(set(values[unknown]))}."
            )
        df[column] = values.astype(pd.CategoricalDtype(sorted(categories)))
    for column in _ADULT_NUMERIC:
        if not pd.api.types.is_numeric_dtype(df[column]):
            raise ValueError(f"Column {column!r} of '{path}' is not numeric.")
    return df, y


def load_bank(data_home=None):
    """Load the UCI Bank Marketing data set, one-hot encoded (Lee & Kifer 2018).

    The task is to predict whether a client subscribes a term deposit after a
    direct-marketing phone campaign of a Portuguese bank. The file holds all
    45,211 rows; no train/test split is made, callers split.

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        Folder that contains ``bank/BANK.dat.gz``. If None, the environment variable
        ``SKLEARN_DPGD_DATA``, else scikit-learn's data home (see
        :func:`get_data_home`).

    Returns
    -------
    X : pandas.DataFrame of shape (45211, 32), dtype float64
        Features, columns named ``x0`` to ``x31`` (the file has no header). The
        categorical attributes are already one-hot encoded; the numeric attributes
        are raw (unscaled, e.g. account balances in euros, some negative).

    y : pandas.Series of shape (45211,), dtype int64
        Label named ``"y"``: 1 if the client subscribed, else 0.

    Raises
    ------
    ValueError
        If the last column of the file is not a 0/1 label.
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.
    FileNotFoundError
        If the data file does not exist (the message names the expected path).
    ImportError
        If pandas (the ``datasets`` extra) is not installed.

    See Also
    --------
    fetch_bank : The same, with a SHA-256 check of the file.
    load_adult : The Adult (Census Income) data set.

    Notes
    -----
    The file ``BANK.dat.gz`` holds whitespace-separated numbers, the label in the
    last column; 11.7% of the labels are positive (majority-class accuracy 0.883).
    It is the one-hot encoded version of the UCI data [1]_ used in the experiments
    of Lee & Kifer (2018) [2]_, whose differential-privacy protocol scales every
    feature to ``[0, 1]``, scales every row to unit L2 norm and uses
    ``delta = 1e-8``.

    References
    ----------
    .. [1] S. Moro, P. Cortez and P. Rita, "A data-driven approach to predict the
       success of bank telemarketing", Decision Support Systems 62:22-31, 2014.
       Data: UCI Bank Marketing, https://doi.org/10.24432/C5K306
    .. [2] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
       with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.

    Examples
    --------
    >>> from sklearn_dpgd.datasets import load_bank
    >>> X, y = load_bank()  # doctest: +SKIP
    >>> X.shape, round(y.mean(), 3)  # doctest: +SKIP
    ((45211, 32), 0.117)
    """
    path = _data_file(data_home, "bank/BANK.dat.gz")
    pd = _pandas()
    data = pd.read_csv(path, sep=r"\s+", header=None, dtype="float64")
    if data.shape[1] < 2:
        raise ValueError(f"Expected features and a label in '{path}'.")
    labels = data.pop(data.columns[-1])
    if not labels.isin([0.0, 1.0]).all():
        raise ValueError(f"The last column of '{path}' must be a 0/1 label.")
    y = labels.astype("int64").rename("y")
    data.columns = [f"x{i}" for i in range(data.shape[1])]
    return data, y


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


def load_benchmark_split(name, data_home=None):
    """Train/test split of a benchmark data set as the package's benchmarks use it.

    Adult: its standard train (32,561 rows) and test (16,281 rows) files, downloaded
    on first use (:func:`fetch_adult`). Bank: a stratified 80/20 split with
    ``random_state=0`` (Bank has no standard split; the protocol of the package's
    accuracy tables) of the checked file (:func:`fetch_bank`).

    Parameters
    ----------
    name : {"adult", "bank"}
        The data set.
    data_home : str or os.PathLike, default=None
        Folder holding ``adult/`` and ``bank/``; None: see :func:`get_data_home`.

    Returns
    -------
    X_train : pandas.DataFrame of shape (n_train, n_features)
        Raw features of the training split.
    X_test : pandas.DataFrame of shape (n_test, n_features)
        Raw features of the test split.
    y_train : pandas.Series of shape (n_train,)
        0/1 labels of the training split.
    y_test : pandas.Series of shape (n_test,)
        0/1 labels of the test split.

    Raises
    ------
    ValueError
        If ``name`` is unknown.
    FileNotFoundError
        If the data files are missing and cannot be downloaded (the message says
        where to put them).
    OSError
        If a file does not have the expected SHA-256.
    """
    if name == "adult":
        X_train, y_train = fetch_adult(data_home, subset="train")
        X_test, y_test = fetch_adult(data_home, subset="test")
        return X_train, X_test, y_train, y_test
    if name == "bank":
        from sklearn.model_selection import train_test_split

        X, y = fetch_bank(data_home)
        return tuple(train_test_split(X, y, test_size=0.2, stratify=y, random_state=0))
    raise ValueError(f"name must be 'adult' or 'bank', got {name!r}.")


def _adult_columns():
    """Adult's public schema: declared categories, DP bounds in public ranges."""
    categorical = list(_ADULT_CATEGORIES)
    numeric = list(_ADULT_RANGES)
    # The categories of adult.names, in the (sorted) order of load_adult's dtypes.
    encoder = DPOneHotEncoder([sorted(_ADULT_CATEGORIES[c]) for c in categorical])
    scaler = DPMinMaxScaler(bounds_range=[_ADULT_RANGES[c] for c in numeric])
    return ColumnTransformer([("cat", encoder, categorical), ("num", scaler, numeric)])


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
        "name": [StrOptions({"adult", "bank"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def private_pipeline(name, *, epsilon, delta=1e-8, random_state=None):
    """An unfitted private model of Adult or Bank, from the raw DataFrame.

    Every step that reads the training data does so through a differentially
    private mechanism, on one total budget: ``fit`` on the raw DataFrame of
    :func:`load_benchmark_split` (or of :func:`fetch_adult`, :func:`fetch_bank`)
    spends at most ``(epsilon, delta)`` on everything, records every mechanism
    on the active :class:`~sklearn_dpgd.accounting.PrivacyLedger` objects and
    reports the total as ``epsilon_``. The recipe is built from the public schema
    only, never from the data:

    * ``"adult"``: the 8 categorical columns one-hot encoded with the categories
      listed in ``adult.names`` (declared, no budget; missing values go to one
      ``<feature>_other`` column per feature); the 6 numeric columns clipped and
      scaled to ``[0, 1]`` with bounds estimated privately (the 0.01 and 0.99
      quantiles) inside public ranges from ``adult.names`` and the survey's
      coding (``age`` from 17 to 100, ``fnlwgt`` up to 1.5e6, ``education-num``
      from 1 to 16, ``capital-gain`` and ``capital-loss`` from 0 to 99999,
      ``hours-per-week`` from 1 to 99), each starting one unit below its
      smallest value (see Notes);
    * ``"bank"``: the 25 indicator columns of the one-hot file kept as they are
      (declared bounds ``(0, 1)``, no budget); the 7 numeric attributes of the
      UCI data dictionary (age, balance, a day count, call duration, contacts,
      days since the previous campaign, previous contacts: columns ``x0``,
      ``x18``, ``x23``, ``x24``, ``x25``, ``x27``, ``x28``) scaled with bounds
      estimated privately inside public ranges from their meaning (the
      dictionary gives none);

    then every row scaled to unit L2 norm (row-wise, no budget) and
    :class:`~sklearn_dpgd.DPLogisticRegression` with its defaults: the protocol
    of Lee & Kifer (2018), with the preprocessing made private.

    Parameters
    ----------
    name : {"adult", "bank"}
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
        Unfitted, with the steps ``columntransformer`` (transformers ``cat`` and
        ``num`` for Adult, ``binary`` and ``num`` for Bank), ``normalizer`` and
        ``dplogisticregression``. ``fit(X, y)`` takes the raw DataFrame of shape
        (n_samples, 14) (Adult) or (n_samples, 32) (Bank) and the 0/1 labels;
        ``predict``, ``predict_proba``, ``score`` take raw DataFrames of the same
        columns. The classifier sees 113 features (Adult) or 32 (Bank), a width
        fixed by the public schema.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        A ValueError (and TypeError) naming the parameter, if ``name`` is not
        ``"adult"`` or ``"bank"``, ``epsilon`` is not a positive finite number,
        ``delta`` is not in (0, 1), or ``random_state`` is not None, an int or a
        RandomState. At ``fit``,
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
    the true quantile: the ranges start one unit below the smallest possible
    value. The classifier spends 1% of its share's GDP ``mu^2`` on a noisy
    count of the rows (the number of rows is private under add/remove
    neighbouring) and the rest on the noisy gradient steps (Lee &
    Kifer, "Concentrated differentially private gradient descent with adaptive
    per-iteration privacy budget", KDD 2018). After ``fit``, ``budget_`` holds
    the ``(epsilon, delta)`` of every data-reading step, ``epsilon_`` their sum
    (at most ``epsilon``), and ``ledger_`` what ran. Each share is scaled down
    by ``1e-9`` relative so that float error cannot exceed the total.

    The sources are listed in the package's references page: Kohavi & Becker
    (1996) and Moro, Cortez & Rita (2014) for the data and their dictionaries,
    Lee & Kifer (2018) for the protocol.

    Examples
    --------
    >>> from sklearn_dpgd.datasets import load_benchmark_split, private_pipeline
    >>> X, X_test, y, y_test = load_benchmark_split("adult")  # doctest: +SKIP
    >>> model = private_pipeline("adult", epsilon=0.4).fit(X, y)  # doctest: +SKIP
    >>> model.epsilon_ <= 0.4, round(model.score(X_test, y_test), 2)  # doctest: +SKIP
    (True, 0.84)
    """
    columns = _adult_columns() if name == "adult" else _bank_columns()
    return make_private_pipeline(
        columns,
        Normalizer(),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=float(epsilon),
        delta=float(delta),
        preprocessing_share=PREPROCESSING_SHARE,
        random_state=random_state,
    )


@validate_params(
    {"name": [StrOptions({"adult", "bank"})]}, prefer_skip_nested_validation=True
)
def public_preprocessor(name):
    """The public-schema preprocessing of Adult or Bank: it reads nothing private.

    The preprocessing steps of :func:`private_pipeline` with every statistic
    declared: Adult's categories from ``adult.names`` one-hot encoded (unknown
    values to an ``other`` column), every numeric column clipped to its public
    range and mapped to [0, 1] (:class:`~sklearn_dpgd.preprocessing.DPOneHotEncoder`
    and :class:`~sklearn_dpgd.preprocessing.DPMinMaxScaler` with declared
    ``categories`` and ``bounds``), then unit-norm rows
    (:class:`~sklearn.preprocessing.Normalizer`). Its ``fit`` reads only the
    column names and dtypes, so it spends no budget and can be fitted on the
    private data before any estimator of this package; the estimator's guarantee
    then covers the whole model. The ranges are wide (e.g. capital-gain in
    [-1, 99999]), so columns whose values crowd one end lose resolution:
    :func:`private_pipeline` estimates tighter bounds for 10% of its budget.
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
    private_pipeline : The same steps with bounds estimated privately, and the
        classifier, on one budget.
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
