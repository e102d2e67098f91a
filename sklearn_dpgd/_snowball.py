"""Snowball-SGD: one-pass projected noisy SGD with growing batches (seed 002, Sec. 3).

The ``solver="snowball"`` path of the GD estimators. Every quantity of the run is a
function of public values (epsilon, delta, n, the dimension, clip_norm, radius,
alpha, the loss), fixed and approved by the privacy filter before any data is read:

1. ``rho`` such that ``(alpha, alpha rho^2 / 2)``-RDP for all orders converts to
   ``(epsilon, delta)``-DP (the RDP-to-DP conversion of
   :func:`sklearn_dpgd._subsampled.rdp_epsilon`, Canonne, Kamath & Steinke 2020).
   Amplification by iteration bounds Rényi divergences only, so the exact GDP
   conversion of the GD path does not apply here.
2. Noise std ``L / sqrt(p)`` per coordinate of the batch-mean gradient, ``p`` the
   number of parameters (Feldman, Koren & Talwar, Thm 3.5: ``sigma = L / sqrt(d)``),
   i.e. noise multiplier ``z_t = B_t / (f sqrt(p))`` on the batch sum of
   sensitivity ``f L`` (``f = 1`` add/remove-one, ``2`` replace-one).
3. Batch sizes ``B_t = ceil(f sqrt(p) / (rho sqrt(T - t + 1)))`` for ``t = 1..T``
   (Thm 3.5 writes ``ceil(sqrt(4 d / (rho^2 (T - t + 1))))``, its ``f = 2``), with
   the largest horizon ``T`` such that ``sum_t B_t <= n``. Then Thm 3.1 gives
   ``max_t f sqrt(p) / (B_t sqrt(T - t + 1)) <= rho``.
4. A constant step ``eta = D / (L sqrt(2 T))`` (Thm 3.2 of Shamir & Zhang as used in
   Thm 3.5, with gradient second moment at most ``2 L^2``), ``D = 2 radius``,
   capped at ``2 / beta`` so that every step is a contraction (Prop. 2.10).

The rows are visited in a random order drawn from the estimator's seed (part of the
mechanism; Thm 3.1 holds for every fixed order, so the guarantee does not rest on
the shuffle), each in exactly one batch; rows beyond ``sum_t B_t`` are not used.

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

import numba
import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from sklearn.utils import check_random_state

from . import _losses
from ._kernels import BLOCK_ROWS
from ._oracle import PrivateGradientOracle
from ._subsampled import DEFAULT_ORDERS, rdp_epsilon
from .accounting import AmplifiedIterationFilter, SnowballSteps


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


def snowball_batch_sizes(n_samples, n_params, rho, factor):
    """Batch sizes of Snowball-SGD: the longest plan that fits in ``n_samples`` rows.

    Parameters
    ----------
    n_samples : int
        Rows available (``n``).
    n_params : int
        Number of parameters ``p`` (the paper's ``d``).
    rho : float
        Target RDP parameter.
    factor : float
        1 (add/remove-one) or 2 (replace-one): the sensitivity in units of ``L``.

    Returns
    -------
    batch_sizes : ndarray of shape (T,), int64
        ``B_t = ceil(factor sqrt(p) / (rho sqrt(T - t + 1)))``, non-decreasing,
        ``sum <= n_samples``, with the largest such ``T``.

    Raises
    ------
    ValueError
        If even one step does not fit (``B_1 > n_samples`` for ``T = 1``).
    """
    c = factor * math.sqrt(n_params) / rho

    def sizes(T):
        return np.ceil(c / np.sqrt(np.arange(T, 0, -1, dtype=float))).astype(np.int64)

    if sizes(1).sum() > n_samples:
        raise ValueError(
            f"solver='snowball' needs a batch of {int(sizes(1)[0])} rows for even one "
            f"step at this budget, but n_samples={n_samples}: raise epsilon or use "
            "solver='gd'."
        )
    lo, hi = 1, n_samples  # sizes(T).sum() >= T, so T <= n_samples
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sizes(mid).sum() <= n_samples:
            lo = mid
        else:
            hi = mid - 1
    return sizes(lo)


def _gradient_bound(loss, n_outputs):
    if n_outputs == 1:
        return 1.0
    return math.sqrt(2.0) if loss == "logistic" else math.sqrt(n_outputs)


def _scaled_rows(X, fit_intercept, bound):
    """``s_i [x_i, 1]`` (or ``s_i x_i``) with ``s_i = min(1, bound / ||[x_i, 1]||)``."""
    if sp.issparse(X):
        X = X.astype(np.float64)
        if fit_intercept:
            X = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        scale = np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))
        X = sp.csr_matrix(sp.diags(scale) @ X)
        X.sort_indices()
        return X
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    else:
        X = X.copy()
    top = np.max(np.abs(X), axis=1, keepdims=True)
    top[top == 0] = 1.0
    norms = top[:, 0] * np.linalg.norm(X / top, axis=1)
    X *= np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))[:, None]
    return np.ascontiguousarray(X)


def fit_snowball(estimator, X, y_index, n_outputs):
    """Run Snowball-SGD for a GD estimator and set its fitted attributes.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM
        Validated; ``classes_`` already set.
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Validated private features.
    y_index : ndarray of shape (n_samples,), int64
        Class indices.
    n_outputs : int
        1 (binary) or the number of classes.

    Returns
    -------
    estimator : DPLogisticRegression or DPHuberSVM
        The fitted estimator.

    Raises
    ------
    ValueError
        If ``batch_size`` or ``schedule`` is set (they belong to ``solver="gd"``),
        or the budget is too small for one step.
    """
    if estimator.batch_size is not None or estimator.schedule is not None:
        raise ValueError(
            "solver='snowball' fixes its own batches and noise; batch_size and "
            "schedule must be None."
        )
    from .linear_model import _SENSITIVITY_FACTOR

    sensitivity_factor = _SENSITIVITY_FACTOR[estimator.neighboring]
    n, d = X.shape
    fit_intercept = bool(estimator.fit_intercept)
    width = d + int(fit_intercept)
    n_params = n_outputs * width
    clip_norm = estimator.clip_norm_
    radius = float(estimator.radius)
    alpha = float(estimator.alpha)
    row_bound = clip_norm / _gradient_bound(estimator._loss, n_outputs)
    margin_smoothness, _ = estimator._loss_constants(n_outputs)
    beta = margin_smoothness * row_bound**2 + alpha

    rho = snowball_rho(estimator.epsilon, estimator.delta)
    batch_sizes = snowball_batch_sizes(n, n_params, rho, sensitivity_factor)
    T = batch_sizes.shape[0]
    noise_multipliers = batch_sizes / (sensitivity_factor * math.sqrt(n_params))
    eta = min(2.0 * radius / (clip_norm * math.sqrt(2.0 * T)), 2.0 / beta)
    plan = SnowballSteps(
        tuple(int(b) for b in batch_sizes),
        tuple(float(z) for z in noise_multipliers),
        (eta,) * T,
    )
    privacy_filter = AmplifiedIterationFilter(estimator.epsilon, estimator.delta)
    privacy_filter.reserve(plan)  # before any data is read

    seed = check_random_state(estimator.random_state).randint(
        0, 2**32, size=4, dtype=np.uint64
    )
    rng = np.random.default_rng(seed)
    order = rng.permutation(n).astype(np.int64)
    oracle = PrivateGradientOracle(
        _scaled_rows(X, fit_intercept, row_bound),
        y_index,
        n_outputs=n_outputs,
        loss=_losses.LOSS_CODES[estimator._loss],
        huber_width=estimator._huber_width(),
        clip_norm=clip_norm,
        sensitivity=sensitivity_factor * clip_norm,
        fit_intercept=False,  # the intercept is the last (scaled) column
        privacy_filter=privacy_filter,
        rng=rng,
    )
    theta = np.zeros((n_outputs, width))
    zeros = np.zeros(n_outputs)
    start = 0
    threads = numba.get_num_threads()
    try:
        for b, z in zip(plan.batch_sizes, plan.noise_multipliers, strict=True):
            # A batch within one kernel block gains nothing from threads, and
            # waking them costs more than the batch; results do not depend on the
            # thread count (fixed blocks, _kernels.py).
            numba.set_num_threads(1 if b <= BLOCK_ROWS else threads)
            rows = order[start : start + b]
            start += b
            grad = oracle.noisy_batch_gradient(theta, zeros, rows, z)[:, :width]
            grad[:, :d] += alpha * theta[:, :d]
            theta -= eta * grad
            norm = np.linalg.norm(theta)
            if norm > radius:  # Euclidean projection onto the ball (a contraction)
                theta *= radius / norm
    finally:
        numba.set_num_threads(threads)

    estimator.schedule_ = None
    estimator.coef_ = theta[:, :d].astype(X.dtype)
    estimator.intercept_ = (
        theta[:, d] if fit_intercept else np.zeros(n_outputs)
    ).astype(X.dtype)
    estimator.n_iter_ = T
    estimator.learning_rates_ = np.asarray(plan.learning_rates, dtype=float)
    estimator.noise_multipliers_ = privacy_filter.noise_multipliers
    estimator.ledger_ = privacy_filter.ledger
    estimator.mu_ = None
    estimator.delta_ = float(estimator.delta)
    estimator.epsilon_ = privacy_filter.epsilon_spent
    return estimator
