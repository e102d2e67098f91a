"""Private hyperparameter selection: budgets, exact accounting, no leaked scores."""

import warnings

import numpy as np
import pytest
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

import sklearn_dpgd.linear_model._base as linear_model
from sklearn_dpgd import (
    BudgetExhaustedError,
    DPLogisticRegression,
    ExponentialDecaySchedule,
    PrivacyLeakWarning,
)
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    PrivacyLedger,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
)
from sklearn_dpgd.model_selection import (
    LinearScalingSearch,
    PrivateGridSearchCV,
    default_candidates,
)
from sklearn_dpgd.model_selection._grids import DEFAULT_ALPHAS, DEFAULT_RADIUS_FACTORS
from sklearn_dpgd.preprocessing import DPStandardScaler

from ._sklearn_checks import expected_failed_checks, parametrize_with_checks

DELTA = 1e-6


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    # The estimator checks read the label set from y on purpose.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=2000, n_features=6, n_informative=4, class_sep=1.5, random_state=0
    )
    return Normalizer().fit_transform(X), y


def _pgs(**params):
    defaults = dict(
        estimator=DPLogisticRegression(classes=[0, 1], max_iter=10),
        param_grid={"learning_rate": [0.5, 2.0], "momentum": [0.0, 0.9]},
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
    )
    return PrivateGridSearchCV(**{**defaults, **params})


def _lss(**params):
    defaults = dict(
        estimator=DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
        delta=DELTA,
        n_candidates=3,
        max_iter_range=(5, 40),
        random_state=0,
    )
    return LinearScalingSearch(**{**defaults, **params})


def _side_epsilons(search):
    """Independent re-audit of both parts with dp-accounting's PLDs.

    A train row pays every Gaussian mechanism (the size count, the candidates,
    the refit); a validation row the comparisons, the count and the refit.
    """
    entries = search.ledger_.entries
    z_train = [
        r.noise_multiplier
        for e in entries
        if e.part in ("train", None)
        for r in e.mechanism
        for _ in range(r.count)
    ]
    train = pld_lib.from_gaussian_mechanism(
        1.0 / gdp_mu_from_noise_multipliers(z_train)
    ).get_epsilon_for_delta(DELTA)
    all_rows = [e for e in entries if e.part is None]
    assert [e.source for e in all_rows][-1] != "report-noisy-max"
    pld = pld_lib.from_gaussian_mechanism(
        1.0
        / gdp_mu_from_noise_multipliers(
            [
                r.noise_multiplier
                for e in all_rows
                for r in e.mechanism
                for _ in range(r.count)
            ]
        )
    )
    for e in entries:
        if e.part == "validation":
            pld = pld.compose(
                pld_lib.from_privacy_parameters(
                    common.DifferentialPrivacyParameters(e.mechanism.epsilon, 0.0)
                )
            )
    return train, pld.get_epsilon_for_delta(DELTA)


