"""Rényi differential privacy: orders, the conversion to (epsilon, delta), pure DP.

Nothing in this module reads data. It holds the pieces of the RDP accountant that do
not depend on the subsampled Gaussian (:mod:`._subsampled_rdp`): the default grid
of Rényi orders, the conversion of an RDP curve to ``(epsilon, delta)`` (Canonne,
Kamath & Steinke 2020, Prop. 12; Asoodeh et al. 2021), and the RDP of the pure-DP
and sparse-vector mechanisms of the adaptive strategies (Laplace mechanism, Mironov
2017, Prop. 6; AboveThreshold, Chen & Lee; pure DP, Bun & Steinke 2016, Prop. 1.4;
the exponential mechanism's bounded range, Cesar & Rogers 2021),
with their amplification by Poisson subsampling (Zhu & Wang, ICML 2019, Thm 6).

References
----------
Mironov, I. (2017). Renyi differential privacy. CSF.
Canonne, C., Kamath, G., Steinke, T. (2020). The discrete Gaussian for differential
privacy. NeurIPS (Prop. 12 in arXiv:2004.00010v4).
Asoodeh, S., Liao, J., Calmon, F., Kosut, O., Sankar, L. (2021). Three variants of
differential privacy: lossless conversion and applications. IEEE JSAIT 2(1).
Bun, M., Steinke, T. (2016). Concentrated differential privacy: simplifications,
extensions, and lower bounds. TCC.
Zhu, Y., Wang, Y.-X. (2019). Poisson subsampled Rényi differential privacy. ICML.
Cesar, M., Rogers, R. (2021). Bounding, concentrating, and truncating: unifying
privacy loss composition for data analytics. ALT.
Chen, C., Lee, J. Stochastic adaptive line search for differentially private
optimization. IEEE BigData 2020.
"""

import math
from numbers import Real

import numpy as np
from scipy.special import gammaln

from ._gdp import _check_delta, _check_positive

__all__ = [
    "DEFAULT_ORDERS",
    "poisson_amplified_rdp",
    "bounded_range_rdp",
    "pure_dp_rdp",
    "rdp_epsilon",
    "sparse_vector_rdp",
]


def _default_orders():
    # Near the optimal order the (epsilon, delta) conversion is flat: with orders
    # spaced by a ratio r in (alpha - 1), a Gaussian-like RDP curve loses at most
    # (sqrt(r) + 1/sqrt(r) - 2) / 2 of epsilon, 0.03% for r = 1.05. Subsampled curves
    # at small q bend sharply near their best order and need the density more. Below
    # alpha = 8 integers alone are too sparse (they lose up to 5% at q = 1, epsilon =
    # 20, and a factor 80 at q = 1e-4, z = 0.25, whose best order is 1.4), hence the
    # fractional orders. alpha - 1 >= 0.25 suffices for epsilon <= 20 at delta <=
    # 1e-3 (the conversion alone exceeds 25 below it); orders up to 8192 cover
    # epsilon >= 0.01 at delta >= 1e-10 (best order about 2900 there).
    low = 1.0 + 0.25 * 1.05 ** np.arange(69)  # 1.25 ... 7.9
    mid = np.arange(2, 65)
    high = [64]
    while high[-1] < 8192:
        high.append(max(high[-1] + 1, round(high[-1] * 1.05)))
    orders = np.unique(np.concatenate([low, mid, high[:-1]])).astype(float)
    orders.setflags(write=False)
    return orders


#: RDP orders used by default (231): 69 fractional orders ``1 + 0.25 * 1.05^j`` in
#: [1.25, 7.9], every integer from 2 to 64, and integers growing by 5% up to 7915.
DEFAULT_ORDERS = _default_orders()

# ---------------------------------------------------------------- RDP -> (eps, delta)


