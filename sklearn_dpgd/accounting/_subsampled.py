"""Epsilon and noise calibration of Poisson-subsampled Gaussian runs (DP-SGD).

Nothing in this module reads data. Step ``t`` of minibatch DP-SGD keeps each row
independently with probability ``q_t`` (Poisson sampling), sums the per-example
gradients of the kept rows clipped to L2 norm ``C`` and adds ``N(0, (z_t C)^2 I)``; in
units of the sensitivity ``C`` it is the sampled Gaussian mechanism with noise
multiplier ``z_t``. The neighbouring relation is add/remove one row, the only one for
which Poisson subsampling amplifies as below. Unlike full-batch steps (GDP,
:mod:`._gdp`) these steps have no closed-form ``(epsilon, delta)``, so two numerical
accountants are offered:

* **RDP** (Mironov 2017). A step has Renyi DP of order ``alpha``
  ``eps_t(alpha) = log(A_alpha) / (alpha - 1)`` with (Mironov, Talwar & Zhang 2019,
  Sec. 3)::

      A_alpha = E_{x ~ N(0, z^2)} [(1 - q + q exp((2x - 1) / (2 z^2)))^alpha],

  which for integer ``alpha`` is the binomial sum of their Sec. 3.3::

      A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2-k) / (2z^2)).

  Steps compose by adding ``eps_t(alpha)`` order by order (Mironov 2017, Prop. 1), and
  the total converts to ``(epsilon, delta)`` with the bound of Canonne, Kamath &
  Steinke (2020, Prop. 12) and Asoodeh et al. (2021), as in dp-accounting. The
  RDP is computed in :mod:`._subsampled_rdp`, the conversion in :mod:`._rdp`.
* **PLD** (Koskela et al. 2020; Doroshenko et al. 2022, "Connect the dots"): the
  privacy-loss distribution of each step, discretised pessimistically and composed by
  FFT; tighter than RDP, and an upper bound thanks to its pessimistic
  discretisation. The PMFs are dp-accounting's (a dependency), computed vectorised
  in :mod:`sklearn_dpgd.accounting._pld` and converted to epsilon by dp-accounting.

The PLD accountant is the default: it is what the minibatch estimators calibrate their
noise to, approve their plan with (:class:`~sklearn_dpgd.accounting.PldPrivacyFilter`)
and report as ``epsilon_``. Calibration (:func:`calibrate_poisson_noise_multipliers`)
first finds the RDP root (a smooth, monotone function of the noise scale that is cheap
to evaluate exactly), then moves it to the PLD root in a few PLD evaluations on a grid
fixed by the target, so that the PLD epsilon is a monotone function of the scale. A
plan calibrated to the PLD runs with at most 32 distinct noise levels
(:func:`pld_plan_levels`, each rounded down), so that the PLD composes exactly what
runs and an evaluation costs 32 step PLDs, not one per step.

References
----------
Mironov, I. (2017). Renyi differential privacy. CSF.
Mironov, I., Talwar, K., Zhang, L. (2019). Renyi differential privacy of the sampled
Gaussian mechanism. arXiv:1908.10530.
Canonne, C., Kamath, G., Steinke, T. (2020). The discrete Gaussian for differential
privacy. NeurIPS (Prop. 12 in arXiv:2004.00010v4).
Asoodeh, S., Liao, J., Calmon, F., Kosut, O., Sankar, L. (2021). Three variants of
differential privacy: lossless conversion and applications. IEEE JSAIT 2(1).
Koskela, A., Jalko, J., Honkela, A. (2020). Computing tight differential privacy
guarantees using FFT. AISTATS.
Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R., Manurangsi, P. (2022). Connect the
dots: tighter discrete approximations of privacy loss distributions. PETS.
Bu, Z., Dong, J., Long, Q., Su, W. J. (2020). Deep learning with Gaussian differential
privacy. Harvard Data Science Review 2(3).
van Erven, T., Harremoes, P. (2014). Renyi divergence and Kullback-Leibler divergence.
IEEE Trans. Inf. Theory 60(7).
"""

