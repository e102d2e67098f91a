"""What a newcomer meets first: repeated warnings, sample weights, unfitted reads.

- A PrivacyLeakWarning or WeakPrivacyWarning is shown once per search, not once per
  clone: scikit-learn's joblib wrapper re-installs the warning filters around every
  fit, which clears Python's "once per location" registry, so the package keeps its
  own (sklearn_dpgd._warnings).
- ``sample_weight`` is in every ``fit`` signature; a weight outside the public bound
  ``max_sample_weight`` is refused with a ValueError that says why, before anything
  is charged or read.
- Every fitted attribute read before ``fit`` raises NotFittedError.
- One-class ``y`` is refused with ``classes=None`` and trained on with ``classes``.
"""

import warnings

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

import sklearn_dpgd._warnings as warnings_module
from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.baselines import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
)
from sklearn_dpgd.exceptions import (
    PrivacyLeakWarning,
    UtilityWarning,
    WeakPrivacyWarning,
)
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV

GRID = {"epsilon": [0.5, 1.0, 2.0], "clip_norm": [0.5, 1.0]}  # 6 settings


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=240) > 0).astype(int)
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    # Each test starts as a fresh process would: nothing shown yet.
    monkeypatch.setattr(warnings_module, "_SHOWN", set())


def _search_warnings(data, estimator, *, action="default", n_jobs=1):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        GridSearchCV(estimator, GRID, cv=3, n_jobs=n_jobs).fit(*data)
    # The fits' own warnings; GridSearchCV's own leak (its scores and choice) is
    # named too, and tested in test_boundary.py.
    return [
        w
        for w in caught
        if issubclass(w.category, PrivacyLeakWarning)
        and "GridSearchCV selects" not in str(w.message)
        and "cross-validation" not in str(w.message)
    ]


# --- warnings once ---------------------------------------------------------------


def test_grid_search_shows_the_label_warning_once(data):
    caught = _search_warnings(data, DPLogisticRegression(max_iter=3))
    assert len(caught) == 1  # was 19: 6 settings x 3 folds + the refit
    assert "Pass the public label set as `classes`" in str(caught[0].message)


def test_threaded_search_under_a_ledger_shows_it_once(data):
    ledger = PrivacyLedger()
    with ledger, parallel_config(backend="threading"):
        caught = _search_warnings(data, DPLogisticRegression(max_iter=3), n_jobs=2)
    assert len(caught) == 1
    assert len(ledger.entries) >= 19  # every fit was still recorded


def test_grid_search_shows_the_fixed_seed_warning_once(data):
    est = DPLogisticRegression(max_iter=3, classes=[0, 1], random_state=0)
    caught = _search_warnings(data, est)
    assert len(caught) == 1
    assert "Use random_state=None" in str(caught[0].message)


def test_weak_delta_warns_once_though_each_fit_counts_its_own_size(data):
    # delta >= 1/m for m ~ 160 rows per fold; each fit's noisy count differs, so
    # the texts differ; the warning is about delta and shown once.
    est = DPLogisticRegression(max_iter=3, classes=[0, 1], delta=0.05)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        GridSearchCV(est, GRID, cv=3).fit(*data)
    weak = [w for w in caught if issubclass(w.category, WeakPrivacyWarning)]
    assert len(weak) == 1
    assert "Use delta << 1/n" in str(weak[0].message)


def test_baseline_weak_delta_warns_once(data):
    est = OutputPerturbationClassifier(classes=[0, 1], delta=0.05)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        GridSearchCV(est, {"epsilon": [0.5, 1.0]}, cv=3).fit(*data)
    weak = [w for w in caught if issubclass(w.category, WeakPrivacyWarning)]
    assert len(weak) == 1 and "delta << 1/m" in str(weak[0].message)


def test_the_users_filters_still_decide(data):
    # "always" shows every one (as pytest.warns relies on); "error" raises.
    caught = _search_warnings(data, DPLogisticRegression(max_iter=3), action="always")
    assert len(caught) == 19
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        with pytest.raises(PrivacyLeakWarning):
            DPLogisticRegression(max_iter=3).fit(*data)


def test_the_registry_is_per_message(data):
    X, y = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        # Three steps learn little: the fits' UtilityWarning is not the subject.
        warnings.filterwarnings("ignore", category=UtilityWarning)
        for seed in (0, 0, 1):
            DPLogisticRegression(max_iter=3, classes=[0, 1], random_state=seed).fit(
                X, y
            )
    assert [str(w.message).split(":")[1] for w in caught] == [
        " random_state=0 fixes the noise. Anyone who knows the seed can regenerate "
        "and subtract it, and fits that share the seed (e.g. clones in GridSearchCV "
        "or cross_val_score) share their noise, which cancels between them. Use "
        "random_state=None (fresh entropy for every fit) for any release; a fixed "
        "seed is for debugging and tests only.",
        " random_state=1 fixes the noise. Anyone who knows the seed can regenerate "
        "and subtract it, and fits that share the seed (e.g. clones in GridSearchCV "
        "or cross_val_score) share their noise, which cancels between them. Use "
        "random_state=None (fresh entropy for every fit) for any release; a fixed "
        "seed is for debugging and tests only.",
    ]


