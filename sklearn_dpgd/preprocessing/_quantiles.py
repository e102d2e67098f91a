"""The differentially private quantile: the exponential mechanism over intervals.

The mechanism of Smith ("Privacy-preserving statistical estimation with optimal
convergence rates", STOC 2011, Sec. 3), an instance of the exponential mechanism
of McSherry & Talwar (FOCS 2007), sampled exactly over the intervals between the
sorted clipped values as in Gillenwater, Joseph & Kulesza ("Differentially
private quantiles", ICML 2021, Sec. 3).
:class:`~sklearn_dpgd.preprocessing.DPMinMaxScaler` estimates its bounds with it.
"""

import numpy as np


def exponential_quantile_log_weights(x, lo, hi, quantile, epsilon):
    """Log-probabilities (unnormalised) of the intervals of the DP quantile.

    The exponential mechanism over the public range ``[lo, hi]`` with utility
    ``u(t) = -|#{i : x_i < t} - q n|`` and the Lebesgue measure as base: the
    output density is proportional to ``exp(epsilon u(t) / 2)`` (Smith, STOC 2011,
    Sec. 3; McSherry & Talwar, FOCS 2007). ``u`` changes by at most
    ``max(q, 1 - q) <= 1`` when a row is added or removed (the count below ``t``
    moves by at most one and ``q n`` by ``q``) and by at most one when a row is
    replaced, so the mechanism is ``epsilon``-DP under both relations. The density
    is constant between consecutive clipped points: interval ``k`` (between the
    ``k``-th and ``k+1``-th of ``lo, x_(1), ..., x_(n), hi``) has ``k`` points
    below and weight ``width_k exp(-epsilon |k - q n| / 2)`` (the sampler of
    Gillenwater, Joseph & Kulesza, ICML 2021, Sec. 3).

    Parameters
    ----------
    x : ndarray of shape (n,)
        The private values of one column (any order; clipped to the range here).
    lo, hi : float
        The public candidate range, ``lo < hi``.
    quantile : float
        ``q`` in [0, 1].
    epsilon : float
        > 0.

    Returns
    -------
    edges : ndarray of shape (n + 2,)
        ``lo``, the sorted clipped values, ``hi``.
    log_weights : ndarray of shape (n + 1,)
        ``log(width_k) - epsilon |k - q n| / 2``; ``-inf`` for empty intervals.
    """
    edges, log_width = _interval_widths(x, lo, hi)
    return edges, _quantile_log_weights(log_width, quantile, epsilon)


def _interval_widths(x, lo, hi):
    """``lo``, the sorted clipped values, ``hi``, and the log-widths between them."""
    x = np.sort(np.clip(np.asarray(x, dtype=float), lo, hi))
    edges = np.concatenate([[lo], x, [hi]])
    with np.errstate(divide="ignore"):
        log_width = np.log(np.diff(edges))
    return edges, log_width


def _quantile_log_weights(log_width, quantile, epsilon):
    """The log-weights of :func:`exponential_quantile_log_weights` from the widths."""
    n = log_width.shape[0] - 1
    k = np.arange(n + 1)
    return log_width - 0.5 * epsilon * np.abs(k - quantile * n)


def _dp_quantile(x, lo, hi, quantile, epsilon, rng):
    """One draw of the exponential-mechanism quantile (Gumbel-max over intervals)."""
    return _dp_quantiles(x, lo, hi, (quantile,), epsilon, rng)[0]


def _dp_quantiles(x, lo, hi, quantiles, epsilon, rng):
    """One independent draw per quantile, each ``epsilon``-DP, from one sort.

    The column is clipped and sorted once; each quantile then draws its Gumbel
    noise and its point in the chosen interval from ``rng`` in the order of
    ``quantiles``: the same draws, and so the same values, as calling
    :func:`_dp_quantile` once per quantile.
    """
    edges, log_width = _interval_widths(x, lo, hi)
    out = []
    for quantile in quantiles:
        log_w = _quantile_log_weights(log_width, quantile, epsilon)
        k = int(np.argmax(log_w + np.asarray(rng.gumbel(size=log_w.shape[0]))))
        out.append(float(rng.uniform(edges[k], edges[k + 1])))
    return out
