"""Tests of :mod:`sklearn_dpgd.datasets`.

The real-data tests read ``../shared/data`` beside the repository and are skipped when
that folder is absent; the other tests write small files to ``tmp_path``.
"""

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, OneHotEncoder

from sklearn_dpgd import BudgetExhaustedError, PrivacyLeakWarning, datasets
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.datasets import (
    fetch_adult,
    fetch_bank,
    get_data_home,
    load_adult,
    load_bank,
    load_benchmark_split,
    private_pipeline,
)
from sklearn_dpgd.pipeline import PrivatePipeline, find_privacy_leaks

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
ENV = "SKLEARN_DPGD_DATA"

requires_data = pytest.mark.skipif(
    not DATA_DIR.is_dir(),
    reason=f"real data folder not found: {DATA_DIR} (expected ../shared/data "
    "beside the repository)",
)

ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]
ADULT_CATEGORICAL = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
]
ADULT_COLUMNS = [
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
ADULT_HEADER = ", ".join([*ADULT_COLUMNS, "Y"])


@pytest.fixture(scope="module")
def adult_train():
    return load_adult(DATA_DIR, subset="train")


@pytest.fixture(scope="module")
def adult_test():
    return load_adult(DATA_DIR, subset="test")


@pytest.fixture(scope="module")
def bank():
    return load_bank(DATA_DIR)


def _write_gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(text)


# --- real data --------------------------------------------------------------------


@requires_data
@pytest.mark.parametrize(
    "subset, n_samples, rate", [("train", 32561, 0.2408), ("test", 16281, 0.2362)]
)
def test_load_adult_real(subset, n_samples, rate, adult_train, adult_test):
    X, y = adult_train if subset == "train" else adult_test
    assert isinstance(X, pd.DataFrame)
    assert isinstance(y, pd.Series)
    assert X.shape == (n_samples, 14)
    assert y.shape == (n_samples,)
    assert list(X.columns) == ADULT_COLUMNS
    assert y.name == "income"
    assert y.dtype == np.int64
    assert set(y.unique()) == {0, 1}  # also checks that '>50K.' was parsed
    assert y.mean() == pytest.approx(rate, abs=0.002)
    assert X.index.equals(y.index)


@requires_data
@pytest.mark.parametrize("subset", ["train", "test"])
def test_load_adult_dtypes_and_missing(subset, adult_train, adult_test):
    X, _ = adult_train if subset == "train" else adult_test
    for column in ADULT_NUMERIC:
        assert X[column].dtype in (np.int64, np.float64), column
    for column in ADULT_CATEGORICAL:
        assert isinstance(X[column].dtype, pd.CategoricalDtype), column
        assert "?" not in X[column].cat.categories
        assert not any(c != c.strip() for c in X[column].cat.categories)
    missing = X.isna().sum()
    assert set(missing[missing > 0].index) == {
        "workclass",
        "occupation",
        "native-country",
    }


@requires_data
def test_load_adult_known_values(adult_train, adult_test):
    X, y = adult_train
    assert X.loc[0, "age"] == 39
    assert X.loc[0, "workclass"] == "State-gov"
    assert X.loc[0, "native-country"] == "United-States"
    assert y.iloc[0] == 0
    assert X["workclass"].isna().sum() == 1836
    assert (y == 1).sum() == 7841
    X_test, y_test = adult_test
    assert (y_test == 1).sum() == 3846
    # both splits share the categories (Holand-Netherlands only occurs in train)
    for column in ADULT_CATEGORICAL:
        assert X[column].dtype == X_test[column].dtype, column
    assert (X["native-country"] == "Holand-Netherlands").sum() == 1
    assert (X_test["native-country"] == "Holand-Netherlands").sum() == 0


@requires_data
def test_load_bank_real(bank):
    X, y = bank
    assert X.shape == (45211, 32)
    assert y.shape == (45211,)
    assert list(X.columns) == [f"x{i}" for i in range(32)]
    assert (X.dtypes == np.float64).all()
    assert not X.isna().any().any()
    assert y.name == "y"
    assert y.dtype == np.int64
    assert set(y.unique()) == {0, 1}
    assert y.mean() == pytest.approx(0.117, abs=0.002)
    # features are raw: not already scaled to [0, 1]
    assert X.to_numpy().max() > 1
    assert X.to_numpy().min() < 0


@requires_data
def test_data_home_from_env(monkeypatch, bank):
    monkeypatch.setenv(ENV, str(DATA_DIR))
    X, y = load_bank()
    pd.testing.assert_frame_equal(X, bank[0])
    pd.testing.assert_series_equal(y, bank[1])
    X_test, _ = load_adult(subset="test")
    assert X_test.shape == (16281, 14)


@requires_data
def test_explicit_data_home_overrides_env(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, str(tmp_path))  # holds no data
    X, _ = load_bank(str(DATA_DIR))
    assert X.shape == (45211, 32)


@requires_data
def test_dp_preprocessing_pipeline(adult_train, adult_test):
    # Lee & Kifer (2018) protocol: one-hot, min-max to [0, 1], unit-norm rows.
    X_train, _ = adult_train
    X_test, _ = adult_test
    pipeline = make_pipeline(
        ColumnTransformer(
            [
                (
                    "cat",
                    OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                    ADULT_CATEGORICAL,
                ),
                ("num", MinMaxScaler(), ADULT_NUMERIC),
            ]
        ),
        Normalizer(),
    )
    pipeline.fit(X_train)
    Z = pipeline.transform(X_test)
    assert isinstance(Z, np.ndarray)
    assert Z.dtype == np.float64
    assert Z.shape[0] == 16281
    assert 100 <= Z.shape[1] <= 110
    assert np.all(np.isfinite(Z))
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0, rtol=1e-12)


