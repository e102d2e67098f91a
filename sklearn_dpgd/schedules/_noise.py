"""The data-independent noise schedules and their context.

Re-exported by :mod:`sklearn_dpgd.schedules`, whose docstring describes them.
"""

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ..accounting import (
    calibrate_noise_multipliers,
    calibrate_poisson_noise_multipliers,
    gdp_mu,
    poisson_gaussian_epsilon,
)

# The adaptive strategies and the "auto" rules live in their own modules; their
# public path stays sklearn_dpgd.schedules (as documented), hence these re-exports.
from ._checks import _check_real

# Hard cap on a horizon that a schedule derives from theory or from the budget, so
# that a degenerate constant (kappa -> inf, tiny noise) cannot start an endless run.
MAX_HORIZON = 100_000


def _check_n_steps(n_steps):
    if isinstance(n_steps, bool) or not isinstance(n_steps, Integral):
        raise TypeError(f"n_steps must be an integer, got {type(n_steps).__name__}.")
    if n_steps < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}.")
    return int(n_steps)


@dataclass(frozen=True)
class ScheduleContext:
    """Public quantities a schedule may use to shape a run (never the data).

    Built by the estimator in ``fit`` from its parameters and the shape of ``X``.

    Parameters
    ----------
    epsilon, delta : float
        The privacy budget of the run.
    n_samples : int
        The public size ``m`` (``public_n_samples_`` of the estimator: declared,
        the exact size under replace-one, or a noisy count charged to the budget),
        never the private number of rows.
    n_features : int
        Number of features.
    n_outputs : int
        Rows of the coefficient matrix (1 for binary models).
    fit_intercept : bool
        Whether each row has the extra coordinate 1.
    clip_norm : float
        Per-example clipping norm ``C``; after clipping, the per-example loss is
        ``C``-Lipschitz along the training path (the ``L`` / ``G`` of the papers).
    sensitivity : float
        ``Delta``: ``C`` (add/remove one row) or ``2 C`` (replace one row).
    alpha : float
        L2 penalty (the strong-convexity constant it adds).
    margin_smoothness : float
        Smoothness of the loss in the margin: 1/4 (sigmoid), 1/2 (softmax),
        ``1/(2h)`` (Huber hinge).
    initial_loss : float
        The loss at the zero initialisation, ``F(0)``: ``log 2`` (sigmoid),
        ``log K`` (softmax), 1 (hinge). Since the losses are non-negative it bounds
        the initial suboptimality ``F(theta_0) - F*`` without looking at data.
    sampling_rate : float, default=1.0
        Poisson sampling rate ``q`` of each step (1.0: full batch).
    accountant : {"pld", "rdp"}, default="pld"
        The accountant Poisson-subsampled steps are calibrated with: privacy-loss
        distributions (tight; Doroshenko et al. 2022) or Rényi DP (Mironov, Talwar
        & Zhang 2019). Full-batch steps always use the exact GDP closed form.
    loss : str or None, default=None
        Name of the training loss (``"logistic"``, ``"huber_hinge"``,
        ``"squared"``, ``"huber"``), a public choice; None if unknown. Read only
        by the loss-aware ``"auto"`` rules of
        :class:`~sklearn_dpgd.schedules.LineSearchSchedule`.
    """

    epsilon: float
    delta: float
    n_samples: int
    n_features: int
    n_outputs: int
    fit_intercept: bool
    clip_norm: float
    sensitivity: float
    alpha: float
    margin_smoothness: float
    initial_loss: float
    sampling_rate: float = 1.0
    accountant: str = "pld"
    loss: str | None = None

    @property
    def gradient_dim(self):
        """Number of gradient coordinates ``K (d + fit_intercept)``."""
        return self.n_outputs * (self.n_features + int(self.fit_intercept))

    @property
    def expected_batch_size(self):
        """``q n``: the rows a step sums in expectation (the divisor of the sum)."""
        return self.sampling_rate * self.n_samples

    @property
    def mu(self):
        """GDP budget of full-batch steps (only meaningful when ``q == 1``)."""
        return gdp_mu(self.epsilon, self.delta)

    def smoothness(self, data_norm):
        """Smoothness ``M`` of the objective when rows satisfy ``||x|| <= data_norm``.

        ``M = s (data_norm^2 + fit_intercept) + alpha`` with ``s`` the margin
        smoothness: the Hessian of a margin loss is ``l''(m) [x,1][x,1]^T``.

        Parameters
        ----------
        data_norm : float
            Public bound on the L2 norm of the rows.

        Returns
        -------
        smoothness : float
            The smoothness constant ``M``.
        """
        return (
            self.margin_smoothness * (data_norm**2 + int(self.fit_intercept))
            + self.alpha
        )

    def calibrate(self, profile):
        """Scale ``profile`` to noise multipliers that spend the budget exactly.

        Full batch: GDP in closed form
        (:func:`~sklearn_dpgd.accounting.calibrate_noise_multipliers`); Poisson
        subsampling: a root-find on the epsilon of ``accountant``, by default the
        pessimistic PLD epsilon of the run (Doroshenko et al. 2022), started from
        the root for the RDP of the subsampled Gaussian (Mironov, Talwar & Zhang
        2019); see
        :func:`~sklearn_dpgd.accounting.calibrate_poisson_noise_multipliers`.

        Parameters
        ----------
        profile : ndarray of shape (n_steps,)
            Positive relative noise multipliers.

        Returns
        -------
        noise_multipliers : ndarray of shape (n_steps,)
            Absolute noise multipliers (units of the sensitivity) of the run.
        """
        if self.sampling_rate >= 1.0:
            return calibrate_noise_multipliers(profile, self.epsilon, self.delta)

        return calibrate_poisson_noise_multipliers(
            profile,
            self.sampling_rate,
            self.epsilon,
            self.delta,
            accountant=self.accountant,
        )

    def budget_horizon(self, noise_multipliers):
        """Largest ``T`` such that the first ``T`` steps fit in the budget.

        Parameters
        ----------
        noise_multipliers : ndarray of shape (n_candidates,)
            Absolute noise multipliers of the candidate steps, in order.

        Returns
        -------
        n_steps : int
            In [0, n_candidates].
        """
        z = np.asarray(noise_multipliers, dtype=float)
        if self.sampling_rate >= 1.0:
            # Full batch: mu^2 = sum_t z_t^-2 (Dong, Roth & Su 2022, Cor. 3.3).
            spent = np.cumsum(1.0 / z**2)
            return int(np.searchsorted(spent, self.mu**2, side="right"))

        def fits(t):
            return t == 0 or (
                poisson_gaussian_epsilon(
                    z[:t], self.sampling_rate, self.delta, accountant=self.accountant
                )
                <= self.epsilon
            )

        # Galloping search: the cost of one check grows with the prefix length,
        # so double from 1 until a prefix overspends, then bisect (every probe is
        # at most twice the answer long).
        n = z.shape[0]
        lo, hi = 0, 1
        while hi <= n and fits(hi):
            lo, hi = hi, 2 * hi
        hi = min(hi, n + 1)  # invariant: fits(lo), and hi overspends or is past n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        return lo


