"""The budget ledger across fits: recording, exact composition, cap, parallelism."""

import pickle
import threading
import warnings

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import common, pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from joblib import Parallel, delayed, parallel_config
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.multioutput import MultiOutputClassifier
from sklearn.preprocessing import Normalizer

import sklearn_dpgd.linear_model._base as linear_model
from sklearn_dpgd import BudgetExhaustedError, DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    PldPrivacyFilter,
    PrivacyLedger,
    _compose_entries,
    calibrate_noise_multipliers,
    compress_ledger,
    gdp_epsilon,
    gdp_mu,
    ledger_epsilon,
    scale_to_budget,
)
from sklearn_dpgd.exceptions import PrivacyLeakError, UnrecordedFitError

DELTA = 1e-6


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=600, n_features=5, random_state=0)
    return Normalizer().fit_transform(X), y


def _model(**params):
    # A declared size and no utility diagnostics: the fits run no count, so their
    # training steps are all they spend.
    return DPLogisticRegression(
        delta=DELTA,
        classes=[0, 1],
        public_n_samples=200,
        utility_diagnostics=False,
        **params,
    )


def _pld_epsilon(events, delta):
    """Independent composition with dp-accounting's PLD accountant."""
    accountant = pld_privacy_accountant.PLDAccountant(
        value_discretization_interval=1e-4
    )
    accountant.compose(dp_accounting.ComposedDpEvent(events))
    return accountant.get_epsilon(delta)


def _fit_events(epsilon, n_steps, n_fits):
    z = calibrate_noise_multipliers(np.ones(n_steps), epsilon, DELTA)[0]
    return [
        dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(z), n_steps)
    ] * n_fits


def test_cross_val_score_spend_is_the_exact_composition(data):
    X, y = data
    ledger = PrivacyLedger()
    with ledger:
        cross_val_score(_model(epsilon=0.5, max_iter=10), X, y, cv=4)
    assert len(ledger.entries) == 4
    assert all(e.source == "DPLogisticRegression" for e in ledger.entries)
    # Four 0.5-calibrated fits compose to 2 mu in GDP, exactly.
    expected = gdp_epsilon(2 * gdp_mu(0.5, DELTA), DELTA)
    assert ledger.epsilon(DELTA) == pytest.approx(expected, rel=1e-9)
    independent = _pld_epsilon(_fit_events(0.5, 10, 4), DELTA)
    assert ledger.epsilon(DELTA) <= independent <= ledger.epsilon(DELTA) * 1.001


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_spend_over_candidates_and_folds(data, n_jobs):
    X, y = data
    grid = {"epsilon": [0.2, 0.4, 0.8], "max_iter": [5, 20]}
    folds = 3
    ledger = PrivacyLedger()
    with ledger:
        search = GridSearchCV(_model(), grid, cv=folds, n_jobs=n_jobs).fit(X, y)
    k = 6
    assert len(ledger.entries) == k * folds + 1  # + the refit
    events = []
    for eps in grid["epsilon"]:
        for t in grid["max_iter"]:
            events += _fit_events(eps, t, folds)
    best = search.best_params_
    events += _fit_events(best["epsilon"], best["max_iter"], 1)
    independent = _pld_epsilon(events, DELTA)
    spent = ledger.epsilon(DELTA)
    assert spent <= independent <= spent * 1.001
    # The recorded steps are exactly those of the fits.
    recorded = sorted(
        (r.noise_multiplier, r.count) for e in ledger.entries for r in e.mechanism
    )
    expected = sorted((float(ev.event.noise_multiplier), ev.count) for ev in events)
    np.testing.assert_allclose(recorded, expected, rtol=1e-12)


