"""Utility diagnostics of a private linear fit: warn when it is likely useless.

A private fit can spend its whole budget and return a model no better than
predicting the majority class, silently. Three checks, each ending in a
:class:`~sklearn_dpgd.exceptions.UtilityWarning` that names the cause and the
remedy (issue 31):

* **the budget's signal-to-noise** (free: public quantities only): the unit
  ``u = mu m / d'`` (``mu`` the fit's GDP budget, ``m`` its public size,
  ``d' = n_outputs (n_features + fit_intercept)`` the gradient's
  coordinates). Measured on synthetic problems across ``n`` from 300 to
  10,000, ``d`` from 2 to 1,000 and ``epsilon`` from 0.1 to 3
  (``benchmarks/bench_utility.py``, 2 seeds per cell, two runs), the default
  fit's accuracy was at most 6 points above the majority class (about 0 in
  most cells) at every ``u < 0.5``, and mostly 8 to 37 points above it from
  ``u = 1``, whatever the mix of ``n``, ``d`` and ``epsilon``;
  ``mu m / sqrt(d')`` separated them less well (a cell at 17 no better than
  the majority, one at 1.3 useful).
  The warning fires below :data:`SIGNAL_THRESHOLD`.
* **unscaled rows** (private, before training): a noisy count of the rows whose
  L2 norm exceeds :data:`ROW_NORM_LIMIT` times ``max(1, clip_norm)``, flagged
  when above half the public size plus two noise stds (so that noise alone
  flags a well-scaled table with probability below 2.3%). The
  defaults assume rows of norm about 1; at norm 100 every gradient is clipped
  100-fold, its intercept coordinate gets under 1% of it, and the columns of
  small scale vanish under the noise.
* **one predicted class** (private, after training): noisy counts of the
  classes the model predicts on its training rows; the warning says when the
  rows not in the top class are fewer than :data:`MINORITY_SHARE` of the public
  size plus one noise std (``sqrt(K - 1)`` times the counts' noise std, ``K``
  classes). With ``m mu`` in the hundreds (e.g. 455 rows at epsilon 1) the
  noise std is a tenth of ``m``, so a model predicting under 10% of its rows
  outside one class may be flagged.

The private checks are Gaussian mechanisms charged to the fit's privacy filter
before they read a row, on a public share :data:`DIAGNOSTICS_SHARE` of the
fit's ``mu^2`` (half each) taken from the training's share, so the fit's total
``epsilon_`` is unchanged (Dong, Roth & Su, "Gaussian differential privacy",
JRSS-B 2022: GDP composes as ``mu^2 = sum mu_i^2``). A full-batch adaptive fit
(DP-AGD, DP-BLGD) runs the count of predicted classes only, on the budget its
Rényi filter has left when the strategy stops (less than one iteration, so its
training is exactly that of a fit without the check), at the larger of the usual
noise multiplier and the one that remainder affords; it skips the check when
that would be more than :data:`SLACK_NOISE_LIMIT` times the usual (the warning's
threshold grows with the noise, so a noisier check would flag useful models).
The filter, at its fixed order, refuses the check if it would overspend
(Feldman & Zrnic, NeurIPS 2021). Sensitivities: a count of
rows meeting a condition changes by at most 1 when a row is added, removed or
replaced; the histogram of predicted classes by 1 in L2 under add/remove and
by ``sqrt(2)`` under replace-one (one row leaves a class, enters another).
The warnings quote only noisy values and public ones.
"""

import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_regressor

from .._base import linear_scores
from .._engine._rows import row_norms
from .._warnings import warn_once
from ..accounting import GaussianSteps
from ..exceptions import UtilityWarning, WeakPrivacyWarning

__all__ = [
    "DIAGNOSTICS_SHARE",
    "MINORITY_SHARE",
    "ROW_NORM_LIMIT",
    "SIGNAL_THRESHOLD",
    "SLACK_NOISE_LIMIT",
    "check_predictions",
    "check_row_norms",
    "noisy_class_counts",
    "slack_noise_multiplier",
    "diagnostics_noise_multiplier",
    "horizon_unit",
    "utility_checks",
    "warn_weak_delta",
    "warn_low_signal",
]

