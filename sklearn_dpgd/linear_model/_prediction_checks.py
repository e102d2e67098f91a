"""Private checks of a classifier's predictions on its training rows.

The class check of :mod:`sklearn_dpgd.linear_model._utility` (its module
docstring gives the design and the measured precision and recall): a noisy
histogram of the predicted classes (a model predicting one class) and noisy
accuracy gains over each constant predictor (a model no more accurate than the
majority class), one Gaussian mechanism charged before the rows are read.
Sensitivities under both neighbouring relations: :func:`noisy_class_counts`
and :func:`gain_sensitivity`.
"""

import math

import numpy as np
from scipy.special import ndtri

from .._base import linear_scores
from .._warnings import warn_once
from ..accounting import GaussianSteps
from ..exceptions import UtilityWarning

__all__ = [
    "CONCLUSIVE_NOISE_SHARE",
    "GAIN_FALSE_ALARM",
    "GAIN_PART",
    "MINORITY_SHARE",
    "ROW_NORM_LIMIT",
    "USEFUL_GAIN",
    "check_predictions",
    "gain_sensitivity",
    "noisy_accuracy_gains",
    "noisy_class_counts",
]

#: The check of the predicted classes warns only where its noise std (over the
#: rows outside the top class) is at most this share of the public size: with
#: more noise, a useful model predicting a fifth of its rows outside the top
#: class cannot be told from a majority-class guess.
CONCLUSIVE_NOISE_SHARE = 0.1
#: Warn when fewer than this share of the rows are predicted outside the top class.
MINORITY_SHARE = 0.02
#: The accuracy check warns when the model's gain over the majority class on its
#: training rows is surely (1.64 noise stds) below this share of the public
#: size: the benchmark's "useful" margin (5 points above the majority class).
USEFUL_GAIN = 0.05
#: Probability that the accuracy check warns a model :data:`USEFUL_GAIN` more
#: accurate than every constant predictor (at 0.05 small-data fits of iris,
#: breast cancer and synthetic problems were warned on 7% of the useful fits).
GAIN_FALSE_ALARM = 0.01
#: Part of the check of the predictions' budget (``mu^2``) that goes to the
#: accuracy gains; the rest to the histogram of predicted classes, whose
#: one-class verdict needs the precision on small data.
GAIN_PART = 0.25
#: Rows of norm above this (times ``max(1, clip_norm)``) count as unscaled.
ROW_NORM_LIMIT = 100.0


def _computed(value):
    """A Dask result computed where its chunks live; NumPy values as they are."""
    return value.compute() if hasattr(value, "compute") else value


# L2 sensitivity of the histogram of predicted classes: one row added or
# removed changes one count by 1; replaced, it moves between two counts.
_HISTOGRAM_SENSITIVITY = {"add_remove": 1.0, "replace": math.sqrt(2.0)}


def noisy_class_counts(predicted, n_classes, *, neighboring, noise_multiplier, rng):
    """Gaussian mechanism on the histogram of predicted classes.

    Parameters
    ----------
    predicted : ndarray of shape (n_samples,)
        Class indices in ``[0, n_classes)``.
    n_classes : int
    neighboring : {"add_remove", "replace"}
        Sets the L2 sensitivity: 1, or ``sqrt(2)`` under replace-one.
    noise_multiplier : float
        Noise std in units of the sensitivity.
    rng : numpy.random.Generator or SecureGenerator

    Returns
    -------
    counts : ndarray of shape (n_classes,)
        Noisy counts (float; a private release).
    """
    counts = np.asarray(
        _computed(np.bincount(predicted, minlength=n_classes)), dtype=float
    )
    std = _HISTOGRAM_SENSITIVITY[neighboring] * noise_multiplier
    return counts + std * np.asarray(rng.standard_normal(n_classes), dtype=float)


def gain_sensitivity(n_classes, neighboring):
    """L2 sensitivity of the gain vector released by :func:`noisy_accuracy_gains`.

    Row ``i`` adds ``g_i = (c_i - [y_i = k])_k`` to the released sums, with
    ``c_i`` 1 if the model predicts the row right, else 0. A right row has
    ``g_i`` 1 everywhere but 0 at its class (norm ``sqrt(K - 1)``), a wrong
    row -1 at its class and 0 elsewhere (norm 1): under add/remove-one the
    sensitivity is ``sqrt(K - 1)``. Under replace-one the largest change is a
    right row of class ``a`` replaced by a wrong row of class ``b != a``:
    ``2`` at ``b``, 0 at ``a`` and 1 elsewhere, norm ``sqrt(K + 2)`` (2 for
    binary problems, twice the add/remove value).

    Parameters
    ----------
    n_classes : int
        ``K`` >= 2.
    neighboring : {"add_remove", "replace"}

    Returns
    -------
    sensitivity : float
    """
    if neighboring == "replace":
        return math.sqrt(n_classes + 2.0)
    return math.sqrt(n_classes - 1.0)