class NoiseSchedule(ABC):
    """Base class of data-independent noise schedules.

    Subclasses are frozen dataclasses that validate their fields in
    ``__post_init__`` and implement :meth:`noise_multipliers`; they may override
    :meth:`horizon`, :meth:`learning_rates` and :meth:`plan`.
    """

    @abstractmethod
    def noise_multipliers(self, n_steps):
        """Relative noise multipliers of a run of ``n_steps`` private steps.

        Parameters
        ----------
        n_steps : int
            Number of steps ``T`` (>= 1).

        Returns
        -------
        profile : ndarray of shape (n_steps,)
            Finite positive values; only their ratios matter. The estimator multiplies
            them by the one scale that spends the budget exactly, giving the noise std
            of each step in units of the clipped-gradient sensitivity.

        Raises
        ------
        TypeError
            If ``n_steps`` is not an integer.
        ValueError
            If ``n_steps < 1``.
        """

    def horizon(self, context):
        """Number of steps this schedule prescribes for ``max_iter="auto"``.

        Parameters
        ----------
        context : ScheduleContext
            Public quantities of the run (budget, shape of the data, constants).

        Returns
        -------
        n_steps : int or None
            None (the default) lets the estimator use :func:`auto_max_iter`.
        """
        return None

    def learning_rates(self, n_steps, context):
        """Per-step learning rates this schedule prescribes, or None.

        Parameters
        ----------
        n_steps : int
            Number of steps of the run.
        context : ScheduleContext
            Public quantities of the run (budget, shape of the data, constants).

        Returns
        -------
        learning_rates : ndarray of shape (n_steps,) or None
            None (the default): the estimator's ``learning_rate`` is used.
        """
        return None

    def plan(self, n_steps, context):
        """Absolute noise multipliers and learning rates of a run.

        Parameters
        ----------
        n_steps : int
            Requested number of steps.
        context : ScheduleContext
            Public quantities of the run (budget, shape of the data, constants).

        Returns
        -------
        noise_multipliers : ndarray of shape (n_run,)
            Noise std per step in units of the sensitivity; ``n_run == n_steps``
            here (the profile calibrated to spend the budget exactly).
        learning_rates : ndarray of shape (n_run,) or None
            Per-step learning rates, or None for the estimator's ``learning_rate``.
        """
        z = context.calibrate(self.noise_multipliers(n_steps))
        return z, self.learning_rates(n_steps, context)


