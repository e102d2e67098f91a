"""``solver="pgd"`` of DPLinearRegression and DPHuberRegressor (issue 42, item 3).

The rows' Gram release is the classifiers' (its worst-case pairs are in
tests/test_pgd.py: the target does not enter it); what is new is the gradient
of the squared and Huber losses of the scaled target, its bound under both
neighbouring relations, the curvature factor 1 of the preconditioner, the
regressors' plan (:data:`~sklearn_dpgd._solvers.pgd.PGD_PLANS`) and the
refusals.
"""

import math
import pickle
import warnings

import dp_accounting
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_regression
from sklearn.linear_model import LinearRegression
from sklearn.preprocessing import Normalizer
from sklearn.utils._param_validation import InvalidParameterError

import sklearn_dpgd.linear_model._pgd as pgd_module
from sklearn_dpgd import BudgetExhaustedError, DPHuberRegressor, DPLinearRegression
from sklearn_dpgd._engine._oracle import PrivateNewtonOracle, gram_sensitivity
from sklearn_dpgd._solvers.pgd import PGD_CURVATURE, PGD_PLANS, pgd_damping
from sklearn_dpgd.accounting import GaussianSteps, gdp_mu
from sklearn_dpgd.audit import audit
from sklearn_dpgd.exceptions import UtilityWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.schedules import UniformSchedule

from ._privacy_checks import (
    BASE,
    DELTA,
    _ConstantNormals,
    _Filter,
    assert_refused_before_the_oracle,
)

TARGET = np.array([0.2, -0.5, 0.9])
STEPS, GRAM_SHARE, KAPPA, CLIP = PGD_PLANS["squared"]


def _sum(X, y, clip, *, loss="squared", h=0.25, factor=1.0, noise=0.0, m=10):
    """The released gradient sum at theta = 0 (margins 0: residual -y)."""
    oracle = PrivateNewtonOracle(
        np.asarray(X, dtype=float), np.asarray(y, dtype=float), row_clip=1.0,
        sensitivity_factor=factor, fit_intercept=True, privacy_filter=_Filter(),
        rng=_ConstantNormals(noise), public_n_samples=m, loss=loss, huber_width=h,
    )  # fmt: skip
    return oracle.noisy_gradient(np.zeros(4), 1.0, clip) * m


# ------------------------------------------------------- the gradient's bound


@pytest.mark.parametrize("clip", [0.3, 0.5])
def test_squared_gradient_worst_pairs(clip):
    # A unit row (x~ = [e_1, 1], norm sqrt(2)) with target 1: residual -1, a
    # gradient of norm sqrt(2) > clip, clipped to exactly clip. Given at 5 times
    # the row clip, the oracle scales the row back first.
    row = np.array([[5.0, 0.0, 0.0]])
    D = _sum(BASE, TARGET, clip)
    added = _sum(np.vstack([BASE, row]), np.append(TARGET, 1.0), clip)
    assert np.linalg.norm(added - D) == pytest.approx(clip, rel=1e-12)
    # Replace-one: the same row with the opposite target moves the sum by
    # twice that, beyond what a factor-1 noise covers.
    flipped = _sum(np.vstack([BASE, row]), np.append(TARGET, -1.0), clip)
    assert np.linalg.norm(added - flipped) == pytest.approx(2 * clip, rel=1e-12)
    for factor in (1.0, 2.0):
        noisy = _sum(BASE, TARGET, clip, factor=factor, noise=1.0)
        np.testing.assert_allclose(noisy - D, factor * clip, rtol=1e-12)


