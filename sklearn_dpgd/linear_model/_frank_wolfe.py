"""``solver="frank_wolfe"`` of the private classifiers: its public setting (L1
radius, iterations, per-selection budget, refusals) and the call of
:mod:`sklearn_dpgd._solvers.frank_wolfe`.

A module of its own, as ``_newton.py``: it reads the estimator's parameters and
gives the solver only the oracle and public numbers.

The utility check (:func:`~sklearn_dpgd.linear_model._utility.check_predictions`,
the accuracy gain over the majority class) runs after the selections on the
same fixed-order Rényi filter, as in the adaptive solvers; but the selections'
plan would leave that filter empty, so with ``utility_diagnostics=True`` a
public share :data:`~sklearn_dpgd.linear_model._utility.DIAGNOSTICS_SHARE` of
its RDP budget at its order is reserved for the check (and, where the size is
not public, a noisy count of the rows the check compares with:
:data:`~sklearn_dpgd.linear_model._utility.ROW_COUNT_PART` of that share), and
the ``2 T`` selections share the rest. A Gaussian mechanism of noise multiplier
``z`` costs ``alpha / (2 z^2)`` at order ``alpha`` (Mironov, CSF 2017, Prop. 7).
"""

import math
from dataclasses import replace

import numpy as np

from .._boundary import charge_ledgers
from .._engine import _losses
from .._engine._dask import is_dask_collection
from .._engine._oracle import PrivateGradientOracle
from .._engine._randomness import make_generator
from .._public_size import SENSITIVITY_FACTOR, resolve_public_size
from .._solvers import frank_wolfe as fw_solver
from ..accounting import (
    DEFAULT_ORDERS,
    EpsilonDeltaRecord,
    FixedOrderRenyiFilter,
    GaussianSteps,
    best_filter_order,
    bounded_range_rdp,
    ledger_epsilon,
)
from ._utility import DIAGNOSTICS_SHARE, ROW_COUNT_PART, check_predictions

__all__ = [
    "check_frank_wolfe",
    "frank_wolfe_check_noise",
    "frank_wolfe_setting",
    "solve_frank_wolfe",
]


def check_frank_wolfe(estimator, X, sample_weight):
    """Refuse what ``solver="frank_wolfe"`` does not support.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
    sample_weight : ndarray or None

    Raises
    ------
    ValueError
        For ``l1_ratio`` other than 1, ``C=np.inf`` or ``alpha`` set instead of
        ``C``, a schedule or ``batch_size``, ``sample_weight`` or
        ``class_weight``, ``calibration="temperature"``, or dask input.
    """
    reason = None
    if float(estimator.l1_ratio) != 1.0:
        reason = (
            f"is the L1-constrained (lasso) solver: l1_ratio must be 1, got "
            f"{estimator.l1_ratio!r}"
        )
    elif estimator.C is not None and math.isinf(float(estimator.C)):
        reason = "needs a finite C (its L1 radius grows with C)"
    elif estimator.C is None and estimator.alpha != "auto":
        reason = "reads its L1 radius from C (a public rule); set C instead of alpha"
    elif estimator.schedule is not None or estimator.batch_size is not None:
        reason = "plans its own iterations; schedule and batch_size must be None"
    elif sample_weight is not None or estimator.class_weight is not None:
        reason = "does not support sample_weight or class_weight"
    elif getattr(estimator, "calibration", None) == "temperature":
        reason = "has no temperature scaling; use calibration='auto' or None"
    elif is_dask_collection(X):
        reason = "needs in-memory (NumPy or CSR) data, not a dask array"
    if reason is not None:
        raise ValueError(f"solver='frank_wolfe' {reason}.")


def frank_wolfe_setting(estimator):
    """``(radius, n_steps, epsilon_0, order)``: the public plan of a fit.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM

    Returns
    -------
    radius : float
        :func:`~sklearn_dpgd._solvers.frank_wolfe.frank_wolfe_radius` of ``C``
        (``C=1`` when ``C`` is None).
    n_steps : int
        ``max_iter``, or :data:`~sklearn_dpgd._solvers.frank_wolfe.FRANK_WOLFE_STEPS`.
    epsilon_0 : float
        Bounded-range parameter of each of the ``2 n_steps`` selections: spending
        the whole budget, or, with ``utility_diagnostics=True``, the filter's RDP
        budget at ``order`` less the check's share
        (:func:`frank_wolfe_check_noise`).
    order : float
        The Rényi order of the fit's filter (the best for the selections alone).
    """
    C = 1.0 if estimator.C is None else float(estimator.C)
    radius = fw_solver.frank_wolfe_radius(C)
    eps, delta = float(estimator.epsilon), float(estimator.delta)
    n_steps = (
        fw_solver.FRANK_WOLFE_STEPS
        if estimator.max_iter == "auto"
        else int(estimator.max_iter)
    )
    epsilon_0 = fw_solver.selection_epsilon(eps, delta, 2 * n_steps)
    order = best_filter_order(
        eps, delta, DEFAULT_ORDERS, bounded_range_rdp(DEFAULT_ORDERS, epsilon_0)
    )
    if estimator.utility_diagnostics:
        budget = FixedOrderRenyiFilter(eps, delta, order).budget
        epsilon_0 = _bounded_range_epsilon(
            (1.0 - DIAGNOSTICS_SHARE) * budget / (2 * n_steps), order
        )
    return radius, n_steps, epsilon_0, order


