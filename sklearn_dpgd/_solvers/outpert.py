"""Output perturbation: the regularised minimiser plus Gaussian noise.

Chaudhuri, Monteleoni & Sarwate, "Differentially private empirical risk
minimization", JMLR 12, 2011, Alg. 1 and Thm 6; Lowy & Razaviyayn, "Output
perturbation for differentially private convex optimization with improved population
loss bounds, runtimes and applications to private adversarial training",
arXiv:2102.04704, 2021, Alg. 6. The sensitivity argument is in
:class:`~sklearn_dpgd.OutputPerturbationClassifier`.
"""

import math

import numpy as np
from scipy.optimize import minimize

from ._erm import clip_rows, loss_and_residuals, margin_smoothness, release_result


def _regularised_objective(
    X, y, loss, n_outputs, alpha, fit_intercept, divisor, weights=None
):
    """``theta -> (F, grad F)`` of ``(1/m) sum_i w_i l_i + alpha/2 ||theta||^2``.

    ``m = divisor`` is the public size, not the number of rows: then adding a row
    only adds the term ``w_new l_new / m`` and leaves the others' weights alone (a
    divisor ``n`` would reweight every row, doubling the sensitivity). ``theta`` is
    flat, of shape ``(K * (d + fit_intercept),)``; intercepts are penalised too
    (strong convexity in every released coordinate). ``weights`` None: every
    ``w_i = 1`` (a weight of exactly 1 multiplies exactly, so unit weights give
    the same floats).
    """
    d = X.shape[1]
    width = d + int(fit_intercept)
    divisor = float(divisor)

    def fun(flat):
        theta = flat.reshape(n_outputs, width)
        M = np.asarray(X @ theta[:, :d].T)
        if fit_intercept:
            M = M + theta[:, d]
        value, R = loss_and_residuals(M, y, loss)
        if weights is not None:
            value, R = value * weights, R * weights[:, None]
        grad = np.empty_like(theta)
        grad[:, :d] = np.asarray(X.T @ R).T / divisor
        if fit_intercept:
            grad[:, d] = R.sum(axis=0) / divisor
        grad += alpha * theta
        return value.sum() / divisor + 0.5 * alpha * flat @ flat, grad.ravel()

    return fun


def _solve_to_tolerance(fun, dim, tol, smoothness, alpha):
    """A point whose gradient has L2 norm at most ``tol`` (or RuntimeError).

    L-BFGS-B first; if it stops above ``tol`` (line-search failure, iteration cap),
    gradient descent with step ``1 / smoothness`` continues from its point: on an
    ``alpha``-strongly convex, ``smoothness``-smooth objective each such step
    multiplies the gradient norm by at most ``1 - alpha / smoothness``, so the
    number of steps needed is known in advance and the loop ends with the tolerance
    met, in exact arithmetic, on every data set.
    """
    result = minimize(
        fun,
        np.zeros(dim),
        jac=True,
        method="L-BFGS-B",
        # L-BFGS-B's gtol bounds the largest |coordinate|; ||g||_2 <= sqrt(dim) of it.
        options={"gtol": tol / math.sqrt(dim), "ftol": 0.0, "maxiter": 20 * dim + 500},
    )
    theta = result.x
    _, grad = fun(theta)
    norm = float(np.linalg.norm(grad))
    if norm > tol:
        n_steps = math.ceil(math.log(norm / tol) / -math.log1p(-alpha / smoothness))
        for _ in range(n_steps + 10):
            theta = theta - grad / smoothness
            _, grad = fun(theta)
            norm = float(np.linalg.norm(grad))
            if norm <= tol:
                break
    if not norm <= tol:
        # Unreachable in exact arithmetic (see above); only floating-point failure
        # gets here, and then nothing is released.
        raise RuntimeError(
            f"the solver could not reach the gradient tolerance tol={tol:g} in "
            "floating point; no model is released. Increase tol."
        )
    return theta


def solve(
    X,
    y_index,
    n_outputs,
    *,
    loss,
    data_norm,
    fit_intercept,
    lipschitz,
    factor,
    alpha,
    tol,
    mu,
    count_multiplier,
    public_n_samples,
    rng,
    delta,
    weights=None,
    max_weight=1.0,
):
    """Solve the regularised problem on clipped rows and release it with noise.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Validated private features.
    y_index : ndarray of shape (n_samples,)
        Class indices.
    n_outputs : int
        1 (binary) or the number of classes.
    loss : {"logistic", "huber_hinge"}
    data_norm : float
        Rows are clipped to this norm.
    fit_intercept : bool
    lipschitz : float
        ``L``, the per-example gradient bound.
    factor : float
        Sensitivity factor of the minimiser (1 add/remove, 2 replace).
    alpha : float
        The resolved L2 penalty (> 0).
    tol : float
        Gradient-norm tolerance of the solver.
    mu : float
        GDP parameter of the release.
    count_multiplier : float or None
        Noise multiplier of the row count, None if none ran.
    public_n_samples : int
        The public size ``m``, the objective's divisor.
    rng : numpy.random.Generator or SecureGenerator
        Source of the release's noise.
    delta : float
    weights : ndarray of shape (n_samples,) or None, default=None
        The rows' weights ``w_i`` in ``[0, max_weight]`` (validated); None: 1.
    max_weight : float, default=1.0
        ``w_max``, the public bound of the weights: a row's term
        ``w_i l_i / m`` is ``w_max L``-Lipschitz, so the minimiser's
        sensitivity is ``f w_max L / (m alpha)``.

    Returns
    -------
    result : FitResult
        ``outputs`` holds ``alpha_``, ``sensitivity_`` and ``noise_scale_``.

    Raises
    ------
    RuntimeError
        If the solver fails in floating point to reach ``tol``.
    """
    n_rows, d = X.shape
    width = d + int(fit_intercept)
    dim = n_outputs * width
    m = public_n_samples
    # One row's term w_i l_i / m is (w_max L)-Lipschitz: the unweighted argument
    # (see OutputPerturbationClassifier) with L replaced by w_max L.
    sensitivity = factor * max_weight * lipschitz / (m * alpha) + 2.0 * tol / alpha
    Xc = clip_rows(X, float(data_norm))
    fun = _regularised_objective(
        Xc, y_index, loss, n_outputs, alpha, fit_intercept, m, weights
    )
    row_sq = float(data_norm) ** 2 + float(fit_intercept)
    # Smoothness of (1/m) sum_i l_i over n rows. It depends on n, but it only
    # sets the internal step of the fallback solver: the released point is the
    # minimiser to within tol / alpha whatever the path, and nothing about the
    # path (iterations, steps) is released.
    smoothness = (
        margin_smoothness(loss, n_outputs) * row_sq * max_weight * max(1.0, n_rows / m)
        + alpha
    )
    theta = _solve_to_tolerance(fun, dim, tol, smoothness, alpha)

    sigma = sensitivity / mu
    while sensitivity / sigma > mu:  # never report more than the budget
        sigma = math.nextafter(sigma, math.inf)
    theta = theta + sigma * np.asarray(rng.standard_normal(dim), dtype=float)
    return release_result(
        theta.reshape(n_outputs, width),
        X.dtype,
        fit_intercept,
        mu_train_spent=sensitivity / sigma,
        count_multiplier=count_multiplier,
        delta=delta,
        public_n_samples=m,
        outputs={"alpha_": alpha, "sensitivity_": sensitivity, "noise_scale_": sigma},
    )
