"""Private preprocessing and the one-budget pipeline: mechanisms against closed forms."""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    StandardScaler,
)
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_dpgd import BudgetExhaustedError, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd._randomness import draw_seed, make_generator
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    PrivacyLedger,
    gdp_epsilon,
    gdp_mu,
)
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import (
    PrivatePipeline,
    find_privacy_leaks,
    make_private_pipeline,
)
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPSimpleImputer,
    DPStandardScaler,
)


def _quiet(func):
    """Run ``func`` with the fixed-seed warnings of the tests silenced."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*fixes the noise")
        return func()


def _data(n=1000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)


@parametrize_with_checks(
    [
        DPMinMaxScaler(bounds=(-5, 5)),
        DPMinMaxScaler(bounds_range=(-100, 100)),
        DPStandardScaler(bounds=(-5, 5)),
        DPStandardScaler(bounds=(-5, 5), neighboring="replace"),
        DPOneHotEncoder(),
        DPSimpleImputer(bounds=(-5, 5)),
        DPSimpleImputer("constant"),
        # A budget at which the check's accuracy bar (0.83 on a few dozen rows)
        # is reachable: a privacy reason, not a workaround.
        PrivatePipeline(
            [("s", DPStandardScaler(bounds=(-5, 5))), ("c", DPLogisticRegression())],
            epsilon=100.0,
        ),
        PrivatePipeline([("s", DPMinMaxScaler(bounds_range=(-100, 100)))]),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


def test_min_max_scaler_private_bounds_and_record():
    X, _ = _data(n=4000, d=2)
    with PrivacyLedger() as ledger:
        s = _quiet(
            lambda: DPMinMaxScaler(
                bounds_range=(-50, 50), epsilon=20.0, random_state=0
            ).fit(X)
        )
    assert ledger.entries[0].mechanism == EpsilonDeltaRecord(20.0, 0.0)
    assert s.epsilon_ == 20.0 and s.delta_ == 0.0
    # Quantiles 0.01 / 0.99 of N(0, 1): -2.33 / 2.33.
    np.testing.assert_allclose(s.bounds_, [[-2.33, 2.33]] * 2, atol=0.3)
    Xt = s.transform(X * 10)
    assert Xt.min() == 0.0 and Xt.max() == 1.0


def test_min_max_scaler_declared_bounds_read_nothing():
    with PrivacyLedger() as ledger:
        s = DPMinMaxScaler(bounds=[[0, 10], [-1, 1]]).fit([[5, 0], [20, -3]])
    assert len(ledger.entries) == 0 and s.epsilon_ == 0.0 and s.ledger_ == ()
    np.testing.assert_allclose(s.transform([[5, 0], [20, -3]]), [[0.5, 0.5], [1, 0]])


# -------------------------------------------------------------- standard scaler


@pytest.mark.parametrize(
    "neighboring, public_n, factor",
    [("add_remove", None, 1.0), ("add_remove", 1000, 1.0), ("replace", None, 2.0)],
)
def test_standard_scaler_noise_and_exact_output(neighboring, public_n, factor):
    X, _ = _data(n=1000, d=3)
    eps, delta, d = 1.0, 1e-6, 3
    s = _quiet(
        lambda: DPStandardScaler(
            bounds=(-2, 2),
            epsilon=eps,
            delta=delta,
            neighboring=neighboring,
            public_n_samples=public_n,
            random_state=3,
        ).fit(X)
    )
    mu = gdp_mu(eps, delta)
    count = neighboring == "add_remove" and public_n is None
    z_count = count_noise_multiplier(mu) if count else None
    mu_sums = math.sqrt(mu**2 - (z_count**-2 if count else 0.0))
    assert s.noise_std_ == pytest.approx(factor * math.sqrt(1.25 * d) / mu_sums)
    # The whole fit is exactly (epsilon, delta): mu^2 adds up.
    assert s.epsilon_ == pytest.approx(eps, rel=1e-9)
    # Re-run the mechanism by hand from the same seed.
    rng = make_generator(_quiet(lambda: draw_seed(3)))
    m = 1000
    if count:
        m = max(2, round(1000 + z_count * float(rng.standard_normal())))
    noise = s.noise_std_ * rng.standard_normal(2 * d)
    u = np.clip(X, -2, 2) / 2
    mean_u = np.clip((u.sum(0) + noise[:d]) / m, -1, 1)
    var_u = np.clip(((u * u - 0.5).sum(0) + noise[d:]) / m + 0.5 - mean_u**2, 1e-6, 1)
    np.testing.assert_allclose(s.mean_, 2 * mean_u)
    np.testing.assert_allclose(s.var_, 4 * var_u)
    np.testing.assert_allclose(s.transform(X), (np.clip(X, -2, 2) - s.mean_) / s.scale_)


def test_standard_scaler_requires_bounds():
    with pytest.raises(ValueError, match="bounds is required"):
        DPStandardScaler().fit([[1.0], [2.0]])
    with pytest.raises(ValueError, match="bounds must be"):
        DPStandardScaler(bounds=[[0, 1]]).fit([[1.0, 2.0], [2.0, 3.0]])


# ---------------------------------------------------------------------- encoder


def test_encoder_private_selection_other_column_and_record():
    X = np.array([["a"] * 3000 + ["b"] * 1000 + ["c"] * 1 + [None] * 5]).T
    with PrivacyLedger() as ledger:
        e = _quiet(
            lambda: DPOneHotEncoder(epsilon=1.0, delta=1e-6, random_state=0).fit(X)
        )
    assert ledger.entries[0].mechanism == EpsilonDeltaRecord(1.0, 1e-6)
    # "c" (one row) is below the threshold by ~5 sigma; a and b far above it.
    assert list(e.categories_[0]) == ["a", "b"]
    out = e.transform([["a"], ["c"], [None], ["zzz"]])
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1]])
    assert list(e.get_feature_names_out(["col"])) == ["col_a", "col_b", "col_other"]


def test_encoder_declared_categories_read_nothing_and_pandas_output():
    df = pd.DataFrame({"x": ["u", "v", "w"], "y": ["p", "p", "q"]})
    with PrivacyLedger() as ledger:
        e = DPOneHotEncoder([["u", "v"], ["p", "q"]]).set_output(transform="pandas")
        out = e.fit_transform(df)
    assert len(ledger.entries) == 0 and e.epsilon_ == 0.0
    assert list(out.columns) == ["x_u", "x_v", "x_other", "y_p", "y_q", "y_other"]
    np.testing.assert_array_equal(out.to_numpy()[2], [0, 0, 1, 0, 1, 0])


# ---------------------------------------------------------------------- imputer


def test_imputer_mean_exact_output():
    X, _ = _data(n=500, d=2)
    X[::4, 0] = np.nan
    eps, delta = 2.0, 1e-6
    imp = _quiet(
        lambda: DPSimpleImputer(
            bounds=(-3, 3), epsilon=eps, delta=delta, random_state=5
        ).fit(X)
    )
    mu = gdp_mu(eps, delta)
    assert imp.noise_std_ == pytest.approx(math.sqrt(2 * 2) / mu)
    assert imp.ledger_ == (GaussianSteps(1.0 / mu),)
    rng = make_generator(_quiet(lambda: draw_seed(5)))
    noise = imp.noise_std_ * rng.standard_normal(4)
    obs = ~np.isnan(X)
    u = np.where(obs, np.clip(np.nan_to_num(X), -3, 3) / 3, 0.0)
    expected = 3 * np.clip(
        (u.sum(0) + noise[:2]) / np.maximum(obs.sum(0) + noise[2:], 1), -1, 1
    )
    np.testing.assert_allclose(imp.statistics_, expected)
    out = imp.transform(X)
    assert not np.isnan(out).any() and out[0, 0] == imp.statistics_[0]


def test_refused_before_reading_data():
    X, _ = _data(n=200, d=2)
    with PrivacyLedger(epsilon=0.5, delta=1e-6):
        for est in (
            DPStandardScaler(bounds=(-3, 3), epsilon=1.0, delta=1e-6),
            DPMinMaxScaler(bounds_range=(-3, 3), epsilon=1.0),
            DPOneHotEncoder(epsilon=1.0, delta=1e-6),
            DPSimpleImputer(bounds=(-3, 3), epsilon=1.0, delta=1e-6),
        ):
            with pytest.raises(BudgetExhaustedError):
                est.fit(X)
            assert not hasattr(est, "epsilon_")


def test_pickle_round_trip():
    X, _ = _data(n=200, d=2)
    s = DPStandardScaler(bounds=(-3, 3)).fit(X)
    s2 = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(s2.transform(X), s.transform(X))


# --------------------------------------------------------------------- pipeline


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
    before = pipe.get_params(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        with PrivacyLedger() as outer:
            pipe.fit(X, y)
    # The user's steps are not changed: only clones are fitted.
    after = pipe.get_params(deep=True)
    assert {k: repr(v) for k, v in before.items()} == {
        k: repr(v) for k, v in after.items()
    }
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
            ("b", OneHotEncoder(categories=[[0, 1]], handle_unknown="ignore"), [1]),
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


def test_private_categories_do_not_depend_on_row_order():
    # 1 and 1.0 are equal in Python; the released spelling must not be that of
    # whichever row came first, so each spelling is a bin of its own.
    column = np.array([1] * 500 + [1.0] * 500, dtype=object)[:, None]
    kw = dict(epsilon=4.0, delta=1e-6, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = DPOneHotEncoder(**kw).fit(column)
        b = DPOneHotEncoder(**kw).fit(np.vstack([[[1.0]], column]))
    assert [repr(v) for v in a.categories_[0]] == ["1", "1.0"]
    assert [repr(v) for v in b.categories_[0]] == ["1", "1.0"]


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


@pytest.mark.parametrize(
    "est",
    [
        DPMinMaxScaler(bounds_range=(-5, 5)),
        DPStandardScaler(bounds=(-5, 5)),
        DPSimpleImputer(bounds=(-5, 5)),
        DPOneHotEncoder(epsilon=5.0, delta=1e-3),
    ],
)
def test_secure_mode_ignores_random_state(est):
    X = np.round(_data(n=300, d=2)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est.set_params(secure_mode=True, random_state=0).fit(X)
    assert est.epsilon_ > 0


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


@pytest.mark.parametrize(
    "est",
    [
        DPMinMaxScaler(bounds=(0, 1)),
        DPStandardScaler(bounds=(0, 1)),
        DPOneHotEncoder(),
        DPSimpleImputer(),
        make_private_pipeline(DPStandardScaler(bounds=(0, 1))),
    ],
)
def test_fitted_attributes_before_fit_raise_not_fitted(est):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        est.epsilon_  # noqa: B018
    assert not hasattr(est, "ledger_")
