"""The privacy filter of Snowball-SGD: a plan approved as a whole, then recorded.

Nothing in this module reads data. Amplification by iteration (Feldman, Koren &
Talwar, STOC 2020, Thm 3.1) bounds the Rényi divergence of the *last* iterate of a
run of contractive noisy steps fixed in advance, so the filter approves the whole
plan (a :class:`~sklearn_dpgd.accounting.SnowballSteps`) before any data is read,
then checks that each step charged is the next one of the plan. It shares the
``charge(record)`` protocol of :mod:`._filters`.
"""

from numbers import Integral

import numpy as np

from ..exceptions import BudgetExhaustedError
from ._compose import ledger_epsilon
from ._filters import _check_record, _deprecated
from ._gdp import _check_delta, _check_positive
from ._records import GaussianSteps, SnowballSteps

__all__ = ["AmplifiedIterationFilter"]


class AmplifiedIterationFilter:
    """The privacy filter of Snowball-SGD: approves a whole plan, then records it.

    Amplification by iteration holds for the *last* iterate of a run fixed in
    advance, so the plan (batch sizes, noise, steps) is approved as a whole before
    any data is read: :meth:`reserve` refuses a plan whose RDP, converted to
    ``(epsilon, delta)``, exceeds the budget. Each step is then charged by
    :meth:`charge` (a one-step :class:`SnowballSteps`) before it runs and must match
    the plan; a step beyond or off the plan is refused. A full-batch
    :class:`GaussianSteps` charged before the plan is reserved (the noisy count
    that sizes it) is composed with it.

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
        The Gaussian records charged before the plan, then the charged steps of
        the plan as one record.

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

    def charge(self, record, *legacy):
        """Record the next steps of the plan, or a mechanism before it, or refuse.

        The step size is charged with the step: the solver moves by the plan's.

        Parameters
        ----------
        record : SnowballSteps or GaussianSteps
            :class:`SnowballSteps`: the next steps of the reserved plan, about to
            run (usually one). :class:`GaussianSteps`: a full-batch Gaussian
            mechanism that runs before the plan is reserved, e.g. the noisy count
            of the rows that sizes it (:mod:`sklearn_dpgd._public_size`); it is
            composed with the plan in RDP and leads :attr:`ledger`.
        *legacy : float
            Deprecated: ``charge(batch_size, noise_multiplier)`` still works for
            one release and warns (FutureWarning).

        Raises
        ------
        TypeError
            If ``record`` is neither record.
        BudgetExhaustedError
            If no plan is reserved or the steps go beyond it; or if the Gaussian
            records charged so far would exceed the budget.
        ValueError
            If the steps differ from the next planned ones; or if a Gaussian record
            comes after the plan is reserved or is not full-batch.
        """
        if isinstance(record, Integral) and not isinstance(record, bool):
            _deprecated(
                "AmplifiedIterationFilter.charge(batch_size, noise_multiplier)",
                "AmplifiedIterationFilter.charge(SnowballSteps((batch_size,), "
                "(noise_multiplier,), (learning_rate,)))",
            )
            record = self._next_step(int(record), *legacy)
        elif legacy:
            raise TypeError("charge takes one record.")
        _check_record(record, (SnowballSteps, GaussianSteps))
        if isinstance(record, GaussianSteps):
            self._charge_before(record)
            return
        plan = self._plan
        t, k = self._charged, len(record.batch_sizes)
        if plan is None or t + k > len(plan.batch_sizes):
            raise BudgetExhaustedError("no reserved Snowball step is left to run.")
        if _steps(record, 0, k) != _steps(plan, t, t + k):
            raise ValueError("step does not match the reserved Snowball plan.")
        self._charged += k

    def _next_step(self, batch_size, noise_multiplier):
        # The deprecated (batch_size, noise_multiplier) form, with the plan's step
        # size.
        plan = self._plan
        if plan is None or self._charged >= len(plan.batch_sizes):
            raise BudgetExhaustedError("no reserved Snowball step is left to run.")
        eta = plan.learning_rates[self._charged]
        return SnowballSteps((batch_size,), (float(noise_multiplier),), (eta,))

    def charge_before(self, record):
        """Deprecated alias of :meth:`charge` with a GaussianSteps record.

        Removed in the next release.

        Parameters
        ----------
        record : GaussianSteps
            With ``sampling_rate == 1``.
        """
        _deprecated(
            "AmplifiedIterationFilter.charge_before", "AmplifiedIterationFilter.charge"
        )
        self._charge_before(record)

    def _charge_before(self, record):
        if self._plan is not None:
            raise ValueError(
                "a GaussianSteps record must be charged before the plan is reserved."
            )
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
        """The Gaussian records charged before the plan, then its charged steps.

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


def _steps(record, start, stop):
    """Steps ``start:stop`` of a Snowball record, as plain numbers."""
    return (
        tuple(int(b) for b in record.batch_sizes[start:stop]),
        tuple(float(z) for z in record.noise_multipliers[start:stop]),
        tuple(float(eta) for eta in record.learning_rates[start:stop]),
    )