#: Share of the fit's ``mu^2`` spent on the two private diagnostics together.
DIAGNOSTICS_SHARE = 0.01
#: ``mu m / d'`` below which the default fit's accuracy was that of the majority
#: class (benchmarks/bench_utility.py).
SIGNAL_THRESHOLD = 0.5
#: Rows of norm above this (times ``max(1, clip_norm)``) count as unscaled.
ROW_NORM_LIMIT = 100.0
#: Warn when fewer than this share of the rows are predicted outside the top class.
MINORITY_SHARE = 0.02
#: An adaptive fit's check of the predicted classes runs on what its filter has
#: left only if that affords a noise multiplier at most this many times the usual.
SLACK_NOISE_LIMIT = 4.0
# L2 sensitivity of the histogram of predicted classes: one row added or
# removed changes one count by 1; replaced, it moves between two counts.
_HISTOGRAM_SENSITIVITY = {"add_remove": 1.0, "replace": math.sqrt(2.0)}


def diagnostics_noise_multiplier(mu):
    """Noise multiplier of each private diagnostic, for a fit of GDP budget ``mu``.

    Parameters
    ----------
    mu : float
        The fit's GDP budget, > 0.

    Returns
    -------
    z : float
        ``1 / (sqrt(DIAGNOSTICS_SHARE / 2) mu)``: each diagnostic is
        ``sqrt(DIAGNOSTICS_SHARE / 2) mu``-GDP (noise std ``z`` times its
        sensitivity), the two together ``sqrt(DIAGNOSTICS_SHARE) mu``.
    """
    return 1.0 / (math.sqrt(DIAGNOSTICS_SHARE / 2.0) * mu)


def slack_noise_multiplier(privacy_filter, noise_multiplier):
    """The noise multiplier a full-batch Gaussian check can run at on what is left.

    Parameters
    ----------
    privacy_filter : FixedOrderRenyiFilter
        An adaptive fit's filter after training.
    noise_multiplier : float
        The usual multiplier (:func:`diagnostics_noise_multiplier`).

    Returns
    -------
    z : float or None
        ``noise_multiplier`` if the remaining budget covers it; else the
        multiplier that spends the remainder (a Gaussian step's RDP scales as
        ``1 / z^2``), if at most :data:`SLACK_NOISE_LIMIT` times
        ``noise_multiplier``; else None (the check does not run).
    """
    remaining = privacy_filter.remaining()
    cost = privacy_filter.cost(GaussianSteps(noise_multiplier))
    if cost <= remaining:
        return noise_multiplier
    if remaining <= 0.0:
        return None
    z = noise_multiplier * math.sqrt(cost / remaining) * (1.0 + 1e-9)
    if z > SLACK_NOISE_LIMIT * noise_multiplier:
        return None
    return z if privacy_filter.cost(GaussianSteps(z)) <= remaining else None


def horizon_unit(mu, n_samples, n_features, n_outputs, fit_intercept):
    """The budget's signal-to-noise ``mu m / d'`` (public quantities only).

    Parameters
    ----------
    mu : float
        GDP budget of the fit, > 0.
    n_samples : int
        The public size ``m``.
    n_features, n_outputs : int
        Columns of ``X``; rows of ``coef_`` (1 for binary problems).
    fit_intercept : bool
        Whether the gradient has intercept coordinates.

    Returns
    -------
    u : float
        ``mu m / (n_outputs (n_features + fit_intercept))``.
    """
    dims = n_outputs * (n_features + int(bool(fit_intercept)))
    return mu * n_samples / dims


def warn_low_signal(unit, *, epsilon, n_samples, n_features, stacklevel):
    """Warn :class:`UtilityWarning` if the horizon unit is below the threshold."""
    if unit >= SIGNAL_THRESHOLD:
        return
    need = SIGNAL_THRESHOLD / unit
    warn_once(
        f"the budget is too small for this problem: mu m / d' = {unit:.2g} < "
        f"{SIGNAL_THRESHOLD:g} (epsilon={epsilon:g}, public size m={n_samples}, "
        f"{n_features} features), where the default fit's accuracy fell to that "
        "of the majority class. Multiply the rows or the GDP mu (about the "
        f"epsilon) by about {need:.2g}, or divide the features by it (select, "
        "hash or project them on public grounds).",
        UtilityWarning,
        stacklevel=stacklevel + 1,
        key=("low signal", round(unit, 2), epsilon),
    )