# One candidate and few steps per search: every check fits several times.
@parametrize_with_checks(
    [
        PrivateGridSearchCV(DPLogisticRegression(max_iter=2), {"learning_rate": [2.0]}),
        # A candidates' bound above the checks' weights (3 and 10): the weight
        # checks pass through the search.
        PrivateGridSearchCV(
            DPLogisticRegression(max_iter=2, max_sample_weight=10.0),
            {"learning_rate": [2.0]},
        ),
        LinearScalingSearch(
            DPLogisticRegression(), n_candidates=1, max_iter_range=(1, 3)
        ),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_private_grid_search_spends_its_budget_exactly(data, epsilon):
    X, y = data
    search = _pgs(epsilon=epsilon).fit(X, y)
    assert search.epsilon_ <= epsilon
    assert search.epsilon_ == pytest.approx(epsilon, rel=1e-8)
    parts = [e.part for e in search.ledger_.entries]
    # The size count, the candidates, the comparison, the refit.
    assert parts == [None] + ["train"] * 4 + ["validation", None]
    train, validation = _side_epsilons(search)
    # The PLDs are pessimistic upper bounds of the exact closed forms.
    assert search.epsilon_ == pytest.approx(max(train, validation), rel=2e-3)
    assert max(train, validation) >= search.epsilon_ * (1 - 1e-6)
    # A train row pays mu exactly (GDP): the count, the candidates and the refit
    # fill the budget.
    assert gdp_epsilon(
        np.sqrt(
            sum(
                r.count / r.noise_multiplier**2
                for e in search.ledger_.entries
                if e.part != "validation"
                for r in e.mechanism
            )
        ),
        DELTA,
    ) == pytest.approx(epsilon, rel=1e-8)


def test_private_grid_search_exposes_no_scores(data):
    X, y = data
    search = _pgs().fit(X, y)
    assert set(search.cv_results_) == {
        "params",
        "param_learning_rate",
        "param_momentum",
        "selected",
        "candidate_epsilon",
    }
    assert search.cv_results_["selected"].sum() == 1
    assert search.cv_results_["params"][search.best_index_] == search.best_params_
    # best_score_ is a property that raises (scikit-learn < 1.8 lists it in dir()).
    assert not any(
        "score" in name and hasattr(search, name)
        for name in dir(search)
        if name.endswith("_")
    )
    refit = search.best_estimator_
    assert refit.learning_rate == search.best_params_["learning_rate"]
    np.testing.assert_array_equal(search.predict(X), refit.predict(X))
    np.testing.assert_allclose(search.predict_proba(X), refit.predict_proba(X))
    assert search.score(X, y) == refit.score(X, y)


def test_private_grid_search_finds_a_clearly_better_candidate(data):
    X, y = data
    # Steps are normalised, so even tiny steps give a fair direction: 30 steps at
    # epsilon 16 keep the better candidate clearly ahead (20 seeds out of 20).
    chosen = [
        _pgs(
            estimator=DPLogisticRegression(classes=[0, 1], max_iter=30),
            param_grid={"learning_rate": [1e-4, 2.0]},
            epsilon=16.0,
            random_state=seed,
        )
        .fit(X, y)
        .best_params_["learning_rate"]
        for seed in range(3)
    ]
    assert chosen == [2.0, 2.0, 2.0]


def test_private_grid_search_is_reproducible(data):
    X, y = data
    a, b = _pgs(random_state=3).fit(X, y), _pgs(random_state=3).fit(X, y)
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.best_estimator_.coef_, b.best_estimator_.coef_)


def test_search_is_charged_to_open_ledgers_as_one_record(data):
    X, y = data
    ledger = PrivacyLedger()
    with ledger:
        search = _pgs().fit(X, y)
    (entry,) = ledger.entries
    assert entry.mechanism == EpsilonDeltaRecord(search.epsilon_, DELTA)
    assert entry.source == "PrivateGridSearchCV"
    assert ledger.epsilon(DELTA) == pytest.approx(search.epsilon_, abs=1e-12)


class _NoOracle:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a fit read the data")


@pytest.mark.parametrize("make", [_pgs, _lss])
def test_capped_ledger_refuses_a_search_before_any_fit(data, make, monkeypatch):
    X, y = data
    monkeypatch.setattr(linear_model, "PrivateGradientOracle", _NoOracle)
    ledger = PrivacyLedger(epsilon=0.5, delta=DELTA)
    with ledger, pytest.raises(BudgetExhaustedError):
        make(epsilon=1.0).fit(X, y)
    assert len(ledger) == 0


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"param_grid": {"epsilon": [0.1, 1.0]}}, ValueError, "must not set"),
        ({"param_grid": {"neighboring": ["replace"]}}, ValueError, "must not set"),
        (
            {"estimator": DPLogisticRegression(batch_size=100)},
            ValueError,
            "batch_size must be None",
        ),
        ({"estimator": LogisticRegression()}, TypeError, "private estimator"),
        (
            {"validation_fraction": 1e-5, "public_n_samples": 2000},
            ValueError,
            "empty part at public_n_samples=2000",
        ),
        ({"param_grid": {"public_n_samples": [10]}}, ValueError, "must not set"),
        ({"param_grid": {"random_state": [0, 1]}}, ValueError, "must not set"),
        ({"refit_share": 1 - 1e-12}, ValueError, "lower refit_share"),
    ],
)
def test_private_grid_search_validation(data, params, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        _pgs(**params).fit(X, y)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_linear_scaling_search_never_overspends(data, epsilon):
    X, y = data
    search = _lss(epsilon=epsilon).fit(X, y)
    assert search.epsilon_ <= epsilon
    assert search.epsilon_ == pytest.approx(epsilon, rel=1e-8)
    parts = [e.part for e in search.ledger_.entries]
    assert parts == [None] + (["train"] * 3 + ["validation"]) * 2 + [None]
    train, validation = _side_epsilons(search)
    assert search.epsilon_ == pytest.approx(max(train, validation), rel=2e-3)
    # Candidate fits at the two search budgets, the final fit at the rest.
    eps_1, eps_2 = search.radius_points_[:, 0]
    assert eps_1 < eps_2 < search.best_estimator_.epsilon
    assert search.radius_points_.shape == (2, 2)


def test_linear_scaling_search_extrapolates_the_line(data):
    X, y = data
    search = _lss(max_iter_range=(5, 100), learning_rate_range=(0.05, 8.0)).fit(X, y)
    (e1, r1), (e2, r2) = search.radius_points_
    e_final = search.best_estimator_.epsilon
    assert search.slope_ == max(0.0, (r2 - r1) / (e2 - e1))
    line = r2 + search.slope_ * (e_final - e2)
    assert search.radius_ == pytest.approx(np.clip(line, 0.05 * 5, 8.0 * 100))
    lr, t = search.best_params_["learning_rate"], search.best_params_["max_iter"]
    assert 5 <= t <= 100 and 0.05 <= lr <= 8.0
    assert search.best_estimator_.max_iter == t
    # The radius is split exactly unless a range clips it.
    if 0.05 < lr < 8.0:
        assert lr * t == pytest.approx(search.radius_)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"search_fractions": (0.2, 0.1)}, "search_fractions"),
        ({"search_fractions": (0.5, 0.6)}, "search_fractions"),
        ({"learning_rate_range": (1.0, 0.5)}, "learning_rate_range"),
        ({"max_iter_range": (0, 10)}, "max_iter_range"),
        ({"max_iter_range": (5.0, 10.0)}, "max_iter_range"),
    ],
)
def test_linear_scaling_search_validation(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        _lss(**params).fit(X, y)


# The default grid (param_grid=None): public quantities only.


def test_default_grid_search_runs_without_a_grid(data):
    X, y = data
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]), epsilon=1.0, delta=DELTA, random_state=0
    ).fit(X, y)
    results = search.cv_results_
    assert list(results["param_radius_factor"]) == list(DEFAULT_RADIUS_FACTORS)
    assert search.epsilon_ <= 1.0
    assert search.epsilon_ == pytest.approx(1.0, rel=1e-8)
    # The candidates are the grid at the candidates' budget and the train part's
    # public size; the refit is the winning factor's at the refit's.
    train_size = round(0.8 * search.public_n_samples_)
    assert results["params"] == default_candidates(
        DPLogisticRegression(), results["candidate_epsilon"][0], DELTA, train_size, 6
    )
    # The refit takes the winning factor carried to its budget (the linear
    # rule): 1 + (f - 1) mu_candidate / mu_refit.
    refit = search.best_estimator_
    ratio = gdp_mu(results["candidate_epsilon"][0], DELTA) / gdp_mu(
        refit.epsilon, DELTA
    )
    assert 0 < ratio < 1
    np.testing.assert_allclose(
        results["refit_radius_factor"],
        [1 + (f - 1) * ratio for f in DEFAULT_RADIUS_FACTORS],
        rtol=1e-6,
    )
    # The default configuration stays itself.
    assert results["refit_radius_factor"][0] == 1.0
    refit_grid = default_candidates(
        DPLogisticRegression(),
        refit.epsilon,
        DELTA,
        search.public_n_samples_,
        6,
        radius_factors=results["refit_radius_factor"],
    )
    assert search.best_params_ == refit_grid[search.best_index_]
    assert refit.learning_rate == search.best_params_["learning_rate"]
    assert refit.n_iter_ == search.best_params_["max_iter"]


