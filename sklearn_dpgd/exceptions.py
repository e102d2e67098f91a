"""Warnings and errors raised by :mod:`sklearn_dpgd`."""

__all__ = [
    "BudgetExhaustedError",
    "PrivacyLeakError",
    "PrivacyLeakWarning",
    "UnrecordedFitError",
    "UtilityWarning",
    "WeakPrivacyWarning",
]


class PrivacyLeakWarning(UserWarning):
    """A value computed from the private data leaves the estimator without noise.

    Raised, for example, when the set of class labels is read from ``y`` instead of
    being given as a public parameter: the labels present are then not protected by
    the differential-privacy guarantee.
    """


class PrivacyLeakError(RuntimeError):
    """A step around a private fit would release private values without noise.

    Raised instead of a :class:`PrivacyLeakWarning` while a
    ``PrivacyLedger(strict=True)`` is open (for production jobs), by the private
    fit that detects the leak, before that fit reads any data: a non-private
    step of a ``Pipeline`` or ``ColumnTransformer``, or a scikit-learn
    meta-estimator or model-selection helper that fits it (``GridSearchCV``,
    ``cross_val_score``, ``CalibratedClassifierCV``, ...). The privacy page of the
    documentation lists what is detected.
    """


class WeakPrivacyWarning(UserWarning):
    """The requested guarantee is formally met but too weak to mean much.

    Raised when ``delta >= 1 / n_samples``: a mechanism that publishes one random row
    in full satisfies ``(0, 1/n)``-differential privacy, so such a delta does not
    protect individuals (Dwork & Roth 2014, Sec. 2.3).
    """


class UtilityWarning(UserWarning):
    """The fit is likely useless: its accuracy near that of a majority-class guess.

    Raised by the private classifiers' ``fit``, with the cause and the remedy in
    its message, when the budget's signal-to-noise (public quantities only) is
    below the level where measured accuracy fell to the majority class's, or
    when noisy counts show that the model predicts one class for almost every
    training row (naming unscaled rows as the likely cause when a noisy count
    finds most rows unscaled). The regressors warn it when a noisy residual
    check finds the model no better than predicting the mean, or the target
    far narrower than ``y_bounds``. The counts and sums are private
    diagnostics charged to the fit's budget (``utility_diagnostics``;
    user guide, "Getting good accuracy"). The message quotes only public and
    noisy values.
    """


class BudgetExhaustedError(RuntimeError):
    """A private mechanism was refused because running it would overspend the budget.

    Raised by the privacy filter before the mechanism touches the data (Smith &
    Thakurta 2022; Whitehouse et al. 2023), so nothing was computed or released.
    """


class UnrecordedFitError(RuntimeError):
    """A private fit would run where the open privacy ledger cannot record it.

    Raised before the fit reads any data when an estimator that was serialised
    while a :class:`~sklearn_dpgd.accounting.PrivacyLedger` was open is fitted in
    another process (e.g. a joblib ``loky`` worker of ``GridSearchCV(n_jobs=2)``
    under ``joblib.parallel_config(backend="loky")``): that fit's spend could not
    reach the ledger, and silent under-reporting is refused.
    """
