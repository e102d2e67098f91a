"""What a fit returns, and the one function that turns it into fitted attributes.

Every solver of the package (``sklearn_dpgd/_solvers/``) returns a
:class:`FitResult`; no solver sees an estimator. The estimators write their fitted
attributes with :func:`set_fitted` only, so the list of what a fit releases exists
once.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np


@dataclass(frozen=True)
class FitResult:
    """The public outputs of one private fit (what the estimator releases).

    Parameters
    ----------
    coef : ndarray of shape (n_outputs, n_features)
        Coefficients, in the dtype of the training data.
    intercept : ndarray of shape (n_outputs,)
        Intercepts (zeros when the model has none), same dtype.
    ledger : tuple of records
        The mechanisms run, in order (``ledger_``).
    mu : float or None
        GDP parameter spent (``mu_``), None where no GDP closed form applies.
    epsilon : float
        Epsilon spent or guaranteed (``epsilon_``).
    delta : float
        Delta of the guarantee (``delta_``).
    public_n_samples : int
        The public size the fit used (``public_n_samples_``).
    n_iter : int or None, default=None
        Training steps taken (``n_iter_``); None if the estimator has no such
        attribute.
    learning_rates : ndarray of shape (n_iter,) or None, default=None
        Step sizes used (``learning_rates_``); None if none.
    noise_multipliers : ndarray of shape (n_iter,) or None, default=None
        Noise multipliers of the training steps (``noise_multipliers_``); None if
        the estimator has no such attribute.
    outputs : mapping of str to object, default={}
        Further public attributes of this estimator, by attribute name (each ends
        with ``"_"``): e.g. ``schedule_``, ``clip_norm_``, ``alpha_``,
        ``calibration_``, ``calibration_scale_`` of the gradient-descent
        estimators, ``sensitivity_`` and ``noise_scale_`` of output perturbation.

    Raises
    ------
    ValueError
        If a key of ``outputs`` is not a public fitted-attribute name or names a
        field above.
    """

    coef: np.ndarray
    intercept: np.ndarray
    ledger: tuple
    mu: float | None
    epsilon: float
    delta: float
    public_n_samples: int
    n_iter: int | None = None
    learning_rates: np.ndarray | None = None
    noise_multipliers: np.ndarray | None = None
    outputs: Mapping = field(default_factory=dict)

    def __post_init__(self):
        fields = {f"{name}_" for name in self.__dataclass_fields__}
        for name in self.outputs:
            if not (
                isinstance(name, str)
                and name.isidentifier()
                and name.endswith("_")
                and not name.startswith("_")
            ):
                raise ValueError(
                    f"outputs keys must be fitted-attribute names, got {name!r}."
                )
            if name in fields:
                raise ValueError(f"outputs must not repeat the field {name!r}.")
        object.__setattr__(self, "outputs", MappingProxyType(dict(self.outputs)))


def model_arrays(coef, intercept, dtype, fit_intercept):
    """``(coef, intercept)`` in ``dtype``; zero intercepts without ``fit_intercept``.

    Parameters
    ----------
    coef : array-like of shape (n_outputs, n_features)
    intercept : array-like of shape (n_outputs,) or None
        Ignored (zeros are returned) when ``fit_intercept`` is False.
    dtype : numpy dtype
        The dtype of the training data.
    fit_intercept : bool

    Returns
    -------
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    """
    coef = np.asarray(coef).astype(dtype)
    if not fit_intercept:
        intercept = np.zeros(coef.shape[0])
    return coef, np.asarray(intercept).astype(dtype)


def set_fitted(estimator, result):
    """Write every fitted attribute of ``estimator`` from ``result``.

    ``coef_``, ``intercept_``, ``ledger_``, ``mu_``, ``epsilon_``, ``delta_``,
    ``public_n_samples_``; ``n_iter_``, ``learning_rates_`` and
    ``noise_multipliers_`` where ``result`` has them; then ``result.outputs``.
    ``classes_`` and ``n_features_in_`` are set by the validation of the data.

    Parameters
    ----------
    estimator : estimator
    result : FitResult

    Returns
    -------
    estimator : estimator
        The same object, fitted.

    Raises
    ------
    TypeError
        If ``result`` is not a :class:`FitResult`.
    """
    if not isinstance(result, FitResult):
        raise TypeError(f"result must be a FitResult, got {type(result).__name__}.")
    estimator.coef_ = result.coef
    estimator.intercept_ = result.intercept
    estimator.ledger_ = result.ledger
    estimator.mu_ = result.mu
    estimator.epsilon_ = result.epsilon
    estimator.delta_ = result.delta
    estimator.public_n_samples_ = result.public_n_samples
    for name in ("n_iter", "learning_rates", "noise_multipliers"):
        value = getattr(result, name)
        if value is not None:
            setattr(estimator, f"{name}_", value)
    for name, value in result.outputs.items():
        setattr(estimator, name, value)
    return estimator
