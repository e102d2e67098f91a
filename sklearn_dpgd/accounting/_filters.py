"""Privacy filters: a mechanism that would overspend is refused before it runs.

Nothing in this module reads data. Every filter has one protocol: ``charge(record)``
with a frozen record of :mod:`._records` describing the mechanism about to run,
called *before* it reads data; it either records the mechanism or raises
:class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` and records nothing.

* :class:`GaussianPrivacyFilter`: full-batch Gaussian steps, exact GDP (fully
  adaptive composition, Smith & Thakurta 2022).
* :class:`PlannedStepsRdpFilter` and :class:`PldPrivacyFilter`: a plan of Gaussian
  steps fixed in advance (Poisson-subsampled or not), approved at once by
  ``reserve`` and then charged step by step; RDP minimised over the orders, or
  the PLD.
* :class:`FixedOrderRenyiFilter`: any mix of Gaussian, sparse-vector and
  report-noisy-max mechanisms chosen adaptively, at one Rényi order fixed in
  advance (Feldman & Zrnic, NeurIPS 2021, Thm 3.1).
* :class:`~sklearn_dpgd.accounting.AmplifiedIterationFilter`
  (:mod:`._amplified_filter`): a Snowball-SGD plan, approved as a whole
  (amplification by iteration; Feldman, Koren & Talwar, STOC 2020).
"""

import math
import warnings
from numbers import Real

import numpy as np

from ..exceptions import BudgetExhaustedError
from ._gdp import _check_delta, _check_positive
from ._rdp import DEFAULT_ORDERS, _as_orders, _conversion_term, rdp_epsilon
from ._records import (
    GaussianSteps,
    NoisyMaxSteps,
    SparseVectorSteps,
    _merge,
    _record_rdp,
    compress_ledger,
)
from ._subsampled import pld_epsilon, pld_grid_step
from ._subsampled_rdp import poisson_gaussian_rdp

__all__ = [
    "GaussianPrivacyFilter",
    "PldPrivacyFilter",
    "FixedOrderRenyiFilter",
    "PlannedStepsRdpFilter",
    "best_filter_order",
]


def _deprecated(old, new):
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}.",
        FutureWarning,
        stacklevel=3,
    )


