"""Tests of :mod:`sklearn_dpgd.datasets`.

The real-data tests read ``../shared/data`` beside the repository and are skipped when
that folder is absent; the other tests write small files to ``tmp_path``.
"""

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, OneHotEncoder

from sklearn_dpgd.datasets import (
    fetch_adult,
    fetch_bank,
    get_data_home,
    load_adult,
    load_bank,
    load_benchmark_split,
)

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


def test_load_benchmark_split():

    with pytest.raises(ValueError, match="name"):
        load_benchmark_split("iris", DATA_DIR)
    if not (DATA_DIR / "bank" / "BANK.dat.gz").exists():
        pytest.skip(f"real data not found at {DATA_DIR}")
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", DATA_DIR)
    assert X_train.shape == (32561, 14) and X_test.shape == (16281, 14)
    X_train, X_test, y_train, y_test = load_benchmark_split("bank", DATA_DIR)
    assert len(X_train) == 36168 and len(X_test) == 9043
    assert abs(y_train.mean() - y_test.mean()) < 1e-3  # stratified
