"""The public size: the only number of rows any rule, divisor or attribute may use.

Under add/remove-one neighbouring the exact number of rows ``n`` is private: it
differs by one between neighbours, so a horizon, step size, clipping threshold,
sampling rate, phase size or divisor computed from it would tell ``D`` from ``D``
plus one row. Every such quantity in the package is computed from the *public size*
``m`` instead, resolved here once per fit:

* ``neighboring="replace"``: neighbours have the same ``n``, which is therefore
  public: ``m = n`` (or the declared size, if one is given);
* a size the user declares public (``public_n_samples=m``): used as it is, never
  compared with the data (such a check would itself read ``n``);
* otherwise a private estimate: the Gaussian mechanism on the count ``n``
  (sensitivity 1 under add/remove), with noise multiplier ``count_noise_multiplier``,
  charged to the fit's budget like any other step, then rounded and clipped to
  ``[2, inf)`` (post-processing).

The caller decides the noise of the count from its budget; :data:`COUNT_SHARE` is
the documented share of it (the square of the count's GDP ``mu`` is 1% of the
square of the fit's: the training keeps ``sqrt(0.99) = 99.5%`` of its ``mu``).
"""

import math
from dataclasses import dataclass

__all__ = [
    "COUNT_SHARE",
    "PublicSize",
    "count_noise_multiplier",
    "SENSITIVITY_FACTOR",
    "needs_count",
    "resolve_public_size",
    "split_count_budget",
]

# Share of the squared GDP (or zCDP) budget spent on the noisy row count.
COUNT_SHARE = 0.01

# L2 sensitivity of a sum of per-row terms of norm <= 1, by neighbouring relation:
# adding or removing a row changes one term; replacing one changes it by up to 2.
# (Slots of a fixed size turn an addition into a replacement: see the privacy page.)
SENSITIVITY_FACTOR = {"add_remove": 1.0, "replace": 2.0}


@dataclass(frozen=True)
class PublicSize:
    """The resolved public size of one fit.

    Parameters
    ----------
    n_samples : int
        ``m``: the size every rule and divisor uses, >= 2.
    source : {"declared", "replace", "estimated"}
        Where it came from ("estimated": a noisy count was run and charged).
    """

    n_samples: int
    source: str


def count_noise_multiplier(mu, share=COUNT_SHARE):
    """Noise multiplier of the count that spends ``share`` of ``mu**2``.

    Parameters
    ----------
    mu : float
        GDP budget of the whole fit (or, for a Rényi curve ``alpha rho^2 / 2``, its
        ``rho``), > 0.
    share : float, default=COUNT_SHARE
        Share of ``mu**2`` given to the count, in (0, 1).

    Returns
    -------
    z : float
        ``1 / (sqrt(share) mu)``: the count is ``sqrt(share) mu``-GDP.
    """
    return 1.0 / (math.sqrt(share) * mu)


def resolve_public_size(
    n_rows, *, neighboring, public_n_samples, noise_multiplier, rng
):
    """Resolve the public size of a fit (run the count if it must be estimated).

    The caller must have charged the count to its ledger and filter *before*
    calling this function when ``public_n_samples`` is None and ``neighboring``
    is ``"add_remove"`` (``needs_count`` tells in advance).

    Parameters
    ----------
    n_rows : int
        The number of private rows (read only by the noisy count).
    neighboring : {"add_remove", "replace"}
        The neighbouring relation.
    public_n_samples : int or None
        A declared public size (>= 2), or None.
    noise_multiplier : float
        Noise std of the count, > 0 (ignored unless a count is run).
    rng : numpy.random.Generator or SecureGenerator
        Source of the count's noise.

    Returns
    -------
    size : PublicSize

    Notes
    -----
    Dwork & Roth (2014), *The Algorithmic Foundations of Differential Privacy*,
    Thm A.1 (Gaussian mechanism); a count has sensitivity 1 under add/remove.
    """
    if public_n_samples is not None:
        return PublicSize(int(public_n_samples), "declared")
    if neighboring == "replace":
        return PublicSize(int(n_rows), "replace")
    noisy = n_rows + noise_multiplier * float(rng.standard_normal())
    return PublicSize(max(2, int(round(noisy))), "estimated")


def split_count_budget(mu, neighboring, public_n_samples):
    """The count's noise and the GDP budget it leaves, for a fit of budget ``mu``.

    Gaussian mechanisms compose in GDP by adding ``mu**2`` (Dong, Roth & Su, JRSS B
    2022, Cor. 3.3), so the count's ``(1 / z)**2`` comes off the rest's share.

    Parameters
    ----------
    mu : float
        GDP budget of the whole fit, > 0.
    neighboring : {"add_remove", "replace"}
    public_n_samples : int or None

    Returns
    -------
    z_count : float or None
        Noise multiplier of the count (:func:`count_noise_multiplier`), or None
        when no count is needed (:func:`needs_count`).
    mu_rest : float
        ``sqrt(mu**2 - z_count**-2)``: the budget left for the other mechanisms
        (``mu`` when there is no count).
    """
    if not needs_count(neighboring, public_n_samples):
        return None, mu
    z_count = count_noise_multiplier(mu)
    return z_count, math.sqrt(mu * mu - z_count**-2)


def needs_count(neighboring, public_n_samples):
    """Whether a fit must spend budget on a private count of its rows.

    Parameters
    ----------
    neighboring : {"add_remove", "replace"}
    public_n_samples : int or None

    Returns
    -------
    bool
    """
    return public_n_samples is None and neighboring == "add_remove"
