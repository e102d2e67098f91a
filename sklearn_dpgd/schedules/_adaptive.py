"""Adaptive strategies: step sizes (and budgets) chosen privately during training.

:class:`AdaptiveSchedule` and its two strategies, DP-AGD
(:class:`AdaptiveStepSchedule`) and the private line search DP-BLSGD
(:class:`LineSearchSchedule`). They are documented and re-exported in
:mod:`sklearn_dpgd.schedules`, which gives them its name (``__module__``) so that
pickles and the API documentation keep the public path.
"""

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from .._solvers._adaptive_drivers import dp_agd, dp_blsgd
from ..accounting import (
    DEFAULT_ORDERS,
    FixedOrderRenyiFilter,
    GaussianSteps,
    NoisyMaxSteps,
    SparseVectorSteps,
    _records_rdp,
    best_filter_order,
)
from ._checks import _check_int, _check_real

__all__ = ["AdaptiveSchedule", "AdaptiveStepSchedule", "LineSearchSchedule"]

#: ``C_obj`` of ``LineSearchSchedule(objective_clip="auto")`` for the full-batch
#: DP-BLGD with the Huber hinge: five times the hinge's loss at margin 0.
HINGE_FULL_BATCH_OBJECTIVE_CLIP = 5.0
#: Its first step ``eta_0`` is this many times ``2 / M``.
HINGE_FULL_BATCH_STEP_FACTOR = 4.0
#: Its ``epsilon_iter / epsilon`` (the paper's 0.01 gives too few updates).
HINGE_FULL_BATCH_ITERATION_FRACTION = 0.003


def _is_auto(value, name, range_text):
    """Whether a field is "auto"; other strings raise a ValueError naming it."""
    if not isinstance(value, str):
        return False
    if value != "auto":
        raise ValueError(
            f"{name} must be 'auto' or a finite number {range_text}, got {value!r}."
        )
    return True


class AdaptiveSchedule(ABC):
    """Base class of adaptive strategies: step sizes (and budgets) chosen privately.

    Unlike a :class:`NoiseSchedule`, an adaptive strategy decides during training,
    from privatised answers of the private oracle (noisy gradients, privately
    selected step sizes) and the budget left, never from the data. It runs under a
    :class:`~sklearn_dpgd.accounting.FixedOrderRenyiFilter` at an order fixed in
    advance, which refuses any query that would overspend; the run ends when the
    next iteration no longer fits. The fitted model's ``epsilon_`` is the filter's
    guarantee.
    """

    #: Poisson sampling rate of the gradient and line-search queries (1.0: all rows).
    sampling_rate = 1.0

    @abstractmethod
    def _nominal_iteration(self, context):
        """Mechanism records of one nominal iteration (a public plan)."""

    @abstractmethod
    def _driver(self):
        """The function that runs the strategy against the oracle."""

    def make_filter(self, context):
        """The privacy filter of a run, its order chosen from a nominal iteration.

        Parameters
        ----------
        context : ScheduleContext
            Public quantities of the run.

        Returns
        -------
        privacy_filter : FixedOrderRenyiFilter
            Budget ``(context.epsilon, context.delta)``, at the order where the
            most nominal iterations fit (integer orders when subsampled, as the
            amplification bound of Zhu & Wang 2019 requires).
        """
        orders = DEFAULT_ORDERS
        if self.sampling_rate < 1.0:
            orders = orders[orders == np.round(orders)]
        records = self._nominal_iteration(context)
        step = _records_rdp(records, orders)
        order = best_filter_order(context.epsilon, context.delta, orders, step)
        if self.sampling_rate < 1.0:
            order = int(order)
        return FixedOrderRenyiFilter(context.epsilon, context.delta, order)

    def run(self, oracle, context, *, max_updates, initial=None, verbose=0):
        """Train against the private oracle until the budget is spent.

        Parameters
        ----------
        oracle : PrivateGradientOracle
            The only access to the data; its filter comes from :meth:`make_filter`.
        context : ScheduleContext
            Public quantities of the run.
        max_updates : int
            Cap on the number of parameter updates (>= 1).
        initial : ndarray of shape (n_outputs, n_features + 1), default=None
            Public starting point (intercepts in the last column); None is zero.
        verbose : int, default=0
            If > 0, print privatised progress (step sizes, budgets) per update.

        Returns
        -------
        theta : ndarray of shape (n_outputs, n_features + 1)
            Coefficients, intercepts in the last column.
        learning_rates : ndarray of shape (n_updates,)
            The privately chosen step sizes, one per update.
        """
        return self._driver()(
            oracle,
            self,
            context,
            max_updates=max_updates,
            initial=initial,
            verbose=verbose,
        )


