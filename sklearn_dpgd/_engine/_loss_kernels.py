"""The scalar losses of :mod:`sklearn_dpgd._engine._losses`, compiled for the kernels.

Imported by :mod:`sklearn_dpgd._engine._kernels` only (hence with Numba, when a fit
first needs the kernels); the NumPy twins vectorise the same formulas
(:mod:`sklearn_dpgd._engine._twins`).
"""

import math

from numba import njit

from ._losses import HUBER, LOGISTIC, REGRESSION

__all__ = ["example_loss", "loss_derivative", "loss_value", "residual"]


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
