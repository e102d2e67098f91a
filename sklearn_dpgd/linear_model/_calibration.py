"""Private temperature scaling of a model's scores (binary, or one shared
temperature of a multinomial model's scores: :func:`temperature_scale_multinomial`).

Why a calibration step at all. Per-example clipping at ``clip_norm`` caps how hard a
misclassified row can pull the model, while a well-classified row (small loss
derivative) is rarely clipped; the clipped objective is therefore a logistic loss
whose misclassification side grows more slowly, and its minimiser has margins
that are too large: over-confident probabilities. The bias grows with the rows'
norms over ``clip_norm`` (with one-hot + ``StandardScaler`` rows of norm about 3.5,
a third of Adult's test probabilities fall below 0.001 or above 0.999, against 3%
for the non-private model). The direction of ``coef_`` is still good (accuracy is),
its scale is not: one factor ``a`` fitted on the margins ``s``, the probabilities
``sigma(a s)``, restores it. This is temperature scaling (Guo, Pleiss, Sun &
Weinberger, "On calibration of modern neural networks", ICML 2017, Sec. 4.2), the
one-parameter case of Platt's sigmoid ``sigma(a s + c)`` (Platt, "Probabilistic
outputs for support vector machines", Advances in Large Margin Classifiers, MIT
Press, 2000, Sec. 2.1). Without the shift ``c`` no prediction changes (``a > 0``):
accuracy is the trained model's. (With the shift, Platt's ``c`` came out about
-0.14 on a synthetic task and cost half a point of accuracy.)

The fit is private and costs a fixed public share of the estimator's budget:
``CALIBRATION_SHARE`` of its GDP ``mu**2`` (Gaussian mechanisms compose by adding
``mu**2``, Dong, Roth & Su, JRSS B 2022, Cor. 3.3; the composition is adaptive, so
the margins may use the model the first stage released). It is a logistic regression
without intercept on one feature per row, ``u_i = clip(s_i / MARGIN_SCALE, -1,
1)``, trained by the same oracle and solver as the model (``N_STEPS`` full-batch
noisy gradient steps from the identity ``a = 1``). A row's gradient
``(sigma(.) - y_i) u_i`` has norm at most 1, so clipping at ``CLIP_NORM = 1`` never
changes it (no clipping bias in this stage) and one row moves the sum by at most 1
under add/remove (2 under replace-one: the factor of
:data:`sklearn_dpgd._public_size.SENSITIVITY_FACTOR`). ``u_i`` depends on row ``i``
only (and on the released model), which is what that sensitivity needs.

The result is folded into the linear model, ``coef_ <- a coef_``,
``intercept_ <- a intercept_``, so ``decision_function``, ``predict_proba`` and
``predict`` stay one linear model (for ``|s| > MARGIN_SCALE`` the fitted factor saw
the clipped margin; there the probabilities are beyond 0.9997 either way).
"""

import math

import numpy as np

from .._base import linear_scores
from .._engine._losses import LOSS_CODES
from .._engine._oracle import PrivateGradientOracle, SharedTemperatureOracle
from .._solvers.gd import noisy_gradient_descent

__all__ = [
    "CALIBRATION_SHARE",
    "CLIP_NORM",
    "MARGIN_SCALE",
    "MIN_CALIBRATION_SIGNAL",
    "N_STEPS",
    "calibration_noise_multiplier",
    "temperature_scale",
    "temperature_scale_multinomial",
]

