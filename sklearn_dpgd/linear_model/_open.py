"""What a "gd", "pgd" or "newton" fit does before its solver reads a row.

:func:`open_fit` charges the open ledgers with the fit's whole planned cost,
then draws the fit's generator and releases the public size (the noisy count
under add/remove-one without ``public_n_samples``), so that ``solver="auto"``
can read the released size and hand the opened fit to the solver it picks (one
count). A module of its own so that every solver's estimator layer can use it
without an import cycle.
"""

from dataclasses import dataclass

from .._boundary import charge_ledgers
from .._engine._randomness import make_generator

__all__ = ["OpenFit", "open_fit"]


@dataclass(frozen=True)
class OpenFit:
    """What a "gd" or "pgd" fit has done before its solver reads a row.

    Attributes
    ----------
    mu : float
        The fit's whole GDP budget, ``gdp_mu(epsilon, delta)``.
    z_count : float or None
        Noise multiplier of the count of the rows (add/remove-one without
        ``public_n_samples``), or None when the size is public. The regressors'
        "auto" folds its long-row count into it (one record of the two
        sensitivity-1 Gaussian releases' exact composition:
        ``_regression_auto.py``); the solvers charge it first to their filter.
    mu_train : float
        What the count left of ``mu`` (``mu_train^2 = mu^2 - z_count^-2``).
    planned : tuple or EpsilonDeltaRecord
        What the open ledgers were charged with.
    ledger_charge : object
        The charge, settled when the solver returns.
    rng : numpy.random.Generator
        The fit's generator; the count drew from it first.
    n_samples : int
        The public size ``m``: ``public_n_samples``, the row count under
        replace-one, or the noisy count (a released value).
    """

    mu: float
    z_count: object
    mu_train: float
    planned: object
    ledger_charge: object
    rng: object
    n_samples: int


def open_fit(estimator, X, seed, adaptive=False):
    """Charge the open ledgers, then release the public size: an :class:`OpenFit`.

    The whole planned cost of the fit (the count included) is charged before any
    row is read; then the count of the rows, when the size is private, is drawn
    first from the fit's generator. ``solver="gd"`` and ``solver="pgd"`` do
    exactly this (the same share of the budget, the same mechanism, the same
    draws), so ``solver="auto"`` can open the fit, read the released size ``m``
    and hand the opened fit to the solver it picks: there is one count.

    Parameters
    ----------
    estimator : DPLogisticRegression or another linear model
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    seed : int or None
    adaptive : bool, default=False
        Whether the schedule is adaptive (its ledger record differs).

    Returns
    -------
    opened : OpenFit

    Raises
    ------
    BudgetExhaustedError
        If an open ledger's cap refuses the charge (before any row is read).
    """
    mu, z_count, mu_train, planned = estimator._budget(adaptive)
    ledger_charge = charge_ledgers(
        estimator, planned, neighboring=estimator.neighboring
    )
    rng = make_generator(seed, estimator.secure_mode)
    m = estimator._public_size(X.shape[0], z_count, rng)
    return OpenFit(mu, z_count, mu_train, planned, ledger_charge, rng, m)
