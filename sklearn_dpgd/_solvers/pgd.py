"""Private preconditioned gradient descent for the binary and multinomial
logistic, squared and Huber losses.

One Gaussian release of the clipped rows' Gram matrix ``G~ = (sum_i x~_i
x~_i^T + E) / m`` (``PrivateNewtonOracle.noisy_gram``), then ``T`` noisy
full-batch gradients ``g~_t``, each followed by the step
``theta <- theta - M^{-1} g~_t`` with ``M = [G~]_+ / 4 + D``: Böhning's
curvature bound of the logistic loss (its Hessian is at most ``G / 4``;
Böhning & Lindsay 1988, Böhning 1992) made private by the noisy Gram and
damped by ``D``, the public damping plus the L2 penalty. The released model
is the mean of the iterates from ``BURN_IN`` on. Every step after the two
kinds of release is post-processing, and all releases are Gaussian
mechanisms of fixed noise multipliers, so they compose exactly in GDP (Dong,
Roth & Su 2022, Cor. 3.3): ``mu^2 = z_G^-2 + T z_g^-2``.

The preconditioner is the one of second-order private optimisation (Ganesh,
Haghifam, Steinke & Thakurta, NeurIPS 2023, who release directions instead);
releasing the Gram once and reusing it at every step is what makes this solver
cost ``1 + T`` passes (``T = 20``) instead of gradient descent's hundreds.

For the squared loss of a regressor the curvature bound is the Gram itself
(its Hessian is exactly ``G``: ``M = [G~]_+ + D``, a damped private Newton step
of least squares); the Huber loss's Hessian ``sum_{|r_i| <= h} x~_i x~_i^T /
m`` is at most ``G``, so it takes the same ``M`` (:data:`PGD_CURVATURE`).
For the softmax over ``K >= 3`` classes the bound is Böhning's Kronecker
product ``(1/2) (I_K - 1 1^T / K) (x) G`` (Böhning 1992), solved through the
eigendecompositions of its two factors (:func:`multinomial_preconditioner`).
"""

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh

from .._base import model_arrays
from ._progress import Deciles
from ._result import coefficient_mask, gdp_fit_result, start_point

# The constants below were chosen on 80/20 holdouts of Adult's and Bank's
# *training* splits (never their test splits; 6 seeds, epsilon 0.4, 1.6, 4,
# among T {10, 20, 40}, shares {0.15, 0.3, 0.5}, kappa {0.25, 0.5, 1}), with
# T held at 20 for speed (40 was up to 0.1 point better at 1.6 and 4, at twice
# the time); the docs' performance page gives their test accuracy.

#: The curvature factor ``c`` of each loss: its Hessian is at most ``c G`` (the
#: mean Gram of the clipped rows), since ``l''(m) <= c`` in the margin.
PGD_CURVATURE = {"logistic": 0.25, "squared": 1.0, "huber": 1.0}

#: The softmax's curvature factor: its Hessian is at most ``(1/2) (I_K - 1 1^T /
#: K) (x) G`` (Böhning 1992), the Kronecker bound :func:`multinomial_preconditioner`
#: solves.
MULTINOMIAL_CURVATURE = 0.5

#: Share of the training's ``mu^2`` given to the Gram release (the rest is
#: split evenly between the gradients).
GRAM_SHARE = 0.3

#: Gradient steps ``T`` of ``max_iter="auto"``.
PGD_STEPS = 20

#: ``kappa`` of :func:`pgd_damping`.
DAMPING_FACTOR = 0.25

#: The first iterate averaged (0-based; the mean runs to the last): the steps
#: before it are the burn-in from the start. Chosen on the same holdouts after
#: the grid: averaging from step 5 instead of the last half took Adult's gap to
#: gradient descent from -0.24 to -0.16 point at epsilon 1.6 (8 seeds).
BURN_IN = 5