import functools
import math

import numpy as np
from scipy.optimize import brentq

from . import _pld
from ._gdp import _check_delta, _check_positive, gdp_mu
from ._rdp import DEFAULT_ORDERS
from ._subsampled_rdp import (
    _as_noise_multipliers,
    _as_sampling_rates,
    _group_steps,
    _min_epsilon,
)

__all__ = [
    "calibrate_poisson_noise_multipliers",
    "pld_epsilon",
    "pld_grid_step",
    "pld_plan_levels",
    "poisson_gaussian_epsilon",
    "scale_to_budget",
]

# Calibration: Brent's method on log(scale) to this absolute tolerance (relative 1e-10
# on the scale; epsilon moves by at most a few times that).
_LOG_SCALE_XTOL = 1e-10
# PLD accountant: the privacy-loss grid step. The pessimistic error of connect-the-dots
# discretisation, relative to epsilon, was measured to be about (0.5 to 3) * T *
# (step / epsilon)^2 for T composed steps (50 random schedules, against a 4x finer
# grid), while the cost of building a step's PLD is inversely proportional to the
# step. So the step is epsilon * min(0.01, 0.04 / sqrt(T)), for an error of about
# 0.5% at most, with epsilon first the RDP one and then, if the PLD came out much
# smaller, the PLD one; within the absolute bounds below.
_PLD_STEP_CONSTANT = 0.04
_PLD_MAX_RELATIVE_STEP = 0.01
_PLD_STEP_BOUNDS = (1e-6, 0.05)
# PLD accountant: a ledger with more distinct noise levels than this is rounded
# down into this many levels before it is composed (_quantize_down), which left
# its PLD up to 1.7% above the unrounded one (48 levels: 2.4%). A level's PLD costs
# about 2-5 ms at q = 0.008 (Adult, batch_size=256; _pld.py).
_PLD_MAX_LEVELS = 64
# Plans calibrated to the PLD *run* rounded down to this many levels
# (pld_plan_levels), so that the accountant composes exactly what ran.
_PLD_PLAN_LEVELS = 32
# Calibration to the PLD stops within this fraction below the budget.
_PLD_RTOL = 1e-4


