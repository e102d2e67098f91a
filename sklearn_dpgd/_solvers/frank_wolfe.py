"""Private Frank-Wolfe on the L1 ball: ``solver="frank_wolfe"`` (``l1_ratio=1``).

Each iteration makes two selections through the oracle, both the exponential
mechanism sampled by the Gumbel-max trick: the vertex ``v = +-r e_j`` of the L1
ball of radius ``r`` that most decreases the linearised loss
(:meth:`~sklearn_dpgd._engine._oracle.PrivateGradientOracle.noisy_vertex`;
Talwar, Thakurta & Zhang, "Nearly Optimal Private LASSO", NeurIPS 2015,
Algorithm 1), then the step ``eta`` of ``theta <- theta + eta (v - theta)``
among :data:`STEP_CANDIDATES`, by the smallest clipped objective
(:meth:`~sklearn_dpgd._engine._oracle.PrivateGradientOracle.noisy_argmin`; the
report-noisy-min line search of Lee & Kifer, KDD 2018, Algorithm 1). The iterate
stays in the ball (a convex combination of its start and the vertices), and has
at most ``T`` non-zero coefficients after ``T`` iterations from zero.

Every selection is ``epsilon_0``-bounded range (Durfee & Rogers, NeurIPS 2019),
hence ``epsilon_0^2 / 8``-zCDP and ``(alpha, min(epsilon_0, alpha epsilon_0^2 /
8))``-RDP at every order (Cesar & Rogers, ALT 2021, Lemma 3.2;
:func:`~sklearn_dpgd.accounting.bounded_range_rdp`). The ``2 T`` selections of a
fixed plan compose by adding their RDP (Mironov, CSF 2017, Prop. 1), converted
to ``(epsilon, delta)`` by Canonne, Kamath & Steinke (2020, Prop. 12); the run is
also refused by a fixed-order Rényi filter before any selection would overspend.
Nothing reads the number of rows: the scores are sums, whose argmax is the
mean's, so no public size or noisy count is needed.
"""

import numpy as np
from scipy.optimize import brentq

from .._base import FitResult, model_arrays
from ..accounting import bounded_range_rdp, rdp_epsilon
from ..accounting._rdp import DEFAULT_ORDERS
from ._progress import Deciles

#: Iterations of ``max_iter="auto"``. More iterations sharpen the optimisation
#: (Frank-Wolfe's error falls like ``r^2 / T``) and allow more non-zero
#: coefficients (at most ``T``), while each selection gets less of the budget
#: (``epsilon_0`` falls like ``epsilon / sqrt(T)``). Chosen on an 80/20 holdout
#: of Adult's *training* split (never its test split; epsilon 0.1, 0.4, 1.6, C
#: 0.05 and 1, among T = 15, 25, 35, 50, 100, 200, 400): 50 was best or within
#: 0.01 of the best in every cell.
FRANK_WOLFE_STEPS = 50

#: L1 radius of ``C=1`` (and of ``C=None`` with ``alpha="auto"``, scikit-learn's
#: ``C=1``); :func:`frank_wolfe_radius`.
RADIUS_AT_C1 = 200.0

#: Exponent of ``C`` in :func:`frank_wolfe_radius`.
RADIUS_EXPONENT = 0.5

#: Candidate step sizes of the line search: 0 (stay) and ``2^-k``, ``k = 0..11``.
STEP_CANDIDATES = np.concatenate(([0.0], 2.0 ** -np.arange(12)))

#: ``C_obj``: the clip of each row's loss in the line search's scores (the
#: full-batch value of :class:`~sklearn_dpgd.schedules.LineSearchSchedule`; on
#: the holdout above 0.7 and 1.5 stalled at the intercept, 8 lost 0.5-2 points).
OBJECTIVE_CLIP = 3.0


def frank_wolfe_radius(C):
    """The L1 radius ``r = RADIUS_AT_C1 * C^RADIUS_EXPONENT`` of a public ``C``.

    A public rule, read from nothing but ``C``: scikit-learn's penalised problem
    ``C sum loss + ||w||_1`` and the constrained one ``||(w, b)||_1 <= r`` have
    the same solutions for some data-dependent ``r(C)``, increasing in ``C``. On
    Adult's training split (one-hot, min-max, unit-norm rows), the L1 norm of
    scikit-learn's solution (coefficients and intercept) was 18, 65, 136, 203
    and 387 at ``C`` = 0.01, 0.05, 0.2, 1 and 5; ``200 sqrt(C)`` follows it
    within a factor 1.6. For other scalings of the features set ``C`` by the
    radius you want: ``C = (r / 200)^2``.

    Parameters
    ----------
    C : float
        Inverse penalty strength, > 0 and finite.

    Returns
    -------
    radius : float
        ``r`` > 0.
    """
    return RADIUS_AT_C1 * float(C) ** RADIUS_EXPONENT


