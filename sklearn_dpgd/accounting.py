"""Privacy accounting: closed-form Gaussian differential privacy, calibration, filter.

Nothing in this module reads data. A full-batch private gradient step that adds
``N(0, sigma_t^2 I)`` to a clipped-gradient sum of L2 sensitivity ``Delta`` is a
Gaussian mechanism with noise multiplier ``z_t = sigma_t / Delta``; it is
``mu_t``-GDP with ``mu_t = 1 / z_t`` (Dong, Roth & Su 2022, Thm 2.7), and ``T`` such
steps, even adaptively chosen ones, are ``mu``-GDP with ``mu^2 = sum_t mu_t^2`` (ibid.,
Cor. 3.3). A ``mu``-GDP mechanism is ``(epsilon, delta(epsilon))``-DP for every
``epsilon >= 0`` with the exact trade-off of the analytic Gaussian mechanism
(Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13)::

    delta(epsilon) = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2).

Calibrating a run to a target ``(epsilon, delta)`` is therefore one root-find for
``mu`` and one rescaling of the schedule's shape (``../shared/algorithms.md``,
Accounting). This is exact, unlike the zCDP conversion
``epsilon = rho + 2 sqrt(rho log(1/delta))`` (Bun & Steinke 2016, Prop. 1.3) used by
Hong et al. (FAccT 2022, Sec. 3), which :func:`zcdp_epsilon` provides for comparison.

References
----------
Dong, J., Roth, A., Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
Balle, B., Wang, Y.-X. (2018). Improving the Gaussian mechanism for differential
privacy: analytical calibration and optimal denoising. ICML.
Bun, M., Steinke, T. (2016). Concentrated differential privacy: simplifications,
extensions, and lower bounds. TCC.
Smith, J., Thakurta, A. (2022). Fully adaptive composition for Gaussian differential
privacy. arXiv:2210.17520.
"""

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from .exceptions import BudgetExhaustedError

