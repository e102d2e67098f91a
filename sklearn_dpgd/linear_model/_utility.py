"""Utility diagnostics of a private linear fit: warn when it is likely useless.

A private fit can spend its whole budget and return a model no better than
predicting the majority class, silently. Two warnings, each a
:class:`~sklearn_dpgd.exceptions.UtilityWarning` that names the cause and the
remedy (issue 31), measured for precision and recall
(``benchmarks/bench_utility_warnings.py``, issue 43: on 480 fits over breast
cancer raw, standardised and the private recipe, digits, iris, Adult, Bank and
synthetic data at epsilon 0.1 to 3, 4% of the fits 5 points or more above the
majority class were warned, and 87% of the fits at most 1 point above it;
``benchmarks/results/utility_warnings.md``):

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
* **no more accurate than the majority class** (private, after training):
  for each class ``k``, a noisy count of the training rows the model predicts
  right less the rows of class ``k`` (:func:`noisy_accuracy_gains`); their
  minimum is the model's gain over the majority class, and the warning fires
  when that gain plus a one-sided margin (:data:`GAIN_FALSE_ALARM`, union
  bound over the ``K`` gains) is below :data:`USEFUL_GAIN` of the public size
  (a model 5 points more accurate than the majority class is warned at most
  1% of the time). It catches models that predict both classes but no more
  accurately than the constant predictor (Bank, 10,000 rows, epsilon 1 and
  3), which the histogram cannot see; it degrades by itself: with noise large
  next to ``USEFUL_GAIN m`` it is silent. It shares the class check's budget
  (:data:`GAIN_PART` of it) with the histogram.
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
accuracy gains) taken from the training's share, so the fit's total
``epsilon_`` is unchanged (Dong, Roth & Su, "Gaussian differential privacy",
JRSS-B 2022: GDP composes as ``mu^2 = sum mu_i^2``). A full-batch adaptive fit
(DP-AGD, DP-BLGD) runs the accuracy gains only, on the budget its
Rényi filter has left when the strategy stops (less than one iteration, so its
training is exactly that of a fit without the check), at the larger of the usual
noise multiplier and the one that remainder affords; it skips the check when
that would be more than :data:`SLACK_NOISE_LIMIT` times the usual (the check
would then give no verdict anyway).
The filter, at its fixed order, refuses the check if it would overspend
(Feldman & Zrnic, NeurIPS 2021). Sensitivities: a count of
rows meeting a condition changes by at most 1 when a row is added, removed or
replaced; the ``K`` accuracy gains by ``sqrt(K - 1)`` in L2 under add/remove
and by ``sqrt(K + 2)`` under replace-one (:func:`gain_sensitivity`).
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
from ._prediction_checks import (
    CONCLUSIVE_NOISE_SHARE,
    GAIN_FALSE_ALARM,
    GAIN_PART,
    MINORITY_SHARE,
    ROW_NORM_LIMIT,
    USEFUL_GAIN,
    _computed,
    check_predictions,
    gain_sensitivity,
    noisy_accuracy_gains,
    noisy_class_counts,
)

__all__ = [
    "DIAGNOSTICS_SHARE",
    "ROW_COUNT_PART",
    "MULTICLASS_SIGNAL_THRESHOLD",
    "NARROW_TARGET_SPREAD",
    "NARROW_ROW_SHARE",
    "WIN_SHARE",
    "CENTRE_PART",
    "ROW_NORM_LIMIT",
    "SIGNAL_THRESHOLD",
    "SLACK_NOISE_LIMIT",
    "CONCLUSIVE_NOISE_SHARE",
    "MINORITY_SHARE",
    "USEFUL_GAIN",
    "GAIN_FALSE_ALARM",
    "GAIN_PART",
    "check_predictions",
    "check_residuals",
    "check_row_norms",
    "gain_sensitivity",
    "noisy_class_counts",
    "noisy_accuracy_gains",
    "slack_noise_multiplier",
    "diagnostics_noise_multiplier",
    "horizon_unit",
    "utility_checks",
    "warn_weak_delta",
    "warn_low_signal",
]

#: Share of the fit's ``mu^2`` spent on the two private diagnostics together.
#: 0.1 (the training's ``mu`` loses 5%): at 0.01 the counts' noise was tens of
#: rows on a few hundred, and the class check could not tell a useful model
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
#: A regressor's "far" rows: farther than this share of the half-width of
#: ``y_bounds`` from the scaled target's mean.
NARROW_TARGET_SPREAD = 0.1
#: A regressor warns that the target fills a small part of ``y_bounds`` when
#: surely (1.64 noise stds) fewer than this share of its rows lie farther than
#: :data:`NARROW_TARGET_SPREAD` from the (noisy) mean of the scaled target.
NARROW_ROW_SHARE = 0.3
#: A regressor warns that it is worse than a constant when it surely predicts
#: fewer than this share of its rows better than the target's (noisy) mean (on
#: diabetes, models at R^2 -3.5 to -12 won on 17-32% of the rows, at 0.2-0.45
#: on 57-66%).
WIN_SHARE = 0.45
#: Part of a regressor's check (``mu^2``) spent on the sum that centres it.
CENTRE_PART = 0.2
# Two counts of rows: each moves by at most 1 when a row is added, removed or
# replaced.
_COUNTS_SENSITIVITY = math.sqrt(2.0)
#: An adaptive fit's check of the predicted classes runs on what its filter has
#: left only if that affords a noise multiplier at most this many times the usual.
SLACK_NOISE_LIMIT = 17.0


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
    """Noisy counts of a regressor's rows: warn if the model loses to the mean.

    Charges ``privacy_filter`` one Gaussian step of ``noise_multiplier`` ``z``
    before reading ``X`` or ``y`` (the model is already private:
    post-processing), for two releases in sequence that together are one
    Gaussian mechanism of ``z`` (GDP budgets compose by their squares, also
    adaptively): with ``v`` the scaled target in ``[-1, 1]``,

    1. the sum of ``v`` at noise multiplier ``z / sqrt(CENTRE_PART)``
       (sensitivity 1 under add/remove, 2 under replace-one), whose noisy mean
       ``c`` centres the counts;
    2. two counts at ``z / sqrt(1 - CENTRE_PART)``: the rows with
       ``|v - c| > NARROW_TARGET_SPREAD`` ("far" rows) and the rows the model
       predicts better than the constant ``c``, ``|v - clip(x . w + b)| <
       |v - c|`` ("wins"). One row moves each count by at most 1, added,
       removed or replaced: L2 sensitivity ``sqrt(2)`` under both relations.

    Counts of rows, not sums of squared residuals: a row adds at most 1 to a
    count whose signal is a share of all rows, where a sum of squares in
    ``y_bounds`` units adds up to 4 and its signal shrinks with the target's
    spread (on diabetes, 331 rows, the former sums' noise exceeded the signal
    and fits at R^2 -5 to -150,000 passed silently). The warnings fire when a
    count plus two noise stds is below a share of the public size
    (:data:`NARROW_ROW_SHARE` of far rows: the target fills a small part of
    ``y_bounds``; :data:`WIN_SHARE` of wins: the model is worse than the
    constant on most rows), so chance alone fires each with probability below
    5% where the count is at its share.

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
        ``z``, of the two releases together.
    rng : numpy.random.Generator or SecureGenerator
    n_samples : int
        The public size ``m``.
    stacklevel : int

    Returns
    -------
    far, wins : float
        The noisy counts (private releases).
    """
    privacy_filter.charge(GaussianSteps(noise_multiplier))
    z_centre = noise_multiplier / math.sqrt(CENTRE_PART)
    z_counts = noise_multiplier / math.sqrt(1.0 - CENTRE_PART)
    v = np.clip(y, -1.0, 1.0)
    noisy_sum = float(_computed(v.sum())) + (
        SENSITIVITY_FACTOR[neighboring] * z_centre * float(rng.standard_normal())
    )
    centre = min(1.0, max(-1.0, noisy_sum / n_samples))
    scores = linear_scores(X, coef)[:, 0] + float(np.asarray(intercept)[0])
    spread = np.abs(v - centre)
    counts = np.array(
        [
            _computed((spread > NARROW_TARGET_SPREAD).sum()),
            _computed((np.abs(v - np.clip(scores, -1.0, 1.0)) < spread).sum()),
        ],
        dtype=float,
    )
    std = _COUNTS_SENSITIVITY * z_counts
    far, wins = counts + std * np.asarray(rng.standard_normal(2), dtype=float)
    if far + 1.64 * std < NARROW_ROW_SHARE * n_samples:
        warn_once(
            "the target fills a small part of y_bounds: a noisy count finds "
            f"{max(far, 0.0):.0f} of about {n_samples} rows (noise std "
            f"{std:.2g}) farther than {NARROW_TARGET_SPREAD:g} of the bounds' "
            "half-width from the target's mean, so its signal is a small share "
            "of what the bounds allow and the noise dominates the fit. Declare "
            "public y_bounds close to the target's real range (from its "
            "meaning, not from the data).",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="narrow target",
        )
    elif wins + 1.64 * std < WIN_SHARE * n_samples:
        warn_once(
            "the model is worse than predicting a constant on its training rows: "
            f"a noisy count finds it closer to the target than the target's mean "
            f"on {max(wins, 0.0):.0f} of about {n_samples} rows (noise std "
            f"{std:.2g}). Usual causes: y_bounds much wider than the target "
            "(declare public bounds close to its real range), columns of very "
            "different scales (scale them privately, e.g. DPStandardScaler), or "
            "a budget too small for the rows and features.",
            UtilityWarning,
            stacklevel=stacklevel + 1,
            key="constant predictor",
        )
    return far, wins


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
    y,
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
    y : ndarray of shape (n_samples,)
        The private labels: a classifier's class indices, a regressor's scaled
        target (read only by the checks, after their charge).

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
                y,
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
            y,
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
