"""Scalar losses of the linear models, and their public constants.

A classification loss is a function ``l(z)`` of the signed margin
``z = y * (x . w + b)`` with ``y in {-1, +1}``; its per-example gradient is
``l'(z) * y * [x, 1]``. A regression loss is a function ``l(m - y)`` of the residual
of the margin ``m = x . w + b`` against a real target ``y``; its per-example gradient
is ``l'(m - y) * [x, 1]``. Either way the gradient is a scalar *residual*
(:func:`residual`) times the row, so every loss here only adds scalar functions; the
training loop in :mod:`sklearn_dpgd._engine._kernels` is shared, and so is the
privacy analysis: the kernels clip each per-example gradient to ``clip_norm``
whatever the loss.

The classification losses are 1-Lipschitz in the margin, hence
``||g_i|| <= ||[x_i, 1]||``. The squared loss is not Lipschitz (its residual
``m - y`` is unbounded) and the Huber loss is ``h``-Lipschitz: neither bound is used
for privacy, which rests on the clipping only.
Sources: the logistic loss of the experiments of Hong, Wang & Zhou (FAccT 2022) and Lee
& Kifer (KDD 2018); the Huber-smoothed hinge is that of Chen & Lee, *Stochastic Adaptive
Line Search for Differentially Private Optimization*, Sec. V-C; the Huber loss of
regression is Huber's (*Robust Estimation of a Location Parameter*, Ann. Math.
Statist. 1964, eq. 5), with a fixed threshold.
"""

import math

from numba import njit

# Integer codes passed to compiled code (strings never cross the Numba boundary).
LOGISTIC = 0
HUBER_HINGE = 1
# Regression losses: codes from REGRESSION on, so one comparison tells the kinds apart.
SQUARED = 2
HUBER = 3
REGRESSION = SQUARED

LOSS_CODES = {
    "logistic": LOGISTIC,
    "huber_hinge": HUBER_HINGE,
    "squared": SQUARED,
    "huber": HUBER,
}

# Lipschitz constant in the margin and smoothness (Lipschitz constant of l') of each
# loss; for Huber the smoothness is 1 / (2 h).
LIPSCHITZ = {"logistic": 1.0, "huber_hinge": 1.0}


def smoothness(loss, huber_width=0.5):
    """Return the smoothness constant of ``loss`` in the margin (sup of ``|l''|``)."""
    if loss == "logistic":
        return 0.25
    if loss == "huber_hinge":
        return 1.0 / (2.0 * huber_width)
    if loss in ("squared", "huber"):
        return 1.0
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


@njit(cache=True, inline="always")
def residual(m, yi, loss, h):
    """``dl/dm`` of one example at margin ``m = x . w + b`` with label or target ``yi``.

    Classification (``yi`` in {0, 1}, signed label ``s = 2 yi - 1``): ``l'(s m) s``.
    Squared loss ``(m - yi)^2 / 2``: ``m - yi``. Huber loss of threshold ``h``:
    ``m - yi`` clipped to ``[-h, h]``. The per-example gradient is this times
    ``[x, 1]``, and the kernels clip it to ``clip_norm``.
    """
    if loss >= REGRESSION:
        r = m - yi
        if loss == HUBER:
            r = min(max(r, -h), h)
        return r
    s = 2.0 * yi - 1.0
    return loss_derivative(s * m, loss, h) * s


@njit(cache=True, inline="always")
def example_loss(m, yi, loss, h):
    """Loss of one example at margin ``m`` with label or target ``yi``.

    Squared: ``(m - yi)^2 / 2``; Huber of threshold ``h``: ``r^2 / 2`` for
    ``|r| <= h`` and ``h |r| - h^2 / 2`` beyond, ``r = m - yi``; classification:
    :func:`loss_value` of the signed margin.
    """
    if loss >= REGRESSION:
        r = abs(m - yi)
        if loss == HUBER and r > h:
            return h * r - 0.5 * h * h
        return 0.5 * r * r
    s = 2.0 * yi - 1.0
    return loss_value(s * m, loss, h)