def test_fits_in_plain_threads_and_joblib_threads_are_recorded(data):
    X, y = data
    ledger = PrivacyLedger()

    def fit(seed):
        _model(epsilon=0.3, max_iter=5, random_state=seed).fit(X, y)

    with ledger:
        threads = [threading.Thread(target=fit, args=(s,)) for s in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        Parallel(n_jobs=2, backend="threading")(delayed(fit)(s) for s in range(4))
    assert len(ledger.entries) == 7


def test_fit_in_another_process_is_refused_not_lost(data):
    X, y = data
    ledger = PrivacyLedger()
    with ledger, parallel_config(backend="loky"):
        search = GridSearchCV(
            _model(max_iter=5),
            {"epsilon": [0.2, 0.4]},
            cv=2,
            n_jobs=2,
            error_score="raise",
        )
        with pytest.raises(UnrecordedFitError, match="n_jobs=1 or joblib's thread"):
            search.fit(X, y)
    assert len(ledger.entries) == 0


_WORKER_CLONES = {
    "OneVsRestClassifier": lambda clf, X, y: OneVsRestClassifier(clf, n_jobs=2).fit(
        X, np.digitize(X[:, 0], [-0.2, 0.2])
    ),
    "OneVsOneClassifier": lambda clf, X, y: OneVsOneClassifier(clf, n_jobs=2).fit(
        X, np.digitize(X[:, 0], [-0.2, 0.2])
    ),
    "MultiOutputClassifier": lambda clf, X, y: MultiOutputClassifier(clf, n_jobs=2).fit(
        X, np.c_[y, 1 - y]
    ),
}


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("construct", sorted(_WORKER_CLONES))
def test_a_construct_cloning_in_a_loky_worker_is_refused_not_lost(construct, strict):
    # These wrappers clone the estimator inside the worker process: the clone keeps
    # the process guard of the pickle, so its fit is refused there (no ledger is
    # open in the worker) instead of running unrecorded.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    clf = DPLogisticRegression(classes=[0, 1], epsilon=0.5, max_iter=2)
    ledger = PrivacyLedger(strict=strict)
    with pytest.raises((UnrecordedFitError, PrivacyLeakError)):
        with ledger, parallel_config(backend="loky"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _WORKER_CLONES[construct](clf, X, y)
    assert len(ledger.entries) == 0


def test_a_users_own_clone_clears_the_process_guard(data):
    with PrivacyLedger():
        copy = pickle.loads(pickle.dumps(_model(max_iter=5)))
    assert "_sklearn_dpgd_ledger_pid" in copy.__dict__
    assert "_sklearn_dpgd_ledger_pid" not in clone(copy).__dict__


def test_pickle_mark_only_while_a_ledger_is_open(data):
    X, y = data
    clf = _model(epsilon=0.3, max_iter=5)
    assert "_sklearn_dpgd_ledger_pid" not in pickle.loads(pickle.dumps(clf)).__dict__
    ledger = PrivacyLedger()
    with ledger:
        copy = pickle.loads(pickle.dumps(clf))
        copy.fit(X, y)  # same process: recorded, not refused
    assert "_sklearn_dpgd_ledger_pid" in copy.__dict__
    assert len(ledger.entries) == 1


def test_fits_outside_the_block_are_not_recorded(data):
    X, y = data
    ledger = PrivacyLedger()
    with ledger:
        _model(epsilon=0.3, max_iter=5).fit(X, y)
    _model(epsilon=0.3, max_iter=5).fit(X, y)
    assert len(ledger.entries) == 1
    assert ledger.epsilon(DELTA) == pytest.approx(
        gdp_epsilon(gdp_mu(0.3, DELTA), DELTA), rel=1e-9
    )


def test_nested_ledgers_both_record(data):
    X, y = data
    outer, inner = PrivacyLedger(), PrivacyLedger()
    with outer:
        _model(epsilon=0.3, max_iter=5).fit(X, y)
        with inner:
            DPHuberSVM(epsilon=0.3, delta=DELTA, classes=[0, 1], max_iter=5).fit(X, y)
    assert [e.source for e in outer.entries] == [
        "DPLogisticRegression",
        "DPHuberSVM",
    ]
    assert [e.source for e in inner.entries] == ["DPHuberSVM"]


class _NoOracle:
    def __init__(self, *args, **kwargs):
        raise AssertionError("the oracle (the only reader of the data) was built")


def test_cap_refuses_a_fit_before_it_reads_data(data, monkeypatch):
    X, y = data
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    with ledger:
        _model(epsilon=0.7, max_iter=5).fit(X, y)
        before = ledger.entries
        monkeypatch.setattr(linear_model, "PrivateGradientOracle", _NoOracle)
        with pytest.raises(BudgetExhaustedError, match="refused before reading"):
            _model(epsilon=0.7, max_iter=5).fit(X, y)
    assert ledger.entries == before
    # 0.7 then 0.7 would be gdp_epsilon(sqrt(2) mu(0.7)) > 1; a small fit fits.
    assert gdp_epsilon(np.sqrt(2) * gdp_mu(0.7, DELTA), DELTA) > 1.0
    monkeypatch.undo()
    with ledger:
        _model(epsilon=0.2, max_iter=5).fit(X, y)
    assert len(ledger.entries) == 2
    assert ledger.epsilon(DELTA) <= 1.0


def test_cap_refuses_subsampled_fits_too(data):
    X, y = data
    ledger = PrivacyLedger(epsilon=0.5, delta=DELTA)
    with ledger:
        with pytest.raises(BudgetExhaustedError):
            _model(epsilon=0.6, max_iter=5, batch_size=100).fit(X, y)
    assert len(ledger.entries) == 0


def test_subsampled_fits_compose_like_their_concatenated_ledgers(data):
    X, y = data
    ledger = PrivacyLedger()
    fits = []
    with ledger:
        for seed in range(2):
            fits.append(
                _model(epsilon=0.5, max_iter=10, batch_size=100, random_state=seed).fit(
                    X, y
                )
            )
    steps = fits[0].ledger_ + fits[1].ledger_
    assert ledger.epsilon(DELTA) == ledger_epsilon(steps, DELTA, accountant="pld")
    assert ledger.epsilon(DELTA, accountant="pld") == pytest.approx(
        ledger_epsilon(steps, DELTA, accountant="pld")
    )


def test_neighbouring_relations_are_not_mixed(data):
    X, y = data
    ledger = PrivacyLedger()
    with ledger:
        _model(epsilon=0.3, max_iter=5).fit(X, y)
        with pytest.raises(ValueError, match="one neighbouring relation"):
            _model(epsilon=0.3, max_iter=5, neighboring="replace").fit(X, y)
    assert ledger.neighboring == "add_remove" and len(ledger) == 1


@pytest.mark.parametrize(
    "records, mu",
    [
        ([(0.3, 0.0)], 0.5),
        ([(0.2, 0.0), (0.7, 0.0)], 0.2),
        ([(0.1, 1e-7), (0.5, 0.0), (1.2, 0.0)], 1.0),
        ([(0.4, 0.0)], 0.0),
    ],
)
def test_records_and_gaussians_compose_exactly(records, mu):
    entries = [LedgerEntry(EpsilonDeltaRecord(e, d)) for e, d in records]
    if mu:
        entries.append(LedgerEntry((GaussianSteps(2.0 / mu, count=4),)))
    exact = _compose_entries(entries, DELTA, "auto")
    # Independent: dp-accounting's pessimistic PLDs of the same mechanisms.
    pld = pld_lib.from_privacy_parameters(
        common.DifferentialPrivacyParameters(*records[0]),
        value_discretization_interval=1e-4,
    )
    for e, d in records[1:]:
        pld = pld.compose(
            pld_lib.from_privacy_parameters(
                common.DifferentialPrivacyParameters(e, d),
                value_discretization_interval=1e-4,
            )
        )
    if mu:
        pld = pld.compose(
            pld_lib.from_gaussian_mechanism(
                1.0 / mu, value_discretization_interval=1e-4
            )
        )
    independent = pld.get_epsilon_for_delta(DELTA)
    assert exact <= independent + 1e-9
    assert independent - exact < 1e-3
    assert exact == pytest.approx(_compose_entries(entries, DELTA, "pld"), abs=2e-3)


def test_parts_compose_in_parallel():
    ledger = PrivacyLedger()
    train = (GaussianSteps(4.0),)
    ledger.charge(train, part="train")
    ledger.charge(EpsilonDeltaRecord(0.5), part="validation")
    ledger.charge(train)
    both = _compose_entries([LedgerEntry(train), LedgerEntry(train)], DELTA, "auto")
    val = _compose_entries(
        [LedgerEntry(EpsilonDeltaRecord(0.5)), LedgerEntry(train)], DELTA, "auto"
    )
    assert ledger.epsilon(DELTA) == max(both, val)


def test_charge_validation_and_repr():
    with pytest.raises(ValueError, match="both epsilon and delta"):
        PrivacyLedger(epsilon=1.0)
    with pytest.raises(ValueError, match="delta"):
        PrivacyLedger(epsilon=1.0, delta=2.0)
    ledger = PrivacyLedger(epsilon=1.0, delta=DELTA)
    with pytest.raises(TypeError, match="GaussianSteps or an EpsilonDeltaRecord"):
        ledger.charge([1.0])
    with pytest.raises(ValueError, match="neighboring"):
        ledger.charge(EpsilonDeltaRecord(0.1), neighboring="swap")
    with pytest.raises(ValueError, match="epsilon"):
        EpsilonDeltaRecord(-1.0)
    with pytest.raises(ValueError, match=r"delta must be in \[0, 1\)"):
        EpsilonDeltaRecord(1.0, 1.0)
    with pytest.raises(ValueError, match="'rdp' cannot compose|cannot compose"):
        ledger.charge(EpsilonDeltaRecord(0.1))
        ledger.epsilon(DELTA, accountant="rdp")
    assert ledger.epsilon(DELTA) == pytest.approx(0.1, abs=1e-4)
    assert PrivacyLedger().epsilon(DELTA) == 0.0
    assert repr(ledger) == f"PrivacyLedger(epsilon=1.0, delta={DELTA!r}, entries=1)"
    assert len(ledger) == 1


def test_active_ledgers_and_recording_only_are_public_and_scoped(data):
    from sklearn_dpgd.accounting import active_ledgers, recording_only

    X, y = data
    assert active_ledgers() == ()
    with PrivacyLedger() as outer, PrivacyLedger() as inner:
        assert active_ledgers() == (outer, inner)
        scratch = PrivacyLedger()
        with recording_only(scratch) as got:
            assert got is scratch and active_ledgers() == (scratch,)
            DPLogisticRegression(epsilon=0.5, classes=[0, 1]).fit(X, y)
        assert active_ledgers() == (outer, inner)
    assert active_ledgers() == ()
    # The fit inside the block went to the scratch ledger only.
    assert len(scratch.entries) == 1
    assert outer.entries == () and inner.entries == ()
    with pytest.raises(TypeError, match="ledger"):
        with recording_only("not a ledger"):
            pass


def test_ledger_cap_decides_subsampled_steps_with_the_pld():
    # Adult at batch_size=256 calibrated to PLD epsilon 0.4: a cap of 0.41 admits
    # the run (PLD 0.4), which RDP would have put at 0.426 and refused.
    q, delta = 256 / 32561, 1e-8
    f = PldPrivacyFilter(0.4, delta)
    z = scale_to_budget(lambda zz: f.epsilon_with(zz, q), np.full(1000, 3.0), 0.4)
    steps = compress_ledger(z, q)
    assert ledger_epsilon(steps, delta, accountant="rdp") > 0.41
    ledger = PrivacyLedger(epsilon=0.41, delta=delta)
    ledger.charge(steps, source="minibatch plan")
    assert ledger.epsilon(delta) == pytest.approx(0.4, rel=1e-3)
    with pytest.raises(BudgetExhaustedError, match="cap"):
        ledger.charge(compress_ledger([50.0], 1.0), source="one more step")
