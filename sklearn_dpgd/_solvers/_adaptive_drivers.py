"""Drivers of the adaptive strategies: they see only what the oracle returns.

Each driver receives a
:class:`~sklearn_dpgd._engine._oracle.PrivateGradientOracle` whose filter is a
:class:`~sklearn_dpgd.accounting.FixedOrderRenyiFilter`, and decides from
privatised answers (noisy gradients, selected indices) and from the remaining
budget - never from the data - what to ask next. Before each iteration it checks
that the budget left covers what the iteration needs, so a run ends cleanly rather
than with a refused query; the filter still refuses any overspending query.
"""

import math

import numpy as np

from ..accounting import GaussianSteps, SparseVectorSteps
from ..exceptions import BudgetExhaustedError
from ._progress import Deciles
from .gd import initial_iterate


def _split(theta, d):
    return theta[:, :d], theta[:, d]


def _add_l2(grad, theta, d, alpha):
    grad[:, :d] += alpha * theta[:, :d]
    return grad


def _l2_along(theta, direction, d, etas, alpha):
    """``alpha / 2 ||w - eta D_w||^2`` for each eta (the intercept is not penalised)."""
    if alpha == 0.0:
        return np.zeros(etas.shape[0])
    w, dw = theta[:, :d].ravel(), direction[:, :d].ravel()
    return 0.5 * alpha * (w @ w - 2.0 * etas * (w @ dw) + etas**2 * (dw @ dw))


def _lengths(eta_max, n_candidates):
    # linspace(0, eta_max, n) built as j * step exactly, so the objective kernel
    # can take its one-exp-per-row path (its eta_j must equal j * eta_1).
    return (eta_max / (n_candidates - 1)) * np.arange(n_candidates, dtype=float)


def _z_of_rho(rho):
    # A Gaussian step with zCDP rho = 1 / (2 z^2) (Bun & Steinke 2016, Prop. 1.6).
    return 1.0 / math.sqrt(2.0 * rho)


def _affordable(filt, *records):
    return sum(filt.cost(r) for r in records) <= filt.remaining()


def _grow_gradient_budget(
    oracle, theta, alpha, grad, rho, increase, next_query, clip_norm=None
):
    """Raise a gradient's zCDP budget by ``1 + increase``, paying only the increase.

    A fresh noisy gradient is drawn with the extra budget ``increase * rho`` and
    averaged in with inverse-variance weights ``rho / rho_new`` and ``1 - rho /
    rho_new`` (Lee & Kifer, KDD 2018, Algorithm 1; the budget increase of DP-BLGD in
    Chen & Lee, Sec. V-B). Raises BudgetExhaustedError if the draw and
    ``next_query`` (the selection that must follow) would not both fit.

    Returns
    -------
    grad : ndarray of shape (n_outputs, n_features + 1)
    rho_new : float
    """
    d = oracle.n_features
    rho_new = (1.0 + increase) * rho
    z_extra = _z_of_rho(rho_new - rho)
    if not _affordable(oracle.privacy_filter, GaussianSteps(z_extra), next_query):
        raise BudgetExhaustedError("no budget for a larger gradient budget")
    extra = oracle.noisy_gradient(*_split(theta, d), z_extra, clip_norm=clip_norm)
    extra = _add_l2(extra, theta, d, alpha)
    return (rho * grad + (rho_new - rho) * extra) / rho_new, rho_new


