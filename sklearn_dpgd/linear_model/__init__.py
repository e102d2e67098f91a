"""Differentially private linear classifiers trained by noisy gradient descent."""

from ._huber import DPHuberSVM
from ._logistic import DPLogisticRegression

__all__ = [
    "DPHuberSVM",
    "DPLogisticRegression",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