def _check_record(record, kinds):
    if not isinstance(record, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise TypeError(f"record must be a {names}, got {type(record).__name__}.")
    return record


def _gaussian_record(filt, record, legacy):
    """The record of ``charge``; the deprecated ``(z, q)`` form warns and is wrapped."""
    if type(record) is GaussianSteps and not legacy:
        return record  # the usual case, without the abstract-class check below
    if isinstance(record, Real) and not isinstance(record, bool):
        name = type(filt).__name__
        _deprecated(
            f"{name}.charge(noise_multiplier, sampling_rate)",
            f"{name}.charge(GaussianSteps(noise_multiplier, sampling_rate))",
        )
        return GaussianSteps(record, *legacy)
    if legacy:
        raise TypeError("charge takes one record.")
    return record


class _PrivacyFilter:
    """Shared bookkeeping of the filters: the per-step records and the ledger.

    Every filter's ``charge(record)`` takes one frozen record of what is about to
    run (:class:`GaussianSteps` and, where the filter accounts them, the other
    records of :mod:`._records`) and records it or refuses it before it runs.
    """

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

    def charge(self, record, *legacy):
        """Record full-batch Gaussian steps before they run, or refuse them.

        Parameters
        ----------
        record : GaussianSteps
            The steps about to run, with ``sampling_rate == 1`` (``noise_multiplier``
            inf: no cost).
        *legacy : float
            Deprecated: ``charge(noise_multiplier, sampling_rate)`` still works
            for one release and warns (FutureWarning).

        Raises
        ------
        TypeError
            If ``record`` is not a :class:`GaussianSteps`.
        ValueError
            If ``record.sampling_rate != 1`` (GDP has no closed form for subsampled
            steps: use :class:`PlannedStepsRdpFilter`).
        BudgetExhaustedError
            If the steps would take the spent ``mu`` above the budget; nothing is
            recorded.
        """
        record = _check_record(_gaussian_record(self, record, legacy), (GaussianSteps,))
        if record.sampling_rate != 1.0:
            raise ValueError("GaussianPrivacyFilter takes full-batch steps only.")
        z = record.noise_multiplier
        new_sq = self._spent_sq + record.count / (z * z)
        if math.sqrt(new_sq) > self.mu:
            raise BudgetExhaustedError(
                f"a Gaussian step with noise_multiplier={z:.6g} would spend "
                f"mu={math.sqrt(new_sq):.6g} > budget mu={self.mu:.6g}."
            )
        self._spent_sq = new_sq
        for _ in range(record.count):
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

    def charge(self, record, *legacy):
        """Record Gaussian steps (subsampled or not) before they run, or refuse them.

        Parameters
        ----------
        record : GaussianSteps
            The steps about to run (``count`` identical steps).
        *legacy : float
            Deprecated: ``charge(noise_multiplier, sampling_rate)`` still works
            for one release and warns (FutureWarning).

        Raises
        ------
        TypeError
            If ``record`` is not a :class:`GaussianSteps`.
        ValueError
            If the steps are not the next ones of a pending reservation.
        BudgetExhaustedError
            If the steps would take the epsilon above the budget; nothing is
            recorded.
        """
        step = _check_record(_gaussian_record(self, record, legacy), (GaussianSteps,))
        pair = (step.noise_multiplier, step.sampling_rate)
        if self._reserved:
            if len(self._reserved) < step.count or any(
                self._reserved[-1 - i] != pair for i in range(step.count)
            ):
                raise ValueError("step does not match the reserved plan.")
            for _ in range(step.count):
                self._reserved.pop()
                self._record(*pair)
            if not self._reserved:  # the whole approved plan has run
                self._commit(*self._reserved_state)
            return
        state, eps = self._spend(
            *self._as_plan(
                np.full(step.count, step.noise_multiplier), step.sampling_rate
            )
        )
        if eps > self.epsilon:
            raise BudgetExhaustedError(
                f"a step with noise_multiplier={step.noise_multiplier:.6g}, "
                f"sampling_rate={step.sampling_rate:.6g} would spend "
                f"epsilon={eps:.6g} > budget epsilon={self.epsilon:.6g}."
            )
        self._commit(state, eps)
        for _ in range(step.count):
            self._record(*pair)

    def __repr__(self):
        return (
            f"{type(self).__name__}(epsilon={self.epsilon!r}, delta={self.delta!r}, "
            f"steps={len(self._z)}, epsilon_spent={self.epsilon_spent:.6g})"
        )


class PlannedStepsRdpFilter(_PlannedStepsFilter):
    """A privacy filter for a plan of Gaussian steps fixed in advance, by Rényi DP.

    Keeps the running RDP curve of the charged steps; a step whose RDP would take
    the converted epsilon above ``epsilon`` (at ``delta``) is refused with
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` before it runs. The
    epsilon is minimised over the orders after each step, which is valid for a
    sequence of steps fixed in advance (the package's data-independent schedules,
    approved at once by :meth:`reserve`); for noise chosen adaptively from private
    answers, use :class:`FixedOrderRenyiFilter`, whose order is fixed before the run
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

    The tight counterpart of :class:`PlannedStepsRdpFilter`, with the same interface: a
    step (:meth:`charge`) or a whole plan (:meth:`reserve`) is approved only if the
    pessimistic PLD epsilon (dp-accounting, connect-the-dots discretisation,
    add/remove neighbours; Doroshenko et al., PETS 2022) of everything charged so
    far followed by it is at most ``epsilon`` at ``delta``; otherwise
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` is raised before it
    runs. Full-batch steps (``sampling_rate=1``) and Poisson-subsampled ones
    compose in the same distribution; a step whose output chose the later plan
    (e.g. a noisy count that sized it) does not belong here. The grid
    step is :func:`~sklearn_dpgd.accounting.pld_grid_step` of the budget and the
    number of steps, so the approval and the reported ``epsilon_spent`` are the
    same number the estimator calibrated its noise to. Like
    :class:`PlannedStepsRdpFilter`, it is meant for a sequence of steps fixed in advance
    (a data-independent schedule, approved at once by :meth:`reserve`); for noise
    chosen from private answers use :class:`FixedOrderRenyiFilter`.

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


class FixedOrderRenyiFilter(_PrivacyFilter):
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

    def charge(self, record, *legacy):
        """Record a mechanism before it runs, or refuse it.

        Parameters
        ----------
        record : GaussianSteps, SparseVectorSteps or NoisyMaxSteps
            The mechanism about to run.
        *legacy : float
            Deprecated: ``charge(noise_multiplier, sampling_rate)`` still works
            for one release and warns (FutureWarning).

        Raises
        ------
        TypeError
            If ``record`` is none of the three records.
        BudgetExhaustedError
            If the mechanism would take the RDP at :attr:`order` above the budget;
            nothing is recorded.
        """
        record = _check_record(
            _gaussian_record(self, record, legacy),
            (GaussianSteps, SparseVectorSteps, NoisyMaxSteps),
        )
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

    def charge_mechanism(self, record):
        """Deprecated alias of :meth:`charge` (removed in the next release).

        Parameters
        ----------
        record : GaussianSteps, SparseVectorSteps or NoisyMaxSteps
            The mechanism about to run.
        """
        _deprecated(
            "FixedOrderRenyiFilter.charge_mechanism", "FixedOrderRenyiFilter.charge"
        )
        self.charge(record)

    @property
    def ledger(self):
        """Every charged mechanism, in order, run-length encoded: a tuple."""
        return _merge(self._records)

    def __repr__(self):
        return (
            f"FixedOrderRenyiFilter(epsilon={self.epsilon!r}, delta={self.delta!r}, "
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
    The order of a :class:`FixedOrderRenyiFilter` must not depend on the data; this
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
