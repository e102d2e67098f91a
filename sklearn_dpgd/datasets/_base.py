"""The loaders and recipes, re-exported by :mod:`sklearn_dpgd.datasets`."""

from ._fetch import (
    _ADULT_FILES,
    _data_file,
    check_bank_file,
    fetch_adult_file,
)
from ._schema import _ADULT_CATEGORIES, _ADULT_COLUMNS, _ADULT_LABELS, _ADULT_NUMERIC


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
