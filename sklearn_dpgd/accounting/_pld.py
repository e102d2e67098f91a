"""Fast pessimistic privacy-loss distributions of Poisson-subsampled Gaussian steps.

Nothing in this module reads data. It computes what dp-accounting's
``from_gaussian_mechanism(..., sampling_prob=q, use_connect_dots=True,
pessimistic_estimate=True)`` followed by ``self_compose``/``compose`` computes
(add/remove-one neighbours: the "remove" and "add" privacy-loss PMFs; Doroshenko,
Ghazi, Kamath, Kumar & Manurangsi, PETS 2022, Algorithm 1, connect-the-dots), with
the same grid, the same ``exp(-50)`` truncation of the noise and, by default, the
same pessimistic ``1e-15`` truncation of the tails after each convolution, but
vectorised: dp-accounting evaluates the hockey-stick curve and truncates the tails
in Python loops (about 30 ms per step's PLD and 20 ms per self-composition at
``q = 0.008``), which made a PLD of 64 distinct noise levels take seconds. Here a
level costs about 2 ms; ``T`` repeats of a level take one FFT power (or repeated
squaring for long supports) and levels compose in a balanced tree. Given the
target ``delta``, the tails may lose up to ``1e-3 delta`` in all (to infinite
loss: pessimistic), which keeps the long thin right tails of subsampled steps from
spreading over hundreds of thousands of grid points. ``tests/test_accounting_pld.py``
checks the PMFs against dp-accounting's to 1e-12 and the composed epsilons to
1e-8 (1e-4 above, never below, with the ``delta`` truncation).

The hockey-stick divergence of the subsampled Gaussian at ``epsilon`` is that of
dp-accounting's ``GaussianPrivacyLoss.get_delta_for_epsilon`` (the subsampled
Gaussian's PLD of Koskela, Jalko & Honkela, AISTATS 2020): with ``x`` the largest
output whose privacy loss is at least ``epsilon``,
``delta(epsilon) = P_upper(X <= x) - exp(epsilon) P_lower(X <= x)``.

References
----------
Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R., Manurangsi, P. (2022). Connect the
dots: tighter discrete approximations of privacy loss distributions. PETS.
Koskela, A., Jalko, J., Honkela, A. (2020). Computing tight differential privacy
guarantees using FFT. AISTATS.
"""

import functools
import math

import numpy as np
from scipy.fft import next_fast_len
from scipy.special import log_ndtr, ndtr, ndtri

# dp-accounting's defaults: the noise is truncated at this log-mass (the truncated
# left tail counted as infinite privacy loss), and each convolution drops at most
# this much tail mass (the right tail counted as infinite loss, the left moved up).
_LOG_MASS_TRUNCATION = -50.0
_TAIL_MASS_TRUNCATION = 1e-15
# Self-compositions whose full support is at most this long take one FFT power.
_MAX_DIRECT_SIZE = 2**17


def _privacy_loss(z, q, x, add):
    """Privacy loss at output ``x`` of the subsampled Gaussian (sensitivity 1)."""
    if add:  # upper N(0, z^2), lower (1-q) N(0, z^2) + q N(1, z^2)
        base = (x - 0.5) / (z * z)
        if q == 1.0:
            return -base
        return -float(np.logaddexp(math.log1p(-q), math.log(q) + base))
    base = (-0.5 - x) / (z * z)  # upper (1-q) N(0, z^2) + q N(-1, z^2), lower N(0)
    if q == 1.0:
        return base
    return float(np.logaddexp(math.log1p(-q), math.log(q) + base))


