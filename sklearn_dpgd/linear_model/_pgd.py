"""``solver="pgd"`` and ``solver="auto"`` of ``DPLogisticRegression``.

:func:`auto_solver` is the one rule that resolves ``solver="auto"``, over public
quantities and released values only; :func:`open_fit` is what a "gd" or "pgd"
fit does before its solver runs (ledger charge, generator, public size: the noisy
count under add/remove-one), so that the rule can read the released size;
:func:`solve_pgd` sets the public plan of private preconditioned gradient
descent (budget split, damping, utility checks, refusals) and calls
:mod:`sklearn_dpgd._solvers.pgd`. A module of its own so that ``_base.py`` stays
within the size limit.
"""

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .._engine._dask import is_dask_collection
from .._engine._oracle import PrivateNewtonOracle, gram_sensitivity
from .._public_size import SENSITIVITY_FACTOR
from .._solvers import pgd as pgd_solver
from ..accounting import GaussianPrivacyFilter, GaussianSteps
from ..schedules._defaults import _horizon_unit, auto_clip_norm
from ._newton import MAX_NEWTON_FEATURES
from ._open import OpenFit, open_fit
from ._utility import utility_checks

__all__ = [
    "AUTO_PGD_MIN_UNIT",
    "OpenFit",
    "auto_solver",
    "check_pgd",
    "open_fit",
    "pgd_possible",
    "resolve_auto",
    "solve_pgd",
]

#: Smallest horizon unit ``t = mu m / (s sqrt(p))`` (``mu`` the GDP budget, ``m``
#: the public size, ``s`` 2 under replace-one and 1 under add/remove, ``p`` the
#: features plus the intercept; ``schedules._defaults``' unit) at which
#: ``solver="auto"`` runs "pgd". On 80/20 holdouts of Adult's and Bank's
#: training splits (8 seeds) "pgd" was within 0.1 point of "gd" at t = 763
#: (Adult, epsilon 1.6: -0.09) and 1,540 (Bank, 1.6: -0.10), and 0.12-0.13
#: behind at t = 204-413 (both at 0.4); the docs' performance page has the
#: table.
AUTO_PGD_MIN_UNIT = 700.0

#: Widest input (features, intercept excluded) "pgd" accepts: the Gram is
#: ``w x w`` and its eigendecomposition ``O(w^3)``; sparse input is densified.
MAX_PGD_FEATURES = MAX_NEWTON_FEATURES


def _pgd_refusal(estimator, X, n_outputs, sample_weight):
    """Why "pgd" cannot fit this (a sentence), or None."""
    if estimator._loss not in pgd_solver.PGD_CURVATURE:
        return (
            "needs the logistic, squared or Huber loss (DPLogisticRegression, "
            "DPLinearRegression, DPHuberRegressor)"
        )
    if n_outputs > 1 and estimator._loss != "logistic":
        return "fits multiclass problems with the logistic loss only"
    if estimator.schedule is not None or estimator.batch_size is not None:
        return "plans its own iterations; schedule and batch_size must be None"
    # The regressors have neither class weights nor an L1 part.
    class_weight = getattr(estimator, "class_weight", None)
    if sample_weight is not None or class_weight is not None:
        return "does not support sample_weight or class_weight"
    if float(getattr(estimator, "l1_ratio", 0.0)) > 0.0:
        return "has no L1 penalty; l1_ratio must be 0"
    if getattr(estimator, "calibration", None) == "temperature":
        return "does not calibrate; calibration must be 'auto' or None"
    if X.shape[1] > MAX_PGD_FEATURES:
        return (
            f"accepts at most {MAX_PGD_FEATURES} features (its Gram is p x p), "
            f"got {X.shape[1]}"
        )
    return None


def _size_known_before_reading(estimator, X):
    """The public size if it is known without reading the rows, else None."""
    if estimator.public_n_samples is not None:
        return int(estimator.public_n_samples)
    if estimator.neighboring == "replace":
        return int(X.shape[0])  # the number of rows is public under replace-one
    return None


def pgd_possible(estimator, X, n_outputs, sample_weight):
    """Whether ``solver="auto"`` may run "pgd", before the size is known.

    False when a public setting rules "pgd" out whatever the size:
    ``max_iter`` set by hand (a horizon set by hand is a gradient-descent plan),
    sparse input, more than two classes (multiclass "pgd" was not measured
    within 0.1 point of "gd"; ``solver="pgd"`` runs it on request), or a fit
    "pgd" does not support (not logistic, an L1
    penalty, ``calibration="temperature"``, a schedule, ``batch_size``,
    weights, more than :data:`MAX_PGD_FEATURES` features).

    Parameters
    ----------
    estimator : DPLogisticRegression or another linear model
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    n_outputs : int
        1 for a binary problem, the number of classes otherwise.
    sample_weight : ndarray or None

    Returns
    -------
    possible : bool
    """
    return not (
        estimator.max_iter != "auto"
        or n_outputs > 1  # multiclass "pgd" is an option, not auto's choice yet
        or sp.issparse(X)
        or _pgd_refusal(estimator, X, n_outputs, sample_weight) is not None
    )


