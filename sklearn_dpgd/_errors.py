"""Errors shared by every estimator: unfitted attributes, leaks at clone time."""

from sklearn.exceptions import NotFittedError

from ._boundary import check_clone_boundary

__all__ = ["NotFittedAttributesMixin"]


class NotFittedAttributesMixin:
    """Read a fitted attribute before ``fit``: NotFittedError, not AttributeError.

    Every public name ending in ``_`` (``coef_``, ``epsilon_``, ``ledger_``,
    ``public_n_samples_``, ...) read on an unfitted estimator raises
    :class:`sklearn.exceptions.NotFittedError`, which subclasses AttributeError, so
    ``hasattr`` stays False as scikit-learn's convention requires. On a fitted
    estimator a missing attribute (e.g. ``feature_names_in_`` after fitting on an
    array) raises Python's own AttributeError, as does any other name.
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

    def __sklearn_clone__(self):
        """Clone as scikit-learn does, after the boundary check of the caller.

        scikit-learn's searches, cross-validation and wrappers clone the estimator
        before they fit it: :func:`~sklearn_dpgd._boundary.check_clone_boundary`
        names their leak there, at the user's line and before any fit (strict
        mode: raises :class:`~sklearn_dpgd.exceptions.PrivacyLeakError`).

        Returns
        -------
        clone : estimator
            An unfitted estimator with the same parameters.
        """
        clone = super().__sklearn_clone__()
        check_clone_boundary(self, clone)
        return clone