__all__ = [
    "AmplifiedIterationFilter",
    "GaussianPrivacyFilter",
    "GaussianSteps",
    "RdpPrivacyFilter",
    "SnowballSteps",
    "compress_ledger",
    "ledger_epsilon",
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
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
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
    (``../shared/algorithms.md``, Accounting). Calibrating the whole shape at once is
    how the schedule of Hong et al. (FAccT 2022, Algorithm 1) meets its total budget.
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


@dataclass(frozen=True)
class GaussianSteps:
    """A run of identical Gaussian steps: one entry of a fit's ledger ``ledger_``.

    ``count`` consecutive steps, each summing per-example gradients clipped to the
    sensitivity over a Poisson sample with rate ``sampling_rate`` (1.0: all rows) and
    adding Gaussian noise of std ``noise_multiplier`` times the sensitivity.

    Parameters
    ----------
    noise_multiplier : float
        Noise std in units of the sensitivity, > 0.
    sampling_rate : float, default=1.0
        Poisson sampling rate ``q`` in (0, 1].
    count : int, default=1
        Number of consecutive identical steps, >= 1.

    Raises
    ------
    ValueError
        If a field is out of range.
    """

    noise_multiplier: float
    sampling_rate: float = 1.0
    count: int = 1

    def __post_init__(self):
        _check_positive(self.noise_multiplier, "noise_multiplier", allow_inf=True)
        q = _check_positive(self.sampling_rate, "sampling_rate")
        if q > 1:
            raise ValueError(f"sampling_rate must be in (0, 1], got {q!r}.")
        if isinstance(self.count, bool) or not isinstance(self.count, Integral):
            raise ValueError(f"count must be an integer >= 1, got {self.count!r}.")
        if self.count < 1:
            raise ValueError(f"count must be an integer >= 1, got {self.count!r}.")


@dataclass(frozen=True)
class SnowballSteps:
    """A one-pass projected noisy SGD run (Snowball-SGD): one entry of ``ledger_``.

    Step ``t`` sums the per-example gradients of its own ``batch_sizes[t]`` rows
    (clipped to the sensitivity; every row used in at most one step), adds Gaussian
    noise of std ``noise_multipliers[t]`` times the sensitivity, divides by the batch
    size and moves by ``learning_rates[t]`` before projecting onto a convex set.
    Only the last iterate is released.

    Parameters
    ----------
    batch_sizes : tuple of int
        ``B_t`` of each step, each >= 1.
    noise_multipliers : tuple of float
        ``z_t``: noise std on the batch *sum* in units of the sensitivity, each > 0.
    learning_rates : tuple of float
        ``eta_t`` of each step, each > 0.

    Attributes
    ----------
    rho : float
        The parameter of the ``(alpha, alpha rho^2 / 2)``-RDP guarantee, for all
        orders ``alpha > 1`` (property; see Notes).

    Raises
    ------
    ValueError
        If the three tuples differ in length, are empty, or hold an entry out of
        range.

    Notes
    -----
    Feldman, Koren & Talwar (STOC 2020; seed 002), Thm 3.1, by privacy amplification
    by iteration: a run of contractive steps (convex, ``beta``-smooth per-example
    losses with ``eta_t <= 2 / beta``, projection onto a convex set) is
    ``(alpha, alpha rho^2 / 2)``-RDP with::

        rho = max_t Delta eta_t / (B_t sqrt(sum_{s >= t} eta_s^2 sigma_s^2))

    where ``Delta / B_t`` bounds how far one row moves the step-``t`` mean gradient
    (``Delta = L`` under add/remove-one, ``2 L`` under replace-one, the paper's
    ``2 L``) and ``sigma_s = z_s Delta / B_s`` is the noise std on the mean gradient.
    ``Delta`` cancels: ``rho = max_t (eta_t / B_t) / sqrt(sum_{s >= t}
    (eta_s z_s / B_s)^2)``. The contractivity condition cannot be read from the
    record; the code that runs the steps enforces it.
    """

    batch_sizes: tuple
    noise_multipliers: tuple
    learning_rates: tuple

    def __post_init__(self):
        n = len(self.batch_sizes)
        if n == 0 or not n == len(self.noise_multipliers) == len(self.learning_rates):
            raise ValueError(
                "batch_sizes, noise_multipliers and learning_rates must be non-empty "
                "and of equal length."
            )
        for b in self.batch_sizes:
            if isinstance(b, bool) or not isinstance(b, Integral) or b < 1:
                raise ValueError(f"batch_sizes must be integers >= 1, got {b!r}.")
        for z in self.noise_multipliers:
            _check_positive(z, "noise_multiplier")
        for eta in self.learning_rates:
            _check_positive(eta, "learning_rate")

    @property
    def rho(self):
        """``rho`` of Feldman, Koren & Talwar (2020), Thm 3.1 (see Notes)."""
        b = np.asarray(self.batch_sizes, dtype=float)
        eta = np.asarray(self.learning_rates, dtype=float)
        z = np.asarray(self.noise_multipliers, dtype=float)
        tail = np.cumsum(((eta * z / b) ** 2)[::-1])[::-1]
        return float(np.max((eta / b) / np.sqrt(tail)))

    def rdp(self, orders):
        """RDP ``alpha rho^2 / 2`` at each order: ndarray of shape (n_orders,).

        Parameters
        ----------
        orders : array-like of shape (n_orders,)
            Rényi orders, each > 1.

        Returns
        -------
        rdp : ndarray of shape (n_orders,)
            In nats.
        """
        return 0.5 * np.asarray(orders, dtype=float) * self.rho**2


def compress_ledger(noise_multipliers, sampling_rates=1.0):
    """Run-length encode per-step records into a tuple of :class:`GaussianSteps`.

    Parameters
    ----------
    noise_multipliers : array-like of shape (n_steps,)
        Per-step noise multipliers (units of the sensitivity).
    sampling_rates : float or array-like of shape (n_steps,), default=1.0
        Per-step Poisson sampling rates.

    Returns
    -------
    ledger : tuple of GaussianSteps
        Consecutive equal (noise multiplier, sampling rate) pairs merged.

    Raises
    ------
    ValueError
        If the shapes differ or an entry is out of range.
    """
    z = np.atleast_1d(np.asarray(noise_multipliers, dtype=float))
    q = np.broadcast_to(np.asarray(sampling_rates, dtype=float), z.shape)
    if z.ndim != 1:
        raise ValueError(f"noise_multipliers must be one-dimensional, got {z.shape}.")
    records = []
    start = 0
    for i in range(1, z.shape[0] + 1):
        if i == z.shape[0] or z[i] != z[start] or q[i] != q[start]:
            records.append(GaussianSteps(float(z[start]), float(q[start]), i - start))
            start = i
    return tuple(records)


def _expand_ledger(ledger):
    z = np.repeat([r.noise_multiplier for r in ledger], [r.count for r in ledger])
    q = np.repeat([r.sampling_rate for r in ledger], [r.count for r in ledger])
    return z, q


def ledger_epsilon(ledger, delta, accountant="auto"):
    """Recompute the epsilon of a fit from its ledger (an independent re-audit).

    Parameters
    ----------
    ledger : sequence of GaussianSteps or SnowballSteps
        E.g. a fitted estimator's ``ledger_``.
    delta : float
        In (0, 1).
    accountant : {"auto", "gdp", "rdp", "pld"}, default="auto"
        "gdp": exact closed form (Dong, Roth & Su 2022), full-batch steps only.
        "rdp": Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang
        2019), an upper bound. "pld": privacy-loss distributions through
        dp-accounting (Doroshenko et al. 2022), pessimistic and tight. "auto": "gdp"
        if every step is full-batch, else "rdp". Ledgers holding
        :class:`SnowballSteps` are composed in RDP ("auto" or "rdp" only).

    Returns
    -------
    epsilon : float
        The epsilon of the ledger's steps at ``delta`` under ``accountant``.

    Raises
    ------
    ValueError
        If the ledger is empty, ``delta`` is invalid, ``accountant`` is unknown,
        "gdp" is asked for subsampled steps, or "gdp"/"pld" for a ledger with
        :class:`SnowballSteps`.
    """
    delta = _check_delta(delta)
    if accountant not in ("auto", "gdp", "rdp", "pld"):
        raise ValueError(
            f"accountant must be 'auto', 'gdp', 'rdp' or 'pld', got {accountant!r}."
        )
    if len(ledger) == 0:
        raise ValueError("ledger is empty: nothing ran.")
    snowball = [r for r in ledger if isinstance(r, SnowballSteps)]
    if snowball:
        # Amplification by iteration bounds Renyi divergences only: compose in RDP.
        if accountant not in ("auto", "rdp"):
            raise ValueError(
                "a ledger with SnowballSteps (amplification by iteration) has an RDP "
                f"guarantee only; use accountant='rdp' or 'auto', not {accountant!r}."
            )
        from ._subsampled import DEFAULT_ORDERS, poisson_gaussian_rdp, rdp_epsilon

        rdp = sum(r.rdp(DEFAULT_ORDERS) for r in snowball)
        gaussian = [r for r in ledger if not isinstance(r, SnowballSteps)]
        if gaussian:
            z, q = _expand_ledger(gaussian)
            rdp = rdp + poisson_gaussian_rdp(z, q, DEFAULT_ORDERS)
        return rdp_epsilon(rdp, DEFAULT_ORDERS, delta)
    z, q = _expand_ledger(ledger)
    full_batch = bool(np.all(q == 1.0))
    if accountant == "auto":
        accountant = "gdp" if full_batch else "rdp"
    if accountant == "gdp":
        if not full_batch:
            raise ValueError(
                "accountant='gdp' has no closed form for subsampled steps; use "
                "'rdp' or 'pld'."
            )
        return gdp_epsilon(gdp_mu_from_noise_multipliers(z), delta)
    from ._subsampled import poisson_gaussian_epsilon

    return poisson_gaussian_epsilon(z, q, delta, accountant=accountant)


class _PrivacyFilter:
    """Shared bookkeeping of the filters: the per-step records and the ledger."""

    def __init__(self):
        self._z = []
        self._q = []

    def _record(self, z, q):
        self._z.append(z)
        self._q.append(q)

    @property
    def noise_multipliers(self):
        """Charged noise multipliers, in order: ndarray of shape (n_charged,)."""
        return np.asarray(self._z, dtype=float)

    @property
    def sampling_rates(self):
        """Charged sampling rates, in order: ndarray of shape (n_charged,)."""
        return np.asarray(self._q, dtype=float)

    @property
    def ledger(self):
        """The charged steps, run-length encoded: tuple of GaussianSteps."""
        return compress_ledger(self._z, self._q) if self._z else ()


class GaussianPrivacyFilter(_PrivacyFilter):
    """A privacy filter for full-batch Gaussian steps: refuses overspending steps.

    Keeps the ledger of the noise multipliers charged so far and the budget ``mu``.
    A step is charged *before* it runs: if ``sqrt(spent^2 + z^-2)`` would exceed the
    budget, :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` is raised and
    nothing is recorded. With adaptively chosen noise this is still ``mu``-GDP
    (Smith & Thakurta 2022, Thm 1: fully adaptive composition for GDP).

    Parameters
    ----------
    mu : float
        Total GDP budget, > 0.

    Attributes
    ----------
    noise_multipliers : ndarray of shape (n_charged,)
        The noise multipliers charged, in order (units of the sensitivity).
    mu_spent : float
        ``sqrt(sum z_t^-2)`` over the charged steps.
    ledger : tuple of GaussianSteps
        The charged steps, run-length encoded.

    Raises
    ------
    ValueError
        If ``mu`` is not a finite number > 0.
    """

    def __init__(self, mu):
        super().__init__()
        self.mu = _check_positive(mu, "mu")
        self._spent_sq = 0.0

    def charge(self, noise_multiplier, sampling_rate=1.0):
        """Record one full-batch Gaussian step with noise multiplier ``z``, or refuse.

        Parameters
        ----------
        noise_multiplier : float
            Noise std of the step in units of the sensitivity, > 0 (inf: no cost).
        sampling_rate : float, default=1.0
            Must be 1.0: this filter accounts full-batch steps only.

        Raises
        ------
        ValueError
            If ``noise_multiplier`` is not > 0 or ``sampling_rate != 1`` (GDP has
            no closed form for subsampled steps: use :class:`RdpPrivacyFilter`).
        BudgetExhaustedError
            If the step would take the spent ``mu`` above the budget.
        """
        z = _check_positive(noise_multiplier, "noise_multiplier", allow_inf=True)
        if sampling_rate != 1.0:
            raise ValueError("GaussianPrivacyFilter takes full-batch steps only.")
        new_sq = self._spent_sq + 1.0 / (z * z)
        if math.sqrt(new_sq) > self.mu:
            raise BudgetExhaustedError(
                f"a Gaussian step with noise_multiplier={z:.6g} would spend "
                f"mu={math.sqrt(new_sq):.6g} > budget mu={self.mu:.6g}."
            )
        self._spent_sq = new_sq
        self._record(z, 1.0)

    @property
    def mu_spent(self):
        """GDP parameter ``sqrt(sum z_t^-2)`` spent by the charged steps."""
        return math.sqrt(self._spent_sq)

    def __repr__(self):
        return (
            f"GaussianPrivacyFilter(mu={self.mu!r}, steps={len(self._z)}, "
            f"mu_spent={self.mu_spent:.6g})"
        )


class RdpPrivacyFilter(_PrivacyFilter):
    """A privacy filter for Poisson-subsampled Gaussian steps, by Rényi DP.

    Keeps the running RDP curve of the charged steps; a step whose RDP would take
    the converted epsilon above ``epsilon`` (at ``delta``) is refused with
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` before it runs. With
    adaptively chosen noise, an RDP filter remains valid (Feldman & Zrnic, NeurIPS
    2021, Thm 3.1).

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).

    Attributes
    ----------
    epsilon_spent : float
        Epsilon (at ``delta``) of the charged steps; 0.0 before any step.
    ledger : tuple of GaussianSteps
        The charged steps, run-length encoded.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``delta`` is invalid.
    """

    def __init__(self, epsilon, delta):
        from ._subsampled import DEFAULT_ORDERS

        super().__init__()
        self.epsilon = _check_positive(epsilon, "epsilon")
        self.delta = _check_delta(delta)
        self._orders = DEFAULT_ORDERS
        self._rdp = np.zeros(len(DEFAULT_ORDERS))
        self.epsilon_spent = 0.0
        self._reserved = []  # approved steps not run yet, in order, reversed
        self._reserved_state = None

    def reserve(self, noise_multipliers, sampling_rates):
        """Approve a whole pre-planned run at once, before any of it runs.

        One vectorised RDP evaluation of all the steps (instead of one per step);
        the run is refused as a whole if it would overspend. Later :meth:`charge`
        calls for exactly these steps, in order, are then only recorded. The
        guarantee is that of charging them one by one: nothing runs unless the
        whole sequence fits.

        Parameters
        ----------
        noise_multipliers : array-like of shape (n_steps,)
            Noise multipliers of the planned steps, in order.
        sampling_rates : float or array-like of shape (n_steps,)
            Poisson sampling rates of the planned steps (one value for all).

        Raises
        ------
        BudgetExhaustedError
            If the planned steps would spend more than the budget.
        ValueError
            If a step is invalid, or a reservation is already pending.
        """
        from ._subsampled import poisson_gaussian_rdp, rdp_epsilon

        if self._reserved:
            raise ValueError("a reservation is already pending.")
        z = np.atleast_1d(np.asarray(noise_multipliers, dtype=float))
        q = np.broadcast_to(np.asarray(sampling_rates, dtype=float), z.shape)
        rdp = self._rdp + poisson_gaussian_rdp(z, q, self._orders)
        eps = rdp_epsilon(rdp, self._orders, self.delta)
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"the planned {z.shape[0]} steps would spend epsilon={eps:.6g} > "
                f"budget epsilon={self.epsilon:.6g}."
            )
        self._reserved = list(zip(z[::-1].tolist(), q[::-1].tolist(), strict=True))
        self._reserved_state = (rdp, eps)

    def charge(self, noise_multiplier, sampling_rate=1.0):
        """Record one Poisson-subsampled Gaussian step, or refuse it.

        Parameters
        ----------
        noise_multiplier : float
            Noise std of the step in units of the sensitivity, > 0.
        sampling_rate : float, default=1.0
            Poisson sampling rate ``q`` of the step, in (0, 1].

        Raises
        ------
        ValueError
            If ``noise_multiplier <= 0`` or ``sampling_rate`` is outside (0, 1].
        BudgetExhaustedError
            If the step would take the epsilon above the budget.
        """
        from ._subsampled import poisson_gaussian_rdp, rdp_epsilon

        if self._reserved:
            if self._reserved[-1] != (float(noise_multiplier), float(sampling_rate)):
                raise ValueError("step does not match the reserved plan.")
            self._reserved.pop()
            self._record(float(noise_multiplier), float(sampling_rate))
            if not self._reserved:  # the whole approved plan has run
                self._rdp, self.epsilon_spent = self._reserved_state
            return
        step = GaussianSteps(noise_multiplier, sampling_rate)
        rdp = self._rdp + poisson_gaussian_rdp(
            [step.noise_multiplier], [step.sampling_rate], self._orders
        )
        eps = rdp_epsilon(rdp, self._orders, self.delta)
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"a step with noise_multiplier={step.noise_multiplier:.6g}, "
                f"sampling_rate={step.sampling_rate:.6g} would spend "
                f"epsilon={eps:.6g} > budget epsilon={self.epsilon:.6g}."
            )
        self._rdp = rdp
        self.epsilon_spent = eps
        self._record(step.noise_multiplier, step.sampling_rate)

    def __repr__(self):
        return (
            f"RdpPrivacyFilter(epsilon={self.epsilon!r}, delta={self.delta!r}, "
            f"steps={len(self._z)}, epsilon_spent={self.epsilon_spent:.6g})"
        )


