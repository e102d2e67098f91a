"""``solver="pgd"`` and ``solver="auto"`` of ``DPLogisticRegression``.

:func:`auto_solver` is the one rule that resolves ``solver="auto"``, over public
quantities only; :func:`solve_pgd` sets the public plan of private
preconditioned gradient descent (budget split, public size, damping, utility
checks, refusals) and calls :mod:`sklearn_dpgd._solvers.pgd`. A module of its
own so that ``_base.py`` stays within the size limit.
"""

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .._boundary import charge_ledgers
from .._engine._dask import is_dask_collection
from .._engine._oracle import PrivateNewtonOracle, gram_sensitivity
from .._engine._randomness import make_generator
from .._public_size import SENSITIVITY_FACTOR
from .._solvers import pgd as pgd_solver
from ..accounting import GaussianPrivacyFilter, GaussianSteps
from ..schedules._defaults import _horizon_unit, auto_clip_norm
from ._newton import MAX_NEWTON_FEATURES
from ._penalty import penalty_strength
from ._utility import utility_checks

__all__ = ["AUTO_PGD_MIN_UNIT", "auto_solver", "check_pgd", "solve_pgd"]

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
    if estimator._loss != "logistic":
        return "needs the logistic loss (DPLogisticRegression)"
    if n_outputs > 1:
        return "fits binary problems only"
    if estimator.schedule is not None or estimator.batch_size is not None:
        return "plans its own iterations; schedule and batch_size must be None"
    if sample_weight is not None or estimator.class_weight is not None:
        return "does not support sample_weight or class_weight"
    if float(estimator.l1_ratio) > 0.0:
        return "has no L1 penalty; l1_ratio must be 0"
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


def auto_solver(estimator, X, n_outputs, sample_weight):
    """The solver ``solver="auto"`` runs: "pgd" or "gd".

    "pgd" when the public size ``m`` is known before the rows are read
    (``public_n_samples``, or ``neighboring="replace"``), the horizon unit
    ``mu m / (s sqrt(n_features + fit_intercept))`` is at least
    :data:`AUTO_PGD_MIN_UNIT`, ``max_iter="auto"`` (a horizon set by hand is a
    gradient-descent plan), the input is dense or a dask array, and "pgd"
    supports the fit (binary logistic, no L1, no schedule, batch or weights, at
    most :data:`MAX_PGD_FEATURES` features); "gd" otherwise. Every input of the
    rule is public: the budget, the declared size, the width, the number of
    classes (``classes``), the options; never the rows. Under add/remove-one
    without ``public_n_samples`` the size is a noisy count made inside the
    solver, so the rule cannot see it and keeps "gd".

    Parameters
    ----------
    estimator : DPLogisticRegression or another linear model
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    n_outputs : int
        1 for a binary problem, the number of classes otherwise.
    sample_weight : ndarray or None

    Returns
    -------
    solver : {"pgd", "gd"}
    """
    m = _size_known_before_reading(estimator, X)
    if (
        m is None
        or estimator.max_iter != "auto"
        or sp.issparse(X)
        or _pgd_refusal(estimator, X, n_outputs, sample_weight) is not None
    ):
        return "gd"
    unit = _horizon_unit(
        float(estimator.epsilon), float(estimator.delta), m, X.shape[1], 1,
        estimator.neighboring, bool(estimator.fit_intercept),
    )  # fmt: skip
    return "pgd" if unit >= AUTO_PGD_MIN_UNIT else "gd"


def check_pgd(estimator, X, n_outputs, sample_weight):
    """Refuse what ``solver="pgd"`` does not support; return dense ``X``.

    Parameters
    ----------
    estimator : DPLogisticRegression
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
        For a loss other than the logistic, more than two classes, a
        schedule, ``batch_size``, weights, ``l1_ratio > 0`` or more than
        :data:`MAX_PGD_FEATURES` features.
    """
    reason = _pgd_refusal(estimator, X, n_outputs, sample_weight)
    if reason is not None:
        raise ValueError(f"solver='pgd' {reason}; use solver='gd'.")
    if is_dask_collection(X):
        return X
    if sp.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X)


def solve_pgd(estimator, X, y_index, n_outputs, initial, seed, sample_weight=None):
    """Budget, public size, checks and run of ``solver="pgd"``: its FitResult.

    The whole budget ``mu`` (GDP) is charged to the open ledgers before any
    data is read; a noisy count (add/remove without ``public_n_samples``) takes
    its documented share first, the utility checks theirs, and the Gram and the
    ``T`` gradients the rest: ``z_G^-2 + T z_g^-2 = mu_train^2``.

    Parameters
    ----------
    estimator : DPLogisticRegression
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,), int64
    n_outputs : int
    initial : ndarray of shape (1, n_features + 1) or None
    seed : int or None
    sample_weight : ndarray or None, default=None

    Returns
    -------
    result : FitResult
    """
    X = check_pgd(estimator, X, n_outputs, sample_weight)
    mu, z_count, mu_train, planned = estimator._budget(False)
    ledger_charge = charge_ledgers(
        estimator, planned, neighboring=estimator.neighboring
    )
    rng = make_generator(seed, estimator.secure_mode)
    m = estimator._public_size(X.shape[0], z_count, rng)
    diagnostics, mu_train = utility_checks(
        estimator, X, n_outputs=1, mu=mu, mu_train=mu_train, adaptive=False,
        rng=rng, n_samples=m, y=y_index,
    )  # fmt: skip
    n_steps = (
        pgd_solver.PGD_STEPS
        if estimator.max_iter == "auto"
        else int(estimator.max_iter)
    )
    # A relative 1e-9 of mu is left unspent: rounding must never make the filter
    # refuse the last release of an exactly planned budget.
    z_gram, z_gradient = pgd_solver.pgd_noise_multipliers(
        mu_train * (1.0 - 1e-9), n_steps, pgd_solver.GRAM_SHARE
    )
    privacy_filter = GaussianPrivacyFilter(mu)
    if z_count is not None:
        privacy_filter.charge(GaussianSteps(z_count))
    # Rows are scaled to feature norm 1 (the Gram's bound); clip_norm bounds
    # each row's gradient, as in "gd", and "auto" is gd's public rule.
    row_clip, n_features = 1.0, X.shape[1]
    gradient_clip = (
        auto_clip_norm(
            estimator.epsilon, estimator.delta, m, n_features,
            neighboring=estimator.neighboring,
            fit_intercept=bool(estimator.fit_intercept),
        )
        if estimator.clip_norm == "auto"
        else float(estimator.clip_norm)
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
    )
    alpha = penalty_strength(estimator, None, m)
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
        n_counted=int(z_count is not None),
        adaptive_plan=z_count is not None,
        cap_epsilon=estimator.epsilon,
        diagnostics=diagnostics,
        clip_norm=row_clip,
        gradient_clip=gradient_clip,
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