#: Share of the fit's GDP ``mu**2`` spent on the calibration (one parameter: the
#: noise multipliers of the training steps rise by 1%). Measured on Adult with
#: one-hot + StandardScaler rows at epsilon 1 (benchmarks/bench_calibration.py):
#: test log-loss 0.328 with 2% as with 5%, and no accuracy lost.
CALIBRATION_SHARE = 0.02
#: "auto" calibrates when ``sqrt(CALIBRATION_SHARE) m mu`` (the public size times
#: the calibration's GDP budget) is at least this: the calibration's gradient noise
#: per step is ``sqrt(2 N_STEPS)`` over it. Measured (benchmarks/
#: bench_calibration.py --temperature, 5 seeds): from 209 up the stage lowered the
#: log-loss on every task (by up to 30% on standardised rows) and never raised it
#: by more than 0.001; at 60 and below it raised it on 4 of 6 tasks (breast cancer,
#: standardised rows: 0.099 to 0.317). 300 keeps a margin above 209.
MIN_CALIBRATION_SIGNAL = 300.0
#: Margins are divided by this before clipping to [-1, 1]: a probability of
#: ``expit(8) = 0.99966``. Smaller scales clip informative margins of
#: over-confident models (at 4, Adult's log-loss after calibration was 0.35
#: against 0.33 at 8); larger ones shrink the feature and with it the signal.
MARGIN_SCALE = 8.0
#: Full-batch steps of the calibration fit; with the step size ``LEARNING_RATE``.
N_STEPS = 100
#: ``1 / L`` for the mean logistic loss of rows of norm <= 1 (``L = 1/4``), halved.
LEARNING_RATE = 2.0
#: Heavy-ball momentum and averaged share of the iterates: the estimators' defaults.
MOMENTUM, AVERAGE = 0.9, 0.5
#: Bound of a row's gradient norm in this stage: ``|u_i| <= 1``.
CLIP_NORM = 1.0
#: The fitted factor ``a`` is kept inside this range (post-processing of the
#: private output: a noisy fit can never flip the model's predictions).
SCALE_RANGE = (0.05, 20.0)


def calibration_noise_multiplier(mu):
    """Noise multiplier of each calibration step, for a fit of GDP budget ``mu``.

    ``N_STEPS`` steps of noise multiplier ``z`` are ``sqrt(N_STEPS) / z``-GDP
    (Dong, Roth & Su, Cor. 3.3), set equal to ``sqrt(CALIBRATION_SHARE) * mu``.

    Parameters
    ----------
    mu : float
        GDP budget of the whole fit, > 0.

    Returns
    -------
    z : float
        Noise std of each step in units of the sensitivity.
    """
    return math.sqrt(N_STEPS) / (math.sqrt(CALIBRATION_SHARE) * mu)


def calibration_features(X, coef, intercept):
    """``u = clip((X @ coef.T + intercept) / MARGIN_SCALE, -1, 1)``, one column.

    Parameters
    ----------
    X : ndarray, CSR matrix or dask.array.Array of shape (n_samples, n_features)
    coef : ndarray of shape (1, n_features)
    intercept : ndarray of shape (1,)

    Returns
    -------
    U : ndarray or dask.array.Array of shape (n_samples, 1), float64
        C-contiguous (NumPy) or row-chunked as ``X`` (dask).
    """
    scores = (linear_scores(X, coef) + intercept) / MARGIN_SCALE
    if isinstance(scores, np.ndarray):
        return np.ascontiguousarray(np.clip(scores, -1.0, 1.0), dtype=float)
    return scores.clip(-1.0, 1.0).astype(float)


def temperature_scale(
    X,
    y,
    coef,
    intercept,
    *,
    sensitivity_factor,
    privacy_filter,
    rng,
    public_n_samples,
    noise_multiplier,
):
    """Fit the temperature of a binary model's margins privately and fold it in.

    Parameters
    ----------
    X : ndarray, CSR matrix or dask.array.Array of shape (n_samples, n_features)
        The private training rows (validated).
    y : ndarray or dask.array.Array of shape (n_samples,), int64
        Their 0/1 class indices.
    coef : ndarray of shape (1, n_features)
        The released model's coefficients (already private).
    intercept : ndarray of shape (1,)
        Its intercept (0 without one).
    sensitivity_factor : float
        1 under add/remove, 2 under replace-one.
    privacy_filter : GaussianPrivacyFilter
        The fit's filter; charged before each of the ``N_STEPS`` gradients is read.
    rng : numpy.random.Generator
        The fit's noise source.
    public_n_samples : int
        The public size (divisor of the gradient sums).
    noise_multiplier : float
        Noise multiplier of each step (:func:`calibration_noise_multiplier`).

    Returns
    -------
    coef : ndarray of shape (1, n_features)
        ``a coef``.
    intercept : ndarray of shape (1,)
        ``a intercept``.
    a : float
        The factor: the calibrated margin is ``a s``.

    Raises
    ------
    BudgetExhaustedError
        If the filter cannot afford a step (nothing is read then).
    """
    U = calibration_features(X, coef, intercept)
    oracle = PrivateGradientOracle(
        U,
        y,
        n_outputs=1,
        loss=LOSS_CODES["logistic"],
        huber_width=1.0,
        clip_norm=CLIP_NORM,
        sensitivity=sensitivity_factor * CLIP_NORM,
        fit_intercept=False,
        privacy_filter=privacy_filter,
        rng=rng,
        public_n_samples=public_n_samples,
    )
    # Start from the identity: a = 1 is a weight of MARGIN_SCALE on u.
    w, _, _ = noisy_gradient_descent(
        oracle,
        noise_multipliers=np.full(N_STEPS, noise_multiplier),
        learning_rates=np.full(N_STEPS, LEARNING_RATE),
        alpha=0.0,
        momentum=MOMENTUM,
        average=AVERAGE,
        normalize_steps=False,
        initial=np.array([[MARGIN_SCALE, 0.0]]),
    )
    a = float(np.clip(np.asarray(w).ravel()[0] / MARGIN_SCALE, *SCALE_RANGE))
    return a * np.asarray(coef, dtype=float), a * np.asarray(intercept, dtype=float), a