#: The public plan of each loss: ``(T of max_iter="auto", Gram share, kappa,
#: clip_norm of "auto")``; a clip of None is :func:`auto_clip_norm`'s rule (the
#: logistic loss's, above). The regressors' (squared and Huber losses of the
#: target scaled into [-1, 1]) were chosen on 80/20 holdouts of Adult's
#: *training* split (target hours-per-week) and of a correlated synthetic
#: regression (4 seeds, epsilon 0.1, 0.5, 1, 4; 40 settings among Gram shares
#: {0.05, 0.1, 0.3}, T {20, 40, 60}, burn-in {2, 5}, clip {0.25, 0.5, "auto"},
#: kappa {0.25, 1}): the logistic plan was 0.007-0.022 R^2 behind gradient
#: descent at epsilon 0.5-1; this one was ahead in all 8 cells (+0.0002 to
#: +0.18). T = 20 lost 0.001-0.004 of that at half the time, and on
#: scikit-learn's diabetes table (309 training rows, not tuned on) 0.04-0.06
#: R^2 at epsilon 1 and 4, where T = 40 stayed within 0.002 of gradient
#: descent. A small Gram share suffices because the Gram only preconditions:
#: the fixed point of the steps is the clipped gradient's zero whatever ``M``.
#: The Huber loss takes the squared loss's plan (its gradient, at most ``h R``,
#: is within the clip at the default threshold).
PGD_PLANS = {
    "logistic": (PGD_STEPS, GRAM_SHARE, DAMPING_FACTOR, None),
    "squared": (40, 0.1, 1.0, 0.5),
    "huber": (40, 0.1, 1.0, 0.5),
}

#: The plan of the softmax (``K >= 3`` classes), in :data:`PGD_PLANS`' format;
#: its clip is gradient descent's multiclass threshold (1.0). Chosen on 80/20
#: holdouts of the training splits of digits and of a 5-class synthetic table
#: (3 seeds, epsilon 0.4, 1.6, 4; T {20, 40, 60}, Gram shares {0.1, 0.3},
#: kappa {0.25, 1}, clip {0.5, 1, sqrt(2) R}): clip 1 and T = 40 gained 1-4
#: points on digits at epsilon 1.6 and 4 over the binary plan; share 0.1 gained
#: 2-7 points on digits at 0.4 and 1.6 and lost at most 0.12 on the synthetic
#: table (``benchmarks/bench_multiclass_solver.py`` prints the comparison).
MULTINOMIAL_PLAN = (40, 0.1, DAMPING_FACTOR, 1.0)


def pgd_noise_multipliers(mu_train, n_steps, gram_share=GRAM_SHARE):
    """``(z_G, z_g)``: the noise multipliers of the Gram release and of each
    of ``n_steps`` gradients, spending ``mu_train`` (GDP) exactly.

    Parameters
    ----------
    mu_train : float
        GDP budget of the releases, > 0.
    n_steps : int
        ``T`` >= 1.
    gram_share : float, default=GRAM_SHARE
        Share of ``mu_train^2`` spent on the Gram, in (0, 1).

    Returns
    -------
    z_gram, z_gradient : float
        ``1 / (sqrt(share) mu)`` and ``sqrt(T / ((1 - share) mu^2))``, so that
        ``z_gram^-2 + T z_gradient^-2 = mu_train^2``.
    """
    z_gram = 1.0 / (math.sqrt(gram_share) * mu_train)
    z_gradient = math.sqrt(n_steps / ((1.0 - gram_share) * mu_train**2))
    return z_gram, z_gradient


def pgd_damping(gram_noise_std, width, factor=DAMPING_FACTOR, curvature=0.25):
    """The damping ``lambda = kappa 2 sqrt(w) sigma c`` of the preconditioner.

    ``sigma`` is the standard deviation of each entry of the mean Gram's noise
    (``z_G S / m``: public) and ``2 sqrt(w) sigma`` the spectral norm of a
    ``w x w`` symmetric Gaussian matrix of that entry scale (the semicircle
    law's edge); ``c`` is the loss's curvature factor (Böhning's ``1 / 4`` for
    the logistic loss, 1 for the squared and Huber losses). With ``kappa = 1/2`` the
    damping covers half the noise's largest eigenvalue: the noisy Gram's
    spurious small eigenvalues cannot make a step explode.

    Parameters
    ----------
    gram_noise_std : float
        ``sigma`` > 0.
    width : int
        ``w``: coefficients plus the intercept.
    factor : float, default=DAMPING_FACTOR
        ``kappa``.
    curvature : float, default=0.25
        ``c`` (:data:`PGD_CURVATURE`).

    Returns
    -------
    damping : float
    """
    return factor * 2.0 * math.sqrt(width) * gram_noise_std * curvature


def preconditioner(noisy_gram, damping, penalty, fit_intercept, curvature=0.25):
    """The Cholesky factor of ``M = c [G~]_+ + D`` (post-processing).

    Parameters
    ----------
    noisy_gram : ndarray of shape (w, w)
        Symmetric released Gram matrix (its negative eigenvalues are set to 0).
    damping : float
        ``lambda > 0``, on every coordinate.
    penalty : float
        L2 penalty ``alpha >= 0``, on the coefficients (not the intercept).
    fit_intercept : bool
        Whether the last coordinate is the intercept.
    curvature : float, default=0.25
        ``c`` (:data:`PGD_CURVATURE`).

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`.
    """
    matrix = _psd_part(noisy_gram, curvature)
    matrix[np.diag_indices(matrix.shape[0])] += _damping_diagonal(
        matrix.shape[0], damping, penalty, fit_intercept
    )
    return cho_factor(matrix)


