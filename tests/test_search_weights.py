"""Sample weights through the private searches.

The searches pass the weights, split with the rows, to the candidates' fits and
the refit (a pipeline's final step), check them against the candidates' one public
bound before anything is charged, and keep their accounting: a weighted fit
records the same Gaussian steps. The comparison stays unweighted.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    DPLogisticRegression,
    OutputPerturbationClassifier,
    PrivacyLeakWarning,
)
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.exceptions import UtilityWarning
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV

DELTA = 1e-6
SEEN = []


class _SpyLogistic(DPLogisticRegression):
    """Records the ``sample_weight`` of every fit (module-level: clonable)."""

    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        SEEN.append((len(y), sample_weight))
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.fixture(autouse=True)
def _quiet():
    SEEN.clear()
    with warnings.catch_warnings():
        # Fixed seeds, and the utility diagnostics of 5-step fits.
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", UtilityWarning)
        yield


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=1000, n_features=5, n_informative=3, class_sep=1.5, random_state=0
    )
    w = np.random.default_rng(0).uniform(0.0, 2.0, size=len(y))
    return Normalizer().fit_transform(X), y, w


def _grid(estimator, **params):
    return PrivateGridSearchCV(
        estimator,
        params.pop("param_grid", {"learning_rate": [0.5, 2.0]}),
        epsilon=1.0,
        delta=DELTA,
        random_state=0,
        **params,
    )


def test_grid_search_passes_train_weights_to_candidates_and_all_to_the_refit(data):
    X, y, w = data
    est = _SpyLogistic(classes=[0, 1], max_iter=5, max_sample_weight=2.0)
    search = _grid(est).fit(X, y, sample_weight=w)
    (n1, w1), (n2, w2), (n_refit, w_refit) = SEEN
    assert n1 == n2 == len(w1) == len(w2) < len(y)  # the train part's weights
    np.testing.assert_array_equal(w1, w2)
    assert n_refit == len(y)
    np.testing.assert_array_equal(w_refit, w)
    # The train part's weights are those of its rows (a subsequence of w).
    assert np.isin(w1, w).all()
    assert search.best_estimator_.coef_.shape == (1, 5)


def test_weighted_search_spends_the_same_budget(data):
    # Each fit scales its own sensitivity by max_sample_weight: the search's
    # ledger (candidate fits, comparison, refit) is the unweighted one's.
    X, y, w = data
    est = DPLogisticRegression(classes=[0, 1], max_iter=5, max_sample_weight=2.0)
    plain = _grid(est).fit(X, y)
    weighted = _grid(est).fit(X, y, sample_weight=w)
    assert weighted.ledger_.entries == plain.ledger_.entries
    assert weighted.epsilon_ == plain.epsilon_ <= 1.0


@pytest.mark.parametrize("estimator", ["logistic", "outpert"])
def test_unit_weights_give_the_unweighted_search(data, estimator):
    X, y, _ = data
    if estimator == "logistic":
        est = DPLogisticRegression(classes=[0, 1], max_iter=5)
        grid = {"learning_rate": [0.5, 2.0]}
    else:
        est = OutputPerturbationClassifier(classes=[0, 1])
        grid = {"alpha": [0.01, 0.1]}
    plain = _grid(est, param_grid=grid).fit(X, y)
    unit = _grid(est, param_grid=grid).fit(X, y, sample_weight=np.ones(len(y)))
    assert unit.best_index_ == plain.best_index_
    np.testing.assert_array_equal(
        unit.best_estimator_.coef_, plain.best_estimator_.coef_
    )


def test_linear_scaling_search_passes_the_weights(data):
    X, y, w = data
    est = _SpyLogistic(classes=[0, 1], max_sample_weight=2.0)
    search = LinearScalingSearch(
        est,
        epsilon=1.0,
        delta=DELTA,
        n_candidates=2,
        max_iter_range=(2, 6),
        random_state=0,
    )
    search.fit(X, y, sample_weight=w)
    assert len(SEEN) == 5  # 2 + 2 candidates, then the final fit
    assert all(len(sw) == n < len(y) for n, sw in SEEN[:4])
    np.testing.assert_array_equal(SEEN[-1][1], w)
    plain = LinearScalingSearch(
        est,
        epsilon=1.0,
        delta=DELTA,
        n_candidates=2,
        max_iter_range=(2, 6),
        random_state=0,
    ).fit(X, y)
    assert search.ledger_.entries == plain.ledger_.entries


def test_a_pipeline_gets_the_weights_in_its_final_step(data, monkeypatch):
    # The pipeline check knows the package's classes (not the spy subclass): spy
    # on DPLogisticRegression.fit itself.
    X, y, w = data
    fit = DPLogisticRegression.fit

    def spy(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        SEEN.append((len(y), sample_weight))
        return fit(self, X, y, sample_weight=sample_weight)

    monkeypatch.setattr(DPLogisticRegression, "fit", spy)
    est = DPLogisticRegression(classes=[0, 1], max_iter=5, max_sample_weight=2.0)
    pipe = Pipeline([("norm", Normalizer()), ("clf", est)])
    search = _grid(pipe, param_grid={"clf__learning_rate": [0.5, 2.0]})
    search.fit(X, y, sample_weight=w)
    assert len(SEEN) == 3
    assert all(len(sw) == n < len(y) for n, sw in SEEN[:2])
    np.testing.assert_array_equal(SEEN[-1][1], w)


@pytest.mark.parametrize(
    "param_grid, weights, match",
    [
        ({"learning_rate": [1.0]}, 2.5, r"max_sample_weight=2\]"),
        ({"learning_rate": [1.0]}, -1.0, r"max_sample_weight=2\]"),
        ({"learning_rate": [1.0]}, np.nan, r"max_sample_weight=2\]"),
        ({"max_sample_weight": [1.0, 2.0]}, 0.5, "max_sample_weight differ"),
    ],
)
def test_refused_before_any_charge(data, param_grid, weights, match):
    X, y, _ = data
    est = DPLogisticRegression(classes=[0, 1], max_iter=5, max_sample_weight=2.0)
    ledger = PrivacyLedger()
    with ledger, pytest.raises(ValueError, match=match):
        _grid(est, param_grid=param_grid).fit(
            X, y, sample_weight=np.full(len(y), weights)
        )
    assert len(ledger.entries) == 0


def test_an_estimator_without_a_weight_bound_is_refused(data):
    X, y, w = data
    search = _grid(LogisticRegression())
    with pytest.raises(ValueError, match="takes no sample_weight with a public bound"):
        search._check_sample_weight(w, X, [{}])
    assert search._check_sample_weight(None, X, [{}]) is None