def temperature_scale_multinomial(
    X,
    y,
    coef,
    intercept,
    *,
    sensitivity_factor,
    privacy_filter,
    rng,
    public_n_samples,
    noise_multiplier,
):
    """Fit one shared temperature of a multinomial model's scores privately.

    The binary stage's recipe on ``K`` scores: ``u_i = clip(s_i / MARGIN_SCALE,
    -1, 1)`` (a row of ``K``), the model ``softmax(w u_i)`` with one weight ``w``
    started at ``MARGIN_SCALE`` (the identity), ``N_STEPS`` full-batch noisy
    gradient steps with the binary stage's step, momentum and averaging, then
    ``a = w / MARGIN_SCALE`` in ``SCALE_RANGE`` folded into the model. A row's
    gradient is bounded by 2 (:class:`~sklearn_dpgd._engine._oracle.
    SharedTemperatureOracle`), so each step's noise is twice the binary stage's
    at the same noise multiplier: the same share of ``mu**2``. ``a > 0`` scales
    every score alike, so no prediction changes.

    Parameters
    ----------
    X : ndarray, CSR matrix or dask.array.Array of shape (n_samples, n_features)
        The private training rows (validated).
    y : ndarray or dask.array.Array of shape (n_samples,), int64
        Their class indices.
    coef : ndarray of shape (n_classes, n_features)
        The released model's coefficients (already private).
    intercept : ndarray of shape (n_classes,)
        Its intercepts.
    sensitivity_factor : float
        1 under add/remove, 2 under replace-one.
    privacy_filter : GaussianPrivacyFilter
        The fit's filter; charged before each of the ``N_STEPS`` gradients is read.
    rng : numpy.random.Generator
        The fit's noise source.
    public_n_samples : int
        The public size (divisor of the gradient sums).
    noise_multiplier : float
        Noise multiplier of each step (:func:`calibration_noise_multiplier`).

    Returns
    -------
    coef : ndarray of shape (n_classes, n_features)
    intercept : ndarray of shape (n_classes,)
    a : float
        The factor: the calibrated scores are ``a s``.

    Raises
    ------
    BudgetExhaustedError
        If the filter cannot afford a step (nothing is read then).
    """
    scores = (linear_scores(X, coef) + intercept) / MARGIN_SCALE
    if not isinstance(scores, np.ndarray):  # dask: K columns fit in memory
        scores = scores.compute()
    y = np.asarray(y.compute() if hasattr(y, "compute") else y)
    oracle = SharedTemperatureOracle(
        np.clip(scores, -1.0, 1.0),
        y,
        sensitivity_factor=sensitivity_factor,
        privacy_filter=privacy_filter,
        rng=rng,
        public_n_samples=public_n_samples,
    )
    w, velocity, iterates = MARGIN_SCALE, 0.0, []
    for _ in range(N_STEPS):
        velocity = MOMENTUM * velocity - LEARNING_RATE * oracle.noisy_gradient(
            w, noise_multiplier
        )
        w += velocity
        iterates.append(w)
    w = float(np.mean(iterates[int((1.0 - AVERAGE) * N_STEPS) :]))
    a = float(np.clip(w / MARGIN_SCALE, *SCALE_RANGE))
    return a * np.asarray(coef, dtype=float), a * np.asarray(intercept, dtype=float), a