def _hockey_stick(z, q, epsilons, add):
    """``delta(epsilon)`` of one subsampled Gaussian step, vectorised."""
    eps = np.asarray(epsilons, dtype=float)
    deltas = np.zeros_like(eps)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if q == 1.0:
            inside = np.ones(eps.shape, dtype=bool)
            base = eps
        elif add:  # the loss is at most -log(1 - q): delta is 0 beyond
            inside = eps < -math.log1p(-q)
            base = -np.log1p(np.expm1(-eps[inside]) / q)
        else:  # the loss is at least log(1 - q): delta is 1 - e^eps below
            inside = eps > math.log1p(-q)
            deltas[~inside] = -np.expm1(eps[~inside])
            base = np.log1p(np.expm1(eps[inside]) / q)
        # x: the largest output of loss >= epsilon (the unsubsampled inverse).
        x = -0.5 - base * z * z
        if add:
            x = x + 1.0
            upper = ndtr(x / z)
            lower = (
                log_ndtr((x - 1.0) / z)
                if q == 1.0
                else np.logaddexp(
                    math.log1p(-q) + log_ndtr(x / z),
                    math.log(q) + log_ndtr((x - 1.0) / z),
                )
            )
        else:
            upper = (
                ndtr((x + 1.0) / z)
                if q == 1.0
                else (1.0 - q) * ndtr(x / z) + q * ndtr((x + 1.0) / z)
            )
            lower = log_ndtr(x / z)
        deltas[inside] = upper - np.exp(eps[inside] + lower)
    return np.clip(deltas, 0.0, 1.0)


def _step_pmf(z, q, step, add):
    """Connect-the-dots PMF ``(lower index, probs, infinity mass)`` of one step."""
    # dp-accounting's GaussianPrivacyLoss.privacy_loss_tail / connect_dots_bounds.
    left = z * float(ndtri(0.5 * math.exp(_LOG_MASS_TRUNCATION)))
    lower_x, upper_x = (left, -left + 1.0) if add else (left - 1.0, -left)
    hi = math.ceil(_privacy_loss(z, q, lower_x, add) / step)
    lo = math.floor(_privacy_loss(z, q, upper_x, add) / step)
    deltas = np.minimum.accumulate(
        _hockey_stick(z, q, np.arange(lo, hi + 1) * step, add)
    )
    # Doroshenko et al. (2022), Algorithm 1, as pld_pmf's fixed-gap version.
    if hi == lo:
        return lo, np.array([1.0 - deltas[0]]), float(deltas[0])
    diffs = np.diff(deltas)
    probs = np.empty_like(deltas)
    probs[0] = 1.0 - deltas[0] + diffs[0] / math.expm1(step)
    probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(step)) / math.expm1(step)
    probs[-1] = diffs[-1] / math.expm1(-step)
    return lo, np.maximum(probs, 0.0), float(deltas[-1])


def _truncate(lower, probs, infinity, mass):
    """dp-accounting's pessimistic ``_truncate_tails``, vectorised.

    At most half the truncation mass is cut from each end: the left part is moved
    up onto the first loss kept, the right part onto infinite loss.
    """
    half = 0.5 * mass
    left = int(np.searchsorted(np.cumsum(probs), half, side="right"))
    right = probs.size - int(np.searchsorted(np.cumsum(probs[::-1]), half, "right"))
    right = max(right, left + 1)
    kept = probs[left:right].copy()
    kept[0] += probs[:left].sum()
    return lower + left, kept, infinity + float(probs[right:].sum())


def _compose(a, b, mass):
    # Imported on first use: scipy.signal adds 0.1-0.2 s to `import sklearn_dpgd`
    # (over scikit-learn's own imports), and full-batch fits never convolve.
    from scipy.signal import fftconvolve

    (la, pa, ia), (lb, pb, ib) = a, b
    # FFT round-off can leave values of -1e-18; clipping them up adds mass at a
    # finite loss, which can only increase delta (pessimistic).
    probs = np.maximum(fftconvolve(pa, pb), 0.0)
    return _truncate(la + lb, probs, ia + ib - ia * ib, mass)