def selections_epsilon(epsilon_0, n_selections, delta):
    """``epsilon`` at ``delta`` of ``n_selections`` ``epsilon_0``-bounded-range
    selections composed in RDP.

    Parameters
    ----------
    epsilon_0 : float
        Bounded-range parameter of one selection, > 0.
    n_selections : int
        >= 1.
    delta : float
        In (0, 1).

    Returns
    -------
    epsilon : float
        ``rdp_epsilon(n * min(epsilon_0, alpha epsilon_0^2 / 8))`` over the
        package's default orders.
    """
    rdp = n_selections * bounded_range_rdp(DEFAULT_ORDERS, epsilon_0)
    return rdp_epsilon(rdp, DEFAULT_ORDERS, delta)


def selection_epsilon(epsilon, delta, n_selections):
    """The largest ``epsilon_0`` whose ``n_selections`` selections spend at most
    ``epsilon`` at ``delta`` (one root-find; :func:`selections_epsilon`).

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).
    n_selections : int
        >= 1.

    Returns
    -------
    epsilon_0 : float
        In (0, epsilon]: a relative 1e-9 below the exact root, so that rounding
        never takes the run over its budget.
    """

    def excess(e0):
        return selections_epsilon(e0, n_selections, delta) - epsilon

    if excess(epsilon) <= 0:  # one selection's pure epsilon is never exceeded
        return float(epsilon)
    root = brentq(excess, epsilon * 1e-9, epsilon, xtol=1e-14, rtol=1e-12)
    return float(root) * (1.0 - 1e-9)


def solve(
    oracle,
    privacy_filter,
    *,
    n_steps,
    radius,
    epsilon_0,
    initial,
    verbose,
    dtype,
    fit_intercept,
    delta,
):
    """Run ``n_steps`` private Frank-Wolfe iterations and account for them.

    Parameters
    ----------
    oracle : PrivateGradientOracle
        The only access to the data; charges ``privacy_filter`` before each
        selection.
    privacy_filter : FixedOrderRenyiFilter
        The fit's filter, with room for ``2 n_steps`` selections of ``epsilon_0``.
    n_steps : int
        ``T`` >= 1.
    radius : float
        ``r`` > 0: the L1 ball of the coefficients and intercepts.
    epsilon_0 : float
        Bounded-range parameter of each selection (:func:`selection_epsilon`).
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public start in the ball; None starts from zero.
    verbose : int
        >= 1: one line per tenth of the iterations (selected indices only).
    dtype : numpy dtype
        The dtype of the released coefficients.
    fit_intercept : bool
        Whether the last column of each output's block is an intercept.
    delta : float
        The fit's delta, reported with the spend (``epsilon_`` is computed at it).

    Returns
    -------
    result : FitResult
        ``ledger`` is one :class:`~sklearn_dpgd.accounting.NoisyMaxSteps` of
        ``2 T`` Gumbel selections, ``mu`` None, ``learning_rates`` the selected
        steps ``eta_t`` and ``public_n_samples`` None (no size was used).

    Raises
    ------
    BudgetExhaustedError
        If ``privacy_filter`` refuses a selection (the plan exceeds its cap).
    """
    d, k = oracle.n_features, oracle.n_outputs
    theta = np.zeros((k, d + 1)) if initial is None else np.array(initial, float)
    etas = np.empty(n_steps)
    progress = Deciles(verbose)
    for t in range(n_steps):
        W, b = theta[:, :d].copy(), theta[:, d].copy()
        output, coordinate, sign = oracle.noisy_vertex(W, b, radius, epsilon_0)
        vertex = np.zeros_like(theta)
        vertex[output, coordinate] = sign * radius
        # theta - eta D moves towards the vertex.
        direction = theta - vertex
        j = oracle.noisy_argmin(
            W,
            b,
            direction[:, :d].copy(),
            direction[:, d].copy() if fit_intercept else np.zeros(k),
            STEP_CANDIDATES,
            np.zeros(STEP_CANDIDATES.size),
            OBJECTIVE_CLIP,
            epsilon_0,
            noise="gumbel",
        )
        # Post-processing of the two selections.
        etas[t] = STEP_CANDIDATES[j]
        theta -= etas[t] * direction
        if progress((t + 1) / n_steps):
            print(
                f"iteration {t + 1}/{n_steps}: vertex ({output}, {coordinate}, "
                f"{sign:+d}), step {etas[t]:.4g}"
            )
    coef, intercept = model_arrays(theta[:, :d], theta[:, d], dtype, fit_intercept)
    ledger = privacy_filter.ledger
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=ledger,
        mu=None,
        epsilon=selections_epsilon(epsilon_0, 2 * n_steps, float(delta)),
        delta=float(delta),
        public_n_samples=None,
        n_iter=n_steps,
        learning_rates=etas,
        outputs={"l1_radius_": float(radius)},
    )
