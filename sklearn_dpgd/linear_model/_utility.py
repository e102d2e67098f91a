"""Utility diagnostics of a private linear fit: warn when it is likely useless.

A private fit can spend its whole budget and return a model no better than
predicting the majority class, silently. Two warnings, each a
:class:`~sklearn_dpgd.exceptions.UtilityWarning` that names the cause and the
remedy (issue 31), measured for precision and recall
(``benchmarks/bench_utility_warnings.py``, issue 43: on 144 fits over breast
cancer raw, standardised and the private recipe, digits, iris, Adult, Bank and
synthetic data at epsilon 0.1 to 3, 3% of the fits 5 points or more above the
majority class were warned, and 86% of the fits at most 1 point above it):

* **the budget's signal-to-noise** (free: public quantities only): the unit
  ``u = mu m / d'`` (``mu`` the fit's GDP budget, ``m`` its public size,
  ``d' = n_features + fit_intercept``). Measured on synthetic binary problems
  across ``n`` from 300 to 10,000, ``d`` from 2 to 1,000 and ``epsilon``
  from 0.1 to 3 (``benchmarks/bench_utility.py``), the default fit's accuracy
  was at most 6 points above the majority class at every ``u < 0.5``, and
  mostly 8 to 37 points above it from ``u = 1``; on breast cancer fits at
  ``u`` of 0.42 to 0.49 were 20 points above it, hence
  :data:`SIGNAL_THRESHOLD` 0.4. Multiclass fits (whose majority class is
  near ``1 / K``) have their own threshold on the same unit,
  :data:`MULTICLASS_SIGNAL_THRESHOLD` (digits was useful at 0.6 and iris at
  0.45; counting the ``K`` coefficient rows in ``d'``, as before, called
  digits fits at 0.71-0.87 accuracy majority-class guesses).
* **one predicted class** (private, after training): noisy counts of the
  classes the model predicts on its training rows; the warning says when the
  rows not in the top class are fewer than :data:`MINORITY_SHARE` of the public
  size plus 1.28 times their noise std (``sqrt(K - 1)`` times the counts'
  noise std, ``K`` classes: a true zero is caught 90% of the time). Where
  that std exceeds :data:`CONCLUSIVE_NOISE_SHARE` of the public size, the
  check gives no verdict: a model predicting a fifth of its rows outside the
  top class could not be told from a majority-class guess (on a few hundred
  rows the noise is tens of rows; the former check, without this rule,
  flagged accurate iris and breast-cancer fits).
* **unscaled rows** (private, before training): a noisy count of the rows whose
  L2 norm exceeds :data:`ROW_NORM_LIMIT` times ``max(1, clip_norm)``, flagged
  when above half the public size plus two noise stds (so that noise alone
  flags a well-scaled table with probability below 2.3%). At norm 100 every
  gradient is clipped 100-fold and the columns of small scale vanish under
  the noise; but models on such rows can be useful (raw breast cancer), so
  the finding is named as the cause in the one-class warning, not warned
  alone.

The private checks are Gaussian mechanisms charged to the fit's privacy filter
before they read a row, on a public share :data:`DIAGNOSTICS_SHARE` of the
fit's ``mu^2`` (:data:`ROW_COUNT_PART` of it for the row count, the rest for the
predicted classes) taken from the training's share, so the fit's total
``epsilon_`` is unchanged (Dong, Roth & Su, "Gaussian differential privacy",
JRSS-B 2022: GDP composes as ``mu^2 = sum mu_i^2``). A full-batch adaptive fit
(DP-AGD, DP-BLGD) runs the count of predicted classes only, on the budget its
Rényi filter has left when the strategy stops (less than one iteration, so its
training is exactly that of a fit without the check), at the larger of the usual
noise multiplier and the one that remainder affords; it skips the check when
that would be more than :data:`SLACK_NOISE_LIMIT` times the usual (the check
would then give no verdict anyway).
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
from .._public_size import SENSITIVITY_FACTOR
from .._warnings import warn_once
from ..accounting import GaussianSteps
from ..exceptions import UtilityWarning, WeakPrivacyWarning

__all__ = [
    "DIAGNOSTICS_SHARE",
    "ROW_COUNT_PART",
    "CONCLUSIVE_NOISE_SHARE",
    "MINORITY_SHARE",
    "MULTICLASS_SIGNAL_THRESHOLD",
    "NARROW_TARGET_SPREAD",
    "ROW_NORM_LIMIT",
    "SIGNAL_THRESHOLD",
    "SLACK_NOISE_LIMIT",
    "check_predictions",
    "check_residuals",
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
#: 0.05 (the training's ``mu`` loses 2.5%): at 0.01 the counts' noise was tens
#: of rows on a few hundred, and the class check could not tell a useful model
#: from a majority-class guess (benchmarks/bench_utility_warnings.py).
DIAGNOSTICS_SHARE = 0.1
#: Part of :data:`DIAGNOSTICS_SHARE` that goes to the unscaled-row count (the
#: rest to the predicted classes): it compares with half the rows and needs
#: little precision.
ROW_COUNT_PART = 0.2
#: ``mu m / d'`` below which the default binary fit's accuracy was that of the
#: majority class (benchmarks/bench_utility.py; 0.4 by
#: benchmarks/bench_utility_warnings.py: fits at 0.42-0.49 on breast cancer were
#: 20 points above it).
SIGNAL_THRESHOLD = 0.4
#: The same for multiclass fits, on ``mu m / (n_features + fit_intercept)``:
#: digits (10 classes) was 16-22 points above the majority at 0.6 and 4-12
#: points at 0.2; iris (3 classes) 20-50 points at 0.45-0.9.
MULTICLASS_SIGNAL_THRESHOLD = 0.2
#: The check of the predicted classes warns only where its noise std (over the
#: rows outside the top class) is at most this share of the public size: with
#: more noise, a useful model predicting a fifth of its rows outside the top
#: class cannot be told from a majority-class guess.
CONCLUSIVE_NOISE_SHARE = 0.1
#: Rows of norm above this (times ``max(1, clip_norm)``) count as unscaled.
ROW_NORM_LIMIT = 100.0
#: Warn when fewer than this share of the rows are predicted outside the top class.
MINORITY_SHARE = 0.02
#: A regressor warns when its scaled target's spread (root-mean-square distance
#: to its mean) is surely below this share of the half-width of ``y_bounds``.
NARROW_TARGET_SPREAD = 0.1
#: An adaptive fit's check of the predicted classes runs on what its filter has
#: left only if that affords a noise multiplier at most this many times the usual.
SLACK_NOISE_LIMIT = 17.0
# L2 sensitivity of the histogram of predicted classes: one row added or
# removed changes one count by 1; replaced, it moves between two counts.
_HISTOGRAM_SENSITIVITY = {"add_remove": 1.0, "replace": math.sqrt(2.0)}


def diagnostics_noise_multiplier(mu, part=1.0 - ROW_COUNT_PART):
    """Noise multiplier of a private diagnostic, for a fit of GDP budget ``mu``.

    Parameters
    ----------
    mu : float
        The fit's GDP budget, > 0.
    part : float, default=1 - ROW_COUNT_PART
        The diagnostic's part of :data:`DIAGNOSTICS_SHARE`: the predicted
        classes' by default, :data:`ROW_COUNT_PART` for the unscaled-row count.

    Returns
    -------
    z : float
        ``1 / (sqrt(part DIAGNOSTICS_SHARE) mu)``: the diagnostic is
        ``sqrt(part DIAGNOSTICS_SHARE) mu``-GDP (noise std ``z`` times its
        sensitivity); the two parts together are ``sqrt(DIAGNOSTICS_SHARE) mu``
        (Gaussian DP composes as ``mu^2 = sum mu_i^2``).
    """
    return 1.0 / (math.sqrt(part * DIAGNOSTICS_SHARE) * mu)


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


def warn_low_signal(
    unit, *, epsilon, n_samples, n_features, stacklevel, threshold=SIGNAL_THRESHOLD
):
    """Warn :class:`UtilityWarning` if the horizon unit is below ``threshold``."""
    if unit >= threshold:
        return
    need = threshold / unit
    warn_once(
        f"the budget is too small for this problem: mu m / d' = {unit:.2g} < "
        f"{threshold:g} (epsilon={epsilon:g}, public size m={n_samples}, "
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
    """Noisy count of the unscaled rows (a cause the class check may name).

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` before
    reading ``X`` (sensitivity 1 under both neighbouring relations). It warns
    nothing itself: rows of large norm make every gradient clipped, but a model
    trained on them can still be useful (raw breast-cancer rows, norms in the
    hundreds, gave models 22-32 points above the majority class, where the
    standalone warning fired on all of them); the check of the predicted classes
    (:func:`check_predictions`) names the unscaled rows as the likely cause when
    it finds one class.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The private training rows.
    clip_norm : float
        The fit's clipping threshold.
    privacy_filter : GaussianPrivacyFilter
        The fit's filter (refuses the step if it would overspend).
    noise_multiplier : float
        Noise std of the count (:func:`diagnostics_noise_multiplier` with
        :data:`ROW_COUNT_PART`).
    rng : numpy.random.Generator or SecureGenerator
        The fit's noise source.
    n_samples : int
        The public size ``m``.
    stacklevel : int
        Unused (kept for the callers' uniform signature).

    Returns
    -------
    noisy_count : float or None
        The noisy number of rows of norm above the limit (a private release) if
        above half the public size plus two noise stds (so that noise alone
        flags a well-scaled table with probability below 2.3%), else None.
    """
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    limit = ROW_NORM_LIMIT * max(1.0, float(clip_norm))
    count = int(_computed((_row_norms(X) > limit).sum()))
    noisy = count + noise_multiplier * float(rng.standard_normal())
    # Two noise stds of margin: on small data the count's noise alone (std
    # ``z``, tens of rows at epsilon 1) would otherwise flag well-scaled rows.
    if noisy > 0.5 * n_samples + 2.0 * noise_multiplier:
        return noisy
    return None


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
    unscaled_count=None,
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
    unscaled_count : float or None, default=None
        The noisy count of unscaled rows (:func:`check_row_norms`), named as the
        likely cause when one class is found; None if the rows looked scaled.

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
    # The rows outside the top class. Where their noise is large next to m, a
    # useful model cannot be told from a majority-class guess: no verdict.
    # Else 1.28 noise stds of margin: a true zero is flagged 90% of the time.
    others = float(counts.sum() - counts.max())
    std = _HISTOGRAM_SENSITIVITY[neighboring] * noise_multiplier
    std_others = std * math.sqrt(n_classes - 1)
    if std_others > CONCLUSIVE_NOISE_SHARE * n_samples:
        return counts
    if others < MINORITY_SHARE * n_samples + 1.28 * std_others:
        if unscaled_count is not None:
            cause = (
                f"The rows look unscaled: a noisy count finds {unscaled_count:.0f} "
                f"of about {n_samples} rows with norm above {ROW_NORM_LIMIT:g} "
                "times the clipping norm, so every gradient is clipped and the "
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
        warn_once(
            "the model predicts one class for almost every training row (noisy "
            "counts of the predicted classes: "
            f"{np.clip(np.round(counts), 0, None).astype(int)}, noise std "
            f"{std:.2g} each), like a majority-class guess. " + cause,
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="one class" if unscaled_count is None else "unscaled rows",
        )
    return counts


def check_residuals(
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
):
    """Noisy residual check of a regressor: warn if no better than a constant.

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` before
    reading ``X`` or ``y`` (the model is already private: post-processing), then
    releases the sums over the rows of ``(v, v^2, e^2 / 4)``, with ``v`` the
    scaled target in ``[-1, 1]`` and ``e = v - clip(x . w + b, -1, 1)`` the
    residual in ``[-2, 2]``: one row's vector has L2 norm at most ``sqrt(3)``,
    the sensitivity under add/remove (twice it under replace-one). From them
    (post-processing): the constant predictor's squared error
    ``SS_tot = S2 - S1^2 / m`` and the model's ``SS_res = 4 S3``, whose
    difference ``D`` has noise std ``sigma sqrt(17 + 4 mean^2)`` (``sigma``
    the noise std of each sum). The warning fires when ``D`` is below minus
    two of its stds (the model is worse than the constant: a model at least as
    good is flagged with probability below 2.3%), or when ``D < 0`` and its
    std is at most half of ``SS_tot`` (a conclusive "no better"). Before
    those, a warning that ``y_bounds`` is too wide fires when ``SS_tot`` plus
    two of its noise stds is below ``NARROW_TARGET_SPREAD^2 m``: the target's
    spread is then surely under a tenth of the bounds' half-width, where the
    residuals in these units are too small for the noise to show them.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The private training rows.
    y : ndarray of shape (n_samples,)
        The private scaled target, in ``[-1, 1]``.
    coef : ndarray of shape (1, n_features)
    intercept : ndarray of shape (1,)
        The released model in the scaled target's units.
    neighboring : {"add_remove", "replace"}
    privacy_filter : GaussianPrivacyFilter
    noise_multiplier : float
        Noise std of each sum in units of the sensitivity.
    rng : numpy.random.Generator or SecureGenerator
    n_samples : int
        The public size ``m``.
    stacklevel : int

    Returns
    -------
    r2 : float or None
        The noisy R^2 ``1 - SS_res / SS_tot`` on the training rows (a private
        release), None when the noisy ``SS_tot`` is not positive.
    """
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    scores = linear_scores(X, coef)[:, 0] + float(np.asarray(intercept)[0])
    v = np.clip(y, -1.0, 1.0)
    e = v - np.clip(scores, -1.0, 1.0)
    sums = np.array(
        [_computed(v.sum()), _computed((v * v).sum()), _computed((e * e).sum()) / 4.0],
        dtype=float,
    )
    sigma = SENSITIVITY_FACTOR[neighboring] * math.sqrt(3.0) * noise_multiplier
    s1, s2, s3 = sums + sigma * np.asarray(rng.standard_normal(3), dtype=float)
    mean = min(1.0, max(-1.0, s1 / n_samples))
    ss_tot, ss_res = s2 - mean * s1, 4.0 * s3
    gap = ss_tot - ss_res
    gap_std = sigma * math.sqrt(17.0 + 4.0 * mean * mean)
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else None
    worse = gap < -2.0 * gap_std
    no_better = gap < 0 and gap_std <= 0.5 * max(ss_tot, 0.0)
    # The target's spread around its mean, sure (two noise stds) to be under a
    # tenth of the bounds' half-width: the gradients' signal is then under a
    # tenth of what the bounds allow, and a residual check in these units
    # cannot see errors that are large next to the target's own spread.
    tot_std = sigma * math.sqrt(1.0 + 4.0 * mean * mean)
    if ss_tot + 2.0 * tot_std < NARROW_TARGET_SPREAD**2 * n_samples:
        warn_once(
            "the target fills a small part of y_bounds: a noisy estimate puts the "
            f"spread of the scaled target below {NARROW_TARGET_SPREAD:g} of the "
            "bounds' half-width, so its signal is under that share of what the "
            "bounds allow and the noise dominates the fit. Declare public "
            "y_bounds close to the target's real range (from its meaning, not "
            "from the data).",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="narrow target",
        )
    elif worse or no_better:
        quoted = "" if r2 is None else f"noisy R^2 {r2:.2g}, "
        warn_once(
            "the model is no better than predicting a constant on its training "
            f"rows ({quoted}noisy squared errors {max(ss_res, 0.0):.3g} against "
            f"{max(ss_tot, 0.0):.3g} for the mean, noise std {gap_std:.2g}, in "
            "units of the scaled target). Usual causes: y_bounds much wider than "
            "the target (the scaled target then sits near 0, under the noise: "
            "declare public bounds close to its real range), columns of very "
            "different scales (scale them privately, e.g. DPStandardScaler), or "
            "a budget too small for the rows and features.",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="constant predictor",
        )
    return r2


def _regression_checks(
    est, X, y, *, mu, mu_train, adaptive, rng, n_samples, sampling_rate
):
    """The residual check of a regressor's full-batch fit (the only one it runs).

    The whole :data:`DIAGNOSTICS_SHARE` goes to it (no row count: a regressor's
    warning has no class to name a cause for); adaptive fits run it on what
    their filter left, as the classifiers' class check.
    """
    full_batch = est.batch_size is None or est.batch_size >= n_samples
    if not (est.utility_diagnostics and full_batch and sampling_rate >= 1.0):
        return None, mu_train
    z = diagnostics_noise_multiplier(mu, part=1.0)

    def after(coef, intercept, *, privacy_filter):
        z_used = slack_noise_multiplier(privacy_filter, z) if adaptive else z
        if z_used is None:
            return None
        return check_residuals(
            X, y, coef, intercept, neighboring=est.neighboring,
            privacy_filter=privacy_filter, noise_multiplier=z_used, rng=rng,
            n_samples=n_samples, stacklevel=7,
        )  # fmt: skip

    if adaptive:
        return (None, after), mu_train
    return (None, after), math.sqrt(mu_train**2 - DIAGNOSTICS_SHARE * mu**2)


def utility_checks(
    est,
    X,
    *,
    n_outputs,
    mu,
    mu_train,
    adaptive,
    rng,
    n_samples,
    sampling_rate=1.0,
    y=None,
):
    """Run the free check; plan the private diagnostics of a gradient-descent fit.

    Parameters
    ----------
    est : DPLogisticRegression, DPHuberSVM or a regressor
        The estimator being fitted (its public parameters only). Regressors run
        the residual check only (:func:`check_residuals`, after training).
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
    y : ndarray of shape (n_samples,) or None, default=None
        A regressor's private scaled target (read only by its check, after its
        charge).

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
        return _regression_checks(
            est, X, y, mu=mu, mu_train=mu_train, adaptive=adaptive, rng=rng,
            n_samples=n_samples, sampling_rate=sampling_rate,
        )  # fmt: skip
    # Multiclass fits: the unit per coefficient row (n_outputs left out), on
    # their own measured threshold (the majority class is 1 / K or so there).
    multiclass = n_outputs > 1
    unit = horizon_unit(mu, n_samples, X.shape[1], 1, est.fit_intercept)
    warn_low_signal(
        unit,
        threshold=MULTICLASS_SIGNAL_THRESHOLD if multiclass else SIGNAL_THRESHOLD,
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
    common = {"rng": rng, "n_samples": n_samples}
    z_rows = diagnostics_noise_multiplier(mu, ROW_COUNT_PART)

    unscaled = {}  # the row count's finding, named by the class check

    def before(*, privacy_filter, clip_norm):
        unscaled["count"] = check_row_norms(
            X,
            clip_norm=clip_norm,
            privacy_filter=privacy_filter,
            noise_multiplier=z_rows,
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
            noise_multiplier=z,
            stacklevel=7,
            unscaled_count=unscaled.get("count"),
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