def dp_agd(oracle, schedule, context, *, max_updates, initial=None, verbose=0):
    """DP-AGD: normalised noisy gradient steps of privately selected length.

    Lee & Kifer, *Concentrated differentially private gradient descent with adaptive
    per-iteration privacy budget*, KDD 2018, Algorithm 1. See
    :class:`~sklearn_dpgd.schedules.AdaptiveStepSchedule`.

    Returns
    -------
    theta : ndarray of shape (n_outputs, n_features + 1)
    learning_rates : ndarray of shape (n_updates,)
        The selected step lengths (along the unit-norm noisy gradient).
    """
    filt = oracle.privacy_filter
    d = oracle.n_features
    n = oracle.n_samples
    alpha = context.alpha
    selection = schedule.selection_record(context.epsilon)
    rho_ng = 0.5 * (context.epsilon * schedule.gradient_fraction) ** 2
    eta_max = schedule.max_step
    etas = _lengths(eta_max, schedule.n_candidates)
    theta = initial_iterate(oracle.n_outputs, d, initial)
    chosen, recent = [], []
    progress = Deciles(verbose)  # a line per tenth of the budget spent
    try:
        while len(chosen) < max_updates:
            z = _z_of_rho(rho_ng)
            if not _affordable(filt, GaussianSteps(z), selection):
                break
            grad = _add_l2(oracle.noisy_gradient(*_split(theta, d), z), theta, d, alpha)
            while True:
                norm = np.linalg.norm(grad)
                direction = grad / norm if norm > 0 else grad
                public = n * _l2_along(theta, direction, d, etas, alpha)
                i = oracle.noisy_argmin(
                    *_split(theta, d),
                    *_split(direction, d),
                    etas,
                    public,
                    schedule.objective_clip,
                    selection.epsilon,
                    selection.noise,
                )
                if i > 0:
                    theta -= etas[i] * direction
                    chosen.append(etas[i])
                    recent.append(etas[i])
                    break
                # Step 0 won: the direction is not trusted. Raise the gradient's
                # budget by (1 + gamma), pay only for the increase with a fresh
                # draw, and combine the two by inverse-variance weights.
                grad, rho_ng = _grow_gradient_budget(
                    oracle, theta, alpha, grad, rho_ng, schedule.gamma, selection
                )
            if len(chosen) % schedule.refresh_every == 0:
                eta_max = min(schedule.growth * max(recent), schedule.max_step)
                etas = _lengths(eta_max, schedule.n_candidates)
                recent = []
            if progress(1.0 - filt.remaining() / filt.budget):
                print(
                    f"update {len(chosen)}: step={chosen[-1]:.4g}, "
                    f"gradient rho={rho_ng:.4g}, "
                    f"budget left={filt.remaining() / filt.budget:.1%}"
                )
    except BudgetExhaustedError:
        pass  # the budget is spent: the last accepted iterate is the output
    return theta, np.asarray(chosen, dtype=float)


def _angle(u, v):
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        return 0.5 * math.pi
    return math.acos(min(1.0, max(-1.0, float(np.vdot(u, v) / (nu * nv)))))


