"""The end of a fit run under a Gaussian privacy filter: its spend and its result.

Shared by the solvers whose releases a :class:`~sklearn_dpgd.accounting.
GaussianPrivacyFilter` admits (``newton``, ``pgd``): the GDP budget spent (or, for
an adaptive plan, the filter's whole budget), its epsilon at ``delta`` (Dong, Roth &
Su, "Gaussian differential privacy", JRSS B 84(1), 2022, Cor. 2.13), capped by an
adaptive plan's ``cap_epsilon``.
"""

import numpy as np

from .._base import FitResult
from ..accounting import gdp_epsilon

__all__ = ["coefficient_mask", "gdp_fit_result", "start_point"]


def start_point(initial, n_outputs, n_features):
    """The flat parameters ``theta`` a solver starts from.

    Parameters
    ----------
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public starting point; None starts from zero.
    n_outputs, n_features : int

    Returns
    -------
    theta : ndarray of shape (n_outputs * (n_features + 1),), float64
        ``n_outputs`` blocks of the coefficients, then the intercept (a copy).
    """
    if initial is None:
        return np.zeros(n_outputs * (n_features + 1))
    return np.array(initial, dtype=float).ravel()


def coefficient_mask(n_outputs, n_features):
    """Where the coefficients (not the intercepts) sit in the flat ``theta``:
    a boolean ndarray of shape ``(n_outputs * (n_features + 1),)``."""
    return (np.arange(n_outputs * (n_features + 1)) % (n_features + 1)) < n_features


def gdp_fit_result(
    privacy_filter,
    *,
    adaptive_plan,
    cap_epsilon,
    delta,
    coef,
    intercept,
    public_n_samples,
    n_iter,
    noise_multipliers,
    outputs,
):
    """The :class:`~sklearn_dpgd._base.FitResult` of a filtered fit.

    Parameters
    ----------
    privacy_filter : GaussianPrivacyFilter
        The fit's filter; ``mu`` (an adaptive plan: what it admits) or ``mu_spent``.
    adaptive_plan : bool
        Whether the plan was chosen by the filter (report its whole budget).
    cap_epsilon : float or None
        The epsilon an adaptive plan was capped at.
    delta : float
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    public_n_samples : int
        The public size the fit divided by.
    n_iter : int
    noise_multipliers : ndarray of shape (n_releases,)
        The noise multipliers of the fit's own releases.
    outputs : dict
        The solver's extra fitted attributes.

    Returns
    -------
    result : FitResult
    """
    mu = privacy_filter.mu if adaptive_plan else privacy_filter.mu_spent
    epsilon = gdp_epsilon(mu, float(delta))
    if adaptive_plan and cap_epsilon is not None:
        epsilon = min(epsilon, float(cap_epsilon))
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=privacy_filter.ledger,
        mu=mu,
        epsilon=epsilon,
        delta=float(delta),
        public_n_samples=public_n_samples,
        n_iter=n_iter,
        learning_rates=None,
        noise_multipliers=noise_multipliers,
        outputs=outputs,
    )
