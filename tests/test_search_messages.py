"""What the private search and PrivatePipeline tell a user: tuning ``C`` on a recipe,
the refit's parameters listed, a note when the search's budget replaces the
estimator's, one UtilityWarning summary per search, and PrivatePipeline indexed,
shown and budgeted as a scikit-learn Pipeline."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import Pipeline

from sklearn_dpgd import DPLogisticRegression, datasets
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.exceptions import UtilityWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import PrivatePipeline, make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler


def _data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_tuning_C_on_the_recipe_that_set_alpha():
    # The recipe sets alpha=0.1; a grid over C tunes the penalty instead of
    # failing with "C=0.1 and alpha=0.1 are both set".
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    recipe = datasets.private_pipeline("breast_cancer", epsilon=1.0)
    grid = {"dplogisticregression__C": [0.1, 1.0]}
    search = PrivateGridSearchCV(recipe, grid, epsilon=1.0, delta=1e-6).fit(X, y)
    final = search.best_estimator_.named_steps["dplogisticregression"]
    assert final.C == search.best_params_["dplogisticregression__C"]
    assert final.alpha == "auto"
    # And alpha on an estimator that set C resets C.
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1], C=0.5, max_iter=5),
        {"alpha": [0.01, 0.1]},
        epsilon=1.0,
        delta=1e-6,
    ).fit(*_data())
    assert search.best_estimator_.C is None


def test_default_grid_lists_the_refit_parameters():
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]), epsilon=1.0, delta=1e-6
    ).fit(*_data())
    refit = search.cv_results_["refit_params"]
    assert len(refit) == len(search.cv_results_["params"])
    assert search.best_params_ == refit[search.best_index_]
    assert search.best_estimator_.learning_rate == search.best_params_["learning_rate"]


def test_search_budget_replacing_the_estimators_is_noted():
    estimator = DPLogisticRegression(classes=[0, 1], epsilon=0.5, max_iter=5)
    search = PrivateGridSearchCV(
        estimator, {"learning_rate": [0.5, 1.0]}, epsilon=2.0, delta=1e-6
    )
    with pytest.warns(UserWarning, match=r"epsilon=2.0 replaces .*epsilon=0.5"):
        search.fit(*_data())
    # No note when the estimator's epsilon is its default or the search's.
    for eps in (1.0, 2.0):
        search.set_params(estimator=estimator.set_params(epsilon=eps))
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*replaces", category=UserWarning)
            search.fit(*_data())


def test_one_utility_warning_summary_per_search():
    # Four candidates at a tiny budget on few rows: each fit is useless and
    # warns; the search shows one summary for them (plus the refit's own).
    X, y = _data(n=60, d=8)
    grid = {"learning_rate": [0.1, 0.2, 0.4, 0.8]}
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1], max_iter=5),
        grid,
        epsilon=0.05,
        delta=1e-6,
        public_n_samples=60,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UtilityWarning)
        search.fit(X, y)
    utility = [str(w.message) for w in caught if w.category is UtilityWarning]
    summaries = [m for m in utility if m.startswith("PrivateGridSearchCV: ")]
    assert len(summaries) == 1
    assert "4 of 4 candidate fits" in summaries[0]
    # The refit's own checks (one warning each); no candidate's.
    assert len(utility) - len(summaries) <= 3
    # Other warnings of the candidates' fits still show.
    assert all(
        w.category is not UserWarning or "replaces" in str(w.message) for w in caught
    )


def _recipe_like():
    return make_private_pipeline(
        DPStandardScaler(bounds=np.tile([[-3.0, 3.0]], (30, 1))),
        DPLogisticRegression(classes=[0, 1], max_iter=5),
        epsilon=1.0,
        delta=1e-6,
    )


def test_private_pipeline_indexing_and_steps_as_pipeline():
    X, y = _data(d=30)
    pipe = _recipe_like()
    assert len(pipe) == 2
    assert pipe[-1] is pipe.steps[-1][1]
    assert pipe["dpstandardscaler"] is pipe[0]
    head = pipe[:1]
    assert isinstance(head, PrivatePipeline) and len(head) == 1
    pipe.fit(X, y)
    # Fitted: steps, indexing and named_steps are the same fitted objects.
    assert pipe[-1] is pipe.named_steps["dplogisticregression"]
    assert pipe.steps[-1][1] is pipe[-1]
    assert hasattr(pipe[-1], "coef_")
    prefix = pipe[:-1]
    assert isinstance(prefix, Pipeline)
    np.testing.assert_array_equal(
        prefix.transform(X), pipe.named_steps["dpstandardscaler"].transform(X)
    )
    with pytest.raises(ValueError, match="step of 1"):
        pipe[::2]


def test_private_pipeline_repr_is_compact():
    text = repr(_recipe_like())
    assert "..." in text
    assert text.count("3.") < 10


def test_private_pipeline_budget_shares_add_up():
    X, y = _data(d=30)
    pipe = _recipe_like().fit(X, y)
    assert sum(pipe.budget_shares_.values()) == pytest.approx(1.0)
    assert pipe.budget_shares_["dplogisticregression"] == pytest.approx(0.9)
    # The epsilons compose by GDP: their sum exceeds the total, mu^2 adds up.
    assert sum(b.epsilon for b in pipe.budget_.values()) > pipe.epsilon
    mu = gdp_mu(1.0, 1e-6)
    for path, share in pipe.budget_shares_.items():
        eps, delta = pipe.budget_[path]
        assert gdp_mu(eps, delta) ** 2 == pytest.approx(share * mu**2, rel=1e-6)


@pytest.mark.parametrize("kind", ["PrivatePipeline", "Pipeline"])
def test_default_grid_for_a_pipeline_whose_last_step_is_a_package_model(kind):
    X, y = _data(d=5)
    steps = [
        ("dpstandardscaler", DPStandardScaler(bounds=(-3.0, 3.0))),
        ("dplogisticregression", DPLogisticRegression(classes=[0, 1])),
    ]
    estimator = PrivatePipeline(steps) if kind == "PrivatePipeline" else Pipeline(steps)
    search = PrivateGridSearchCV(estimator, epsilon=1.0, delta=1e-6).fit(X, y)
    params = search.cv_results_["params"]
    assert len(params) == 3
    steps_ = [p["dplogisticregression__learning_rate"] for p in params]
    np.testing.assert_allclose(np.array(steps_) / steps_[0], [1.0, 4.0, 16.0])
    assert search.best_params_ == search.cv_results_["refit_params"][search.best_index_]
    final = search.best_estimator_[-1]
    assert (
        final.learning_rate
        == search.best_params_["dplogisticregression__learning_rate"]
    )
    assert search.epsilon_ <= 1.0 + 1e-9
    # The first candidate is the untuned default: what "auto" resolved to.
    assert (
        params[0]["dplogisticregression__max_iter"]
        == search.cv_results_["params"][1]["dplogisticregression__max_iter"]
    )


def test_threaded_candidate_fits_leave_the_warning_machinery_as_it_was():
    # Inside a ledger the candidates run in threads; recording their warnings
    # there could leave warnings.showwarning swapped (every later warning lost).
    from sklearn_dpgd.accounting import PrivacyLedger

    before = warnings.showwarning
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1], max_iter=5),
        {"learning_rate": [0.1, 0.2, 0.4, 0.8]},
        epsilon=0.05,
        delta=1e-6,
        public_n_samples=60,
        n_jobs=2,
    )
    with PrivacyLedger():
        search.fit(*_data(n=60, d=8))
    assert warnings.showwarning is before
