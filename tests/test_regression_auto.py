"""``solver="auto"`` of DPLinearRegression and DPHuberRegressor (issue 42, item 3).

What is new: the private count of the rows longer than 1 (its sensitivity under
both neighbouring relations, its share of the budget, its place before the
rows are read), the rule that reads it, and the composition of the count with
the solver it picks.
"""

import itertools
import math
import pickle
import warnings

import dp_accounting
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_regression
from sklearn.preprocessing import Normalizer

import sklearn_dpgd.linear_model._pgd as pgd_module
import sklearn_dpgd.linear_model._regression_auto as auto_module
from sklearn_dpgd import BudgetExhaustedError, DPHuberRegressor, DPLinearRegression
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd.accounting import GaussianSteps, PrivacyLedger, gdp_mu
from sklearn_dpgd.audit import audit
from sklearn_dpgd.linear_model._regression_auto import (
    LONG_ROW_MIN_SIGNAL,
    LONG_ROW_SHARE,
    MAX_LONG_ROW_FRACTION,
    MIN_WIDTH_UNIT,
    auto_regression_solver,
    long_row_noise_multiplier,
    noisy_long_row_count,
    width_unit,
)

DELTA = 1e-6
EPSILON = 4.0  # mu = 0.84: mu m >= LONG_ROW_MIN_SIGNAL from 3,375 rows
N_ROWS = 4000


class _Normals:
    """A generator whose standard normals are all ``value``."""

    def __init__(self, value):
        self.value = value

    def standard_normal(self, size=None):
        return self.value if size is None else np.full(size, float(self.value))


def _count(X):
    """The released count without noise: the mechanism's query."""
    return noisy_long_row_count(np.asarray(X, dtype=float), 1.0, _Normals(0.0))


# ---------------------------------------------------- the count's sensitivity

# Rows of norm 0, 1 (not long: Normalizer's output), just above 1, and 3.
POOL = np.array([[0.0, 0.0], [0.6, 0.8], [0.6, 0.8 + 1e-5], [3.0, 0.0]])
BASE = np.array([[1.0, 0.0], [2.0, 2.0], [0.3, 0.4]])


def test_long_row_count_counts_rows_beyond_one_and_its_noise_is_z():
    assert _count(POOL) == 2.0  # norm 1 is not long; 1 + 8e-6 is
    z = long_row_noise_multiplier(0.5)
    assert noisy_long_row_count(POOL, z, _Normals(1.0)) == pytest.approx(2.0 + z)
    # The count's share of the fit's mu^2: z^-2 = LONG_ROW_SHARE mu^2.
    assert z**-2 == pytest.approx(LONG_ROW_SHARE * 0.5**2)


def _add_remove_moves():
    return [abs(_count(np.vstack([BASE, row])) - _count(BASE)) for row in POOL]


def _replace_moves():
    moves = []
    for i, row in itertools.product(range(len(BASE)), np.vstack([BASE, POOL])):
        other = BASE.copy()
        other[i] = row
        moves.append(abs(_count(other) - _count(BASE)))
    return moves


def test_long_row_count_sensitivity_is_one_under_add_remove():
    # Every pair D, D + row: the count moves by 0 or 1, and by 1 for a long row.
    assert _add_remove_moves() == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("moves", [_add_remove_moves, _replace_moves])
def test_long_row_count_noise_is_calibrated_to_the_worst_pair(moves):
    # Under replace-one too the count moves by at most 1 (the old row leaves
    # the count or not, the new one enters it or not): not 2, as a sum of
    # per-row terms would. The release's noise std is z times that bound, so
    # a query of sensitivity 2 (or noise of z / 2) fails here.
    worst = max(moves())
    assert worst == 1.0
    z = long_row_noise_multiplier(gdp_mu(1.0, DELTA))
    one_std = noisy_long_row_count(BASE, z, _Normals(1.0)) - _count(BASE)
    assert one_std == pytest.approx(z * worst)


# ------------------------------------------------------------------- the rule


def test_the_rule_reads_released_values_only():
    mu = 1.0
    m = math.ceil(LONG_ROW_MIN_SIGNAL / mu)
    assert auto_regression_solver(mu, m, 0.0) == "pgd"
    assert auto_regression_solver(mu, m, MAX_LONG_ROW_FRACTION * m) == "pgd"
    assert auto_regression_solver(mu, m, MAX_LONG_ROW_FRACTION * m + 1e-9) == "gd"
    assert auto_regression_solver(mu, m - 1, 0.0) == "gd"  # the count cannot decide
    assert auto_regression_solver(mu, 10**6, None) == "gd"
    assert auto_regression_solver(mu, m, 0.0, MIN_WIDTH_UNIT) == "pgd"
    assert auto_regression_solver(mu, m, 0.0, 0.999 * MIN_WIDTH_UNIT) == "gd"
    # The signal threshold: the count's noise std is half the tolerated rows.
    z = long_row_noise_multiplier(mu)
    assert MAX_LONG_ROW_FRACTION * LONG_ROW_MIN_SIGNAL / mu == pytest.approx(2 * z)


