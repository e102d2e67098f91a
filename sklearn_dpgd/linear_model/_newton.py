"""``solver="newton"`` of :class:`~sklearn_dpgd.DPLogisticRegression`: its public
setting (budget split, public size, damping, refusals) and the call of
:mod:`sklearn_dpgd._solvers.newton`.

A module of its own so that ``_base.py`` stays within the size limit; it reads the
estimator's parameters as ``_base.py`` does, and gives the solver only arrays,
public numbers and the oracle.
"""

import math
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .._engine._dask import is_dask_collection
from .._engine._oracle import PrivateNewtonOracle
from .._public_size import SENSITIVITY_FACTOR
from .._solvers import newton as newton_solver
from ..accounting import GaussianPrivacyFilter, GaussianSteps
from ._calibration import CALIBRATION_SHARE
from ._open import open_fit
from ._penalty import penalty_strength
from ._utility import utility_checks

__all__ = ["MAX_NEWTON_FEATURES", "MAX_NEWTON_PARAMS", "check_newton", "solve_newton"]

#: Widest input ``solver="newton"`` accepts (features, intercept excluded). An
#: iteration forms the ``p x p`` Hessian sum (``n p^2`` flops, about ``p / 2``
#: gradient passes' worth of arithmetic, done by BLAS at a higher rate) and
#: solves with it (``p^3 / 3``); past a few hundred features the default
#: gradient descent's 1,000 passes are cheaper. Sparse input of at most this
#: width is densified (``n x p`` floats).
MAX_NEWTON_FEATURES = 512

#: Largest side ``K (n_features + fit_intercept)`` of the multinomial Hessian
#: (``K >= 3`` classes) that ``solver="newton"`` accepts, e.g. 10 classes of up to
#: 101 features with an intercept. An iteration costs ``n (K w)^2`` flops for
#: the Hessian sum and ``(K w)^3 / 3`` for the solve, and holds ``(K w)^2``
#: floats (8 MB at the limit).
MAX_NEWTON_PARAMS = 1024


def check_newton(estimator, X, n_outputs, sample_weight, initial):
    """Refuse what ``solver="newton"`` does not support; return dense ``X``.

    Parameters
    ----------
    estimator : DPLogisticRegression
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
        The validated training data.
    n_outputs : int
        1 for a binary problem, the number of classes otherwise.
    sample_weight : ndarray or None
    initial : ndarray or None
        The validated public start (unused here; accepted for symmetry).

    Returns
    -------
    X : ndarray or dask.array.Array of shape (n_samples, n_features)
        C-contiguous dense rows (a densified copy of sparse input), or the
        validated dask array unchanged.

    Raises
    ------
    ValueError
        For a loss other than the logistic, a schedule, ``batch_size``,
        ``sample_weight`` or ``class_weight``, ``l1_ratio > 0``, more than
        :data:`MAX_NEWTON_FEATURES` features, or a multinomial Hessian wider
        than :data:`MAX_NEWTON_PARAMS`.
    """
    reason = None
    n_params = X.shape[1] + int(bool(estimator.fit_intercept))
    if estimator._loss != "logistic":
        reason = "needs the logistic loss (DPLogisticRegression)"
    elif n_outputs > 1 and n_outputs * n_params > MAX_NEWTON_PARAMS:
        reason = (
            f"accepts multinomial problems of at most {MAX_NEWTON_PARAMS} "
            "parameters (its Hessian is K (n_features + fit_intercept) square), got "
            f"{n_outputs} classes x {n_params} = {n_outputs * n_params}"
        )
    elif estimator.schedule is not None or estimator.batch_size is not None:
        reason = "plans its own iterations; schedule and batch_size must be None"
    elif sample_weight is not None or estimator.class_weight is not None:
        reason = "does not support sample_weight or class_weight"
    elif float(estimator.l1_ratio) > 0.0:
        reason = "has no L1 penalty; l1_ratio must be 0"
    elif X.shape[1] > MAX_NEWTON_FEATURES:
        reason = (
            f"accepts at most {MAX_NEWTON_FEATURES} features (its Hessian is "
            f"p x p), got {X.shape[1]}"
        )
    if reason is not None:
        raise ValueError(f"solver='newton' {reason}; use solver='gd'.")
    if is_dask_collection(X):
        # Row chunks stay on the workers; the oracle sums them there.
        return X
    if sp.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X)


