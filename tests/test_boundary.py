"""The scikit-learn boundary: non-private machinery around a private fit is named.

Every pattern a user reaches for around a ``DPLogisticRegression`` (a plain
``Pipeline`` with a scaler, a text vectorizer, ``GridSearchCV``, cross-validation,
calibration, multiclass wrappers, ensembles) warns ``PrivacyLeakWarning`` once per
process per leak, or raises ``PrivacyLeakError`` before the private fit reads data
inside ``PrivacyLedger(strict=True)``; the package's own private constructs and the
row-wise steps stay silent.
"""

import warnings

import joblib
import numpy as np
import pytest
import scipy.stats
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import StackingClassifier, VotingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_val_predict,
    cross_val_score,
    cross_validate,
)
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    StandardScaler,
)

import sklearn_dpgd._warnings as warnings_module
from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger, recording_only
from sklearn_dpgd.exceptions import PrivacyLeakError, PrivacyLeakWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import find_privacy_leaks, make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler, row_wise

RNG = np.random.default_rng(0)
X = RNG.normal(size=(240, 4))
Y = (X[:, 0] + 0.3 * RNG.normal(size=240) > 0).astype(int)
Y3 = np.digitize(X[:, 0], [-0.5, 0.5])
WORDS = RNG.choice(["alpha", "beta", "gamma"], 240)
DOCS = [f"{w} label{v}" for w, v in zip(WORDS, Y, strict=True)]


@pytest.fixture(autouse=True)
def _fresh_once_registry(monkeypatch):
    # Each test sees its warnings, whatever ran before in this process.
    monkeypatch.setattr(warnings_module, "_SHOWN", set())


def _dp(**kw):
    return DPLogisticRegression(classes=[0, 1], max_iter=5, **kw)


def _dp3():
    return DPLogisticRegression(classes=[0, 1, 2], max_iter=5)


# (name, what the message must say, a callable running the pattern)
LEAKY = [
    (
        "pipeline scaler",
        "StandardScaler",
        lambda: make_pipeline(StandardScaler(), _dp()).fit(X, Y),
    ),
    (
        "pipeline tfidf",
        "vocabulary",
        lambda: make_pipeline(TfidfVectorizer(), _dp()).fit(DOCS, Y),
    ),
    (
        "column transformer",
        "MinMaxScaler",
        lambda: make_pipeline(
            ColumnTransformer([("m", MinMaxScaler(), [0, 1])], remainder="passthrough"),
            _dp(),
        ).fit(X, Y),
    ),
    (
        "feature union",
        "StandardScaler",
        lambda: make_pipeline(
            FeatureUnion([("s", StandardScaler()), ("n", Normalizer())]), _dp()
        ).fit(X, Y),
    ),
    (
        "grid search",
        "GridSearchCV selects",
        lambda: GridSearchCV(_dp(), {"alpha": [0.0, 0.1]}, cv=2).fit(X, Y),
    ),
    (
        "randomized search",
        "RandomizedSearchCV selects",
        lambda: RandomizedSearchCV(_dp(), {"alpha": [0.0, 0.1]}, n_iter=2, cv=2).fit(
            X, Y
        ),
    ),
    ("cross_val_score", "cross-validation", lambda: cross_val_score(_dp(), X, Y, cv=2)),
    ("cross_validate", "cross-validation", lambda: cross_validate(_dp(), X, Y, cv=2)),
    (
        "cross_val_predict",
        "cross_val_predict",
        lambda: cross_val_predict(_dp(), X, Y, cv=2),
    ),
    (
        "calibration",
        "CalibratedClassifierCV fits",
        lambda: CalibratedClassifierCV(_dp(), cv=2).fit(X, Y),
    ),
    (
        "one vs rest",
        "OneVsRestClassifier reads",
        lambda: OneVsRestClassifier(_dp()).fit(X, Y3),
    ),
    (
        "one vs one",
        "OneVsOneClassifier reads",
        lambda: OneVsOneClassifier(_dp()).fit(X, Y3),
    ),
    (
        "stacking",
        "StackingClassifier fits",
        lambda: StackingClassifier([("a", _dp()), ("b", _dp())], cv=2).fit(X, Y),
    ),
    (
        "voting",
        "VotingClassifier reads",
        lambda: VotingClassifier([("a", _dp()), ("b", _dp())]).fit(X, Y),
    ),
    (
        "threaded grid search",
        "GridSearchCV selects",
        lambda: GridSearchCV(_dp(), {"alpha": [0.0, 0.1]}, cv=2, n_jobs=2).fit(X, Y),
    ),
]


