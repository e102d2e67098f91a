"""The one-budget private pipeline (``pipeline.py``): budget splits, composition,
the leak finder, searches over pipelines, seeds and output containers."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    StandardScaler,
)

from sklearn_dpgd import BudgetExhaustedError, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd.accounting import (
    PrivacyLedger,
    gdp_epsilon,
    gdp_mu,
)
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import (
    find_privacy_leaks,
    make_private_pipeline,
)
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPSimpleImputer,
    DPStandardScaler,
)


def _data(n=1000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)


def _adult_like(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n).astype(float)
    hours = rng.integers(1, 100, n).astype(float)
    hours[rng.random(n) < 0.05] = np.nan
    job = rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1])
    y = ((age > 40) ^ (job == "c")).astype(int)
    return pd.DataFrame({"age": age, "hours": hours, "job": job}), y


def _private_pipeline(**kw):
    numeric = Pipeline(
        [
            ("impute", DPSimpleImputer(bounds=[[17, 90], [1, 99]])),
            ("scale", DPStandardScaler(bounds=[[17, 90], [1, 99]])),
        ]
    )
    prep = ColumnTransformer(
        [
            ("num", numeric, ["age", "hours"]),
            ("cat", DPOneHotEncoder([["a", "b", "c"]]), ["job"]),
        ]
    )
    return make_private_pipeline(
        prep, Normalizer(), DPLogisticRegression(classes=[0, 1]), **kw
    )


def test_pipeline_gdp_split_and_total():
    X, y = _adult_like()
    pipe = _private_pipeline(epsilon=1.0, delta=1e-8)
    given = [step for _, step in pipe.steps]
    before = [step.get_params(deep=True) for step in given]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        with PrivacyLedger() as outer:
            pipe.fit(X, y)
    # The user's steps are not changed: only clones are fitted, and (as in
    # Pipeline) the pipeline's steps are then the fitted clones.
    after = [step.get_params(deep=True) for step in given]
    assert [{k: repr(v) for k, v in b.items()} for b in before] == [
        {k: repr(v) for k, v in a.items()} for a in after
    ]
    assert all(f is not g for (_, f), g in zip(pipe.steps, given, strict=True))
    assert pipe.steps[-1][1] is pipe.named_steps["dplogisticregression"]
    assert pipe.accounting_ == "gdp"
    paths = set(pipe.budget_)
    assert paths == {
        "columntransformer__num__impute",
        "columntransformer__num__scale",
        "dplogisticregression",
    }
    # Default split: 10% of mu^2 to the two private preprocessing steps, 90% clf.
    mu = gdp_mu(1.0, 1e-8)
    mu_sq = {p: gdp_mu(e, d) ** 2 for p, (e, d) in pipe.budget_.items()}
    assert mu_sq["dplogisticregression"] == pytest.approx(0.9 * mu**2, rel=1e-6)
    assert mu_sq["columntransformer__num__scale"] == pytest.approx(
        0.05 * mu**2, rel=1e-6
    )
    # The total equals the composition of the steps' own spends, is at most
    # epsilon, and reached the outer ledger entry by entry.
    steps = pipe.pipeline_
    fitted = [
        steps.named_steps["columntransformer"].named_transformers_["num"][k]
        for k in ("impute", "scale")
    ] + [steps.named_steps["dplogisticregression"]]
    mu_total = math.sqrt(sum(gdp_mu(f.epsilon_, f.delta_) ** 2 for f in fitted))
    assert pipe.epsilon_ == pytest.approx(gdp_epsilon(mu_total, 1e-8), rel=1e-9)
    assert pipe.epsilon_ <= 1.0 and pipe.epsilon_ > 1.0 - 1e-6
    assert outer.entries == pipe.ledger_.entries and len(outer.entries) == 3
    assert pipe.score(X, y) > 0.6


def test_pipeline_basic_split_with_pure_dp_step_and_override():
    X, y = _data(n=1500, d=2)
    pipe = make_private_pipeline(
        DPMinMaxScaler(bounds_range=(-10, 10)),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
        delta=1e-7,
        budget_split={"dpminmaxscaler": 0.3, "dplogisticregression": 0.7},
    )
    pipe.fit(X, y)
    assert pipe.accounting_ == "basic"
    assert pipe.budget_["dpminmaxscaler"][0] == pytest.approx(0.3)
    assert pipe.budget_["dplogisticregression"] == pytest.approx((0.7, 0.7e-7))
    assert pipe.epsilon_ <= 1.0
    # The composition of the guarantees fixed in advance (the classifier's plan
    # may depend on the scaler's release): below their basic composition
    # (tests/test_accounting_compose.py checks it against dp-accounting).
    assert pipe.epsilon_ < sum(e for e, _ in pipe.budget_.values())
    assert pipe.ledger_.epsilon(1e-7) <= pipe.epsilon_ + 1e-12
    with pytest.raises(ValueError, match="budget_split"):
        pipe.set_params(budget_split={"dpminmaxscaler": 1.0}).fit(X, y)


def test_pipeline_without_classifier_splits_all_among_preprocessing():
    X, _ = _data(n=500, d=2)
    pipe = make_private_pipeline(
        DPSimpleImputer(bounds=(-3, 3)), DPStandardScaler(bounds=(-3, 3)), epsilon=0.5
    ).fit(X)
    mu = gdp_mu(0.5, 1e-8)
    for eps, delta in pipe.budget_.values():
        assert gdp_mu(eps, delta) ** 2 == pytest.approx(0.5 * mu**2, rel=1e-6)
    assert pipe.transform(X).shape == (500, 2)


def test_pipeline_capped_by_outer_ledger():
    X, y = _data(n=500, d=2)
    pipe = make_private_pipeline(
        DPStandardScaler(bounds=(-3, 3)), DPLogisticRegression(classes=[0, 1])
    )
    with PrivacyLedger(epsilon=0.5, delta=1e-8) as outer:
        with pytest.raises(BudgetExhaustedError):
            pipe.fit(X, y)
    # The scaler (about 0.3) fitted within the cap; the classifier was refused.
    assert len(outer.entries) == 1 and outer.epsilon(1e-8) <= 0.5


@pytest.mark.parametrize(
    "step, path, reads",
    [
        (MinMaxScaler(), "minmaxscaler", "minimum and maximum"),
        (StandardScaler(), "standardscaler", "mean and variance"),
        (SimpleImputer(strategy="mean"), "simpleimputer", "the mean of every"),
        (OneHotEncoder(), "onehotencoder", "categories present"),
    ],
)
def test_pipeline_warns_for_non_private_step(step, path, reads):
    X, y = _data(n=300, d=2)
    pipe = make_private_pipeline(step, DPLogisticRegression(classes=[0, 1]))
    with pytest.warns(PrivacyLeakWarning, match=f"'{path}'.*{reads}"):
        pipe.fit(X, y)


def test_find_privacy_leaks_nested_and_safe_transformers():
    prep = ColumnTransformer(
        [
            ("a", make_pipeline(StandardScaler(), Normalizer()), [0]),
            (
                "b",
                OneHotEncoder(
                    categories=[[0, 1]], handle_unknown="ignore", sparse_output=False
                ),
                [1],
            ),
            ("c", SimpleImputer(strategy="constant", keep_empty_features=True), [2]),
            ("d", SimpleImputer(strategy="constant"), [3]),
        ]
    )
    leaks = find_privacy_leaks(make_pipeline(prep, DPLogisticRegression()))
    found = {p: reads for p, _, reads in leaks}
    assert set(found) == {
        "columntransformer__a__standardscaler",
        "columntransformer__d",
    }
    assert "no observed value" in found["columntransformer__d"]
    assert find_privacy_leaks(_private_pipeline()) == []


def test_encoder_that_raises_on_unknown_values_is_a_leak():
    # Its fit would raise with the unknown (private) value in the message.
    leaks = find_privacy_leaks(
        make_pipeline(OneHotEncoder(categories=[[0, 1]]), DPLogisticRegression())
    )
    assert [path for path, _, _ in leaks] == ["onehotencoder"]


def test_pipeline_inside_private_grid_search():
    X, y = _data(n=1500, d=2)
    pipe = make_private_pipeline(
        DPStandardScaler(bounds=(-3, 3)), DPLogisticRegression(classes=[0, 1])
    )
    search = PrivateGridSearchCV(
        pipe,
        {"dplogisticregression__alpha": [0.0, 0.01]},
        epsilon=1.0,
        delta=1e-8,
    )
    with PrivacyLedger() as outer:
        search.fit(X, y)
    assert search.epsilon_ <= 1.0 + 1e-9
    assert outer.epsilon(1e-8) == pytest.approx(search.epsilon_)
    # Each candidate refitted the scaler: charged per candidate (and the refit).
    sources = [e.source for e in search.ledger_.entries]
    assert sources.count("DPStandardScaler") == 3
    leaky = make_private_pipeline(StandardScaler(), DPLogisticRegression())
    with pytest.raises(ValueError, match="without a privacy mechanism"):
        PrivateGridSearchCV(leaky, {}, epsilon=1.0).fit(X, y)


def test_pipeline_fixed_seed_warns_once_and_reproduces():
    X, y = _data(n=400, d=2)

    def fit():
        pipe = make_private_pipeline(
            DPStandardScaler(bounds=(-3, 3)),
            DPLogisticRegression(classes=[0, 1]),
            random_state=7,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipe.fit(X, y)
        fixed = [w for w in caught if "fixes the noise" in str(w.message)]
        assert len(fixed) == 1
        return pipe

    a, b = fit(), fit()
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_standardize_within_private_bounds():
    X, y = _data(n=2000, d=2)
    pipe = make_private_pipeline(
        DPMinMaxScaler(bounds_range=(-50, 50)),
        DPStandardScaler(bounds=(0, 1)),
        epsilon=10.0,
        delta=1e-6,
    )
    Xt = pipe.fit_transform(X * 3 + 4)
    assert pipe.accounting_ == "basic" and pipe.epsilon_ <= 10.0
    np.testing.assert_allclose(Xt.mean(0), 0.0, atol=0.2)
    np.testing.assert_allclose(Xt.std(0), 1.0, atol=0.2)


def test_pipeline_set_output_pandas_and_nested_private_pipeline():
    X, y = _adult_like(n=500)
    inner = make_private_pipeline(
        DPSimpleImputer(bounds=[[17, 90], [1, 99]]),
        DPStandardScaler(bounds=[[17, 90], [1, 99]]),
    )
    prep = ColumnTransformer(
        [("num", inner, ["age", "hours"]), ("cat", "drop", ["job"])]
    )
    pipe = make_private_pipeline(prep, epsilon=0.5).set_output(transform="pandas")
    out = pipe.fit_transform(X)
    assert list(out.columns) == ["num__age", "num__hours"]
    # The nested pipeline is one step of the outer split; it splits its share.
    assert list(pipe.budget_) == ["columntransformer__num"]
    assert pipe.epsilon_ <= 0.5 and len(pipe.ledger_.entries) == 2


def test_budget_values_are_exact_floats_with_a_short_repr():
    X, y = _data(n=300, d=2)
    model = make_private_pipeline(
        DPStandardScaler(bounds=(-3.0, 3.0)),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=0.4,
        delta=1e-8,
    ).fit(X, y)
    share = model.budget_["dplogisticregression"]
    epsilon, delta = share
    assert (epsilon, delta) == tuple(share) and delta == share.delta
    assert repr(share) == f"(epsilon={epsilon:.4g}, delta={delta:.4g})"
    assert len(repr(share)) < 40
