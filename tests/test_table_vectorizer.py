"""DPTableVectorizer and schema_from_dtypes (issue 44)."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import estimator_checks

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import find_privacy_leaks, make_private_pipeline
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPStandardScaler,
    DPTableVectorizer,
    schema_from_dtypes,
)

DELTA = 1e-6
SECRET = 987654.321  # a private value that must never appear in a message
N = 400


def _table(n=N, seed=0):
    rng = np.random.default_rng(seed)
    income = np.where(rng.random(n) < 0.7, 0.0, rng.lognormal(8, 2, n))
    income[0] = SECRET
    score = rng.normal(50, 10, n)
    score[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": income,
            "job": rng.choice(["clerk", "nurse", "pilot"], n),
            "member": rng.random(n) < 0.4,
            "joined": pd.Timestamp("2015-01-01")
            + pd.to_timedelta(rng.integers(0, 3000, n), unit="D"),
            "score": score,
        }
    )


def _labels(X):
    return (X["age"].to_numpy() + 20 * X["member"].to_numpy() > 60).astype(int)


SCHEMA = {
    "bounds": {
        "age": (17, 100),
        "income": (0, 1e7),
        "joined": ("2010-01-01", "2025-01-01"),
        "score": (0, 100),
    },
    "categories": {"job": ["clerk", "nurse", "pilot"]},
}


def _vectorizer(**params):
    return DPTableVectorizer(**SCHEMA, **{"missing": ["score"], **params})


def test_every_column_kind_gets_its_step():
    X = _table()
    vec = _vectorizer(epsilon=1.0, delta=DELTA, random_state=0).fit(X)
    columns = vec.pipeline_.pipeline_.named_steps["columns"]
    kinds = {name: cols for name, _, cols in columns.transformers_}
    assert kinds["categorical"] == ["job"]
    assert kinds["bool"] == ["member"]
    assert kinds["datetime"] == ["joined"]
    assert kinds["numeric"] == ["age", "income"]
    assert kinds["numeric_missing"] == ["score"]
    # Heavy-tailed (a range over 7 orders of magnitude from 0): log1p; age is not.
    assert vec.log_columns_ == ["income"]
    assert list(vec.get_feature_names_out()) == [
        "job_clerk",
        "job_nurse",
        "job_pilot",
        "job_other",
        "member",
        "joined_time",
        "age",
        "income",
        "score",
    ]
    Z = vec.transform(X)
    assert Z.shape == (N, 9)
    assert np.all(np.isfinite(Z))  # the missing scores were imputed
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    # The log column is scaled in log space: the secret's row is not an outlier
    # that squeezes every other income to 0.
    income = columns.named_transformers_["numeric"].transform(X[["age", "income"]])
    assert np.ptp(income[1:, 1][X["income"].to_numpy()[1:] > 0]) > 0.2


def test_standard_scaler_is_a_gaussian_mechanism():
    X = _table()
    vec = _vectorizer(scaler="standard", norm=None, random_state=0)
    assert vec._gdp_ledger_refusal() is None and vec._reads_data()
    Z = vec.fit(X).transform(X)
    columns = vec.pipeline_.pipeline_.named_steps["columns"]
    scaler = columns.named_transformers_["numeric"].named_steps["scale"]
    assert type(scaler).__name__ == "DPStandardScaler"
    assert vec.pipeline_.accounting_ == "gdp"
    assert abs(Z[:, -3].mean()) < 0.5  # age standardised (a DP mean near its own)
    # A declared public size reaches the scaler (no noisy count of the rows).
    model = make_private_pipeline(
        _vectorizer(scaler="standard", norm=None),
        DPLogisticRegression(classes=[0, 1]),
        public_n_samples=N,
        delta=DELTA,
    ).fit(X, _labels(X))
    vec = model.pipeline_.named_steps["dptablevectorizer"]
    columns = vec.pipeline_.pipeline_.named_steps["columns"]
    scaler = columns.named_transformers_["numeric"].named_steps["scale"]
    assert scaler.public_n_samples == N


def test_log_rule_and_override():
    X = _table()
    vec = DPTableVectorizer(**SCHEMA, missing=["score"], log=[], random_state=0)
    assert vec.fit(X).log_columns_ == []
    vec = DPTableVectorizer(**SCHEMA, missing=["score"], log_ratio=1e8, random_state=0)
    assert vec.fit(X).log_columns_ == []


def test_datetime_parts_are_public_functions_of_the_row():
    X = pd.DataFrame({"t": pd.to_datetime(["2020-01-01 00:00", "2020-12-31 23:00"])})
    X.loc[2, "t"] = pd.NaT
    vec = DPTableVectorizer(
        bounds={"t": ("2020-01-01", "2021-01-01")},
        norm=None,
        datetime_parts=["time", "month", "weekday", "hour"],
    )
    Z = vec.fit(X).transform(X)
    assert vec.epsilon_ == 0.0 and not vec._reads_data()
    np.testing.assert_allclose(Z[0], [0.0, 0.0, 2 / 6, 0.0])  # a Wednesday
    np.testing.assert_allclose(Z[1], [(365 * 24 + 23) / (366 * 24), 1.0, 3 / 6, 1.0])
    np.testing.assert_allclose(Z[2], 0.5)


def test_undeclared_columns_are_refused_with_the_dicts_to_write():
    X = _table()
    with pytest.raises(ValueError) as info:
        DPTableVectorizer(bounds={"age": (17, 100)}).fit(X)
    message = str(info.value)
    for column in ("income", "job", "joined", "score"):
        assert repr(column) in message
    assert "'member'" not in message  # booleans need no declaration
    assert "bounds={'income': (lo, hi)" in message
    assert "categories={'job': [...]}" in message
    assert "schema_from_dtypes" in message
    assert "987654" not in message and "clerk" not in message


def test_errors_never_show_private_values():
    X = _table()
    X["code"] = ["secret-code"] * N
    with pytest.raises(TypeError, match="'code' of dtype") as info:
        DPTableVectorizer(bounds={**SCHEMA["bounds"], "code": (0, 1)}).fit(X)
    assert "secret-code" not in str(info.value)
    with pytest.raises(ValueError, match=r"not in X: \['absent'\]"):
        DPTableVectorizer(**SCHEMA, missing=["absent"]).fit(X.drop(columns="code"))
    with pytest.raises(ValueError, match=r"bounds\['age'\] must be a pair"):
        DPTableVectorizer(
            bounds={**SCHEMA["bounds"], "age": ("17", "100")},
            categories=SCHEMA["categories"],
            missing=["score"],
        ).fit(X.drop(columns="code"))
    with pytest.raises(ValueError, match=r"bounds\['age'\] must be finite"):
        DPTableVectorizer(
            bounds={**SCHEMA["bounds"], "age": (5, 1)},
            categories=SCHEMA["categories"],
            missing=["score"],
        ).fit(X.drop(columns="code"))
    # NaN in a column not declared missing: the scaler says what to do.
    with pytest.raises(ValueError, match="DPSimpleImputer") as info:
        _vectorizer(missing=[]).fit(X.drop(columns="code"))
    assert "987654" not in str(info.value)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"missing": ["score", "job"]}, r"missing lists .*: \['job'\]"),
        ({"missing": ["score", "member"]}, r"missing lists .*: \['member'\]"),
        ({"missing": ["score", "joined"]}, r"missing lists .*: \['joined'\]"),
        ({"exact_bounds": ["job"]}, r"exact_bounds lists .*: \['job'\]"),
        ({"exact_bounds": ["joined"]}, r"exact_bounds lists .*: \['joined'\]"),
        (
            {"bounds": {**SCHEMA["bounds"], "job": (0, 1)}},
            r"both categories and bounds: \['job'\]",
        ),
    ],
)
def test_declarations_that_would_be_ignored_are_refused(params, message):
    # Ignored, they would make the vectorizer reserve a budget share it never
    # spends (missing=['job'] alone: epsilon_ 0.946 of 1.0 in a pipeline).
    params = {**SCHEMA, "missing": ["score"], **params}
    with pytest.raises(ValueError, match=message):
        DPTableVectorizer(**params).fit(_table())


def test_the_budget_is_spent_whole_without_ignored_declarations():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0] * 25, "job": ["x", "y"] * 50})
    model = make_private_pipeline(
        DPTableVectorizer(
            categories={"job": ["x", "y"]}, bounds={"a": (0, 5)}, exact_bounds=["a"]
        ),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
    ).fit(X, [0, 1] * 50)
    assert model.epsilon_ == pytest.approx(1.0)


def test_transform_requires_the_fitted_columns():
    X = _table()
    vec = _vectorizer(random_state=0).fit(X)
    with pytest.raises(ValueError, match="fitted with"):
        vec.transform(X.drop(columns="age"))
    with pytest.raises(ValueError, match=r"columns \['x0'.*fitted with"):
        vec.transform(X.to_numpy())


def test_the_built_pipeline_has_no_leak_and_one_budget():
    X = _table()
    y = _labels(X)
    model = make_private_pipeline(
        _vectorizer(),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
    )
    assert find_privacy_leaks(model) == []
    with PrivacyLedger() as outer:
        model.fit(X, y)
    assert find_privacy_leaks(model) == []
    assert model.accounting_ == "basic"  # the quantiles are pure DP
    vec = model.pipeline_.named_steps["dptablevectorizer"]
    share = model.budget_["dptablevectorizer"]
    assert share.epsilon == pytest.approx(0.1 * 1.0, rel=1e-6)
    # The vectorizer splits its share by columns: 2 scaled columns, 1 imputed
    # and scaled column (1/4 each); it spends at most that share (the exact
    # composition of the Gaussian imputer with the pure-DP quantiles is less
    # than their sum).
    inner = vec.pipeline_.budget_
    total = sum(b.epsilon for b in inner.values())
    assert total == pytest.approx(share.epsilon, rel=1e-6)
    assert 0.9 * share.epsilon < vec.epsilon_ <= share.epsilon
    assert set(inner) == {
        "columns__numeric__scale",
        "columns__numeric_missing__impute",
        "columns__numeric_missing__scale",
    }
    assert inner["columns__numeric__scale"].epsilon == pytest.approx(
        2 * inner["columns__numeric_missing__scale"].epsilon
    )
    assert model.epsilon_ <= 1.0
    # The user's ledger saw every mechanism: the vectorizer's and the model's.
    assert len(outer.entries) == len(vec.ledger_.entries) + 1
    assert outer.epsilon(model.delta_) <= 1.0 + 1e-9


def test_a_gaussian_vectorizer_composes_exactly_in_the_pipeline_ledger():
    X = _table()
    y = _labels(X)
    model = make_private_pipeline(
        _vectorizer(quantiles=None),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
    ).fit(X, y)
    assert model.accounting_ == "gdp"
    assert model.epsilon_ == pytest.approx(1.0, rel=1e-6)
    assert model.epsilon_ == pytest.approx(model.ledger_.epsilon(DELTA), rel=1e-12)


def test_replace_neighbouring_doubles_the_imputer_noise():
    # The sensitivity of the imputed sums doubles under replace-one: a missing
    # factor of 2 in what the vectorizer passes down would fail here.
    X = _table()
    noise = {}
    for relation in ("add_remove", "replace"):
        vec = _vectorizer(neighboring=relation, random_state=0).fit(X)
        columns = vec.pipeline_.pipeline_.named_steps["columns"]
        imputer = columns.named_transformers_["numeric_missing"].named_steps["impute"]
        assert imputer.neighboring == relation
        noise[relation] = imputer.noise_std_
    assert noise["replace"] == pytest.approx(2 * noise["add_remove"], rel=1e-12)


def test_declared_public_schema_reads_nothing():
    X = _table().drop(columns="score")
    bounds = {k: v for k, v in SCHEMA["bounds"].items() if k != "score"}
    vec = DPTableVectorizer(bounds=bounds, categories=SCHEMA["categories"])
    vec.set_params(exact_bounds=["age", "income"])
    assert not vec._reads_data()
    with PrivacyLedger() as ledger:
        vec.fit(X)
    assert vec.epsilon_ == 0.0 and ledger.epsilon(DELTA) == 0.0


def test_private_grid_search_tunes_a_pipeline_with_the_vectorizer():
    X = _table()
    y = _labels(X)
    pipe = make_private_pipeline(
        _vectorizer(quantiles=None), DPLogisticRegression(classes=[0, 1])
    )
    grid = {"dplogisticregression__alpha": [0.0, 0.01]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = PrivateGridSearchCV(pipe, grid, delta=DELTA, random_state=0)
        search.fit(X, y)
    assert search.best_params_ in list(ParameterGrid(grid))
    assert search.epsilon_ <= 1.0
    assert search.epsilon_ == pytest.approx(search.ledger_.epsilon(DELTA), rel=1e-12)
    assert search.predict(X).shape == (N,)


def test_clone_and_pickle_keep_the_schema():
    vec = _vectorizer(random_state=0)
    assert clone(vec).get_params() == vec.get_params()
    fitted = vec.fit(_table())
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(_table()), fitted.transform(_table()))


@pytest.mark.parametrize(
    "bad",
    [
        {"norm": "l3"},
        {"log": "all"},
        {"log_ratio": 0.5},
        {"datetime_parts": ["time", "second"]},
        {"datetime_parts": []},
    ],
)
def test_bad_parameters_name_themselves(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        _vectorizer(**bad).fit(_table())


def test_fit_takes_a_dataframe_or_a_2d_array():
    with pytest.raises(TypeError, match="pandas DataFrame"):
        _vectorizer().fit([1.0, 2.0])
    with pytest.raises(ValueError, match=r"not in X: \['age', 'income'"):
        _vectorizer().fit(_table().to_numpy())
    # An array's columns are x0, x1, ... (scikit-learn's names).
    X = np.random.default_rng(0).uniform(0, 5, (50, 2))
    vec = DPTableVectorizer(bounds={"x0": (0, 5), "x1": (0, 5)}, quantiles=None)
    np.testing.assert_allclose(
        vec.fit(X).transform(X), X / np.linalg.norm(X, axis=1)[:, None]
    )
    assert list(vec.get_feature_names_out()) == ["x0", "x1"]


def test_schema_helper_reads_no_private_value():
    X = _table()
    neighbour = X.drop(index=0)  # add/remove: one row less
    replaced = X.copy()
    replaced.loc[1, "job"] = "astronaut"  # replace: a value seen nowhere else
    replaced.loc[1, "income"] = -5.0
    schema = schema_from_dtypes(X)
    assert schema == schema_from_dtypes(neighbour) == schema_from_dtypes(replaced)
    assert schema == {
        "bounds": {"age": None, "income": None, "joined": None, "score": None},
        "categories": {"job": None},
    }
    # Declared categorical dtypes are schema; copied only on request.
    codebook = pd.CategoricalDtype(["clerk", "nurse", "pilot", "astronaut"])
    a, b = X.astype({"job": codebook}), replaced.astype({"job": codebook})
    assert schema_from_dtypes(a)["categories"]["job"] is None
    copied = schema_from_dtypes(a, dtype_categories=True)
    assert copied == schema_from_dtypes(b, dtype_categories=True)
    assert copied["categories"]["job"] == ["clerk", "nurse", "pilot", "astronaut"]
    with pytest.raises(TypeError, match="DataFrame"):
        schema_from_dtypes(X.to_numpy())


def test_filled_skeleton_fits():
    X = _table()
    schema = schema_from_dtypes(X)
    schema["bounds"].update(SCHEMA["bounds"])
    schema["categories"].update(SCHEMA["categories"])
    vec = DPTableVectorizer(**schema, missing=["score"], random_state=0).fit(X)
    assert vec.transform(X).shape == (N, 9)


@pytest.mark.parametrize(
    "scaler", [DPMinMaxScaler(bounds=(0, 1)), DPStandardScaler(bounds=(0, 1))]
)
def test_private_scalers_facing_nan_say_what_to_put_first(scaler):
    X = np.array([[0.5], [np.nan], [SECRET]])
    with pytest.raises(ValueError, match="put sklearn_dpgd.preprocessing.DPSimple"):
        scaler.fit(X)
    fitted = clone(scaler).fit(np.array([[0.2], [0.4]]))
    with pytest.raises(ValueError, match="DPSimpleImputer") as info:
        fitted.transform(X)
    assert "987654" not in str(info.value)


def test_private_categories_are_an_explicit_charged_opt_in():
    X = _table()[["job", "age"]]
    vec = DPTableVectorizer(
        bounds={"age": (17, 100)},
        categories={"job": "private"},
        quantiles=None,
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
    )
    assert vec._reads_data() and vec._gdp_ledger_refusal() is not None
    with PrivacyLedger() as ledger:
        vec.fit(X)
    assert [e.source for e in ledger.entries] == ["DPOneHotEncoder"]
    assert 0 < vec.epsilon_ <= 1.0
    names = list(vec.get_feature_names_out())
    assert names[-2:] == ["job_other", "age"]
    assert set(names[:-2]) <= {"job_clerk", "job_nurse", "job_pilot"}
    with pytest.raises(ValueError, match=r"categories\['job'\] must be a list"):
        DPTableVectorizer(bounds={"age": (17, 100)}, categories={"job": "auto"}).fit(X)


def test_rare_categories_are_grouped_from_noisy_counts():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(
        {"job": rng.choice(["clerk", "nurse", "pilot"], 2000, p=[0.7, 0.28, 0.02])}
    )
    vec = DPTableVectorizer(
        categories={"job": ["clerk", "nurse", "pilot"]},
        min_frequency=200,
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
    )
    assert vec._reads_data() and vec._gdp_ledger_refusal() is None
    vec.fit(X)
    assert list(vec.get_feature_names_out()) == ["job_clerk", "job_nurse", "job_other"]
    assert vec.epsilon_ > 0.0


@pytest.mark.parametrize(
    "check",
    [
        "check_no_attributes_set_in_init",
        "check_parameters_default_constructible",
        "check_get_params_invariance",
        "check_set_params",
    ],
)
def test_sklearn_construction_checks(check):
    # scikit-learn's data checks feed tables of varying widths without a schema,
    # which the vectorizer refuses by design (undeclared columns); these are the
    # checks of its construction, which hold for any estimator.
    getattr(estimator_checks, check)("DPTableVectorizer", _vectorizer())


def test_a_missing_nullable_boolean_is_the_public_constant_one_half():
    flags = pd.array([True, None, False, True], dtype="boolean")
    X = pd.DataFrame({"flag": flags, "plain": [True, False, False, True]})
    vec = DPTableVectorizer(norm=None)
    np.testing.assert_array_equal(
        vec.fit_transform(X), [[1.0, 1.0], [0.5, 0.0], [0.0, 0.0], [1.0, 1.0]]
    )
    assert vec.epsilon_ == 0.0  # row-wise: nothing read
    assert list(vec.get_feature_names_out()) == ["flag", "plain"]
    # Plain booleans keep their step.
    plain = DPTableVectorizer(norm=None).fit(X[["plain"]])
    columns = plain.pipeline_.pipeline_.named_steps["columns"]
    assert isinstance(columns.named_transformers_["bool"], DPMinMaxScaler)