def noisy_accuracy_gains(
    predicted, y, n_classes, *, neighboring, noise_multiplier, rng
):
    """Gaussian mechanism on the model's correct predictions less each class count.

    Parameters
    ----------
    predicted : ndarray of shape (n_samples,)
        Predicted class indices in ``[0, n_classes)``.
    y : ndarray of shape (n_samples,)
        True class indices in ``[0, n_classes)`` (private).
    n_classes : int
    neighboring : {"add_remove", "replace"}
        Sets the L2 sensitivity (:func:`gain_sensitivity`).
    noise_multiplier : float
        Noise std in units of the sensitivity.
    rng : numpy.random.Generator or SecureGenerator

    Returns
    -------
    gains : ndarray of shape (n_classes,)
        Noisy ``sum_i c_i - #{i : y_i = k}`` for each class ``k`` (float; a
        private release): the rows the model gets right beyond those the
        constant predictor of class ``k`` gets right. Its minimum is the gain
        over the majority class.
    """
    # One reduction (the confusion matrix; on Dask, summed over the chunks
    # where they live): its trace is the right predictions, its rows the labels.
    cells = _computed(np.bincount(y * n_classes + predicted, minlength=n_classes**2))
    confusion = np.asarray(cells, dtype=float).reshape(n_classes, n_classes)
    correct, counts = float(np.trace(confusion)), confusion.sum(axis=1)
    gains = correct - np.asarray(counts, dtype=float)
    std = gain_sensitivity(n_classes, neighboring) * noise_multiplier
    return gains + std * np.asarray(rng.standard_normal(n_classes), dtype=float)


