"""Snowball-SGD: one-pass projected noisy SGD with growing batches.

The ``solver="snowball"`` path of the GD estimators: Feldman, Koren & Talwar,
"Private Stochastic Convex Optimization: Optimal Rates in Linear Time", STOC 2020,
Sec. 3 (Thm 3.1: privacy by amplification by iteration; Thm 3.5: the plan).

Neighbouring relation and what is public
----------------------------------------
The guarantee holds under the estimator's ``neighboring`` relation: replace-one
(``"replace"``) or add/remove-one (``"add_remove"``, the default). Public are
epsilon, delta, the dimension, ``clip_norm``, ``radius``, ``alpha``, the loss and
the *public size* ``m`` (:mod:`sklearn_dpgd._public_size`): a declared
``public_n_samples``, the exact ``n`` under ``"replace"``, and otherwise a noisy
count charged to the fit's budget. The exact ``n`` is never used by the plan.

Mechanism
---------
1. ``rho`` such that ``(alpha, alpha rho^2 / 2)``-RDP for all orders converts to
   ``(epsilon, delta)``-DP (the RDP-to-DP conversion of
   :func:`sklearn_dpgd.accounting.rdp_epsilon`; Canonne, Kamath & Steinke, "The
   Discrete Gaussian for Differential Privacy", NeurIPS 2020). Amplification by
   iteration bounds Rényi divergences only, so the exact GDP conversion of the GD
   path does not apply here.
2. If ``m`` must be estimated, the count (sensitivity 1) gets Gaussian noise of
   std ``z_c`` with ``1 / z_c^2 = COUNT_SHARE rho^2``, an ``alpha / (2 z_c^2)``
   RDP curve, and the training gets ``rho_train^2 = (1 - COUNT_SHARE) rho^2``: the
   two compose (Mironov, "Rényi Differential Privacy", CSF 2017, Prop. 1) to
   exactly ``alpha rho^2 / 2``, within the budget. Otherwise ``rho_train = rho``.
3. Noise std ``L / sqrt(p)`` per coordinate of the batch-mean gradient, ``p`` the
   number of parameters (Thm 3.5: ``sigma = L / sqrt(d)``), i.e. noise multiplier
   ``z_t = B_t / (2 sqrt(p))`` on the batch sum of sensitivity ``2 L``.
4. Batch sizes ``B_t = ceil(2 sqrt(p) / (rho_train sqrt(T - t + 1)))`` for
   ``t = 1..T`` (Thm 3.5's ``ceil(sqrt(4 d / (rho^2 (T - t + 1))))``), with the
   largest horizon ``T`` such that ``M = sum_t B_t <= m``. Thm 3.1 then gives
   ``max_t 2 sqrt(p) / (B_t sqrt(T - t + 1)) <= rho_train``.
5. A constant step ``eta = D / (L sqrt(2 T))`` (Thm 3.2, after Shamir & Zhang,
   "Stochastic Gradient Descent for Non-smooth Optimization", ICML 2013, as used
   in Thm 3.5, with gradient second moment at most ``2 L^2``), ``D = 2 radius``,
   capped at ``2 / beta`` so that every step is a contraction (Prop. 2.10).
6. The ``M`` slots of the plan (``B_1`` slots of step 1, then ``B_2``, ...) are
   matched with the rows by a uniformly random injection drawn from the seed: if
   ``n >= M``, ``M`` distinct random rows fill the slots in a random order (the
   other rows are not used); if ``n < M``, the ``n`` rows occupy ``n`` distinct
   random slots and the others stay empty (a zero row, whose gradient is zero).
   Step ``t`` divides its noisy sum by the public ``B_t``, never by the number of
   rows present.

Sensitivity: ``2 L`` under both relations
-----------------------------------------
Thm 3.1 is a replace-one statement: for two runs whose batches differ in one slot
of one step ``t``, the last iterates are ``(alpha, alpha rho^2 / 2)``-Rényi close
with ``rho = max_t Delta eta_t / (B_t sqrt(sum_{s >= t} eta_s^2 sigma_s^2))``,
``Delta`` the largest change of that step's gradient sum. Replacing one row by
another changes it by up to ``2 L`` (two clipped gradients of norm ``L``). Under
add/remove, ``Delta = L`` would be wrong: the batches have fixed sizes, so an
added row takes the place of a row that would otherwise have been used (a
replacement, ``2 L``). The coupling below shows this is the worst case, so
``Delta = 2 L`` under both relations.

Coupling (``D`` with ``n`` rows, ``D' = D`` plus a row ``x``). Write the slot
assignment as a uniformly random arrangement ``pi`` of ``K = max(n, M)`` items
(the rows, plus ``K - n`` interchangeable blanks), slot ``j`` holding ``pi[j]``
for ``j < M``; this is exactly the injection of item 6.

* ``n >= M``: draw ``pi'`` uniform over the ``n + 1`` rows of ``D'``. If ``x`` is
  at position ``k``, let ``pi`` be ``pi'`` with its last item moved to position
  ``k`` and the last position dropped (``pi = pi'[:n]`` if ``k = n``). Each
  arrangement of ``D``'s rows has exactly ``n + 1`` preimages (one per ``k``), so
  ``pi`` is uniform. If ``k >= M`` the first ``M`` items agree: identical runs.
  If ``k < M`` they differ in slot ``k`` only, which holds ``x`` in ``D'`` and a
  row of ``D`` in ``D``: a replacement in exactly one step.
* ``n < M`` (so ``n + 1 <= M`` and both datasets use ``K = M``): draw ``pi'``
  uniform for ``D'`` and let ``pi`` be ``pi'`` with ``x`` turned into a blank; the
  positions of ``D``'s rows are then a uniform injection, so ``pi`` is uniform.
  The runs differ in the one slot of ``x``: an addition (``L <= 2 L``).

Every coupled pair of runs thus differs in at most one slot of one step, by at
most ``2 L``, and Thm 3.1 bounds its Rényi divergence (both orders of the pair)
by ``alpha rho^2 / 2``. The output distributions of ``D`` and ``D'`` are
mixtures of these runs with the same weights, and the Rényi divergence is
jointly quasi-convex (van Erven & Harremoës, "Rényi Divergence and
Kullback-Leibler Divergence", IEEE Trans. Inf. Theory 60(7), 2014, Thm 13): the
mixtures obey the same bound. Under replace-one, ``n`` and the assignment are the
same for both datasets and they differ in at most one slot. The plan depends on
``m`` only, so a noisy ``m`` is post-processing of the charged count.

Assumptions of Thm 3.1, and how they are met: the per-example losses must be convex,
``L``-Lipschitz and ``beta``-smooth. Each row ``[x_i, 1]`` (intercept included) is
scaled to norm at most ``R = clip_norm / G_K`` (``G_K`` bounds the norm of the
loss's derivative in the margins: 1 binary, ``sqrt(2)`` softmax, ``sqrt(K)``
one-vs-rest hinge). The scaling multiplies the whole margin of the row by a factor
in (0, 1], so each per-example loss stays convex, is ``L = clip_norm``-Lipschitz
(the clipping of the oracle's kernel never binds; it stays as the guarantee of the
sensitivity) and ``beta = c R^2``-smooth, ``c`` the loss's curvature in the margin
(1/4 binary logistic, 1/2 softmax, ``1/(2h)`` hinge). Clipping gradients alone
would not do: it keeps convexity for binary models but leaves ``beta`` unbounded
in ``||x_i||``, and for multiclass models it need not keep a gradient field.
The L2 penalty ``alpha/2 ||coef||^2`` is data-independent: it adds ``alpha`` to
``beta`` and nothing to the sensitivity.
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq

from .._base import FitResult, model_arrays
from .._engine import _losses
from .._engine._oracle import PrivateGradientOracle
from .._engine._randomness import make_generator, spawn_seeds
from .._engine._threads import BLOCK_ROWS, num_threads, set_num_threads
from .._public_size import (
    COUNT_SHARE,
    count_noise_multiplier,
    needs_count,
    resolve_public_size,
)
from ..accounting import (
    DEFAULT_ORDERS,
    AmplifiedIterationFilter,
    GaussianSteps,
    SnowballSteps,
    rdp_epsilon,
)

# Sensitivity of a step's gradient sum in units of L, under both relations: the
# batches have fixed public sizes, so an added row takes another row's place
# (module docstring, "Sensitivity").
SENSITIVITY_FACTOR = 2.0


def snowball_rho(epsilon, delta, orders=DEFAULT_ORDERS):
    """Largest ``rho`` whose ``alpha rho^2 / 2`` RDP curve gives ``(epsilon, delta)``.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    orders : array-like of shape (n_orders,), default=DEFAULT_ORDERS
        Rényi orders of the conversion.

    Returns
    -------
    rho : float
        With ``rdp_epsilon(orders * rho**2 / 2, orders, delta) <= epsilon``.
    """
    orders = np.asarray(orders, dtype=float)

    def excess(log_rho):
        rho = math.exp(log_rho)
        return rdp_epsilon(0.5 * orders * rho * rho, orders, delta) - epsilon

    lo, hi = -30.0, 10.0
    log_rho = brentq(excess, lo, hi, xtol=1e-14)
    while excess(log_rho) > 0:
        log_rho -= 1e-12
    return math.exp(log_rho)


def snowball_batch_sizes(public_size, n_params, rho, factor=SENSITIVITY_FACTOR):
    """Batch sizes of Snowball-SGD: the longest plan within ``public_size`` slots.

    Parameters
    ----------
    public_size : int
        The public size ``m`` (never the private ``n`` under add/remove).
    n_params : int
        Number of parameters ``p`` (the paper's ``d``).
    rho : float
        Target RDP parameter of the training steps.
    factor : float, default=SENSITIVITY_FACTOR
        The sensitivity of a step's gradient sum in units of ``L`` (2: see the
        module docstring).

    Returns
    -------
    batch_sizes : ndarray of shape (T,), int64
        ``B_t = ceil(factor sqrt(p) / (rho sqrt(T - t + 1)))``, non-decreasing,
        ``sum <= public_size``, with the largest such ``T``.

    Raises
    ------
    ValueError
        If even one step does not fit (``B_1 > public_size`` for ``T = 1``). The
        message names public values only.
    """
    m = int(public_size)
    c = factor * math.sqrt(n_params) / rho

    def sizes(T):
        return np.ceil(c / np.sqrt(np.arange(T, 0, -1, dtype=float))).astype(np.int64)

    if sizes(1).sum() > m:
        raise ValueError(
            f"solver='snowball' needs a batch of {int(sizes(1)[0])} rows for even one "
            f"step at this budget, but the public size public_n_samples_ is {m}: "
            "raise epsilon or use solver='gd'."
        )
    lo, hi = 1, m  # sizes(T).sum() >= T, so T <= m
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sizes(mid).sum() <= m:
            lo = mid
        else:
            hi = mid - 1
    return sizes(lo)


def assign_slots(n_rows, n_slots, rng):
    """Rows of the plan's slots: a uniformly random injection (module docstring).

    Parameters
    ----------
    n_rows : int
        Number of private rows ``n``.
    n_slots : int
        Number of slots ``M = sum_t B_t`` (public).
    rng : numpy.random.Generator or SecureGenerator
        Source of the random arrangement.

    Returns
    -------
    slots : ndarray of shape (n_slots,), int64
        The row of each slot, in step order; ``n_rows`` marks an empty slot (the
        zero row appended by :func:`fit_snowball`). Distinct rows, each used once.
    """
    # One uniform arrangement of max(n, M) items, items >= n being blanks: for
    # n >= M the first M of a random permutation of the rows; for n < M the rows
    # land in n distinct uniform slots. Both cases of the coupling argument.
    items = np.asarray(rng.permutation(max(n_rows, n_slots)), dtype=np.int64)
    slots = items[:n_slots].copy()
    slots[slots >= n_rows] = n_rows
    return slots


def _gradient_bound(loss, n_outputs):
    if n_outputs == 1:
        return 1.0
    return math.sqrt(2.0) if loss == "logistic" else math.sqrt(n_outputs)


def _scaled_rows(X, fit_intercept, bound):
    """``s_i [x_i, 1]`` (or ``s_i x_i``) with ``s_i = min(1, bound / ||[x_i, 1]||)``,
    followed by one zero row (the empty slot)."""
    n = X.shape[0]
    if sp.issparse(X):
        X = X.astype(np.float64)
        if fit_intercept:
            X = sp.hstack([X, np.ones((n, 1))], format="csr")
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        scale = np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))
        X = sp.vstack([sp.diags(scale) @ X, sp.csr_matrix((1, X.shape[1]))])
        X = sp.csr_matrix(X)
        X.sort_indices()
        return X
    X = np.asarray(X, dtype=np.float64)
    width = X.shape[1] + int(fit_intercept)
    out = np.zeros((n + 1, width))
    out[:n, : X.shape[1]] = X
    if fit_intercept:
        out[:n, -1] = 1.0
    rows = out[:n]
    top = np.max(np.abs(rows), axis=1, keepdims=True)
    top[top == 0] = 1.0
    norms = top[:, 0] * np.linalg.norm(rows / top, axis=1)
    rows *= np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))[:, None]
    return out


def fit_snowball(
    X,
    y_index,
    n_outputs,
    *,
    seed,
    epsilon,
    delta,
    neighboring,
    public_n_samples,
    fit_intercept,
    clip_norm,
    radius,
    alpha,
    loss,
    huber_width,
    margin_smoothness,
    secure_mode,
    sample_weight=None,
    max_weight=1.0,
):
    """Run Snowball-SGD on validated data; return what the fit releases.

    The caller has charged the active ledgers with the fit's ``(epsilon, delta)``;
    the noisy count of the rows (when the public size must be estimated) and the
    training steps together stay within it.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Validated private features.
    y_index : ndarray of shape (n_samples,), int64
        Class indices.
    n_outputs : int
        1 (binary) or the number of classes.
    seed : numpy.random.SeedSequence
        The fit's seed, from :func:`sklearn_dpgd._engine._randomness.draw_seed` (ignored
        in ``secure_mode``).
    epsilon, delta : float
        The fit's budget.
    neighboring : {"add_remove", "replace"}
        The neighbouring relation.
    public_n_samples : int or None
        The declared public size, or None.
    fit_intercept : bool
        Whether the last (scaled) column is an intercept.
    clip_norm : float
        ``L``, the resolved clipping threshold.
    radius : float
        Radius of the ball the iterates are projected on.
    alpha : float
        The resolved L2 penalty.
    loss : {"logistic", "huber_hinge"}
        The loss (a key of ``_losses.LOSS_CODES``).
    huber_width : float
        Width of the huberised hinge (unused by the logistic loss).
    margin_smoothness : float
        Curvature ``c`` of the loss in the margin.
    secure_mode : bool
        Whether every generator is the secure sampler.
    sample_weight : ndarray of shape (n_samples,), float64, or None, default=None
        Per-row weights in ``[0, max_weight]`` (sample times class weights); None:
        every weight is 1.
    max_weight : float, default=1.0
        ``w_max``, public. A weighted row's loss ``w_i l_i`` is ``w_max L``-Lipschitz
        and ``w_max beta``-smooth: the oracle scales the sensitivity by ``w_max``
        (the noise multipliers, in its units, are unchanged) and the step cap
        becomes ``2 / (w_max beta + alpha)``, so every step stays a contraction.

    Returns
    -------
    result : FitResult
        Coefficients in ``X``'s dtype, ``n_iter = T``, the plan's step sizes, the
        noise multipliers and ledger of its filter, ``mu=None`` and the epsilon
        its filter spent.

    Raises
    ------
    ValueError
        If the budget is too small for one step at the public size (the
        estimator has refused ``batch_size`` and ``schedule`` already).
    """
    n, d = X.shape
    fit_intercept = bool(fit_intercept)
    width = d + int(fit_intercept)
    n_params = n_outputs * width
    radius = float(radius)
    row_bound = clip_norm / _gradient_bound(loss, n_outputs)
    beta = max_weight * margin_smoothness * row_bound**2 + alpha
    secure = bool(secure_mode)
    count_seed, order_seed, noise_seed = spawn_seeds(seed, 3)
    privacy_filter = AmplifiedIterationFilter(epsilon, delta)

    rho = snowball_rho(epsilon, delta)
    count_z = None
    rho_train = rho
    if needs_count(neighboring, public_n_samples):
        count_z = count_noise_multiplier(rho)
        # rho_c^2 + rho_train^2 = rho^2; the factor leaves room for rounding so
        # that the composed curve is not refused for one ulp.
        rho_train = rho * math.sqrt(1.0 - COUNT_SHARE) * (1.0 - 1e-9)
        privacy_filter.charge(GaussianSteps(count_z))  # before the count
    size = resolve_public_size(
        n,
        neighboring=neighboring,
        public_n_samples=public_n_samples,
        noise_multiplier=count_z,
        rng=make_generator(count_seed, secure) if count_z is not None else None,
    )
    m = size.n_samples

    batch_sizes = snowball_batch_sizes(m, n_params, rho_train, SENSITIVITY_FACTOR)
    T = batch_sizes.shape[0]
    noise_multipliers = batch_sizes / (SENSITIVITY_FACTOR * math.sqrt(n_params))
    eta = min(2.0 * radius / (clip_norm * math.sqrt(2.0 * T)), 2.0 / beta)
    plan = SnowballSteps(
        tuple(int(b) for b in batch_sizes),
        tuple(float(z) for z in noise_multipliers),
        (eta,) * T,
    )
    # Before any row is read; a plan sized by the noisy count is accounted by the
    # rho it was designed to (valid for every count), not by its realised rho.
    privacy_filter.reserve(plan, rho_bound=None if count_z is None else rho_train)

    slots = assign_slots(n, int(batch_sizes.sum()), make_generator(order_seed, secure))
    oracle = PrivateGradientOracle(
        _scaled_rows(X, fit_intercept, row_bound),
        np.append(np.asarray(y_index, dtype=np.int64), 0),  # the zero row's label
        n_outputs=n_outputs,
        loss=_losses.LOSS_CODES[loss],
        huber_width=huber_width,
        clip_norm=clip_norm,
        sensitivity=SENSITIVITY_FACTOR * clip_norm,
        fit_intercept=False,  # the intercept is the last (scaled) column
        privacy_filter=privacy_filter,
        rng=make_generator(noise_seed, secure),
        public_n_samples=m,
        # The zero row of the empty slot weighs 0 (its gradient is 0 anyway).
        sample_weight=None if sample_weight is None else np.append(sample_weight, 0.0),
        max_weight=max_weight,
    )
    theta = np.zeros((n_outputs, width))
    zeros = np.zeros(n_outputs)
    start = 0
    # Small data run on the NumPy twins: no kernel, no Numba thread to size.
    threads = None if oracle.runs_twins else num_threads()
    try:
        for b, z in zip(plan.batch_sizes, plan.noise_multipliers, strict=True):
            # A batch within one kernel block gains nothing from threads, and
            # waking them costs more than the batch; results do not depend on the
            # thread count (fixed blocks, _kernels.py).
            if threads is not None:
                set_num_threads(1 if b <= BLOCK_ROWS else threads)
            rows = slots[start : start + b]
            start += b
            # The oracle divides by len(rows) == b, the public planned size: an
            # empty slot is the zero row, which adds nothing to the sum.
            grad = oracle.noisy_batch_gradient(theta, zeros, rows, z, eta)[:, :width]
            grad[:, :d] += alpha * theta[:, :d]
            theta -= eta * grad
            norm = np.linalg.norm(theta)
            if norm > radius:  # Euclidean projection onto the ball (a contraction)
                theta *= radius / norm
    finally:
        if threads is not None:
            set_num_threads(threads)

    coef, intercept = model_arrays(
        theta[:, :d], theta[:, d] if fit_intercept else None, X.dtype, fit_intercept
    )
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=privacy_filter.ledger,
        mu=None,
        epsilon=privacy_filter.epsilon_spent,
        delta=float(delta),
        public_n_samples=m,
        n_iter=T,
        learning_rates=np.asarray(plan.learning_rates, dtype=float),
        noise_multipliers=privacy_filter.noise_multipliers,
    )