def _row_norms(X):
    if sp.issparse(X) or isinstance(X, np.ndarray) or not hasattr(X, "compute"):
        return row_norms(X)  # one pass, no n-by-d temporary
    return np.sqrt((X.astype(np.float64) ** 2).sum(axis=1))  # Dask: lazy, by chunk


def _computed(value):
    """A Dask result computed where its chunks live; NumPy values as they are."""
    return value.compute() if hasattr(value, "compute") else value


def check_row_norms(
    X, *, clip_norm, privacy_filter, noise_multiplier, rng, n_samples, stacklevel
):
    """Noisy count of the unscaled rows; warn if they are most of the data.

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` before
    reading ``X`` (sensitivity 1 under both neighbouring relations).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The private training rows.
    clip_norm : float
        The fit's clipping threshold.
    privacy_filter : GaussianPrivacyFilter
        The fit's filter (refuses the step if it would overspend).
    noise_multiplier : float
        Noise std of the count (:func:`diagnostics_noise_multiplier`).
    rng : numpy.random.Generator or SecureGenerator
        The fit's noise source.
    n_samples : int
        The public size ``m``.
    stacklevel : int
        Of the warning, relative to the caller.

    Returns
    -------
    noisy_count : float
        The noisy number of rows of norm above the limit (a private release).
    """
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    limit = ROW_NORM_LIMIT * max(1.0, float(clip_norm))
    count = int(_computed((_row_norms(X) > limit).sum()))
    noisy = count + noise_multiplier * float(rng.standard_normal())
    # Two noise stds of margin: on small data the count's noise alone (std
    # ``z``, tens of rows at epsilon 1) would otherwise flag well-scaled rows.
    if noisy > 0.5 * n_samples + 2.0 * noise_multiplier:
        warn_once(
            f"the rows look unscaled: a noisy count finds {noisy:.0f} of about "
            f"{n_samples} rows with norm above {limit:g}, so every gradient is "
            "clipped and columns of small scale drown in the noise. Scale the "
            "columns privately first (e.g. sklearn_dpgd.preprocessing."
            "DPStandardScaler with public bounds in a make_private_pipeline; "
            "Normalizer alone keeps the largest column dominant).",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="unscaled rows",
        )
    return noisy


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


def check_predictions(
    X,
    coef,
    intercept,
    *,
    neighboring,
    privacy_filter,
    noise_multiplier,
    rng,
    n_samples,
    stacklevel,
):
    """Noisy counts of the predicted classes on the training rows; warn if one.

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` before
    reading ``X`` (the model is already private: post-processing).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The private training rows.
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    neighboring : {"add_remove", "replace"}
    privacy_filter : GaussianPrivacyFilter
    noise_multiplier : float
        :func:`diagnostics_noise_multiplier`.
    rng : numpy.random.Generator or SecureGenerator
    n_samples : int
        The public size ``m``.
    stacklevel : int

    Returns
    -------
    counts : ndarray of shape (n_classes,)
        Noisy counts of the predicted classes (``classes_`` order).
    """
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    scores = linear_scores(X, coef) + np.asarray(intercept, dtype=np.float64)
    if scores.shape[1] == 1:
        predicted, n_classes = (scores[:, 0] > 0).astype(np.intp), 2
    else:
        predicted, n_classes = scores.argmax(axis=1), scores.shape[1]
    counts = noisy_class_counts(
        predicted,
        n_classes,
        neighboring=neighboring,
        noise_multiplier=noise_multiplier,
        rng=rng,
    )
    # The rows outside the top class; one noise std of margin, so that a true
    # zero is caught most of the time even where the noise is large next to
    # MINORITY_SHARE m (small m or budget).
    others = float(counts.sum() - counts.max())
    std = _HISTOGRAM_SENSITIVITY[neighboring] * noise_multiplier
    if others < MINORITY_SHARE * n_samples + std * math.sqrt(n_classes - 1):
        warn_once(
            "the model predicts one class for almost every training row (noisy "
            "counts of the predicted classes: "
            f"{np.clip(np.round(counts), 0, None).astype(int)}), "
            "like a majority-class guess. Usual causes: columns of very "
            "different scales (scale them privately, e.g. DPStandardScaler "
            "with public bounds), or a budget too small for the rows and "
            "features (raise epsilon, add rows, drop features).",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="one class",
        )
    return counts