# --- argument checking and parsing (no real data needed) ---------------------------


@pytest.mark.parametrize("data_home", [3, 2.5, b"/tmp", ["/tmp"]])
@pytest.mark.parametrize(
    "loader", [load_adult, load_bank, fetch_adult, fetch_bank, get_data_home]
)
def test_bad_data_home_type(loader, data_home):
    with pytest.raises(TypeError, match="data_home"):
        loader(data_home)


@pytest.mark.parametrize("subset", ["validation", "TRAIN", "", None, 0])
def test_bad_subset(subset, tmp_path):
    with pytest.raises(ValueError, match="subset"):
        load_adult(tmp_path, subset=subset)


def test_subset_is_keyword_only(tmp_path):
    with pytest.raises(TypeError):
        load_adult(tmp_path, "test")


def test_load_adult_parsing(tmp_path):
    rows = [
        (
            "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
            "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K."
        ),
        (
            "52, ?, 287927, HS-grad, 9, Married-civ-spouse, ?, Wife, White, Female, "
            "15024, 0, 40, ?, >50K."
        ),
        (
            "30, Private, 1000, Masters, 14, Divorced, Sales, Unmarried, Black, Male, "
            "0, 0, 50, Holand-Netherlands, >50K"
        ),
    ]
    text = "\n".join([ADULT_HEADER, *rows]) + "\n\n"  # trailing empty line
    _write_gz(tmp_path / "adult" / "adult.test.gz", text)
    X, y = load_adult(str(tmp_path), subset="test")
    assert X.shape == (3, 14)
    assert list(X.columns) == ADULT_COLUMNS
    assert y.tolist() == [0, 1, 1]
    assert y.dtype == np.int64
    assert X["age"].dtype == np.int64
    assert X["age"].tolist() == [39, 52, 30]
    assert X.loc[1, ["workclass", "occupation", "native-country"]].isna().all()
    assert X.loc[2, "native-country"] == "Holand-Netherlands"
    assert isinstance(X["sex"].dtype, pd.CategoricalDtype)
    assert list(X["sex"].cat.categories) == ["Female", "Male"]


