"""The shared machinery of the private searches: the coin split of the rows, the
checks that every fit is a recorded full-batch Gaussian mechanism, and the shared
stages (candidate fits on the train part, the charged comparison)."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    PrivacyLedger,
)
from sklearn_dpgd.exceptions import PrivacyLeakWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.model_selection._search_base import (
    _coin_split,
    _gdp_refusal,
    _recorded_mu,
    _SearchSeeds,
)


def test_coin_split_is_per_row_and_ignores_n():
    seed = np.random.SeedSequence(7)
    train, val = _coin_split(1001, 0.3, seed)
    side = np.zeros(1001, bool)
    side[val] = True
    assert np.array_equal(np.sort(np.concatenate([train, val])), np.arange(1001))
    for n in (1, 2, 17, 500, 1000):
        tr, va = _coin_split(n, 0.3, seed)
        # The first n rows keep their side whatever the number of rows.
        np.testing.assert_array_equal(va, np.flatnonzero(side[:n]))
        np.testing.assert_array_equal(tr, np.flatnonzero(~side[:n]))
    # A public probability: about 30% of the rows in validation.
    assert abs(val.shape[0] / 1001 - 0.3) < 0.05


def test_gdp_refusal_asks_the_estimator_or_refuses():
    assert _gdp_refusal(DPLogisticRegression()) is None
    assert "snowball" in _gdp_refusal(DPLogisticRegression(solver="snowball"))
    assert "_gdp_ledger_refusal" in _gdp_refusal(LogisticRegression())


def test_recorded_mu_adds_mu_squared_and_refuses_anything_else():
    steps = (GaussianSteps(2.0, count=3), GaussianSteps(1.0))
    mu = _recorded_mu([LedgerEntry(steps), LedgerEntry((GaussianSteps(4.0),))], "e")
    assert mu == pytest.approx(math.sqrt(3 / 4 + 1 + 1 / 16), rel=1e-15)
    for entries in (
        [],
        # An (epsilon, delta) record, alone or beside steps: not a Gaussian step.
        [LedgerEntry(EpsilonDeltaRecord(1.0))],
        [LedgerEntry((GaussianSteps(1.0),)), LedgerEntry(EpsilonDeltaRecord(0.1))],
        [LedgerEntry((GaussianSteps(1.0, sampling_rate=0.1),))],
    ):
        with pytest.raises(RuntimeError, match="releases nothing"):
            _recorded_mu(entries, "e")


class _Constant:
    """A fitted model predicting one label; notes the ledger when it is read."""

    def __init__(self, label, ledger, seen):
        self.label, self.ledger, self.seen = label, ledger, seen

    def predict(self, X):
        self.seen.append(len(self.ledger.entries))
        return np.full(len(X), self.label)


def test_private_selection_charges_before_it_reads_the_validation_rows():
    search = PrivateGridSearchCV(DPLogisticRegression())
    search.ledger_ = PrivacyLedger()
    seen = []
    models = [_Constant(label, search.ledger_, seen) for label in (0, 1, 0)]
    y_val = np.array([1, 1, 1, 0])
    rng = np.random.default_rng(0)
    best = search._private_selection(
        models, np.zeros((4, 1)), y_val, 1e6, "add_remove", rng
    )
    # Three correct for the model predicting 1; Gumbel noise of scale 1e-6.
    assert best == 1
    # Every prediction ran after the comparison was charged, on validation.
    assert seen == [1, 1, 1]
    (entry,) = search.ledger_.entries
    assert entry.mechanism == EpsilonDeltaRecord(1e6)
    assert (entry.source, entry.part) == ("report-noisy-max", "validation")


def test_fit_candidates_records_each_fit_on_the_train_part_with_its_own_seed():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2)) / 3
    y = (X[:, 0] > 0).astype(int)
    search = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1], max_iter=3), random_state=0
    )
    search.ledger_ = PrivacyLedger()
    with pytest.warns(PrivacyLeakWarning):
        seeds = _SearchSeeds(search)
    models = search._fit_candidates([{}, {}], X, y, 1.0, seeds, 200)
    assert len(models) == 2
    assert [e.part for e in search.ledger_.entries] == ["train", "train"]
    # Distinct spawned seeds: the two identical candidates draw different noise.
    assert not np.array_equal(models[0].coef_, models[1].coef_)
