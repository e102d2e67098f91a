"""Noise schedules: how the noise multiplier changes from step to step.

A schedule is a small immutable object (a frozen dataclass: value equality, readable
repr, safe under :func:`sklearn.base.clone`). A data-independent schedule gives a
*profile* of relative noise multipliers, a pure function of the number of steps; the
estimator scales the profile so that the whole run spends the user's
``(epsilon, delta)`` exactly
(:func:`sklearn_dpgd.accounting.calibrate_noise_multipliers`).
Only the shape matters: ``ExponentialDecaySchedule(0.99)`` gives ``z_t = z_0 0.99^t``
with ``z_0`` fixed by the budget.
"""

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

__all__ = [
    "ExponentialDecaySchedule",
    "NoiseSchedule",
    "UniformSchedule",
    "auto_max_iter",
]


def _check_n_steps(n_steps):
    if isinstance(n_steps, bool) or not isinstance(n_steps, Integral):
        raise TypeError(f"n_steps must be an integer, got {type(n_steps).__name__}.")
    if n_steps < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}.")
    return int(n_steps)


class NoiseSchedule(ABC):
    """Base class of data-independent noise schedules.

    Subclasses are frozen dataclasses that validate their fields in
    ``__post_init__`` and implement :meth:`noise_multipliers`.
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


@dataclass(frozen=True)
class UniformSchedule(NoiseSchedule):
    """The same noise at every step: ``z_t = z``.

    The baseline of private gradient descent (Hong, Wang & Zhou, FAccT 2022,
    Algorithm 1 with a uniform allocation; ``../shared/algorithms.md``, Schedules).
    """

    def noise_multipliers(self, n_steps):
        return np.ones(_check_n_steps(n_steps))


@dataclass(frozen=True)
class ExponentialDecaySchedule(NoiseSchedule):
    """Noise that decays geometrically: ``z_t = z_0 * decay_rate ** t``, t = 0..T-1.

    Later steps, taken near the optimum where the gradient is small, get less noise
    and so a larger share of the budget (each step costs ``mu_t^2 = z_t^-2``). This is
    the "exponential decay" dynamic schedule of Yu et al. (ICDM 2019) as studied by
    Hong, Wang & Zhou (FAccT 2022, Sec. 4.2, eq. (7) and Thm 4.4, where the PL-optimal
    allocation is an exponential decay with ``decay_rate = (1 - 1/kappa)^(1/4)``).

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
        r = self.decay_rate
        if isinstance(r, bool) or not isinstance(r, Real):
            raise TypeError(
                f"decay_rate must be a real number, got {type(r).__name__}."
            )
        if math.isnan(r) or not 0.0 < r <= 1.0:
            raise ValueError(f"decay_rate must be in (0, 1], got {r!r}.")

    def noise_multipliers(self, n_steps):
        t = np.arange(_check_n_steps(n_steps), dtype=float)
        # Computed in log space: r**t underflows for long runs with a small rate.
        profile = np.exp(t * math.log(self.decay_rate))
        if not np.all(profile > 0):
            raise ValueError(
                f"decay_rate={self.decay_rate!r} underflows to zero noise within "
                f"{n_steps} steps; use a rate closer to 1."
            )
        return profile


# Bounds of the automatic horizon: a handful of steps is the least that moves a
# model; past 1000 full passes the accuracy gain on Adult is below 0.001 while the
# cost grows linearly (benchmarks/bench_adult.py).
AUTO_MAX_ITER_BOUNDS = (5, 1000)


def auto_max_iter(
    epsilon,
    delta,
    n_samples,
    n_features,
    *,
    n_outputs=1,
    neighboring="add_remove",
    fit_intercept=True,
):
    """Number of private steps chosen from public quantities only.

    ``T = mu * n / (s * sqrt(d'))``, rounded and clipped to [5, 1000], where ``mu`` is
    the GDP budget of ``(epsilon, delta)``, ``n`` the number of rows, ``s`` the
    sensitivity factor (1 for add/remove-one, 2 for replace-one neighbouring) and
    ``d' = n_outputs * (n_features + fit_intercept)`` the gradient dimension.

    Why this shape: with exact composition each of ``T`` equal steps has noise
    multiplier ``z = sqrt(T) / mu``, so the noise on the mean gradient has norm about
    ``s sqrt(T d') / (mu n)`` (units of ``clip_norm``). More steps reduce the
    optimisation error but raise the per-step noise like ``sqrt(T)``; a horizon
    proportional to ``mu n / (s sqrt(d'))`` keeps the per-step noise-to-signal ratio at
    a fixed level as the budget and the data grow. The constant (1) was read off a
    sweep over ``T`` in {25, ..., 800} on a holdout of Adult's *training* split
    (``benchmarks/bench_adult.py --sweep``): the best horizon at
    epsilon = 0.05 ... 1.6 was within a factor 2 of this rule at every epsilon.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    n_samples : int
        Number of training rows (treated as public), >= 1.
    n_features : int
        Number of features, >= 1.
    n_outputs : int, default=1
        Rows of the coefficient matrix: 1 for binary models, the number of classes
        for multiclass ones.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation; "replace" doubles the sensitivity.
    fit_intercept : bool, default=True
        Whether the gradient has one more coordinate for the intercept.

    Returns
    -------
    max_iter : int
        In [5, 1000].

    Raises
    ------
    ValueError
        If ``epsilon``, ``delta``, ``n_samples``, ``n_features``, ``n_outputs`` or
        ``neighboring`` is invalid.
    """
    from .accounting import gdp_mu

    if neighboring not in ("add_remove", "replace"):
        raise ValueError(
            f"neighboring must be 'add_remove' or 'replace', got {neighboring!r}."
        )
    for name, value in (
        ("n_samples", n_samples),
        ("n_features", n_features),
        ("n_outputs", n_outputs),
    ):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    s = 2.0 if neighboring == "replace" else 1.0
    dim = n_outputs * (n_features + (1 if fit_intercept else 0))
    t = gdp_mu(epsilon, delta) * n_samples / (s * math.sqrt(dim))
    lo, hi = AUTO_MAX_ITER_BOUNDS
    return int(min(hi, max(lo, round(t))))