def auto_solver(estimator, X, n_outputs, sample_weight, n_samples=None):
    """The solver ``solver="auto"`` runs: "pgd" or "gd".

    "pgd" when :func:`pgd_possible` and the horizon unit
    ``mu m / (s sqrt(n_features + fit_intercept))`` at the public size ``m`` is
    at least :data:`AUTO_PGD_MIN_UNIT`; "gd" otherwise. Every input of the rule
    is public or already released: the budget, the width, the number of classes
    (``classes``), the options, and ``m``, which is ``public_n_samples``, the
    row count under replace-one, or under add/remove-one the noisy count that a
    fit releases (:func:`open_fit`) before the rule runs (post-processing of a
    released value); never the rows.

    Parameters
    ----------
    estimator : DPLogisticRegression or another linear model
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    n_outputs : int
        1 for a binary problem, the number of classes otherwise.
    sample_weight : ndarray or None
    n_samples : int or None, default=None
        The released public size ``m`` (``OpenFit.n_samples``). None: the size
        known before any row is read (``public_n_samples``, or the row count
        under replace-one); without one the rule returns "gd".

    Returns
    -------
    solver : {"pgd", "gd"}
    """
    m = _size_known_before_reading(estimator, X) if n_samples is None else n_samples
    if m is None or not pgd_possible(estimator, X, n_outputs, sample_weight):
        return "gd"
    unit = _horizon_unit(
        float(estimator.epsilon), float(estimator.delta), m, X.shape[1], 1,
        estimator.neighboring, bool(estimator.fit_intercept),
    )  # fmt: skip
    return "pgd" if unit >= AUTO_PGD_MIN_UNIT else "gd"


def resolve_auto(estimator, X, n_outputs, sample_weight, seed):
    """``solver="auto"`` in a fit: ``(solver, keyword arguments of its solve)``.

    When :func:`pgd_possible`, the fit is opened (:func:`open_fit`: ledgers
    charged, size released) and :func:`auto_solver` reads the released size;
    the opened fit is passed on (``{"opened": opened}``), so the solver that runs
    makes no second count. Otherwise "gd", which opens its own fit.

    Parameters
    ----------
    estimator : DPLogisticRegression or another linear model
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    n_outputs : int
    sample_weight : ndarray or None
    seed : int or None

    Returns
    -------
    solver : {"pgd", "gd"}
    kwargs : dict

    Raises
    ------
    BudgetExhaustedError
        If an open ledger's cap refuses the fit's charge (before any row is read).
    """
    if not pgd_possible(estimator, X, n_outputs, sample_weight):
        return "gd", {}
    opened = open_fit(estimator, X, seed)
    m = opened.n_samples
    solver = auto_solver(estimator, X, n_outputs, sample_weight, n_samples=m)
    return solver, {"opened": opened}


def check_pgd(estimator, X, n_outputs, sample_weight):
    """Refuse what ``solver="pgd"`` does not support; return dense ``X``.

    Parameters
    ----------
    estimator : DPLogisticRegression, DPLinearRegression or DPHuberRegressor
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
    n_outputs : int
    sample_weight : ndarray or None

    Returns
    -------
    X : ndarray or dask.array.Array of shape (n_samples, n_features)
        C-contiguous dense rows (a densified copy of sparse input), or the
        dask array unchanged (its Gram and gradients are chunk sums).

    Raises
    ------
    ValueError
        For a loss other than the logistic, squared or Huber loss, more than
        two classes with a loss other than the logistic, a schedule,
        ``batch_size``, weights, ``l1_ratio > 0``,
        ``calibration="temperature"`` (temperature scaling is gradient
        descent's) or more than :data:`MAX_PGD_FEATURES` features.
    """
    reason = _pgd_refusal(estimator, X, n_outputs, sample_weight)
    if reason is not None:
        raise ValueError(f"solver='pgd' {reason}; use solver='gd'.")
    if is_dask_collection(X):
        return X
    if sp.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X)