@pytest.mark.parametrize(
    "row, match",
    [
        (
            (
                "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
                "Not-in-family, White, Male, 2174, 0, 40, United-States, maybe"
            ),
            "labels",
        ),
        (
            (
                "39, Nowhere-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
                "Not-in-family, White, Male, 2174, 0, 40, United-States, >50K"
            ),
            "workclass",
        ),
    ],
)
def test_load_adult_bad_content(row, match, tmp_path):
    _write_gz(tmp_path / "adult" / "adult.data.gz", f"{ADULT_HEADER}\n{row}\n")
    with pytest.raises(ValueError, match=match):
        load_adult(tmp_path)


def test_load_adult_bad_header(tmp_path):
    text = ADULT_HEADER.replace("fnlwgt", "weight") + "\n"
    _write_gz(tmp_path / "adult" / "adult.data.gz", text)
    with pytest.raises(ValueError, match="columns"):
        load_adult(tmp_path)


def test_load_bank_parsing(tmp_path):
    # trailing spaces on every line and a trailing empty line, as in BANK.dat.gz
    text = "58 0 2143 1 \n44 1 -29 0 \n33 0 2 1 \n\n"
    _write_gz(tmp_path / "bank" / "BANK.dat.gz", text)
    X, y = load_bank(tmp_path)
    assert list(X.columns) == ["x0", "x1", "x2"]
    assert (X.dtypes == np.float64).all()
    np.testing.assert_array_equal(
        X.to_numpy(), [[58, 0, 2143], [44, 1, -29], [33, 0, 2]]
    )
    assert y.tolist() == [1, 0, 1]
    assert y.dtype == np.int64
    assert y.name == "y"


def test_load_bank_bad_label(tmp_path):
    _write_gz(tmp_path / "bank" / "BANK.dat.gz", "1 2 3\n4 5 0\n")
    with pytest.raises(ValueError, match="label"):
        load_bank(tmp_path)


def test_paper_preprocessor_on_adult_and_bank():
    if not (DATA_DIR / "adult" / "adult.data.gz").exists():
        pytest.skip(f"real data not found at {DATA_DIR}")
    from sklearn_dpgd.datasets import paper_preprocessor

    X, _ = load_adult(DATA_DIR, subset="train")
    X_test, _ = load_adult(DATA_DIR, subset="test")
    pre = paper_preprocessor().fit(X)
    Z = pre.transform(X_test)
    assert isinstance(Z, np.ndarray) and Z.dtype == np.float64
    assert 100 <= Z.shape[1] <= 110
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    assert Z.min() >= 0.0  # min-max clipped: no value outside [0, 1] before norming
    Xb, _ = load_bank(DATA_DIR)
    Zb = paper_preprocessor().fit_transform(Xb)
    assert Zb.shape == (Xb.shape[0], Xb.shape[1])
    np.testing.assert_allclose(np.linalg.norm(Zb, axis=1), 1.0)


def test_load_benchmark_split():
    from sklearn_dpgd.datasets import load_benchmark_split

    with pytest.raises(ValueError, match="name"):
        load_benchmark_split("iris", DATA_DIR)
    if not (DATA_DIR / "bank" / "BANK.dat.gz").exists():
        pytest.skip(f"real data not found at {DATA_DIR}")
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", DATA_DIR)
    assert X_train.shape == (32561, 14) and X_test.shape == (16281, 14)
    X_train, X_test, y_train, y_test = load_benchmark_split("bank", DATA_DIR)
    assert len(X_train) == 36168 and len(X_test) == 9043
    assert abs(y_train.mean() - y_test.mean()) < 1e-3  # stratified


# --- the end-to-end private recipe -------------------------------------------------

SCHEMA_STEPS = {"adult": ("cat", "num"), "bank": ("binary", "num")}


@pytest.fixture(scope="module")
def benchmark_samples():
    """1,500 training and 1,500 test rows of each split (a few seconds per fit)."""
    rng = np.random.default_rng(0)
    samples = {}
    for name in ("adult", "bank"):
        X, X_test, y, y_test = load_benchmark_split(name, DATA_DIR)
        train = rng.choice(len(X), 3000, replace=False)
        test = rng.choice(len(X_test), 1500, replace=False)
        samples[name] = (
            (X.iloc[train[:1500]], y.iloc[train[:1500]]),
            (X.iloc[train[1500:]], y.iloc[train[1500:]]),
            (X_test.iloc[test], y_test.iloc[test]),
        )
    return samples