class _CurvatureMixin:
    """Helpers for the schedules of Hong, Wang & Zhou (FAccT 2022), Sec. 4.1."""

    def _gamma(self):
        return 1.0 - 1.0 / self.kappa

    def _alpha(self, context):
        # Eq. (4): alpha = D G^2 / (2 R M N^2 (F(theta_1) - F*)), with R = 2 rho = mu^2
        # for GDP, G = clip_norm (per-example gradients are clipped to it), and the
        # initial gap bounded by the loss at zero (losses are non-negative).
        M = context.smoothness(self.data_norm)
        R = context.mu**2
        gap = context.initial_loss
        n = context.n_samples
        return context.gradient_dim * context.clip_norm**2 / (2 * R * M * n**2 * gap)


@dataclass(frozen=True)
class UniformSchedule(_CurvatureMixin, NoiseSchedule):
    """The same noise at every step: ``z_t = z``.

    The baseline of private gradient descent (Hong, Wang & Zhou, FAccT 2022,
    Algorithm 1 with a uniform allocation).

    Parameters
    ----------
    kappa : float or None, default=None
        Public guess of the curvature ``kappa = M / mu`` (condition number, >= 1).
        If given, ``max_iter="auto"`` uses the horizon of Hong et al., Thm 4.2 (in
        the form chosen in its proof, Appendix eq. after (22)):
        ``T = ln(1 + ln(1/gamma) / alpha) / ln(1/gamma)``, ``gamma = 1 - 1/kappa``,
        ``alpha`` from eq. (4). If None, the estimator's empirical rule
        :func:`auto_max_iter` is used.
    data_norm : float, default=1.0
        Public bound on ``||x||`` used for the smoothness ``M`` in eq. (4).

    Raises
    ------
    ValueError
        If ``kappa < 1`` or ``data_norm <= 0``.
    """

    kappa: float | None = None
    data_norm: float = 1.0

    def __post_init__(self):
        if self.kappa is not None:
            _check_real(self.kappa, "kappa", low=1.0, low_open=False)
        _check_real(self.data_norm, "data_norm", low=0.0)

    def noise_multipliers(self, n_steps):
        return np.ones(_check_n_steps(n_steps))

    def horizon(self, context):
        if self.kappa is None or self.kappa == 1.0:
            return None
        log_inv_gamma = -math.log(self._gamma())
        t = math.log1p(log_inv_gamma / self._alpha(context)) / log_inv_gamma
        return int(min(MAX_HORIZON, max(1, math.ceil(t))))


