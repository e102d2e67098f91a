"""Private preprocessing (``sklearn_dpgd.preprocessing``): the transformers' mechanisms against
closed forms, their records, seeds and errors."""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import NotFittedError

from sklearn_dpgd import BudgetExhaustedError, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd._engine._randomness import draw_seed, make_generator
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    PrivacyLedger,
    gdp_mu,
)
from sklearn_dpgd.datasets import private_pipeline
from sklearn_dpgd.linear_model._utility import ROW_NORM_LIMIT
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

from ._sklearn_checks import parametrize_with_checks


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
    floor = max(1e-6, (s.noise_std_ / m) ** 2)
    assert s.var_floor_ == pytest.approx(floor)
    var_u = np.clip(((u * u - 0.5).sum(0) + noise[d:]) / m + 0.5 - mean_u**2, floor, 1)
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


def _rare_column():
    """500 "a", 300 "b", 40 "c" and 3 "d" in one column."""
    values = ["a"] * 500 + ["b"] * 300 + ["c"] * 40 + ["d"] * 3
    return np.array(values, dtype=object).reshape(-1, 1)


@pytest.mark.parametrize(
    "rule, frequent, rare",
    [
        ({"min_frequency": 100}, ["a", "b"], ["c"]),
        ({"min_frequency": 0.1}, ["a", "b"], ["c"]),  # 40 / 843 < 0.1
        ({"max_categories": 2}, ["a"], ["b", "c"]),  # "other" is the second
        ({"min_frequency": 20, "max_categories": 3}, ["a", "b"], ["c"]),
    ],
)
def test_onehot_groups_rare_private_categories_into_other(rule, frequent, rare):
    X = _rare_column()
    enc = DPOneHotEncoder(epsilon=2.0, delta=1e-6, random_state=0, **rule)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        Xt = enc.fit_transform(X)
    # "d" (3 rows) is below the stable histogram's threshold: never released.
    assert list(enc.categories_[0]) == frequent
    assert list(enc.infrequent_categories_[0]) == rare
    assert Xt.shape == (843, len(frequent) + 1)
    # Rare and unknown values land in the other column.
    other = enc.transform(np.array([["c"], ["zzz"]], dtype=object))
    assert np.all(other[:, -1] == 1.0)
    # The frequency rules read the histogram's noisy counts: no extra budget.
    assert enc.epsilon_ == 2.0


def test_onehot_frequency_rule_on_declared_categories_is_a_charged_gaussian():
    X = _rare_column()
    declared = [["a", "b", "c", "d", "e"]]
    plain = DPOneHotEncoder(declared)
    assert not plain._reads_data()
    enc = DPOneHotEncoder(
        declared, min_frequency=100, epsilon=5.0, delta=1e-6, random_state=0
    )
    assert enc._reads_data() and enc._gdp_ledger_refusal() is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with PrivacyLedger() as ledger:
            enc.fit(X)
    mu = gdp_mu(5.0, 1e-6)
    assert enc.ledger_ == (GaussianSteps(1.0 / mu),)
    assert [e.source for e in ledger.entries] == ["DPOneHotEncoder"]
    assert enc.epsilon_ == pytest.approx(5.0)
    assert list(enc.categories_[0]) == ["a", "b"]
    assert list(enc.infrequent_categories_[0]) == ["c", "d", "e"]
    assert enc.noise_std_ == pytest.approx(1.0 / mu)
    assert find_privacy_leaks(enc) == []


def test_onehot_declared_counts_noise_doubles_its_square_under_replace():
    # A replaced row moves one count to another in each of the d columns: L2
    # sensitivity sqrt(2 d), against sqrt(d) under add/remove.
    X = np.array([["a", "u"], ["b", "v"]] * 50, dtype=object)
    declared = [["a", "b"], ["u", "v"]]
    stds = {}
    for relation in ("add_remove", "replace"):
        enc = DPOneHotEncoder(
            declared, max_categories=2, neighboring=relation, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            stds[relation] = enc.fit(X).noise_std_
    mu = gdp_mu(1.0, 1e-8)
    assert stds["add_remove"] == pytest.approx(math.sqrt(2) / mu)
    assert stds["replace"] == pytest.approx(2.0 / mu)


@pytest.mark.parametrize(
    "param, value",
    [("min_frequency", 0), ("min_frequency", 1.5), ("max_categories", 1)],
)
def test_onehot_frequency_rules_are_validated(param, value):
    with pytest.raises(ValueError, match=param):
        DPOneHotEncoder(**{param: value}).fit(_rare_column())


@pytest.mark.parametrize("seed", range(4))
def test_standard_scaler_floor_keeps_rare_pixels_of_digits_bounded(seed):
    # Digits' rare pixels are near-constant: a noisy variance near 0 gave them a
    # scale of 0.008 (values near 2,000). The public floor bounds every value
    # by 2 / sqrt(var_floor_) and the rows stay far below the utility check's
    # "unscaled" norm of 100.
    X, _ = load_digits(return_X_y=True)
    s = _quiet(lambda: DPStandardScaler(bounds=(0, 16), random_state=seed).fit(X))
    floor_scale = 8.0 * s.noise_std_ / s.public_n_samples_
    assert s.scale_.min() >= floor_scale * (1 - 1e-12)
    Z = s.transform(X)
    assert np.abs(Z).max() <= 2.0 / math.sqrt(s.var_floor_) + 1e-9
    assert np.linalg.norm(Z, axis=1).max() < ROW_NORM_LIMIT


@pytest.mark.parametrize("seed", range(4))
def test_standard_scaler_floor_on_the_breast_cancer_recipe(seed):
    # The recipe's scaler once floored noisy variances at (1e-3 r)^2: scaled
    # rows of norm 200-2,000, which the classifier's "rows look unscaled"
    # check then flagged.
    X, y = load_breast_cancer(return_X_y=True)
    recipe = private_pipeline("breast_cancer", epsilon=1.0, random_state=seed)
    steps = _quiet(lambda: recipe.fit(X, y)).named_steps
    Z = steps["dpstandardscaler"].transform(steps["functiontransformer"].transform(X))
    assert np.linalg.norm(Z, axis=1).max() < 30.0
