"""What the two baseline solvers share: the losses in the margins, the clipped rows,
and the accounting of a Gaussian release (Dong, Roth & Su, "Gaussian differential
privacy", JRSS B 84(1), 2022, Cor. 3.3: the count and the release compose as
Gaussian mechanisms).
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit, logsumexp, softmax

from .._base import FitResult, model_arrays
from .._public_size import split_count_budget
from ..accounting import GaussianSteps, gdp_epsilon, gdp_mu

# The Huber width of the package (Chen & Lee, Stochastic adaptive line search for
# differentially private optimization, IEEE BigData 2020, Sec. V-C).
_HUBER_WIDTH = 0.5


def gradient_bound(loss, n_outputs):
    """``G_K``: bound on the norm of d loss / d margins (public constant)."""
    if n_outputs == 1:
        return 1.0
    if loss == "logistic":
        return math.sqrt(2.0)
    return math.sqrt(n_outputs)


def margin_smoothness(loss, n_outputs):
    """Largest eigenvalue of d^2 loss / d margins^2 over all margins (public)."""
    if loss == "huber_hinge":
        return 1.0 / (2.0 * _HUBER_WIDTH)
    # Binary logistic: sigma (1 - sigma) <= 1/4; softmax: diag(p) - p p^T <= 1/2.
    return 0.25 if n_outputs == 1 else 0.5


def _huber(z):
    h = _HUBER_WIDTH
    value = np.where(
        z < 1.0 - h, 1.0 - z, np.where(z <= 1.0 + h, (1.0 + h - z) ** 2 / (4 * h), 0.0)
    )
    deriv = np.where(
        z < 1.0 - h, -1.0, np.where(z <= 1.0 + h, -(1.0 + h - z) / (2 * h), 0.0)
    )
    return value, deriv


def loss_and_residuals(M, y, loss):
    """Per-row losses (m,) and residuals d loss / d margins (m, K) at margins M.

    Binary (K == 1): ``y`` in {0, 1}. Multiclass: softmax for the logistic loss,
    one-vs-rest for the Huber hinge (as :class:`~sklearn_dpgd.DPHuberSVM`).
    """
    m, K = M.shape
    if K == 1:
        s = 2.0 * y - 1.0
        z = s * M[:, 0]
        if loss == "logistic":
            value, deriv = -log_expit(z), -expit(-z)
        else:
            value, deriv = _huber(z)
        return value, (deriv * s)[:, None]
    if loss == "logistic":
        value = logsumexp(M, axis=1) - M[np.arange(m), y]
        R = softmax(M, axis=1)
        R[np.arange(m), y] -= 1.0
        return value, R
    S = -np.ones_like(M)
    S[np.arange(m), y] = 1.0
    value, deriv = _huber(S * M)
    return value.sum(axis=1), deriv * S


def clip_rows(X, data_norm):
    """Float64 copy of ``X`` with each row scaled to norm at most ``data_norm``."""
    if sp.issparse(X):
        X = X.astype(np.float64, copy=True)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        scale = np.minimum(1.0, data_norm / np.maximum(norms, np.finfo(float).tiny))
        return sp.csr_matrix(sp.diags(scale) @ X)
    X = np.array(X, dtype=np.float64, order="C")
    # Scaled norms cannot overflow for finite (validated) rows.
    top = np.max(np.abs(X), axis=1, keepdims=True)
    top[top == 0] = 1.0
    norms = top[:, 0] * np.linalg.norm(X / top, axis=1)
    X *= np.minimum(1.0, data_norm / np.maximum(norms, np.finfo(float).tiny))[:, None]
    return X


def release_budget(epsilon, delta, neighboring, public_n_samples):
    """Split the GDP budget between the row count and the released mechanism.

    Parameters
    ----------
    epsilon, delta : float
        The fit's budget.
    neighboring : {"add_remove", "replace"}
    public_n_samples : int or None
        The declared public size, or None.

    Returns
    -------
    mu_train : float
        GDP parameter left to the training mechanism.
    count_multiplier : float or None
        Noise multiplier of the row count, or None if no count is needed.
    planned : tuple of GaussianSteps
        The whole planned cost, charged to the active ledgers before any private
        mechanism runs.
    """
    # Aim a hair below the budget so that the recomputed epsilon_ never exceeds it.
    mu = gdp_mu(epsilon, delta) * (1.0 - 1e-11)
    z_count, mu_train = split_count_budget(mu, neighboring, public_n_samples)
    if z_count is None:
        return mu, None, (GaussianSteps(1.0 / mu),)
    return (
        mu_train,
        z_count,
        (GaussianSteps(z_count), GaussianSteps(1.0 / mu_train)),
    )


def release_result(
    theta,
    dtype,
    fit_intercept,
    *,
    mu_train_spent,
    count_multiplier,
    delta,
    public_n_samples,
    learning_rates=None,
    outputs=None,
):
    """The FitResult of a Gaussian release (after a noisy count, if any).

    Parameters
    ----------
    theta : ndarray of shape (n_outputs, n_features + fit_intercept)
        The released parameters, intercepts in the last column.
    dtype : numpy dtype
        The training data's dtype.
    fit_intercept : bool
    mu_train_spent : float
        GDP parameter of the release.
    count_multiplier : float or None
        Noise multiplier of the row count, None if none ran.
    delta : float
    public_n_samples : int
    learning_rates : ndarray or None, default=None
    outputs : dict or None, default=None
        Solver-specific public attributes (:class:`~sklearn_dpgd._base.FitResult`).

    Returns
    -------
    result : FitResult
        ``ledger`` is the count's then the release's Gaussian steps, ``mu`` their
        GDP composition ``sqrt(sum mu_i^2)``.
    """
    ledger = (GaussianSteps(1.0 / mu_train_spent),)
    mu_sq = mu_train_spent**2
    if count_multiplier is not None:
        ledger = (GaussianSteps(count_multiplier),) + ledger
        mu_sq += count_multiplier**-2
    mu = math.sqrt(mu_sq)
    d = theta.shape[1] - int(fit_intercept)
    coef, intercept = model_arrays(
        theta[:, :d], theta[:, d] if fit_intercept else None, dtype, fit_intercept
    )
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=ledger,
        mu=mu,
        epsilon=gdp_epsilon(mu, float(delta)),
        delta=float(delta),
        public_n_samples=public_n_samples,
        learning_rates=learning_rates,
        outputs=outputs or {},
    )
