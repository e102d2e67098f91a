"""Errors shared by every estimator: unfitted attributes, and old pickles."""

import copy
import inspect

from sklearn.exceptions import NotFittedError

__all__ = ["NotFittedAttributesMixin"]


class NotFittedAttributesMixin:
    """Read a fitted attribute before ``fit``: NotFittedError, not AttributeError.

    Every public name ending in ``_`` (``coef_``, ``epsilon_``, ``ledger_``,
    ``public_n_samples_``, ...) read on an unfitted estimator raises
    :class:`sklearn.exceptions.NotFittedError`, which subclasses AttributeError, so
    ``hasattr`` stays False as scikit-learn's convention requires. On a fitted
    estimator a missing attribute (e.g. ``feature_names_in_`` after fitting on an
    array) raises Python's own AttributeError, as does any other name.

    An estimator unpickled from an earlier version of the package that lacks a
    parameter added since (e.g. ``C`` of the linear models) gets that parameter's
    default, so ``repr``, ``get_params`` and ``clone`` work; its fitted attributes,
    and so its predictions, are the pickle's.
    """

    def __setstate__(self, state):
        super().__setstate__(state)
        own = vars(self)
        for name, param in inspect.signature(type(self).__init__).parameters.items():
            if (
                name != "self"
                and name not in own
                and param.default is not inspect.Parameter.empty
            ):
                setattr(self, name, copy.deepcopy(param.default))

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