def poisson_gaussian_epsilon(
    noise_multipliers,
    sampling_rates,
    delta,
    accountant="pld",
    value_discretization_interval=None,
):
    """``epsilon`` spent at ``delta`` by Poisson-subsampled Gaussian steps.

    Parameters
    ----------
    noise_multipliers : array-like of shape (n_steps,)
        Noise std of each step in units of the clipping norm, each > 0 (``inf`` for a
        step that adds nothing private).
    sampling_rates : float or array-like of shape (n_steps,)
        Poisson sampling probability of each step, in (0, 1].
    delta : float
        In (0, 1).
    accountant : {"pld", "rdp"}, default="pld"
        ``"pld"``: dp-accounting's privacy-loss distributions with add/remove
        neighbours (:func:`pld_epsilon`): ``PoissonSampledDpEvent`` of a
        ``GaussianDpEvent`` per distinct step, self-composed for repeats, with
        pessimistic connect-the-dots discretisation. ``"rdp"``: :func:`rdp_epsilon`
        of :func:`poisson_gaussian_rdp` over :data:`DEFAULT_ORDERS` (only the orders
        that can attain the minimum are evaluated, which gives the same value).
    value_discretization_interval : float or None, default=None
        PLD only: the privacy-loss grid step. None: ``epsilon * min(0.01, 0.04 /
        sqrt(n_steps))`` (:func:`pld_grid_step`) for the RDP epsilon, then for
        the PLD result and epsilons within 1% of it (the smallest value, all being
        upper bounds): among them is the grid a minibatch fit's filter used, so
        ``ledger_epsilon(clf.ledger_, delta)`` is at most ``clf.epsilon_``.

    Returns
    -------
    epsilon : float
        >= 0. Either value is an upper bound on the true epsilon of the steps: PLD
        rounds privacy losses up and counts the truncated tail mass as infinite loss.
        RDP is looser: on 50 random schedules (1-2,000 steps, q in [0.001, 1],
        calibrated to RDP epsilon in [0.1, 10]) it exceeded PLD by 6% to 30x, median
        24%.

    Raises
    ------
    ValueError
        If ``noise_multipliers`` is empty, not 1-D or has an entry that is not > 0;
        if ``sampling_rates`` has the wrong shape or an entry outside (0, 1]; if
        ``delta`` is outside (0, 1); or if ``accountant`` is unknown.

    Notes
    -----
    RDP: Mironov, Talwar & Zhang (2019); conversion of Canonne, Kamath & Steinke
    (2020). PLD: Koskela et al. (2020); Doroshenko et al. (2022). The PLD step sets
    the error and the cost: on the 50 schedules above the PLD epsilon exceeded that
    on a 4x finer grid by at most 0.5% (median 0.15%), where a fixed step of 1e-3
    would be off by up to 9% at epsilon below 0.05.
    """
    z = _as_noise_multipliers(noise_multipliers, "noise_multipliers")
    q = _as_sampling_rates(sampling_rates, z.size)
    delta = _check_delta(delta)
    if accountant not in ("rdp", "pld"):
        raise ValueError(f"accountant must be 'pld' or 'rdp', got {accountant!r}.")
    zg, qg, counts = _group_steps(z, q)
    if zg.size == 0:
        return 0.0
    if accountant == "pld" and value_discretization_interval is not None:
        step = _check_positive(
            value_discretization_interval, "value_discretization_interval"
        )
        return _grouped_pld_epsilon(zg, qg, counts, delta, step)
    eps = _min_epsilon(qg, zg, counts, delta, DEFAULT_ORDERS)[0]
    if accountant == "rdp":
        return eps
    # Every pass is pessimistic (an upper bound), so the smallest is one too. The
    # last passes use the grids of epsilons within 1% of the PLD one: among them is
    # the grid a fit's filter used for a budget within 1% of its epsilon_, so a
    # fit's ledger re-audits to at most its epsilon_ (equal, in practice).
    n_steps = float(counts.sum())
    step = pld_grid_step(eps, n_steps)
    eps = _grouped_pld_epsilon(zg, qg, counts, delta, step)
    steps = {step}
    for factor in (1.0, 1.0 / 1.01, 1.01):
        candidate = pld_grid_step(eps * factor, n_steps)
        if candidate not in steps:
            steps.add(candidate)
            eps = min(eps, _grouped_pld_epsilon(zg, qg, counts, delta, candidate))
    return eps


def pld_grid_step(epsilon, n_steps):
    """Privacy-loss grid step for a PLD of ``n_steps`` steps spending ``epsilon``.

    Parameters
    ----------
    epsilon : float
        The epsilon the steps spend (or are to spend), > 0.
    n_steps : int or float
        Number of composed steps, >= 1.

    Returns
    -------
    step : float
        ``epsilon * min(0.01, 0.04 / sqrt(n_steps))`` clipped to [1e-6, 0.05] and
        rounded down to a power of 2: the pessimistic discretisation error is then
        about 0.5% of epsilon at most (measured against a 4x finer grid,
        ``tests/test_accounting_subsampled.py``). The powers of 2 make nearby
        epsilons share a grid, so that a re-audit of a ledger meets the grid its
        filter used.
    """
    relative = min(_PLD_MAX_RELATIVE_STEP, _PLD_STEP_CONSTANT / math.sqrt(n_steps))
    lo, hi = _PLD_STEP_BOUNDS
    return 2.0 ** math.floor(math.log2(min(max(relative * epsilon, lo), hi)))


