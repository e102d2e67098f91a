"""Errors shared by every estimator: refused sample weights, unfitted attributes."""

from sklearn.exceptions import NotFittedError

__all__ = ["NotFittedAttributesMixin", "refuse_sample_weight"]


def refuse_sample_weight(sample_weight, owner):
    """Raise a ValueError for any ``sample_weight`` but None, saying why.

    Parameters
    ----------
    sample_weight : object
        The ``sample_weight`` argument of a ``fit`` call.
    owner : str
        Public name of the estimator, for the message.

    Raises
    ------
    ValueError
        If ``sample_weight`` is not None. Every guarantee of the package bounds the
        influence of one row by the clipping norm (the sensitivity); a weight above
        1 multiplies that influence, and weights without a declared public bound
        leave the sensitivity unbounded, so no noise level would be enough.
    """
    if sample_weight is not None:
        raise ValueError(
            f"{owner}.fit does not support sample_weight; pass None. The privacy "
            "guarantee bounds each row's influence by the clipping norm (clip_norm, "
            "or data_norm for the baselines), and the noise is calibrated to that "
            "bound: a weight above 1 gives a row more influence, so unbounded "
            "weights break the sensitivity."
        )


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
