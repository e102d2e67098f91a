"""The scikit-learn boundary: what reads the private data around a private fit.

A mechanism of this package is private on its own; the scikit-learn machinery
around it may not be. A ``StandardScaler`` in the same ``Pipeline`` releases the
exact mean and variance of every column; ``GridSearchCV`` releases the exact
held-out scores of its candidates and picks the best by them; ``BaggingClassifier``
duplicates rows in its bootstrap samples, multiplying their influence. None of it
is covered by ``epsilon_``.

**How it is detected.** Every private fit of the package calls
:func:`check_fit_boundary` before it charges a ledger or reads data. It walks the
Python call stack of the fit and recognises the scikit-learn objects and helpers
fitting it, by the class (through its MRO) or function and the module that defines
it, without importing them:

* containers (``Pipeline``, ``ColumnTransformer``, ``FeatureUnion``): each of their
  steps is checked by :func:`privacy_leaks`, the same check as
  :func:`~sklearn_dpgd.pipeline.find_privacy_leaks`;
* model selection (``GridSearchCV``, ``RandomizedSearchCV``, the halving searches,
  ``cross_validate``, ``cross_val_score``, ``cross_val_predict``), calibration
  (``CalibratedClassifierCV``), the multiclass wrappers (``OneVsRestClassifier``,
  ``OneVsOneClassifier``) and ensembles (``StackingClassifier``,
  ``VotingClassifier``, ``BaggingClassifier``): each is one leak, named with what
  it releases and what to use instead.

Each distinct leak is a :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`
shown once per process through the ``warnings`` machinery (so the standard filters
silence it), or, while a ``PrivacyLedger(strict=True)`` is open, a
:class:`~sklearn_dpgd.exceptions.PrivacyLeakError` raised before the fit reads
data.

**Limits.** The stack of a fit shows its callers in its own thread. In a worker
thread or process of a construct's ``n_jobs`` only the construct's worker function
is on it: model selection, calibration, the multiclass wrappers and bagging are
recognised there too, but the siblings of a private step inside a
``ColumnTransformer(n_jobs=2)`` are seen only when a private step of the enclosing
``Pipeline`` fits in the caller's thread (the final estimator does). A non-private
step that runs *before* the first private fit (a ``StandardScaler`` ahead of the
classifier) has been fitted when the warning, or the strict error, comes; the
error then stops the pipeline before anything is returned, but the fitted step
stays in the user's object: :func:`~sklearn_dpgd.pipeline.make_private_pipeline`
and :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` check every step
before fitting any. A construct that never fits a package estimator
(``CalibratedClassifierCV`` on a ``FrozenEstimator``, ``permutation_importance``,
a ``score`` call on private rows) runs no private fit and is not seen. Code that is
not scikit-learn's (a hand-written loop that scores models on private rows) is not
recognised.
"""

import sys

import numpy as np

from ._engine._secure import GENERATORS_PER_FIT, add_support_delta, support_tv
from ._warnings import warn_once
from .accounting import _charge_active_ledgers, _strict_mode
from .exceptions import PrivacyLeakError, PrivacyLeakWarning

__all__ = ["charge_ledgers", "check_fit_boundary", "privacy_leaks"]

