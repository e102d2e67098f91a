"""Composition of records into one epsilon: a fit's ledger, a ledger's entries.

Nothing in this module reads data. Full-batch Gaussian steps compose in closed form
(``mu^2`` adds up; Dong, Roth & Su 2022, Cor. 3.3); Poisson-subsampled steps by RDP
(Mironov, Talwar & Zhang 2019) or by privacy-loss distributions (Doroshenko et al.
2022); ``(epsilon, delta)`` records with full-batch Gaussian steps exactly, by the
dominating pair of Kairouz, Oh & Viswanath (ICML 2015, Thm 3.4), or through
dp-accounting's privacy-loss distributions; and ledgers holding sparse-vector or
noisy-max entries in RDP.
"""

import math

import numpy as np
from scipy.special import log_ndtr

from ._gdp import (
    _check_delta,
    _delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
)
from ._rdp import DEFAULT_ORDERS, rdp_epsilon
from ._records import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    SparseVectorSteps,
    _expand_ledger,
    _records_rdp,
)
from ._subsampled import _ledger_pld, poisson_gaussian_epsilon

__all__ = ["fixed_shares_epsilon", "ledger_epsilon"]

# Privacy-loss grid step of the PLD compositions of the ledger (dp-accounting).
_LEDGER_PLD_STEP = 1e-4


def ledger_epsilon(ledger, delta, accountant="auto"):
    """Recompute the epsilon of a fit from its ledger (an independent re-audit).

    Parameters
    ----------
    ledger : sequence of GaussianSteps, SnowballSteps, SparseVectorSteps or \
            NoisyMaxSteps
        E.g. a fitted estimator's ``ledger_``. Ledgers with other entries than
        Gaussian steps (Snowball-SGD, whose amplification by iteration bounds Rényi
        divergences only; adaptive strategies) are composed in RDP; for an
        adaptive run this is the epsilon of running the recorded mechanisms as a
        fixed sequence, at most the filter's guarantee
        ``epsilon_``, which is the run's actual guarantee.
    delta : float
        In (0, 1).
    accountant : {"auto", "gdp", "rdp", "pld"}, default="auto"
        "gdp": exact closed form (Dong, Roth & Su 2022), full-batch steps only.
        "rdp": Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang
        2019), an upper bound. "pld": privacy-loss distributions through
        dp-accounting (Doroshenko et al. 2022), pessimistic and tight (within
        about 0.5% of a 4x finer grid). "auto": "gdp" if every step is full-batch,
        else "pld" (the accountant minibatch fits report with).

    Returns
    -------
    epsilon : float
        The epsilon of the ledger's steps at ``delta`` under ``accountant``.

    Raises
    ------
    ValueError
        If the ledger is empty, ``delta`` is invalid, ``accountant`` is unknown, or
        "gdp" is asked for subsampled steps.
    """
    delta = _check_delta(delta)
    if accountant not in ("auto", "gdp", "rdp", "pld"):
        raise ValueError(
            f"accountant must be 'auto', 'gdp', 'rdp' or 'pld', got {accountant!r}."
        )
    if len(ledger) == 0:
        raise ValueError("ledger is empty: nothing ran.")
    if not all(isinstance(r, GaussianSteps) for r in ledger):
        if accountant not in ("auto", "rdp"):
            raise ValueError(
                "a ledger with Snowball, sparse-vector or noisy-max entries is "
                "accounted for in RDP only; use accountant='auto' or 'rdp'."
            )
        return _mixed_ledger_epsilon(ledger, delta)
    z, q = _expand_ledger(ledger)
    full_batch = bool(np.all(q == 1.0))
    if accountant == "auto":
        accountant = "gdp" if full_batch else "pld"
    if accountant == "gdp":
        if not full_batch:
            raise ValueError(
                "accountant='gdp' has no closed form for subsampled steps; use "
                "'rdp' or 'pld'."
            )
        return gdp_epsilon(gdp_mu_from_noise_multipliers(z), delta)

    return poisson_gaussian_epsilon(z, q, delta, accountant=accountant)