def _leak_messages(run, *, ledger=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.simplefilter("ignore", category=FutureWarning)
        if ledger is None:
            run()
        else:
            with ledger:
                run()
    return [str(w.message) for w in caught if w.category is PrivacyLeakWarning]


@pytest.mark.parametrize("name, says, run", LEAKY, ids=[p[0] for p in LEAKY])
def test_each_leaky_pattern_warns(name, says, run):
    messages = _leak_messages(run)
    assert any(says in m for m in messages), messages


@pytest.mark.parametrize("name, says, run", LEAKY[:6], ids=[p[0] for p in LEAKY[:6]])
def test_each_leaky_pattern_warns_inside_a_ledger(name, says, run):
    messages = _leak_messages(run, ledger=PrivacyLedger())
    assert any(says in m for m in messages), messages


@pytest.mark.parametrize("name, says, run", LEAKY, ids=[p[0] for p in LEAKY])
def test_strict_mode_raises_before_the_private_fit_reads(name, says, run):
    # A search or cross-validation raises PrivacyLeakError itself (when it clones
    # the estimator, before it starts any fit), not scikit-learn's "All the N
    # fits failed" ValueError. (Bagging is refused in any mode: see
    # test_boundary_table.py.)
    ledger = PrivacyLedger(strict=True)
    with pytest.raises(PrivacyLeakError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's FitFailedWarning
        with ledger:
            run()
    assert "strict mode" in str(err.value)
    assert says in str(err.value)
    # The private fit raised before its charge: it ran nothing.
    assert ledger.entries == ()
    assert ledger.leaks and ledger.leaks[0].releases in str(err.value)


def test_strict_mode_error_reaches_the_user_with_error_score_raise():
    with pytest.raises(PrivacyLeakError, match="GridSearchCV selects"):
        with PrivacyLedger(strict=True):
            GridSearchCV(_dp(), {"alpha": [0.0]}, cv=2, error_score="raise").fit(X, Y)


def test_a_leak_warns_once_per_process():
    def twice():
        for _ in range(2):
            make_pipeline(StandardScaler(), _dp()).fit(X, Y)
            cross_val_score(_dp(), X, Y, cv=3)

    messages = _leak_messages(twice)
    assert len(messages) == len(set(messages)) == 2


def test_standard_filters_silence_it():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", category=PrivacyLeakWarning)
        make_pipeline(StandardScaler(), _dp()).fit(X, Y)
    assert not [w for w in caught if w.category is PrivacyLeakWarning]


@row_wise
def _signed_log(Z):
    return np.sign(Z) * np.log1p(np.abs(Z))


SILENT = [
    ("normalizer", lambda: make_pipeline(Normalizer(), _dp()).fit(X, Y)),
    (
        "ufunc function",
        lambda: make_pipeline(FunctionTransformer(np.tanh), _dp()).fit(X, Y),
    ),
    (
        "declared row-wise",
        lambda: make_pipeline(FunctionTransformer(_signed_log), _dp()).fit(X, Y),
    ),
    (
        "private pipeline",
        lambda: make_private_pipeline(
            DPStandardScaler(bounds=(-4.0, 4.0)), Normalizer(), _dp()
        ).fit(X, Y),
    ),
    (
        "private search",
        lambda: PrivateGridSearchCV(_dp(), {"alpha": [0.0, 0.1]}).fit(X, Y),
    ),
    (
        "plain pipeline of private steps",
        lambda: make_pipeline(DPStandardScaler(bounds=(-4.0, 4.0)), _dp()).fit(X, Y),
    ),
    ("bare fit", lambda: _dp().fit(X, Y)),
]


@pytest.mark.parametrize("name, run", SILENT, ids=[p[0] for p in SILENT])
def test_private_and_row_wise_patterns_stay_silent(name, run):
    messages = _leak_messages(run)
    assert messages == []
    ledger = PrivacyLedger(strict=True)
    with ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore", category=PrivacyLeakWarning)  # fixed seeds
        run()
    assert len(ledger.entries) >= 1


# The safe list, reviewed: what an independent review found unsafe.
CATEGORIES = [[0.0, 1.0, 2.0]]


@pytest.mark.parametrize(
    "step, leaks",
    [
        (OneHotEncoder(categories=CATEGORIES, handle_unknown="ignore"), False),
        (
            OneHotEncoder(categories=CATEGORIES, handle_unknown="infrequent_if_exist"),
            False,
        ),
        (
            OneHotEncoder(categories=CATEGORIES, handle_unknown="ignore", drop="first"),
            True,
        ),
        (OneHotEncoder(categories=CATEGORIES, handle_unknown="warn"), True),
        (OneHotEncoder(categories=CATEGORIES, handle_unknown="error"), True),
        (OneHotEncoder(handle_unknown="ignore"), True),
        (FunctionTransformer(scipy.stats.zscore), True),
        (FunctionTransformer(lambda Z: Z - Z.mean(axis=0)), True),
        (FunctionTransformer(), False),
        (FunctionTransformer(np.log1p), False),
        (FunctionTransformer(_signed_log), False),
        (
            FunctionTransformer(np.log1p, inverse_func=np.expm1, check_inverse=True),
            True,
        ),
        (
            ColumnTransformer(
                [
                    (
                        "o",
                        OneHotEncoder(categories=CATEGORIES, handle_unknown="ignore"),
                        [0],
                    )
                ]
            ),
            True,
        ),
        (
            ColumnTransformer(
                [
                    (
                        "o",
                        OneHotEncoder(categories=CATEGORIES, handle_unknown="ignore"),
                        [0],
                    )
                ],
                sparse_threshold=0,
            ),
            False,
        ),
        (ColumnTransformer([("n", Normalizer(), [0, 1])]), False),
    ],
)
def test_the_safe_list(step, leaks):
    assert bool(find_privacy_leaks(step)) is leaks


def test_zscore_reads_every_row():
    # Why FunctionTransformer(zscore) is not row-wise: changing one row changes
    # the other rows' outputs.
    other = X.copy()
    other[0] += 10.0
    out = FunctionTransformer(scipy.stats.zscore).fit_transform
    assert not np.allclose(out(X)[1:], out(other)[1:])


def test_one_hot_drop_warns_exactly_when_a_row_holds_an_undeclared_value():
    # The distinguisher behind the drop rule: the warning is a function of one row.
    enc = OneHotEncoder(categories=CATEGORIES, handle_unknown="ignore", drop="first")
    enc.fit(np.array([[0.0], [1.0]]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc.transform(np.array([[0.0], [1.0]]))
        quiet = len(caught)
        enc.transform(np.array([[0.0], [7.0]]))
    assert quiet == 0 and len(caught) == 1


def test_row_wise_rejects_what_it_cannot_mark():
    with pytest.raises(TypeError, match="callable"):
        row_wise(3)
    with pytest.raises(TypeError, match="wrap it in a def"):
        row_wise(len)


def test_strict_mode_holds_inside_recording_only_and_its_threads():
    # A private search fits its candidates under recording_only(scratch) (it
    # refuses leaky candidates itself): strictness stays there, and in threads.
    with PrivacyLedger(strict=True), recording_only(PrivacyLedger()) as scratch:
        with pytest.raises(PrivacyLeakError, match="StandardScaler"):
            make_pipeline(StandardScaler(), _dp()).fit(X, Y)
        with pytest.raises(PrivacyLeakError, match="StandardScaler"):
            joblib.Parallel(n_jobs=2)(
                joblib.delayed(make_pipeline(StandardScaler(), _dp()).fit)(X, Y)
                for _ in range(2)
            )
    assert scratch.entries == ()


def test_strict_is_a_bool_and_shows():
    with pytest.raises(TypeError, match="strict must be True or False"):
        PrivacyLedger(strict="yes")
    assert "strict=True" in repr(PrivacyLedger(strict=True))
    assert "strict" not in repr(PrivacyLedger())
