"""Gaussian differential privacy in closed form: trade-off, conversion, calibration.

The low-level layer of the accounting: it imports nothing from the rest of the
package, so that every other module of :mod:`sklearn_dpgd.accounting` can build on
it without an import cycle. Every public name here is re-exported by
:mod:`sklearn_dpgd.accounting`, where users import it.

A ``mu``-GDP mechanism is ``(epsilon, delta(epsilon))``-DP for every ``epsilon >= 0``
with ``delta(epsilon) = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2)``
(Dong, Roth & Su, JRSS-B 2022, Cor. 2.13; Balle & Wang, ICML 2018, Thm 8), and Gaussian
steps compose as ``mu^2 = sum_t z_t^-2`` (Dong, Roth & Su 2022, Thm 2.7 and Cor. 3.3).
"""

import math
from numbers import Real

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

__all__ = [
    "calibrate_noise_multipliers",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_mu_from_noise_multipliers",
    "gdp_to_zcdp",
    "zcdp_epsilon",
]

# Calibration aims this far (relative) below the largest admissible mu, so that the
# reported epsilon_, recomputed through a root-find, can never exceed the target by
# floating-point error. It changes the spent epsilon by about 1e-11 relative.
_CALIBRATION_MARGIN = 1e-11
_RTOL = 4 * np.finfo(float).eps


def _check_positive(value, name, *, allow_zero=False, allow_inf=False):
    # A plain float skips the abstract-class check (a microsecond, and the
    # ledger's records run this at every step of a fit).
    if type(value) is not float:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(
                f"{name} must be a real number, got {type(value).__name__}."
            )
        value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if math.isnan(value) or not ok or (math.isinf(value) and not allow_inf):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}.")
    return value


def _check_delta(delta):
    delta = _check_positive(delta, "delta")
    if not delta < 1:
        raise ValueError(f"delta must be in the open interval (0, 1), got {delta!r}.")
    return delta


def gdp_delta(mu, epsilon):
    """Smallest ``delta`` such that a ``mu``-GDP mechanism is ``(epsilon, delta)``-DP.

    Parameters
    ----------
    mu : float
        GDP parameter, > 0 (dimensionless: the shift of the unit-variance Gaussian
        hypothesis test that the mechanism is as hard to win as).
    epsilon : float
        Privacy-loss level, >= 0.

    Returns
    -------
    delta : float
        ``Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2)``, in [0, 1).

    Raises
    ------
    TypeError
        If an argument is not a real number.
    ValueError
        If ``mu <= 0`` or ``epsilon < 0`` or either is not finite.

    Notes
    -----
    Dong, Roth & Su (2022), Cor. 2.13; Balle & Wang (2018), Thm 8. Evaluated as
    ``Phi(a) * (-expm1(epsilon + log Phi(b) - log Phi(a)))`` so that neither term
    overflows and the difference keeps its relative precision when delta is tiny.
    """
    mu = _check_positive(mu, "mu")
    epsilon = _check_positive(epsilon, "epsilon", allow_zero=True)
    return _delta(mu, epsilon)


def _delta(mu, epsilon):
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    log_pa = log_ndtr(a)
    exponent = epsilon + log_ndtr(b) - log_pa
    return float(math.exp(log_pa) * -math.expm1(min(exponent, 0.0)))


def gdp_epsilon(mu, delta):
    """Smallest ``epsilon`` such that a ``mu``-GDP mechanism is ``(epsilon, delta)``-DP.

    Parameters
    ----------
    mu : float
        GDP parameter, > 0.
    delta : float
        In the open interval (0, 1).

    Returns
    -------
    epsilon : float
        >= 0. Rounded up to the first float at which :func:`gdp_delta` is at most
        ``delta``, so the returned pair is always a valid guarantee.

    Raises
    ------
    TypeError
        If an argument is not a real number.
    ValueError
        If ``mu <= 0``, or ``delta`` is outside (0, 1).

    Notes
    -----
    Inverse of Dong, Roth & Su (2022), Cor. 2.13 in ``epsilon`` (``delta`` decreases
    strictly in ``epsilon``), by Brent's method to machine precision.
    """
    mu = _check_positive(mu, "mu")
    delta = _check_delta(delta)
    if _delta(mu, 0.0) <= delta:
        return 0.0
    hi = max(1.0, mu * mu)
    while _delta(mu, hi) > delta:
        hi *= 2.0
    eps = brentq(
        lambda e: _delta(mu, e) - delta, 0.0, hi, xtol=1e-300, rtol=_RTOL, maxiter=500
    )
    while _delta(mu, eps) > delta:
        eps = math.nextafter(eps, math.inf)
    return float(eps)


def gdp_mu(epsilon, delta):
    """Largest ``mu`` such that ``mu``-GDP implies ``(epsilon, delta)``-DP.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).

    Returns
    -------
    mu : float
        > 0, with ``gdp_delta(mu, epsilon) <= delta`` (rounded down to guarantee it).

    Raises
    ------
    TypeError
        If an argument is not a real number.
    ValueError
        If ``epsilon <= 0`` or ``delta`` is outside (0, 1).

    Notes
    -----
    ``delta(epsilon)`` increases strictly in ``mu`` (Dong, Roth & Su 2022,
    Cor. 2.13), so the root is unique; found by Brent's method. This is the analytic
    Gaussian calibration of Balle & Wang (2018), Alg. 1, in GDP form.
    """
    epsilon = _check_positive(epsilon, "epsilon")
    delta = _check_delta(delta)
    key = (epsilon, delta)
    mu = _MU_CACHE.get(key)
    if mu is None:
        if len(_MU_CACHE) >= _MU_CACHE_SIZE:
            _MU_CACHE.clear()
        mu = _MU_CACHE[key] = _gdp_mu(epsilon, delta)
    return mu