@dataclass(frozen=True)
class AdaptiveStepSchedule(AdaptiveSchedule):
    """DP-AGD: privately selected step lengths and self-raising gradient budgets.

    Full-batch iterations (Lee & Kifer, KDD 2018, Algorithm 1): draw a noisy
    gradient with zCDP budget ``rho_ng`` and normalise it; choose among the step
    lengths ``linspace(0, eta_max, n_candidates)`` by report-noisy-min
    (``epsilon_nmax``-DP, exponential noise) over the clipped objective
    ``sum_i min(l_i, objective_clip)`` (plus the public L2 term). If the length 0
    wins, the gradient is too noisy: ``rho_ng <- (1 + gamma) rho_ng``, a fresh
    gradient paid with only the increase is averaged in with weights
    ``rho_old / rho_ng`` and ``1 - rho_old / rho_ng``, and the selection is
    repeated. Every ``refresh_every`` updates,
    ``eta_max <- min(growth * max(recent lengths), max_step)``. The run ends when
    the next iteration would overspend.

    Parameters
    ----------
    gamma : float, default=0.1
        Relative budget increase when the length 0 wins, > 0.
    n_candidates : int, default=21
        Number of step lengths compared, >= 2 (the first is 0).
    max_step : float, default=2.0
        Largest step length (along the unit-norm noisy gradient), > 0.
    selection_fraction : float, default=1/120
        ``epsilon_nmax / epsilon`` for each selection, in (0, 1).
    gradient_fraction : float, default=1/120
        The first gradient's budget is ``rho_ng = (gradient_fraction *
        epsilon)^2 / 2``, in (0, 1).
    objective_clip : float, default=3.0
        ``C_obj``: each example's loss is clipped to it in the selection scores, > 0.
    refresh_every : int, default=10
        Updates between refreshes of ``eta_max``, >= 1.
    growth : float, default=1.1
        Factor on the largest recent length at a refresh, >= 1.
    selection : {"permute_and_flip", "exponential_mechanism"}, \
            default="permute_and_flip"
        How a length is selected. "permute_and_flip": Lee & Kifer's NoisyMax,
        exponential noise at ``epsilon_nmax``, charged as ``epsilon_nmax``-DP
        (zCDP ``epsilon_nmax^2 / 2``). "exponential_mechanism": Gumbel noise, which
        is ``epsilon``-bounded range, so ``epsilon^2 / 8``-zCDP (Cesar & Rogers,
        ALT 2021); it spends the same zCDP ``rho_nmax = epsilon_nmax^2 / 2`` at
        ``epsilon = 2 epsilon_nmax``, half the noise. On Adult and Bank (5 seeds,
        epsilon 0.1 to 1.6) neither was better on both: the exponential mechanism
        led on Bank (by 0.009 at epsilon 0.1, 0.0002-0.002 above) and trailed on
        Adult by 0.001-0.002 from epsilon 0.2, so the default stays.

    Raises
    ------
    ValueError
        If a field is out of range.
    TypeError
        If a field has the wrong type.

    Notes
    -----
    Defaults are those of Lee & Kifer's DP-AGD (KDD 2018, Algorithm 1) as run by Chen &
    Lee (Sec. V) and Fay et al. (TMLR, Sec. 6) (``gamma = 0.1``, 21 candidates, ``C_obj
    = 3``, ``epsilon_nmax = epsilon / (2 * 60)``); the first gradient gets the same
    budget as a selection (``rho_ng = rho_nmax``). All pieces are charged in RDP to a
    :class:`~sklearn_dpgd.accounting.FixedOrderRenyiFilter`: a Gaussian step with
    noise multiplier ``z`` costs ``alpha / (2 z^2)`` (zCDP ``rho = 1 / (2 z^2)``),
    a permute-and-flip selection ``min(epsilon_nmax, alpha epsilon_nmax^2 / 2)``
    (Bun & Steinke 2016, Prop. 1.4), the accounting of Lee & Kifer in zCDP, read at
    one order; an exponential-mechanism selection at ``epsilon = 2 epsilon_nmax``
    costs ``min(epsilon, alpha epsilon^2 / 8)`` (Cesar & Rogers, ALT 2021), the
    same ``alpha rho_nmax``.
    The gradient is clipped to the estimator's ``clip_norm``. Chen & Lee
    (arXiv:2008.07978, 2020) use DP-AGD as their main adaptive baseline.
    """

    gamma: float = 0.1
    n_candidates: int = 21
    max_step: float = 2.0
    selection_fraction: float = 1.0 / 120.0
    gradient_fraction: float = 1.0 / 120.0
    objective_clip: float = 3.0
    refresh_every: int = 10
    growth: float = 1.1
    selection: str = "permute_and_flip"

    def __post_init__(self):
        if self.selection not in ("permute_and_flip", "exponential_mechanism"):
            raise ValueError(
                "selection must be 'permute_and_flip' or 'exponential_mechanism', "
                f"got {self.selection!r}."
            )
        _check_real(self.gamma, "gamma", low=0.0)
        _check_int(self.n_candidates, "n_candidates", 2)
        _check_real(self.max_step, "max_step", low=0.0)
        _check_real(
            self.selection_fraction,
            "selection_fraction",
            low=0.0,
            high=1.0,
            high_open=True,
        )
        _check_real(
            self.gradient_fraction,
            "gradient_fraction",
            low=0.0,
            high=1.0,
            high_open=True,
        )
        _check_real(self.objective_clip, "objective_clip", low=0.0)
        _check_int(self.refresh_every, "refresh_every", 1)
        _check_real(self.growth, "growth", low=1.0, low_open=False)

    def selection_record(self, epsilon):
        """The ledger record of one selection of a run with total ``epsilon``.

        Parameters
        ----------
        epsilon : float
            The run's total epsilon.

        Returns
        -------
        record : NoisyMaxSteps
            ``epsilon_nmax = selection_fraction * epsilon``; with the exponential
            mechanism its bounded range is ``2 epsilon_nmax``, which spends the
            same zCDP ``epsilon_nmax^2 / 2`` (Lee & Kifer's ``rho_nmax``).
        """
        eps_nmax = epsilon * self.selection_fraction
        if self.selection == "exponential_mechanism":
            return NoisyMaxSteps(2.0 * eps_nmax, noise="gumbel")
        return NoisyMaxSteps(eps_nmax)

    def _nominal_iteration(self, context):
        rho = 0.5 * (context.epsilon * self.gradient_fraction) ** 2
        return (
            GaussianSteps(1.0 / math.sqrt(2.0 * rho)),
            self.selection_record(context.epsilon),
        )

    def _driver(self):
        return dp_agd