def test_huber_gradient_is_bounded_by_the_threshold_without_a_clip():
    # Residual -1 is cut to -h: the row's gradient has norm h sqrt(2), the
    # bound the noise is calibrated to when no gradient_clip is given.
    h, row = 0.25, np.array([[1.0, 0.0, 0.0]])
    D = _sum(BASE, TARGET, None, loss="huber", h=h)
    added = _sum(np.vstack([BASE, row]), np.append(TARGET, 1.0), None, loss="huber")
    flipped = _sum(np.vstack([BASE, row]), np.append(TARGET, -1.0), None, loss="huber")
    bound = h * math.sqrt(2.0)
    assert np.linalg.norm(added - D) == pytest.approx(bound, rel=1e-12)
    assert np.linalg.norm(added - flipped) == pytest.approx(2 * bound, rel=1e-12)
    for factor in (1.0, 2.0):
        noisy = _sum(BASE, TARGET, None, loss="huber", factor=factor, noise=1.0)
        np.testing.assert_allclose(noisy - D, factor * bound, rtol=1e-12)
    # A clip below the threshold's bound takes over.
    noisy = _sum(BASE, TARGET, 0.1, loss="huber", noise=1.0)
    np.testing.assert_allclose(noisy - _sum(BASE, TARGET, 0.1, loss="huber"), 0.1)


def test_squared_gradient_matches_the_residuals_and_needs_a_clip():
    # Unclipped (a large clip), the sum is X~^T (X~ theta - y) at theta = 0.
    Xt = np.hstack([BASE, np.ones((3, 1))])
    np.testing.assert_allclose(_sum(BASE, TARGET, 100.0), -Xt.T @ TARGET)
    oracle = PrivateNewtonOracle(
        BASE, TARGET, row_clip=1.0, sensitivity_factor=1.0, fit_intercept=True,
        privacy_filter=_Filter(), rng=_ConstantNormals(0), public_n_samples=3,
        loss="squared",
    )  # fmt: skip
    with pytest.raises(ValueError, match="needs a gradient_clip"):
        oracle.noisy_gradient(np.zeros(4), 1.0)
    assert oracle.privacy_filter.records == []  # refused before the charge
    with pytest.raises(ValueError, match="needs n_outputs=1"):
        PrivateNewtonOracle(
            BASE, TARGET, row_clip=1.0, sensitivity_factor=1.0, fit_intercept=True,
            privacy_filter=_Filter(), rng=_ConstantNormals(0), public_n_samples=3,
            loss="squared", n_outputs=3,
        )  # fmt: skip


def test_gradient_charges_before_it_reads():
    class _Refusing:
        def charge(self, record):
            raise BudgetExhaustedError("refused")

    oracle = PrivateNewtonOracle(
        BASE, TARGET, row_clip=1.0, sensitivity_factor=1.0, fit_intercept=True,
        privacy_filter=_Refusing(), rng=_ConstantNormals(0), public_n_samples=3,
        loss="squared",
    )  # fmt: skip

    def _read(*args):
        raise AssertionError("the rows were read")

    oracle._rows.gradient_sum = _read
    with pytest.raises(BudgetExhaustedError):
        oracle.noisy_gradient(np.zeros(4), 1.0, 0.5)


# ----------------------------------------------------------- fits, accounting


@pytest.fixture(scope="module")
def data():
    X, y = make_regression(
        n_samples=800, n_features=5, n_informative=4, noise=5.0, random_state=0
    )
    return Normalizer().fit_transform(X), y


def _model(Regressor=DPLinearRegression, **kwargs):
    params = dict(
        solver="pgd", epsilon=1.0, delta=DELTA, y_bounds=(-300, 300), random_state=0
    )
    return Regressor(**{**params, **kwargs})


def _fit(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y, **kwargs)


