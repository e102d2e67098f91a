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
``mu`` and one rescaling of the schedule's shape (Dong, Roth & Su, JRSS-B 2022,
Cor. 3.3 and 2.13). This is exact, unlike the zCDP conversion
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

import contextlib
import contextvars
import functools
import math
import os
import threading
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.special import log_ndtr

from ._gdp import (
    _check_delta,
    _check_positive,
    _delta,
    calibrate_noise_multipliers,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
    gdp_to_zcdp,
    zcdp_epsilon,
)
from ._subsampled import (
    DEFAULT_ORDERS,
    _ledger_pld,
    pld_epsilon,
    pld_grid_step,
    poisson_gaussian_epsilon,
    poisson_gaussian_rdp,
    rdp_epsilon,
)
from .exceptions import BudgetExhaustedError, UnrecordedFitError

__all__ = [
    "AmplifiedIterationFilter",
    "EpsilonDeltaRecord",
    "GaussianPrivacyFilter",
    "GaussianSteps",
    "LedgerEntry",
    "NoisyMaxSteps",
    "PrivacyLedger",
    "PldPrivacyFilter",
    "RdpPrivacyFilter",
    "RenyiPrivacyFilter",
    "SnowballSteps",
    "SparseVectorSteps",
    "active_ledgers",
    "best_filter_order",
    "poisson_amplified_rdp",
    "pure_dp_rdp",
    "sparse_vector_rdp",
    "compress_ledger",
    "ledger_epsilon",
    "recording_only",
    "calibrate_noise_multipliers",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_mu_from_noise_multipliers",
    "gdp_to_zcdp",
    "zcdp_epsilon",
]


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
        _check_rate_and_count(self.sampling_rate, self.count)
        # Plain Python numbers, whatever NumPy scalar was passed: a ledger reads
        # (and compares, and pickles) the same from every fit path.
        object.__setattr__(self, "noise_multiplier", float(self.noise_multiplier))
        object.__setattr__(self, "sampling_rate", float(self.sampling_rate))
        object.__setattr__(self, "count", int(self.count))


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
    Feldman, Koren & Talwar, "Private Stochastic Convex Optimization: Optimal Rates
    in Linear Time" (STOC 2020), Thm 3.1, by privacy amplification
    by iteration: a run of contractive steps (convex, ``beta``-smooth per-example
    losses with ``eta_t <= 2 / beta``, projection onto a convex set) is
    ``(alpha, alpha rho^2 / 2)``-RDP with::

        rho = max_t Delta eta_t / (B_t sqrt(sum_{s >= t} eta_s^2 sigma_s^2))

    where ``Delta / B_t`` bounds how far one row moves the step-``t`` mean gradient
    (``2 L``, the paper's, for a replaced row; also under add/remove-one when the
    batches have fixed sizes, as an added row then displaces another) and
    ``sigma_s = z_s Delta / B_s`` is the noise std on the mean gradient.
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

    @functools.cached_property  # read once per Rényi order by the accountants
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
    ledger : sequence of GaussianSteps, SnowballSteps, SparseVectorSteps or \
            NoisyMaxSteps
        E.g. a fitted estimator's ``ledger_``. Ledgers with other entries than
        Gaussian steps (Snowball-SGD, whose amplification by iteration bounds Rényi
        divergences only; adaptive strategies) are composed in RDP; for an
        adaptive run this is the epsilon of running the recorded mechanisms as a
        fixed sequence, at most the filter's guarantee
        ``epsilon_``, which is the run's actual guarantee.
    delta : float
        In (0, 1).
    accountant : {"auto", "gdp", "rdp", "pld"}, default="auto"
        "gdp": exact closed form (Dong, Roth & Su 2022), full-batch steps only.
        "rdp": Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang
        2019), an upper bound. "pld": privacy-loss distributions through
        dp-accounting (Doroshenko et al. 2022), pessimistic and tight (within
        about 0.5% of a 4x finer grid). "auto": "gdp" if every step is full-batch,
        else "pld" (the accountant minibatch fits report with).

    Returns
    -------
    epsilon : float
        The epsilon of the ledger's steps at ``delta`` under ``accountant``.

    Raises
    ------
    ValueError
        If the ledger is empty, ``delta`` is invalid, ``accountant`` is unknown, or
        "gdp" is asked for subsampled steps.
    """
    delta = _check_delta(delta)
    if accountant not in ("auto", "gdp", "rdp", "pld"):
        raise ValueError(
            f"accountant must be 'auto', 'gdp', 'rdp' or 'pld', got {accountant!r}."
        )
    if len(ledger) == 0:
        raise ValueError("ledger is empty: nothing ran.")
    if not all(isinstance(r, GaussianSteps) for r in ledger):
        if accountant not in ("auto", "rdp"):
            raise ValueError(
                "a ledger with Snowball, sparse-vector or noisy-max entries is "
                "accounted for in RDP only; use accountant='auto' or 'rdp'."
            )
        return _mixed_ledger_epsilon(ledger, delta)
    z, q = _expand_ledger(ledger)
    full_batch = bool(np.all(q == 1.0))
    if accountant == "auto":
        accountant = "gdp" if full_batch else "pld"
    if accountant == "gdp":
        if not full_batch:
            raise ValueError(
                "accountant='gdp' has no closed form for subsampled steps; use "
                "'rdp' or 'pld'."
            )
        return gdp_epsilon(gdp_mu_from_noise_multipliers(z), delta)

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


class _PlannedStepsFilter(_PrivacyFilter):
    """Reserve-then-charge of Gaussian steps, shared by the RDP and PLD filters.

    A subclass gives ``_spend(z, q) -> (state, epsilon)``: the epsilon (at
    ``delta``) of the charged steps followed by the steps ``(z, q)``, and any
    state to keep once they are charged (``_commit``).
    """

    def __init__(self, epsilon, delta):
        super().__init__()
        self.epsilon = _check_positive(epsilon, "epsilon")
        self.delta = _check_delta(delta)
        self.epsilon_spent = 0.0
        self._reserved = []  # approved steps not run yet, in order, reversed
        self._reserved_state = None

    def _commit(self, state, eps):
        self.epsilon_spent = eps

    @staticmethod
    def _as_plan(noise_multipliers, sampling_rates):
        z = np.atleast_1d(np.asarray(noise_multipliers, dtype=float))
        return z, np.broadcast_to(np.asarray(sampling_rates, dtype=float), z.shape)

    def epsilon_with(self, noise_multipliers, sampling_rates):
        """Epsilon (at ``delta``) the charged steps and these planned ones would spend.

        Parameters
        ----------
        noise_multipliers : array-like of shape (n_steps,)
            Noise multipliers of the planned steps, in order, each > 0.
        sampling_rates : float or array-like of shape (n_steps,)
            Their Poisson sampling rates, in (0, 1].

        Returns
        -------
        epsilon : float
            What :meth:`reserve` would compare with the budget (nothing recorded).
        """
        return self._spend(*self._as_plan(noise_multipliers, sampling_rates))[1]

    def reserve(self, noise_multipliers, sampling_rates):
        """Approve a whole pre-planned run at once, before any of it runs.

        One evaluation of all the steps (instead of one per step); the run is
        refused as a whole if it would overspend. Later :meth:`charge` calls for
        exactly these steps, in order, are then only recorded. The guarantee is
        that of charging them one by one: nothing runs unless the whole sequence
        fits.

        Parameters
        ----------
        noise_multipliers : array-like of shape (n_steps,)
            Noise multipliers of the planned steps, in order.
        sampling_rates : float or array-like of shape (n_steps,)
            Poisson sampling rates of the planned steps (one value for all).

        Raises
        ------
        BudgetExhaustedError
            If the charged and planned steps would spend more than the budget.
        ValueError
            If a step is invalid, or a reservation is already pending.
        """
        if self._reserved:
            raise ValueError("a reservation is already pending.")
        z, q = self._as_plan(noise_multipliers, sampling_rates)
        state, eps = self._spend(z, q)
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"the planned {z.shape[0]} steps would spend epsilon={eps:.6g} > "
                f"budget epsilon={self.epsilon:.6g}."
            )
        self._reserved = list(zip(z[::-1].tolist(), q[::-1].tolist(), strict=True))
        self._reserved_state = (state, eps)

    def charge(self, noise_multiplier, sampling_rate=1.0):
        """Record one Gaussian step (Poisson-subsampled or not), or refuse it.

        Parameters
        ----------
        noise_multiplier : float
            Noise std of the step in units of the sensitivity, > 0.
        sampling_rate : float, default=1.0
            Poisson sampling rate ``q`` of the step, in (0, 1].

        Raises
        ------
        ValueError
            If ``noise_multiplier <= 0``, ``sampling_rate`` is outside (0, 1], or
            the step is not the next one of a pending reservation.
        BudgetExhaustedError
            If the step would take the epsilon above the budget.
        """
        if self._reserved:
            if self._reserved[-1] != (float(noise_multiplier), float(sampling_rate)):
                raise ValueError("step does not match the reserved plan.")
            self._reserved.pop()
            self._record(float(noise_multiplier), float(sampling_rate))
            if not self._reserved:  # the whole approved plan has run
                self._commit(*self._reserved_state)
            return
        step = GaussianSteps(noise_multiplier, sampling_rate)
        state, eps = self._spend(
            *self._as_plan(step.noise_multiplier, step.sampling_rate)
        )
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"a step with noise_multiplier={step.noise_multiplier:.6g}, "
                f"sampling_rate={step.sampling_rate:.6g} would spend "
                f"epsilon={eps:.6g} > budget epsilon={self.epsilon:.6g}."
            )
        self._commit(state, eps)
        self._record(step.noise_multiplier, step.sampling_rate)

    def __repr__(self):
        return (
            f"{type(self).__name__}(epsilon={self.epsilon!r}, delta={self.delta!r}, "
            f"steps={len(self._z)}, epsilon_spent={self.epsilon_spent:.6g})"
        )


class RdpPrivacyFilter(_PlannedStepsFilter):
    """A privacy filter for Poisson-subsampled Gaussian steps, by Rényi DP.

    Keeps the running RDP curve of the charged steps; a step whose RDP would take
    the converted epsilon above ``epsilon`` (at ``delta``) is refused with
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` before it runs. The
    epsilon is minimised over the orders after each step, which is valid for a
    sequence of steps fixed in advance (the package's data-independent schedules,
    approved at once by :meth:`reserve`); for noise chosen adaptively from private
    answers, use :class:`RenyiPrivacyFilter`, whose order is fixed before the run
    (Feldman & Zrnic, NeurIPS 2021, Thm 3.1, is a filter at one order).

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
        super().__init__(epsilon, delta)
        self._orders = DEFAULT_ORDERS
        self._rdp = np.zeros(len(DEFAULT_ORDERS))

    def _spend(self, z, q):
        rdp = self._rdp + poisson_gaussian_rdp(z, q, self._orders)
        return rdp, rdp_epsilon(rdp, self._orders, self.delta)

    def _commit(self, state, eps):
        self._rdp, self.epsilon_spent = state, eps


class PldPrivacyFilter(_PlannedStepsFilter):
    """A privacy filter for pre-planned Gaussian steps, by privacy-loss distributions.

    The tight counterpart of :class:`RdpPrivacyFilter`, with the same interface: a
    step (:meth:`charge`) or a whole plan (:meth:`reserve`) is approved only if the
    pessimistic PLD epsilon (dp-accounting, connect-the-dots discretisation,
    add/remove neighbours; Doroshenko et al., PETS 2022) of everything charged so
    far followed by it is at most ``epsilon`` at ``delta``; otherwise
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` is raised before it
    runs. Full-batch steps (``sampling_rate=1``) and Poisson-subsampled ones
    compose in the same distribution; a step whose output chose the later plan
    (e.g. a noisy count that sized it) does not belong here. The grid
    step is :func:`~sklearn_dpgd._subsampled.pld_grid_step` of the budget and the
    number of steps, so the approval and the reported ``epsilon_spent`` are the
    same number the estimator calibrated its noise to. Like
    :class:`RdpPrivacyFilter`, it is meant for a sequence of steps fixed in advance
    (a data-independent schedule, approved at once by :meth:`reserve`); for noise
    chosen from private answers use :class:`RenyiPrivacyFilter`.

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).

    Attributes
    ----------
    epsilon_spent : float
        PLD epsilon (at ``delta``) of the charged steps; 0.0 before any step.
    ledger : tuple of GaussianSteps
        The charged steps, run-length encoded.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``delta`` is invalid.
    """

    def _spend(self, z, q):
        z_all = np.concatenate([self.noise_multipliers, z])
        q_all = np.concatenate([self.sampling_rates, q])
        # The grid of the budget and of the steps that add privacy loss (as
        # ledger_epsilon counts them, so that a re-audit meets this grid).
        n_steps = max(int(np.isfinite(z_all).sum()), 1)
        eps = pld_epsilon(
            z_all, q_all, self.delta, pld_grid_step(self.epsilon, n_steps)
        )
        return None, eps  # the PLD is recomputed from the recorded steps


# ----------------------------------------------------------------------------
# Pure-DP and sparse-vector pieces of the adaptive strategies, in RDP; a filter at
# one fixed order that accepts any mix of mechanisms.


def _as_orders(orders):
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if orders.ndim != 1 or np.any(~np.isfinite(orders)) or np.any(orders <= 1):
        raise ValueError("orders must be a 1-D array of finite values > 1.")
    return orders


def _laplace_rdp(orders, epsilon):
    # RDP of the Laplace mechanism with scale sensitivity / epsilon (Mironov 2017,
    # Prop. 6): 1/(a-1) log[a/(2a-1) e^{(a-1) eps} + (a-1)/(2a-1) e^{-a eps}].
    a = orders
    log_terms = np.logaddexp(
        np.log(a / (2 * a - 1)) + (a - 1) * epsilon,
        np.log((a - 1) / (2 * a - 1)) - a * epsilon,
    )
    return np.maximum(log_terms / (a - 1), 0.0)


def sparse_vector_rdp(orders, budget, noise="laplace"):
    """RDP of one noisy backtracking line search (sparse vector, AboveThreshold).

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Rényi orders, each > 1.
    budget : float
        ``epsilon_BT`` (``noise="laplace"``: threshold noise ``Lap(Delta /
        (epsilon_BT / 2))``, query noise ``Lap(Delta / (epsilon_BT / 4))``) or
        ``rho_BT`` (``noise="gaussian"``: threshold noise std ``Delta sqrt(3 / (2
        rho_BT))``, query noise std ``Delta sqrt(3 / rho_BT)``), > 0. ``Delta`` is
        the sensitivity of the queries.
    noise : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        RDP (nats) at each order, whatever the number of queries before the stop.

    Raises
    ------
    ValueError
        If an order is not > 1, ``budget`` is not > 0 or ``noise`` is unknown.

    Notes
    -----
    Chen & Lee, *Stochastic Adaptive Line Search for Differentially Private
    Optimization*, Algorithm 1, Thm 2, eq. (4) (Laplace: the product of the Laplace
    RDP terms at ``epsilon_1 = epsilon_BT / 2`` and ``2 epsilon_2 = epsilon_BT /
    2``) and Thm 3, eq. (5) with ``sigma_1^2 = 3 / (2 rho)``, ``sigma_2^2 = 3 / rho``
    (Gaussian: ``alpha rho``).
    """
    orders = _as_orders(orders)
    budget = _check_positive(budget, "budget")
    if noise == "laplace":
        epsilon_1, epsilon_2 = budget / 2.0, budget / 4.0
        return _laplace_rdp(orders, epsilon_1) + _laplace_rdp(orders, 2.0 * epsilon_2)
    if noise == "gaussian":
        s1, s2 = 3.0 / (2.0 * budget), 3.0 / budget
        return orders * (4.0 * s1 + s2) / (2.0 * s1 * s2)
    raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}.")


def pure_dp_rdp(orders, epsilon):
    """RDP of an ``epsilon``-DP mechanism: ``min(epsilon, alpha epsilon^2 / 2)``.

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Rényi orders, each > 1.
    epsilon : float
        Pure-DP parameter, > 0.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        RDP (nats) at each order.

    Raises
    ------
    ValueError
        If an order is not > 1 or ``epsilon`` is not > 0.

    Notes
    -----
    Bun & Steinke (2016), Prop. 1.4 (``epsilon^2 / 2``-zCDP), quoted as Lemma 2 of
    Chen & Lee; and ``D_alpha <= D_inf = epsilon``.
    """
    orders = _as_orders(orders)
    epsilon = _check_positive(epsilon, "epsilon")
    return np.minimum(epsilon, 0.5 * orders * epsilon * epsilon)


def poisson_amplified_rdp(base_rdp, sampling_rate, order):
    """RDP at an integer order of a mechanism run on a Poisson sample of the data.

    Parameters
    ----------
    base_rdp : callable
        ``base_rdp(orders) -> ndarray``: the RDP of the mechanism with respect to
        its input sample, at integer orders 2..``order``.
    sampling_rate : float
        Probability ``q`` in (0, 1] that each row is in the sample.
    order : int
        Integer Rényi order >= 2 (an integer-valued float is accepted).

    Returns
    -------
    rdp : float
        RDP (nats) at ``order`` with respect to the whole data (add/remove one row).

    Raises
    ------
    ValueError
        If ``order`` is not an integer >= 2 or ``sampling_rate`` is outside (0, 1].

    Notes
    -----
    Zhu & Wang (ICML 2019), Thm 6, quoted as Lemma 4 of Chen & Lee::

        1/(a-1) log{(1-q)^(a-1) (a q - q + 1) + C(a,2) q^2 (1-q)^(a-2) e^eps(2)
                    + 3 sum_{l=3}^a C(a,l) q^l (1-q)^(a-l) e^((l-1) eps(l))}

    evaluated in log space.
    """
    from scipy.special import gammaln

    if (
        isinstance(order, bool)
        or not isinstance(order, Real)
        or not float(order).is_integer()
        or order < 2
    ):
        raise ValueError(f"order must be an integer >= 2, got {order!r}.")
    q = _check_positive(sampling_rate, "sampling_rate")
    if q > 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q!r}.")
    a = int(order)
    if q == 1.0:
        return float(np.asarray(base_rdp(np.array([float(a)])))[0])
    ls = np.arange(2, a + 1, dtype=float)
    eps = np.asarray(base_rdp(ls), dtype=float)
    log_binom = gammaln(a + 1) - gammaln(ls + 1) - gammaln(a - ls + 1)
    log_q, log_1q = math.log(q), math.log1p(-q)
    terms = log_binom + ls * log_q + (a - ls) * log_1q + (ls - 1) * eps
    terms[1:] += math.log(3.0)
    first = (a - 1) * log_1q + math.log1p((a - 1) * q)
    total = np.logaddexp(first, np.logaddexp.reduce(terms))
    return max(float(total) / (a - 1), 0.0)


def _conversion_term(order, delta):
    # epsilon(order) - rdp(order) of the conversion used everywhere in the package
    # (Canonne, Kamath & Steinke 2020, Prop. 12; see _subsampled.rdp_epsilon).
    return math.log1p(-1.0 / order) - (math.log(delta) + math.log(order)) / (order - 1)


@dataclass(frozen=True)
class SparseVectorSteps:
    """A run of identical noisy line searches (sparse vector): a ledger entry.

    Parameters
    ----------
    budget : float
        ``epsilon_BT`` (Laplace) or ``rho_BT`` (Gaussian), > 0; see
        :func:`sparse_vector_rdp`.
    noise : {"laplace", "gaussian"}, default="laplace"
    sampling_rate : float, default=1.0
        Poisson sampling rate of the rows the queries read.
    count : int, default=1
        Number of consecutive identical searches, >= 1.

    Raises
    ------
    ValueError
        If a field is out of range.
    """

    budget: float
    noise: str = "laplace"
    sampling_rate: float = 1.0
    count: int = 1

    def __post_init__(self):
        _check_positive(self.budget, "budget")
        if self.noise not in ("laplace", "gaussian"):
            raise ValueError(
                f"noise must be 'laplace' or 'gaussian', got {self.noise!r}."
            )
        _check_rate_and_count(self.sampling_rate, self.count)

    def rdp(self, order):
        """RDP (nats) of the whole run at one order (integer if subsampled).

        Parameters
        ----------
        order : float
            Rényi order > 1; an integer >= 2 when ``sampling_rate < 1``.

        Returns
        -------
        rdp : float
            Sum over the ``count`` searches, amplified by Poisson sampling: the
            smaller of two valid bounds at ``order``. (1) Chen & Lee's RDP of the
            search (Thm 2 / Thm 3, :func:`sparse_vector_rdp`) amplified by the
            general bound of Zhu & Wang (ICML 2019, Thm 6). (2) Laplace only: the
            search (AboveThreshold with threshold noise ``Lap(2 Delta /
            epsilon_BT)`` and query noise ``Lap(4 Delta / epsilon_BT)``) is
            ``epsilon_BT``-DP (Dwork & Roth 2014, Thm 3.23); run on one Poisson
            sample of rate ``q`` it is ``log(1 + q (e^epsilon_BT - 1))``-DP (Li,
            Qardaji & Su, ASIACCS 2012, Thm 1), and :func:`pure_dp_rdp` of that.
            At ``q = 0.1`` (``LineSearchSchedule``'s default) (2) is about 40x
            smaller than (1).
        """

        def base(orders):
            return sparse_vector_rdp(orders, self.budget, self.noise)

        if self.sampling_rate == 1.0:
            rdp = self.count * float(base([order])[0])
        else:
            rdp = self.count * poisson_amplified_rdp(base, self.sampling_rate, order)
        if self.noise == "laplace":
            q, b = self.sampling_rate, self.budget
            # log(1 + q (e^b - 1)), without overflow for a large b.
            pure = (
                b + math.log(q + (1.0 - q) * math.exp(-b))
                if b > 30
                else (math.log1p(q * math.expm1(b)))
            )
            rdp = min(rdp, self.count * float(pure_dp_rdp([order], pure)[0]))
        return rdp


@dataclass(frozen=True)
class NoisyMaxSteps:
    """A run of identical report-noisy-max selections (pure DP): a ledger entry.

    Parameters
    ----------
    epsilon : float
        Pure-DP parameter of one selection, > 0.
    count : int, default=1
        Number of consecutive identical selections, >= 1.

    Raises
    ------
    ValueError
        If a field is out of range.
    """

    epsilon: float
    count: int = 1

    def __post_init__(self):
        _check_positive(self.epsilon, "epsilon")
        _check_rate_and_count(1.0, self.count)

    @property
    def sampling_rate(self):
        """Always 1.0: the selections read every row."""
        return 1.0

    def rdp(self, order):
        """RDP (nats) of the whole run at one order.

        Parameters
        ----------
        order : float
            Rényi order > 1.

        Returns
        -------
        rdp : float
            ``count`` times :func:`pure_dp_rdp` at ``order``.
        """
        return self.count * float(pure_dp_rdp([order], self.epsilon)[0])


def _check_rate_and_count(sampling_rate, count):
    q = _check_positive(sampling_rate, "sampling_rate")
    if q > 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q!r}.")
    if isinstance(count, bool) or not isinstance(count, Integral) or count < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}.")


def _gaussian_steps_rdp(record, order):
    if record.sampling_rate == 1.0:
        return record.count * order / (2.0 * record.noise_multiplier**2)

    return float(
        poisson_gaussian_rdp(
            [record.noise_multiplier], [record.sampling_rate], np.array([float(order)])
        )[0]
        * record.count
    )


def _record_rdp(record, order):
    if isinstance(record, GaussianSteps):
        return _gaussian_steps_rdp(record, order)
    return record.rdp(order)


def _merge(records):
    # Run-length encode consecutive equal records (their count fields add up).
    out = []
    for r in records:
        if out and type(out[-1]) is type(r) and _key(out[-1]) == _key(r):
            prev = out[-1]
            out[-1] = type(prev)(**{**_fields(prev), "count": prev.count + r.count})
        else:
            out.append(r)
    return tuple(out)


def _fields(record):
    return {k: getattr(record, k) for k in record.__dataclass_fields__}


def _key(record):
    return tuple(v for k, v in _fields(record).items() if k != "count")


class RenyiPrivacyFilter(_PrivacyFilter):
    """A privacy filter at one fixed Rényi order, for fully adaptive runs.

    Every mechanism (Gaussian gradient, sparse-vector line search, report-noisy-max,
    with or without Poisson subsampling) is charged its RDP at the order ``order``
    *before* it runs, and refused with
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` if the running sum would
    pass ``budget = epsilon - c(order, delta)``, where ``c`` is the RDP-to-DP
    conversion term (Canonne, Kamath & Steinke 2020, Prop. 12). Whatever the
    adaptive choices, the run is then ``(order, budget)``-RDP (Feldman & Zrnic,
    NeurIPS 2021, Thm 3.1: an RDP filter at a fixed order), hence ``(epsilon,
    delta)``-DP. The order is fixed in advance from public quantities
    (:func:`best_filter_order`); a filter that chose the order afterwards, from the
    realised costs, would not be valid.

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).
    order : float
        The Rényi order (> 1; an integer >= 2 if subsampled mechanisms other than
        Gaussian steps are charged).

    Attributes
    ----------
    budget : float
        RDP budget (nats) at ``order``.
    rdp_spent : float
        RDP (nats) charged so far at ``order``.
    noise_multipliers : ndarray of shape (n_gaussian,)
        The Gaussian steps' noise multipliers, in order.
    ledger : tuple
        Every charged mechanism, in order, run-length encoded
        (:class:`GaussianSteps`, :class:`SparseVectorSteps`, :class:`NoisyMaxSteps`).

    Raises
    ------
    ValueError
        If a parameter is out of range or the order cannot certify ``epsilon`` at
        ``delta`` (``c(order, delta) >= epsilon``).
    """

    def __init__(self, epsilon, delta, order):
        super().__init__()
        self.epsilon = _check_positive(epsilon, "epsilon")
        self.delta = _check_delta(delta)
        self.order = _check_positive(order, "order")
        if self.order <= 1:
            raise ValueError(f"order must be > 1, got {order!r}.")
        self.budget = self.epsilon - _conversion_term(self.order, self.delta)
        if self.budget <= 0:
            raise ValueError(
                f"order={order!r} cannot certify epsilon={epsilon!r} at "
                f"delta={delta!r}; use a larger order."
            )
        self.rdp_spent = 0.0
        self._records = []
        self._costs = {}

    def cost(self, record):
        """RDP (nats) at :attr:`order` of a mechanism record.

        Parameters
        ----------
        record : GaussianSteps, SparseVectorSteps or NoisyMaxSteps
            The mechanism (with its count).

        Returns
        -------
        rdp : float
            Its RDP at :attr:`order`, cached per record.
        """
        if record not in self._costs:  # records are frozen, hence hashable
            self._costs[record] = _record_rdp(record, self.order)
        return self._costs[record]

    def remaining(self):
        """RDP budget (nats) left at :attr:`order`.

        Returns
        -------
        remaining : float
            ``max(budget - rdp_spent, 0)``.
        """
        return max(self.budget - self.rdp_spent, 0.0)

    def charge_mechanism(self, record):
        """Record a mechanism before it runs, or refuse it.

        Parameters
        ----------
        record : GaussianSteps, SparseVectorSteps or NoisyMaxSteps
            The mechanism about to run.

        Raises
        ------
        BudgetExhaustedError
            If the mechanism would take the RDP at :attr:`order` above the budget.
        """
        spent = self.rdp_spent + self.cost(record)
        if spent > self.budget:
            raise BudgetExhaustedError(
                f"{record!r} would spend RDP {spent:.6g} > budget {self.budget:.6g} "
                f"at order {self.order:g}."
            )
        self.rdp_spent = spent
        self._records.append(record)
        if isinstance(record, GaussianSteps):
            for _ in range(record.count):
                self._record(record.noise_multiplier, record.sampling_rate)

    def charge(self, noise_multiplier, sampling_rate=1.0):
        """Record one Gaussian gradient step, or refuse it.

        Parameters
        ----------
        noise_multiplier : float
            Noise std in units of the sensitivity, > 0.
        sampling_rate : float, default=1.0
            Poisson sampling rate, in (0, 1].

        Raises
        ------
        BudgetExhaustedError
            If the step would overspend.
        """
        self.charge_mechanism(GaussianSteps(noise_multiplier, sampling_rate))

    @property
    def ledger(self):
        """Every charged mechanism, in order, run-length encoded: a tuple."""
        return _merge(self._records)

    def __repr__(self):
        return (
            f"RenyiPrivacyFilter(epsilon={self.epsilon!r}, delta={self.delta!r}, "
            f"order={self.order!r}, rdp_spent={self.rdp_spent:.6g})"
        )


def best_filter_order(epsilon, delta, orders, step_rdp):
    """The order at which the most copies of a nominal iteration fit in the budget.

    Parameters
    ----------
    epsilon : float
        Budget, > 0.
    delta : float
        In (0, 1).
    orders : array-like of shape (n_orders,)
        Candidate orders, each > 1.
    step_rdp : array-like of shape (n_orders,)
        RDP (nats, > 0) of one nominal iteration of the adaptive run at each order
        (a public, data-independent plan).

    Returns
    -------
    order : float
        The candidate maximising ``(epsilon - c(order, delta)) / step_rdp(order)``,
        ``c`` the RDP-to-DP conversion term.

    Raises
    ------
    ValueError
        If the arrays differ in shape or no candidate can certify ``epsilon`` at
        ``delta``.

    Notes
    -----
    The order of a :class:`RenyiPrivacyFilter` must not depend on the data; this
    chooses it from the nominal per-iteration budget of a strategy (e.g. Chen &
    Lee, Sec. V-B: ``epsilon_iter = epsilon / 100``).
    """
    epsilon = _check_positive(epsilon, "epsilon")
    delta = _check_delta(delta)
    orders = _as_orders(orders)
    step_rdp = np.asarray(step_rdp, dtype=float)
    if step_rdp.shape != orders.shape:
        raise ValueError("orders and step_rdp must have the same shape.")
    room = epsilon - np.array([_conversion_term(a, delta) for a in orders])
    with np.errstate(divide="ignore", invalid="ignore"):
        copies = np.where(room > 0, room / step_rdp, -np.inf)
    if not np.any(room > 0):
        raise ValueError(
            f"no order can certify epsilon={epsilon!r} at delta={delta!r}."
        )
    return float(orders[int(np.argmax(copies))])


def _mixed_ledger_epsilon(ledger, delta):
    orders = DEFAULT_ORDERS
    if any(isinstance(r, SparseVectorSteps) and r.sampling_rate < 1 for r in ledger):
        # The amplification bound of subsampled searches holds at integer orders.
        orders = orders[orders == np.round(orders)]
    rdp = np.array([sum(float(_record_rdp(r, a)) for r in ledger) for a in orders])
    return rdp_epsilon(rdp, orders, delta)


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
        Epsilon (at ``delta``) of the records and steps charged so far (the RDP of
        the prefix, which is itself a Snowball run); 0.0 before any.
    noise_multipliers : ndarray of shape (n_charged,)
        Charged noise multipliers of the plan's steps (units of the sensitivity).
    ledger : tuple of GaussianSteps and SnowballSteps
        The records of :meth:`charge_before`, then the charged steps as one
        record.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``delta`` is invalid.
    """

    def __init__(self, epsilon, delta):
        self.epsilon = _check_positive(epsilon, "epsilon")
        self.delta = _check_delta(delta)
        self._before = ()
        self._plan = None
        self._accounted = None  # the record the guarantee is computed from
        self._charged = 0

    def charge_before(self, record):
        """Charge a full-batch Gaussian mechanism that runs before the plan.

        E.g. the noisy count of the rows that sizes the plan
        (:mod:`sklearn_dpgd._public_size`). It is composed with the plan in RDP
        and leads :attr:`ledger`.

        Parameters
        ----------
        record : GaussianSteps
            With ``sampling_rate == 1``.

        Raises
        ------
        BudgetExhaustedError
            If the records charged so far would exceed the budget.
        ValueError
            If a plan is already reserved or ``record`` is not a full-batch
            :class:`GaussianSteps`.
        """
        if self._plan is not None:
            raise ValueError("charge_before must come before the plan is reserved.")
        if not isinstance(record, GaussianSteps) or record.sampling_rate != 1.0:
            raise ValueError("record must be a full-batch GaussianSteps.")
        before = self._before + (record,)
        eps = ledger_epsilon(before, self.delta, accountant="rdp")
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"the steps before the Snowball plan would spend epsilon={eps:.6g} "
                f"> budget epsilon={self.epsilon:.6g}."
            )
        self._before = before

    def reserve(self, plan, rho_bound=None):
        """Approve a whole :class:`SnowballSteps` plan, or refuse it.

        Parameters
        ----------
        plan : SnowballSteps
            The steps that will run, in order.
        rho_bound : float or None, default=None
            For a plan chosen from the output of the records charged before (e.g.
            batch sizes sized by a noisy count): the ``rho`` it was designed to,
            fixed before those records ran. The guarantee is then that of the
            curve ``alpha rho_bound^2 / 2``, valid whatever the plan turned out
            to be (adaptive composition of RDP at every order; Mironov, CSF 2017,
            Prop. 1), not the realised plan's converted after the fact. None: the
            plan was fixed in advance and is accounted as it is.

        Raises
        ------
        BudgetExhaustedError
            If the plan's epsilon at ``delta`` exceeds the budget.
        ValueError
            If a plan is already reserved, or ``plan.rho > rho_bound``.
        """
        if self._plan is not None:
            raise ValueError("a plan is already reserved.")
        accounted = plan
        if rho_bound is not None:
            if plan.rho > rho_bound * (1 + 1e-12):
                raise ValueError("plan.rho exceeds the rho it was designed to.")
            # (alpha, alpha rho^2 / 2)-RDP is the curve of one Gaussian step of
            # noise multiplier 1 / rho.
            accounted = GaussianSteps(1.0 / rho_bound)
        eps = ledger_epsilon(self._before + (accounted,), self.delta, accountant="rdp")
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"the Snowball plan would spend epsilon={eps:.6g} > budget "
                f"epsilon={self.epsilon:.6g}."
            )
        self._plan, self._accounted = plan, accounted

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
        """Epsilon at ``delta`` of the charged records (0.0 before any): float.

        With a ``rho_bound`` (:meth:`reserve`), the guarantee of the designed
        curve as soon as a step of the plan has run.
        """
        if self._accounted is not None and self._accounted is not self._plan:
            if self._charged:
                return ledger_epsilon(
                    self._before + (self._accounted,), self.delta, accountant="rdp"
                )
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
        """The records of :meth:`charge_before`, then the charged steps: tuple.

        The charged steps form one :class:`SnowballSteps` record.
        """
        if self._plan is None or self._charged == 0:
            return self._before
        k = self._charged
        p = self._plan
        return self._before + (
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


# ---------------------------------------------------------------------------------
# The budget ledger across fits (GridSearchCV, cross-validation, tuning).
#
# A fit cannot hold its ledger as a parameter: scikit-learn clones estimators, and a
# clone would hold a copy. The ledger is therefore *active*: ``with ledger:`` puts it
# on a context-local stack, and a fit records into every ledger on the stack of its
# context. New threads start with an empty context (contextvars do not follow
# ``threading.Thread``), so a fit whose context has no ledger records into every
# ledger open anywhere in its process: over-reporting is safe, under-reporting is not.
# Another process sees no ledger at all; see _ledger_guard_state. A forked process
# (os.fork, joblib's "multiprocessing" backend) sees copies of its parent's ledgers,
# in its contexts and in _OPEN_LEDGERS alike, and what it records there never
# reaches the parent: each ledger remembers the process it belongs to (_pid), and a
# copy refuses to record (_check_not_forked_copy).

_ACTIVE_LEDGERS = contextvars.ContextVar("sklearn_dpgd_active_ledgers", default=())
_OPEN_LEDGERS = {}  # id(ledger) -> [ledger, times entered], process-wide
_LEDGER_LOCK = threading.RLock()
_FORK_ADVICE = (
    "Run the fits with n_jobs=1 or joblib's threading backend (the ledger's "
    "default), or open a new PrivacyLedger inside the child process and record its "
    "entries in the parent's ledger yourself."
)
_LEDGER_GUARD = "_sklearn_dpgd_ledger_pid"
# Privacy-loss grid step of the PLD compositions of the ledger (dp-accounting).
_LEDGER_PLD_STEP = 1e-4


@dataclass(frozen=True)
class EpsilonDeltaRecord:
    """A mechanism known by its ``(epsilon, delta)``-DP guarantee: one ledger entry.

    Used for mechanisms that are not Gaussian steps, e.g. the report-noisy-max
    selection of :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV`
    (``delta = 0``: pure DP) or a whole private search charged as one black box.
    Composed through the worst-case privacy-loss distribution of an
    ``(epsilon, delta)``-DP mechanism (Kairouz, Oh & Viswanath, ICML 2015, Thm 3.4;
    dp-accounting's ``from_privacy_parameters``).

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound, finite and >= 0.
    delta : float, default=0.0
        In [0, 1).

    Raises
    ------
    ValueError
        If a field is out of range.
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        _check_positive(self.epsilon, "epsilon", allow_zero=True)
        delta = _check_positive(self.delta, "delta", allow_zero=True)
        if not delta < 1:
            raise ValueError(f"delta must be in [0, 1), got {delta!r}.")


@dataclass(frozen=True)
class LedgerEntry:
    """One mechanism recorded by a :class:`PrivacyLedger`.

    Parameters
    ----------
    mechanism : tuple of GaussianSteps or EpsilonDeltaRecord
        What ran: a fit's ``ledger_`` (Gaussian steps, noise in units of the
        sensitivity under ``neighboring``), or an ``(epsilon, delta)`` guarantee.
    neighboring : {"add_remove", "replace"}
        The neighbouring relation the mechanism is private under.
    source : str
        Who ran it (e.g. the estimator's class name); informational.
    part : str or None
        The disjoint part of the data the mechanism read (e.g. "train" or
        "validation" of a split fixed independently of the data); None means all
        rows. Mechanisms on different parts compose in parallel.

    Raises
    ------
    ValueError
        If ``neighboring`` is unknown or ``mechanism`` is empty.
    TypeError
        If ``mechanism`` is neither kind.
    """

    mechanism: object
    neighboring: str = "add_remove"
    source: str = ""
    part: object = None

    def __post_init__(self):
        if self.neighboring not in ("add_remove", "replace"):
            raise ValueError(
                "neighboring must be 'add_remove' or 'replace', got "
                f"{self.neighboring!r}."
            )
        m = self.mechanism
        if isinstance(m, EpsilonDeltaRecord):
            return
        if not isinstance(m, tuple) or not all(isinstance(r, GaussianSteps) for r in m):
            raise TypeError(
                "mechanism must be a tuple of GaussianSteps or an EpsilonDeltaRecord, "
                f"got {type(m).__name__}."
            )
        if not m:
            raise ValueError("mechanism must not be empty.")


def _pld_compose(entries, delta):
    """Epsilon at ``delta`` of entries composed with dp-accounting's PLDs."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    records = [
        e.mechanism for e in entries if isinstance(e.mechanism, EpsilonDeltaRecord)
    ]
    basic = math.inf
    if len(records) == len(entries):
        # Basic composition is exact for one entry and a valid bound for several;
        # keep it when tighter than the discretised PLD.
        if sum(r.delta for r in records) <= delta:
            basic = sum(r.epsilon for r in records)
    # Full-batch Gaussian steps compose to one Gaussian mechanism exactly (Dong,
    # Roth & Su 2022, Cor. 3.3): merge them before discretising, once.
    full_batch = [
        r
        for e in entries
        if not isinstance(e.mechanism, EpsilonDeltaRecord)
        for r in e.mechanism
        if r.sampling_rate == 1.0
    ]
    mu_sq = sum(r.count / r.noise_multiplier**2 for r in full_batch)
    pld = None
    if mu_sq > 0:
        pld = pld_lib.from_gaussian_mechanism(
            1.0 / math.sqrt(mu_sq), value_discretization_interval=_LEDGER_PLD_STEP
        )
    for entry in entries:
        m = entry.mechanism
        if isinstance(m, EpsilonDeltaRecord):
            part = pld_lib.from_privacy_parameters(
                common.DifferentialPrivacyParameters(m.epsilon, m.delta),
                value_discretization_interval=_LEDGER_PLD_STEP,
            )
            pld = part if pld is None else pld.compose(part)
    # The subsampled steps of all entries, in one PLD: dp-accounting's PMFs,
    # computed vectorised and composed by level (a ledger with a 30-level
    # minibatch fit took 10 s through dp-accounting's own loops).
    subsampled = [
        r
        for e in entries
        if not isinstance(e.mechanism, EpsilonDeltaRecord)
        for r in e.mechanism
        if r.sampling_rate < 1.0 and math.isfinite(r.noise_multiplier)
    ]
    if subsampled:
        part = _ledger_pld(subsampled, delta, _LEDGER_PLD_STEP)
        pld = part if pld is None else pld.compose(part)
    if pld is None:
        return 0.0
    return min(basic, max(float(pld.get_epsilon_for_delta(delta)), 0.0))


# Up to this many (epsilon, delta) records compose in closed form with full-batch
# Gaussian steps (2**n atoms of the records' joint privacy loss); more go to PLD.
_MAX_EXACT_RECORDS = 10


def _gaussian_profile(mu, x):
    """``E[(1 - exp(x - L))_+]`` for the privacy loss ``L ~ N(mu^2/2, mu^2)``."""
    if mu == 0.0:
        return max(0.0, -math.expm1(x))
    return _delta(mu, x) if x >= 0 else _delta_negative(mu, x)


def _delta_negative(mu, x):
    # For x < 0 both terms are large: Phi(a) - exp(x) Phi(b) with a > b.
    a = -x / mu + mu / 2.0
    b = -x / mu - mu / 2.0
    return float(np.exp(log_ndtr(a)) - math.exp(x + log_ndtr(b)))


def _exact_compose(records, mu, delta):
    """Epsilon of ``(epsilon_i, delta_i)`` records composed with a ``mu``-GDP part.

    Every ``(epsilon_i, delta_i)``-DP mechanism is dominated by the one whose
    privacy loss is ``+inf`` with probability ``delta_i`` and ``+-epsilon_i``
    otherwise with odds ``exp(epsilon_i)`` (Kairouz, Oh & Viswanath, ICML 2015,
    Thm 3.4), and domination survives composition (Dong, Roth & Su 2022, Lemma
    3.4). The composed privacy profile is then a finite mixture of shifted
    Gaussian profiles, ``delta(e) = 1 - prod(1 - delta_i) + prod(1 - delta_i)
    sum_a P(a) delta_mu(e - a)``, inverted in ``e`` by bisection to the float.
    """
    atoms = np.zeros(1)
    probs = np.ones(1)
    for r in records:
        p_plus = 1.0 / (1.0 + math.exp(-r.epsilon))
        atoms = np.concatenate([atoms + r.epsilon, atoms - r.epsilon])
        probs = np.concatenate([probs * p_plus, probs * (1.0 - p_plus)])
    # 1 - prod(1 - delta_i), never below its true value (exactly delta_1 for one).
    lost = min(
        math.fsum(r.delta for r in records),
        -math.expm1(math.fsum(math.log1p(-r.delta) for r in records)),
    )
    if lost > delta:
        return math.inf
    keep = 1.0 - lost

    def profile(e):
        return lost + keep * sum(
            p * _gaussian_profile(mu, e - a) for a, p in zip(atoms, probs, strict=True)
        )

    if profile(0.0) <= delta:
        return 0.0
    hi = float(np.sum([r.epsilon for r in records])) + max(1.0, mu * mu)
    while profile(hi) > delta:
        hi *= 2.0
    # Bisection on "profile(e) <= delta", not a root-find: the profile can be
    # flat at delta (pure records alone), and the smallest valid e is wanted.
    lo = 0.0
    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            return float(hi)
        if profile(mid) <= delta:
            hi = mid
        else:
            lo = mid


def _compose_entries(entries, delta, accountant):
    if not entries:
        return 0.0
    if all(isinstance(e.mechanism, tuple) for e in entries):
        steps = tuple(r for e in entries for r in e.mechanism)
        return ledger_epsilon(steps, delta, accountant=accountant)
    if accountant not in ("auto", "pld"):
        raise ValueError(
            f"accountant={accountant!r} cannot compose (epsilon, delta) records; "
            "use 'auto' or 'pld'."
        )
    records = [e.mechanism for e in entries if not isinstance(e.mechanism, tuple)]
    steps = [r for e in entries if isinstance(e.mechanism, tuple) for r in e.mechanism]
    if (
        accountant == "auto"
        and len(records) <= _MAX_EXACT_RECORDS
        and all(r.sampling_rate == 1.0 for r in steps)
    ):
        mu_sq = sum(r.count / r.noise_multiplier**2 for r in steps)
        return _exact_compose(records, math.sqrt(mu_sq), delta)
    return _pld_compose(entries, delta)


class PrivacyLedger:
    """A budget ledger across fits: records every private fit run while it is open.

    Open it with ``with ledger:``; every fit of a DP estimator of this package in
    that block (also the fits that scikit-learn's ``GridSearchCV``,
    ``cross_validate`` or ``Pipeline`` make on clones) records what it ran, its
    ``ledger_``, here. :meth:`epsilon` composes all of it. With a cap
    ``(epsilon, delta)``, a fit whose planned steps would take the composition
    above the cap raises :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError`
    before it reads any data: the fit's noise is calibrated from public quantities,
    so its whole cost is known before it starts (a privacy filter over fits;
    Rogers et al., NeurIPS 2016; Whitehouse et al., ICML 2023).

    The ledger is not an estimator parameter (clones would hold copies), and
    there is no global accountant: only fits inside ``with ledger:`` are recorded.

    Parameters
    ----------
    epsilon : float or None, default=None
        Cap on the total epsilon, > 0; None records without a cap.
    delta : float or None, default=None
        The delta at which the cap is checked, in (0, 1); required with
        ``epsilon``.

    Attributes
    ----------
    entries : tuple of LedgerEntry
        What was recorded, in order.
    neighboring : str or None
        The neighbouring relation of the recorded mechanisms (all must share one);
        None while empty.

    Raises
    ------
    ValueError
        If only one of ``epsilon`` and ``delta`` is given, or either is invalid.

    See Also
    --------
    ledger_epsilon : The epsilon of one fit's ``ledger_``.

    Notes
    -----
    Composition is sequential over all recorded mechanisms, as if each had read
    all rows (a fit on a fold reads fewer, so this is an upper bound), except for
    entries marked with disjoint ``part``s, which compose in parallel (McSherry,
    SIGMOD 2009). Full-batch Gaussian steps compose exactly in closed form
    (``mu^2`` adds up; Dong, Roth & Su 2022, Cor. 3.3); subsampled steps by RDP
    or PLD (:func:`ledger_epsilon`); ``(epsilon, delta)`` records by
    dp-accounting's privacy-loss distributions (Doroshenko et al. 2022).

    Adaptivity: the GDP and RDP compositions stay valid when each fit's budget is
    chosen after seeing earlier outputs (Smith & Thakurta 2022; Feldman & Zrnic,
    NeurIPS 2021), so the cap is a privacy filter for fits. The exact composition
    of ``(epsilon, delta)`` records is proven for records whose parameters were
    fixed in advance (as the searches of :mod:`sklearn_dpgd.model_selection`
    charge them, from public inputs); choosing a record's budget from earlier
    private outputs is not covered.

    What a ledger does *not* see: the scores ``GridSearchCV`` computes on the
    held-out folds, ``best_params_`` and ``cv_results_`` are exact functions of
    private data, released without noise. Around a plain ``GridSearchCV`` the
    ledger's epsilon is therefore the spend of the fits only, a lower bound on the
    leak; :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` makes the
    selection private too.

    Parallelism: while open, the ledger makes joblib's default backend
    ``"threading"`` (fits in the threads of ``n_jobs=2`` record correctly; a
    thread without the ledger in its context records into every ledger open in
    the process, which can only over-report). A fit that still reaches another
    process (an explicit ``backend="loky"``) raises
    :class:`~sklearn_dpgd.exceptions.UnrecordedFitError` there, before it reads
    data. So does a fit in a forked process (``os.fork``, an explicit
    ``backend="multiprocessing"``) that would record in a ledger of its parent:
    the child holds a copy the parent never sees, whether the ledger was open at
    the fork or is opened in the child. A ledger created in the child records
    there, for the child to report.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.accounting import PrivacyLedger
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> ledger = PrivacyLedger()
    >>> with ledger:
    ...     scores = cross_val_score(
    ...         DPLogisticRegression(epsilon=0.5, delta=1e-6, classes=[0, 1]),
    ...         X, y, cv=3,
    ...     )
    >>> len(ledger.entries), round(ledger.epsilon(1e-6), 3)
    (3, 0.901)
    """

    def __init__(self, epsilon=None, delta=None):
        if (epsilon is None) != (delta is None):
            raise ValueError("give both epsilon and delta for a cap, or neither.")
        self.cap_epsilon = (
            None if epsilon is None else _check_positive(epsilon, "epsilon")
        )
        self.cap_delta = None if delta is None else _check_delta(delta)
        self._entries = []
        self._tokens = []
        # The process whose ledger this is: a forked child holds a copy, which must
        # not record (the parent never sees it).
        self._pid = os.getpid()

    def __setstate__(self, state):
        # An unpickled ledger is a new, explicit copy (e.g. loaded from disk): it
        # belongs to the process that loaded it, and is not open there.
        self.__dict__.update(state)
        self._tokens = []
        self._pid = os.getpid()

    def _check_not_forked_copy(self, source):
        """Refuse to record in a copy of a ledger inherited through ``fork``."""
        if self._pid != os.getpid():
            raise UnrecordedFitError(
                f"{source or 'a mechanism'} would be recorded in a copy of a "
                f"PrivacyLedger of process {self._pid}, made when this process "
                f"({os.getpid()}) was forked from it (os.fork, joblib's "
                '"multiprocessing" backend): that process never sees what the copy '
                "records, so this privacy spend would be lost; nothing ran. "
                + _FORK_ADVICE
            )

    @property
    def entries(self):
        """The recorded mechanisms, in order: tuple of LedgerEntry."""
        with _LEDGER_LOCK:
            return tuple(self._entries)

    @property
    def neighboring(self):
        """Neighbouring relation of the recorded mechanisms; None while empty."""
        entries = self.entries
        return entries[0].neighboring if entries else None

    def __len__(self):
        return len(self._entries)

    def __enter__(self):
        import joblib

        with _LEDGER_LOCK:
            slot = _OPEN_LEDGERS.setdefault(id(self), [self, 0])
            slot[1] += 1
        token = _ACTIVE_LEDGERS.set(_ACTIVE_LEDGERS.get() + (self,))
        # Fits in worker processes could not record here: keep joblib in threads.
        backend = joblib.parallel_config(backend="threading")
        backend.__enter__()
        self._tokens.append((token, backend))
        return self

    def __exit__(self, *exc_info):
        token, backend = self._tokens.pop()
        backend.__exit__(*exc_info)
        _ACTIVE_LEDGERS.reset(token)
        with _LEDGER_LOCK:
            slot = _OPEN_LEDGERS[id(self)]
            slot[1] -= 1
            if slot[1] == 0:
                del _OPEN_LEDGERS[id(self)]
        return False

    def _check_entry(self, entry, entries):
        if entries and entry.neighboring != entries[0].neighboring:
            raise ValueError(
                f"this ledger records {entries[0].neighboring!r} mechanisms; a "
                f"{entry.neighboring!r} one cannot be composed with them. Use one "
                "neighbouring relation per ledger."
            )
        if self.cap_epsilon is None:
            return
        spent = self._epsilon(entries + [entry], self.cap_delta, "auto")
        if spent > self.cap_epsilon:
            raise BudgetExhaustedError(
                f"{entry.source or 'a mechanism'} would take this ledger to "
                f"epsilon={spent:.6g} > cap epsilon={self.cap_epsilon:.6g} (at "
                f"delta={self.cap_delta:g}); it was refused before reading data."
            )

    def charge(self, mechanism, *, neighboring="add_remove", source="", part=None):
        """Record a mechanism about to run, or refuse it if it would overspend.

        Parameters
        ----------
        mechanism : tuple of GaussianSteps or EpsilonDeltaRecord
            What will run (see :class:`LedgerEntry`).
        neighboring : {"add_remove", "replace"}, default="add_remove"
            Its neighbouring relation; must match the ledger's.
        source : str, default=""
            Who runs it (informational).
        part : str or None, default=None
            The disjoint part of the data it reads; None for all rows.

        Returns
        -------
        index : int
            Position of the new entry in :attr:`entries`.

        Raises
        ------
        BudgetExhaustedError
            If the ledger has a cap and the mechanism would exceed it; nothing is
            recorded.
        UnrecordedFitError
            If this ledger is a copy inherited by a forked process (its parent
            would never see the entry); nothing is recorded.
        ValueError
            If ``neighboring`` differs from the recorded mechanisms'.
        TypeError
            If ``mechanism`` is neither kind.
        """
        entry = LedgerEntry(mechanism, neighboring, source, part)
        self._check_not_forked_copy(source)
        with _LEDGER_LOCK:
            self._check_entry(entry, self._entries)
            self._entries.append(entry)
            return len(self._entries) - 1

    def _settle(self, index, mechanism):
        with _LEDGER_LOCK:
            old = self._entries[index]
            self._entries[index] = LedgerEntry(
                mechanism, old.neighboring, old.source, old.part
            )

    @staticmethod
    def _epsilon(entries, delta, accountant):
        parts = {e.part for e in entries if e.part is not None}
        if not parts:
            return _compose_entries(entries, delta, accountant)
        return max(
            _compose_entries(
                [e for e in entries if e.part is None or e.part == p], delta, accountant
            )
            for p in parts
        )

    def epsilon(self, delta, accountant="auto"):
        """Total epsilon at ``delta`` of everything recorded, composed exactly.

        Parameters
        ----------
        delta : float
            In (0, 1).
        accountant : {"auto", "gdp", "rdp", "pld"}, default="auto"
            As in :func:`ledger_epsilon`; "auto" is the exact GDP closed form when
            every entry is a full-batch Gaussian step, the pessimistic PLD of
            :func:`ledger_epsilon` for subsampled steps (the accountant minibatch
            fits report with), and PLD as soon as an ``(epsilon, delta)`` record is
            present. A cap (``epsilon=``) decides with the same composition.

        Returns
        -------
        epsilon : float
            >= 0; 0.0 for an empty ledger.

        Raises
        ------
        ValueError
            If ``delta`` is invalid, the ledger's ``(epsilon, delta)`` records'
            deltas add up to more than ``delta`` in a way no accountant can meet,
            or ``accountant`` cannot compose the entries.
        """
        delta = _check_delta(delta)
        return self._epsilon(list(self.entries), delta, accountant)

    def __repr__(self):
        cap = (
            ""
            if self.cap_epsilon is None
            else f"epsilon={self.cap_epsilon!r}, delta={self.cap_delta!r}, "
        )
        return f"PrivacyLedger({cap}entries={len(self._entries)})"


def _active_ledgers():
    """Ledgers a fit in the current context must record into."""
    stack = _ACTIVE_LEDGERS.get()
    if stack:
        return stack
    with _LEDGER_LOCK:
        return tuple(slot[0] for slot in _OPEN_LEDGERS.values())


def active_ledgers():
    """The ledgers a private fit started now, in this context, would record into.

    Inside ``with ledger:`` blocks (nested blocks stack) these are the open
    ledgers of the current context (thread or task); outside of any, the ledgers
    opened in other threads of this process, so that fits that joblib's
    ``"threading"`` backend runs for an open ledger are recorded too.

    Returns
    -------
    ledgers : tuple of PrivacyLedger
        Innermost last; empty when no ledger is open.

    See Also
    --------
    PrivacyLedger : Records the fits made inside its ``with`` block.
    recording_only : Send the fits of a block to one ledger only.

    Examples
    --------
    >>> from sklearn_dpgd.accounting import PrivacyLedger, active_ledgers
    >>> with PrivacyLedger() as outer, PrivacyLedger() as inner:
    ...     active_ledgers() == (outer, inner)
    True
    >>> active_ledgers()
    ()
    """
    return _active_ledgers()


@contextlib.contextmanager
def recording_only(ledger):
    """Within the block, fits of this context record into ``ledger`` alone.

    The open ledgers of the enclosing blocks are not charged for what runs
    inside: the caller must charge them for the whole block itself, before it
    reads data, with a guarantee that covers the block's mechanisms by
    composition (e.g. sequential composition, Dwork & Roth 2014, Thm 3.16, or
    the GDP composition of Dong, Roth & Su 2022, Cor. 3.3).
    :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` uses it
    to collect each candidate's mechanisms in a scratch ledger after charging the
    user's ledgers once for the whole search.

    Parameters
    ----------
    ledger : PrivacyLedger
        The only ledger the fits of the block record into.

    Yields
    ------
    ledger : PrivacyLedger
        The same ledger.

    Raises
    ------
    TypeError
        If ``ledger`` is not a :class:`PrivacyLedger`.

    Examples
    --------
    >>> from sklearn_dpgd.accounting import (
    ...     PrivacyLedger, active_ledgers, recording_only)
    >>> with PrivacyLedger() as outer:
    ...     with recording_only(PrivacyLedger()) as scratch:
    ...         active_ledgers() == (scratch,)
    True
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    token = _ACTIVE_LEDGERS.set((ledger,))
    try:
        yield ledger
    finally:
        _ACTIVE_LEDGERS.reset(token)


def _ledger_guard_state(state):
    """Mark an estimator serialised while a ledger is open in this process.

    joblib's process backends (and anything else that ships estimators to another
    process) pickle them; the mark travels with the pickle, and
    :func:`_charge_active_ledgers` refuses to fit a marked estimator in another
    process where no ledger is open, since its spend would be lost.
    """
    state = dict(state)
    with _LEDGER_LOCK:
        if _OPEN_LEDGERS:
            state[_LEDGER_GUARD] = os.getpid()
    return state


class _LedgerCharge:
    """The entries a fit reserved in the active ledgers, settled after it ran."""

    def __init__(self, slots):
        self._slots = slots

    def settle(self, mechanism):
        for ledger, index in self._slots:
            ledger._settle(index, mechanism)


def _charge_active_ledgers(estimator, mechanism, *, neighboring, part=None):
    """Charge a planned mechanism to every active ledger, or refuse it.

    Called by a private ``fit`` after its noise is calibrated and before it reads
    data (the oracle is built afterwards). Charges all active ledgers or none.

    Raises
    ------
    UnrecordedFitError
        If ``estimator`` was serialised while a ledger was open in another process
        and no ledger is open here, or if an active ledger is a copy inherited from
        the parent of this forked process.
    BudgetExhaustedError
        If a ledger's cap would be exceeded.
    """
    ledgers = _active_ledgers()
    origin = estimator.__dict__.get(_LEDGER_GUARD)
    if origin is not None and origin != os.getpid() and not ledgers:
        raise UnrecordedFitError(
            f"{type(estimator).__name__} was sent from process {origin}, where a "
            f"PrivacyLedger is open, to process {os.getpid()}, where none is: this "
            "fit's privacy spend could not be recorded. Run the search with "
            "n_jobs=1 or joblib's threading backend (the ledger's default), or fit "
            "a fresh sklearn.base.clone of the estimator outside the ledger."
        )
    source = type(estimator).__name__
    for ledger in ledgers:
        ledger._check_not_forked_copy(source)
    entry = LedgerEntry(mechanism, neighboring, source, part)
    with _LEDGER_LOCK:
        for ledger in ledgers:
            ledger._check_entry(entry, ledger._entries)
        slots = [
            (
                ledger,
                ledger.charge(
                    mechanism, neighboring=neighboring, source=source, part=part
                ),
            )
            for ledger in ledgers
        ]
    return _LedgerCharge(slots)


def _reset_lock_after_fork():
    # Another thread of the parent may have held the lock at the fork; it does not
    # exist in the child and would never release it.
    global _LEDGER_LOCK
    _LEDGER_LOCK = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lock_after_fork)
