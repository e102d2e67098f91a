"""Privacy checks shared by the solvers' test modules, and their scaffolding."""

import math

import numpy as np
import pytest

from sklearn_dpgd.accounting import PrivacyLedger, gdp_epsilon, gdp_mu
from sklearn_dpgd.exceptions import BudgetExhaustedError

DELTA = 1e-6
# Three rows of norm below 1, the neighbouring pairs' common part (a row is added
# or replaced).
BASE = np.array([[0.3, -0.4, 0.1], [0.0, 0.5, 0.5], [-0.6, 0.0, 0.2]])


class _Filter:
    """Records what is charged; charges nothing."""

    def __init__(self):
        self.records = []

    def charge(self, record):
        self.records.append(record)


class _ConstantNormals:
    """A generator whose standard normals are all ``value``."""

    def __init__(self, value):
        self.value = value

    def standard_normal(self, size):
        return np.full(size, float(self.value))


def assert_refused_before_the_oracle(fit, module, monkeypatch, delta, epsilon=0.7):
    """A capped ledger refuses a fit before its oracle, the only reader, is built.

    ``fit(epsilon)`` fits a model of that budget on the test's data; ``module`` is
    where the solver looks ``PrivateNewtonOracle`` up. A ledger capped at
    ``(1, delta)`` admits one fit at ``epsilon`` and must refuse the second, which
    would overspend, without building the oracle or recording anything.
    """

    class _NoOracle:
        def __init__(self, *args, **kwargs):
            raise AssertionError("the oracle (the only reader of the data) was built")

    ledger = PrivacyLedger(epsilon=1.0, delta=delta)
    with ledger:
        fit(epsilon)
        before = ledger.entries
        monkeypatch.setattr(module, "PrivateNewtonOracle", _NoOracle)
        with pytest.raises(BudgetExhaustedError, match="refused before reading"):
            fit(epsilon)
    assert ledger.entries == before
    # The second fit must be one that overspends: two of them exceed the cap.
    assert gdp_epsilon(math.sqrt(2) * gdp_mu(epsilon, delta), delta) > 1.0
