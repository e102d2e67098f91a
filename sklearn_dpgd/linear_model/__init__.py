"""Differentially private linear models trained by noisy gradient descent."""

from ._huber import DPHuberSVM
from ._logistic import DPLogisticRegression
from ._regression import DPHuberRegressor, DPLinearRegression

__all__ = [
    "DPHuberRegressor",
    "DPHuberSVM",
    "DPLinearRegression",
    "DPLogisticRegression",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