def utility_checks(
    est, X, *, n_outputs, mu, mu_train, adaptive, rng, n_samples, sampling_rate=1.0
):
    """Run the free check; plan the private diagnostics of a gradient-descent fit.

    Parameters
    ----------
    est : DPLogisticRegression, DPHuberSVM or a regressor
        The estimator being fitted (its public parameters only). Regressors get
        neither check (``(None, mu_train)``).
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
        The private rows (read only by the diagnostics, after their charge).
    n_outputs : int
    mu, mu_train : float
        The fit's GDP budget and what is left of it for the training.
    adaptive : bool
        Whether the schedule is adaptive.
    rng : numpy.random.Generator or SecureGenerator
    n_samples : int
        The public size ``m``.
    sampling_rate : float, default=1.0
        The adaptive schedule's sampling rate (1.0 for other schedules).

    Returns
    -------
    hooks : tuple (before, after) or None
        ``before(privacy_filter=..., clip_norm=...)`` (the unscaled-row count,
        run on the training's filter before the steps; None for adaptive fits)
        and ``after(coef, intercept, privacy_filter=...)`` (the predicted
        classes, after them; for adaptive fits on what the filter has left,
        :func:`slack_noise_multiplier`); None when ``utility_diagnostics=False``
        or the fit is not full-batch (subsampled fits spend the whole budget on
        training; Dask input is counted chunk by chunk).
    mu_train : float
        The training's GDP budget, less :data:`DIAGNOSTICS_SHARE` of ``mu^2``
        when the diagnostics of a data-independent schedule run.
    """
    if is_regressor(est):
        # Both checks are calibrated on classifiers (the majority class is their
        # floor): a regressor runs neither, and its budget all goes to training.
        return None, mu_train
    unit = horizon_unit(mu, n_samples, X.shape[1], n_outputs, est.fit_intercept)
    warn_low_signal(
        unit,
        epsilon=float(est.epsilon),
        n_samples=n_samples,
        n_features=X.shape[1],
        stacklevel=5,
    )
    # Full batch: no batch_size, or one that samples every row (rate 1).
    full_batch = est.batch_size is None or est.batch_size >= n_samples
    if not (est.utility_diagnostics and full_batch and sampling_rate >= 1.0):
        return None, mu_train
    z = diagnostics_noise_multiplier(mu)
    if adaptive:
        # The strategy spends its filter until the next iteration no longer
        # fits: the check runs on the remainder, after training, which it leaves
        # as it is (same budget, same noise draws).
        def after_adaptive(coef, intercept, *, privacy_filter):
            z_left = slack_noise_multiplier(privacy_filter, z)
            if z_left is None:
                return None
            return check_predictions(
                X,
                coef,
                intercept,
                neighboring=est.neighboring,
                privacy_filter=privacy_filter,
                noise_multiplier=z_left,
                rng=rng,
                n_samples=n_samples,
                stacklevel=7,
            )

        return (None, after_adaptive), mu_train
    common = {"noise_multiplier": z, "rng": rng, "n_samples": n_samples}

    def before(*, privacy_filter, clip_norm):
        check_row_norms(
            X,
            clip_norm=clip_norm,
            privacy_filter=privacy_filter,
            stacklevel=6,
            **common,
        )

    def after(coef, intercept, *, privacy_filter):
        check_predictions(
            X,
            coef,
            intercept,
            neighboring=est.neighboring,
            privacy_filter=privacy_filter,
            stacklevel=7,
            **common,
        )

    return (before, after), math.sqrt(mu_train**2 - DIAGNOSTICS_SHARE * mu**2)


def warn_weak_delta(delta, public_size):
    """Warn :class:`WeakPrivacyWarning` if ``delta >= 1 / public_size``."""
    if delta >= 1.0 / public_size:
        warn_once(
            f"delta={delta:g} >= 1/public_n_samples_={1.0 / public_size:.3g}"
            ": a mechanism that publishes a random row meets this delta, so the "
            "guarantee is too weak to protect individuals. Use delta << 1/n.",
            WeakPrivacyWarning,
            stacklevel=3,
            # The quoted size is per fit (a noisy count): once per delta.
            key=("weak delta", delta),
        )