@dataclass(frozen=True)
class LineSearchSchedule(AdaptiveSchedule):
    """DP-BLSGD: noisy gradients with a private backtracking (Armijo) line search.

    Chen & Lee, *Stochastic Adaptive Line Search for Differentially Private
    Optimization* (arXiv:2008.07978, 2020), Algorithm 2. Each iteration draws a noisy
    clipped gradient ``g`` (zCDP budget ``rho_grad``) on a Poisson sample of rate
    ``sampling_rate``, then searches the step sizes ``eta_0 backtrack^k`` (``k <
    max_backtracks``) for the first that passes Armijo's test ``f(w) - f(w - eta g) >=
    armijo eta ||g||^2`` on the mean clipped objective (``min(l_i, objective_clip)``),
    through the sparse vector technique (Algorithm 1, Laplace or Gaussian noise: Thm 2 /
    Thm 3), which pays once per search whatever the number of steps tried. If no step
    passes, CHEB (Algorithm 3) draws a second gradient; if the two disagree (negative
    inner product or angle above ``phi_max`` times the running angle of eq. 7-8) the
    gradient budget grows by ``1 + budget_increase``, if they agree closely (angle below
    ``phi_min`` times it) the search budget does; the two are averaged and the search
    repeated. Every ``reset_every`` updates, ``eta_0 <- min(reset_factor * max(recent
    steps), eta_0)`` (intelligent backtracking). With ``clip_decay > 0`` the clipping
    norms shrink by ``1 - clip_decay`` when the gradient budget grows (eq. 9,
    DP-BLSGD-AC). With ``sampling_rate=1.0`` this is the full-batch DP-BLGD, whose
    failed searches raise the gradient budget the DP-AGD way (a fresh draw paid with the
    increase, averaged in).

    Parameters
    ----------
    sampling_rate : float, default=0.1
        Poisson sampling rate ``q`` of every query, in (0, 1] (Algorithm 2, line 4;
        amplification by Lemma 4). Add/remove neighbouring only when < 1. 1.0 is
        the full-batch DP-BLGD (Sec. V-C), whose failed searches raise the gradient
        budget the DP-AGD way.
    noise : {"laplace", "gaussian"}, default="laplace"
        Noise of NOISYBTLS (Algorithm 1): Laplace (``epsilon_1 = epsilon_BT / 2``,
        ``epsilon_2 = epsilon_BT / 4``; Thm 1-2, eq. 4) or Gaussian (``sigma_1^2 =
        3 / (2 rho_BT)``, ``sigma_2^2 = 3 / rho_BT``, in units of the sensitivity;
        Thm 3, eq. 5). The paper reports Laplace slightly ahead (Sec. V-E, Fig. 1).
    iteration_fraction : float or "auto", default="auto"
        ``epsilon_iter / epsilon``, in (0, 1) (Sec. V-D: ``epsilon_iter = epsilon /
        (2 * 50)``): the first gradient budget is ``rho_grad = epsilon_iter^2 / 2``
        and the first search budget ``epsilon_BT = epsilon_iter`` (Laplace) or
        ``rho_BT = epsilon_iter^2 / 2`` (Gaussian). It fixes the number of
        iterations whatever ``epsilon`` (about 150 at full batch). "auto"
        (:meth:`resolved_iteration_fraction`): the paper's 0.01, except 0.003 for
        the full-batch DP-BLGD with the Huber hinge, which needs more updates: on
        Bank (unit-norm rows, 5 seeds) its runs stayed at the majority class
        from epsilon 1 with 0.01 (0.8832 / 0.8830 at 1 / 1.6) and reached
        0.893-0.894 with 0.003 at 0.1 to 1.6 (noise-free, with unclipped
        gradients, 150 updates left it at the majority class, 600 reached
        0.894); on Adult 0.003 gained 0.5-0.7 points from epsilon 0.4 and lost
        0.3 at 0.1. The earlier default is
        ``iteration_fraction=0.01``.
    objective_clip : float or "auto", default="auto"
        ``C_obj`` > 0 (Sec. IV-A, objective clipping after Thm 1; Sec. V-D): each
        example's loss enters the searches as ``min(l_i, C_obj)``, and a search's
        sensitivity is ``C_obj`` (``2 C_obj`` under replace-one). "auto"
        (:meth:`resolved_objective_clip`): the paper's 1.0, except for the
        full-batch (``sampling_rate=1.0``) DP-BLGD with the Huber hinge
        (:class:`~sklearn_dpgd.DPHuberSVM`), where it is 5.0. The hinge's loss
        at margin 0 is exactly 1, so at ``C_obj = 1`` every row of the zero
        model sits at the cap, the clipped objective is flat where the
        misclassified rows would improve, and on Adult the full-batch runs stayed
        at the majority class (0.764-0.766 from epsilon 0.1 to 1.6, 5 seeds);
        the loss grows as ``1 - z``, and the clip must sit well above what the
        first steps reach (with 3, a run could still jump onto the plateau at
        epsilon 1.6: 0.821 +- 0.009, against 0.831 +- 0.001 with 5). A
        subsampled search sums ten times fewer rows against the same noise, and
        there 5 lost 1.1 points at epsilon 0.1 (Adult), so the subsampled
        default keeps 1.0. The earlier default, 1.0 for every loss, is
        ``objective_clip=1.0``.
    armijo : float, default=0.5
        Armijo's sufficient-decrease constant ``alpha``, in (0, 1) (eq. 2;
        Algorithm 1, line 7; Sec. V-D).
    backtrack : float, default=0.8
        ``beta``, the step-size factor between tries, in (0, 1) (Algorithm 1,
        line 11; Sec. V-D).
    max_backtracks : int, default=10
        ``max_it``, step sizes tried per search, >= 1 (Algorithm 1, line 6; the
        paper does not state its value).
    initial_learning_rate : float or None, default=None
        ``eta_0`` (Algorithm 2, input; not stated in the paper). None
        (:meth:`resolved_initial_learning_rate`): ``2 / M`` with ``M`` the
        smoothness of the objective for rows of norm at most ``data_norm``, the
        classical largest stable step. On Adult's training holdout, ``4 / M`` let
        the full-batch logistic variant accept one over-long first step onto the
        plateau of the clipped objective, after which every search failed (0.76 at
        epsilon = 1.6, against 0.82 with ``2 / M``). Exception: the full-batch
        DP-BLGD with the Huber hinge takes ``8 / M`` (4 on unit-norm rows at ``h =
        0.5``, the logistic loss's ``2 / M``): the hinge's curvature ``1 / (2 h)``
        is confined to the band ``|1 - z| <= h`` and most rows sit on its linear
        parts, where ``2 / M`` (1 on unit-norm rows) is four times too short:
        in the fixed number of full-batch updates (about 150) it stayed at the
        majority class on Adult (0.764-0.767) against 0.823-0.831 with ``8 / M``
        (both with ``C_obj = 5``, epsilon 0.1 to 1.6, 5 seeds). The
        earlier rule, ``2 / M`` for every loss, is ``initial_learning_rate=2 /
        M`` (1.0 on unit-norm rows at ``h = 0.5``).
    data_norm : float, default=1.0
        Public row-norm scale used by ``initial_learning_rate=None`` only.
    reset_every : int, default=10
        ``tau``, >= 1: updates between resets of ``eta_0`` (Sec. IV-B b).
    reset_factor : float, default=1.2
        ``varsigma`` >= 1: ``eta_0 <- min(varsigma max(Omega), eta_0)`` (Sec. IV-B b).
    phi_max : float, default=1.1
        > 1: ``theta_max = phi_max theta_bar`` (eq. 8; Algorithm 3, line 7).
    phi_min : float, default=0.5
        In (0, 1): ``theta_min = phi_min theta_bar`` (eq. 8; Algorithm 3, line 9).
    angle_decay : float, default=0.8
        ``psi`` of eq. (7), in (0, 1): the running angle between consecutive
        gradients.
    budget_increase : float, default=0.3
        ``xi`` > 0: a budget grows by ``1 + xi`` (Algorithm 3, lines 8 and 10;
        for DP-BLGD, DP-AGD's ``gamma``).
    clip_decay : float, default=0.0
        ``zeta`` of eq. (9), in [0, 1); 0 disables it (DP-BLSGD), the paper's
        DP-BLSGD-AC uses 0.05 (Sec. IV-D, V-D). When the gradient budget grows,
        ``C_grad`` and ``C_obj`` shrink by ``1 - zeta``, at most once per update.
        With ``sampling_rate=1.0`` it applies at DP-BLGD's budget increases.
    budget_rule : {"adaptive", "always", "never"}, default="adaptive"
        What a failed search changes when ``sampling_rate < 1`` (Sec. V-E, Fig. 1,
        the paper's "adap", "must" and "no"). In all three CHEB (Algorithm 3)
        draws a second gradient at the current ``rho_grad`` and averages it in.
        "adaptive": its angle with the first decides (lines 7-10): the gradient
        budget grows if they disagree, the search budget if they agree closely.
        "always": the gradient budget grows at every failed search, no angle
        test (our reading of "always increase budget regardless of angle
        measurement": the budget whose increase Algorithm 3 and DP-AGD share).
        "never": neither budget grows. Must be "adaptive" when
        ``sampling_rate=1.0`` (DP-BLGD always grows the gradient budget).

    Raises
    ------
    ValueError
        If a field is out of range.
    TypeError
        If a field has the wrong type.

    Notes
    -----
    Paper defaults (Sec. V-D): ``q = 0.1``, ``C_obj = 1``, ``xi = 0.3``, Armijo 0.5,
    backtracking 0.8, ``tau = 10``, ``varsigma = 1.2``, ``phi_max = 1.1``,
    ``phi_min = 0.5``, ``psi = 0.8``, ``zeta = 0.05``, ``epsilon_iter = epsilon /
    100``; the gradient is clipped to the estimator's ``clip_norm`` (the paper uses
    ``C_grad = 3``). The paper does not state ``max_it`` or ``eta_0``; the defaults
    here are documented choices from public constants. The full-batch DP-BLGD with
    the Huber hinge leaves the paper's ``C_obj = 1`` and ``epsilon_iter = epsilon /
    100``, and takes a longer first step (``objective_clip``,
    ``iteration_fraction`` and ``initial_learning_rate`` above; the docs'
    Benchmarks page, "Adaptive step sizes"). Deviations, each for a
    reason: (i) each query (gradient, second gradient, line search) draws its own
    Poisson sample, so that each is amplified on its own (Lemma 4 holds for a
    mechanism run on one fresh sample); (ii) Armijo's test compares mean
    objectives (the paper mixes a summed objective with a mean gradient); (iii) the
    budget is enforced by a filter at one order fixed in advance (the paper tracks
    every order and stops when all are spent, which is not a valid filter). The
    amplification uses dp-accounting-equivalent exact bounds for the Gaussian steps
    (Mironov, Talwar & Zhang 2019) and Lemma 4 for the searches; a Laplace search
    is also bounded by its amplified pure-DP cost, which makes it far cheaper than
    a Gaussian one (on Adult at epsilon 0.1, about 21,000 nominal iterations fit
    against 450), so ``noise="gaussian"`` makes 5-7 times fewer updates. The
    paper's Adult/Bank experiment with every variant is rerun in the
    documentation's "Reproductions" page (``benchmarks/bench_line_search.py``).
    """

    sampling_rate: float = 0.1
    noise: str = "laplace"
    iteration_fraction: float | str = "auto"
    objective_clip: float | str = "auto"
    armijo: float = 0.5
    backtrack: float = 0.8
    max_backtracks: int = 10
    initial_learning_rate: float | None = None
    data_norm: float = 1.0
    reset_every: int = 10
    reset_factor: float = 1.2
    phi_max: float = 1.1
    phi_min: float = 0.5
    angle_decay: float = 0.8
    budget_increase: float = 0.3
    clip_decay: float = 0.0
    budget_rule: str = "adaptive"

    def __post_init__(self):
        _check_real(self.sampling_rate, "sampling_rate", low=0.0, high=1.0)
        if self.budget_rule not in ("adaptive", "always", "never"):
            raise ValueError(
                "budget_rule must be 'adaptive', 'always' or 'never', got "
                f"{self.budget_rule!r}."
            )
        if self.sampling_rate == 1.0 and self.budget_rule != "adaptive":
            raise ValueError(
                "budget_rule must be 'adaptive' when sampling_rate=1.0: DP-BLGD "
                "grows the gradient budget at every failed search (DP-AGD's rule)."
            )
        if self.noise not in ("laplace", "gaussian"):
            raise ValueError(
                f"noise must be 'laplace' or 'gaussian', got {self.noise!r}."
            )
        if not _is_auto(self.iteration_fraction, "iteration_fraction", "in (0, 1)"):
            _check_real(
                self.iteration_fraction,
                "iteration_fraction",
                low=0.0,
                high=1.0,
                high_open=True,
            )
        if not _is_auto(self.objective_clip, "objective_clip", "> 0"):
            _check_real(self.objective_clip, "objective_clip", low=0.0)
        _check_real(self.armijo, "armijo", low=0.0, high=1.0, high_open=True)
        _check_real(self.backtrack, "backtrack", low=0.0, high=1.0, high_open=True)
        _check_int(self.max_backtracks, "max_backtracks", 1)
        if self.initial_learning_rate is not None:
            _check_real(self.initial_learning_rate, "initial_learning_rate", low=0.0)
        _check_real(self.data_norm, "data_norm", low=0.0)
        _check_int(self.reset_every, "reset_every", 1)
        _check_real(self.reset_factor, "reset_factor", low=1.0, low_open=False)
        _check_real(self.phi_max, "phi_max", low=1.0)
        _check_real(self.phi_min, "phi_min", low=0.0, high=1.0, high_open=True)
        _check_real(self.angle_decay, "angle_decay", low=0.0, high=1.0, high_open=True)
        _check_real(self.budget_increase, "budget_increase", low=0.0)
        _check_real(
            self.clip_decay,
            "clip_decay",
            low=0.0,
            low_open=False,
            high=1.0,
            high_open=True,
        )

    def _hinge_full_batch(self, context):
        # The one setting whose "auto" values differ (see objective_clip,
        # iteration_fraction and initial_learning_rate).
        return self.sampling_rate == 1.0 and context.loss == "huber_hinge"

    def _resolve(self, value, context, hinge_full_batch, paper):
        # A field's value, or for "auto" its full-batch hinge or paper value.
        if value != "auto":
            return float(value)
        return hinge_full_batch if self._hinge_full_batch(context) else paper

    def resolved_objective_clip(self, context):
        """``C_obj`` of the run: the field, or the loss-aware rule of "auto".

        Parameters
        ----------
        context : ScheduleContext
            Public quantities of the run (its ``loss`` is read).

        Returns
        -------
        objective_clip : float
            5.0 for the full-batch run with
            the Huber hinge, else 1.0 (Chen & Lee, Sec. V-D), when "auto"; the
            field otherwise. The searches' noise is calibrated to this value (the
            oracle derives their sensitivity from the clip it is given).
        """
        return self._resolve(
            self.objective_clip, context, HINGE_FULL_BATCH_OBJECTIVE_CLIP, 1.0
        )

    def resolved_iteration_fraction(self, context):
        """``epsilon_iter / epsilon`` of the run: the field, or the rule of "auto".

        Parameters
        ----------
        context : ScheduleContext
            Public quantities of the run (its ``loss`` is read).

        Returns
        -------
        iteration_fraction : float
            0.003 for the full-batch run with the Huber hinge, else 0.01 (Chen &
            Lee, Sec. V-D), when "auto"; the field otherwise. Both the filter's
            order (:meth:`make_filter`) and the run use this value.
        """
        return self._resolve(
            self.iteration_fraction, context, HINGE_FULL_BATCH_ITERATION_FRACTION, 0.01
        )

    def resolved_initial_learning_rate(self, context):
        """``eta_0`` of the run: the field, or ``2 / M`` from public constants.

        Parameters
        ----------
        context : ScheduleContext
            Public quantities of the run (its smoothness constant and loss are
            used).

        Returns
        -------
        eta0 : float
            The first step size tried by the line search: the field if set,
            else ``2 / M``, and ``8 / M`` for the full-batch run with the Huber
            hinge (see ``initial_learning_rate``).
        """
        if self.initial_learning_rate is not None:
            return float(self.initial_learning_rate)
        factor = HINGE_FULL_BATCH_STEP_FACTOR if self._hinge_full_batch(context) else 1
        return factor * 2.0 / context.smoothness(self.data_norm)

    def _nominal_iteration(self, context):
        eps_iter = context.epsilon * self.resolved_iteration_fraction(context)
        budget = eps_iter if self.noise == "laplace" else 0.5 * eps_iter**2
        return (
            GaussianSteps(1.0 / eps_iter, self.sampling_rate),
            SparseVectorSteps(budget, self.noise, self.sampling_rate),
        )

    def _driver(self):
        return dp_blsgd