def solve_newton(estimator, X, y_index, n_outputs, initial, seed, sample_weight=None):
    """Budget, public size, damping and run of ``solver="newton"``: its FitResult.

    The whole budget ``mu`` (GDP) is charged to the open ledgers before any data
    is read; a noisy count (add/remove without ``public_n_samples``) takes its
    documented share first (:func:`sklearn_dpgd._public_size.split_count_budget`),
    the calibration stage (if any) ``CALIBRATION_SHARE`` of ``mu^2``, and the
    iterations the rest: ``T (z_g^-2 + z_d^-2) = mu_train^2``.

    Parameters
    ----------
    estimator : DPLogisticRegression
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,), int64
    n_outputs : int
    initial : ndarray of shape (n_outputs, n_features + 1) or None
    seed : int or None
    sample_weight : ndarray or None, default=None

    Returns
    -------
    result : FitResult
    """
    X = check_newton(estimator, X, n_outputs, sample_weight, initial)
    opened = open_fit(estimator, X, seed)
    mu, z_count, mu_train = opened.mu, opened.z_count, opened.mu_train
    ledger_charge, rng, m = opened.ledger_charge, opened.rng, opened.n_samples
    calibrate = estimator._resolve_calibration(
        n_outputs, True, math.sqrt(CALIBRATION_SHARE) * m * mu
    )
    if calibrate:
        mu_train = math.sqrt(mu_train**2 - CALIBRATION_SHARE * mu**2)
    # The utility checks, as for solver="gd": their share comes off the
    # iterations' (the docstring's promise; they once never ran here).
    hooks, mu_train = utility_checks(
        estimator, X, n_outputs=n_outputs, mu=mu, mu_train=mu_train,
        adaptive=False, rng=rng, n_samples=m, y=y_index,
    )  # fmt: skip
    before, after = hooks or (None, None)
    n_steps = (
        newton_solver.NEWTON_STEPS
        if estimator.max_iter == "auto"
        else int(estimator.max_iter)
    )
    # A relative 1e-9 of mu is left unspent: rounding must never make the filter
    # refuse the last release (the calibration's) of an exactly planned budget.
    z_gradient, z_direction = newton_solver.newton_noise_multipliers(
        mu_train * (1.0 - 1e-9), n_steps
    )
    privacy_filter = GaussianPrivacyFilter(mu)
    if z_count is not None:
        privacy_filter.charge(GaussianSteps(z_count))
    row_clip = 1.0 if estimator.clip_norm == "auto" else float(estimator.clip_norm)
    if before is not None:  # charged to the filter before it reads a row
        before(privacy_filter=privacy_filter, clip_norm=row_clip)
    oracle = PrivateNewtonOracle(
        X,
        y_index,
        row_clip=row_clip,
        sensitivity_factor=SENSITIVITY_FACTOR[estimator.neighboring],
        fit_intercept=bool(estimator.fit_intercept),
        privacy_filter=privacy_filter,
        rng=rng,
        public_n_samples=m,
        n_outputs=n_outputs,
    )
    damping = newton_solver.newton_damping(
        oracle.curvature_bound,
        z_direction,
        n_outputs * (X.shape[1] + int(bool(estimator.fit_intercept))),
    )
    alpha = penalty_strength(estimator, None, m)
    result = newton_solver.solve(
        oracle,
        privacy_filter,
        n_steps=n_steps,
        z_gradient=z_gradient,
        z_direction=z_direction,
        damping=damping,
        alpha=alpha,
        initial=initial,
        verbose=estimator.verbose,
        dtype=X.dtype,
        fit_intercept=estimator.fit_intercept,
        delta=estimator.delta,
        n_counted=int(z_count is not None) + int(before is not None),
        adaptive_plan=z_count is not None,
        cap_epsilon=estimator.epsilon,
        calibrate=(
            estimator._calibration(X, y_index, rng, m, mu, n_outputs)
            if calibrate
            else None
        ),
        diagnose=after,
    )
    ledger_charge.settle(opened.planned if z_count is not None else result.ledger)
    outputs = {
        "schedule_": None,
        "clip_norm_": row_clip,
        "alpha_": alpha,
        **result.outputs,
    }
    return replace(result, outputs=outputs)