def test_default_grid_depends_on_no_data():
    # Two data sets of the same public shape (declared size, features, classes)
    # get the same candidates, whatever their rows.
    rng = np.random.default_rng(1)
    X_a = rng.normal(size=(1500, 6))
    X_b = 100 * rng.uniform(size=(1700, 6)) ** 3
    y_a = (X_a[:, 0] > 0).astype(int)
    y_b = (X_b[:, 1] > 30).astype(int)
    searches = [
        PrivateGridSearchCV(
            DPLogisticRegression(classes=[0, 1]),
            epsilon=0.8,
            delta=DELTA,
            public_n_samples=1600,
            random_state=seed,
        ).fit(X, y)
        for seed, (X, y) in enumerate([(X_a, y_a), (X_b, y_b)])
    ]
    assert searches[0].cv_results_["params"] == searches[1].cv_results_["params"]
    refit = [s.best_estimator_ for s in searches]
    assert refit[0].n_iter_ == refit[1].n_iter_


@pytest.mark.parametrize(
    "estimator, error, match",
    [
        (DPLogisticRegression(learning_rate=0.5), ValueError, "learning_rate=0.5"),
        (DPLogisticRegression(max_iter=20), ValueError, "max_iter=20"),
        (DPLogisticRegression(solver="snowball"), ValueError, "solver='snowball'"),
        (
            DPLogisticRegression(schedule=ExponentialDecaySchedule()),
            ValueError,
            "schedule=",
        ),
        (LogisticRegression(), TypeError, "pass an explicit grid"),
    ],
)
def test_default_grid_refuses_estimators_off_the_auto_rules(
    data, estimator, error, match
):
    X, y = data
    with pytest.raises(error, match=match):
        PrivateGridSearchCV(estimator, epsilon=1.0, delta=DELTA).fit(X, y)
    with pytest.raises(error, match=match):
        default_candidates(estimator, 1.0, DELTA, 1000, 5)