def _rounded_levels(z, q, counts, max_levels):
    """Each group's noise level rounded *down* so that at most ``max_levels`` remain.

    ``z``, ``q``, ``counts`` are grouped steps (:func:`_group_steps`); returns the
    rounded ``z`` aligned with them. The levels of each sampling rate, in
    increasing order, are cut into runs and every level of a run is replaced by
    the run's smallest. Less noise is a dominating mechanism (the Gaussian's
    privacy loss decreases with ``z``, and Poisson subsampling preserves the
    order), so an accountant of the rounded steps bounds the original ones
    whatever the cut. The cut is chosen by the central-limit approximation of Bu
    et al. (2020), in which a step adds ``q^2 (exp(1/z^2) - 1)`` to ``mu^2``: a
    run closes before its rounding would add more than an allowance, the
    smallest allowance (from 1/100 of the plan's ``mu^2`` per level, growing by
    1.5x) that gives at most ``max_levels`` runs. Steps that add little (large
    ``z``) are merged widely and those that dominate are kept nearly exact.
    """
    rates = np.unique(q)
    if z.size <= max_levels or rates.size >= max_levels:
        return z.copy()  # nothing to round, or one level per rate already
    with np.errstate(over="ignore"):
        g = q * q * np.expm1(np.minimum(1.0 / (z * z), 700.0))
    orders = []
    for rate in rates:
        idx = np.flatnonzero(q == rate)
        orders.append(idx[np.argsort(z[idx], kind="stable")])
    allowance = 1e-2 * float(counts @ g) / max_levels
    while True:
        zq = z.copy()
        n_runs = 0
        for idx in orders:
            anchor, extra = idx[0], 0.0
            n_runs += 1
            for i in idx:
                added = counts[i] * (g[anchor] - g[i])
                if extra + added > allowance:
                    anchor, extra = i, 0.0
                    n_runs += 1
                else:
                    extra += added
                zq[i] = z[anchor]
        if n_runs <= max_levels:
            return zq
        allowance *= 1.5


def _quantize_down(z, q, counts, max_levels=_PLD_MAX_LEVELS):
    """Grouped steps with at most ``max_levels`` noise levels, rounded down.

    See :func:`_rounded_levels`; equal rounded steps are merged again.
    """
    if z.size <= max_levels:
        return z, q, counts
    zq = _rounded_levels(z, q, counts, max_levels)
    uniq, inverse = np.unique(np.stack([zq, q]), axis=1, return_inverse=True)
    return uniq[0], uniq[1], np.bincount(inverse.ravel(), weights=counts)


def pld_plan_levels(noise_multipliers, sampling_rates, max_levels=None):
    """Round a plan's noise multipliers down to at most ``max_levels`` distinct levels.

    The plan that then *runs* has as many distinct steps as the PLD accountant
    composes, so its epsilon is that of exactly what ran (no rounding inside
    the accountant), and an evaluation costs ``max_levels`` step PLDs instead of
    one per step. Every step gets at most the noise the plan gave it (see
    :func:`_rounded_levels` for where the cuts go: where rounding costs least
    privacy); the caller (:func:`calibrate_poisson_noise_multipliers`) then
    rescales the rounded plan to the budget as a whole, so that the PLD
    (Doroshenko et al., PETS 2022, connect-the-dots) of exactly these steps
    spends it.

    Parameters
    ----------
    noise_multipliers : array-like of shape (n_steps,)
        Per-step noise multipliers, each > 0 (``inf`` steps are kept).
    sampling_rates : float or array-like of shape (n_steps,)
        Per-step Poisson sampling rates, in (0, 1].
    max_levels : int or None, default=None
        None: 32 (a PLD evaluation of 32 levels at ``q = 0.008`` takes about
        0.1 s).

    Returns
    -------
    noise_multipliers : ndarray of shape (n_steps,)
        Each entry at most the input one; the same array values if the plan has
        at most ``max_levels`` distinct ``(z, q)`` pairs.

    Raises
    ------
    ValueError
        If a noise multiplier is not > 0, a sampling rate is outside (0, 1],
        ``sampling_rates`` has the wrong length, or ``max_levels`` < 1.
    """
    z = _as_noise_multipliers(noise_multipliers, "noise_multipliers")
    q = _as_sampling_rates(sampling_rates, z.size)
    max_levels = _PLD_PLAN_LEVELS if max_levels is None else int(max_levels)
    if max_levels < 1:
        raise ValueError(f"max_levels must be >= 1, got {max_levels}.")
    zg, qg, counts = _group_steps(z, q)
    if zg.size <= max_levels:
        return z.copy()
    rounded = dict(
        zip(
            zip(zg.tolist(), qg.tolist(), strict=True),
            _rounded_levels(zg, qg, counts, max_levels).tolist(),
            strict=True,
        )
    )
    steps = zip(z.tolist(), q.tolist(), strict=True)
    return np.array([rounded.get(pair, pair[0]) for pair in steps])