def _bounded_range_epsilon(rdp, order):
    """The largest ``e`` with ``min(e, order e^2 / 8) <= rdp`` (less 1e-9)."""
    quadratic = math.sqrt(8.0 * rdp / order)
    e = quadratic if quadratic <= 8.0 / order else rdp
    return e * (1.0 - 1e-9)


def frank_wolfe_check_noise(estimator, privacy_filter):
    """Noise multipliers of the utility check on its reserved share.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM
    privacy_filter : FixedOrderRenyiFilter
        The fit's filter (its public order and budget only).

    Returns
    -------
    z_gain : float
        Of the accuracy gains (units of their sensitivity,
        :func:`~sklearn_dpgd.linear_model._utility.gain_sensitivity`).
    z_count : float or None
        Of the count of rows (sensitivity 1 under both relations), None where
        the size is public (declared ``public_n_samples``, or replace-one).
        Together they cost :data:`DIAGNOSTICS_SHARE` of the filter's budget at
        its order, ``alpha / (2 z^2)`` each.
    """
    share = DIAGNOSTICS_SHARE * privacy_filter.budget
    needs_count = (
        estimator.public_n_samples is None and estimator.neighboring == "add_remove"
    )
    gain_part = 1.0 - ROW_COUNT_PART if needs_count else 1.0
    order = privacy_filter.order
    z_gain = math.sqrt(order / (2.0 * gain_part * share)) * (1.0 + 1e-9)
    if not needs_count:
        return z_gain, None
    return z_gain, math.sqrt(order / (2.0 * ROW_COUNT_PART * share)) * (1.0 + 1e-9)


def solve_frank_wolfe(
    estimator, X, y_index, n_outputs, initial, seed, sample_weight=None
):
    """Plan, charge and run ``solver="frank_wolfe"``: its FitResult.

    The fit is charged to the open ledgers as one ``(epsilon, delta)`` record
    before any data is read; its own filter (a fixed-order Rényi filter) then
    refuses any selection beyond the plan.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,), int64
    n_outputs : int
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public start; its L1 norm must be at most the radius.
    seed : int or None
    sample_weight : ndarray or None, default=None

    Returns
    -------
    result : FitResult

    Raises
    ------
    ValueError
        As :func:`check_frank_wolfe`, or if ``initial`` lies outside the ball.
    """
    check_frank_wolfe(estimator, X, sample_weight)
    radius, n_steps, epsilon_0, order = frank_wolfe_setting(estimator)
    if initial is not None and np.abs(initial).sum() > radius:
        raise ValueError(
            f"solver='frank_wolfe' starts inside its L1 ball: the L1 norm of "
            f"coef_init and intercept_init must be at most {radius:g} (the radius "
            f"of C={estimator.C!r})."
        )
    eps, delta = float(estimator.epsilon), float(estimator.delta)
    planned = EpsilonDeltaRecord(eps, delta)
    ledger_charge = charge_ledgers(
        estimator, planned, neighboring=estimator.neighboring
    )
    rng = make_generator(seed, estimator.secure_mode)
    clip = 1.0 if estimator.clip_norm == "auto" else float(estimator.clip_norm)
    privacy_filter = FixedOrderRenyiFilter(eps, delta, order)
    oracle = PrivateGradientOracle(
        X,
        y_index,
        n_outputs=n_outputs,
        loss=_losses.LOSS_CODES[estimator._loss],
        huber_width=estimator._huber_width(),
        clip_norm=clip,
        sensitivity=SENSITIVITY_FACTOR[estimator.neighboring] * clip,
        fit_intercept=bool(estimator.fit_intercept),
        privacy_filter=privacy_filter,
        rng=rng,
        public_n_samples=None,
    )
    result = fw_solver.solve(
        oracle,
        privacy_filter,
        n_steps=n_steps,
        radius=radius,
        epsilon_0=epsilon_0,
        initial=initial,
        verbose=estimator.verbose,
        dtype=X.dtype,
        fit_intercept=bool(estimator.fit_intercept),
        delta=delta,
    )
    if estimator.utility_diagnostics:
        result = _run_check(estimator, X, y_index, result, privacy_filter, rng, delta)
    ledger_charge.settle(planned)
    outputs = {
        "schedule_": None,
        "clip_norm_": clip,
        "alpha_": None,
        "calibration_": None,
        "calibration_scale_": None,
        **result.outputs,
    }
    return replace(result, outputs=outputs)


def _run_check(estimator, X, y_index, result, privacy_filter, rng, delta):
    """The accuracy check on the filter's reserve; the result with its records."""
    z_gain, z_count = frank_wolfe_check_noise(estimator, privacy_filter)
    if z_count is not None:  # charged before the rows are counted
        privacy_filter.charge(GaussianSteps(z_count))
    m = resolve_public_size(
        X.shape[0],
        neighboring=estimator.neighboring,
        public_n_samples=estimator.public_n_samples,
        noise_multiplier=z_count,
        rng=rng,
    ).n_samples
    check_predictions(
        X,
        y_index,
        result.coef,
        result.intercept,
        neighboring=estimator.neighboring,
        privacy_filter=privacy_filter,
        noise_multiplier=z_gain,
        rng=rng,
        n_samples=m,
        stacklevel=4,
    )
    ledger = privacy_filter.ledger
    # The records composed in RDP over the orders; the filter guarantees at
    # most epsilon at its own order, hence the min.
    epsilon = min(float(estimator.epsilon), ledger_epsilon(ledger, delta))
    return replace(result, ledger=ledger, epsilon=epsilon)
