"""Empirical privacy audit: a statistical lower bound on a fit's epsilon.

:func:`audit` fits an estimator many times on two neighbouring data sets, ``D``
and ``D'`` (``D`` with a *canary* row added, or one row replaced by it), reduces
each fitted model to a number (a *statistic*), and turns the error rates of the
best threshold test between the two worlds into a lower bound on the epsilon and
on the GDP parameter mu that the fit can satisfy (the hypothesis-testing view of
differential privacy: Kairouz, Oh & Viswanath, ICML 2015, Thm 2.1; Dong, Roth &
Su, JRSS-B 2022, Def. 2.1 and Thm 2.7). A lower bound above the claimed value is
proof (at the stated confidence) that the claim is false; a lower bound close to
it shows that the accounting is tight for this attack. The method is that of
Jagielski, Ullman & Oprea (NeurIPS 2020: Monte Carlo fits, Clopper-Pearson
bounds on the error rates) and Nasr, Song, Thakurta, Papernot & Carlini (IEEE S&P
2021: the worst-case, white-box canary), with the GDP estimate of Nasr, Hayes,
Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis (USENIX Security 2023). The
default canary sits in a column of its own and, where the estimator takes a
public start, starts far on its wrong side, so that its clipped gradient is the
clip norm at every step and the released coefficient is a linear image of the
noisy steps in its column: the threshold test on it is then the likelihood-ratio
test of the pair. See the user guide, "Auditing a fit".
"""

import inspect
import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import beta, norm
from sklearn.base import clone, is_regressor
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state, column_or_1d
from tqdm.auto import tqdm

from ._validation import check_array
from .accounting import gdp_mu
from .exceptions import PrivacyLeakWarning, WeakPrivacyWarning
from .pipeline import PrivatePipeline

__all__ = [
    "AuditResult",
    "audit",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "mu_lower_bound",
]


def clopper_pearson_upper(k, n, confidence=0.95):
    """Upper end of the two-sided Clopper-Pearson interval of a binomial rate.

    Parameters
    ----------
    k : int
        Number of successes, ``0 <= k <= n``.
    n : int
        Number of trials, ``n >= 1``.
    confidence : float, default=0.95
        Level of the two-sided interval; its upper end is a one-sided bound at
        level ``(1 + confidence) / 2``.

    Returns
    -------
    upper : float
        The ``(1 + confidence) / 2`` quantile of ``Beta(k + 1, n - k)`` (1.0 if
        ``k == n``): Clopper & Pearson, Biometrika 1934.

    Raises
    ------
    ValueError
        If ``n < 1``, ``k`` is outside ``[0, n]`` or ``confidence`` outside
        ``(0, 1)``.
    """
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"k and n must satisfy 0 <= k <= n and n >= 1; got {k}, {n}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}.")
    if k == n:
        return 1.0
    return float(beta.ppf(1.0 - (1.0 - confidence) / 2.0, k + 1, n - k))


def epsilon_lower_bound(fpr, fnr, delta):
    """Epsilon that a test with these error rates proves, at a given delta.

    An ``(epsilon, delta)``-DP mechanism allows no test of ``D`` against ``D'``
    with ``FPR + e^epsilon FNR < 1 - delta`` or ``FNR + e^epsilon FPR < 1 -
    delta`` (Kairouz, Oh & Viswanath, ICML 2015, Thm 2.1). Given upper bounds on
    the two rates, this is the largest epsilon they rule out.

    Parameters
    ----------
    fpr, fnr : float
        (Upper bounds on) the false-positive and false-negative rates, in
        ``[0, 1]``.
    delta : float
        The delta of the claim, in ``[0, 1)``.

    Returns
    -------
    epsilon : float
        ``max(log((1 - delta - fnr) / fpr), log((1 - delta - fpr) / fnr), 0)``;
        ``inf`` if a rate is 0 and the other below ``1 - delta``.
    """
    bounds = [0.0]
    for a, b in ((fnr, fpr), (fpr, fnr)):
        numerator = 1.0 - delta - a
        if numerator > 0.0:
            bounds.append(math.inf if b <= 0.0 else math.log(numerator / b))
    return max(bounds)


