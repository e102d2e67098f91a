"""Slow, obviously-correct NumPy twins of the compiled kernels.

They form the n-by-d matrix of per-example gradients that the kernels avoid, and
follow ``../shared/algorithms.md`` (Notation, Losses) line by line.
"""

import numpy as np
from scipy.special import expit


def loss_derivative(z, loss, h=0.5):
    """dl/dz of the margin loss at signed margins z (ndarray)."""
    z = np.asarray(z, dtype=float)
    if loss == "logistic":
        return -expit(-z)
    return np.where(z < 1 - h, -1.0, np.where(z <= 1 + h, -(1 + h - z) / (2 * h), 0.0))


def loss_value(z, loss, h=0.5):
    z = np.asarray(z, dtype=float)
    if loss == "logistic":
        return np.logaddexp(0.0, -z)
    return np.where(
        z < 1 - h, 1 - z, np.where(z <= 1 + h, (1 + h - z) ** 2 / (4 * h), 0.0)
    )


def clipped_gradient_sum(X, y, coef, intercept, fit_intercept, clip_norm, loss, h=0.5):
    """sum_i clip(g_i, C) with g_i = l'(y_i m_i) y_i [x_i, 1]; shape (d + 1,)."""
    n = X.shape[0]
    ones = np.ones((n, 1)) if fit_intercept else np.zeros((n, 1))
    Xa = np.hstack([X, ones])
    margins = Xa @ np.append(coef, intercept if fit_intercept else 0.0)
    G = (loss_derivative(y * margins, loss, h) * y)[:, None] * Xa
    norms = np.linalg.norm(G, axis=1)
    factor = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    return (G * factor[:, None]).sum(axis=0)


def noisy_gradient_descent(
    X,
    y,
    noise,
    *,
    learning_rate,
    alpha,
    clip_norm,
    momentum,
    average,
    loss="logistic",
    fit_intercept=True,
    sensitivity=None,
):
    """The whole private GD loop given pre-drawn noise of shape (T, d + 1).

    ``noise[t]`` is step t's standard-normal draw times its noise multiplier z_t; it
    is scaled by the sensitivity here. Heavy ball, then the mean of the last
    ceil(average * T) iterates.
    """
    sensitivity = clip_norm if sensitivity is None else sensitivity
    n, d = X.shape
    T = noise.shape[0]
    theta = np.zeros(d + 1)
    velocity = np.zeros(d + 1)
    iterates = []
    for t in range(T):
        g = clipped_gradient_sum(
            X, y, theta[:d], theta[d], fit_intercept, clip_norm, loss
        )
        step_noise = sensitivity * noise[t]
        if not fit_intercept:
            step_noise[d] = 0.0
        g = (g + step_noise) / n
        g[:d] += alpha * theta[:d]
        velocity = momentum * velocity - learning_rate * g
        theta = theta + velocity
        iterates.append(theta)
    k = max(1, int(np.ceil(average * T)))
    theta = np.mean(iterates[T - k :], axis=0)
    return theta[:d], theta[d]