@pytest.mark.parametrize("Regressor", [DPLinearRegression, DPHuberRegressor])
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
@pytest.mark.parametrize("epsilon", [0.3, 4.0])
def test_recorded_releases_compose_to_the_budget(data, Regressor, neighboring, epsilon):
    X, y = data
    reg = _fit(
        _model(Regressor, epsilon=epsilon, neighboring=neighboring,
               public_n_samples=len(y)),
        X, y,
    )  # fmt: skip
    assert reg.solver_ == "pgd" and reg.n_iter_ == STEPS
    assert all(isinstance(r, GaussianSteps) for r in reg.ledger_)
    z = np.concatenate([np.full(r.count, r.noise_multiplier) for r in reg.ledger_])
    # The Gram, T gradients, the residual check (regressors count no rows).
    assert len(z) == STEPS + 2
    np.testing.assert_allclose(reg.noise_multipliers_, z[: STEPS + 1])
    assert z[0] ** -2 == pytest.approx(GRAM_SHARE * (np.sum(z[:-1] ** -2.0)))
    mu = math.sqrt(np.sum(z**-2.0))
    assert mu == pytest.approx(gdp_mu(epsilon, DELTA), rel=1e-8)
    assert mu <= gdp_mu(epsilon, DELTA)
    assert reg.epsilon_ == pytest.approx(epsilon, rel=1e-7)
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(
        dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(s) for s in z])
    )
    assert accountant.get_epsilon(DELTA) == pytest.approx(epsilon, rel=2e-3)
    assert reg.clip_norm_ == CLIP
    # The damping: the public rule with the squared loss's curvature 1.
    factor = 2.0 if neighboring == "replace" else 1.0
    std = z[0] * gram_sensitivity(1.0, True, factor) / len(y)
    assert PGD_CURVATURE[Regressor._loss] == 1.0
    assert reg.preconditioner_damping_ == pytest.approx(
        pgd_damping(std, X.shape[1] + 1, KAPPA, 1.0)
    )
    assert reg.preconditioner_damping_ == pytest.approx(
        4.0 * pgd_damping(std, X.shape[1] + 1, KAPPA)  # the logistic's c = 1/4
    )


def test_noisy_count_fits_in_the_budget_and_clip_is_the_parameter(data):
    X, y = data
    reg = _fit(_model(), X, y)  # add/remove without a public size: a noisy count
    spent = math.sqrt(sum(r.count / r.noise_multiplier**2 for r in reg.ledger_))
    assert spent <= reg.mu_ * (1 + 1e-12)
    assert reg.mu_ == pytest.approx(gdp_mu(1.0, DELTA))
    assert reg.epsilon_ <= 1.0
    assert _fit(_model(clip_norm=0.3), X, y).clip_norm_ == 0.3
    assert _fit(_model(max_iter=7), X, y).n_iter_ == 7


def test_ledger_refuses_before_the_oracle_is_built(data, monkeypatch):
    X, y = data
    assert_refused_before_the_oracle(
        lambda epsilon: _fit(_model(epsilon=epsilon), X, y), pgd_module, monkeypatch, DELTA
    )


@pytest.mark.parametrize(
    "kwargs, fit_kwargs, match",
    [
        (dict(batch_size=10), {}, "plans its own iterations"),
        (dict(schedule=UniformSchedule()), {}, "plans its own iterations"),
        ({}, dict(sample_weight=np.ones(800)), "does not support sample_weight"),
    ],
)
def test_refusals_name_the_solver(data, kwargs, fit_kwargs, match):
    X, y = data
    with pytest.raises(ValueError, match=f"solver='pgd' {match}"):
        _fit(_model(**kwargs), X, y, **fit_kwargs)
    with pytest.raises(InvalidParameterError, match="solver"):
        _fit(_model(solver="newton"), X, y)


