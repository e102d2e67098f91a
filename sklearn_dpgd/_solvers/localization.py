"""Phased localization: one-pass SGD phases, each released with Gaussian noise.

Feldman, Koren & Talwar, "Private Stochastic Convex Optimization: Optimal Rates in
Linear Time", STOC 2020, Sec. 4. The sensitivity argument is in
:class:`~sklearn_dpgd.PhasedLocalizationClassifier`.
"""

import math

import numpy as np
import scipy.sparse as sp

from ._erm import clip_rows, loss_and_residuals, release_result
from .snowball import assign_slots

# Sensitivity factor of a phase, in units of L eta_i: neighbours differ in the
# content of one slot (a replacement, also under add/remove, where the slots are
# fixed by the public size).
SLOT_FACTOR = 2.0


def _one_pass_sgd(X, y, rows, loss, theta, eta, fit_intercept, weights=None):
    """Average of the iterates of one-pass SGD over ``rows`` from ``theta`` (copied).

    ``theta`` has shape (K, d + fit_intercept). A row index of -1 is an empty slot:
    no step (a zero gradient), but its iterate still counts in the average, which is
    therefore always over the phase's public planned size. Row ``i``'s step is
    ``eta w_i grad l_i`` (``weights`` None: ``w_i = 1``). Non-private: the caller
    adds noise.
    """
    d = X.shape[1]
    theta = theta.copy()
    average = np.zeros_like(theta)
    sparse = sp.issparse(X)
    for t, i in enumerate(rows):
        if i < 0:
            average += (theta - average) / (t + 1)
            continue
        if sparse:
            lo, hi = X.indptr[i], X.indptr[i + 1]
            cols, values = X.indices[lo:hi], X.data[lo:hi]
            margins = theta[:, cols] @ values
        else:
            values = X[i]
            margins = theta[:, :d] @ values
        if fit_intercept:
            margins = margins + theta[:, d]
        _, R = loss_and_residuals(margins[None, :], y[i : i + 1], loss)
        r = (eta if weights is None else eta * weights[i]) * R[0]
        if sparse:
            theta[:, cols] -= np.outer(r, values)
        else:
            theta[:, :d] -= np.outer(r, values)
        if fit_intercept:
            theta[:, d] -= r
        average += (theta - average) / (t + 1)
    return average


def solve(
    X,
    y_index,
    n_outputs,
    *,
    loss,
    data_norm,
    fit_intercept,
    lipschitz,
    beta,
    radius,
    learning_rate,
    mu,
    count_multiplier,
    public_n_samples,
    rng,
    delta,
    weights=None,
    max_weight=1.0,
):
    """Run the phases and release the last one's noisy output.

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
    beta : float
        Smoothness of the per-example loss (the steps must be at most ``2 / beta``).
    radius : float
        Radius of the comparator ball (the "auto" step).
    learning_rate : float or "auto"
        The first phase's step (checked against ``2 / beta`` by the caller).
    mu : float
        GDP parameter of the release.
    count_multiplier : float or None
        Noise multiplier of the row count, None if none ran.
    public_n_samples : int
        The public size ``m``: the phase sizes ``m / 2^i``.
    rng : numpy.random.Generator or SecureGenerator
        Source of the slot order and the noise.
    delta : float
    weights : ndarray of shape (n_samples,) or None, default=None
        The rows' weights ``w_i`` in ``[0, max_weight]`` (validated); None: 1.
    max_weight : float, default=1.0
        ``w_max``, the public bound of the weights: a weighted step is a gradient
        step on ``w_i l_i``, ``w_max L``-Lipschitz and ``w_max beta``-smooth, so
        ``Delta_i = 2 w_max L eta_i`` and the steps must be at most
        ``2 / (w_max beta)``.

    Returns
    -------
    result : FitResult
        ``learning_rates`` the phases' steps; ``outputs`` holds ``phase_sizes_``,
        ``sensitivities_`` and ``noise_scales_``.
    """
    n_rows, d = X.shape
    width = d + int(fit_intercept)
    n_params = n_outputs * width
    m = public_n_samples
    k = math.ceil(math.log2(m))
    sizes = np.array([m >> i for i in range(1, k + 1)], dtype=np.int64)
    sizes = sizes[sizes > 0]
    if learning_rate == "auto":
        diameter = 2.0 * float(radius)
        # The rule of the unweighted fit with L and beta those of w_i l_i: the
        # step is 1 / w_max times the unweighted one, and the product eta w_i,
        # hence the fit, depends only on the ratios w_i / w_max.
        eta = (diameter / (max_weight * lipschitz)) * min(
            1.0 / math.sqrt(sizes[0]),
            mu / (SLOT_FACTOR * math.sqrt(n_params)),
        )
        eta = min(eta, 2.0 / (max_weight * beta))
    else:
        eta = float(learning_rate)
    etas = eta / 4.0 ** np.arange(sizes.shape[0])
    sensitivities = SLOT_FACTOR * max_weight * lipschitz * etas
    sigmas = sensitivities / mu
    while np.max(sensitivities / sigmas) > mu:
        sigmas = np.nextafter(sigmas, np.inf)

    Xc = clip_rows(X, float(data_norm))
    # The uniformly random injection of Snowball-SGD's slots: slot s holds row
    # order[s], or nothing (-1; assign_slots marks it with n_rows).
    order = assign_slots(n_rows, int(sizes.sum()), rng)
    order[order == n_rows] = -1
    theta = np.zeros((n_outputs, width))
    start = 0
    for size, eta_i, sigma_i in zip(sizes, etas, sigmas, strict=True):
        rows = order[start : start + size]
        start += size
        theta = _one_pass_sgd(
            Xc, y_index, rows, loss, theta, eta_i, fit_intercept, weights
        )
        noise = np.asarray(rng.standard_normal(theta.size), dtype=float)
        theta = theta + sigma_i * noise.reshape(theta.shape)
    return release_result(
        theta,
        X.dtype,
        fit_intercept,
        mu_train_spent=float(np.max(sensitivities / sigmas)),
        count_multiplier=count_multiplier,
        delta=delta,
        public_n_samples=m,
        learning_rates=etas,
        outputs={
            "phase_sizes_": sizes,
            "sensitivities_": sensitivities,
            "noise_scales_": sigmas,
        },
    )