# --- sample_weight ---------------------------------------------------------------

ESTIMATORS = [
    OutputPerturbationClassifier(classes=[0, 1]),
    PhasedLocalizationClassifier(classes=[0, 1]),
    PrivateGridSearchCV(
        DPLogisticRegression(max_iter=2, classes=[0, 1]), {"learning_rate": [2.0]}
    ),
    LinearScalingSearch(
        DPLogisticRegression(classes=[0, 1]), n_candidates=1, max_iter_range=(1, 3)
    ),
]
IDS = ["outpert", "localization", "grid_search", "linear_scaling"]


# The linear models, the baselines and the searches weight rows up to the public
# bound max_sample_weight (tests/test_weights.py, tests/test_baselines_weights.py,
# tests/test_search_weights.py); above it, or with Snowball-SGD, they refuse.
@pytest.mark.parametrize(
    "estimator, weight, match",
    [
        (DPLogisticRegression(max_iter=3, classes=[0, 1]), 2.0, "max_sample_weight=1"),
        (DPHuberSVM(max_iter=3, classes=[0, 1]), 2.0, "max_sample_weight=1"),
        (ESTIMATORS[0], 2.0, "max_sample_weight=1"),
        (ESTIMATORS[1], 2.0, "max_sample_weight=1"),
        (ESTIMATORS[2], 2.0, "max_sample_weight=1"),
        (ESTIMATORS[3], 2.0, "max_sample_weight=1"),
        (
            DPLogisticRegression(
                solver="snowball", classes=[0, 1], public_n_samples=240
            ),
            2.0,
            "max_sample_weight=1",
        ),
    ],
    ids=["logistic", "huber", *IDS, "snowball"],
)
def test_weights_outside_the_bound_refused_before_any_charge(
    estimator, weight, match, data
):
    X, y = data
    ledger = PrivacyLedger()
    with ledger, pytest.raises(ValueError, match=match):
        clone(estimator).fit(X, y, sample_weight=np.full(len(y), weight))
    assert len(ledger.entries) == 0  # refused before anything was charged or read


def test_sample_weight_none_is_accepted(data):
    clf = DPLogisticRegression(max_iter=3, classes=[0, 1])
    assert clf.fit(*data, sample_weight=None).coef_.shape == (1, 4)


def test_sample_weight_through_a_pipeline_is_checked(data):
    model = make_pipeline(Normalizer(), DPLogisticRegression(classes=[0, 1]))
    model.fit(*data, dplogisticregression__sample_weight=np.ones(240))
    with pytest.raises(ValueError, match="max_sample_weight=1"):
        model.fit(*data, dplogisticregression__sample_weight=np.full(240, 1.5))


# --- NotFittedError --------------------------------------------------------------


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_every_fitted_attribute_read_too_early_raises_not_fitted(estimator, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(estimator).fit(*data)
    names = [k for k in vars(fitted) if k.endswith("_") and not k.startswith("_")]
    searches = (PrivateGridSearchCV, LinearScalingSearch)
    expected = {"ledger_"} if isinstance(fitted, searches) else {"coef_", "epsilon_"}
    assert expected | {"public_n_samples_"} <= set(names)
    unfitted = clone(estimator)
    for name in names:
        with pytest.raises(NotFittedError, match=f"not fitted yet.*{name}"):
            getattr(unfitted, name)
        assert not hasattr(unfitted, name)  # NotFittedError is an AttributeError
    # Other names keep Python's error; a fitted estimator's missing attribute too.
    with pytest.raises(AttributeError) as excinfo:
        unfitted.no_such_name  # noqa: B018
    assert not isinstance(excinfo.value, NotFittedError)
    with pytest.raises(AttributeError) as excinfo:
        fitted.feature_names_in_  # noqa: B018 (fitted on an array)
    assert not isinstance(excinfo.value, NotFittedError)


def test_available_if_message_survives(data):
    # DPHuberSVM has no predict_proba: the descriptor's own error is kept.
    with pytest.raises(AttributeError) as excinfo:
        DPHuberSVM().predict_proba  # noqa: B018
    assert not isinstance(excinfo.value, NotFittedError)
    assert "predict_proba" in str(excinfo.value)


# --- one-class y -----------------------------------------------------------------


ONE_CLASS = [
    DPLogisticRegression(max_iter=3),
    OutputPerturbationClassifier(),
    PhasedLocalizationClassifier(),
]


@pytest.mark.parametrize("estimator", ONE_CLASS, ids=type)
def test_one_class_y_is_refused_without_classes(estimator, data):
    X, _ = data
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError, match="one class"):
        clone(estimator).fit(X, np.zeros(len(X), dtype=int))


@pytest.mark.parametrize("estimator", ONE_CLASS, ids=type)
def test_one_class_y_is_trained_on_with_declared_classes(estimator, data):
    X, _ = data
    clf = clone(estimator).set_params(classes=[0, 1])
    clf.fit(X, np.zeros(len(X), dtype=int))
    assert clf.classes_.tolist() == [0, 1]
    assert set(clf.predict(X)) <= {0, 1}
    assert clf.predict_proba(X).shape == (len(X), 2)