def _psd_part(noisy_gram, scale=1.0):
    """``scale [G~]_+``: the released Gram with its negative eigenvalues set to 0."""
    values, vectors = eigh(noisy_gram)
    return (vectors * (np.maximum(values, 0.0) * scale)) @ vectors.T


def _damping_diagonal(width, damping, penalty, fit_intercept):
    """``D``: ``damping + penalty`` on the coefficients, ``damping`` on the
    intercept (the last coordinate, if fitted)."""
    diagonal = np.full(width, float(damping) + float(penalty))
    if fit_intercept:
        diagonal[-1] -= float(penalty)
    return diagonal


def multinomial_preconditioner(
    noisy_gram, damping, penalty, fit_intercept, n_classes,
    curvature=MULTINOMIAL_CURVATURE,
):  # fmt: skip
    """Eigen-factors of ``M = c (B (x) [G~]_+) + I_K (x) D`` (post-processing).

    ``B = I_K - 1 1^T / K`` is Böhning's bound of the softmax's probability
    curvature (``diag(pi) - pi pi^T <= B / 2``; Böhning 1992), so ``M``
    bounds the multinomial loss's Hessian over the ``K`` blocks of ``w``
    coordinates (class by class), damped by ``D`` (``damping + penalty`` on the
    coefficients, ``damping`` on the intercept). ``M`` is never formed: with
    ``D^{-1/2} [G~]_+ D^{-1/2} = V diag(g) V^T`` and ``B = U diag(b) U^T``,
    ``M = D^{1/2} (U (x) V) diag(1 + c b_k g_j) (U (x) V)^T D^{1/2}`` (``D``
    acting on each block), so a solve costs ``O(K w (K + w))``
    (:func:`multinomial_solve`) and the factors ``O(w^3 + K^3)``.

    Parameters
    ----------
    noisy_gram : ndarray of shape (w, w)
        Symmetric released Gram matrix (its negative eigenvalues are set to 0).
    damping : float
        ``lambda > 0``.
    penalty : float
        L2 penalty ``alpha >= 0`` of the coefficients.
    fit_intercept : bool
        Whether the last coordinate of each block is the intercept.
    n_classes : int
        ``K >= 3``.
    curvature : float, default=MULTINOMIAL_CURVATURE
        ``c``.

    Returns
    -------
    factors : tuple
        For :func:`multinomial_solve`.
    """
    diagonal = _damping_diagonal(noisy_gram.shape[0], damping, penalty, fit_intercept)
    scale = 1.0 / np.sqrt(diagonal)
    gram = _psd_part(noisy_gram)
    g_values, g_vectors = eigh(gram * scale[:, None] * scale[None, :])
    b_values, b_vectors = eigh(np.eye(n_classes) - 1.0 / n_classes)
    spectrum = np.outer(np.maximum(b_values, 0.0), np.maximum(g_values, 0.0))
    return scale, b_vectors, g_vectors, 1.0 + curvature * spectrum


def multinomial_solve(factors, gradient):
    """``M^{-1} g`` for :func:`multinomial_preconditioner`'s ``M``.

    Parameters
    ----------
    factors : tuple
        :func:`multinomial_preconditioner`'s.
    gradient : ndarray of shape (K, w)
        One block of ``w`` coordinates per class (the flat vector's rows).

    Returns
    -------
    step : ndarray of shape (K, w)
    """
    scale, b_vectors, g_vectors, denominators = factors
    rotated = b_vectors.T @ (gradient * scale) @ g_vectors / denominators
    return (b_vectors @ rotated @ g_vectors.T) * scale


