"""The stable histogram: private selection of the categories present in the data.

Gaussian noise on the counts of the values present and a release threshold
(Korolova, Kenthapadi, Mishra & Ntoulas, "Releasing search queries and clicks
privately", WWW 2009; Wilson et al., "Differentially private SQL with bounded user
contribution", PoPETs 2020, Sec. 3), with the bin keys and the missing-value test
of :class:`~sklearn_dpgd.preprocessing.DPOneHotEncoder`.
"""

import math
import numbers
from collections import Counter

from scipy.special import ndtri

from ..accounting import gdp_mu


def _is_missing(value):
    """None, or a real number that is NaN.

    Exact ``str`` and ``float`` values (most cells of a table) are decided
    without the abstract-base-class test of ``numbers.Real``, with the same
    result (``math.isnan(v)`` is ``v != v`` for a float).
    """
    if value is None:
        return True
    kind = type(value)
    if kind is str:
        return False
    if kind is float:
        return value != value
    return isinstance(value, numbers.Real) and math.isnan(value)


def stable_histogram_threshold(epsilon, delta, n_features, neighboring="add_remove"):
    """Noise std and threshold of the private category selection.

    Every row holds one value per feature. The counts of the values present in
    the data get Gaussian noise of std ``sigma``; a value is released when its
    noisy count exceeds ``tau``. Half of ``delta`` bounds the probability that a
    value held by one row only (present in one neighbour, absent from the other)
    is released in any of the ``n_features`` columns:
    ``n_features * P(1 + sigma N > tau) = delta / 2``. On the complement the
    output is a post-processed Gaussian mechanism on the common values, of L2
    sensitivity ``sqrt(n_features)`` (add/remove; ``sqrt(2 n_features)`` under
    replace), calibrated to ``(epsilon_g, delta / 2)`` with
    ``epsilon_g = epsilon + log(1 - delta / 2)``: the conditioning costs a factor
    ``1 / (1 - delta / 2)`` in one direction. The selection is ``(epsilon,
    delta)``-DP (Korolova, Kenthapadi, Mishra & Ntoulas, WWW 2009; Wilson et al.,
    "Differentially private SQL with bounded user contribution", PoPETs 2020,
    Sec. 3).

    Parameters
    ----------
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    n_features : int
        Number of categorical columns selected together, >= 1.
    neighboring : {"add_remove", "replace"}, default="add_remove"

    Returns
    -------
    sigma : float
        Noise std on each count.
    tau : float
        Release threshold on the noisy counts.

    Raises
    ------
    ValueError
        If ``epsilon + log(1 - delta / 2) <= 0``.
    """
    delta_thr = delta / 2.0
    eps_g = epsilon + math.log1p(-delta_thr)
    if eps_g <= 0:
        raise ValueError(f"epsilon={epsilon!r} is too small for delta={delta!r}.")
    mu = gdp_mu(eps_g, delta - delta_thr)
    factor = 1.0 if neighboring == "add_remove" else math.sqrt(2.0)
    sigma = factor * math.sqrt(n_features) / mu
    # -ndtri(q) is norm.isf(q) (scipy's own definition) without the
    # distribution object's argument handling (30 us).
    tau = 1.0 + sigma * float(-ndtri(delta_thr / n_features))
    return sigma, tau


def _category_key(value):
    """A bin key that tells apart every spelling of a category.

    ``(type name, repr, value)``: equal type and repr mean the same value, so the
    value kept in the key is the same whichever row supplied it.
    """
    return type(value).__name__, repr(value), value


def _key_counts(column):
    """How many rows of ``column`` hold each bin key (missing values left out).

    ``Counter(_category_key(v) for v in column if not _is_missing(v))``. When
    every value is a ``str``, a ``float`` or None and no float is a number (so
    only text and missing values), values equal in Python have equal keys, so
    the values are counted first (one pass in C) and each distinct value keyed
    once, with the same counts and keys (the first row's value, as before).

    Parameters
    ----------
    column : ndarray of object, shape (n_samples,)

    Returns
    -------
    counts : collections.Counter
        ``{(type name, repr, value): count}``.
    """
    if set(map(type, column)) <= {str, float, type(None)}:
        counts = Counter(column)
        if all(type(v) is str or _is_missing(v) for v in counts):
            return Counter(
                {_category_key(v): c for v, c in counts.items() if not _is_missing(v)}
            )
    return Counter(_category_key(v) for v in column if not _is_missing(v))