@functools.lru_cache(maxsize=256)
def _cached_pld_epsilon(levels, delta, step):
    return _pld.epsilon_of(_pld.composed_pmfs(levels, step, delta), step, delta)


def _grouped_pld_epsilon(z, q, counts, delta, step):
    z, q, counts = _quantize_down(z, q, counts)
    levels = tuple(
        (float(zi), float(qi), int(n)) for zi, qi, n in zip(z, q, counts, strict=True)
    )
    return _cached_pld_epsilon(levels, float(delta), float(step))


def _ledger_pld(records, delta, step):
    """dp-accounting PLD of subsampled ``GaussianSteps`` records (any order)."""
    z = np.array([r.noise_multiplier for r in records], dtype=float)
    q = np.array([r.sampling_rate for r in records], dtype=float)
    counts = np.array([r.count for r in records], dtype=float)
    # Equal (z, q) runs of different records merge (composition commutes).
    pairs = {}
    for zi, qi, n in zip(z.tolist(), q.tolist(), counts.tolist(), strict=True):
        pairs[zi, qi] = pairs.get((zi, qi), 0.0) + n
    z = np.array([k[0] for k in pairs])
    q = np.array([k[1] for k in pairs])
    z, q, counts = _quantize_down(z, q, np.array(list(pairs.values())))
    levels = tuple(
        (float(zi), float(qi), int(n)) for zi, qi, n in zip(z, q, counts, strict=True)
    )
    return _pld.to_dp_accounting(_pld.composed_pmfs(levels, step, delta), step)


def pld_epsilon(
    noise_multipliers, sampling_rates, delta, value_discretization_interval
):
    """Pessimistic PLD epsilon of Gaussian steps on a given privacy-loss grid.

    Parameters
    ----------
    noise_multipliers : array-like of shape (n_steps,)
        Noise std of each step in units of the sensitivity, each > 0 (``inf`` for a
        step that adds nothing private).
    sampling_rates : float or array-like of shape (n_steps,)
        Poisson sampling probability of each step, in (0, 1] (1: a full-batch
        Gaussian step, e.g. the noisy count of the public size).
    delta : float
        In (0, 1).
    value_discretization_interval : float
        The privacy-loss grid step, > 0 (see :func:`pld_grid_step`).

    Returns
    -------
    epsilon : float
        >= 0, an upper bound on the epsilon of the steps under add/remove-one
        neighbours: each step's privacy loss is discretised pessimistically by
        connect-the-dots (Doroshenko et al., PETS 2022, Sec. 3) and the truncated
        tail mass counted as infinite loss (at most ``1e-3 delta`` in all);
        identical steps are self-composed (FFT powers, Koskela, Jalko & Honkela,
        AISTATS 2020). The PMFs are dp-accounting's, computed vectorised
        (:mod:`sklearn_dpgd.accounting._pld`). With more than 64 distinct noise
        levels the steps are first rounded down into 64 levels, cut where the
        central-limit approximation (Bu et al. 2020) says rounding costs least
        (less noise, so still an upper bound). Results are cached.

    Raises
    ------
    ValueError
        If an input is invalid (as for :func:`poisson_gaussian_epsilon`).
    """
    return poisson_gaussian_epsilon(
        noise_multipliers,
        sampling_rates,
        delta,
        accountant="pld",
        value_discretization_interval=value_discretization_interval,
    )