class AmplifiedIterationFilter:
    """The privacy filter of Snowball-SGD: approves a whole plan, then records it.

    Amplification by iteration holds for the *last* iterate of a run fixed in
    advance, so the plan (batch sizes, noise, steps) is approved as a whole before
    any data is read: :meth:`reserve` refuses a plan whose RDP, converted to
    ``(epsilon, delta)``, exceeds the budget. Each step is then charged by
    :meth:`charge` before it runs and must match the plan; a step beyond or off the
    plan is refused.

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).

    Attributes
    ----------
    epsilon_spent : float
        Epsilon (at ``delta``) of the steps charged so far (the RDP of the prefix,
        which is itself a Snowball run); 0.0 before any step.
    noise_multipliers : ndarray of shape (n_charged,)
        Charged noise multipliers (units of the sensitivity).
    ledger : tuple of SnowballSteps
        The charged steps as one record (empty before any step).

    Raises
    ------
    ValueError
        If ``epsilon`` or ``delta`` is invalid.
    """

    def __init__(self, epsilon, delta):
        self.epsilon = _check_positive(epsilon, "epsilon")
        self.delta = _check_delta(delta)
        self._plan = None
        self._charged = 0

    def reserve(self, plan):
        """Approve a whole :class:`SnowballSteps` plan, or refuse it.

        Parameters
        ----------
        plan : SnowballSteps
            The steps that will run, in order.

        Raises
        ------
        BudgetExhaustedError
            If the plan's epsilon at ``delta`` exceeds the budget.
        ValueError
            If a plan is already reserved.
        """
        if self._plan is not None:
            raise ValueError("a plan is already reserved.")
        eps = ledger_epsilon((plan,), self.delta, accountant="rdp")
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"the Snowball plan would spend epsilon={eps:.6g} > budget "
                f"epsilon={self.epsilon:.6g}."
            )
        self._plan = plan

    def charge(self, batch_size, noise_multiplier):
        """Record the next planned step before it runs, or refuse it.

        The step size is not charged: the solver takes it from the plan.

        Parameters
        ----------
        batch_size : int
            Number of rows of the step.
        noise_multiplier : float
            Noise std on the batch sum in units of the sensitivity.

        Raises
        ------
        BudgetExhaustedError
            If no plan is reserved or the plan has fully run.
        ValueError
            If the step differs from the next planned one.
        """
        plan = self._plan
        if plan is None or self._charged >= len(plan.batch_sizes):
            raise BudgetExhaustedError("no reserved Snowball step is left to run.")
        t = self._charged
        planned = (plan.batch_sizes[t], plan.noise_multipliers[t])
        if (int(batch_size), float(noise_multiplier)) != planned:
            raise ValueError("step does not match the reserved Snowball plan.")
        self._charged += 1

    @property
    def epsilon_spent(self):
        """Epsilon at ``delta`` of the charged steps (0.0 before any): float."""
        ledger = self.ledger
        return ledger_epsilon(ledger, self.delta, accountant="rdp") if ledger else 0.0

    @property
    def noise_multipliers(self):
        """Charged noise multipliers, in order: ndarray of shape (n_charged,)."""
        if self._plan is None:
            return np.zeros(0)
        return np.asarray(self._plan.noise_multipliers[: self._charged], dtype=float)

    @property
    def ledger(self):
        """The charged steps as one SnowballSteps record: tuple."""
        if self._plan is None or self._charged == 0:
            return ()
        k = self._charged
        p = self._plan
        return (
            SnowballSteps(
                p.batch_sizes[:k], p.noise_multipliers[:k], p.learning_rates[:k]
            ),
        )

    def __repr__(self):
        return (
            f"AmplifiedIterationFilter(epsilon={self.epsilon!r}, "
            f"delta={self.delta!r}, steps={self._charged}, "
            f"epsilon_spent={self.epsilon_spent:.6g})"
        )