def test_default_grid_param_grid_must_be_a_grid(data):
    X, y = data
    with pytest.raises(ValueError, match="param_grid"):
        PrivateGridSearchCV(DPLogisticRegression(), "wide", delta=DELTA).fit(X, y)


def test_default_grid_never_reads_the_number_of_classes_from_y():
    # classes=None: the grid assumes two classes (shaping it by y would release
    # the number of labels through the candidates' settings); declared classes
    # shape it. Before: the undeclared fit got the 3-class grid.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(900, 4)) / 3
    y = np.argmax(X[:, :3], axis=1)
    for estimator, n_classes in [
        (DPLogisticRegression(), 2),
        (DPLogisticRegression(classes=[0, 1, 2]), 3),
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            search = PrivateGridSearchCV(
                estimator, epsilon=2.0, delta=DELTA, random_state=0
            ).fit(X, y)
        train_size = round(0.8 * search.public_n_samples_)
        assert search.cv_results_["params"] == default_candidates(
            estimator,
            search.cv_results_["candidate_epsilon"][0],
            DELTA,
            train_size,
            4,
            n_classes=n_classes,
        )
        assert search.best_estimator_.coef_.shape == (3, 4)
    assert default_candidates(
        DPLogisticRegression(), 1.0, DELTA, train_size, 4, n_classes=2
    ) != default_candidates(
        DPLogisticRegression(), 1.0, DELTA, train_size, 4, n_classes=3
    )


def test_linear_scaling_search_runs_with_all_defaults(data):
    X, y = data
    search = LinearScalingSearch(
        DPLogisticRegression(classes=[0, 1]), delta=DELTA, random_state=0
    ).fit(X, y)
    assert search.epsilon_ == pytest.approx(1.0, rel=1e-8)
    assert 5 <= search.best_params_["max_iter"] <= 1000
    assert 0.1 <= search.best_params_["learning_rate"] <= 10.0


@pytest.mark.parametrize("winner", range(len(DEFAULT_RADIUS_FACTORS)))
def test_default_grid_refits_the_winners_penalty(data, monkeypatch, winner):
    # Whichever candidate wins, the refit takes its penalty: "auto" (1 / m)
    # for the shorter walks, DEFAULT_ALPHAS' 0 for the longest.
    monkeypatch.setattr(
        PrivateGridSearchCV,
        "_private_selection",
        staticmethod(lambda *args, **kwargs: winner),
    )
    X, y = data
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]), epsilon=1.0, delta=DELTA, random_state=0
    ).fit(X, y)
    refit = search.best_estimator_
    expected = DEFAULT_ALPHAS[winner]
    assert search.best_params_.get("alpha", "auto") == expected
    assert search.cv_results_["params"][winner].get("alpha", "auto") == expected
    if expected == "auto":
        assert refit.alpha == "auto"
        assert refit.alpha_ == pytest.approx(1.0 / search.public_n_samples_)
    else:
        assert refit.alpha == refit.alpha_ == expected