def _mixed_ledger_epsilon(ledger, delta):
    """Epsilon at ``delta`` of a ledger with non-Gaussian entries, by RDP.

    The records are composed by :func:`~sklearn_dpgd.accounting._records._records_rdp`
    and converted at the best order by :func:`rdp_epsilon`. When the ledger holds a
    subsampled sparse-vector search, only integer orders are used.

    Parameters
    ----------
    ledger : sequence of records
        As for :func:`ledger_epsilon`.
    delta : float
        In (0, 1).

    Returns
    -------
    epsilon : float
    """
    orders = DEFAULT_ORDERS
    if any(isinstance(r, SparseVectorSteps) and r.sampling_rate < 1 for r in ledger):
        # The amplification bound of subsampled searches holds at integer orders.
        orders = orders[orders == np.round(orders)]
    return rdp_epsilon(_records_rdp(ledger, orders), orders, delta)


def _pld_compose(entries, delta):
    """Epsilon at ``delta`` of entries composed with dp-accounting's PLDs."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    records = [
        e.mechanism for e in entries if isinstance(e.mechanism, EpsilonDeltaRecord)
    ]
    basic = math.inf
    if len(records) == len(entries):
        # Basic composition is exact for one entry and a valid bound for several;
        # keep it when tighter than the discretised PLD.
        if sum(r.delta for r in records) <= delta:
            basic = sum(r.epsilon for r in records)
    # Full-batch Gaussian steps compose to one Gaussian mechanism exactly (Dong,
    # Roth & Su 2022, Cor. 3.3): merge them before discretising, once.
    full_batch = [
        r
        for e in entries
        if not isinstance(e.mechanism, EpsilonDeltaRecord)
        for r in e.mechanism
        if r.sampling_rate == 1.0
    ]
    mu_sq = sum(r.count / r.noise_multiplier**2 for r in full_batch)
    pld = None
    if mu_sq > 0:
        pld = pld_lib.from_gaussian_mechanism(
            1.0 / math.sqrt(mu_sq), value_discretization_interval=_LEDGER_PLD_STEP
        )
    for entry in entries:
        m = entry.mechanism
        if isinstance(m, EpsilonDeltaRecord):
            part = pld_lib.from_privacy_parameters(
                common.DifferentialPrivacyParameters(m.epsilon, m.delta),
                value_discretization_interval=_LEDGER_PLD_STEP,
            )
            pld = part if pld is None else pld.compose(part)
    # The subsampled steps of all entries, in one PLD: dp-accounting's PMFs,
    # computed vectorised and composed by level (a ledger with a 30-level
    # minibatch fit took 10 s through dp-accounting's own loops).
    subsampled = [
        r
        for e in entries
        if not isinstance(e.mechanism, EpsilonDeltaRecord)
        for r in e.mechanism
        if r.sampling_rate < 1.0 and math.isfinite(r.noise_multiplier)
    ]
    if subsampled:
        part = _ledger_pld(subsampled, delta, _LEDGER_PLD_STEP)
        pld = part if pld is None else pld.compose(part)
    if pld is None:
        return 0.0
    return min(basic, max(float(pld.get_epsilon_for_delta(delta)), 0.0))


# Up to this many (epsilon, delta) records compose in closed form with full-batch
# Gaussian steps (2**n atoms of the records' joint privacy loss); more go to PLD.
_MAX_EXACT_RECORDS = 10


def _gaussian_profile(mu, x):
    """``E[(1 - exp(x - L))_+]`` for the privacy loss ``L ~ N(mu^2/2, mu^2)``."""
    if mu == 0.0:
        return max(0.0, -math.expm1(x))
    return _delta(mu, x) if x >= 0 else _delta_negative(mu, x)


def _delta_negative(mu, x):
    # For x < 0 both terms are large: Phi(a) - exp(x) Phi(b) with a > b.
    a = -x / mu + mu / 2.0
    b = -x / mu - mu / 2.0
    return float(np.exp(log_ndtr(a)) - math.exp(x + log_ndtr(b)))


def _exact_compose(records, mu, delta):
    """Epsilon of ``(epsilon_i, delta_i)`` records composed with a ``mu``-GDP part.

    Every ``(epsilon_i, delta_i)``-DP mechanism is dominated by the one whose
    privacy loss is ``+inf`` with probability ``delta_i`` and ``+-epsilon_i``
    otherwise with odds ``exp(epsilon_i)`` (Kairouz, Oh & Viswanath, ICML 2015,
    Thm 3.4), and domination survives composition (Dong, Roth & Su 2022, Lemma
    3.4). The composed privacy profile is then a finite mixture of shifted
    Gaussian profiles, ``delta(e) = 1 - prod(1 - delta_i) + prod(1 - delta_i)
    sum_a P(a) delta_mu(e - a)``, inverted in ``e`` by bisection to the float.
    """
    atoms = np.zeros(1)
    probs = np.ones(1)
    for r in records:
        p_plus = 1.0 / (1.0 + math.exp(-r.epsilon))
        atoms = np.concatenate([atoms + r.epsilon, atoms - r.epsilon])
        probs = np.concatenate([probs * p_plus, probs * (1.0 - p_plus)])
    # 1 - prod(1 - delta_i), never below its true value (exactly delta_1 for one).
    lost = min(
        math.fsum(r.delta for r in records),
        -math.expm1(math.fsum(math.log1p(-r.delta) for r in records)),
    )
    if lost > delta:
        return math.inf
    keep = 1.0 - lost

    def profile(e):
        return lost + keep * sum(
            p * _gaussian_profile(mu, e - a) for a, p in zip(atoms, probs, strict=True)
        )

    if profile(0.0) <= delta:
        return 0.0
    hi = float(np.sum([r.epsilon for r in records])) + max(1.0, mu * mu)
    while profile(hi) > delta:
        hi *= 2.0
    # Bisection on "profile(e) <= delta", not a root-find: the profile can be
    # flat at delta (pure records alone), and the smallest valid e is wanted.
    lo = 0.0
    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            return float(hi)
        if profile(mid) <= delta:
            hi = mid
        else:
            lo = mid


def _compose_entries(entries, delta, accountant):
    if not entries:
        return 0.0
    if all(isinstance(e.mechanism, tuple) for e in entries):
        steps = tuple(r for e in entries for r in e.mechanism)
        return ledger_epsilon(steps, delta, accountant=accountant)
    if accountant not in ("auto", "pld"):
        raise ValueError(
            f"accountant={accountant!r} cannot compose (epsilon, delta) records; "
            "use 'auto' or 'pld'."
        )
    records = [e.mechanism for e in entries if not isinstance(e.mechanism, tuple)]
    steps = [r for e in entries if isinstance(e.mechanism, tuple) for r in e.mechanism]
    if (
        accountant == "auto"
        and len(records) <= _MAX_EXACT_RECORDS
        and all(r.sampling_rate == 1.0 for r in steps)
    ):
        mu_sq = sum(r.count / r.noise_multiplier**2 for r in steps)
        return _exact_compose(records, math.sqrt(mu_sq), delta)
    return _pld_compose(entries, delta)


def fixed_shares_epsilon(budget, gaussian, delta):
    """Epsilon at ``delta`` of the steps' guarantees, fixed before any step ran.

    A step that declares full-batch Gaussian accounting (``_gdp_ledger_refusal``
    returns None) calibrates to ``mu = gdp_mu(epsilon_i, delta_i)`` of its share
    and is ``mu``-GDP whatever it learnt from earlier steps; any other step is
    ``(epsilon_i, delta_i)``-DP. Each step's trade-off function is thus fixed in
    advance, so their composition bounds the adaptively chosen sequence (Dong,
    Roth & Su, JRSS B 2022, Thm 3.2): the GDP parts merge into one Gaussian (ibid.,
    Cor. 3.3), and the ``(epsilon_i, delta_i)`` parts compose with it exactly
    through their dominating pairs (Kairouz, Oh & Viswanath, ICML 2015, Thm 3.4;
    :func:`~sklearn_dpgd.accounting._exact_compose`). Never more than the basic
    composition ``sum(epsilon_i)`` (Dwork & Roth 2014, Thm 3.16), which it
    returns when no step is Gaussian (no room is left in ``delta`` then).

    Parameters
    ----------
    budget : dict of str to (float, float)
        Each step's share ``(epsilon_i, delta_i)``, fixed before any step ran.
    gaussian : dict of str to bool
        Whether each step is ``gdp_mu(epsilon_i, delta_i)``-GDP.
    delta : float
        The ``delta`` of the total.

    Returns
    -------
    epsilon : float
        The composed epsilon, at most ``sum(epsilon_i)``.
    """
    basic = math.fsum(e for e, _ in budget.values())
    mu_sq = math.fsum(
        gdp_mu(*budget[path]) ** 2 for path, is_gdp in gaussian.items() if is_gdp
    )
    if mu_sq == 0.0:
        return basic
    entries = [LedgerEntry((GaussianSteps(1.0 / math.sqrt(mu_sq)),))] + [
        LedgerEntry(EpsilonDeltaRecord(*budget[path]))
        for path, is_gdp in gaussian.items()
        if not is_gdp
    ]
    return min(basic, _compose_entries(entries, delta, "auto"))
