"""Slow, obviously-correct NumPy twins of the compiled kernels and of the fit loop.

They form the n-by-K-by-(d+1) array of per-example gradients that the kernels avoid,
and follow Hong, Wang & Zhou (FAccT 2022), Algorithm 1, and the losses of Chen & Lee
(Sec. V-C) line by line.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax


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


_REGRESSION = ("squared", "huber")


def residuals(margins, y, loss, h=0.5):
    """d loss / d margin, shape (n, K): sigmoid (K=1), softmax or one-vs-rest;
    ``m - y`` (squared) or its clip to ``[-h, h]`` (Huber) for regression."""
    n, K = margins.shape
    if loss in _REGRESSION:
        r = margins[:, 0] - np.asarray(y, dtype=float)
        return (np.clip(r, -h, h) if loss == "huber" else r)[:, None]
    if K == 1:
        s = 2.0 * y - 1.0
        return (loss_derivative(s * margins[:, 0], loss, h) * s)[:, None]
    onehot = np.eye(K)[y]
    if loss == "logistic":
        return softmax(margins, axis=1) - onehot
    s = 2.0 * onehot - 1.0
    return loss_derivative(s * margins, loss, h) * s


def clipped_gradient_sum(
    X, y, W, b, fit_intercept, clip_norm, loss, h=0.5, weights=None
):
    """sum_i w_i clip(r_i outer [x_i, 1], C); shape (K, d + 1) (w_i = 1 if None)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    n = X.shape[0]
    ones = np.ones((n, 1)) if fit_intercept else np.zeros((n, 1))
    Xa = np.hstack([X, ones])
    Wa = np.hstack([W, (b if fit_intercept else np.zeros_like(b))[:, None]])
    R = residuals(Xa @ Wa.T, y, loss, h)
    G = R[:, :, None] * Xa[:, None, :]  # (n, K, d + 1): what the kernel avoids
    norms = np.sqrt((G**2).sum(axis=(1, 2)))
    factor = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    if weights is not None:
        factor = factor * np.asarray(weights, dtype=float)
    return (G * factor[:, None, None]).sum(axis=0)


def noisy_gradient_descent(
    X,
    y,
    noise,
    *,
    n_outputs,
    learning_rate,
    alpha,
    clip_norm,
    momentum,
    average,
    loss="logistic",
    h=0.5,
    fit_intercept=True,
    sensitivity=None,
    normalize_steps=False,
    initial=None,
):
    """The whole private GD loop given pre-drawn noise of shape (T, K, d + 1).

    ``noise[t]`` is step t's standard-normal draw times its noise multiplier z_t; it
    is scaled by the sensitivity here. Heavy ball, then the mean of the last
    ceil(average * T) iterates; with ``normalize_steps`` each step follows
    ``g / ||g||``; ``initial`` (K, d + 1) is the start (zero if None). Returns
    (coef (K, d), intercept (K,)).
    """
    sensitivity = clip_norm if sensitivity is None else sensitivity
    d = X.shape[1]
    T = noise.shape[0]
    theta = np.zeros((n_outputs, d + 1)) if initial is None else initial.copy()
    velocity = np.zeros_like(theta)
    iterates = []
    for t in range(T):
        g = clipped_gradient_sum(
            X, y, theta[:, :d], theta[:, d], fit_intercept, clip_norm, loss, h
        )
        step_noise = sensitivity * noise[t].copy()
        if not fit_intercept:
            step_noise[:, d] = 0.0
        g = (g + step_noise) / X.shape[0]
        g[:, :d] += alpha * theta[:, :d]
        if normalize_steps:
            g = g / np.sqrt(np.sum(g**2))
        velocity = momentum * velocity - learning_rate * g
        theta = theta + velocity
        iterates.append(theta)
    k = max(1, int(np.ceil(average * T)))
    theta = np.mean(iterates[T - k :], axis=0)
    return theta[:, :d], theta[:, d]


def per_example_losses(X, y, W, b, fit_intercept, loss, h=0.5):
    """Per-example loss of a linear model, shape (n,): sigmoid/softmax/OvR hinge."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    M = X @ W.T + (b if fit_intercept else 0.0)
    K = W.shape[0]
    if loss in _REGRESSION:
        r = np.abs(M[:, 0] - np.asarray(y, dtype=float))
        if loss == "huber":
            return np.where(r <= h, 0.5 * r**2, h * r - 0.5 * h**2)
        return 0.5 * r**2
    if K == 1:
        s = 2.0 * y - 1.0
        return loss_value(s * M[:, 0], loss, h)
    if loss == "huber_hinge":
        S = np.where(np.arange(K)[None, :] == y[:, None], 1.0, -1.0)
        return loss_value(S * M, loss, h).sum(axis=1)
    top = M.max(axis=1)
    lse = top + np.log(np.exp(M - top[:, None]).sum(axis=1))
    return lse - M[np.arange(len(y)), y]


def clipped_objective_along(
    X, y, W, b, D, db, etas, fit_intercept, clip, loss, h=0.5, weights=None
):
    """sum_i w_i min(l_i(theta - eta D), clip) for each eta (Lee & Kifer, KDD 2018,
    Alg. 1; w_i = 1 when ``weights`` is None)."""
    w = np.ones(X.shape[0]) if weights is None else weights
    return np.array(
        [
            w
            @ np.minimum(
                per_example_losses(X, y, W - e * D, b - e * db, fit_intercept, loss, h),
                clip,
            )
            for e in etas
        ]
    )
