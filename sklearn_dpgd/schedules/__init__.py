"""Noise schedules: how the noise multiplier (and the step size) change per step.

A schedule is a small immutable object (a frozen dataclass: value equality, readable
repr, safe under :func:`sklearn.base.clone` and usable in a ``GridSearchCV`` grid).
Schedules never see data. They see a :class:`ScheduleContext` of public quantities
(budget, number of rows and features, clipping norm, loss constants).

Most schedules give a *profile* of relative noise multipliers, a pure function of
the number of steps (:meth:`NoiseSchedule.noise_multipliers`). The estimator scales
the profile by the one factor that spends the user's ``(epsilon, delta)`` exactly:
in closed form for full-batch steps
(:func:`sklearn_dpgd.accounting.calibrate_noise_multipliers`), by a root-find on the
privacy-loss-distribution epsilon (or, on request, the RDP one) for Poisson-subsampled
ones. Only the shape matters: ``ExponentialDecaySchedule(0.99)``
gives ``z_t = z_0 0.99^t`` with ``z_0`` fixed by the budget. A schedule may also fix
its own horizon (:meth:`NoiseSchedule.horizon`, used when ``max_iter="auto"``) and
per-step learning rates (:meth:`NoiseSchedule.learning_rates`).
:class:`PURSchedule` instead prescribes absolute noise levels; there the budget fixes
the horizon.

Noise multipliers are always in units of the sensitivity ``Delta`` of the clipped
gradient sum (``clip_norm`` under add/remove-one neighbouring, ``2 clip_norm`` under
replace-one): step ``t`` adds ``N(0, (z_t Delta)^2 I)``.
"""

from ._adaptive import AdaptiveSchedule, AdaptiveStepSchedule, LineSearchSchedule
from ._defaults import auto_clip_norm, auto_learning_rate, auto_max_iter
from ._noise import (
    ExponentialDecaySchedule,
    NoiseSchedule,
    PLOptimalSchedule,
    PURSchedule,
    ScheduleContext,
    StepDecaySchedule,
    TimeDecaySchedule,
    UniformSchedule,
)

__all__ = [
    "AdaptiveSchedule",
    "AdaptiveStepSchedule",
    "ExponentialDecaySchedule",
    "LineSearchSchedule",
    "NoiseSchedule",
    "PLOptimalSchedule",
    "PURSchedule",
    "ScheduleContext",
    "StepDecaySchedule",
    "TimeDecaySchedule",
    "UniformSchedule",
    "auto_clip_norm",
    "auto_learning_rate",
    "auto_max_iter",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
