"""Loaders for the real tabular benchmark data sets used by :mod:`sklearn_dpgd`.

Two binary classification data sets from the UCI repository are supported, read from
a local folder (nothing is downloaded):

- :func:`load_adult`: UCI Adult (Census Income), Kohavi & Becker 1996, with its
  standard train and test splits;
- :func:`load_bank`: UCI Bank Marketing (Moro, Cortez & Rita 2014) in the one-hot
  encoded version used by Lee & Kifer (KDD 2018).

The folder is given by the ``data_home`` argument of each loader or, when that is
``None``, by the environment variable ``SKLEARN_DPGD_DATA``. It must hold the files
``adult/adult.data.gz``, ``adult/adult.test.gz`` and ``bank/BANK.dat.gz``.

The loaders return raw features. The differential-privacy experiments of Lee & Kifer
(2018) one-hot encode the categorical features, scale every numeric feature to
``[0, 1]``, scale every row to unit L2 norm and use ``delta = 1e-8``; with
scikit-learn this is a :class:`~sklearn.compose.ColumnTransformer` of
:class:`~sklearn.preprocessing.OneHotEncoder` and
:class:`~sklearn.preprocessing.MinMaxScaler` followed by
:class:`~sklearn.preprocessing.Normalizer`. Note that fitting the min-max scaler on
the private data itself is not differentially private; public bounds should be used
when the privacy guarantee must cover the preprocessing too.

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

import os
from pathlib import Path

try:
    import pandas as pd
except ImportError as exc:  # pandas is an optional dependency (the "datasets" extra)
    raise ImportError(
        "sklearn_dpgd.datasets needs pandas: pip install 'sklearn-dpgd[datasets]'"
    ) from exc

__all__ = ["load_adult", "load_bank", "load_benchmark_split", "paper_preprocessor"]

_DATA_HOME_ENV = "SKLEARN_DPGD_DATA"

_ADULT_FILES = {"train": "adult.data.gz", "test": "adult.test.gz"}

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


def _data_file(data_home, relative_path):
    """Return the path of a data file, checking that it exists.

    Parameters
    ----------
    data_home : str, os.PathLike or None
        Data folder; ``None`` means the environment variable ``SKLEARN_DPGD_DATA``.
    relative_path : str
        Path of the file inside the data folder, e.g. ``"adult/adult.data.gz"``.

    Returns
    -------
    path : pathlib.Path
        Full path of the file.

    Raises
    ------
    TypeError
        If ``data_home`` is neither None, a str nor an os.PathLike.
    ValueError
        If ``data_home`` is None and ``SKLEARN_DPGD_DATA`` is unset or empty.
    FileNotFoundError
        If the file does not exist; the message names the full expected path.
    """
    if data_home is None:
        data_home = os.environ.get(_DATA_HOME_ENV) or None
        if data_home is None:
            raise ValueError(
                "No data folder given: pass data_home=<folder> or set the environment "
                f"variable {_DATA_HOME_ENV}=<folder>, where <folder> contains "
                "'adult/adult.data.gz', 'adult/adult.test.gz' and 'bank/BANK.dat.gz'."
            )
    elif not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(
            "data_home must be a str, an os.PathLike or None, got "
            f"{type(data_home).__name__}: {data_home!r}."
        )
    path = Path(data_home).expanduser() / relative_path
    if not path.is_file():
        raise FileNotFoundError(
            f"Data file not found: '{path}'. data_home (or {_DATA_HOME_ENV}) must be "
            f"the folder that contains '{relative_path}'."
        )
    return path


def load_adult(data_home=None, *, subset="train"):
    """Load the UCI Adult (Census Income) data set, train or test split.

    The task is to predict whether a person's yearly income exceeds 50,000 USD from
    14 census attributes (6 numeric, 8 categorical).

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        Folder that contains ``adult/adult.data.gz`` and ``adult/adult.test.gz``. If
        None, the environment variable ``SKLEARN_DPGD_DATA`` is used.

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
        If ``subset`` is not ``"train"`` or ``"test"``; if ``data_home`` is None and
        ``SKLEARN_DPGD_DATA`` is not set; if the file has unexpected columns,
        categories or labels.
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.
    FileNotFoundError
        If the data file does not exist (the message names the expected path).

    See Also
    --------
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
    >>> X, y = load_adult("../shared/data")  # doctest: +SKIP
    >>> X.shape, round(y.mean(), 3)  # doctest: +SKIP
    ((32561, 14), 0.241)
    """
    if not isinstance(subset, str) or subset not in _ADULT_FILES:
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}.")
    path = _data_file(data_home, f"adult/{_ADULT_FILES[subset]}")

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
        ``SKLEARN_DPGD_DATA`` is used.

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
        If ``data_home`` is None and ``SKLEARN_DPGD_DATA`` is not set, or if the
        last column of the file is not a 0/1 label.
    TypeError
        If ``data_home`` is not None, a str or an os.PathLike.
    FileNotFoundError
        If the data file does not exist (the message names the expected path).

    See Also
    --------
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
    >>> X, y = load_bank("../shared/data")  # doctest: +SKIP
    >>> X.shape, round(y.mean(), 3)  # doctest: +SKIP
    ((45211, 32), 0.117)
    """
    path = _data_file(data_home, "bank/BANK.dat.gz")
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
    not cover them. Where that matters, replace them by public bounds and category
    lists (e.g. ``MinMaxScaler`` fitted on a public range, ``OneHotEncoder`` with
    ``categories=`` from the data dictionary).
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

    Adult: its standard train (32,561 rows) and test (16,281 rows) files. Bank: a
    stratified 80/20 split with ``random_state=0`` (Bank has no standard split; the
    protocol of the package's accuracy tables).

    Parameters
    ----------
    name : {"adult", "bank"}
        The data set.
    data_home : str or os.PathLike, default=None
        Folder holding ``adult/`` and ``bank/``; None reads ``SKLEARN_DPGD_DATA``.

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
        If ``name`` is unknown, or ``data_home`` is None with no environment
        variable set.
    FileNotFoundError
        If the data files are missing (the message names the expected path).
    """
    if name == "adult":
        X_train, y_train = load_adult(data_home, subset="train")
        X_test, y_test = load_adult(data_home, subset="test")
        return X_train, X_test, y_train, y_test
    if name == "bank":
        from sklearn.model_selection import train_test_split

        X, y = load_bank(data_home)
        return tuple(train_test_split(X, y, test_size=0.2, stratify=y, random_state=0))
    raise ValueError(f"name must be 'adult' or 'bank', got {name!r}.")