@pytest.mark.parametrize("name", ["adult", "bank"])
def test_private_pipeline_is_unfitted_and_clonable(name):
    model = private_pipeline(name, epsilon=0.3, delta=1e-7)
    assert isinstance(model, PrivatePipeline)
    assert (model.epsilon, model.delta, model.random_state) == (0.3, 1e-7, None)
    assert not hasattr(model, "pipeline_") and not hasattr(model, "epsilon_")
    with pytest.raises(NotFittedError):
        model.predict(np.zeros((1, 14)))
    twin = clone(model)
    assert twin is not model
    params, twin_params = model.get_params(), twin.get_params()
    assert {k: repr(v) for k, v in params.items()} == {
        k: repr(v) for k, v in twin_params.items()
    }
    # Built from the public schema: no step fits without a mechanism.
    assert find_privacy_leaks(model) == []
    declared, estimated = SCHEMA_STEPS[name]
    assert not params[f"columntransformer__{declared}"]._reads_data()
    assert params[f"columntransformer__{estimated}"]._reads_data()


@requires_data
@pytest.mark.parametrize("name", ["adult", "bank"])
def test_private_pipeline_spends_at_most_epsilon_sum_of_steps(name, benchmark_samples):
    (X, y), _, (X_test, y_test) = benchmark_samples[name]
    # A budget at which 1,500 rows learn Adult reliably (the accuracy check below).
    epsilon, delta = 4.0, 1e-8
    model = private_pipeline(name, epsilon=epsilon, delta=delta)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        with PrivacyLedger() as outer:
            model.fit(X, y)
    columns = model.pipeline_.named_steps["columntransformer"]
    declared, estimated = SCHEMA_STEPS[name]
    declared = columns.named_transformers_[declared]
    scaler = columns.named_transformers_[estimated]
    clf = model.pipeline_.named_steps["dplogisticregression"]
    # The declared schema reads nothing; the DP bounds get 10%, the classifier 90%.
    assert (declared.epsilon_, declared.delta_, declared.ledger_) == (0.0, 0.0, ())
    assert set(model.budget_) == {"columntransformer__num", "dplogisticregression"}
    assert model.budget_["columntransformer__num"][0] == pytest.approx(0.1 * epsilon)
    assert scaler.epsilon_ == pytest.approx(0.1 * epsilon)
    assert clf.epsilon_ == pytest.approx(0.9 * epsilon)
    # The reported total, the exact composition of the steps' fixed guarantees
    # (the classifier's GDP with the bounds' pure DP), is at most the sum of the
    # steps' spends and at most epsilon; every step's mechanism reached the active
    # ledger, whose total is within it.
    assert model.epsilon_ <= scaler.epsilon_ + clf.epsilon_
    assert model.epsilon_ <= epsilon and model.delta_ <= delta
    assert [e.mechanism for e in outer.entries] == [scaler.ledger_, clf.ledger_]
    assert outer.entries == model.ledger_.entries
    assert outer.epsilon(delta) <= model.epsilon_
    if name == "adult":
        # Most capital gains and losses are 0: the public ranges start below 0,
        # so the private lower bounds find 0 (with ranges starting at 0 they
        # land thousands above it, e^-11 likely here, and the column is lost).
        assert np.all(scaler.bounds_[3:5, 0] <= 0.0)
    # Majority class: 0.76 (Adult), 0.88 (Bank). Over 20 fresh fits the test
    # accuracy was 0.803 to 0.821 (Adult) and 0.884 to 0.896 (Bank).
    assert model.score(X_test, y_test) > {"adult": 0.78, "bank": 0.86}[name]


