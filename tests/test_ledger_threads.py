"""Ledgers across threads: every mechanism that runs is recorded, from any thread.

A fit records into the ledgers of its context. The worker threads of joblib (a
search's ``n_jobs``, ``ColumnTransformer``/``FeatureUnion`` ``n_jobs``, a user's
``Parallel``) start with an empty context; while a ledger or ``recording_only`` is
open, joblib's default backend carries the caller's context into them. One ledger
may also be entered by many threads at once.
"""

import threading
import warnings

import joblib
import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import FeatureUnion

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    GaussianSteps,
    PrivacyLedger,
    active_ledgers,
    recording_only,
)
from sklearn_dpgd.exceptions import BudgetExhaustedError, UnrecordedFitError
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler

DELTA = 1e-6


def _data(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _scalers(d):
    half = d // 2
    return [
        ("a", DPStandardScaler(bounds=(-4.0, 4.0)), list(range(half))),
        ("b", DPStandardScaler(bounds=(-4.0, 4.0)), list(range(half, d))),
    ]


def _pipeline(kind, n_jobs, share):
    if kind == "column_transformer":
        pre = ColumnTransformer(_scalers(6), n_jobs=n_jobs)
    else:
        pre = FeatureUnion([(name, est) for name, est, _ in _scalers(6)], n_jobs=n_jobs)
    return make_private_pipeline(
        pre,
        DPLogisticRegression(classes=[0, 1], max_iter=10),
        preprocessing_share=share,
    )


@pytest.mark.parametrize("kind", ["column_transformer", "feature_union"])
@pytest.mark.parametrize("share", [0.5, 0.9])
def test_search_spends_what_ran_with_threaded_private_steps(kind, share):
    # Before: the threads' preprocessing fits escaped recording_only, and the
    # search reported 0.725 (share 0.5) or 0.385 (FeatureUnion, share 0.9) of 1.
    X, y = _data()
    grid = {"dplogisticregression__max_iter": [5, 10]}
    spent = {}
    for n_jobs in (None, 2):
        search = PrivateGridSearchCV(
            _pipeline(kind, n_jobs, share), grid, epsilon=1.0, delta=DELTA
        ).fit(X, y)
        assert search.epsilon_ == pytest.approx(
            search.ledger_.epsilon(DELTA), rel=1e-12
        )
        spent[n_jobs] = (search.epsilon_, len(search.ledger_.entries))
    # The same records; their composition order may differ between threads,
    # which moves the float sum in its last digits.
    assert spent[2][1] == spent[None][1]
    assert spent[2][0] == pytest.approx(spent[None][0], rel=1e-12)
    assert spent[2][0] == pytest.approx(1.0, rel=1e-6)


def test_search_under_a_users_parallel_config_records_every_fit():
    X, y = _data()
    grid = {"dplogisticregression__max_iter": [5, 10]}
    with joblib.parallel_config(n_jobs=2):
        search = PrivateGridSearchCV(
            _pipeline("column_transformer", None, 0.5), grid, epsilon=1.0, delta=DELTA
        ).fit(X, y)
    assert search.epsilon_ == pytest.approx(1.0, rel=1e-6)


def _fit_in_parallel(X, y, n):
    def fit(seed):
        return DPLogisticRegression(
            epsilon=0.3, delta=DELTA, classes=[0, 1], max_iter=5
        ).fit(X, y)

    return joblib.Parallel(n_jobs=2)(joblib.delayed(fit)(i) for i in range(n))


def test_recording_only_reaches_a_users_parallel_threads():
    X, y = _data()
    with PrivacyLedger() as outer:
        with recording_only(PrivacyLedger()) as scratch:
            _fit_in_parallel(X, y, 4)
    # Every fit in scratch, none in the outer ledger (the caller charges it).
    assert len(scratch.entries) == 4
    assert len(outer.entries) == 0


def test_worker_threads_see_the_callers_ledger_stack():
    seen = []

    def probe(i):
        seen.append(active_ledgers())
        return i

    with PrivacyLedger() as outer, PrivacyLedger() as inner:
        joblib.Parallel(n_jobs=2)(joblib.delayed(probe)(i) for i in range(6))
        assert seen and all(stack == (outer, inner) for stack in seen)
        seen.clear()
        with recording_only(PrivacyLedger()) as scratch:
            joblib.Parallel(n_jobs=2)(joblib.delayed(probe)(i) for i in range(6))
        # Not every open ledger (what a thread without a context falls back to).
        assert seen and all(stack == (scratch,) for stack in seen)
    # Outside any ledger, joblib's own default backend runs again.
    assert joblib.parallel.get_active_backend()[0].__class__.__name__ != (
        "LedgerThreadingBackend"
    )


def test_one_ledger_entered_by_many_threads_at_once():
    # Before: every thread's `with` raised "Token ... was created in a different
    # Context" on exit, hiding which fits ran and which were refused.
    X, y = _data(n=200)
    ledger = PrivacyLedger(1.0, DELTA)
    start = threading.Barrier(16)
    outcome = [None] * 16

    def worker(i):
        start.wait()
        try:
            with ledger:
                DPLogisticRegression(
                    epsilon=0.5, delta=DELTA / 4, classes=[0, 1], max_iter=5
                ).fit(X, y)
            outcome[i] = "ran"
        except BudgetExhaustedError:
            outcome[i] = "refused"
        except Exception as exc:  # pragma: no cover - the failure this test catches
            outcome[i] = repr(exc)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert set(outcome) <= {"ran", "refused"}, outcome
    ran = outcome.count("ran")
    assert ran == len(ledger.entries) >= 1
    assert ledger.epsilon(DELTA) <= 1.0
    assert ledger._tokens == {}
    assert active_ledgers() == ()


def test_nested_blocks_in_one_thread_still_unwind_in_order():
    ledger = PrivacyLedger()
    with ledger:
        with ledger:
            assert active_ledgers() == (ledger, ledger)
        assert active_ledgers() == (ledger,)
        ledger.charge((GaussianSteps(5.0),))
    assert active_ledgers() == ()
    assert len(ledger.entries) == 1


def test_a_process_fit_under_recording_only_is_refused_not_lost():
    # recording_only counts as open for the pickling guard: a fit shipped to a
    # loky worker (where no ledger is open) raises before it reads data.
    X, y = _data(n=120)
    est = DPLogisticRegression(epsilon=0.3, delta=DELTA, classes=[0, 1], max_iter=3)
    with recording_only(PrivacyLedger()) as scratch:
        with joblib.parallel_config(backend="loky", n_jobs=2):
            with pytest.raises(UnrecordedFitError, match="could not be recorded"):
                joblib.Parallel()(joblib.delayed(est.fit)(X, y) for _ in range(2))
    assert scratch.entries == ()


def test_epsilon_defaults_to_the_caps_delta():
    capped = PrivacyLedger(1.0, DELTA)
    capped.charge((GaussianSteps(5.0),))
    assert capped.epsilon() == capped.epsilon(DELTA)
    uncapped = PrivacyLedger()
    with pytest.raises(ValueError, match="no cap: give the delta"):
        uncapped.epsilon()
