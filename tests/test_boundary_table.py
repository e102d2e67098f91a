"""Default-deny at the scikit-learn boundary: every construct is classified.

A scikit-learn (or third-party) construct between the user's code and a private fit
is known-private (silent), known-leaky or composing (a specific message), or not in
the table (a warning that it is not known to be private). Leaks are recorded in
``PrivacyLedger.leaks`` whether or not the warning shows; strict mode raises before
any fit, also for searches; joblib workers do not repeat what the caller reported,
and warnings point at the user's line.
"""

import importlib
import sys
import textwrap
import warnings

import joblib
import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.feature_selection import RFE, RFECV, SelectFromModel
from sklearn.impute import IterativeImputer
from sklearn.linear_model import RANSACRegressor
from sklearn.model_selection import (
    FixedThresholdClassifier,
    GridSearchCV,
    TunedThresholdClassifierCV,
    cross_val_score,
)
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.multioutput import (
    ClassifierChain,
    MultiOutputClassifier,
    MultiOutputRegressor,
    RegressorChain,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler
from sklearn.semi_supervised import SelfTrainingClassifier

import sklearn_dpgd._warnings as warnings_module
from sklearn_dpgd import DPLinearRegression, DPLogisticRegression
from sklearn_dpgd._boundary_table import TABLE
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.exceptions import PrivacyLeakError, PrivacyLeakWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import find_privacy_leaks

RNG = np.random.default_rng(0)
X = RNG.normal(size=(240, 4)) / 3
Y = (X[:, 0] + 0.1 * RNG.normal(size=240) > 0).astype(int)
Y2 = np.c_[Y, 1 - Y]
YR = np.clip(X[:, 0] + 0.1 * RNG.normal(size=240), -1, 1)
Y3 = np.digitize(X[:, 0], [-0.2, 0.2])
UNLABELLED = np.where(np.arange(240) % 3 == 0, -1, Y)


@pytest.fixture(autouse=True)
def _fresh_once_registry(monkeypatch):
    monkeypatch.setattr(warnings_module, "_SHOWN", set())


def _dp(**kw):
    return DPLogisticRegression(classes=[0, 1], max_iter=3, epsilon=0.5, **kw)


def _reg():
    return DPLinearRegression(y_bounds=(-1.0, 1.0), epsilon=0.5)


def _boost():
    # A 3-step noisy fit can be worse than chance on the boosting weights, and
    # AdaBoost then stops with a ValueError: after the boundary check (the warning
    # comes before the first fit), so the pattern is tested all the same.
    try:
        AdaBoostClassifier(_dp(), n_estimators=2).fit(X, Y)
    except ValueError as error:
        if "worse than random" not in str(error):
            raise


# (name, what the message must say, the pattern)
NAMED = [
    (
        "transformed target (transformer)",
        "TransformedTargetRegressor fits its transformer",
        lambda: TransformedTargetRegressor(_reg(), transformer=StandardScaler()).fit(
            X, YR
        ),
    ),
    (
        "transformed target (inverse check)",
        "public row-wise func",
        lambda: TransformedTargetRegressor(
            _reg(), func=np.tanh, inverse_func=np.arctanh
        ).fit(X, YR),
    ),
    ("RFECV", "RFECV chooses", lambda: RFECV(_dp(), cv=2).fit(X, Y)),
    (
        "TunedThresholdClassifierCV",
        "TunedThresholdClassifierCV picks",
        lambda: TunedThresholdClassifierCV(_dp(), cv=2).fit(X, Y),
    ),
    (
        "AdaBoostClassifier",
        "AdaBoostClassifier reweights",
        lambda: _boost(),
    ),
    (
        "SelfTrainingClassifier",
        "SelfTrainingClassifier labels",
        lambda: SelfTrainingClassifier(_dp(), max_iter=2).fit(X, UNLABELLED),
    ),
    (
        "RFE",
        "RFE refits the private model once per elimination step",
        lambda: RFE(_dp(), n_features_to_select=2).fit(X, Y),
    ),
    (
        "MultiOutputClassifier",
        "MultiOutputClassifier fits one private model per output",
        lambda: MultiOutputClassifier(_dp()).fit(X, Y2),
    ),
    (
        "MultiOutputRegressor",
        "MultiOutputRegressor fits one private model per output",
        lambda: MultiOutputRegressor(_reg()).fit(X, np.c_[YR, -YR]),
    ),
    (
        "RegressorChain",
        "RegressorChain fits one private model per output",
        lambda: RegressorChain(_reg()).fit(X, np.c_[YR, -YR]),
    ),
    (
        "ClassifierChain",
        "ClassifierChain fits one private model per output",
        lambda: ClassifierChain(_dp()).fit(X, Y2),
    ),
    (
        "bagging without bootstrap",
        "BaggingClassifier fits one private model per estimator",
        lambda: BaggingClassifier(_dp(), n_estimators=2, bootstrap=False).fit(X, Y),
    ),
    # Subclasses of BaseEstimator the table does not list by name: the base class's
    # row must not make them known-private.
    (
        "RANSACRegressor",
        "RANSACRegressor sets its residual_threshold",
        lambda: RANSACRegressor(_reg(), min_samples=50, max_trials=2).fit(X, YR),
    ),
    (
        "IterativeImputer",
        "IterativeImputer fits one private model per column",
        lambda: IterativeImputer(estimator=_reg(), max_iter=1).fit(
            np.where(X > 0.5, np.nan, X)
        ),
    ),
]
COMPOSING = {
    "bagging without bootstrap",
    "RFE",
    "MultiOutputClassifier",
    "MultiOutputRegressor",
    "RegressorChain",
    "ClassifierChain",
}


def _leaks(run):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.simplefilter("ignore", category=FutureWarning)
        run()
    return [w for w in caught if w.category is PrivacyLeakWarning]


@pytest.mark.parametrize("name, says, run", NAMED, ids=[n for n, _, _ in NAMED])
def test_each_named_construct_warns_its_own_message(name, says, run):
    caught = _leaks(run)
    messages = [str(w.message) for w in caught]
    assert any(says in m for m in messages), messages
    assert not any("not known to be private" in m for m in messages), messages
    if name in COMPOSING:
        # The per-fit budget and the composition, as for voting and one-vs-rest.
        (message,) = [m for m in messages if says in m]
        assert "epsilon=0.5 here" in message and "composition" in message
    # The warning points at the user's line (this file), not scikit-learn's.
    assert {w.filename for w in caught} == {__file__}


@pytest.mark.parametrize("name, says, run", NAMED, ids=[n for n, _, _ in NAMED])
def test_each_named_construct_is_an_error_before_any_fit_in_strict_mode(
    name, says, run
):
    ledger = PrivacyLedger(strict=True)
    with pytest.raises(PrivacyLeakError, match="strict mode") as err:
        with ledger, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run()
    assert says in str(err.value)
    assert ledger.entries == ()  # no private fit ran
    assert [r.releases for r in ledger.leaks][0] in str(err.value)


# Known-private: silent, and allowed in strict mode.
SILENT = [
    ("FixedThresholdClassifier", lambda: FixedThresholdClassifier(_dp()).fit(X, Y)),
    ("SelectFromModel", lambda: SelectFromModel(_dp()).fit(X, Y)),
    (
        "transformed target, row-wise func",
        lambda: TransformedTargetRegressor(
            _reg(), func=np.tanh, inverse_func=np.arctanh, check_inverse=False
        ).fit(X, YR),
    ),
    (
        "transformed target, identity",
        lambda: TransformedTargetRegressor(_reg()).fit(X, YR),
    ),
    ("clone", lambda: clone(_dp()).fit(X, Y)),
    (
        "user joblib.Parallel, threads",
        lambda: joblib.Parallel(n_jobs=2, backend="threading")(
            joblib.delayed(_dp().fit)(X, Y) for _ in range(2)
        ),
    ),
    ("user-defined meta-estimator", lambda: _UserMeta(_dp()).fit(X, Y)),
]


class _UserMeta:
    """A meta-estimator written by the user: user code is not flagged."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self


@pytest.mark.parametrize("name, run", SILENT, ids=[n for n, _ in SILENT])
def test_known_private_constructs_stay_silent(name, run):
    assert _leaks(run) == []
    ledger = PrivacyLedger(strict=True)
    with ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore", category=PrivacyLeakWarning)
        run()
    assert len(ledger.entries) >= 1 and ledger.leaks == ()


def test_a_user_joblib_parallel_in_processes_stays_silent(capfd):
    # loky workers print their warnings on the shared stderr: none here, while a
    # leaky pipeline in the same workers is heard (the check runs there). The
    # workers must start under capfd to write into it: shut down the reusable
    # executor an earlier test of the session may have started.
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_dp().fit)(X, Y) for _ in range(2)
    )
    assert "PrivacyLeakWarning" not in capfd.readouterr().err
    # A step name no other test uses: the loky workers are reused across the
    # session, and a leak already shown in a worker is not shown there again.
    leaky = Pipeline([("scaler_of_the_loky_test", StandardScaler()), ("dp", _dp())])
    joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(leaky.fit)(X, Y) for _ in range(2)
    )
    assert "scaler_of_the_loky_test" in capfd.readouterr().err


THIRD_PARTY_META = '''
class SubsetMeta:
    """A third-party meta-estimator the package has never classified."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        from sklearn.base import clone

        self.estimator_ = clone(self.estimator).fit(X[: len(X) // 2], y[: len(y) // 2])
        return self
'''


@pytest.fixture
def third_party_meta(tmp_path, monkeypatch):
    # Installed as a third-party package is: under a site-packages directory.
    package = tmp_path / "site-packages" / "unclassified_meta"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(THIRD_PARTY_META))
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    yield importlib.import_module("unclassified_meta").SubsetMeta
    sys.modules.pop("unclassified_meta", None)


def test_default_deny_an_unclassified_meta_estimator_warns(third_party_meta):
    caught = _leaks(lambda: third_party_meta(_dp()).fit(X, Y))
    (message,) = [str(w.message) for w in caught]
    assert "SubsetMeta (unclassified_meta) runs this private fit" in message
    assert "not known to be private" in message
    assert caught[0].filename == __file__
    ledger = PrivacyLedger(strict=True)
    with ledger, pytest.raises(PrivacyLeakError, match="SubsetMeta"):
        third_party_meta(_dp()).fit(X, Y)
    assert ledger.entries == ()


THIRD_PARTY_BASE_META = """
from sklearn.base import BaseEstimator, clone


class BaseMeta(BaseEstimator):
    \"\"\"A third-party meta-estimator on scikit-learn's BaseEstimator.\"\"\"

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X[: len(X) // 2], y[: len(y) // 2])
        return self
"""


def test_default_deny_holds_for_a_subclass_of_base_estimator(tmp_path, monkeypatch):
    # BaseEstimator is a known-private row (its methods are plumbing), but a class
    # deriving from it is not known-private by that alone.
    package = tmp_path / "site-packages" / "unclassified_base_meta"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(THIRD_PARTY_BASE_META))
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    try:
        meta = importlib.import_module("unclassified_base_meta").BaseMeta
        caught = _leaks(lambda: meta(_dp()).fit(X, Y))
        (message,) = [str(w.message) for w in caught]
        assert "BaseMeta (unclassified_base_meta) runs this private fit" in message
        assert "not known to be private" in message
        ledger = PrivacyLedger(strict=True)
        with ledger, pytest.raises(PrivacyLeakError, match="BaseMeta"):
            meta(_dp()).fit(X, Y)
        assert ledger.entries == ()
    finally:
        sys.modules.pop("unclassified_base_meta", None)


# Known-private wrappers used as pipeline steps: the step check reads the table.
PRIVATE_STEPS = [
    (
        "SelectFromModel",
        lambda: make_pipeline(SelectFromModel(_reg()), _reg()).fit(X, YR),
    ),
    (
        "FixedThresholdClassifier",
        lambda: make_pipeline(
            FunctionTransformer(np.tanh), FixedThresholdClassifier(_dp())
        ).fit(X, Y),
    ),
    (
        "TransformedTargetRegressor, row-wise func",
        lambda: make_pipeline(
            TransformedTargetRegressor(
                _reg(), func=np.tanh, inverse_func=np.arctanh, check_inverse=False
            )
        ).fit(X, YR),
    ),
]


@pytest.mark.parametrize("name, run", PRIVATE_STEPS, ids=[n for n, _ in PRIVATE_STEPS])
def test_a_known_private_wrapper_as_a_pipeline_step_is_not_a_leak(name, run):
    assert _leaks(run) == []
    # A genuinely leaky step beside it is still one.
    leaky = make_pipeline(StandardScaler(), FixedThresholdClassifier(_dp()))
    (found,) = find_privacy_leaks(leaky)
    assert found[1] == "StandardScaler"
    messages = [str(w.message) for w in _leaks(lambda: leaky.fit(X, Y))]
    assert any("'standardscaler' (StandardScaler) fits on" in m for m in messages)


def test_a_leaky_wrapper_as_a_pipeline_step_says_what_it_releases():
    pipe = make_pipeline(OneVsRestClassifier(_dp()))
    ((path, name, reads),) = find_privacy_leaks(pipe)
    assert (path, name) == ("onevsrestclassifier", "OneVsRestClassifier")
    assert "reads the label set from y" in reads and "epsilon=0.5 here" in reads


@pytest.mark.parametrize("bootstrap", [False, True])
def test_a_bagging_leak_in_worker_threads_is_recorded_once(bootstrap):
    # The clone in a worker names it BaggingRegressor, the fit there (no ensemble
    # object on its stack) by its kind's default name: one leak all the same.
    ledger = PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=PrivacyLeakWarning)
        try:
            with ledger:
                BaggingRegressor(
                    _reg(), n_estimators=2, n_jobs=2, bootstrap=bootstrap
                ).fit(X, YR)
        except PrivacyLeakError:
            assert bootstrap  # refused with bootstrap samples
    assert [r.construct for r in ledger.leaks] == ["BaggingRegressor"]


def test_a_voting_regressor_is_not_said_to_read_a_label_set():
    caught = _leaks(lambda: VotingRegressor([("a", _reg()), ("b", _reg())]).fit(X, YR))
    (message,) = [str(w.message) for w in caught]
    assert "VotingRegressor fits one private model per estimator" in message
    assert "label set" not in message and "classes=" not in message
    assert "epsilon=0.5 here" in message and "composition" in message


# Table lines for objects that newer scikit-learn releases added (the table serves
# every supported release): (module, name) -> the first release that has it.
_NEWER = {("sklearn.pipeline", "_fit_transform_one_with_callbacks"): (1, 9)}


def test_every_table_line_names_a_real_scikit_learn_object():
    # A renamed scikit-learn class would silently fall out of the table.
    version = tuple(int(p) for p in sklearn.__version__.split(".")[:2])
    missing = [
        (module, name)
        for module, name in TABLE
        if not hasattr(importlib.import_module(module), name)
        and version >= _NEWER.get((module, name), (0, 0))
    ]
    assert missing == []


def test_a_second_leaky_pipeline_is_listed_in_the_ledger():
    ledger = PrivacyLedger()
    with ledger, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        make_pipeline(StandardScaler(), _dp()).fit(X, Y)
        make_pipeline(StandardScaler(), _dp()).fit(X, Y)  # warned once only
    shown = [w for w in caught if w.category is PrivacyLeakWarning]
    assert len(shown) == 1
    assert [r.construct for r in ledger.leaks] == ["StandardScaler"] * 2
    lines = [r.location.rpartition(":") for r in ledger.leaks]
    assert {path for path, _, _ in lines} == {__file__}
    assert int(lines[1][2]) == int(lines[0][2]) + 1
    assert "mean and variance" in ledger.leaks[0].releases


def test_a_search_warns_once_at_the_users_line_and_records_once():
    ledger = PrivacyLedger()
    with ledger, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        GridSearchCV(_dp(), {"alpha": [0.0, 0.1]}, cv=2, n_jobs=2).fit(X, Y)
    shown = [w for w in caught if w.category is PrivacyLeakWarning]
    assert len(shown) == 1 and "GridSearchCV selects" in str(shown[0].message)
    assert str(shown[0].message).startswith("DPLogisticRegression: ")
    assert shown[0].filename == __file__
    assert [r.construct for r in ledger.leaks] == ["GridSearchCV"]


def test_loky_workers_do_not_repeat_what_the_caller_reported(capfd):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        cross_val_score(_dp(), X, Y, cv=2, n_jobs=2)
    shown = [w for w in caught if w.category is PrivacyLeakWarning]
    assert len(shown) == 1 and shown[0].filename == __file__
    assert "cross-validation" not in capfd.readouterr().err


def test_package_warnings_in_worker_threads_point_at_the_users_line():
    est = DPLogisticRegression(max_iter=3, epsilon=0.5)  # classes=None warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        with joblib.parallel_config(backend="threading"):
            GridSearchCV(est, {"alpha": [0.0, 0.1]}, cv=2, n_jobs=2).fit(X, Y)
    labels = [w for w in caught if "classes=None" in str(w.message)]
    assert len(labels) == 1
    assert labels[0].filename == __file__
    assert str(labels[0].message).startswith("DPLogisticRegression: classes=None")


def test_strict_mode_stops_a_search_before_it_starts_its_fits():
    ledger = PrivacyLedger(strict=True)
    with ledger, pytest.raises(PrivacyLeakError, match="GridSearchCV selects"):
        GridSearchCV(_dp(), {"alpha": [0.0, 0.1]}, cv=3).fit(X, Y)
    assert ledger.entries == ()


def test_bagging_with_bootstrap_is_refused_with_its_message_before_any_fit():
    ledger = PrivacyLedger()
    with ledger, pytest.raises(PrivacyLeakError, match="bootstrap samples"):
        BaggingClassifier(_dp(), n_estimators=2).fit(X, Y)
    assert ledger.entries == ()


@pytest.mark.parametrize("wrapper", [OneVsRestClassifier, OneVsOneClassifier])
def test_a_multiclass_wrapper_says_its_sub_problems_are_binary(wrapper):
    est = DPLogisticRegression(classes=[0, 1, 2], max_iter=3)
    with pytest.raises(ValueError, match=r"sub-problems is binary.*classes=\[0, 1\]"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=PrivacyLeakWarning)
            wrapper(est).fit(X, Y3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=PrivacyLeakWarning)
        model = wrapper(_dp()).fit(X, Y3)
    assert model.predict(X).shape == (240,)


def test_a_sparse_encoder_in_a_pipeline_inside_a_column_transformer_is_found():
    encoder = OneHotEncoder(categories=[[0.0, 1.0]], handle_unknown="ignore")
    nested = ColumnTransformer([("p", make_pipeline(encoder), [0])])
    assert [name for _, name, _ in find_privacy_leaks(nested)] == ["ColumnTransformer"]
    dense = ColumnTransformer([("p", make_pipeline(encoder), [0])], sparse_threshold=0)
    assert find_privacy_leaks(dense) == []


class _SpendsHalf(DPLogisticRegression):
    """Records a fit at half the budget the search planned for it."""

    def fit(self, X, y, sample_weight=None):
        planned = self.epsilon
        self.epsilon = planned / 2
        try:
            return super().fit(X, y, sample_weight=sample_weight)
        finally:
            self.epsilon = planned


def test_a_candidate_recording_less_than_planned_is_an_error():
    search = PrivateGridSearchCV(
        _SpendsHalf(classes=[0, 1], max_iter=3), {"alpha": [0.0, 0.1]}
    )
    with pytest.raises(RuntimeError, match="recorded less than the budget"):
        search.fit(X, Y)
    assert not hasattr(search, "best_estimator_")


@pytest.mark.parametrize(
    "run",
    [
        lambda: RFE(_dp(), n_features_to_select=1).fit(X, Y),
        lambda: RFE(_dp(), n_features_to_select=1, step=2).fit(X, Y),
        lambda: MultiOutputClassifier(_dp()).fit(X, np.c_[Y2, Y]),
        lambda: ClassifierChain(_dp()).fit(X, Y2),
        lambda: RegressorChain(_reg()).fit(X, np.c_[YR, -YR, YR]),
    ],
)
def test_a_composing_wrapper_quotes_the_fits_its_ledger_records(run):
    ledger = PrivacyLedger()
    with ledger:
        (caught,) = _leaks(run)
    fits = len(ledger.entries)
    budget = f"{fits} fits: at most epsilon={fits * 0.5:g} at delta="
    assert budget in str(caught.message)
    # The quoted total bounds the ledger's exact composition at the quoted delta.
    delta = float(str(caught.message).split("at delta=")[1].split(" ")[0])
    assert ledger.epsilon(delta) <= fits * 0.5 * (1 + 1e-9)


def test_the_table_vectorizer_in_a_column_transformer_is_dense_not_a_leak():
    # DPTableVectorizer always returns a dense array (its own ColumnTransformer has
    # sparse_threshold=0), so an outer ColumnTransformer's density test reads
    # nothing; scikit-learn's CountVectorizer in the same place is still found.
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    from sklearn_dpgd import DPLogisticRegression
    from sklearn_dpgd.pipeline import find_privacy_leaks
    from sklearn_dpgd.preprocessing import DPTableVectorizer

    def leaks(step, cols):
        ct = ColumnTransformer([("t", step, cols)], sparse_threshold=0.3)
        return find_privacy_leaks(
            make_pipeline(ct, DPLogisticRegression(classes=[0, 1]))
        )

    assert leaks(DPTableVectorizer(bounds={"a": (0, 1)}), ["a"]) == []
    assert "ColumnTransformer" in [
        name for _, name, _ in leaks(CountVectorizer(), "text")
    ]


def test_a_composing_wrapper_step_names_its_inner_budget():
    # VotingClassifier keeps its models in `estimators`, not `estimator`: the
    # step's message names their per-fit epsilon, not "nan".
    X = np.random.default_rng(0).uniform(size=(60, 3))
    y = np.arange(60) % 2
    inner = [
        (name, DPLogisticRegression(epsilon=0.5, classes=[0, 1], max_iter=3))
        for name in ("a", "b")
    ]
    model = make_pipeline(VotingClassifier(inner))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.fit(X, y)
    texts = [str(w.message) for w in record if "Voting" in str(w.message)]
    assert texts and all("nan" not in t for t in texts)
    assert any("epsilon=0.5" in t for t in texts)