def solve_pgd(
    estimator, X, y_index, n_outputs, initial, seed, sample_weight=None, opened=None
):
    """Budget, public size, checks and run of ``solver="pgd"``: its FitResult.

    The whole budget ``mu`` (GDP) is charged to the open ledgers before any
    data is read; a noisy count (add/remove without ``public_n_samples``) takes
    its documented share first, the utility checks theirs, and the Gram and the
    ``T`` gradients the rest: ``z_G^-2 + T z_g^-2 = mu_train^2``.

    Parameters
    ----------
    estimator : DPLogisticRegression, DPLinearRegression or DPHuberRegressor
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
    y_index : ndarray or dask array of shape (n_samples,)
        Class indices (int64), or a regressor's target scaled into ``[-1, 1]``
        (float64).
    n_outputs : int
    initial : ndarray of shape (n_outputs, n_features + 1) or None
    seed : int or None
    sample_weight : ndarray or None, default=None
    opened : OpenFit or None, default=None
        The fit as ``solver="auto"`` opened it (ledger charged, size released);
        None opens it here.

    Returns
    -------
    result : FitResult

    Raises
    ------
    ValueError
        What :func:`check_pgd` refuses.
    BudgetExhaustedError
        If an open ledger's cap refuses the fit's charge (before any row is read).
    """
    X = check_pgd(estimator, X, n_outputs, sample_weight)
    if opened is None:
        opened = open_fit(estimator, X, seed)
    mu, z_count, mu_train = opened.mu, opened.z_count, opened.mu_train
    planned, ledger_charge = opened.planned, opened.ledger_charge
    rng, m = opened.rng, opened.n_samples
    diagnostics, mu_train = utility_checks(
        estimator, X, n_outputs=n_outputs, mu=mu, mu_train=mu_train, adaptive=False,
        rng=rng, n_samples=m, y=y_index,
    )  # fmt: skip
    # The loss's public plan: steps, Gram share, damping factor, "auto" clip.
    steps, gram_share, kappa, clip = (
        pgd_solver.PGD_PLANS[estimator._loss]
        if n_outputs == 1
        else pgd_solver.MULTINOMIAL_PLAN
    )
    n_steps = steps if estimator.max_iter == "auto" else int(estimator.max_iter)
    # A relative 1e-9 of mu is left unspent: rounding must never make the filter
    # refuse the last release of an exactly planned budget.
    z_gram, z_gradient = pgd_solver.pgd_noise_multipliers(
        mu_train * (1.0 - 1e-9), n_steps, gram_share
    )
    privacy_filter = GaussianPrivacyFilter(mu)
    if z_count is not None:
        privacy_filter.charge(GaussianSteps(z_count))
    # Rows are scaled to feature norm 1 (the Gram's bound); clip_norm bounds
    # each row's gradient, as in "gd"; "auto" is gd's public rule (logistic)
    # or the plan's constant (regressors).
    row_clip, n_features = 1.0, X.shape[1]
    gradient_clip = (
        auto_clip_norm(
            estimator.epsilon, estimator.delta, m, n_features,
            n_outputs=n_outputs, neighboring=estimator.neighboring,
            fit_intercept=bool(estimator.fit_intercept),
        )
        if estimator.clip_norm == "auto" and clip is None
        else float(clip if estimator.clip_norm == "auto" else estimator.clip_norm)
    )  # fmt: skip
    factor = SENSITIVITY_FACTOR[estimator.neighboring]
    oracle = PrivateNewtonOracle(
        X,
        y_index,
        row_clip=row_clip,
        sensitivity_factor=factor,
        fit_intercept=bool(estimator.fit_intercept),
        privacy_filter=privacy_filter,
        rng=rng,
        public_n_samples=m,
        loss=estimator._loss,
        huber_width=estimator._huber_width(),
        n_outputs=n_outputs,
    )
    alpha = estimator._resolve_alpha(None, m)
    curvature = (
        pgd_solver.PGD_CURVATURE[estimator._loss]
        if n_outputs == 1
        else pgd_solver.MULTINOMIAL_CURVATURE
    )
    result = pgd_solver.solve(
        oracle,
        privacy_filter,
        n_steps=n_steps,
        z_gram=z_gram,
        z_gradient=z_gradient,
        gram_sensitivity=gram_sensitivity(
            row_clip, bool(estimator.fit_intercept), factor
        ),
        alpha=alpha,
        initial=initial,
        verbose=estimator.verbose,
        dtype=X.dtype,
        fit_intercept=estimator.fit_intercept,
        delta=estimator.delta,
        adaptive_plan=z_count is not None,
        cap_epsilon=estimator.epsilon,
        diagnostics=diagnostics,
        clip_norm=row_clip,
        gradient_clip=gradient_clip,
        curvature=curvature,
        damping_factor=kappa,
    )
    ledger_charge.settle(planned if z_count is not None else result.ledger)
    outputs = {
        "schedule_": None,
        "clip_norm_": gradient_clip,
        "alpha_": alpha,
        "calibration_": None,
        "calibration_scale_": None,
        **result.outputs,
    }
    return replace(result, outputs=outputs)
