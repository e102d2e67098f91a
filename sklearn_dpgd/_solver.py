"""The private training loop: arrays in, coefficients and the number of steps out."""

import math

import numpy as np


def initial_iterate(n_outputs, n_features, initial):
    """The first iterate, shape (n_outputs, n_features + 1): zero or a copy of the
    public ``initial`` point (intercepts in the last column)."""
    if initial is None:
        return np.zeros((n_outputs, n_features + 1))
    return np.array(initial, dtype=float)


def noisy_gradient_descent(
    oracle,
    *,
    noise_multipliers,
    learning_rates,
    alpha,
    momentum,
    average,
    normalize_steps=False,
    initial=None,
    verbose=0,
):
    """Full-batch private gradient descent with heavy-ball momentum and averaging.

    At step t the oracle returns the noisy clipped mean gradient ``g~_t`` at noise
    multiplier ``z_t`` (Hong, Wang & Zhou, FAccT 2022, Algorithm 1, line 4); the
    noiseless gradient of the L2 penalty ``alpha/2 ||w||^2`` is added (the intercept
    is not penalised), and the iterate moves by Polyak's heavy ball::

        v_{t+1} = momentum * v_t - eta_t * u_t,   u_t = g~_t + alpha w_t
        theta_{t+1} = theta_t + v_{t+1}

    With ``normalize_steps`` the direction is ``u_t / ||u_t||_2`` (the Frobenius
    norm over every output and the intercepts), so ``eta_t`` is the length of the
    step in parameter space, whatever the size of the gradient: normalised gradient
    descent (Hazan, Levy & Shalev-Shwartz, NeurIPS 2015, Alg. 1, NGD) under heavy
    ball (Cutkosky & Mehta, ICML 2020, normalise the momentum instead; here the
    private gradient is normalised and the momentum averages the directions). It
    keeps moving where the gradient of the logistic loss fades long before the
    optimum, and its step no longer depends on the units of ``clip_norm``.

    ``momentum = 0`` is plain private gradient descent; for ``momentum > 0`` this is
    the exponential moving average of Hong et al. (eq. 3, without its bias
    correction) with step size ``eta_t / (1 - momentum)``. The returned model is the
    mean of the last ``ceil(average * T)`` iterates (suffix averaging, Rakhlin,
    Shamir & Sridharan, ICML 2012), or the last iterate when ``average == 0``.
    Momentum, normalisation and averaging only post-process the private gradients:
    they cost no privacy.

    Parameters
    ----------
    oracle : PrivateGradientOracle
        The only access to the data; charges its privacy filter at every step.
    noise_multipliers : ndarray of shape (n_steps,)
        ``z_t``, noise std in units of the clipped-gradient sensitivity.
    learning_rates : ndarray of shape (n_steps,)
        Step sizes ``eta_t`` (> 0).
    alpha : float
        L2 penalty (>= 0).
    momentum : float
        Heavy-ball coefficient in [0, 1).
    average : float
        Fraction of the last iterates averaged, in [0, 1].
    normalize_steps : bool, default=False
        Whether each step follows the normalised direction ``u_t / ||u_t||``.
    initial : ndarray of shape (n_outputs, n_features + 1), default=None
        Public starting point ``theta_0`` (intercepts in the last column); None
        starts from zero.
    verbose : int
        If > 0, print one line per step with privatised quantities only.

    Returns
    -------
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    n_iter : int
        Number of steps taken.
    """
    d = oracle.n_features
    n_steps = len(noise_multipliers)
    n_averaged = max(1, math.ceil(average * n_steps))
    # One row per output: coefficients, then the intercept in the last column.
    theta = initial_iterate(oracle.n_outputs, d, initial)
    velocity = np.zeros_like(theta)
    theta_sum = np.zeros_like(theta)
    for t, (z, eta) in enumerate(zip(noise_multipliers, learning_rates, strict=True)):
        grad = oracle.noisy_gradient(theta[:, :d], theta[:, d], z)
        grad[:, :d] += alpha * theta[:, :d]
        if normalize_steps:
            norm = np.linalg.norm(grad)
            # The Gaussian noise makes a zero direction a null event; stay put then.
            direction = grad / norm if norm > 0.0 else grad
        else:
            direction = grad
        velocity *= momentum
        velocity -= eta * direction
        theta += velocity
        if t >= n_steps - n_averaged:
            theta_sum += theta
        if verbose:
            # Only post-processed private values are printed (never the loss).
            print(
                f"step {t + 1}/{n_steps}: noise_multiplier={z:.4g}, "
                f"||noisy gradient||={np.linalg.norm(grad):.4g}"
            )
    theta = theta_sum / n_averaged
    return theta[:, :d].copy(), theta[:, d].copy(), n_steps
