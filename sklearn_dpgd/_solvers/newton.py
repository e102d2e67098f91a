"""Private damped Newton for the logistic loss (binary or multinomial): the
double-noise mechanism.

Each iteration releases two Gaussian mechanisms through the oracle
(:class:`~sklearn_dpgd._engine._oracle.PrivateNewtonOracle`): a noisy gradient
``g~`` (noise multiplier ``z_g``), then, for that public ``g~``, the damped Newton
direction ``(H / m + D)^{-1} g~`` plus Gaussian noise calibrated to its
sensitivity (noise multiplier ``z_d``), and steps ``theta <- theta - direction``
(Ganesh, Haghifam, Steinke & Thakurta, "Faster Differentially Private Convex
Optimization via Second-Order Methods", NeurIPS 2023, Algorithm 3, the "add"
regularisation). The Hessian itself is never released. All releases are Gaussian
mechanisms of fixed noise multipliers: they compose exactly in GDP (Dong, Roth &
Su 2022, Cor. 3.3), ``mu^2 = T (z_g^-2 + z_d^-2)``.
"""

import math

import numpy as np

from .._base import model_arrays
from ._progress import Deciles
from ._result import coefficient_mask, gdp_fit_result, start_point

# The three constants below were chosen on an 80/20 holdout of Adult's
# *training* split (never its test split; 2 seeds, epsilon 0.1, 0.4, 1.6, among
# shares {0.3, 0.6}, T {2, 4, 8, 16}, kappa {0.1, 0.2, 0.3, 0.5, 1, 2}).

#: Share of the training's ``mu^2`` given to the gradients (the rest to the
#: directions).
GRADIENT_SHARE = 0.3

#: Iterations of ``max_iter="auto"``.
NEWTON_STEPS = 8

#: ``kappa`` of the damping rule :func:`newton_damping`.
DAMPING_FACTOR = 0.3


def newton_noise_multipliers(mu_train, n_steps, gradient_share=GRADIENT_SHARE):
    """``(z_g, z_d)``: the noise multipliers of ``n_steps`` iterations spending
    ``mu_train`` (GDP) exactly.

    Parameters
    ----------
    mu_train : float
        GDP budget of the iterations, > 0.
    n_steps : int
        ``T`` >= 1.
    gradient_share : float, default=GRADIENT_SHARE
        Share of ``mu_train^2`` spent on the gradients, in (0, 1).

    Returns
    -------
    z_gradient, z_direction : float
        ``sqrt(T / (share mu^2))`` and ``sqrt(T / ((1 - share) mu^2))``.
    """
    z_gradient = math.sqrt(n_steps / (gradient_share * mu_train**2))
    z_direction = math.sqrt(n_steps / ((1.0 - gradient_share) * mu_train**2))
    return z_gradient, z_direction


def newton_damping(curvature_bound, z_direction, n_params, factor=DAMPING_FACTOR):
    """The damping of the Newton directions:
    ``lambda = max(kappa (c z_d)^(1/3), c z_d sqrt(p))``.

    A public function of the public size (through ``c = R^2 / (4 m)``), the width
    and the budget. The direction noise has std ``z_d ||g|| c / lambda^2`` per
    coordinate at most and the bias of the damping grows like ``lambda``; the
    first term, ``lambda^3 ~ c z_d``, balances them (the rate of the minimum
    eigenvalue of Ganesh et al., Algorithm 3, with our sum-form constants). The
    second keeps the noise's norm, ``sqrt(p) z_d ||g|| c / lambda^2``, below the
    damped step's scale ``||g|| / lambda``: it binds only on small tables at
    small budgets (not on Adult or Bank at epsilon >= 0.1), where without it the
    steps were noise (breast cancer, epsilon 0.1: test accuracy 0.38, below the
    majority class); it was set by that argument, not tuned.

    Parameters
    ----------
    curvature_bound : float
        ``c`` > 0 (:attr:`PrivateNewtonOracle.curvature_bound`).
    z_direction : float
        ``z_d`` > 0.
    n_params : int
        ``p``: coefficients plus the intercept.
    factor : float, default=DAMPING_FACTOR
        ``kappa``.

    Returns
    -------
    damping : float
    """
    noise_scale = curvature_bound * z_direction
    return max(factor * noise_scale ** (1.0 / 3.0), noise_scale * math.sqrt(n_params))