@dataclass(frozen=True)
class ExponentialDecaySchedule(NoiseSchedule):
    """Noise that decays geometrically: ``z_t = z_0 * decay_rate ** t``, t = 0..T-1.

    Later steps, taken near the optimum where the gradient is small, get less noise
    and so a larger share of the budget (each step costs ``mu_t^2 = z_t^-2``). This is
    the "exponential decay" dynamic schedule of Yu et al. (ICDM 2019) as studied by
    Hong, Wang & Zhou (FAccT 2022, Sec. 4.2, eq. (7) and Thm 4.4, where the PL-optimal
    allocation is an exponential decay with ``decay_rate = (1 - 1/kappa)^(1/4)``; see
    :class:`PLOptimalSchedule`).

    The rate compounds over the horizon: the first step gets ``decay_rate ** -(T-1)``
    times the noise of the last. With the automatic horizon of the estimators (up to
    1000 steps) keep ``decay_rate ** T`` well above 0.1: on a holdout of Adult's
    training split, 0.999 and 0.998 matched the uniform schedule at every epsilon,
    while 0.995 lost 1.3 points at epsilon = 1.6 and 0.99 up to 18 points
    (``benchmarks/bench_adult.py``).

    Parameters
    ----------
    decay_rate : float, default=0.998
        Ratio ``z_{t+1} / z_t`` of consecutive noise multipliers, in (0, 1]. 1 gives
        the uniform schedule.

    Raises
    ------
    TypeError
        If ``decay_rate`` is not a real number.
    ValueError
        If ``decay_rate`` is not in (0, 1].
    """

    decay_rate: float = 0.998

    def __post_init__(self):
        _check_real(self.decay_rate, "decay_rate", low=0.0, high=1.0)

    def noise_multipliers(self, n_steps):
        return _geometric(self.decay_rate, np.arange(_check_n_steps(n_steps)))


def _geometric(rate, exponents):
    # Computed in log space: rate**t underflows for long runs with a small rate.
    profile = np.exp(np.asarray(exponents, dtype=float) * math.log(rate))
    if not np.all(profile > 0):
        raise ValueError(
            f"decay rate {rate!r} underflows to zero noise within "
            f"{len(profile)} steps; use a rate closer to 1."
        )
    return profile