def test_width_unit_is_the_budget_for_the_width():
    # mu m / (s w^1.5): replace-one doubles the Gram's noise, so halves it.
    assert width_unit(2.0, 1000, 24, True, "add_remove") == pytest.approx(16.0)
    assert width_unit(2.0, 1000, 24, True, "replace") == pytest.approx(8.0)
    assert width_unit(2.0, 1000, 25, False, "add_remove") == pytest.approx(16.0)


def test_wide_tables_need_the_budget_for_their_width():
    # 151 columns, 3,400 rows at epsilon 4: mu m / w^1.5 = 1.54 under
    # add/remove ("pgd"), 0.77 under replace-one: "gd" without the count.
    rng = np.random.default_rng(3)
    X = Normalizer().fit_transform(rng.normal(size=(3400, 150)))
    y = X[:, :10].sum(axis=1) + 0.1 * rng.normal(size=3400)
    kwargs = dict(y_bounds=(-5, 5), public_n_samples=3400)
    assert _fit(_model(**kwargs), X, y).solver_ == "pgd"
    wide = _fit(_model(neighboring="replace", **kwargs), X, y)
    gd = _fit(_model(neighboring="replace", solver="gd", **kwargs), X, y)
    assert wide.solver_ == "gd" and wide.ledger_ == gd.ledger_
    np.testing.assert_array_equal(wide.coef_, gd.coef_)


@pytest.fixture(scope="module")
def data():
    X, y = make_regression(
        n_samples=N_ROWS, n_features=5, n_informative=4, noise=5.0, random_state=0
    )
    return Normalizer().fit_transform(X), y


def _model(Regressor=DPLinearRegression, **kwargs):
    params = dict(epsilon=EPSILON, delta=DELTA, y_bounds=(-300, 300), random_state=0)
    return Regressor(**{**params, **kwargs})


def _fit(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y, **kwargs)


def _multipliers(reg):
    return np.concatenate([np.full(r.count, r.noise_multiplier) for r in reg.ledger_])


@pytest.mark.parametrize("Regressor", [DPLinearRegression, DPHuberRegressor])
def test_default_is_auto_pgd_on_unit_rows_and_gd_on_rows_of_norm_two(data, Regressor):
    X, y = data
    assert Regressor().get_params()["solver"] == "auto"
    fast = _fit(_model(Regressor, public_n_samples=N_ROWS), X, y)
    assert fast.solver_ == "pgd" and fast.schedule_ is None
    slow = _fit(_model(Regressor, public_n_samples=N_ROWS), 2.0 * X, y)
    assert slow.solver_ == "gd" and slow.n_iter_ > 100
    # Too few rows for the count to decide: no count, solver="gd" bit for bit.
    small = _fit(_model(Regressor, epsilon=1.0), X[:500], y[:500])
    gd = _fit(_model(Regressor, epsilon=1.0, solver="gd"), X[:500], y[:500])
    assert small.solver_ == "gd" and small.ledger_ == gd.ledger_
    np.testing.assert_array_equal(small.coef_, gd.coef_)
    # Public settings that rule "pgd" out run "gd" without the count.
    for kwargs, fit_kwargs in [
        (dict(max_iter=30), {}),
        ({}, dict(sample_weight=np.ones(N_ROWS))),
    ]:
        reg = _fit(
            _model(Regressor, public_n_samples=N_ROWS, **kwargs), X, y, **fit_kwargs
        )
        assert reg.solver_ == "gd" and reg.ledger_[0].noise_multiplier > 1.0
    sparse = _fit(_model(Regressor, public_n_samples=N_ROWS), sp.csr_matrix(X), y)
    assert sparse.solver_ == "gd"
    # Normalizer's float32 rows (norms up to 1 + 1.2e-7) are within norm 1.
    single = Normalizer().fit_transform(X.astype(np.float32))
    assert np.any(np.linalg.norm(single.astype(float), axis=1) > 1 + 1e-9)
    fast32 = _fit(_model(Regressor, public_n_samples=N_ROWS), single, y)
    assert fast32.solver_ == "pgd" and fast32.coef_.dtype == np.float32


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
@pytest.mark.parametrize("scale", [1.0, 2.0])  # "pgd", then "gd" on the remainder
@pytest.mark.parametrize("public", [True, False])
def test_the_count_composes_exactly_with_the_solver(data, neighboring, scale, public):
    X, y = data
    reg = _fit(
        _model(neighboring=neighboring,
               public_n_samples=N_ROWS if public else None),
        scale * X, y,
    )  # fmt: skip
    assert reg.solver_ == ("pgd" if scale == 1.0 else "gd")
    mu = gdp_mu(EPSILON, DELTA)
    z = _multipliers(reg)
    # First record: the long-row count, composed with the row count when the
    # size is estimated (add/remove without public_n_samples).
    first = LONG_ROW_SHARE * mu**2
    if neighboring == "add_remove" and not public:
        first += count_noise_multiplier(mu) ** -2
    assert z[0] ** -2 == pytest.approx(first, rel=1e-12)
    assert all(isinstance(r, GaussianSteps) for r in reg.ledger_)
    spent = math.sqrt(np.sum(z**-2.0))
    assert spent <= mu * (1 + 1e-12)
    assert spent == pytest.approx(mu, rel=1e-6)
    # The solver was chosen after a release: the cap is reported.
    assert reg.epsilon_ == pytest.approx(EPSILON, rel=1e-9) and reg.epsilon_ <= EPSILON
    # An independent accountant over the recorded releases.
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(
        dp_accounting.ComposedDpEvent(
            [
                dp_accounting.SelfComposedDpEvent(
                    dp_accounting.GaussianDpEvent(r.noise_multiplier), r.count
                )
                for r in reg.ledger_
            ]
        )
    )
    assert accountant.get_epsilon(DELTA) == pytest.approx(EPSILON, rel=3e-3)


