"""Errors shared by every estimator: unfitted attributes, scikit-learn's parameters.

Two mixins every estimator of the package inherits (through
:class:`NotFittedAttributesMixin`): reading a fitted attribute before ``fit``
raises scikit-learn's :class:`~sklearn.exceptions.NotFittedError`, and a
parameter of scikit-learn's counterpart that does not exist here (``penalty``,
``tol``, ``n_jobs``, ``warm_start``, ``scoring``, ...) raises a TypeError naming
what to use instead, as scikit-learn's own deprecations do.
"""

import functools
import inspect

from sklearn.exceptions import NotFittedError

__all__ = ["NotFittedAttributesMixin", "SKLEARN_REPLACEMENTS", "SklearnParametersMixin"]

_SEARCH = "the search picks by a private comparison"
#: scikit-learn's parameters that do not exist here, by name: ``(replacements,
#: why)``. A replacement is named only where the class has it (e.g. ``C`` or
#: ``l1_ratio`` for ``penalty``); ``why`` says what takes the parameter's place.
SKLEARN_REPLACEMENTS = {
    "penalty": (
        ("l1_ratio", "C", "alpha"),
        "as in scikit-learn 1.8+, the penalty's kind is l1_ratio (0: L2, 1: L1) "
        "where the estimator has one, and its strength C or alpha (none: "
        "alpha=0 or C=np.inf)",
    ),
    "tol": (
        ("max_iter",),
        "a private fit runs a public number of steps; stopping on the training "
        "loss would be a query that costs privacy",
    ),
    "n_iter_no_change": (("max_iter",), "a private fit runs a public number of steps"),
    "early_stopping": (("max_iter",), "a private fit runs a public number of steps"),
    "n_jobs": (
        (),
        "the kernels' threads follow NUMBA_NUM_THREADS and threadpoolctl; "
        "PrivateGridSearchCV(n_jobs=...) runs candidates in parallel",
    ),
    "warm_start": (
        (),
        "pass a public start (or an earlier release whose budget you count) to "
        "fit(X, y, coef_init=..., intercept_init=...)",
    ),
    "dual": ((), "a liblinear option; the fit here is noisy gradient descent"),
    "intercept_scaling": (
        (),
        "a liblinear option; the intercept is clipped with the coefficients",
    ),
    "multi_class": ((), "multiclass models are multinomial (declare classes=)"),
    "eta0": (("learning_rate",), "the step size is learning_rate (a float or 'auto')"),
    "copy_X": ((), "the training data are never modified"),
    "with_mean": (("bounds",), "the DP mean is always removed; declare bounds"),
    "with_std": (("bounds",), "the DP scale is always applied; declare bounds"),
    "feature_range": (("bounds", "bounds_range"), "the output range is [0, 1]"),
    "handle_unknown": (
        (),
        "unknown, rare and missing values go to one <feature>_other column",
    ),
    "sparse_output": ((), "the output is a dense array of 0/1 floats"),
    "drop": ((), "every category keeps its column, plus <feature>_other"),
    "missing_values": (("strategy",), "the missing values are NaN"),
    "add_indicator": ((), "no indicator columns: a count of them would be private"),
    "scoring": (
        (),
        f"{_SEARCH} of accuracy (R^2 for regressors) on a validation part, "
        "report-noisy-max; another score would need its own sensitivity",
    ),
    "refit": (
        ("refit_share",),
        "the winner is always refit on all rows, on refit_share of the budget",
    ),
    "return_train_score": ((), f"{_SEARCH}; scores on training rows are private"),
    "error_score": ((), "a failing candidate raises"),
    "pre_dispatch": (("n_jobs",), "candidates are dispatched by n_jobs"),
}


def _refusing(init):
    """Wrap ``init`` so that a scikit-learn parameter it lacks raises TypeError."""
    accepted = set(inspect.signature(init).parameters)

    @functools.wraps(init)  # inspect.signature (get_params, clone) sees ``init``
    def __init__(self, *args, **params):
        for name in params:
            if name in SKLEARN_REPLACEMENTS and name not in accepted:
                raise TypeError(_message(type(self).__name__, name, accepted))
        init(self, *args, **params)

    __init__._refuses_sklearn_parameters = True
    return __init__


def _message(cls_name, name, accepted):
    replacements, why = SKLEARN_REPLACEMENTS[name]
    present = [r for r in replacements if r in accepted]
    use = f"use {' or '.join(present)} instead: " if present else ""
    return (
        f"{cls_name}.__init__() got an unexpected keyword argument {name!r}: "
        f"scikit-learn's {name} has no counterpart here; {use}{why} (see the "
        "'Coming from scikit-learn' page)."
    )


class SklearnParametersMixin:
    """Refuse scikit-learn's parameters that do not exist here with a pointer.

    A subclass's own ``__init__`` is wrapped when the class is created: a keyword
    of :data:`SKLEARN_REPLACEMENTS` absent from its signature raises a TypeError
    that names the parameters to use instead (e.g. ``DPLogisticRegression(
    penalty="l1")`` names ``l1_ratio`` and ``C``); any other unknown keyword
    gets Python's usual TypeError. The wrapper keeps the signature
    (:func:`functools.wraps`), so ``get_params``, ``clone`` and pickling see
    the plain ``__init__`` and its parameters, and ``__init__`` still only
    stores them.

    Raises
    ------
    TypeError
        At construction, for a scikit-learn parameter the class lacks.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not hasattr(init, "_refuses_sklearn_parameters"):
            cls.__init__ = _refusing(init)


class NotFittedAttributesMixin(SklearnParametersMixin):
    """Read a fitted attribute before ``fit``: NotFittedError, not AttributeError.

    Every public name ending in ``_`` (``coef_``, ``epsilon_``, ``ledger_``,
    ``public_n_samples_``, ...) read on an unfitted estimator raises
    :class:`sklearn.exceptions.NotFittedError`, which subclasses AttributeError, so
    ``hasattr`` stays False as scikit-learn's convention requires. On a fitted
    estimator a missing attribute (e.g. ``feature_names_in_`` after fitting on an
    array) raises Python's own AttributeError, as does any other name. Through
    :class:`SklearnParametersMixin`, scikit-learn's parameters that do not exist
    here raise a TypeError naming their replacement.
    """

    def __getattr__(self, name):
        # Called only when normal lookup failed. vars() rather than getattr, which
        # would recurse; "fitted" is scikit-learn's rule (check_is_fitted).
        if (
            name.endswith("_")
            and not name.startswith("_")
            and not any(k.endswith("_") and not k.startswith("__") for k in vars(self))
        ):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet: call 'fit' "
                f"with appropriate arguments before reading {name!r}."
            )
        # Re-raise the original error (e.g. of an available_if descriptor).
        return object.__getattribute__(self, name)