def _conversion(orders, rdp, delta):
    """Epsilon at each order; the formula and special cases of dp-accounting."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        eps = (
            rdp
            + np.log1p(-1.0 / orders)
            - (math.log(delta) + np.log(orders)) / (orders - 1.0)
        )
        # Orders this close to 1 make the bound numerically unstable (dp-accounting).
        eps = np.where(orders > 1.01, eps, np.inf)
        # delta <= sqrt(1 - exp(-KL)) and KL <= RDP: such a small RDP gives epsilon 0.
        eps = np.where(delta * delta + np.expm1(-rdp) > 0, 0.0, eps)
    return eps


def _conversion_term(order, delta):
    # epsilon(order) - rdp(order) of the conversion used everywhere in the package
    # (Canonne, Kamath & Steinke 2020, Prop. 12; see rdp_epsilon).
    return math.log1p(-1.0 / order) - (math.log(delta) + math.log(order)) / (order - 1)


def rdp_epsilon(rdp, orders, delta):
    """Smallest ``epsilon`` that an RDP curve certifies at a given ``delta``.

    Parameters
    ----------
    rdp : array-like of shape (n_orders,)
        RDP at each order (nats), each >= 0 (``inf`` allowed).
    orders : array-like of shape (n_orders,)
        The Renyi orders, each >= 1.
    delta : float
        In (0, 1).

    Returns
    -------
    epsilon : float
        ``min_alpha [rdp(alpha) + log(1 - 1/alpha) - (log delta + log alpha) /
        (alpha - 1)]``, clipped at 0; 0 also when ``delta >= sqrt(1 - exp(-rdp))``
        at some order (the KL bound). Orders <= 1.01 are ignored (unstable).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of equal non-zero length, an order is < 1, an RDP
        value is negative or NaN, or ``delta`` is outside (0, 1).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Prop. 12 (also Asoodeh et al. 2021), which
    improves on Mironov (2017, Prop. 3) by ``log(1 - 1/alpha) - log(alpha) / (alpha -
    1)``. The same computation, with the same special cases, as dp-accounting's
    ``rdp_privacy_accountant.compute_epsilon``, vectorised (and without the
    dependency).
    """
    rdp = np.asarray(rdp, dtype=float)
    orders = np.asarray(orders, dtype=float)
    if rdp.ndim != 1 or rdp.shape != orders.shape or rdp.size == 0:
        raise ValueError(
            "rdp and orders must be non-empty 1-D arrays of the same length, got "
            f"shapes {rdp.shape} and {orders.shape}."
        )
    if np.any(np.isnan(orders)) or np.any(orders < 1):
        raise ValueError("orders must all be >= 1.")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise ValueError("rdp must all be >= 0.")
    delta = _check_delta(delta)
    return max(float(np.min(_conversion(orders, rdp, delta))), 0.0)


def _as_orders(orders):
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if orders.ndim != 1 or np.any(~np.isfinite(orders)) or np.any(orders <= 1):
        raise ValueError("orders must be a 1-D array of finite values > 1.")
    return orders


def _laplace_rdp(orders, epsilon):
    # RDP of the Laplace mechanism with scale sensitivity / epsilon (Mironov 2017,
    # Prop. 6): 1/(a-1) log[a/(2a-1) e^{(a-1) eps} + (a-1)/(2a-1) e^{-a eps}].
    a = orders
    log_terms = np.logaddexp(
        np.log(a / (2 * a - 1)) + (a - 1) * epsilon,
        np.log((a - 1) / (2 * a - 1)) - a * epsilon,
    )
    return np.maximum(log_terms / (a - 1), 0.0)


def sparse_vector_rdp(orders, budget, noise="laplace"):
    """RDP of one noisy backtracking line search (sparse vector, AboveThreshold).

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Rényi orders, each > 1.
    budget : float
        ``epsilon_BT`` (``noise="laplace"``: threshold noise ``Lap(Delta /
        (epsilon_BT / 2))``, query noise ``Lap(Delta / (epsilon_BT / 4))``) or
        ``rho_BT`` (``noise="gaussian"``: threshold noise std ``Delta sqrt(3 / (2
        rho_BT))``, query noise std ``Delta sqrt(3 / rho_BT)``), > 0. ``Delta`` is
        the sensitivity of the queries.
    noise : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        RDP (nats) at each order, whatever the number of queries before the stop.

    Raises
    ------
    ValueError
        If an order is not > 1, ``budget`` is not > 0 or ``noise`` is unknown.

    Notes
    -----
    Chen & Lee, *Stochastic Adaptive Line Search for Differentially Private
    Optimization*, Algorithm 1, Thm 2, eq. (4) (Laplace: the product of the Laplace
    RDP terms at ``epsilon_1 = epsilon_BT / 2`` and ``2 epsilon_2 = epsilon_BT /
    2``) and Thm 3, eq. (5) with ``sigma_1^2 = 3 / (2 rho)``, ``sigma_2^2 = 3 / rho``
    (Gaussian: ``alpha rho``).
    """
    orders = _as_orders(orders)
    budget = _check_positive(budget, "budget")
    if noise == "laplace":
        epsilon_1, epsilon_2 = budget / 2.0, budget / 4.0
        return _laplace_rdp(orders, epsilon_1) + _laplace_rdp(orders, 2.0 * epsilon_2)
    if noise == "gaussian":
        s1, s2 = 3.0 / (2.0 * budget), 3.0 / budget
        return orders * (4.0 * s1 + s2) / (2.0 * s1 * s2)
    raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}.")


def pure_dp_rdp(orders, epsilon):
    """RDP of an ``epsilon``-DP mechanism: ``min(epsilon, alpha epsilon^2 / 2)``.

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Rényi orders, each > 1.
    epsilon : float
        Pure-DP parameter, > 0.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        RDP (nats) at each order.

    Raises
    ------
    ValueError
        If an order is not > 1 or ``epsilon`` is not > 0.

    Notes
    -----
    Bun & Steinke (2016), Prop. 1.4 (``epsilon^2 / 2``-zCDP), quoted as Lemma 2 of
    Chen & Lee; and ``D_alpha <= D_inf = epsilon``.
    """
    orders = _as_orders(orders)
    epsilon = _check_positive(epsilon, "epsilon")
    return np.minimum(epsilon, 0.5 * orders * epsilon * epsilon)


def bounded_range_rdp(orders, epsilon):
    """RDP of an ``epsilon``-bounded-range mechanism: ``min(eps, alpha eps^2 / 8)``.

    The exponential mechanism (sampled by Gumbel-max) whose privacy loss lies in an
    interval of width ``epsilon`` for every pair of neighbours.

    Parameters
    ----------
    orders : array-like of shape (n_orders,)
        Rényi orders, each > 1.
    epsilon : float
        Width of the privacy-loss range, > 0.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        RDP (nats) at each order.

    Raises
    ------
    ValueError
        If an order is not > 1 or ``epsilon`` is not > 0.

    Notes
    -----
    Cesar & Rogers (ALT 2021): ``epsilon``-bounded range implies
    ``epsilon^2 / 8``-zCDP, a quarter of the ``epsilon^2 / 2`` of a generic
    ``epsilon``-DP mechanism (:func:`pure_dp_rdp`); and since the range contains 0,
    the mechanism is also ``epsilon``-DP, so ``D_alpha <= D_inf = epsilon``. The
    exponential mechanism ``P(j) ~ exp(epsilon u_j / Delta)`` is
    ``epsilon``-bounded-range when the utilities move in one direction between
    neighbours (each by at most ``Delta``), and ``exp(epsilon u_j / (2 Delta))`` is
    in general (Durfee & Rogers, NeurIPS 2019).
    """
    orders = _as_orders(orders)
    epsilon = _check_positive(epsilon, "epsilon")
    return np.minimum(epsilon, 0.125 * orders * epsilon * epsilon)


def poisson_amplified_rdp(base_rdp, sampling_rate, order):
    """RDP at an integer order of a mechanism run on a Poisson sample of the data.

    Parameters
    ----------
    base_rdp : callable
        ``base_rdp(orders) -> ndarray``: the RDP of the mechanism with respect to
        its input sample, at integer orders 2..``order``.
    sampling_rate : float
        Probability ``q`` in (0, 1] that each row is in the sample.
    order : int
        Integer Rényi order >= 2 (an integer-valued float is accepted).

    Returns
    -------
    rdp : float
        RDP (nats) at ``order`` with respect to the whole data (add/remove one row).

    Raises
    ------
    ValueError
        If ``order`` is not an integer >= 2 or ``sampling_rate`` is outside (0, 1].

    Notes
    -----
    Zhu & Wang (ICML 2019), Thm 6, quoted as Lemma 4 of Chen & Lee::

        1/(a-1) log{(1-q)^(a-1) (a q - q + 1) + C(a,2) q^2 (1-q)^(a-2) e^eps(2)
                    + 3 sum_{l=3}^a C(a,l) q^l (1-q)^(a-l) e^((l-1) eps(l))}

    evaluated in log space.
    """
    if (
        isinstance(order, bool)
        or not isinstance(order, Real)
        or not float(order).is_integer()
        or order < 2
    ):
        raise ValueError(f"order must be an integer >= 2, got {order!r}.")
    q = _check_positive(sampling_rate, "sampling_rate")
    if q > 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q!r}.")
    a = int(order)
    if q == 1.0:
        return float(np.asarray(base_rdp(np.array([float(a)])))[0])
    ls = np.arange(2, a + 1, dtype=float)
    eps = np.asarray(base_rdp(ls), dtype=float)
    log_binom = gammaln(a + 1) - gammaln(ls + 1) - gammaln(a - ls + 1)
    log_q, log_1q = math.log(q), math.log1p(-q)
    terms = log_binom + ls * log_q + (a - ls) * log_1q + (ls - 1) * eps
    terms[1:] += math.log(3.0)
    first = (a - 1) * log_1q + math.log1p((a - 1) * q)
    total = np.logaddexp(first, np.logaddexp.reduce(terms))
    return max(float(total) / (a - 1), 0.0)
