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
* :class:`AmplifiedIterationFilter`: a Snowball-SGD plan, approved as a whole
  (amplification by iteration; Feldman, Koren & Talwar, STOC 2020).
"""

import math

import numpy as np

from ..exceptions import BudgetExhaustedError
from ._compose import ledger_epsilon
from ._gdp import _check_delta, _check_positive
from ._rdp import DEFAULT_ORDERS, _as_orders, _conversion_term, rdp_epsilon
from ._records import (
    GaussianSteps,
    SnowballSteps,
    _merge,
    _record_rdp,
    compress_ledger,
)
from ._subsampled import pld_epsilon, pld_grid_step
from ._subsampled_rdp import poisson_gaussian_rdp

__all__ = [
    "AmplifiedIterationFilter",
    "GaussianPrivacyFilter",
    "PldPrivacyFilter",
    "RdpPrivacyFilter",
    "RenyiPrivacyFilter",
    "best_filter_order",
]


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
    step is :func:`~sklearn_dpgd.accounting.pld_grid_step` of the budget and the
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