def calibrate_poisson_noise_multipliers(
    profile, sampling_rates, epsilon, delta, accountant="pld"
):
    """Scale a noise profile so that the minibatch run spends ``(epsilon, delta)``.

    Parameters
    ----------
    profile : array-like of shape (n_steps,)
        Relative noise multipliers (the schedule's shape), each finite and > 0.
    sampling_rates : float or array-like of shape (n_steps,)
        Poisson sampling probability of each step, in (0, 1].
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    accountant : {"pld", "rdp"}, default="pld"
        The accountant whose epsilon is brought to the target: ``"pld"``,
        :func:`pld_epsilon` on the grid ``pld_grid_step(epsilon, n_steps)``;
        ``"rdp"``, the Rényi bound of :func:`poisson_gaussian_epsilon`.

    Returns
    -------
    noise_multipliers : ndarray of shape (n_steps,)
        ``s * profile`` (noise std in units of the clipping norm), with the scale
        ``s`` such that the chosen accountant's epsilon of the run is at most
        ``epsilon`` and close to it (RDP: within about 1e-9 relative; PLD: within
        1e-4). PLD: a profile with more than 32 distinct levels is first rounded
        down to 32 (:func:`pld_plan_levels`): the plan returned is the one to
        run, and its PLD epsilon is that of exactly these steps.

    Raises
    ------
    ValueError
        If the profile is empty, not 1-D, or has an entry that is not finite and
        > 0; if ``sampling_rates`` is invalid; if ``epsilon``/``delta`` are; or if
        ``accountant`` is unknown.

    Notes
    -----
    Both epsilons decrease in ``s``; the root is found by Brent's method on ``log
    s`` against ``log epsilon`` (nearly linear: ``epsilon ~ 1/s`` for Gaussian-like
    runs), then ``s`` is nudged up until the budget holds. The RDP root starts from
    the central-limit approximation of Bu et al. (2020), ``mu^2 = sum_t q_t^2
    (exp(1 / z_t^2) - 1)``, at ``mu = gdp_mu(epsilon, delta)``; each evaluation is
    :func:`poisson_gaussian_epsilon`'s branch and bound over :data:`DEFAULT_ORDERS`,
    started from the previous best order (0.1-0.4 s for 1,000 distinct steps,
    milliseconds for a constant profile). The PLD root, on a grid fixed by the
    target, starts from the RDP one and moves to the RDP root of the target times
    the ratio RDP / PLD seen there (the PLD is typically 5-40% tighter, so less
    noise is needed), then finishes with :func:`scale_to_budget`: 2-5 PLD
    evaluations of at most 32 levels each (about 0.1 s of CPU each at ``q = 256 /
    32561``, Adult), so that 1,000 steps of distinct levels calibrate in 0.1-0.5
    s of CPU and a constant profile in a few milliseconds
    (``benchmarks/bench_accounting.py``). No order of
    :data:`DEFAULT_ORDERS` certifies less than about ``log(1/delta) / 7914`` short
    of the KL bound; a smaller RDP target gets the noise of that bound.
    """
    if accountant not in ("rdp", "pld"):
        raise ValueError(f"accountant must be 'pld' or 'rdp', got {accountant!r}.")
    if accountant == "rdp":
        return _calibrate_rdp(profile, sampling_rates, epsilon, delta)
    p = _as_profile(profile)
    q = _as_sampling_rates(sampling_rates, p.size)
    epsilon = _check_positive(epsilon, "epsilon")
    delta = _check_delta(delta)
    pg, qg, counts = _group_steps(p, q)
    if pg.size > _PLD_PLAN_LEVELS:
        # The run has at most _PLD_PLAN_LEVELS levels (pld_plan_levels), cut at
        # the scale the central-limit approximation puts the budget at.
        scale = math.exp(_initial_log_scale(pg, qg, counts, epsilon, delta))
        p = pld_plan_levels(scale * p, q) / scale
    z = _calibrate_rdp(p, q, epsilon, delta)
    step = pld_grid_step(epsilon, z.size)

    def spent(zs):
        return pld_epsilon(zs, q, delta, step)

    # The ratio PLD / RDP varies slowly with the scale: the second point is the
    # (cheap, exact) RDP root of epsilon * RDP / PLD at the first.
    def first_step(f0):
        target = epsilon * math.exp(-f0)  # f0 ~ log(PLD / RDP) at z
        return math.log(_calibrate_rdp(p, q, target, delta)[0] / z[0])

    return scale_to_budget(spent, z, epsilon, rtol=_PLD_RTOL, first_step=first_step)