# What a scikit-learn transformer's fit reads from the data, for the message.
_READS = {
    "MinMaxScaler": "the minimum and maximum of every column",
    "StandardScaler": "the mean and variance of every column",
    "RobustScaler": "the median and interquartile range of every column",
    "MaxAbsScaler": "the largest absolute value of every column",
    "QuantileTransformer": "the quantiles of every column",
    "PowerTransformer": "the fitted power parameters of every column",
    "KBinsDiscretizer": "bin edges from the values of every column",
    "SplineTransformer": "knots from the values of every column",
    "OneHotEncoder": "the categories present in every column",
    "OrdinalEncoder": "the categories present in every column",
    "TargetEncoder": "the mean target of every category",
    "VarianceThreshold": "the variance of every column",
    "PCA": "principal components of the data",
    "TruncatedSVD": "singular vectors of the data",
    "MissingIndicator": "which columns have missing values",
    "LabelEncoder": "the labels present",
    "CountVectorizer": "the vocabulary of the documents",
    "TfidfVectorizer": "the vocabulary and the document frequency of every term",
    "TfidfTransformer": "the document frequency of every term",
    "FunctionTransformer": "whatever its func computes from all rows (declare a "
    "row-wise func with sklearn_dpgd.preprocessing.row_wise)",
    "ColumnTransformer": "the density of its output (sparse_output_), since "
    "sparse_threshold > 0 and a transformer may return a sparse matrix; set "
    "sparse_threshold=0",
}
_CONTAINERS = {
    ("sklearn.pipeline", "Pipeline"),
    ("sklearn.pipeline", "FeatureUnion"),
    ("sklearn.compose._column_transformer", "ColumnTransformer"),
}

# Constructs recognised on the stack: a method of one of these classes (by MRO),
# or one of these functions (their worker functions run in n_jobs threads).
_CONSTRUCT_CLASSES = {
    ("sklearn.model_selection._search", "BaseSearchCV"): "search",
    ("sklearn.calibration", "CalibratedClassifierCV"): "calibration",
    ("sklearn.multiclass", "OneVsRestClassifier"): "ovr",
    ("sklearn.multiclass", "OneVsOneClassifier"): "ovo",
    ("sklearn.ensemble._stacking", "_BaseStacking"): "stacking",
    ("sklearn.ensemble._voting", "_BaseVoting"): "voting",
    ("sklearn.ensemble._bagging", "BaseBagging"): "bagging",
}
_CONSTRUCT_FUNCTIONS = {
    ("sklearn.model_selection._validation", "_fit_and_score"): "cv",
    ("sklearn.model_selection._validation", "cross_validate"): "cv",
    ("sklearn.model_selection._validation", "cross_val_predict"): "predict",
    ("sklearn.model_selection._validation", "_fit_and_predict"): "predict",
    ("sklearn.calibration", "_fit_classifier_calibrator_pair"): "calibration",
    ("sklearn.multiclass", "_fit_binary"): "ovr",
    ("sklearn.multiclass", "_fit_ovo_binary"): "ovo",
    ("sklearn.ensemble._bagging", "_parallel_build_estimators"): "bagging",
}
# The name of a construct recognised by a worker function only (its object is in
# another thread's stack).
_DEFAULT_NAMES = {
    "calibration": "CalibratedClassifierCV",
    "ovr": "OneVsRestClassifier",
    "ovo": "OneVsOneClassifier",
    "bagging": "BaggingClassifier",
}
# A construct that contains another's leak says it: the search's message covers the
# scores of its cross-validation, stacking's and calibration's cover their
# cross-validated predictions.
_COVERS = {
    "search": {"cv"},
    "stacking": {"predict", "cv"},
    "calibration": {"predict", "cv"},
}
_USE_PRIVATE_SEARCH = (
    "Use sklearn_dpgd.model_selection.PrivateGridSearchCV, which pays for the selection"
)
_CONSTRUCTS = {
    "search": "{name} selects hyperparameters by the scores of its candidates on "
    "held-out private rows: best_params_, best_score_, cv_results_ and the refit's "
    "choice are exact functions of the data, released without noise and not "
    f"covered by any epsilon_. {_USE_PRIVATE_SEARCH}.",
    "cv": "scikit-learn's cross-validation (cross_validate, cross_val_score, "
    "learning_curve, a search's folds) scores each private fit on held-out private "
    "rows: the scores are exact functions of those rows, released without noise "
    "and not covered by epsilon_. Score on a test set you do not release, or "
    "select privately with sklearn_dpgd.model_selection.PrivateGridSearchCV, which "
    "pays for the selection.",
    "predict": "cross_val_predict returns a prediction for every private row from "
    "a model fitted without it: each prediction is a function of its own row, "
    "released without noise and not covered by epsilon_. Predict on data you may "
    "release.",
    "calibration": "{name} fits a sigmoid or isotonic calibrator on predictions for "
    "private rows without noise; the calibrator is not covered by epsilon_. "
    "DPLogisticRegression calibrates privately (calibration='auto', the default).",
    "ovr": "{name} reads the label set from y and fits one private model per "
    "class: the label set is released without noise and each fit spends its own "
    "epsilon, so the model's cost is their composition, not one fit's epsilon_. "
    "Use the estimator's own multiclass support with classes=[...] (one fit, one "
    "budget).",
    "ovo": "{name} reads the label set from y and fits one private model per pair "
    "of classes: the label set is released without noise and the fits' spends "
    "compose (each pair's rows are a subset, so every fit touching a row counts). "
    "Use the estimator's own multiclass support with classes=[...].",
    "stacking": "{name} fits its final estimator on cross-validated predictions for "
    "the private rows, and reads the label set, without noise: neither is covered "
    "by epsilon_. Fit the base models privately and combine them with public "
    "weights.",
    "voting": "{name} reads the label set from y without noise, and its "
    "estimators' spends compose (the ensemble costs their sum, not one "
    "epsilon_). Give each estimator classes=[...] and account for the sum with a "
    "PrivacyLedger.",
    "bagging": "{name} fits on bootstrap samples, where a row drawn k times has k "
    "times the influence each fit's noise is calibrated to: no fit's epsilon_ "
    "holds, and the ensemble's cost composes over all fits. Train one private "
    "model on all rows instead.",
}