def test_private_search_refuses_pgd_before_any_fit(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(pgd_module, "PrivateNewtonOracle", None)  # never built
    search = PrivateGridSearchCV(
        DPLinearRegression(y_bounds=(-300, 300), max_iter=5),
        param_grid={"solver": ["gd", "pgd"]},
        epsilon=1.0,
        delta=DELTA,
    )
    with pytest.raises(ValueError, match="solver='pgd' is accounted by its own"):
        _fit(search, X, y)


# ------------------------------------------------------ inputs and accuracy


def test_dask_matches_numpy():
    da = pytest.importorskip("dask.array")
    X, y = make_regression(n_samples=700, n_features=4, noise=3.0, random_state=1)
    X = Normalizer().fit_transform(X)
    X[0] *= 3.0  # one row beyond the clip
    params = dict(epsilon=2.0, public_n_samples=700)
    numpy_fit = _fit(_model(**params), X, y)
    chunks = (300, 250, 150)
    dask_fit = _fit(
        _model(**params),
        da.from_array(X, chunks=(chunks, 4)),
        da.from_array(y, chunks=(chunks,)),
    )
    np.testing.assert_allclose(dask_fit.coef_, numpy_fit.coef_, rtol=1e-7, atol=1e-7)
    assert dask_fit.intercept_ == pytest.approx(numpy_fit.intercept_, abs=1e-7)
    assert dask_fit.ledger_ == numpy_fit.ledger_


def test_sparse_float32_secure_reproducible_and_pickled(data):
    X, y = data
    dense = _fit(_model(), X, y)
    np.testing.assert_array_equal(dense.coef_, _fit(_model(), X, y).coef_)
    np.testing.assert_array_equal(
        dense.coef_, _fit(_model(), sp.csr_matrix(X), y).coef_
    )
    single = _fit(_model(), X.astype(np.float32), y)
    assert single.coef_.dtype == np.float32
    np.testing.assert_allclose(single.coef_, dense.coef_, rtol=1e-3, atol=1e-2)
    secure = _fit(_model(secure_mode=True), X, y)
    assert np.all(np.isfinite(secure.coef_)) and secure.delta_ > DELTA
    restored = pickle.loads(pickle.dumps(dense))
    np.testing.assert_array_equal(restored.predict(X), dense.predict(X))
    assert clone(dense).get_params()["solver"] == "pgd"
    # A regressor pickled before the parameter existed has no "solver" in its
    # state: it reads "gd", and clones and refits as before.
    old = pickle.loads(pickle.dumps(_model(solver="gd")))
    del old.__dict__["solver"]
    assert old.get_params()["solver"] == "gd"
    assert _fit(clone(old), X, y).solver_ == "gd"


@pytest.mark.parametrize("Regressor", [DPLinearRegression, DPHuberRegressor])
def test_close_to_ols_at_a_large_budget(Regressor):
    X, y = make_regression(
        n_samples=4000, n_features=4, n_informative=4, noise=10.0, random_state=2
    )
    X = Normalizer().fit_transform(X)
    bounds = (-400, 400)
    ols = LinearRegression().fit(X, y).score(X, y)
    reg = _fit(
        _model(Regressor, epsilon=4.0, y_bounds=bounds, public_n_samples=4000), X, y
    )
    gd = _fit(
        _model(Regressor, solver="gd", epsilon=4.0, y_bounds=bounds,
               public_n_samples=4000),
        X, y,
    )  # fmt: skip
    assert reg.score(X, y) > ols - 0.02
    assert reg.score(X, y) > gd.score(X, y) - 0.005


def test_no_intercept_warm_start_and_verbose(data, capsys):
    X, y = data
    plain = _fit(_model(fit_intercept=False, verbose=1), X, y)
    assert plain.intercept_ == 0.0
    assert f"step {STEPS}/{STEPS}" in capsys.readouterr().out
    warm = _fit(_model(fit_intercept=False), X, y, coef_init=plain.coef_)
    assert warm.coef_.shape == plain.coef_.shape


def test_utility_check_runs_after_the_steps():
    # y_bounds 10,000 times wider than the target: the noisy residual check
    # (the last release of the ledger; noise std about 5 against a margin of
    # 200 here) names it; without the check, no warning.
    rng = np.random.default_rng(0)
    X = Normalizer().fit_transform(rng.normal(size=(20_000, 3)))
    y = X[:, 0] + 0.1 * rng.normal(size=20_000)
    kwargs = dict(epsilon=4.0, y_bounds=(-1e4, 1e4), public_n_samples=20_000)
    with pytest.warns(UtilityWarning, match="the target fills a small part"):
        _model(random_state=None, **kwargs).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        off = _model(random_state=None, utility_diagnostics=False, **kwargs)
        assert len(off.fit(X, y).noise_multipliers_) == STEPS + 1


def test_audit_does_not_refute_the_claim():
    # The package's empirical audit (a canary row, 300 fits per world) on the
    # regressors' pgd: the lower bound on mu must stay below the claim. A
    # missing factor of the gradient's bound is caught by the pairs above.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=60)
    estimator = _model(
        epsilon=12.0, delta=1e-5, y_bounds=(-10, 10), public_n_samples=60,
        max_iter=2, utility_diagnostics=False,
    )  # fmt: skip
    result = audit(estimator, X, y, n_trials=300, confidence=0.999, progress=False)
    assert result.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    assert result.mu_lower <= result.mu_claimed
    assert result.epsilon_lower <= result.epsilon_claimed