def scale_to_budget(spent, noise_multipliers, epsilon, rtol=1e-4, first_step=None):
    """Rescale noise multipliers by one factor so that ``spent`` meets ``epsilon``.

    Parameters
    ----------
    spent : callable
        ``spent(noise_multipliers) -> float``: the epsilon a plan spends (with any
        steps already charged), non-increasing in a common scale of the plan.
    noise_multipliers : ndarray of shape (n_steps,)
        The plan at scale 1 (a first guess; any positive values).
    epsilon : float
        The budget, > 0.
    rtol : float, default=1e-4
        Stop once ``epsilon * (1 - rtol) <= spent <= epsilon``.
    first_step : callable or None, default=None
        ``first_step(f0) -> log s``: the second point to try, given ``f0 =
        log(spent / epsilon)`` at scale 1. None: ``f0`` (``epsilon ~ 1/s``).

    Returns
    -------
    noise_multipliers : ndarray of shape (n_steps,)
        ``s * noise_multipliers`` with ``spent(...) <= epsilon`` (always), and
        within ``rtol`` of it unless ``spent`` jumps there (then the smallest scale
        found on the safe side after 60 evaluations).

    Raises
    ------
    ValueError
        If ``epsilon`` is not > 0, or no scale up to ``e^700`` meets it.

    Notes
    -----
    Secant steps on ``(log s, log spent)`` until the root is bracketed, then
    regula falsi with the Illinois modification. The curve is close to a line
    (slope -1 for Gaussian-like runs, steeper when a few low-noise steps
    dominate), so from a guess within a few percent it takes 2-4 evaluations. The
    safe end of the bracket (``spent <= epsilon``) is what is returned.
    """
    epsilon = _check_positive(epsilon, "epsilon")
    z0 = np.asarray(noise_multipliers, dtype=float)
    # Aim at the middle of the accepted window [epsilon (1 - rtol), epsilon]: f is
    # log(spent) relative to that middle, accepted within half the window.
    log_target = math.log(epsilon) + math.log1p(-0.5 * rtol)
    half = -math.log1p(-0.5 * rtol)

    def excess(log_s):
        value = spent(math.exp(log_s) * z0)
        return min(max(math.log(max(value, 1e-300)), -700.0), 700.0) - log_target

    def done(f):
        return abs(f) <= half

    x0, f0 = 0.0, excess(0.0)
    if done(f0):
        return z0.copy()
    x1 = float(first_step(f0)) if first_step is not None else f0
    if x1 == x0:
        x1 = x0 + (0.01 if f0 > 0 else -0.01)
    f1 = excess(x1)
    n_eval = 2
    # Secant extrapolation until the two last points straddle the root.
    while (f0 > 0) == (f1 > 0):
        if done(f1):
            return math.exp(x1) * z0
        slope = (f1 - f0) / (x1 - x0)
        if not slope < 0:
            slope = -1.0
        x2 = x1 - f1 / slope
        # At most 4x further than the last move, and at least 1% of it.
        move = max(min(abs(x2 - x1), 4.0 * abs(x1 - x0)), 0.01 * abs(x1 - x0))
        x2 = x1 + math.copysign(move, f1)  # overspending: more noise
        x0, f0, x1 = x1, f1, x2
        f1 = excess(x1)
        n_eval += 1
        if abs(x1) > 700 or n_eval > 60:
            raise ValueError("no scale of the noise meets the budget.")
    if done(f1):
        return math.exp(x1) * z0
    (lo, flo), (hi, fhi) = sorted([(x0, f0), (x1, f1)], key=lambda p: -p[1])
    side = 0
    for _ in range(60):
        x = hi - fhi * (hi - lo) / (fhi - flo) if fhi != flo else 0.5 * (lo + hi)
        if not min(lo, hi) < x < max(lo, hi):
            x = 0.5 * (lo + hi)
        f = excess(x)
        if done(f):
            return math.exp(x) * z0
        if f > 0:
            lo, flo = x, f
            if side == -1:
                fhi *= 0.5
            side = -1
        else:
            hi, fhi = x, f
            if side == 1:
                flo *= 0.5
            side = 1
        if abs(hi - lo) < 1e-12:
            break
    return math.exp(hi) * z0