@requires_data
def test_private_pipeline_is_capped_by_the_active_ledger(benchmark_samples):
    (X, y), _, _ = benchmark_samples["adult"]
    model = private_pipeline("adult", epsilon=0.5)
    # The scaler (0.05) fits, the classifier (0.45) would exceed the cap: refused
    # before it reads a row, and only the scaler is on the ledger.
    with PrivacyLedger(epsilon=0.45, delta=1e-8) as capped:
        with pytest.raises(BudgetExhaustedError):
            model.fit(X, y)
    assert [e.source for e in capped.entries] == ["DPMinMaxScaler"]


@requires_data
@pytest.mark.parametrize("name", ["adult", "bank"])
def test_private_pipeline_output_width_is_fixed_by_the_schema(name, benchmark_samples):
    # The features the classifier sees depend on the public schema only, not on
    # which rows (or categories) are present.
    (X1, y1), (X2, y2), _ = benchmark_samples[name]
    names = []
    for X, y in ((X1, y1), (X2.iloc[:300], y2.iloc[:300])):
        model = private_pipeline(name, epsilon=1.0).fit(X, y)
        columns = model.pipeline_.named_steps["columntransformer"]
        names.append(list(columns.get_feature_names_out()))
    assert names[0] == names[1]
    # adult.names: 99 categories + 8 "other" columns + 6 numeric; Bank: 32.
    expected = 113 if name == "adult" else 32
    assert len(names[0]) == expected


@pytest.mark.parametrize(
    "kwargs, param",
    [
        ({"name": "iris", "epsilon": 1.0}, "name"),
        ({"name": "Adult", "epsilon": 1.0}, "name"),
        ({"name": None, "epsilon": 1.0}, "name"),
        ({"name": "adult", "epsilon": 0.0}, "epsilon"),
        ({"name": "adult", "epsilon": -1.0}, "epsilon"),
        ({"name": "adult", "epsilon": np.inf}, "epsilon"),
        ({"name": "adult", "epsilon": np.nan}, "epsilon"),
        ({"name": "adult", "epsilon": "1"}, "epsilon"),
        ({"name": "bank", "epsilon": 1.0, "delta": 0.0}, "delta"),
        ({"name": "bank", "epsilon": 1.0, "delta": 1.0}, "delta"),
        ({"name": "bank", "epsilon": 1.0, "delta": -1e-8}, "delta"),
        ({"name": "bank", "epsilon": 1.0, "random_state": "0"}, "random_state"),
    ],
)
def test_private_pipeline_bad_arguments(kwargs, param):
    name = kwargs.pop("name")
    with pytest.raises(ValueError, match=f"'{param}' parameter of private_pipeline"):
        private_pipeline(name, **kwargs)


def test_private_pipeline_epsilon_is_keyword_only_and_required():
    with pytest.raises(TypeError):
        private_pipeline("adult", 1.0)
    with pytest.raises(TypeError):
        private_pipeline("adult")


@requires_data
@pytest.mark.parametrize("name", ["adult", "bank"])
def test_public_preprocessor_reads_nothing_private(name, benchmark_samples):
    # Fitted under a ledger with leak warnings as errors: no mechanism runs, no
    # statistic is read, and two different samples give the same transformer.
    (X1, _), (X2, _), _ = benchmark_samples[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with PrivacyLedger() as ledger:
            first = datasets.public_preprocessor(name).fit(X1)
            second = datasets.public_preprocessor(name).fit(X2.iloc[:300])
    assert ledger.entries == ()
    assert find_privacy_leaks(first) == []
    Z1, Z2 = first.transform(X1), second.transform(X1)
    np.testing.assert_array_equal(Z1, Z2)
    # adult.names: 99 categories + 8 "other" columns + 6 numeric; Bank: 32.
    expected = 113 if name == "adult" else 32
    assert Z1.shape == (len(X1), expected)
    np.testing.assert_allclose(np.linalg.norm(Z1, axis=1), 1.0)


def test_public_preprocessor_rejects_an_unknown_name():
    with pytest.raises(ValueError, match="name"):
        datasets.public_preprocessor("iris")