def _self_compose(pmf, count, mass):
    lower, probs, infinity = pmf
    size = (probs.size - 1) * count + 1
    if count > 1 and size <= _MAX_DIRECT_SIZE:
        # One FFT power of a length that holds the whole support (no wrap-around),
        # then one truncation: exact up to round-off, as dp-accounting's
        # self_convolve without its Chernoff-bounded (wrapping) length.
        n_fft = next_fast_len(size, real=True)
        power = np.fft.irfft(np.fft.rfft(probs, n_fft) ** count, n_fft)[:size]
        infinity = -math.expm1(count * math.log1p(-infinity))
        return _truncate(lower * count, np.maximum(power, 0.0), infinity, mass)
    result = None
    while True:  # repeated squaring, truncating after each product
        if count & 1:
            result = pmf if result is None else _compose(result, pmf, mass)
        count >>= 1
        if not count:
            return result
        pmf = _compose(pmf, pmf, mass)


# A level's PMFs hold up to a few 100,000 floats: keep the last evaluations' levels
# (a filter's approval re-evaluates the plan its calibration ended on), not more.
@functools.lru_cache(maxsize=128)
def _level_pmfs(z, q, count, step, mass):
    """Remove and add PMFs of ``count`` identical steps ``(z, q)``, cached."""
    remove = _self_compose(_step_pmf(z, q, step, add=False), count, mass)
    if q == 1.0:  # symmetric: the add PMF is the remove one
        return remove, remove
    return remove, _self_compose(_step_pmf(z, q, step, add=True), count, mass)


def composed_pmfs(levels, step, delta=None):
    """Remove and add PMFs of the composition of ``(z, q, count)`` levels.

    Parameters
    ----------
    levels : sequence of (float, float, int)
        ``(noise multiplier, sampling rate, count)`` of each level.
    step : float
        The privacy-loss grid step.
    delta : float or None, default=None
        None: each convolution truncates at most 1e-15 of tail mass, as
        dp-accounting does. A float: at most ``max(1e-15, 1e-3 delta / K)``, with
        ``K`` a bound on the number of convolutions, so that all the truncations
        together add at most ``1e-3 delta`` to the delta at any epsilon (the
        right tail is counted as infinite loss, the left moved up: both
        pessimistic). Subsampled steps have long right tails of tiny mass that
        the 1e-15 truncation keeps: 30 levels of ``q = 0.008`` composed to
        ``epsilon = 1.6`` spread over 500,000 grid points, and cost a second.

    Returns
    -------
    remove, add : tuple of (int, ndarray, float)
        ``(lower loss index, probabilities, infinity mass)`` of each PMF.
    """
    mass = _TAIL_MASS_TRUNCATION
    if delta is not None:
        n_convolutions = sum(2 * int(n).bit_length() for _, _, n in levels)
        mass = max(mass, 1e-3 * delta / (n_convolutions + len(levels)))
    pairs = [
        _level_pmfs(float(z), float(q), int(n), float(step), mass) for z, q, n in levels
    ]
    # A balanced tree of convolutions: each round costs about one convolution of
    # the whole support, instead of one per level in a left fold.
    while len(pairs) > 1:
        pairs = [
            tuple(_compose(a, b, mass) for a, b in zip(*pairs[i : i + 2], strict=True))
            if i + 1 < len(pairs)
            else pairs[i]
            for i in range(0, len(pairs), 2)
        ]
    return pairs[0]


def to_dp_accounting(pmfs, step):
    """The pair of PMFs as a dp-accounting ``PrivacyLossDistribution``."""
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    remove, add = (
        pld_pmf.DensePLDPmf(step, lower, probs, infinity, True)
        for lower, probs, infinity in pmfs
    )
    return PrivacyLossDistribution(remove, add)


def epsilon_of(pmfs, step, delta):
    """Epsilon at ``delta`` of a pair of PMFs, by dp-accounting's own conversion."""
    return max(float(to_dp_accounting(pmfs, step).get_epsilon_for_delta(delta)), 0.0)
