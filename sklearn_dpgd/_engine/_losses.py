"""Scalar margin losses of the linear models, and their public constants.

A loss is a function ``l(z)`` of the signed margin ``z = y * (x . w + b)`` with
``y in {-1, +1}``. The per-example gradient of a linear model is
``l'(z) * y * [x, 1]``, so every loss here only adds two scalar functions (compiled in
:mod:`sklearn_dpgd._engine._kernels`, vectorised in :mod:`sklearn_dpgd._engine._twins`);
the training loop is shared. This module holds the codes and constants only, without
Numba, so the estimators import it for free.

Both losses are 1-Lipschitz in the margin, hence ``||g_i|| <= ||[x_i, 1]||``.
Sources: the logistic loss of the experiments of Hong, Wang & Zhou (FAccT 2022) and Lee
& Kifer (KDD 2018); the Huber-smoothed hinge is that of Chen & Lee, *Stochastic Adaptive
Line Search for Differentially Private Optimization*, Sec. V-C.
"""

# Integer codes passed to compiled code (strings never cross the Numba boundary).
LOGISTIC = 0
HUBER_HINGE = 1

LOSS_CODES = {"logistic": LOGISTIC, "huber_hinge": HUBER_HINGE}

# Lipschitz constant in the margin and smoothness (Lipschitz constant of l') of each
# loss; for Huber the smoothness is 1 / (2 h).
LIPSCHITZ = {"logistic": 1.0, "huber_hinge": 1.0}


def smoothness(loss, huber_width=0.5):
    """Return the smoothness constant of ``loss`` in the margin (sup of ``|l''|``)."""
    if loss == "logistic":
        return 0.25
    if loss == "huber_hinge":
        return 1.0 / (2.0 * huber_width)
    raise ValueError(f"unknown loss {loss!r}")