_INTERNAL = {
    "sklearn_dpgd",
    "sklearn",
    "joblib",
    "threading",
    "concurrent",
    "contextlib",
    "contextvars",
    "functools",
    "multiprocessing",
}


def _qualnames(cls):
    return {(c.__module__, c.__name__) for c in cls.__mro__}


def _is_private(est):
    """A mechanism of this package: its fit reads data only through noise."""
    return type(est).__module__.startswith("sklearn_dpgd.") and {
        "epsilon",
        "delta",
    } <= set(est.get_params(deep=False))


def _declared_row_wise(func):
    """A FunctionTransformer ``func`` that is row-wise by construction or by word."""
    return (
        func is None
        or isinstance(func, np.ufunc)
        or getattr(func, "__sklearn_dpgd_row_wise__", False) is True
    )


def _may_be_sparse(est):
    """Whether a transformer inside a ColumnTransformer may output a sparse matrix."""
    params = est.get_params(deep=False) if hasattr(est, "get_params") else {}
    name = type(est).__name__
    return (
        name.endswith("Vectorizer")
        or name in ("FeatureHasher", "TfidfTransformer")
        or bool(params.get("sparse_output", False))
    )


def _safe_reason(est):
    """Why a non-private scikit-learn step is safe as it is; None if not."""
    name = type(est).__name__
    params = est.get_params(deep=False)
    if name in ("Normalizer", "Binarizer", "PolynomialFeatures"):
        return "row-wise"
    if name == "FunctionTransformer":
        # Its func may read every row (scipy.stats.zscore standardises by the
        # column statistics); only a func declared row-wise is safe, and an
        # inverse check warns exactly when the data make it fail.
        inverse_checked = params.get("inverse_func") is not None and params.get(
            "check_inverse"
        )
        if _declared_row_wise(params.get("func")) and not inverse_checked:
            return "declared row-wise"
        return None
    if name in ("OneHotEncoder", "OrdinalEncoder"):
        explicit = not isinstance(params.get("categories"), str)
        frequency = params.get("min_frequency") is None and (
            params.get("max_categories") is None
        )
        # handle_unknown="error" makes fit raise with the unknown value in the
        # message, "warn" warns exactly when a private row holds an undeclared
        # value, and with drop set scikit-learn warns about unknown values in
        # transform: each a private fact released (a perfect distinguisher).
        if name == "OneHotEncoder":
            quiet = params.get("handle_unknown") in ("ignore", "infrequent_if_exist")
            quiet = quiet and params.get("drop") is None
        else:
            quiet = params.get("handle_unknown") == "use_encoded_value"
        return "explicit categories" if explicit and frequency and quiet else None
    if (
        name == "SimpleImputer"
        and params.get("strategy") == "constant"
        and params.get("keep_empty_features")
        and not params.get("add_indicator")
    ):
        # Otherwise it drops the columns with no observed value (and says which),
        # or adds indicators of the columns that have missing values.
        return "constant fill value"
    if name == "MissingIndicator" and params.get("features") == "all":
        return "row-wise"
    return None


