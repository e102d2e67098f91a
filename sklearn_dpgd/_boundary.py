"""The scikit-learn boundary: what reads the private data around a private fit.

A mechanism of this package is private on its own; the scikit-learn machinery
around it may not be. A ``StandardScaler`` in the same ``Pipeline`` releases the
exact mean and variance of every column; ``GridSearchCV`` releases the exact
held-out scores of its candidates and picks the best by them; ``BaggingClassifier``
duplicates rows in its bootstrap samples, multiplying their influence. None of it
is covered by ``epsilon_``.

**How it is detected: default-deny.** Every private fit of the package calls
:func:`check_fit_boundary` before it charges a ledger or reads data. It walks the
Python call stack of the fit and takes the frames between the fit and the
outermost frame of the user's code (all of them in a joblib worker, where no user
code runs). Each frame of scikit-learn or another third-party package (installed
under ``site-packages``; :func:`~sklearn_dpgd._warnings.frame_origin`) is looked up
in the one table :data:`~sklearn_dpgd._boundary_table.TABLE`, by the classes of its
``self`` (through the MRO) or the module and name of its function:

* known-private (``clone``, joblib and ``sklearn.utils.parallel`` plumbing,
  ``SelectFromModel``, ``FixedThresholdClassifier``, a ``TransformedTargetRegressor``
  with a public row-wise ``func``): silent;
* containers (``Pipeline``, ``ColumnTransformer``, ``FeatureUnion``): each of their
  steps is checked by :func:`privacy_leaks`, the same check as
  :func:`~sklearn_dpgd.pipeline.find_privacy_leaks`;
* known-leaky (searches, cross-validation, calibration, stacking, bagging,
  boosting, ``RFECV``, ``SequentialFeatureSelector``, ``TunedThresholdClassifierCV``,
  ``SelfTrainingClassifier``, a ``TransformedTargetRegressor`` fitting its
  transformer on y) and composing (one-vs-rest, one-vs-one, voting, ``RFE``,
  multi-output and chains: k private fits whose spends compose): each is one leak,
  named with what it releases and what to use instead;
* anything else is not known to be private: a warning naming it.

The package's own code and the user's own code are never flagged.

Each distinct leak is recorded in every open :class:`~sklearn_dpgd.accounting.
PrivacyLedger` (:attr:`~sklearn_dpgd.accounting.PrivacyLedger.leaks`) and is a
:class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` shown once per process, at the
user's line, through the ``warnings`` machinery (so the standard filters silence
it); while a ``PrivacyLedger(strict=True)`` is open it is a
:class:`~sklearn_dpgd.exceptions.PrivacyLeakError` raised before the fit reads
data. scikit-learn's searches and cross-validation clone the estimator in the
caller's process before they fit it: :func:`check_clone_boundary` (run by the
estimators' clone) reports the classified leaks there, so strict mode stops a search
before its first fit and a joblib worker does not repeat the warning. Other wrappers
clone inside their workers (see the limits). ``BaggingClassifier`` with bootstrap
samples is refused in any mode (its counts reach the fit as weights the noise is
not calibrated to).

**Limits.** ``OneVsRestClassifier``, ``OneVsOneClassifier``, the multi-output
wrappers and bagging with ``n_jobs > 1`` clone the estimator inside the joblib
worker, not in the caller's process: under a process backend (loky) their leak is
warned in the worker (on its stderr), the caller sees no warning, and strict mode
is not in force there (with a ledger open, the clone keeps the process guard, so
the fit is refused as unrecorded instead). The stack of a fit shows its callers in
its own thread. In a worker
thread or process of a construct's ``n_jobs`` only the construct's worker function
is on it: the classified worker functions are recognised there too, but the
siblings of a private step inside a ``ColumnTransformer(n_jobs=2)`` are seen only
when a private step of the enclosing ``Pipeline`` fits in the caller's thread (the
final estimator does). A non-private step that runs *before* the first private fit
(a ``StandardScaler`` ahead of the classifier) has been fitted when the warning, or
the strict error, comes; the error then stops the pipeline before anything is
returned, but the fitted step stays in the user's object:
:func:`~sklearn_dpgd.pipeline.make_private_pipeline` and
:class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` check every step before
fitting any. A construct that never fits a package estimator
(``CalibratedClassifierCV`` on a ``FrozenEstimator``, ``permutation_importance``,
a ``score`` call on private rows) runs no private fit and is not seen. The user's
own code (a hand-written loop that scores models on private rows) is not
inspected. On Python 3.10 (no qualified names of code objects) an unlisted inner
function in a module the table lists is taken as part of that module's construct.
"""