def solve(
    oracle,
    privacy_filter,
    *,
    n_steps,
    z_gram,
    z_gradient,
    gram_sensitivity,
    alpha,
    initial,
    verbose,
    dtype,
    fit_intercept,
    delta,
    adaptive_plan=False,
    cap_epsilon=None,
    diagnostics=None,
    clip_norm=1.0,
    gradient_clip=None,
    curvature=0.25,
    damping_factor=DAMPING_FACTOR,
):
    """Release the Gram, run ``n_steps`` preconditioned noisy steps, account.

    Parameters
    ----------
    oracle : PrivateNewtonOracle
        The only access to the data (``n_outputs=1``: binary logistic, or a
        regressor's squared or Huber loss; ``n_outputs=K >= 3``: the softmax,
        preconditioned by :func:`multinomial_preconditioner`); charges
        ``privacy_filter`` before each query.
    privacy_filter : GaussianPrivacyFilter
        The fit's GDP filter (the noisy count, if any, already charged).
    n_steps : int
        ``T`` >= 1.
    z_gram, z_gradient : float
        Noise multipliers (:func:`pgd_noise_multipliers`).
    gram_sensitivity : float
        ``S`` of the Gram release (``sklearn_dpgd._engine._oracle.gram_sensitivity``),
        public; sets the damping.
    alpha : float
        L2 penalty of the coefficients (>= 0), public.
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public starting point; None starts from zero.
    verbose : int
        >= 1: one line per tenth of the steps (privatised values only).
    dtype : numpy dtype
        The dtype of the released coefficients.
    fit_intercept : bool
    delta : float
    adaptive_plan : bool, default=False
        Whether the plan used a noisy count: the filter's cap is then reported.
    cap_epsilon : float or None, default=None
        The epsilon the cap was calibrated to.
    diagnostics : tuple (before, after) or None, default=None
        The utility checks of :func:`sklearn_dpgd.linear_model._utility.utility_checks`,
        run on the same filter before and after the steps.
    clip_norm : float, default=1.0
        The row clip, passed to the row-norm check.
    gradient_clip : float or None, default=None
        Bound ``C`` of each row's gradient norm (None: the loss's bound).
    curvature : float, default=0.25
        ``c`` of the oracle's loss (:data:`PGD_CURVATURE`): ``M = c [G~]_+ + D``.
    damping_factor : float, default=DAMPING_FACTOR
        ``kappa`` of :func:`pgd_damping` (:data:`PGD_PLANS`).

    Returns
    -------
    result : FitResult
        ``noise_multipliers`` holds ``z_G`` then ``z_g`` of every step;
        ``learning_rates`` is None.
    """
    d, k = oracle.n_features, oracle.n_outputs
    width = d + int(bool(fit_intercept))
    theta = start_point(initial, k, d)
    if diagnostics is not None and diagnostics[0] is not None:
        diagnostics[0](privacy_filter=privacy_filter, clip_norm=clip_norm)
    first = len(privacy_filter.noise_multipliers)
    gram = oracle.noisy_gram(z_gram)
    damping = pgd_damping(
        z_gram * gram_sensitivity / oracle.n_samples, width, damping_factor, curvature
    )
    if k == 1:
        factor = preconditioner(gram, damping, alpha, fit_intercept, curvature)
    else:
        factor = multinomial_preconditioner(
            gram, damping, alpha, fit_intercept, k, curvature
        )
    coefs = coefficient_mask(k, d)
    tail = min(BURN_IN, n_steps - 1)  # the iterates averaged: t >= tail
    mean = np.zeros(k * (d + 1))
    progress = Deciles(verbose)
    for t in range(n_steps):
        grad = oracle.noisy_gradient(theta, z_gradient, gradient_clip)
        grad[coefs] += alpha * theta[coefs]
        # Post-processing of the two releases: a preconditioned step.
        if k == 1:
            theta[:width] -= cho_solve(factor, grad[:width])
        else:
            blocks = theta.reshape(k, d + 1)
            blocks[:, :width] -= multinomial_solve(
                factor, grad.reshape(k, d + 1)[:, :width]
            )
        if t >= tail:
            mean += theta / (n_steps - tail)
        if progress((t + 1) / n_steps):
            print(
                f"step {t + 1}/{n_steps}: ||noisy gradient||={np.linalg.norm(grad):.4g}"
            )
    mean = mean.reshape(k, d + 1)
    coef, intercept = mean[:, :d], mean[:, d]
    if diagnostics is not None and diagnostics[1] is not None:
        diagnostics[1](coef, intercept, privacy_filter=privacy_filter)
    coef, intercept = model_arrays(coef, intercept, dtype, fit_intercept)
    return gdp_fit_result(
        privacy_filter,
        adaptive_plan=adaptive_plan,
        cap_epsilon=cap_epsilon,
        delta=delta,
        coef=coef,
        intercept=intercept,
        public_n_samples=oracle.n_samples,
        n_iter=n_steps,
        noise_multipliers=np.asarray(privacy_filter.noise_multipliers)[
            first : first + 1 + n_steps
        ],
        outputs={"preconditioner_damping_": damping},
    )