def test_without_the_counts_share_the_solvers_would_overspend(data):
    # A missing share fails: the training alone spends what the count left.
    X, y = data
    reg = _fit(_model(public_n_samples=N_ROWS), X, y)
    z = _multipliers(reg)
    mu = gdp_mu(EPSILON, DELTA)
    assert np.sum(z[1:] ** -2.0) == pytest.approx((1 - LONG_ROW_SHARE) * mu**2)


# ----------------------------------------------------- charged before reading


def test_ledger_is_charged_before_the_count_reads_a_row(data, monkeypatch):
    X, y = data
    ledger = PrivacyLedger(epsilon=5.5, delta=DELTA)  # one fit, not two
    read = []
    norms = auto_module._row_norms

    def _spy(rows):
        read.append(len(ledger.entries))
        return norms(rows)

    monkeypatch.setattr(auto_module, "_row_norms", _spy)
    with ledger:
        _fit(_model(public_n_samples=N_ROWS), X, y)
        assert read == [1]  # the fit's whole charge came first

        def _refuse(rows):
            raise AssertionError("the rows were read")

        monkeypatch.setattr(auto_module, "_row_norms", _refuse)
        monkeypatch.setattr(pgd_module, "PrivateNewtonOracle", None)
        with pytest.raises(BudgetExhaustedError, match="refused before reading"):
            _fit(_model(public_n_samples=N_ROWS), X, y)
    assert len(ledger.entries) == 1


# ----------------------------------------------------- inputs and machinery


def test_dask_matches_numpy(data):
    da = pytest.importorskip("dask.array")
    X, y = data
    X = X.copy()
    X[:80] *= 3.0  # 2% long rows: "gd" on the count's remainder
    for rows in (X, Normalizer().fit_transform(X)):
        numpy_fit = _fit(_model(public_n_samples=N_ROWS), rows, y)
        chunks = (1500, 1500, 1000)
        dask_fit = _fit(
            _model(public_n_samples=N_ROWS),
            da.from_array(rows, chunks=(chunks, 5)),
            da.from_array(y, chunks=(chunks,)),
        )
        assert dask_fit.solver_ == numpy_fit.solver_
        np.testing.assert_allclose(
            dask_fit.coef_, numpy_fit.coef_, rtol=1e-6, atol=1e-6
        )
        assert dask_fit.ledger_ == numpy_fit.ledger_
    assert {numpy_fit.solver_, dask_fit.solver_} == {"pgd"}


def test_secure_mode_pickling_clone_and_verbose(data, capsys):
    X, y = data
    secure = _fit(_model(secure_mode=True, public_n_samples=N_ROWS), X, y)
    assert secure.solver_ == "pgd" and np.all(np.isfinite(secure.coef_))
    restored = pickle.loads(pickle.dumps(secure))
    np.testing.assert_array_equal(restored.predict(X), secure.predict(X))
    assert restored.solver_ == "pgd"
    assert clone(secure).get_params()["solver"] == "auto"
    _fit(_model(verbose=1, public_n_samples=N_ROWS), X, y)
    assert "noisy count of rows of norm > 1" in capsys.readouterr().out
    # A regressor pickled before ``solver`` existed reads "gd", as it was fitted.
    old = pickle.loads(pickle.dumps(_model()))
    del old.__dict__["solver"]
    assert old.get_params()["solver"] == "gd"


def test_audit_does_not_refute_the_claim():
    # The package's empirical audit (a canary row, 300 fits per world) on the
    # default solver with the count running (mu m >= LONG_ROW_MIN_SIGNAL at the
    # declared size): the lower bound on mu must stay below the claim.
    rng = np.random.default_rng(0)
    X = Normalizer().fit_transform(rng.normal(size=(60, 3)))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=60)
    estimator = _model(
        epsilon=12.0, delta=1e-5, y_bounds=(-10, 10), public_n_samples=2000,
        utility_diagnostics=False,
    )  # fmt: skip
    assert gdp_mu(12.0, 1e-5) * 2000 >= LONG_ROW_MIN_SIGNAL
    assert _fit(clone(estimator), X, y).solver_ == "pgd"
    result = audit(estimator, X, y, n_trials=300, confidence=0.999, progress=False)
    assert result.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    assert result.mu_lower <= result.mu_claimed
    assert result.epsilon_lower <= result.epsilon_claimed