def _components(estimator):
    """``(path, estimator)`` of every estimator inside ``estimator`` (and itself)."""
    found = [("", estimator)]
    if hasattr(estimator, "get_params"):
        for key, value in estimator.get_params(deep=True).items():
            if hasattr(value, "get_params") and hasattr(value, "fit"):
                found.append((key, value))
    return found


def _container_leak(est):
    """A container's own data-dependent release, or None."""
    if type(est).__name__ != "ColumnTransformer":
        return None
    params = est.get_params(deep=False)
    if not params.get("sparse_threshold"):
        return None
    steps = [t for _, t, _ in params.get("transformers", [])]
    steps.append(params.get("remainder"))
    if any(_may_be_sparse(t) for t in steps if hasattr(t, "get_params")):
        return _READS["ColumnTransformer"]
    return None


def privacy_leaks(estimator):
    """``[(path, class name, what its fit reads)]``: see ``find_privacy_leaks``."""
    leaks = []
    for path, est in _components(estimator):
        if _qualnames(type(est)) & _CONTAINERS:
            reads = _container_leak(est)
            if reads is not None:
                leaks.append((path, type(est).__name__, reads))
            continue
        if _is_private(est) or _safe_reason(est) is not None:
            continue
        name = type(est).__name__
        if name == "SimpleImputer":
            reads = f"the {est.get_params()['strategy']} of every column"
            if est.get_params()["strategy"] == "constant":
                reads = "which columns have no observed value, or missing values"
        else:
            reads = _READS.get(name, "its fitted state from the data")
        leaks.append((path, name, reads))
    return leaks


def step_leak_message(path, name, reads):
    """The message of one non-private step (the same for every caller)."""
    where = f"step {path!r} ({name})" if path else name
    return (
        f"{where} fits on the private data without a privacy mechanism: it reads "
        f"{reads}, released without noise and not covered by epsilon_. Use "
        "sklearn_dpgd.preprocessing (or sklearn_dpgd.pipeline.make_private_pipeline)"
        " or declare these values public."
    )


def _enclosing(frame):
    """``(containers, {kind: class name})`` of the scikit-learn frames above."""
    containers, kinds = [], {}
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("sklearn."):
            kind = _CONSTRUCT_FUNCTIONS.get((module, frame.f_code.co_name))
            owner = None
            if "self" in frame.f_code.co_varnames:
                owner = frame.f_locals.get("self")
            if owner is not None:
                names = _qualnames(type(owner))
                if names & _CONTAINERS and all(owner is not c for c in containers):
                    containers.append(owner)
                kind = next(
                    (k for q, k in _CONSTRUCT_CLASSES.items() if q in names), kind
                )
            if kind is not None:
                if owner is not None and names & set(_CONSTRUCT_CLASSES):
                    kinds[kind] = type(owner).__name__  # the class names it best
                else:
                    kinds.setdefault(kind, _DEFAULT_NAMES.get(kind, kind))
        frame = frame.f_back
    return containers, kinds


def boundary_leaks(frame):
    """``[(key, message)]`` of every leak around a fit called below ``frame``."""
    containers, kinds = _enclosing(frame)
    for kind in list(kinds):
        for covered in _COVERS.get(kind, ()):
            kinds.pop(covered, None)
    found = {}
    for container in reversed(containers):  # outermost first: the fullest paths
        for path, name, reads in privacy_leaks(container):
            key = ("step", path, name, reads)
            found.setdefault((name, reads), (key, step_leak_message(path, name, reads)))
    leaks = list(found.values())
    for kind, name in kinds.items():
        leaks.append((("construct", kind, name), _CONSTRUCTS[kind].format(name=name)))
    return leaks


