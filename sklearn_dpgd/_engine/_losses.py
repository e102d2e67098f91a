"""Scalar losses of the linear models: their codes and public constants.

A classification loss is a function ``l(z)`` of the signed margin
``z = y * (x . w + b)`` with ``y in {-1, +1}``; its per-example gradient is
``l'(z) * y * [x, 1]``. A regression loss is a function ``l(m - y)`` of the residual
of the margin ``m = x . w + b`` against a real target ``y``; its per-example gradient
is ``l'(m - y) * [x, 1]``. Either way the gradient is a scalar *residual*
(:func:`~sklearn_dpgd._engine._loss_kernels.residual`) times the row, so every loss
here only adds scalar functions; the training loop in
:mod:`sklearn_dpgd._engine._kernels` is shared, and so is the privacy analysis:
the kernels clip each per-example gradient to ``clip_norm`` whatever the loss.

The classification losses are 1-Lipschitz in the margin, hence
``||g_i|| <= ||[x_i, 1]||``. The squared loss is not Lipschitz (its residual
``m - y`` is unbounded) and the Huber loss is ``h``-Lipschitz: neither bound is used
for privacy, which rests on the clipping only.
Sources: the logistic loss of the experiments of Hong, Wang & Zhou (FAccT 2022) and Lee
& Kifer (KDD 2018); the Huber-smoothed hinge is that of Chen & Lee, *Stochastic Adaptive
Line Search for Differentially Private Optimization*, Sec. V-C; the Huber loss of
regression is Huber's (*Robust Estimation of a Location Parameter*, Ann. Math.
Statist. 1964, eq. 5), with a fixed threshold.

The compiled scalar functions are in :mod:`sklearn_dpgd._engine._loss_kernels`
(imported with the kernels, hence with Numba, when a fit first needs them) and
vectorised in :mod:`sklearn_dpgd._engine._twins`; this module has no Numba, so the
estimators import it for free.
"""

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