def solve(
    oracle,
    privacy_filter,
    *,
    n_steps,
    z_gradient,
    z_direction,
    damping,
    alpha,
    initial,
    verbose,
    dtype,
    fit_intercept,
    delta,
    n_counted,
    adaptive_plan=False,
    cap_epsilon=None,
    calibrate=None,
    diagnose=None,
):
    """Run ``n_steps`` private damped Newton iterations and account for them.

    Parameters
    ----------
    oracle : PrivateNewtonOracle
        The only access to the data; charges ``privacy_filter`` before each query.
    privacy_filter : GaussianPrivacyFilter
        The fit's GDP filter (the noisy count, if any, already charged).
    n_steps : int
        ``T`` >= 1.
    z_gradient, z_direction : float
        Noise multipliers (:func:`newton_noise_multipliers`).
    damping : float
        ``lambda`` > 0 (:func:`newton_damping`).
    alpha : float
        L2 penalty of the coefficients (>= 0), public.
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public starting point; None starts from zero.
    verbose : int
        >= 1: one line per tenth of the iterations (privatised values only).
    dtype : numpy dtype
        The dtype of the released coefficients.
    fit_intercept : bool
    delta : float
    n_counted : int
        Records charged before the iterations (the noisy count).
    adaptive_plan : bool, default=False
        Whether the damping was set from a noisy count: the filter's cap is then
        reported (as :func:`sklearn_dpgd._solvers.gd.solve` does).
    cap_epsilon : float or None, default=None
        The epsilon the cap was calibrated to.
    calibrate : callable or None, default=None
        Private temperature scaling run on the same filter afterwards.
    diagnose : callable or None, default=None
        ``diagnose(coef, intercept, privacy_filter=...)``, run last on the same
        filter with the released arrays (the utility check of the predicted
        classes, as in :func:`sklearn_dpgd._solvers.gd.solve`).

    Returns
    -------
    result : FitResult
        ``noise_multipliers`` holds ``z_g, z_d`` of every iteration, in order;
        ``learning_rates`` is None.
    """
    d, k = oracle.n_features, oracle.n_outputs
    theta = start_point(initial, k, d)
    coefs = coefficient_mask(k, d)
    progress = Deciles(verbose)
    for t in range(n_steps):
        grad = oracle.noisy_gradient(theta, z_gradient)
        grad[coefs] += alpha * theta[coefs]
        direction = oracle.noisy_direction(theta, grad, damping, alpha, z_direction)
        # Post-processing of the two releases: a full Newton step.
        theta -= direction
        if progress((t + 1) / n_steps):
            print(
                f"iteration {t + 1}/{n_steps}: ||noisy gradient||="
                f"{np.linalg.norm(grad):.4g}, ||noisy direction||="
                f"{np.linalg.norm(direction):.4g}"
            )
    params = theta.reshape(k, d + 1)
    coef, intercept = params[:, :d], params[:, d]
    scale = None
    if calibrate is not None:
        coef, intercept, scale = calibrate(
            coef, intercept, privacy_filter=privacy_filter
        )
    coef, intercept = model_arrays(coef, intercept, dtype, fit_intercept)
    if diagnose is not None:
        diagnose(coef, intercept, privacy_filter=privacy_filter)
    return gdp_fit_result(
        privacy_filter,
        adaptive_plan=adaptive_plan,
        cap_epsilon=cap_epsilon,
        delta=delta,
        coef=coef,
        intercept=intercept,
        public_n_samples=oracle.n_samples,
        n_iter=n_steps,
        noise_multipliers=privacy_filter.noise_multipliers[
            n_counted : n_counted + 2 * n_steps
        ],
        outputs={
            "calibration_": None if calibrate is None else "temperature",
            "calibration_scale_": scale,
        },
    )
