"""The shared machinery of the private searches: the coin split of the rows and the
checks that every fit is a recorded full-batch Gaussian mechanism."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._search_base import _coin_split, _gdp_refusal, _recorded_mu
from sklearn_dpgd.accounting import EpsilonDeltaRecord, GaussianSteps, LedgerEntry


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