import sys

import numpy as np

from ._boundary_table import (
    COMPOSING,
    CONTAINER,
    COVERS,
    DEFAULT_NAMES,
    LEAKY,
    MESSAGES,
    PLUMBING_MODULES,
    PRIVATE,
    TABLE,
    TARGET,
    UNKNOWN_MESSAGE,
)
from ._engine._secure import GENERATORS_PER_FIT, add_support_delta, support_tv
from ._warnings import frame_origin, user_frame, warn_once
from .accounting import (
    _charge_active_ledgers,
    _copy_ledger_guard,
    _record_leak,
    _strict_mode,
)
from .exceptions import PrivacyLeakError, PrivacyLeakWarning

__all__ = [
    "charge_ledgers",
    "check_clone_boundary",
    "check_fit_boundary",
    "privacy_leaks",
]

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
_CONTAINERS = {key for key, (status, _) in TABLE.items() if status == CONTAINER}


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
    """Whether a transformer inside a ColumnTransformer may output a sparse matrix.

    A ``Pipeline`` by its last step, a ``FeatureUnion`` by any of its transformers,
    a nested ``ColumnTransformer`` by its own threshold and transformers.
    """
    if not hasattr(est, "get_params"):
        return False
    params = est.get_params(deep=False)
    name = type(est).__name__
    if isinstance(params.get("steps"), list):  # a Pipeline: what its last step gives
        last = [s for _, s in params["steps"] if s not in (None, "passthrough")]
        return bool(last) and _may_be_sparse(last[-1])
    if isinstance(params.get("transformer_list"), list):  # a FeatureUnion
        return any(_may_be_sparse(t) for _, t in params["transformer_list"])
    if isinstance(params.get("transformers"), list):  # a nested ColumnTransformer
        return _container_leak(est) is not None
    # The package's DPTableVectorizer builds its ColumnTransformer with
    # sparse_threshold=0: always dense, whatever its name says.
    own = type(est).__module__.startswith("sklearn_dpgd.")
    return (
        (name.endswith("Vectorizer") and not own)
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
        entry = _class_entry(type(est))
        if entry is not None:
            # A wrapper the table classifies (its inner estimator is a component
            # of its own): silent if known-private, else its construct's message.
            status, kind = entry
            if status == PRIVATE or (status == TARGET and _target_is_private(est)):
                continue
            epsilon, _ = _budget(_inner_estimator(est.get_params(deep=False)))
            message = MESSAGES[kind].format(
                name=name, epsilon=epsilon, total=_total(None, epsilon, 0.0)
            )
            leaks.append((path, name, _ConstructMessage(message)))
            continue
        if name == "SimpleImputer":
            reads = f"the {est.get_params()['strategy']} of every column"
            if est.get_params()["strategy"] == "constant":
                reads = "which columns have no observed value, or missing values"
        else:
            reads = _READS.get(name, "its fitted state from the data")
        leaks.append((path, name, reads))
    return leaks


class _ConstructMessage(str):
    """What a classified leaky or composing wrapper releases: its table message."""


def step_leak_message(path, name, reads):
    """The message of one non-private step (the same for every caller)."""
    where = f"step {path!r} ({name})" if path else name
    if isinstance(reads, _ConstructMessage):
        return f"{where}: {reads}"
    return (
        f"{where} fits on the private data without a privacy mechanism: it reads "
        f"{reads}, released without noise and not covered by epsilon_. Use "
        "sklearn_dpgd.preprocessing (or sklearn_dpgd.pipeline.make_private_pipeline)"
        " or declare these values public."
    )


_TABLE_MODULES = {module for module, _ in TABLE}


def _plumbing(module):
    return any(module == p or module.startswith(p + ".") for p in PLUMBING_MODULES)


def _target_is_private(owner):
    """A TransformedTargetRegressor that never fits on y: a public row-wise func."""
    params = owner.get_params(deep=False)
    if params.get("transformer") is not None:
        return False
    if params.get("func") is None and params.get("inverse_func") is None:
        return True  # the identity
    return _declared_row_wise(params.get("func")) and not params.get("check_inverse")


def _class_entry(cls):
    """The table's ``(status, kind)`` of a class, by its MRO; None if unlisted."""
    for base in cls.__mro__:
        if base.__module__ == "sklearn.base":
            # BaseEstimator and the mixins are bases of every estimator, listed or
            # not: the frames they define are classified by module and name (in
            # _classify), and an unlisted subclass stays unknown (default-deny).
            continue
        entry = TABLE.get((base.__module__, base.__name__))
        if entry is not None:
            return entry
    return None


def _classify(frame):
    """``(status, kind, name, owner)`` of a third-party frame; None if not a construct.

    By the classes of its ``self`` (MRO, most specific first), else by the module
    and the first part of the qualified name of its code (a method's class, or the
    function a closure or generator belongs to); an entry of neither is
    ``("unknown", None, name, None)``.
    """
    module = frame.f_globals.get("__name__", "")
    if _plumbing(module):
        return None
    code = frame.f_code
    owner = None
    # A method's self, or the self a closure of a method holds (a search's
    # evaluate_candidates, run by joblib's callbacks in a worker thread).
    if (code.co_argcount and code.co_varnames[0] == "self") or (
        "self" in code.co_freevars
    ):
        owner = frame.f_locals.get("self")
        if type(owner).__module__.startswith("sklearn_dpgd."):
            return None  # the package's own object running inherited code
        entry = _class_entry(type(owner))
        if entry is not None:
            return entry[0], entry[1], type(owner).__name__, owner
    head = getattr(code, "co_qualname", code.co_name).partition(".")[0]
    if head.startswith("<"):
        return None  # an inline expression of a frame further up
    entry = TABLE.get((module, head))
    if entry is None and not hasattr(code, "co_qualname") and module in _TABLE_MODULES:
        # Python 3.10: a closure (a decorator's wrapper) shows only its own name;
        # in a module the table classifies, it is taken as part of its construct
        # (after the lookup: a top-level function's own name is its qualified one).
        return None
    if entry is not None:
        # A function names its kind (its own name varies between the parent's
        # clone and the worker's fit, and one leak must be one key).
        return entry[0], entry[1], DEFAULT_NAMES.get(entry[1], entry[1]), None
    name = type(owner).__name__ if owner is not None else head
    return "unknown", None, f"{name}", None


def _region(frame):
    """The third-party frames between the user's outermost call and ``frame``.

    Frames above the outermost frame of user code (a test runner, a notebook
    kernel) do not run the fit on the user's behalf; with no user code on the
    stack (a joblib worker) the whole stack counts.
    """
    frames = []
    last_user = None
    while frame is not None:
        origin = frame_origin(frame)
        if origin == "user":
            last_user = len(frames)
        frames.append((frame, origin))
        frame = frame.f_back
    if last_user is not None:
        frames = frames[:last_user]
    return [f for f, origin in frames if origin == "third"]


def _public_fit_count(kind, frame):
    """How many private fits a composing wrapper makes, from public shapes; or None.

    Only numbers of columns and the wrapper's parameters (never a count of rows or
    of labels read from y): outputs of a multi-output wrapper or chain, the
    elimination steps of ``RFE`` (read from the locals of its fit).
    """
    local = frame.f_locals
    if kind in ("multioutput", "chain"):
        shape = np.shape(local.get("y" if kind == "multioutput" else "Y"))
        return shape[1] if len(shape) == 2 else None
    if kind == "rfe" and {"n_features", "n_features_to_select", "step"} <= set(local):
        n, keep, step = (
            local[k] for k in ("n_features", "n_features_to_select", "step")
        )
        if isinstance(step, int) and step >= 1 and n >= keep:
            return -(-(n - keep) // step) + 1  # the eliminations, then the final fit
    return None


def _enclosing(frame):
    """``(containers, {kind: name}, unknown, bootstrap, {kind: fits})`` above."""
    containers, kinds, unknown, bootstrap, fits = [], {}, {}, False, {}
    for f in _region(frame):
        found = _classify(f)
        if found is None:
            continue
        status, kind, name, owner = found
        if status == "unknown":
            module = f.f_globals.get("__name__", "")
            unknown.setdefault((module, name), None)
            continue
        if status == CONTAINER:
            if all(owner is not c for c in containers):
                containers.append(owner)
            continue
        if status == TARGET and _target_is_private(owner):
            continue
        if status in (LEAKY, COMPOSING, TARGET):
            if kind == "bagging":
                params = owner.get_params(deep=False) if owner is not None else {}
                bootstrap = bootstrap or bool(
                    params.get("bootstrap", f.f_locals.get("bootstrap", True))
                )
            if status == COMPOSING and fits.get(kind) is None:
                fits[kind] = _public_fit_count(kind, f)
            if owner is not None:
                kinds[kind] = name  # the class names it best
            else:
                kinds.setdefault(kind, name)
    return containers, kinds, list(unknown), bootstrap, fits


def _inner_estimator(params):
    """A wrapper's (first) inner estimator: ``estimator``, or the first of
    ``estimators`` (Voting, Stacking), or None."""
    if params.get("estimator") is not None:
        return params["estimator"]
    named = params.get("estimators") or []
    return named[0][1] if named and isinstance(named[0], tuple) else None


def _budget(estimator):
    """The estimator's ``(epsilon, delta)`` parameters (nan where it has none)."""
    values = [getattr(estimator, k, None) for k in ("epsilon", "delta")]
    return [float(v) if isinstance(v, (int, float)) else float("nan") for v in values]


def _total(fits, epsilon, delta):
    """The basic-composition total of ``fits`` fits at ``(epsilon, delta)`` each."""
    if fits is None:
        return " (up to their sum)"
    return (
        f" ({fits} fits: at most epsilon={fits * epsilon:g} at delta="
        f"{fits * delta:g} by sequential composition)"
    )


def boundary_leaks(frame, estimator=None, *, known_only=False, enclosing=None):
    """``[(key, construct, message)]`` of every leak around a fit called below.

    ``known_only``: the classified constructs only (the check made when a
    construct clones the estimator, before it fits anything). ``enclosing``:
    ``_enclosing(frame)`` if the caller has it already.
    """
    containers, kinds, unknown, bootstrap, fits = enclosing or _enclosing(frame)
    if estimator is not None:
        _check_binary_subproblems(kinds, estimator)
    for kind in list(kinds):
        for covered in COVERS.get(kind, ()):
            kinds.pop(covered, None)
    found = {}
    for container in reversed(containers):  # outermost first: the fullest paths
        for path, name, reads in privacy_leaks(container):
            key = ("step", path, name, reads)
            message = step_leak_message(path, name, reads)
            found.setdefault((name, reads), (key, name, message))
    leaks = list(found.values())
    epsilon, delta = _budget(estimator)
    if "bagging" in kinds and not bootstrap:  # subsets without replacement
        kinds["subsets"] = kinds.pop("bagging")
    for kind, name in kinds.items():
        total = _total(fits.get(kind), epsilon, delta)
        message = MESSAGES[kind].format(name=name, epsilon=epsilon, total=total)
        if kind == "bagging":
            message += (
                " Refused (not only warned): its bootstrap counts reach the fit "
                "as sample_weight above the public max_sample_weight."
            )
        # Keyed by kind, not name: the clone (by the class) and a worker's fit (by
        # DEFAULT_NAMES) name one leak differently, and it is one leak.
        leaks.append((("construct", kind), name, message))
    if not known_only:
        for module, name in unknown:
            message = UNKNOWN_MESSAGE.format(name=name, module=module)
            leaks.append((("unknown", module, name), name, message))
    return leaks


def _check_binary_subproblems(kinds, estimator):
    """A one-vs-rest or one-vs-one wrapper gives each fit a binary 0/1 target."""
    classes = getattr(estimator, "classes", None)
    if classes is None or not ({"ovr", "ovo"} & set(kinds)):
        return
    if len(classes) != 2:
        name = kinds.get("ovr", kinds.get("ovo"))
        raise ValueError(
            f"{type(estimator).__name__}(classes={list(classes)!r}) inside {name}: "
            "each of its sub-problems is binary (the wrapper relabels y as 0/1 for "
            "every fit), so pass classes=[0, 1]; or drop the wrapper and fit "
            f"{type(estimator).__name__}(classes={list(classes)!r}) directly (one "
            "multiclass fit, one budget)."
        )


def _user_location():
    frame, _ = user_frame(sys._getframe(2))
    if frame is None:
        return "(no user code on the stack: a worker thread or process)"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def report_leaks(leaks, estimator=None):
    """Record each leak in the open ledgers, then warn, or raise in strict mode.

    Leaks already reported for this estimator when a construct cloned it (in the
    caller's process, at the user's line) are skipped: the fit in a joblib
    worker does not repeat them.

    Returns
    -------
    keys : list
        The keys of the leaks reported.

    Raises
    ------
    PrivacyLeakError
        While a ``PrivacyLedger(strict=True)`` is open, for the first leak; and
        for ``BaggingClassifier`` with bootstrap samples in any mode.
    """
    done = () if estimator is None else vars(estimator).get("_boundary_reported", ())
    leaks = [leak for leak in leaks if leak[0] not in done]
    if not leaks:
        return []
    location = _user_location()
    for key, construct, message in leaks:
        _record_leak(key, construct, message, location)
    refused = [m for k, _, m in leaks if k[:2] == ("construct", "bagging")]
    if refused:
        raise PrivacyLeakError(refused[0])
    if _strict_mode():
        raise PrivacyLeakError(
            leaks[0][2] + " (strict mode: nothing was read by the private fit)"
        )
    for key, construct, message in leaks:
        # Each named construct is warned once (a GridSearchCV, then a
        # RandomizedSearchCV), though both are one kind of leak.
        warn_once(message, PrivacyLeakWarning, stacklevel=3, key=(*key, construct))
    return [key for key, _, _ in leaks]


def check_fit_boundary(estimator):
    """Report every construct around this fit that is not known to be private.

    Called by each private fit of the package before it charges a ledger or
    reads data; see the module docstring for what is classified how.

    Parameters
    ----------
    estimator : estimator object
        The private estimator or transformer about to fit (its ``epsilon`` is
        quoted for composing wrappers; the call stack above the caller is what is
        inspected).

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
    report_leaks(boundary_leaks(sys._getframe(1), estimator), estimator)


def check_clone_boundary(estimator, clone):
    """Report the classified leaks of a construct when it clones a private estimator.

    scikit-learn's searches and cross-validation clone the estimator in the
    caller's process before they dispatch its fits (one-vs-rest, one-vs-one,
    multi-output and bagging wrappers clone in their joblib workers): a leak found
    here is
    recorded and warned at the user's line (once, not by every joblib worker), or
    raised in strict mode before any fit starts (not inside scikit-learn's "All
    the fits failed"). The clone remembers what was reported, so its fits do
    not repeat it.

    Parameters
    ----------
    estimator : estimator object
        The private estimator being cloned.
    clone : estimator object
        Its clone (returned by the caller).

    Raises
    ------
    PrivacyLeakError
        In strict mode, for the first classified leak around the clone.
    """
    frame = sys._getframe(1)
    found = (_classify(f) for f in _region(frame))
    if not any(c is not None and c[0] != PRIVATE for c in found):
        return  # the user's own clone (only clone's plumbing): nothing to mark
    # A construct's clone (in a worker process too): its fit stays refused where
    # no ledger is open, as the original's would be.
    _copy_ledger_guard(estimator, clone)
    user, _ = user_frame(frame)
    if user is not None:  # where the fits' own warnings point, from any worker
        clone._boundary_location = (
            user.f_code.co_filename,
            user.f_lineno,
            user.f_globals.get("__name__", "__main__"),
        )
    enclosing = _enclosing(frame)
    if not enclosing[1]:
        # No leaky or composing construct above, so no construct leak below: a
        # plain clone (the user's, a container's), which the fit checks. Said
        # before the containers' steps are walked (a deep get_params of each,
        # a few ms a clone inside a pipeline's ColumnTransformer).
        return
    leaks = boundary_leaks(frame, estimator, known_only=True, enclosing=enclosing)
    if not any(key[0] == "construct" for key, _, _ in leaks):
        return  # a plain clone (the user's, a container's): the fit checks
    # The step leaks of the object being cloned (outermost clone call's estimator).
    root, f = None, frame
    while f is not None:
        if f.f_globals.get("__name__") == "sklearn.base" and f.f_code.co_name == (
            "clone"
        ):
            root = f.f_locals.get("estimator", root)
        f = f.f_back
    keys = {key for key, _, _ in leaks}
    if root is not None and root is not estimator:
        for path, name, reads in privacy_leaks(root):
            key = ("step", path, name, reads)
            if key not in keys:
                keys.add(key)
                leaks.append((key, name, step_leak_message(path, name, reads)))
    reported = report_leaks(leaks)
    # What the reported constructs cover is reported too: a search's fits in a
    # worker see only its cross-validation.
    kinds = {key[1] for key in reported if key[0] == "construct"}
    covered = {c for kind in kinds for c in COVERS.get(kind, ())}
    reported += [("construct", c) for c in covered]
    clone._boundary_reported = frozenset(reported)


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
    report_leaks(boundary_leaks(sys._getframe(1), estimator), estimator)
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
