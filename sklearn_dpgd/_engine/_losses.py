"""Scalar margin losses of the linear models, and their public constants.

A loss is a function ``l(z)`` of the signed margin ``z = y * (x . w + b)`` with
``y in {-1, +1}``. The per-example gradient of a linear model is
``l'(z) * y * [x, 1]``, so every loss here only adds two scalar functions; the training
loop in :mod:`sklearn_dpgd._engine._kernels` is shared.

Both losses are 1-Lipschitz in the margin, hence ``||g_i|| <= ||[x_i, 1]||``.
Sources: the logistic loss of the experiments of Hong, Wang & Zhou (FAccT 2022) and Lee
& Kifer (KDD 2018); the Huber-smoothed hinge is that of Chen & Lee, *Stochastic Adaptive
Line Search for Differentially Private Optimization*, Sec. V-C.
"""

import math

from numba import njit

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


@njit(cache=True, inline="always")
def loss_value(z, loss, h):
    """Loss at signed margin ``z``; ``h`` is the Huber width (unused for logistic)."""
    if loss == LOGISTIC:
        # log(1 + exp(-z)) without overflow for large |z|.
        if z > 0.0:
            return math.log1p(math.exp(-z))
        return -z + math.log1p(math.exp(z))
    if z < 1.0 - h:
        return 1.0 - z
    if z <= 1.0 + h:
        u = 1.0 + h - z
        return u * u / (4.0 * h)
    return 0.0


@njit(cache=True, inline="always")
def loss_derivative(z, loss, h):
    """Derivative ``dl/dz`` at signed margin ``z``; always in ``[-1, 0]``."""
    if loss == LOGISTIC:
        # -1 / (1 + exp(z)), evaluated on the side that does not overflow:
        # -e / (1 + e) for z > 0 and -1 / (1 + e) otherwise, with e = exp(-|z|)
        # (= exp(-z) or exp(z), bit for bit). One exp and a select instead of a
        # branch on the sign, which is unpredictable across rows.
        e = math.exp(-abs(z))
        return -(e if z > 0.0 else 1.0) / (1.0 + e)
    if z < 1.0 - h:
        return -1.0
    if z <= 1.0 + h:
        return -(1.0 + h - z) / (2.0 * h)
    return 0.0