# gdp_mu's roots by (epsilon, delta): a fit asks for the same one up to six times
# (budget, horizon, clip and step-size rules; 25 us each), a pipeline or a search
# once per step and candidate. The keys are what callers pass: budgets (parameters
# and their public shares) or a released epsilon_ (the audit), never an unnoised
# value computed from data (tests/test_accounting_gdp.py fits on two tables and
# finds the same keys). Only the public pair and its root are kept.
_MU_CACHE = {}
_MU_CACHE_SIZE = 256


def _gdp_mu(epsilon, delta):
    """:func:`gdp_mu` of validated floats, by root finding (uncached)."""
    hi = 1.0
    while _delta(hi, epsilon) <= delta:
        hi *= 2.0
    lo = hi / 2.0
    while _delta(lo, epsilon) > delta:
        lo /= 2.0
    mu = brentq(
        lambda m: _delta(m, epsilon) - delta,
        lo,
        hi,
        xtol=1e-300,
        rtol=_RTOL,
        maxiter=500,
    )
    while _delta(mu, epsilon) > delta:
        mu = math.nextafter(mu, 0.0)
    return float(mu)


def gdp_mu_from_noise_multipliers(noise_multipliers):
    """GDP parameter of a sequence of Gaussian steps: ``sqrt(sum_t z_t^-2)``.

    Parameters
    ----------
    noise_multipliers : array-like of shape (n_steps,)
        Noise std of each step in units of the L2 sensitivity of what it privatises
        (``z_t = sigma_t / Delta``), each > 0 (``inf`` for a step that adds nothing
        private).

    Returns
    -------
    mu : float
        The composed GDP parameter (0.0 for an empty sequence).

    Raises
    ------
    ValueError
        If the array is not one-dimensional or has an entry that is not > 0.

    Notes
    -----
    Dong, Roth & Su (2022), Thm 2.7 (a Gaussian step is ``1/z_t``-GDP) and Cor. 3.3
    (composition, valid also for adaptively chosen ``z_t`` fixed in advance of each
    step: Smith & Thakurta 2022).
    """
    z = np.asarray(noise_multipliers, dtype=float)
    if z.ndim != 1:
        raise ValueError(
            f"noise_multipliers must be one-dimensional, got shape {z.shape}."
        )
    if np.any(np.isnan(z)) or np.any(z <= 0):
        raise ValueError("noise_multipliers must all be > 0.")
    return float(math.sqrt(np.sum(1.0 / z**2)))


def gdp_to_zcdp(mu):
    """Convert a GDP parameter to zCDP: ``rho = mu^2 / 2`` for Gaussian steps.

    Parameters
    ----------
    mu : float
        GDP parameter of a composition of Gaussian mechanisms, >= 0.

    Returns
    -------
    rho : float
        The zCDP parameter of the same steps (Bun & Steinke 2016, Prop. 1.6 and
        Lemma 2.3); Hong et al. (FAccT 2022) write ``R = 2 rho = mu^2``.

    Raises
    ------
    ValueError
        If ``mu`` is negative or not finite.
    """
    mu = _check_positive(mu, "mu", allow_zero=True)
    return 0.5 * mu * mu


def zcdp_epsilon(rho, delta):
    """The standard (loose) conversion ``epsilon = rho + 2 sqrt(rho log(1/delta))``.

    Parameters
    ----------
    rho : float
        The zCDP parameter, >= 0.
    delta : float
        In (0, 1).

    Returns
    -------
    epsilon : float
        An epsilon for which ``rho``-zCDP implies ``(epsilon, delta)``-DP
        (Bun & Steinke 2016, Prop. 1.3). For Gaussian steps it is larger than
        ``gdp_epsilon(sqrt(2 rho), delta)``; given to compare with the papers using it.

    Raises
    ------
    ValueError
        If ``rho < 0`` or ``delta`` is outside (0, 1).
    """
    rho = _check_positive(rho, "rho", allow_zero=True)
    delta = _check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def calibrate_noise_multipliers(profile, epsilon, delta):
    """Scale a noise profile so that the run spends exactly ``(epsilon, delta)``.

    Parameters
    ----------
    profile : array-like of shape (n_steps,)
        Relative noise multipliers (the schedule's shape), each finite and > 0.
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).

    Returns
    -------
    noise_multipliers : ndarray of shape (n_steps,)
        ``s * profile`` (noise std in units of the sensitivity), with the scale ``s``
        such that ``gdp_mu_from_noise_multipliers`` is ``gdp_mu(epsilon, delta)`` to
        about 1e-11 relative and never larger.

    Raises
    ------
    ValueError
        If the profile is empty, not one-dimensional, or has an entry that is not
        finite and > 0; or if ``epsilon``/``delta`` are invalid.

    Notes
    -----
    ``mu^2 = sum_t 1 / (s p_t)^2`` gives ``s = sqrt(sum_t p_t^-2) / mu`` in closed form
    (GDP composition, Dong, Roth & Su, JRSS-B 2022, Cor. 3.3). Calibrating the whole
    shape at once is how the schedule of Hong et al. (FAccT 2022, Algorithm 1) meets its
    total budget.
    """
    p = np.asarray(profile, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"profile must be a non-empty 1-D array, got shape {p.shape}.")
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError("profile entries must be finite and > 0.")
    mu = gdp_mu(epsilon, delta) * (1.0 - _CALIBRATION_MARGIN)
    scale = math.sqrt(np.sum(1.0 / p**2)) / mu
    z = scale * p
    while gdp_mu_from_noise_multipliers(z) > mu:
        scale *= 1.0 + _RTOL
        z = scale * p
    return z