def test_a_plain_pipeline_of_private_steps_is_tuned_as_a_private_pipeline(data):
    # Before: refused with a message that did not mention make_private_pipeline.
    X, y = data
    pipe = make_pipeline(
        DPStandardScaler(bounds=(-3.0, 3.0)),
        Normalizer(),
        DPLogisticRegression(classes=[0, 1]),
    )
    grid = {"dplogisticregression__alpha": [0.0, 0.01]}
    search = PrivateGridSearchCV(pipe, grid, delta=DELTA).fit(X, y)
    assert type(search.best_estimator_).__name__ == "PrivatePipeline"
    assert search.best_params_ in list(ParameterGrid(grid))
    assert search.epsilon_ <= 1.0
    assert search.epsilon_ == pytest.approx(search.ledger_.epsilon(DELTA), rel=1e-12)
    # The user's Pipeline is left as given (scikit-learn's clone rule).
    assert pipe.steps[-1][1].get_params()["epsilon"] == 1.0


def test_a_plain_pipeline_with_a_leaky_step_is_refused_naming_it(data):
    X, y = data
    pipe = make_pipeline(StandardScaler(), DPLogisticRegression(classes=[0, 1]))
    with pytest.raises(ValueError, match="'standardscaler'.*make_private_pipeline"):
        PrivateGridSearchCV(pipe, {"dplogisticregression__alpha": [0.0]}).fit(X, y)


def test_cv_is_refused_with_the_reason(data):
    X, y = data
    with pytest.raises(
        ValueError, match="does not cross-validate.*validation_fraction"
    ):
        PrivateGridSearchCV(DPLogisticRegression(classes=[0, 1]), cv=5).fit(X, y)


def test_no_best_score_and_why(data):
    X, y = data
    search = PrivateGridSearchCV(DPLogisticRegression(classes=[0, 1]), delta=DELTA).fit(
        X, y
    )
    assert not hasattr(search, "best_score_")
    with pytest.raises(AttributeError, match="scores on the private validation"):
        search.best_score_  # noqa: B018