def _as_profile(profile):
    p = np.asarray(profile, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"profile must be a non-empty 1-D array, got shape {p.shape}.")
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError("profile entries must be finite and > 0.")
    return p


def _calibrate_rdp(profile, sampling_rates, epsilon, delta):
    """The RDP root of :func:`calibrate_poisson_noise_multipliers`."""
    p = _as_profile(profile)
    q = _as_sampling_rates(sampling_rates, p.size)
    epsilon = _check_positive(epsilon, "epsilon")
    delta = _check_delta(delta)
    pg, qg, counts = _group_steps(p, q)
    log_target = math.log(epsilon)

    last = [0]  # best order of the previous evaluation, to start the next from
    cache = {}  # Brent's method evaluates its bracket ends again

    def spent(log_s):
        if log_s in cache:
            return cache[log_s]
        hint = range(max(last[0] - 1, 0), min(last[0] + 2, DEFAULT_ORDERS.size))
        eps, last[0] = _min_epsilon(
            qg, math.exp(log_s) * pg, counts, delta, DEFAULT_ORDERS, hint=hint
        )
        cache[log_s] = eps
        return eps

    def excess(log_s):
        # log(epsilon / target), kept finite for Brent's method.
        return min(max(math.log(max(spent(log_s), 1e-300)), -700.0), 700.0) - log_target

    log_s = _initial_log_scale(pg, qg, counts, epsilon, delta)
    f0 = excess(log_s)
    if f0 != 0.0:
        lo, hi = _bracket(excess, log_s, f0)
        log_s = brentq(excess, lo, hi, xtol=_LOG_SCALE_XTOL, maxiter=200)
    # Brent's answer is within xtol of the root, on either side: step to the side
    # that spends at most epsilon.
    while spent(log_s) > epsilon:
        log_s += _LOG_SCALE_XTOL * max(1.0, abs(log_s))
    return math.exp(log_s) * p


def _initial_log_scale(p, q, counts, epsilon, delta):
    """``log s`` at which the CLT approximation of the run is ``gdp_mu``-GDP."""
    mu2 = gdp_mu(epsilon, delta) ** 2

    def excess(log_s):
        x = 1.0 / (math.exp(log_s) * p) ** 2
        with np.errstate(over="ignore"):
            return math.log(float(counts @ (q * q * np.expm1(np.minimum(x, 700.0)))))

    # Dropping the expm1 curvature gives a lower bound on s, a first bracket end.
    lo = 0.5 * math.log(float(counts @ (q * q / (p * p))) / mu2)
    hi = lo
    target = math.log(mu2)
    while excess(hi) > target:
        hi += math.log(2.0)
    if hi == lo:
        return lo
    return brentq(lambda x: excess(x) - target, lo, hi, xtol=1e-6)


def _bracket(f, x0, f0):
    """``(lo, hi)`` with ``f(lo) > 0 >= f(hi)``, ``f`` decreasing and ``f(x0) = f0``.

    ``f`` is ``log(epsilon / target)`` as a function of ``log s``, close to
    ``-(log s - root)``, so the first guess ``x0 + f0`` is usually across the root.
    """
    step = min(max(abs(f0), 0.05), 5.0)
    if f0 > 0:
        lo, hi = x0, x0 + 1.25 * step
        while f(hi) > 0:
            lo, hi = hi, hi + 2.0 * (hi - lo)
    else:
        lo, hi = x0 - 1.25 * step, x0
        while f(lo) <= 0:
            lo, hi = lo - 2.0 * (hi - lo), lo
    return lo, hi
