"""Scikit-learn-compatible linear classifiers and regressors trained with
differential privacy.

Private (noisy, per-example clipped) gradient descent with exact budget calibration
by Gaussian differential privacy.
"""

from .baselines import OutputPerturbationClassifier, PhasedLocalizationClassifier
from .exceptions import (
    BudgetExhaustedError,
    PrivacyLeakWarning,
    UtilityWarning,
    WeakPrivacyWarning,
)
from .linear_model import (
    DPHuberRegressor,
    DPHuberSVM,
    DPLinearRegression,
    DPLogisticRegression,
)
from .schedules import (
    AdaptiveStepSchedule,
    ExponentialDecaySchedule,
    LineSearchSchedule,
    NoiseSchedule,
    PLOptimalSchedule,
    PURSchedule,
    StepDecaySchedule,
    TimeDecaySchedule,
    UniformSchedule,
)

__version__ = "0.1.0"

__all__ = [
    "AdaptiveStepSchedule",
    "BudgetExhaustedError",
    "DPHuberRegressor",
    "DPHuberSVM",
    "DPLinearRegression",
    "DPLogisticRegression",
    "ExponentialDecaySchedule",
    "LineSearchSchedule",
    "NoiseSchedule",
    "OutputPerturbationClassifier",
    "PLOptimalSchedule",
    "PURSchedule",
    "PhasedLocalizationClassifier",
    "PrivacyLeakWarning",
    "StepDecaySchedule",
    "TimeDecaySchedule",
    "UniformSchedule",
    "UtilityWarning",
    "WeakPrivacyWarning",
    "__version__",
]