def mu_lower_bound(fpr, fnr):
    """GDP mu that a test with these error rates proves.

    A mu-GDP mechanism has trade-off function ``Phi(Phi^-1(1 - FPR) - mu)``
    (Dong, Roth & Su, JRSS-B 2022, Def. 2.6): every test has ``FNR >= Phi(Phi^-1(1
    - FPR) - mu)``, so ``mu >= Phi^-1(1 - FPR) - Phi^-1(FNR)``.

    Parameters
    ----------
    fpr, fnr : float
        (Upper bounds on) the two error rates, in ``[0, 1]``.

    Returns
    -------
    mu : float
        ``max(Phi^-1(1 - fpr) - Phi^-1(fnr), 0)`` (``inf`` if both rates are 0).
    """
    value = float(norm.isf(fpr) - norm.ppf(fnr))
    return max(value, 0.0) if not math.isnan(value) else 0.0


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit` measured, next to what the estimator claims.

    Parameters
    ----------
    epsilon_lower : float
        Lower bound on epsilon at ``delta``, valid with probability at least
        ``confidence`` over the trials.
    mu_lower : float
        Lower bound on the GDP mu, valid with probability at least ``confidence``.
    mu_estimate : float
        Point estimate ``Phi^-1(1 - FPR) - Phi^-1(FNR)`` of mu on the held-out half,
        at the threshold where the two error rates are equal on the selection half
        (for a Gaussian pair every threshold has the same mu and this one the
        smallest sampling error; rates of 0 replaced by ``0.5 / n``). No
        guarantee: it may exceed the claim by sampling error.
    epsilon_claimed : float
        The largest ``epsilon_`` reported by the fits.
    mu_claimed : float or None
        The largest ``mu_`` reported by the fits (None if the estimator reports no
        GDP mu).
    delta : float
        The delta of ``epsilon_lower`` and ``epsilon_claimed``.
    confidence : float
        Confidence of each Clopper-Pearson bound (both hold together with
        probability at least ``2 confidence - 1``).
    n_trials : int
        Fits in each world.
    statistics_without : ndarray of shape (n_trials,)
        The statistic of the fits on ``D``.
    statistics_with : ndarray of shape (n_trials,)
        The statistic of the fits on ``D'`` (with the canary).
    evaluation : ndarray of bool of shape (n_trials,)
        Which trials (same mask in both worlds) were held out to evaluate the
        thresholds; the others chose them.
    threshold : float
        Threshold of the test behind ``epsilon_lower``.
    direction : {1, -1}
        The test says "canary present" when ``direction * statistic >
        direction * threshold``.
    """

    epsilon_lower: float
    mu_lower: float
    mu_estimate: float
    epsilon_claimed: float
    mu_claimed: float | None
    delta: float
    confidence: float
    n_trials: int
    statistics_without: np.ndarray
    statistics_with: np.ndarray
    evaluation: np.ndarray
    threshold: float
    direction: int

    def __repr__(self):
        # The bounds and the claim, to 4 significant digits; the raw statistics
        # stay in the attributes (statistics_without, statistics_with, ...).
        def short(x):
            return "None" if x is None else f"{x:.4g}"

        return (
            f"AuditResult(epsilon_lower={short(self.epsilon_lower)}, "
            f"epsilon_claimed={short(self.epsilon_claimed)}, "
            f"mu_lower={short(self.mu_lower)}, mu_estimate={short(self.mu_estimate)}, "
            f"mu_claimed={short(self.mu_claimed)}, delta={self.delta:.4g}, "
            f"confidence={self.confidence:.4g}, n_trials={self.n_trials})"
        )

    def plot(self, ax=None):
        """Draw the empirical trade-off curve against the claimed GDP curve.

        The empirical curve is the (FPR, FNR) of every threshold test on all
        trials (both directions); the claimed curve is ``Phi(Phi^-1(1 - a) -
        mu_claimed)``. A sound claim keeps the empirical points above its curve,
        up to sampling error.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None uses the current axes.

        Returns
        -------
        ax : matplotlib Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            If matplotlib is not installed.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as error:  # optional dependency: only plot() needs it
            raise ImportError(
                "AuditResult.plot requires matplotlib: pip install matplotlib"
            ) from error
        if ax is None:
            ax = plt.gca()
        fpr, fnr = _tradeoff(self.statistics_without, self.statistics_with)
        ax.plot(fpr, fnr, ".", ms=3, label="empirical (all trials)")
        a = np.linspace(0.0, 1.0, 201)
        if self.mu_claimed is not None:
            ax.plot(a, norm.cdf(norm.isf(a) - self.mu_claimed), label="claimed GDP")
        ax.plot(a, norm.cdf(norm.isf(a) - self.mu_estimate), "--", label="mu estimate")
        ax.plot(a, 1.0 - a, ":", color="grey", label="no privacy loss")
        ax.set_xlabel("false-positive rate")
        ax.set_ylabel("false-negative rate")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend()
        return ax


def _tradeoff(without, with_):
    """(FPR, FNR) of every threshold test, both directions."""
    thresholds = np.unique(np.concatenate([without, with_]))
    fpr = (without[None, :] > thresholds[:, None]).mean(axis=1)
    fnr = (with_[None, :] <= thresholds[:, None]).mean(axis=1)
    return np.concatenate([fpr, 1.0 - fpr]), np.concatenate([fnr, 1.0 - fnr])


def _error_counts(without, with_, thresholds, direction):
    """False positives and false negatives of each threshold test."""
    s0 = direction * without
    s1 = direction * with_
    t = direction * thresholds
    fp = (s0[None, :] > t[:, None]).sum(axis=1)
    fn = (s1[None, :] <= t[:, None]).sum(axis=1)
    return fp, fn


def _upper(k, n, confidence):
    """Vectorised :func:`clopper_pearson_upper`."""
    k = np.asarray(k)
    upper = beta.ppf(1.0 - (1.0 - confidence) / 2.0, k + 1, np.maximum(n - k, 1))
    return np.where(k >= n, 1.0, upper)


def _best_test(without, with_, delta, confidence, score):
    """Threshold and direction maximising a lower bound on the selection trials."""
    thresholds = np.unique(np.concatenate([without, with_]))
    n0, n1 = without.shape[0], with_.shape[0]
    best = (-math.inf, float(thresholds[0]), 1)
    for direction in (1, -1):
        fp, fn = _error_counts(without, with_, thresholds, direction)
        fpr = _upper(fp, n0, confidence)
        fnr = _upper(fn, n1, confidence)
        if score == "epsilon":
            values = np.array(
                [
                    epsilon_lower_bound(a, b, delta)
                    for a, b in zip(fpr, fnr, strict=True)
                ]
            )
        else:
            values = np.array(
                [mu_lower_bound(a, b) for a, b in zip(fpr, fnr, strict=True)]
            )
        i = int(np.argmax(values))
        if values[i] > best[0]:
            best = (float(values[i]), float(thresholds[i]), direction)
    return best[1], best[2]


def _equal_error_test(without, with_):
    """Threshold and direction where the two error rates are (nearly) equal.

    Of the two directions, the one with the smaller error there.
    """
    thresholds = np.unique(np.concatenate([without, with_]))
    best = (math.inf, float(thresholds[0]), 1)
    for direction in (1, -1):
        fp, fn = _error_counts(without, with_, thresholds, direction)
        fpr, fnr = fp / without.shape[0], fn / with_.shape[0]
        i = int(np.argmin(np.abs(fpr - fnr)))
        if fpr[i] + fnr[i] < best[0]:
            best = (float(fpr[i] + fnr[i]), float(thresholds[i]), direction)
    return best[1], best[2]


def _rates(without, with_, threshold, direction):
    fp, fn = _error_counts(without, with_, np.array([threshold]), direction)
    return int(fp[0]), int(fn[0])


def _fresh_entropy(estimator):
    """A clone whose every ``random_state`` is None: each fit draws OS entropy."""
    estimator = clone(estimator)
    names = [
        name
        for name in estimator.get_params(deep=True)
        if name == "random_state" or name.endswith("__random_state")
    ]
    if names:
        estimator.set_params(**dict.fromkeys(names, None))
    return estimator


def _fit_one(estimator, X, y, statistic, fit_params):
    """Fit a fresh clone and return its statistic and claims."""
    estimator = clone(estimator)
    with warnings.catch_warnings():
        # The audit's data are not private: the fits' warnings about reading the
        # label set or a weak delta say nothing about the audit.
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", WeakPrivacyWarning)
        estimator.fit(X, y, **fit_params)
    final = _final_step(estimator)
    mu = getattr(final, "mu_", None)
    if mu is None and getattr(final, "accounting_", None) == "gdp":
        # A PrivatePipeline of Gaussian mechanisms composes exactly in GDP and
        # reports the epsilon of that mu.
        mu = gdp_mu(final.epsilon_, final.delta_)
    return float(statistic(estimator)), float(final.epsilon_), mu


def _final_step(estimator):
    """The step that reports the claim: a Pipeline's last, or the estimator.

    A :class:`~sklearn_dpgd.pipeline.PrivatePipeline` reports the claim of the
    whole pipeline on itself.
    """
    return estimator[-1] if isinstance(estimator, Pipeline) else estimator


def _classifier(estimator):
    """(name, classifier) of the step that fits ``coef_`` (name "" if unwrapped).

    The last step of a :class:`~sklearn.pipeline.Pipeline` or of a
    :class:`~sklearn_dpgd.pipeline.PrivatePipeline` (its fitted copy in
    ``pipeline_`` once fitted), or the estimator itself.
    """
    if isinstance(estimator, Pipeline):
        return estimator.steps[-1][0], estimator.steps[-1][1]
    if isinstance(estimator, PrivatePipeline):
        steps = (
            estimator.pipeline_.steps
            if hasattr(estimator, "pipeline_")
            else estimator.steps
        )
        return steps[-1][0], steps[-1][1]
    return "", estimator


def _coefficients(estimator):
    """The trained ``coef_`` of an estimator, a pipeline's last step or a search's
    winner.

    A binary :class:`~sklearn_dpgd.DPLogisticRegression` fit ends with a private
    temperature scaling that multiplies ``coef_`` by ``calibration_scale_``; both
    are released, so dividing it out (post-processing) gives the coefficients the
    training steps produced, whose canary coordinate the statistic reads.
    """
    estimator = _classifier(estimator)[1]
    if not hasattr(estimator, "coef_"):
        estimator = estimator.best_estimator_
    scale = getattr(estimator, "calibration_scale_", None)
    return np.atleast_2d(estimator.coef_) / (1.0 if scale is None else scale)


def _canary_statistic(column, row, start):
    def statistic(estimator):
        return _coefficients(estimator)[row, column] - start

    return statistic


def _accepts_start(classifier):
    """Whether the classifier's fit takes a public start with a free coordinate.

    :class:`~sklearn_dpgd.DPLogisticRegression` and
    :class:`~sklearn_dpgd.DPHuberSVM` with ``solver="gd"`` or ``"auto"`` (the
    default, which runs "gd" or "pgd": both take a start) and no L2 penalty (a
    penalty would pull the start back towards zero).
    """
    if "coef_init" not in inspect.signature(classifier.fit).parameters:
        return False
    params = classifier.get_params(deep=False)
    solver = params.get("solver", "gd")
    return solver in ("gd", "auto") and params.get("alpha", 0.0) == 0.0


def _without_auto_penalty(estimator):
    """The estimator with ``alpha="auto"`` of its classifier set to 0.

    The default L2 penalty of :class:`~sklearn_dpgd.DPLogisticRegression` is
    public and added without noise: the fits run the same Gaussian steps and
    claim the same guarantee at every ``alpha``, so auditing at ``alpha=0`` audits
    the same claim, and keeps the canary's public start, which a penalty would
    pull back towards zero (:func:`_accepts_start`). Left as it is where
    ``alpha`` is not the penalty's setting: ``C`` set (the two would clash), or
    ``solver="frank_wolfe"`` (no L2 penalty; its L1 radius comes from ``C``).
    """
    name, classifier = _classifier(estimator)
    params = classifier.get_params(deep=False)
    if (
        params.get("alpha") == "auto"
        and params.get("C") is None
        and params.get("solver") != "frank_wolfe"
    ):
        estimator.set_params(**{f"{name}__alpha" if name else "alpha": 0.0})
    return estimator


def _neighboring(estimator):
    params = _final_step(estimator).get_params(deep=True)
    for name in ("neighboring", "estimator__neighboring"):
        if name in params:
            return params[name]
    return "add_remove"


def _scale(estimator, X):
    """Public norm scale of the per-example contribution (clip_norm or data_norm)."""
    params = estimator.get_params(deep=True)
    values = [
        float(value)
        for name, value in params.items()
        if name.split("__")[-1] in ("clip_norm", "data_norm")
        and isinstance(value, Real)
        and not isinstance(value, bool)
    ]
    row_norm = float(np.max(np.linalg.norm(X, axis=1)))
    return max(values + [row_norm, 1.0])


def _start(estimator, n_features, labels, row, canary_margin, value):
    """Fit parameters that start the canary's coordinate at a given margin.

    The canary's coefficient starts at ``canary_margin / value`` (every other
    coefficient at zero), so the canary's margin ``y (w . x + b)`` starts near
    ``canary_margin``. Returns ``({}, 0.0)`` where the classifier takes no start
    (searches, baselines, ``solver="snowball"``, an L2 penalty).
    """
    name, classifier = _classifier(estimator)
    if canary_margin is None or not _accepts_start(classifier):
        return {}, 0.0
    start = canary_margin / value
    n_outputs = 1 if labels.shape[0] <= 2 else labels.shape[0]
    coef = np.zeros((n_outputs, n_features))
    coef[row, -1] = start
    key = f"{name}__coef_init" if name else "coef_init"
    return {key: coef}, start


def _target_range(estimator, y):
    """The two "labels" of a regressor's canary: its public ``y_bounds``.

    The canary's target is the top of the range (the bottom in the other world
    under replace), where its residual, from a start far below, stays large and
    its gradient clipped. Without ``y_bounds`` the fit will refuse; the data's
    range stands in until it does.
    """
    bounds = _classifier(estimator)[1].get_params(deep=False).get("y_bounds")
    if bounds is None:
        return np.array([np.min(y), np.max(y)])
    return np.asarray(bounds, dtype=float).ravel()[:2]


def _worlds(estimator, X, y, canary, canary_value, n_padding, canary_margin):
    """The neighbouring pair, the fit parameters and the canary's statistic."""
    regressor = is_regressor(_classifier(estimator)[1])
    labels = _target_range(estimator, y) if regressor else np.unique(y)
    replace = _neighboring(estimator) == "replace"
    fit_params = {}
    if isinstance(canary, str):
        # A fresh column (zero for every row of D) plus padding columns: the
        # canary's clipped gradient is the only signal on its coefficient.
        value = canary_value if canary_value is not None else 4.0 * _scale(estimator, X)
        n = X.shape[0]
        X = np.hstack([X, np.zeros((n, n_padding + 1), dtype=X.dtype)])
        x = np.zeros(X.shape[1], dtype=X.dtype)
        x[-1] = value
        label = labels[-1]
        row = 0 if labels.shape[0] == 2 else labels.shape[0] - 1
        # Under replace the canary's label flips between the worlds: a start on
        # one label's wrong side is the other's right side, so both start at 0.
        margin = None if replace else canary_margin
        fit_params, start = _start(estimator, X.shape[1], labels, row, margin, value)
        default = _canary_statistic(X.shape[1] - 1, row, start)
    else:
        if not isinstance(canary, tuple) or len(canary) != 2:
            raise TypeError("canary must be 'auto' or a tuple (x, label).")
        x = np.asarray(canary[0], dtype=X.dtype).ravel()
        if x.shape[0] != X.shape[1]:
            raise ValueError(
                f"canary's x must have {X.shape[1]} features; got {x.shape[0]}."
            )
        label = canary[1]
        default = None
    if replace:
        # Under replace the pair is (x, other label) -> (x, label): the canary's
        # clipped contribution flips sign, twice the add/remove shift.
        other = labels[0] if label != labels[0] else labels[-1]
        X0 = np.vstack([X, x])
        y0 = np.append(y, other)
        y1 = np.append(y, label)
        return (X0, y0), (X0, y1), fit_params, default
    return (X, y), (np.vstack([X, x]), np.append(y, label)), fit_params, default


def audit(
    estimator,
    X,
    y,
    *,
    canary="auto",
    statistic="auto",
    n_trials=1000,
    delta=None,
    confidence=0.95,
    canary_value=None,
    canary_margin=-1e6,
    n_padding=0,
    n_jobs=None,
    random_state=None,
    progress=True,
):
    """Empirical lower bound on the privacy of an estimator's fit.

    Builds a neighbouring pair: under ``neighboring="add_remove"`` ``D = (X, y)``
    and ``D'`` = ``D`` plus the canary row; under ``"replace"`` ``D`` = ``D``
    plus the canary's ``x`` with another label and ``D'`` the same with the
    canary's label. Fits a clone ``n_trials`` times on each, every fit with fresh
    OS entropy (all ``random_state`` parameters set to None), reduces each model
    to a statistic, and tests ``D`` against ``D'`` by thresholding it. The
    threshold and its direction are chosen on half of the trials; on the other half
    the Clopper-Pearson upper bounds of the false-positive and false-negative rates
    (each one-sided at ``(1 + confidence) / 2``, jointly at ``confidence``) give

    ``epsilon_lower = max(log((1 - delta - FNR_up) / FPR_up),
    log((1 - delta - FPR_up) / FNR_up))``

    (Kairouz, Oh & Viswanath, ICML 2015, Thm 2.1; Jagielski, Ullman & Oprea,
    NeurIPS 2020; Nasr, Song, Thakurta, Papernot & Carlini, IEEE S&P 2021) and
    ``mu_lower = Phi^-1(1 - FPR_up) - Phi^-1(FNR_up)``, the GDP view of Nasr et al.
    (USENIX Security 2023), each with its own threshold.

    Parameters
    ----------
    estimator : estimator object
        Unfitted :class:`~sklearn_dpgd.DPLogisticRegression`,
        :class:`~sklearn_dpgd.DPHuberSVM`, a private regressor, baseline,
        private search, or a
        :class:`~sklearn.pipeline.Pipeline` of public transformers ending in one
        of them (anything with ``fit`` that sets ``epsilon_``, on itself or on its
        last step; ``statistic="auto"`` also needs ``coef_`` or
        ``best_estimator_.coef_``). Never modified. The ``"auto"`` canary's column
        must reach the classifier as its last column, on its own (true of
        column-wise scalers; a transformer that changes the number of columns
        makes the start's ``coef_init`` the wrong shape: pass
        ``canary_margin=None``).
    X : array-like of shape (n_samples, n_features)
        The data set ``D`` (dense).
    y : array-like of shape (n_samples,)
        Its labels.
    canary : "auto" or tuple (x, label), default="auto"
        ``"auto"``: a row that is ``canary_value`` on a fresh column (zero for every
        row of ``D``) and zero elsewhere, labelled with the largest class (for
        :class:`~sklearn_dpgd.DPLinearRegression` and
        :class:`~sklearn_dpgd.DPHuberRegressor`: the top of ``y_bounds``, the
        bottom in the other world under replace); its
        clipped gradient is then the only signal on that column's coefficient
        (the white-box canary of the user guide). Where the classifier takes a
        public start (``coef_init``: ``DPLogisticRegression`` and ``DPHuberSVM``
        with ``solver="gd"`` and ``alpha=0``, alone or as a pipeline's last step),
        the canary's coefficient starts at ``canary_margin / canary_value``;
        ``alpha="auto"`` is audited at ``alpha=0`` (a public, noiseless penalty:
        the same steps and claim at every ``alpha``; not with ``C`` set or
        ``solver="frank_wolfe"``, whose radius comes from ``C``). A
        tuple: a user row ``x`` of shape (n_features,) and its label (then pass
        ``statistic``).
    statistic : "auto" or callable, default="auto"
        ``"auto"``: the fitted coefficient of the canary's column (of its class's
        row for multiclass) minus its start; after a temperature scaling
        (``calibration_scale_`` of ``DPLogisticRegression``) the coefficient
        divided by that released factor, i.e. the training steps' coefficient.
        A callable maps a fitted estimator to a float.
    n_trials : int, default=1000
        Fits in each world (``2 * n_trials`` fits in all), at least 20.
    delta : float, default=None
        Delta of the epsilon lower bound; None uses the estimator's ``delta``.
    confidence : float, default=0.95
        Confidence of each lower bound (both hold together with probability at
        least ``2 confidence - 1``).
    canary_value : float, default=None
        Value of the ``"auto"`` canary on its column; None uses 4 times the
        largest of the estimator's numeric ``clip_norm``/``data_norm``, the largest
        row norm of ``X`` and 1 (so that its gradient is clipped).
    canary_margin : float or None, default=-1e6
        Margin ``y (w . x)`` at which the ``"auto"`` canary starts (negative: on
        its wrong side). Far below -40 the logistic derivative is 1 to double
        precision and the Huber hinge's exactly 1, so the canary's gradient stays
        clipped to ``clip_norm`` at every step whatever the step sizes (-1e6
        leaves room for steps far longer than any default; -1000 lost power at 16
        times the default step length), and its coefficient is a linear image of
        the noisy steps in its column (user guide). The guarantee holds for every
        public start, so this is a legitimate pair. With float32 data the fitted
        coefficient is float32: the start costs a resolution of about ``6e-8 *
        canary_margin / canary_value``.
        None starts at zero. Ignored under ``neighboring="replace"`` (the label
        flips, so one world's wrong side is the other's right side) and where the
        classifier takes no start.
    n_padding : int, default=0
        Extra all-zero columns appended with the ``"auto"`` canary (in both
        worlds). With normalised steps they make the noise norm, hence the step
        normalisation, nearly constant, which keeps the canary's shift Gaussian
        (user guide). They also change what the ``"auto"`` rules of the fit (horizon,
        clipping threshold) compute from the number of features.
    n_jobs : int, default=None
        Parallel fits (joblib; None is 1, -1 all cores).
    random_state : int, RandomState instance or None, default=None
        Only the split of the trials into selection and evaluation halves; the
        fits always use fresh entropy.
    progress : bool, default=True
        Show a tqdm progress bar.

    Returns
    -------
    result : AuditResult
        The bounds, the claims and the statistics of both worlds.

    Raises
    ------
    ValueError
        If ``n_trials < 20``, ``confidence``, ``delta`` or ``canary_value`` is out
        of range, ``canary_margin`` is not finite, ``n_padding`` is negative, or
        the canary's ``x`` has the wrong length.
    TypeError
        If ``canary`` or ``statistic`` has a wrong type, or ``statistic`` is
        ``"auto"`` with a user canary.

    Notes
    -----
    Run it outside an open :class:`~sklearn_dpgd.accounting.PrivacyLedger`: every
    fit would be charged to it. The fits' ``PrivacyLeakWarning`` and
    ``WeakPrivacyWarning`` are silenced (the audit's data are not private).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.audit import audit
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> est = DPLogisticRegression(epsilon=1.0, delta=1e-5, classes=[0, 1])
    >>> result = audit(est, X, y, n_trials=20, progress=False)
    >>> bool(result.epsilon_lower <= result.epsilon_claimed)
    True
    """
    if not isinstance(n_trials, Integral) or n_trials < 20:
        raise ValueError(f"n_trials must be an integer >= 20; got {n_trials!r}.")
    if not isinstance(n_padding, Integral) or n_padding < 0:
        raise ValueError(f"n_padding must be an integer >= 0; got {n_padding!r}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    if canary_value is not None and not (
        isinstance(canary_value, Real) and 0.0 < canary_value < math.inf
    ):
        raise ValueError(
            f"canary_value must be positive and finite; got {canary_value!r}."
        )
    if canary_margin is not None and not (
        isinstance(canary_margin, Real) and math.isfinite(canary_margin)
    ):
        raise ValueError(
            f"canary_margin must be a finite number or None; got {canary_margin!r}."
        )
    if delta is None:
        delta = float(_final_step(estimator).get_params().get("delta", 0.0))
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must be in [0, 1); got {delta!r}.")
    if not (statistic == "auto" or callable(statistic)):
        raise TypeError("statistic must be 'auto' or a callable.")
    if isinstance(canary, str) and canary != "auto":
        raise ValueError(
            f"canary must be 'auto' or a tuple (x, label); got {canary!r}."
        )
    X = check_array(X, dtype=(np.float64, np.float32))
    y = column_or_1d(y)
    estimator = _fresh_entropy(estimator)
    if isinstance(canary, str) and canary_margin is not None:
        estimator = _without_auto_penalty(estimator)
    world0, world1, fit_params, default = _worlds(
        estimator, X, y, canary, canary_value, int(n_padding), canary_margin
    )
    if statistic == "auto":
        if default is None:
            raise TypeError("statistic='auto' needs canary='auto'; pass a callable.")
        statistic = default
    tasks = [(world, trial) for trial in range(n_trials) for world in (0, 1)]
    worlds = (world0, world1)
    jobs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_one)(estimator, *worlds[w], statistic, fit_params)
        for w, _ in tasks
    )
    outputs = list(tqdm(jobs, total=len(tasks), disable=not progress, desc="audit"))
    stats = np.array([o[0] for o in outputs]).reshape(n_trials, 2)
    epsilon_claimed = max(o[1] for o in outputs)
    mus = [o[2] for o in outputs if o[2] is not None]
    mu_claimed = float(max(mus)) if mus else None
    without, with_ = stats[:, 0].copy(), stats[:, 1].copy()

    rng = check_random_state(random_state)
    evaluation = np.zeros(n_trials, dtype=bool)
    evaluation[rng.permutation(n_trials)[: n_trials // 2]] = True
    select = ~evaluation
    n_eval = int(evaluation.sum())

    def bounds(score):
        threshold, direction = _best_test(
            without[select], with_[select], delta, confidence, score
        )
        fp, fn = _rates(without[evaluation], with_[evaluation], threshold, direction)
        fpr = clopper_pearson_upper(fp, n_eval, confidence)
        fnr = clopper_pearson_upper(fn, n_eval, confidence)
        return threshold, direction, fp, fn, fpr, fnr

    threshold, direction, _, _, fpr, fnr = bounds("epsilon")
    epsilon_lower = epsilon_lower_bound(fpr, fnr, delta)
    _, _, fp, fn, fpr, fnr = bounds("mu")
    mu_lower = mu_lower_bound(fpr, fnr)
    # The point estimate at the equal-error threshold of the selection half: for
    # a Gaussian pair every threshold has the same mu, and this one the smallest
    # sampling error (the rates of a tail threshold are small counts).
    threshold_eq, direction_eq = _equal_error_test(without[select], with_[select])
    fp, fn = _rates(without[evaluation], with_[evaluation], threshold_eq, direction_eq)
    floor = 0.5 / n_eval
    mu_estimate = mu_lower_bound(
        min(max(fp / n_eval, floor), 1 - floor), min(max(fn / n_eval, floor), 1 - floor)
    )
    return AuditResult(
        epsilon_lower=float(epsilon_lower),
        mu_lower=float(mu_lower),
        mu_estimate=float(mu_estimate),
        epsilon_claimed=float(epsilon_claimed),
        mu_claimed=mu_claimed,
        delta=float(delta),
        confidence=float(confidence),
        n_trials=int(n_trials),
        statistics_without=without,
        statistics_with=with_,
        evaluation=evaluation,
        threshold=threshold,
        direction=int(direction),
    )