def dp_blsgd(oracle, schedule, context, *, max_updates, initial=None, verbose=0):
    """DP-BLSGD / DP-BLGD: noisy gradients with a private Armijo line search.

    Chen & Lee, *Stochastic Adaptive Line Search for Differentially Private
    Optimization*, Algorithm 2 with NoisyBTLS (Algorithm 1), CHEB (Algorithm 3,
    eq. 7-8), intelligent backtracking (Sec. IV-B b) and the optional clipping
    decay (eq. 9). See :class:`~sklearn_dpgd.schedules.LineSearchSchedule`.

    Returns
    -------
    theta : ndarray of shape (n_outputs, n_features + 1)
    learning_rates : ndarray of shape (n_updates,)
        The accepted step sizes.
    """
    filt = oracle.privacy_filter
    d = oracle.n_features
    q = oracle.sampling_rate
    batch = q * oracle.n_samples  # public divisor of the sums
    alpha = context.alpha
    eps_iter = context.epsilon * schedule.resolved_iteration_fraction(context)
    eps_bt = eps_iter if schedule.noise == "laplace" else 0.5 * eps_iter**2
    rho_grad = 0.5 * eps_iter**2
    eta0 = schedule.resolved_initial_learning_rate(context)
    clip, c_obj = context.clip_norm, schedule.resolved_objective_clip(context)
    theta = initial_iterate(oracle.n_outputs, d, initial)
    chosen, omega = [], []
    theta_bar = 0.5 * math.pi
    prev = None
    progress = Deciles(verbose)  # a line per tenth of the budget spent
    try:
        while len(chosen) < max_updates:
            z = _z_of_rho(rho_grad)
            search = SparseVectorSteps(eps_bt, schedule.noise, q)
            if not _affordable(filt, GaussianSteps(z, q), search):
                break
            grad = oracle.noisy_gradient(*_split(theta, d), z, clip_norm=clip)
            grad = _add_l2(grad, theta, d, alpha)
            decayed = False
            while True:
                etas = eta0 * schedule.backtrack ** np.arange(schedule.max_backtracks)
                g_sq = float(np.vdot(grad, grad))
                # Armijo on the mean objective, in units of the sum (times q n):
                # f(w) - f(w - eta g) >= a eta ||g||^2, the L2 term public.
                l2 = _l2_along(theta, grad, d, np.concatenate(([0.0], etas)), alpha)
                public = batch * (l2[0] - l2[1:] - schedule.armijo * etas * g_sq)
                i = oracle.sparse_vector_armijo(
                    *_split(theta, d),
                    *_split(grad, d),
                    etas,
                    public,
                    c_obj,
                    eps_bt,
                    schedule.noise,
                )
                if i >= 0:
                    theta -= etas[i] * grad
                    chosen.append(etas[i])
                    omega.append(etas[i])
                    if prev is not None:  # eq. (7)
                        psi = schedule.angle_decay
                        theta_bar = psi * theta_bar + (1 - psi) * _angle(grad, prev)
                    prev = grad
                    break
                # No step passed: check the gradient and enlarge a budget.
                z = _z_of_rho(rho_grad)
                search = SparseVectorSteps(eps_bt, schedule.noise, q)
                grow_gradient = False
                if q < 1.0:
                    # CHEB (Algorithm 3): a second gradient at the same budget; its
                    # angle with the first tells which budget is too small.
                    if not _affordable(filt, GaussianSteps(z, q), search):
                        raise BudgetExhaustedError("budget spent")
                    second = oracle.noisy_gradient(*_split(theta, d), z, clip_norm=clip)
                    second = _add_l2(second, theta, d, alpha)
                    rule = schedule.budget_rule
                    if rule == "always":  # Sec. V-E "must": no angle test
                        grow_gradient = True
                    elif rule == "adaptive":  # lines 7-10, thresholds of eq. (8)
                        angle = _angle(grad, second)
                        if (
                            np.vdot(grad, second) < 0
                            or angle > schedule.phi_max * theta_bar
                        ):
                            grow_gradient = True
                        elif angle < schedule.phi_min * theta_bar:
                            eps_bt *= 1.0 + schedule.budget_increase
                    # rule == "never" (Sec. V-E "no"): both budgets stay put.
                    if grow_gradient:
                        rho_grad *= 1.0 + schedule.budget_increase
                    grad = 0.5 * (grad + second)
                else:
                    # DP-BLGD: the budget increase of DP-AGD (Chen & Lee, Sec. V-B).
                    grad, rho_grad = _grow_gradient_budget(
                        oracle,
                        theta,
                        alpha,
                        grad,
                        rho_grad,
                        schedule.budget_increase,
                        search,
                        clip_norm=clip,
                    )
                    grow_gradient = True
                if grow_gradient and schedule.clip_decay and not decayed:
                    # Eq. (9), once per update, when the gradient budget grows. The
                    # next queries' noise scales with the new norms (the oracle
                    # derives each sensitivity from the clip it is given), so their
                    # privacy cost is unchanged.
                    clip *= 1.0 - schedule.clip_decay
                    c_obj *= 1.0 - schedule.clip_decay
                    decayed = True
                search = SparseVectorSteps(eps_bt, schedule.noise, q)
                if not _affordable(filt, search):
                    raise BudgetExhaustedError("budget spent")
            if len(chosen) % schedule.reset_every == 0:
                eta0 = min(schedule.reset_factor * max(omega), eta0)
                omega = []
            if progress(1.0 - filt.remaining() / filt.budget):
                print(
                    f"update {len(chosen)}: step={chosen[-1]:.4g}, "
                    f"gradient rho={rho_grad:.4g}, "
                    f"budget left={filt.remaining() / filt.budget:.1%}"
                )
    except BudgetExhaustedError:
        pass  # the budget is spent: the last accepted iterate is the output
    return theta, np.asarray(chosen, dtype=float)