def report_leaks(leaks, stacklevel=3):
    """Warn once per process for each leak, or raise the first in strict mode.

    Raises
    ------
    PrivacyLeakError
        While a ``PrivacyLedger(strict=True)`` is open, for the first leak.
    """
    if leaks and _strict_mode():
        raise PrivacyLeakError(
            leaks[0][1] + " (strict mode: nothing was read by the private fit)"
        )
    if leaks:
        # Point at the user's line: the first caller outside the package, scikit-
        # learn, joblib and the standard library's thread machinery.
        frame, level = sys._getframe(1), 1
        while frame is not None and (
            frame.f_globals.get("__name__", "").partition(".")[0] in _INTERNAL
        ):
            frame, level = frame.f_back, level + 1
        stacklevel = level + 1 if frame is not None else stacklevel
    for key, message in leaks:
        warn_once(message, PrivacyLeakWarning, stacklevel=stacklevel, key=key)


def check_fit_boundary(estimator):
    """Report every non-private scikit-learn construct around this fit.

    Called by each private fit of the package before it charges a ledger or
    reads data; see the module docstring for what is recognised.

    Parameters
    ----------
    estimator : estimator object
        The private estimator or transformer about to fit (for the record; the
        call stack above the caller is what is inspected).

    Raises
    ------
    PrivacyLeakError
        In strict mode (a ``PrivacyLedger(strict=True)`` is open), for the first
        leak found, before the fit reads data.

    Warns
    -----
    PrivacyLeakWarning
        Otherwise, once per process for each distinct leak.
    """
    report_leaks(boundary_leaks(sys._getframe(1)), stacklevel=4)


def charge_ledgers(estimator, mechanism, *, neighboring, part=None):
    """The gate of every private fit: check the boundary, then charge the ledgers.

    :func:`check_fit_boundary` (warn, or raise in strict mode), then
    :func:`~sklearn_dpgd.accounting._charge_active_ledgers` with the same
    arguments; both before the fit reads data. A ``secure_mode`` estimator's
    entry carries the support bound of its generators
    (:func:`~sklearn_dpgd._engine._secure.support_tv`).

    Returns
    -------
    charge : object
        What ``_charge_active_ledgers`` returns (``settle(mechanism)`` after the
        fit ran).

    Raises
    ------
    PrivacyLeakError
        In strict mode, for a leak around the fit.
    BudgetExhaustedError, UnrecordedFitError
        As ``_charge_active_ledgers``.
    """
    report_leaks(boundary_leaks(sys._getframe(1)), stacklevel=4)
    # secure_mode's bounded samplers: the entry carries their total-variation
    # bound, which the ledgers pay out of the delta they compose at.
    support = (
        support_tv(GENERATORS_PER_FIT)
        if getattr(estimator, "secure_mode", False)
        else 0.0
    )
    return _charge_active_ledgers(
        estimator, mechanism, neighboring=neighboring, part=part, support=support
    )


def add_secure_support(estimator, n_generators=GENERATORS_PER_FIT):
    """Add the support delta of ``secure_mode`` to a fitted ``delta_``.

    A no-op unless ``estimator.secure_mode``; then ``delta_`` becomes
    :func:`~sklearn_dpgd._engine._secure.add_support_delta` of ``delta_`` and
    ``epsilon_`` (the bounded samplers' total-variation term, rounded up to the
    next float).

    Parameters
    ----------
    estimator : estimator
        Fitted, with ``epsilon_`` and ``delta_``.
    n_generators : int, default=GENERATORS_PER_FIT
        Generators its fit drew from, at most.

    Returns
    -------
    estimator : estimator
        The same object.
    """
    if getattr(estimator, "secure_mode", False):
        estimator.delta_ = add_support_delta(
            estimator.delta_, estimator.epsilon_, n_generators
        )
    return estimator
