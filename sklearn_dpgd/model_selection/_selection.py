"""The private comparison of a search's candidates, and what it may spend.

Report-noisy-max of the validation accuracy counts is the exponential mechanism
of McSherry & Talwar ("Mechanism design via differential privacy", FOCS 2007),
sampled with the Gumbel-max trick (Durfee & Rogers, "Practical differentially
private top-k selection with pay-what-you-get composition", NeurIPS 2019): each
count changes by at most one between neighbours and, under add/remove, all counts
move in the same direction (a monotone utility), so Gumbel noise of scale
``1 / epsilon`` is ``epsilon``-DP (Dwork & Roth, "The algorithmic foundations of
differential privacy", 2014, Thm 3.10 and the remark after it); under replace-one
the scale is ``2 / epsilon``. Only the chosen index is released.

:func:`_selection_epsilon` finds the pure epsilon that the comparisons may spend
next to the Gaussian mechanisms that read every row, by the ledger's exact
composition (see :mod:`sklearn_dpgd.model_selection` for the whole argument).
"""

import functools

import numpy as np
from scipy.optimize import brentq

from ..accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    _compose_entries,
)

# Relative slack below the target when calibrating the comparisons' epsilon, so
# that the reported spend, recomputed from the ledger, stays below the target.
_SELECTION_MARGIN = 1e-9


@functools.lru_cache(maxsize=256)
def _selection_epsilon(mu_all_rows, epsilon, delta):
    """Largest pure epsilon a comparison may spend next to ``mu_all_rows``-GDP.

    The validation rows pay for the comparison and for the mechanisms that read
    all rows (the size count, the refit): find ``e`` such that ``e``-DP composed
    with ``mu_all_rows``-GDP is ``(epsilon, delta)``-DP, by the exact composition
    of the ledger and Brent's method.
    """
    fixed = LedgerEntry((GaussianSteps(1.0 / mu_all_rows),))
    target = epsilon * (1.0 - _SELECTION_MARGIN)

    def spent(e):
        return _compose_entries(
            [LedgerEntry(EpsilonDeltaRecord(e)), fixed], delta, "auto"
        )

    if spent(1e-9) >= target:
        raise ValueError(
            "the refit alone spends the whole budget; lower refit_share so that "
            "the comparison of candidates can be paid for."
        )
    e = brentq(lambda e: spent(e) - target, 1e-9, epsilon, xtol=1e-9, rtol=1e-9)
    while spent(e) > target:
        e *= 1.0 - 1e-6
    return e


def report_noisy_max(counts, epsilon, neighboring, rng):
    """Index of the highest Gumbel-noised count: an ``epsilon``-DP argmax.

    Parameters
    ----------
    counts : ndarray of shape (n_candidates,)
        Sensitivity-1 counts (correct predictions on the validation part).
    epsilon : float
        The pure epsilon of the comparison, > 0.
    neighboring : {"add_remove", "replace"}
        The neighbouring relation: under add/remove the counts are monotone and
        the Gumbel scale is ``1 / epsilon``, under replace-one ``2 / epsilon``.
    rng : numpy.random.Generator
        The comparison's generator (secure or not).

    Returns
    -------
    index : int
        The chosen candidate; the noisy counts are not returned.
    """
    scale = (1.0 if neighboring == "add_remove" else 2.0) / epsilon
    return int(np.argmax(counts + rng.gumbel(scale=scale, size=counts.shape[0])))


def _target_bounds(model):
    """A fitted regressor's public ``y_bounds`` (its own, or its last step's)."""
    for name, value in model.get_params(deep=True).items():
        if name == "y_bounds" or name.endswith("__y_bounds"):
            return float(value[0]), float(value[1])
    raise TypeError(
        f"{type(model).__name__} is a regressor without y_bounds: its validation "
        "score has no public bound."
    )


def validation_score(model, X_val, y_val, *, regression):
    """The score report-noisy-max compares: a sum over the validation rows of a
    per-row score in ``[0, 1]``, so that it has sensitivity 1.

    A classifier's is the number of correct predictions. A regressor's is
    ``sum_i 1 - ((clip(p_i) - clip(y_i)) / (high - low))^2`` with the public
    ``y_bounds = (low, high)`` of the model: each term lies in ``[0, 1]``, so
    adding or removing a validation row moves every candidate's score by a value
    in ``[0, 1]`` in the same direction (a monotone utility, as the counts), and
    replacing one moves each by at most 1: the mechanism's sensitivity and scales
    are those of the counts. Maximising it minimises the clipped squared error,
    i.e. maximises a clipped R^2 on the validation part. A non-finite term (a NaN
    target) counts 0.

    Parameters
    ----------
    model : fitted estimator
    X_val : array-like of shape (n_val, n_features)
    y_val : ndarray of shape (n_val,)
    regression : bool
        Whether the search tunes a regressor (decided once, from the estimator).

    Returns
    -------
    score : float
    """
    pred = model.predict(X_val)
    if not regression:
        return float(np.sum(pred == y_val))
    low, high = _target_bounds(model)
    target = np.clip(np.asarray(y_val, dtype=float), low, high)
    error = (np.clip(np.asarray(pred, dtype=float), low, high) - target) / (high - low)
    terms = 1.0 - error**2
    return float(np.sum(np.where(np.isfinite(terms), terms, 0.0)))