@dataclass(frozen=True)
class StepDecaySchedule(NoiseSchedule):
    """Noise that drops by a factor every ``period`` steps.

    ``z_t = z_0 * decay_rate ** floor(t / period)``: the "step decay" schedule of Yu
    et al. (ICDM 2019), one of the dynamic schedules Hong, Wang & Zhou (FAccT 2022,
    Sec. 1 and 5) compare.

    Parameters
    ----------
    decay_rate : float, default=0.9
        Factor applied every ``period`` steps, in (0, 1].
    period : int, default=100
        Steps between drops, >= 1. With the defaults, a 1000-step run ends with
        ``0.9^9 = 0.39`` times the initial noise (cf. the compounding note of
        :class:`ExponentialDecaySchedule`).

    Raises
    ------
    TypeError
        If a field has a wrong type.
    ValueError
        If ``decay_rate`` is not in (0, 1] or ``period < 1``.
    """

    decay_rate: float = 0.9
    period: int = 100

    def __post_init__(self):
        _check_real(self.decay_rate, "decay_rate", low=0.0, high=1.0)
        if isinstance(self.period, bool) or not isinstance(self.period, Integral):
            raise TypeError(f"period must be an integer, got {self.period!r}.")
        if self.period < 1:
            raise ValueError(f"period must be >= 1, got {self.period}.")

    def noise_multipliers(self, n_steps):
        t = np.arange(_check_n_steps(n_steps))
        return _geometric(self.decay_rate, t // self.period)


@dataclass(frozen=True)
class TimeDecaySchedule(NoiseSchedule):
    """Noise that decays polynomially in time: ``z_t = z_0 (1 + k t) ** -power``.

    ``power = 0.5`` is the slower time decay ``z_0 / sqrt(1 + k t)``; ``power = 1`` is
    the time-based decay ``z_0 / (1 + k t)`` of Yu et al. (ICDM 2019), as compared by
    Hong, Wang & Zhou (FAccT 2022, Sec. 1).

    Parameters
    ----------
    k : float, default=0.01
        Decay speed, >= 0 (0 is uniform). With the defaults a 1000-step run ends with
        ``1/sqrt(11) = 0.30`` times the initial noise.
    power : float, default=0.5
        Exponent, > 0.

    Raises
    ------
    TypeError
        If a field is not a real number.
    ValueError
        If ``k < 0`` or ``power <= 0``.
    """

    k: float = 0.01
    power: float = 0.5

    def __post_init__(self):
        _check_real(self.k, "k", low=0.0, low_open=False)
        _check_real(self.power, "power", low=0.0)

    def noise_multipliers(self, n_steps):
        t = np.arange(_check_n_steps(n_steps), dtype=float)
        return np.exp(-self.power * np.log1p(self.k * t))


@dataclass(frozen=True)
class PLOptimalSchedule(_CurvatureMixin, NoiseSchedule):
    """The optimal dynamic schedule under the Polyak-Lojasiewicz condition.

    Hong, Wang & Zhou (FAccT 2022), Thm 4.4 with Lemma 4.3: with
    ``gamma = 1 - 1/kappa``,
    ``sigma_t^2 = (1/R) ((1/gamma)^(T/2) - 1) / (1 - sqrt(gamma)) * gamma^(t/2)``,
    an exponential decay of the noise std with rate ``gamma^(1/4)`` per step (only
    the shape is used: the estimator calibrates the scale to the budget exactly,
    which is what the factor before ``gamma^(t/2)`` does in the paper). With
    ``max_iter="auto"`` the horizon is the theorem's
    ``T = ceil(2 kappa ln(1 + 1/(kappa alpha)))``, ``alpha`` from eq. (4) with public
    constants only: ``D`` the gradient dimension, ``G = clip_norm``, ``R = mu^2``,
    ``M`` the smoothness for rows of norm ``data_norm``, ``N = n_samples`` and the
    initial gap bounded by the loss at zero. The theorem's step size ``1/M`` is
    prescribed when ``theory_learning_rate`` is True.

    Parameters
    ----------
    kappa : float, default=100.0
        Public guess of the curvature ``M / mu`` (>= 1); larger means flatter decay.
    data_norm : float, default=1.0
        Public bound on ``||x||`` (rows scaled to unit norm: 1).
    theory_learning_rate : bool, default=False
        Use ``eta = 1/M`` of Thm 4.4 instead of the estimator's ``learning_rate``.

    Raises
    ------
    ValueError
        If ``kappa < 1`` or ``data_norm <= 0``.
    """

    kappa: float = 100.0
    data_norm: float = 1.0
    theory_learning_rate: bool = False

    def __post_init__(self):
        _check_real(self.kappa, "kappa", low=1.0, low_open=False)
        _check_real(self.data_norm, "data_norm", low=0.0)
        if not isinstance(self.theory_learning_rate, bool):
            raise TypeError("theory_learning_rate must be a bool.")

    def noise_multipliers(self, n_steps):
        t = np.arange(_check_n_steps(n_steps))
        return (
            _geometric(self._gamma() ** 0.25, t) if self.kappa > 1 else np.ones(len(t))
        )

    def horizon(self, context):
        t = 2 * self.kappa * math.log1p(1.0 / (self.kappa * self._alpha(context)))
        return int(min(MAX_HORIZON, max(1, math.ceil(t))))

    def learning_rates(self, n_steps, context):
        if not self.theory_learning_rate:
            return None
        return np.full(n_steps, 1.0 / context.smoothness(self.data_norm))


@dataclass(frozen=True)
class PURSchedule(NoiseSchedule):
    """Privacy-utility-ratio schedules of Fay et al. (TMLR), Prop. 3-4.

    Constant step ``eta = 1/(2M)`` and a noise std on the *mean* gradient that
    follows the data-independent bound on the gradient norm:

    - ``"convex"``: ``sigma_t = 4 M R / (sqrt(d) t)`` (Prop. 3(b)), ``R`` a public
      bound on ``||theta_t - theta*||``;
    - ``"nonconvex"``: ``sigma_t = 4 M sqrt(F_0 - F*) / (sqrt(d) t)`` (Prop. 3(a));
    - ``"strongly_convex"``: ``sigma_t = sqrt(2 mu (F_0 - F*) (1 - mu/(2M))^t / d)``
      (Prop. 3(c)) with ``mu = alpha`` (the L2 penalty), needs ``alpha > 0``.

    for steps ``t = 1, 2, ...`` (Fay et al., TMLR, Prop. 3). The noise
    is absolute, not rescaled: the run lasts until the next step would overspend the
    budget (Prop. 4 sets the horizon the same way, with zCDP; here the exact GDP or
    RDP accountant decides). ``M = s (data_norm^2 + 1) + alpha`` (the loss's margin
    smoothness ``s``), ``F_0 - F* <= F(0)`` (losses are non-negative) and ``d`` the
    gradient dimension are public, never read from data. A noise std ``sigma`` on the
    mean gradient is the noise multiplier ``sigma * B / Delta`` for an expected batch
    of ``B`` rows.

    Parameters
    ----------
    kind : {"auto", "convex", "nonconvex", "strongly_convex"}, default="auto"
        "auto" is "strongly_convex" when the estimator's ``alpha > 0``, else
        "nonconvex" (which needs no radius).
    data_norm : float, default=1.0
        Public bound on ``||x||``.
    radius : float or None, default=None
        ``R`` for ``kind="convex"``; None uses ``clip_norm / alpha`` (a bound on
        ``||theta*||`` when ``alpha > 0``) and is an error when ``alpha == 0``.
    max_steps : int, default=100000
        Cap on the horizon.

    Raises
    ------
    ValueError
        If a field is invalid; at fit time, if the chosen kind needs ``alpha > 0`` or
        a radius that is missing.
    """

    kind: str = "auto"
    data_norm: float = 1.0
    radius: float | None = None
    max_steps: int = MAX_HORIZON

    def __post_init__(self):
        if self.kind not in ("auto", "convex", "nonconvex", "strongly_convex"):
            raise ValueError(
                "kind must be 'auto', 'convex', 'nonconvex' or 'strongly_convex', "
                f"got {self.kind!r}."
            )
        _check_real(self.data_norm, "data_norm", low=0.0)
        if self.radius is not None:
            _check_real(self.radius, "radius", low=0.0)
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, Integral):
            raise TypeError(f"max_steps must be an integer, got {self.max_steps!r}.")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {self.max_steps}.")

    def _kind(self, context):
        if self.kind == "auto":
            return "strongly_convex" if context.alpha > 0 else "nonconvex"
        if self.kind == "strongly_convex" and context.alpha <= 0:
            raise ValueError("PURSchedule(kind='strongly_convex') needs alpha > 0.")
        return self.kind

    def noise_std(self, n_steps, context):
        """Noise std on the mean gradient of steps 1..n_steps (Prop. 3).

        Parameters
        ----------
        n_steps : int
            Number of steps.
        context : ScheduleContext
            Public quantities of the run (budget, shape of the data, constants).

        Returns
        -------
        sigma : ndarray of shape (n_steps,)
            In the units of the gradient.
        """
        t = np.arange(1, _check_n_steps(n_steps) + 1, dtype=float)
        M = context.smoothness(self.data_norm)
        d = context.gradient_dim
        kind = self._kind(context)
        if kind == "strongly_convex":
            mu = context.alpha
            log_sigma = 0.5 * (
                math.log(2 * mu * context.initial_loss / d)
                + t * math.log1p(-mu / (2 * M))
            )
            return np.exp(log_sigma)
        if kind == "convex":
            radius = self.radius
            if radius is None:
                if context.alpha <= 0:
                    raise ValueError(
                        "PURSchedule(kind='convex') needs a radius when alpha == 0."
                    )
                radius = context.clip_norm / context.alpha
            return 4 * M * radius / (math.sqrt(d) * t)
        return 4 * M * math.sqrt(context.initial_loss) / (math.sqrt(d) * t)

    def noise_multipliers(self, n_steps):
        # The relative shape alone, for plotting; the run uses plan(), whose
        # levels are absolute (they depend on the context, not only on n_steps).
        t = np.arange(1, _check_n_steps(n_steps) + 1, dtype=float)
        return 1.0 / t

    def _absolute(self, n_steps, context):
        sigma = self.noise_std(n_steps, context)
        return sigma * context.expected_batch_size / context.sensitivity

    def horizon(self, context):
        return max(1, context.budget_horizon(self._absolute(self.max_steps, context)))

    def learning_rates(self, n_steps, context):
        return np.full(n_steps, 1.0 / (2.0 * context.smoothness(self.data_norm)))

    def plan(self, n_steps, context):
        z = self._absolute(n_steps, context)
        n_run = context.budget_horizon(z)
        if n_run == 0:
            raise ValueError(
                "PURSchedule: the budget does not cover even one step at the noise "
                f"of Fay et al. Prop. 3 (noise multiplier {z[0]:.3g}); raise epsilon "
                "or use another schedule."
            )
        return z[:n_run], self.learning_rates(n_run, context)