def check_predictions(
    X,
    y,
    coef,
    intercept,
    *,
    neighboring,
    privacy_filter,
    noise_multiplier,
    rng,
    n_samples,
    stacklevel,
    unscaled_count=None,
):
    """Private checks of the predictions on the training rows; warn if useless.

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` ``z``
    before reading ``X`` or ``y`` for two releases, of noise multipliers
    ``z / sqrt(1 - GAIN_PART)`` and ``z / sqrt(GAIN_PART)`` (together exactly
    one Gaussian mechanism of ``z``: GDP budgets compose by their squares; the model is
    already private, its predictions post-processing):

    * the histogram of predicted classes (:func:`noisy_class_counts`): the
      model predicts one class when the rows outside the top class are fewer
      than :data:`MINORITY_SHARE` of the public size plus 1.28 times their
      noise std (a true zero is caught 90% of the time); no verdict where that
      std exceeds :data:`CONCLUSIVE_NOISE_SHARE` of the public size.
    * the accuracy gains (:func:`noisy_accuracy_gains`): their minimum ``g``
      estimates the rows the model predicts right beyond the majority class's.
      It warns when ``g + c s`` is below :data:`USEFUL_GAIN` of the public
      size (``s`` the noise std of each gain, ``c`` the normal quantile of
      :data:`GAIN_FALSE_ALARM` over ``K``): a model that much more accurate
      than every constant predictor on its rows is warned with probability
      below :data:`GAIN_FALSE_ALARM`.
      It catches models that predict every class but no more accurately than
      the constant predictor, which the histogram cannot see.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The private training rows.
    y : ndarray of shape (n_samples,)
        Their private class indices (``classes_`` order).
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    neighboring : {"add_remove", "replace"}
    privacy_filter : GaussianPrivacyFilter or FixedOrderRenyiFilter
    noise_multiplier : float
        :func:`diagnostics_noise_multiplier`: of the two releases together.
    rng : numpy.random.Generator or SecureGenerator
    n_samples : float
        The public size ``m`` (or a noisy estimate of it).
    stacklevel : int
    unscaled_count : float or None, default=None
        The noisy count of unscaled rows (:func:`check_row_norms`), named as the
        likely cause when a check fires; None if the rows looked scaled.

    Returns
    -------
    counts : ndarray of shape (n_classes,)
        Noisy counts of the predicted classes (``classes_`` order).
    gains : ndarray of shape (n_classes,)
        The noisy accuracy gains.
    """
    # Two Gaussian releases with 1 / z_counts^2 + 1 / z_gains^2 = 1 / z^2: in
    # units of their noise, the pair is one Gaussian mechanism on a vector of
    # L2 sensitivity at most sqrt(1 / z_counts^2 + 1 / z_gains^2) z = 1 at noise
    # multiplier z, which is the record charged.
    z_counts = noise_multiplier / math.sqrt(1.0 - GAIN_PART)
    z_gains = noise_multiplier / math.sqrt(GAIN_PART)
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    scores = linear_scores(X, coef) + np.asarray(intercept, dtype=np.float64)
    if scores.shape[1] == 1:
        predicted, n_classes = (scores[:, 0] > 0).astype(np.intp), 2
    else:
        predicted, n_classes = scores.argmax(axis=1), scores.shape[1]
    common = {"neighboring": neighboring, "rng": rng}
    counts = noisy_class_counts(
        predicted, n_classes, noise_multiplier=z_counts, **common
    )
    gains = noisy_accuracy_gains(
        predicted, y, n_classes, noise_multiplier=z_gains, **common
    )
    # The rows outside the top class. Where their noise is large next to m, a
    # useful model cannot be told from a majority-class guess: no verdict.
    # Else 1.28 noise stds of margin: a true zero is flagged 90% of the time.
    others = float(counts.sum() - counts.max())
    std = _HISTOGRAM_SENSITIVITY[neighboring] * z_counts
    std_others = std * math.sqrt(n_classes - 1)
    one_class = (
        std_others <= CONCLUSIVE_NOISE_SHARE * n_samples
        and others < MINORITY_SHARE * n_samples + 1.28 * std_others
    )
    gain = float(gains.min())
    gain_std = gain_sensitivity(n_classes, neighboring) * z_gains
    # The minimum of K noisy gains: a one-sided bound at GAIN_FALSE_ALARM / K
    # for each (union bound), so a model USEFUL_GAIN more accurate than every
    # constant predictor is warned with probability below GAIN_FALSE_ALARM.
    # -ndtri(q) is norm.isf(q) (scipy's own definition) without the
    # distribution object's argument handling (30 us a fit).
    margin = float(-ndtri(GAIN_FALSE_ALARM / n_classes))
    no_gain = gain + margin * gain_std < USEFUL_GAIN * n_samples
    if not (one_class or no_gain):
        return counts, gains
    if unscaled_count is not None:
        cause = (
            f"The rows look unscaled: a noisy count finds {unscaled_count:.0f} "
            f"of about {n_samples:.0f} rows with norm above {ROW_NORM_LIMIT:g} "
            "times max(1, the clipping norm), so every gradient is clipped and the "
            "columns of small scale drown in the noise. Scale the columns "
            "privately first (e.g. sklearn_dpgd.preprocessing."
            "DPStandardScaler with public bounds in a make_private_pipeline; "
            "Normalizer alone keeps the largest column dominant)."
        )
    else:
        cause = (
            "Usual causes: columns of very different scales (scale them "
            "privately, e.g. DPStandardScaler with public bounds), or a "
            "budget too small for the rows and features (raise epsilon, add "
            "rows, drop features)."
        )
    if one_class:
        finding = (
            "the model predicts one class for almost every training row (noisy "
            "counts of the predicted classes: "
            f"{np.clip(np.round(counts), 0, None).astype(int)}, noise std "
            f"{std:.2g} each), like a majority-class guess. "
        )
    else:
        finding = (
            "the model is about as accurate as predicting the majority class: a "
            "noisy count of its right predictions on its training rows, less the "
            f"majority class's, is {gain:.0f} rows of about {n_samples:.0f} (noise "
            f"std {gain_std:.2g}), so its gain is surely below {USEFUL_GAIN:.0%}. "
            "(On imbalanced classes such a model may still rank rows well: judge "
            "it on held-out data with the metric you need.) "
        )
    warn_once(
        finding + cause,
        UtilityWarning,
        stacklevel=stacklevel + 1,
        key=(
            "unscaled rows"
            if unscaled_count is not None
            else "one class"
            if one_class
            else "majority class"
        ),
    )
    return counts, gains
