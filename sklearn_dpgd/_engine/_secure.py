r"""``secure_mode=True``: noise from the OS CSPRNG through float-safe samplers.

Threat model
------------
With ``secure_mode=False`` the noise comes from NumPy's PCG64, seeded with 128
bits of OS entropy (:mod:`sklearn_dpgd._engine._randomness`). PCG64 is not a
cryptographic generator: its state can be recovered from its output (Bouillaguet,
Martinez & Sauvage, "Practical Seed-Recovery for the PCG Pseudo-Random Number
Generator", IACR Trans. Symmetric Cryptol. 2020(3)). And NumPy's samplers map one
uniform (or a few) to one floating-point value, so the set of floats a draw can
take is sparse and depends on the value it is added to. Mironov, "On Significance
of the Least Significant Bits for Differential Privacy" (ACM CCS 2012) shows that
this lets an observer of one released noisy value tell which of two inputs
produced it; Jin, McMurtry, Rubinstein & Ohrimenko, "Are We There Yet? Timing and
Floating-Point Attacks on Differential Privacy Systems" (IEEE S&P 2022) do the
same for Gaussian samplers, DP-SGD's noise included.

:class:`SecureGenerator` removes both weaknesses:

1. **Bits.** Every call reads fresh bytes from the operating system's CSPRNG
   (:func:`os.urandom`, i.e. ``getrandom(2)`` on Linux). The generator keeps no state
   and no buffer, so it cannot be seeded, predicted from earlier output, or copied.
   A process forked with ``os.fork`` or a multiprocessing worker draws
   independent values, and so does an unpickled copy.
2. **Samplers.** Each continuous draw is a *sum of independent terms*, each built
   from its own uniforms. This follows Holohan & Braghin, "Secure Random Sampling in
   Differential Privacy" (ESORICS 2021, LNCS 12973, Sect. 5), the method of
   Opacus's ``secure_mode`` (``_generate_noise``, 2n = 4 Gaussians) and of
   diffprivlib's ``Laplace`` (4 uniforms). To invert one output, the observer
   must now search over all the uniform tuples whose sum rounds to it (about
   :math:`2^{p(2n-1)}` of them, with :math:`p = 53` bits a term: :math:`2^{159}`
   for 2n = 4) instead of inverting one monotone map.

The identities used (all exact over the reals; :math:`U \in (0, 1]` with a
resolution of :math:`2^{-128}`, :math:`V \in [0, 1)` with :math:`2^{-53}`, each
draw independent):

* Box & Muller ("A Note on the Generation of Random Normal Deviates", Ann. Math.
  Statist. 29(2), 1958): :math:`R = \sqrt{-2\ln U}` and :math:`\Theta = 2\pi V`
  give independent :math:`Z = R\cos\Theta` and :math:`Z' = R\sin\Theta`, both
  :math:`N(0, 1)`.
* Gaussian (Holohan & Braghin, Sect. 5.1 with n = 2):
  :math:`X = (Z_1 + Z_2 + Z_3 + Z_4)/2 \sim N(0, 1)` (sum of independent
  Gaussians; variance :math:`4 \cdot 1/4 = 1`). The four terms of one output come
  from four *different* Box-Muller pairs: the two outputs of one pair sum to
  :math:`\sqrt 2 R\cos(\Theta - \pi/4)`, one Box-Muller draw again (Holohan &
  Braghin, Sect. 5, footnote 2), which would undo the protection.
* Laplace (Holohan & Braghin, Sect. 5; diffprivlib's ``Laplace._laplace_sampler``):
  :math:`L = \ln U_1 \cos(\pi V_1) + \ln U_2 \cos(\pi V_2) \sim \mathrm{Lap}(0, 1)`.
  Each term is distributed as a product :math:`Z Z'` of independent standard
  normals (:math:`ZZ' = (R^2/2)\sin 2\Theta`), whose characteristic function is
  :math:`(1 + t^2)^{-1/2}`; the sum of two has :math:`(1 + t^2)^{-1}`, the
  Laplace one.
* Exponential: :math:`E = -\ln U_1 \cos^2(\pi V_1) - \ln U_2 \cos^2(\pi V_2)
  = (Z_1^2 + Z_2^2)/2 \sim \mathrm{Exp}(1)` (a :math:`\chi^2_2 / 2`, again
  with :math:`Z_1, Z_2` from two different pairs; one pair would give
  :math:`-\ln U`, the plain inverse-CDF sampler).
* Gumbel: :math:`G = -\ln E \sim \mathrm{Gumbel}(0, 1)` with :math:`E` as above.
* Uniform: 53 random bits times :math:`2^{-53}` (NumPy's own conversion).

Guarantee and accounting
------------------------
Every sampler has *exactly* the target distribution over the reals, so the
accounting of every mechanism (Gaussian, Laplace, report-noisy-max, Gumbel-max,
sparse vector) is **unchanged**: ``secure_mode`` changes where the bits come from
and how they are combined, not the noise scale nor the reported epsilon.

The floating-point guarantee is computational, not information-theoretic. The
remaining caveats:

* Rounding of ``log``, ``cos``, ``sqrt`` and of the sum still makes the float
  distribution differ from the real one by about :math:`2^{-53}` relative, and no
  proof bounds the privacy loss of the *float* mechanism by the real one's. The
  sum of independent terms makes Mironov's and Jin et al.'s attacks (which test
  whether an output is reachable from a candidate input) infeasible, not
  impossible. A discrete Gaussian (Canonne, Kamath & Steinke, "The Discrete
  Gaussian for Differential Privacy", NeurIPS 2020, Algorithm 3) would make the
  guarantee exact, at the price of per-value exact rational arithmetic (a Python
  loop per coordinate: far above the 1.5x time budget for a 20,000-value step), a
  rounding term in the sensitivity and a timing side channel (Jin et al.); it is
  not used here.
* Bounded support. :math:`U \geq 2^{-128}` caps each Box-Muller radius at
  :math:`r = \sqrt{256 \ln 2} \approx 13.32`, so :math:`|X| \le 2r`. An output of
  the mechanism on ``D`` that the mechanism on a neighbour cannot produce needs all
  four radii of one coordinate above :math:`r - 2\Delta/\sigma`, hence an additive
  :math:`\delta \le d\, e^{-2(r - 2/z)^2}` per step of dimension ``d`` at noise
  multiplier :math:`z = \sigma/\Delta` (:func:`gaussian_support_delta`): below
  :math:`10^{-70}` at z = 0.5, d = 20,000. Laplace, exponential and Gumbel draws
  are bounded by :math:`2 \cdot 128 \ln 2 \approx 177` scales, with a similarly
  negligible tail.
* Accounted bounded support. The two bullets above bound the support per
  coordinate at a given noise multiplier; the package accounts a bound that needs
  neither: over the reals, a bounded uniform :math:`U' = \max(U, 2^{-128})` differs
  from an ideal :math:`U \in (0, 1]` with probability :math:`2^{-128}`, so a
  mechanism that draws at most :math:`N` bounded uniforms is within total
  variation :math:`\eta = N\,2^{-128}` of its ideal version, and an ideal
  :math:`(\varepsilon, \delta)`-DP mechanism becomes
  :math:`(\varepsilon, \delta + (1 + e^{\varepsilon})\eta)`-DP (for any event
  :math:`S`: :math:`P[M'(D) \in S] \le P[M(D) \in S] + \eta \le
  e^{\varepsilon} P[M'(D') \in S] + \delta + (1 + e^{\varepsilon})\eta`). It
  holds for every sampler (Gaussian, Laplace, exponential, Gumbel) and every noise
  multiplier. Each :class:`SecureGenerator` draws at most :data:`MAX_BOUNDED_UNIFORMS`
  (:math:`2^{40}`) bounded uniforms and refuses to draw more; a private fit uses at
  most :data:`GENERATORS_PER_FIT` generators (4), so
  :func:`support_delta` :math:`= (1 + e^{\varepsilon})\, 4 \cdot 2^{40} \cdot
  2^{-128} \approx 1.9 \times 10^{-25}` at :math:`\varepsilon = 1` is added to the
  fitted ``delta_`` of every ``secure_mode`` fit (rounded up to the next float), and
  a :class:`~sklearn_dpgd.accounting.PrivacyLedger` pays the support of its
  ``secure_mode`` entries out of the delta it composes at (where the term is
  below that delta's float resolution, the epsilon is unchanged: the change it
  stands for, about :math:`\eta/\delta` relative, is far below one unit in the
  last place). A delta so small that the term shows (below about
  :math:`10^{-9}`) gets the exact treatment, and a ledger with no delta left for
  the term reports an infinite epsilon.
* The exponential, Gumbel and Laplace draws of the package feed selections that
  release only an *index* (report-noisy-max, Gumbel-max, sparse vector), never the
  noisy value, so the low-order bits Mironov's attack reads are not released at all;
  the sum construction is used anyway for defence in depth.
* Side channels of the host (timing of the kernels, memory) are out of scope.
"""

import math
import operator
import os
import threading
from numbers import Integral

import numpy as np

__all__ = [
    "GENERATORS_PER_FIT",
    "MAX_BOUNDED_UNIFORMS",
    "SecureGenerator",
    "gaussian_support_delta",
    "poisson_indices",
    "add_support_delta",
    "support_delta",
    "support_tv",
]

_TWO_PI = 2.0 * math.pi
_SCALE_53 = 2.0**-53
_SCALE_64 = 2.0**-64
_SCALE_128 = 2.0**-128
# Largest Box-Muller radius sqrt(-2 ln U) with U >= 2**-128.
RADIUS_MAX = math.sqrt(-2.0 * math.log(_SCALE_128))
#: Bounded uniforms (``ln U`` with ``U >= 2**-128``) one generator may draw.
MAX_BOUNDED_UNIFORMS = 2**40
#: Generators one private fit creates at most (the snowball solver uses three).
GENERATORS_PER_FIT = 4


def _words(n):
    """``n`` uniform 64-bit words from the OS CSPRNG (a new array every call)."""
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    return np.frombuffer(os.urandom(8 * n), dtype=np.uint64).copy()


def _uniform53(n):
    """``n`` uniforms on the grid ``k 2**-53`` of ``[0, 1)``, as NumPy's ``random``."""
    return (_words(n) >> np.uint64(11)).astype(np.float64) * _SCALE_53


def _log_u(hi):
    """``ln U`` for uniforms ``U`` in ``(0, 1]`` resolved down to ``2**-128``.

    ``U = hi 2**-64 + (lo + 1) 2**-128`` with two random words. The low word only
    changes the float when ``hi < 2**53`` (``U < 2**-11``), so it is read for those
    entries only (one in 2,048): there it keeps the 53-bit relative precision that a
    single 53-bit uniform (smallest value ``2**-53``) loses, and it pushes the cap
    on the radius of Box-Muller from 8.6 to 13.3 (see the module notes).
    """
    u = hi.astype(np.float64) * _SCALE_64
    small = np.flatnonzero(hi < np.uint64(2**53))
    if small.size:
        lo = _words(small.size).astype(np.float64)
        u[small] += (lo + 1.0) * _SCALE_128
    return np.log(np.minimum(u, 1.0, out=u), out=u)


def _log_uniform(n):
    """``ln U`` for ``n`` uniforms of :func:`_log_u`."""
    return _log_u(_words(n))


def _pairs(k):
    """``ln U`` and ``V`` of ``k`` independent pairs, from one OS read of 16 k bytes.

    One read per call keeps the per-call cost low for the small noise vectors of
    minibatch steps (the system call, not the bytes, dominates below ~1,000 values).
    """
    w = _words(2 * k)
    v = (w[k:] >> np.uint64(11)).astype(np.float64) * _SCALE_53
    return _log_u(w[:k]), v


def _gaussian_from_uniforms(log_u, v):
    """Half-sums of four Box-Muller normals, from four distinct pairs each.

    Parameters
    ----------
    log_u : ndarray of shape (2 m,)
        ``ln U`` of the ``2 m`` pairs (``m >= 2``).
    v : ndarray of shape (2 m,)
        Angle uniforms of the same pairs.

    Returns
    -------
    x : ndarray of shape (m,)
        Output ``j`` is ``(C[2j] + C[2j+1] + S[2j+2] + S[2j+3]) / 2`` (indices
        modulo ``2 m``) with ``C`` and ``S`` the cosine and sine outputs of the
        pairs: each pair feeds its cosine to one output and its sine to the next,
        never both to the same one.
    """
    radius = np.sqrt(-2.0 * log_u)
    angle = _TWO_PI * v
    cos_terms = radius * np.cos(angle)
    sin_terms = radius * np.sin(angle)
    out = cos_terms[0::2] + cos_terms[1::2]
    out[:-1] += sin_terms[2::2] + sin_terms[3::2]
    out[-1] += sin_terms[0] + sin_terms[1]
    out *= 0.5
    return out


def _standard_normal(n):
    m = max(n, 2)  # with one output the sine terms would come from its own pairs
    return _gaussian_from_uniforms(*_pairs(2 * m))[:n]


def _standard_laplace(n):
    log_u, v = _pairs(2 * n)
    return (log_u * np.cos(math.pi * v)).reshape(2, n).sum(axis=0)


def _standard_exponential(n):
    log_u, v = _pairs(2 * n)
    c = np.cos(math.pi * v)
    return -(log_u * (c * c)).reshape(2, n).sum(axis=0)


def gaussian_support_delta(noise_multiplier, n_coordinates, n_steps=1):
    r"""Bound on the delta added by the bounded support of the secure Gaussian.

    Parameters
    ----------
    noise_multiplier : float
        ``z = sigma / Delta`` (L2 sensitivity ``Delta``), > 0.
    n_coordinates : int
        Dimension ``d`` of one noise vector.
    n_steps : int, default=1
        Number of noise vectors (steps) composed.

    Returns
    -------
    delta : float
        ``T d exp(-2 (r - 2/z)^2)`` with ``r`` = :data:`RADIUS_MAX`, or 1.0 when
        ``z <= 2/r`` (the bound is void there).

    Notes
    -----
    A coordinate of ``D``'s output lies outside the support of a neighbour's only
    if ``|X_i| > 2 r - Delta_i / sigma``; with ``|X_i| <= (R_1 + ... + R_4)/2``
    and ``R_k <= r``, that needs every ``R_k > r - 2 Delta / sigma``, and
    ``P(R > t) = exp(-t^2 / 2)`` (Rayleigh). The union over coordinates and steps
    bounds the mass on which the privacy loss is infinite.
    """
    z = float(noise_multiplier)
    if not z > 0:
        raise ValueError(f"noise_multiplier must be > 0, got {noise_multiplier!r}.")
    margin = RADIUS_MAX - 2.0 / z
    if margin <= 0:
        return 1.0
    return min(1.0, n_steps * n_coordinates * math.exp(-2.0 * margin * margin))


# Bounded uniforms (``ln U``) per output value (the Gaussian: of >= 2 outputs).
_BOUNDED_PER_VALUE = {
    _standard_normal: 2,
    _standard_laplace: 2,
    _standard_exponential: 2,
}
_COUNT_LOCK = threading.Lock()


def _reset_count_lock_after_fork():
    global _COUNT_LOCK
    _COUNT_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_count_lock_after_fork)


def support_tv(n_generators=1):
    r"""Total-variation bound of the bounded support of ``n_generators`` generators.

    Parameters
    ----------
    n_generators : int, default=1
        Number of :class:`SecureGenerator` objects a mechanism draws from, >= 0.

    Returns
    -------
    eta : float
        ``n_generators * MAX_BOUNDED_UNIFORMS * 2**-128`` (:math:`2^{-88}` a
        generator): the probability that any bounded uniform of the mechanism
        differs from its ideal, unbounded coupling (see the module notes).

    Raises
    ------
    ValueError
        If ``n_generators`` is negative.
    """
    n = operator.index(n_generators)
    if n < 0:
        raise ValueError(f"n_generators must be >= 0, got {n_generators!r}.")
    return n * MAX_BOUNDED_UNIFORMS * _SCALE_128


def support_delta(epsilon, n_generators=GENERATORS_PER_FIT):
    r"""Delta added by the bounded support of ``secure_mode`` to an ideal mechanism.

    An ideal :math:`(\varepsilon, \delta)`-DP mechanism run with bounded uniforms
    (total variation :math:`\eta` from the ideal, :func:`support_tv`) is
    :math:`(\varepsilon, \delta + (1 + e^{\varepsilon})\eta)`-DP (module notes,
    "Accounted bounded support").

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon, >= 0 (``inf`` gives 1.0).
    n_generators : int, default=GENERATORS_PER_FIT
        Number of generators it draws from.

    Returns
    -------
    delta : float
        ``min(1, (1 + exp(epsilon)) * support_tv(n_generators))``.

    Raises
    ------
    ValueError
        If ``epsilon`` is negative or NaN, or ``n_generators`` negative.
    """
    eps = float(epsilon)
    if not eps >= 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}.")
    eta = support_tv(n_generators)
    # exp overflows past 700, where the bound is long void.
    return 0.0 if eta == 0 else min(1.0, (1.0 + math.exp(min(eps, 700.0))) * eta)


def add_support_delta(delta, epsilon, n_generators=GENERATORS_PER_FIT):
    """``delta + support_delta(epsilon, n_generators)``, rounded up to a float.

    The term (about ``2e-25`` at ``epsilon = 1``) is below a float ``delta``'s
    resolution; rounding up keeps the sum an upper bound.

    Parameters
    ----------
    delta : float
        The ideal mechanism's delta, in [0, 1].
    epsilon : float
        Its epsilon, >= 0.
    n_generators : int, default=GENERATORS_PER_FIT

    Returns
    -------
    delta : float
        In (delta, 1].
    """
    extra = support_delta(epsilon, n_generators)
    total = float(delta) + extra
    if extra > 0 and total <= float(delta):
        total = float(np.nextafter(total, np.inf))
    return min(1.0, total)


def poisson_indices(rng, n_samples, rate):
    """Rows of a Poisson sample: each of ``n_samples`` rows kept with prob. ``rate``.

    Parameters
    ----------
    rng : numpy.random.Generator or SecureGenerator
        A NumPy generator draws one uniform per row (``rng.random(n) < rate``, the
        package's historical stream); a :class:`SecureGenerator` draws the gaps
        between kept rows (:meth:`SecureGenerator.poisson_indices`), which reads
        ``O(rate n)`` instead of ``8 n`` bytes from the OS.
    n_samples : int
        Number of rows, >= 0.
    rate : float
        Inclusion probability, in ``[0, 1]``.

    Returns
    -------
    indices : ndarray of int64
        The kept rows, increasing.
    """
    if isinstance(rng, SecureGenerator):
        return rng.poisson_indices(n_samples, rate)
    return np.flatnonzero(rng.random(n_samples) < rate)


def _check_size(size):
    if size is None:
        return None
    if isinstance(size, Integral) and not isinstance(size, bool):
        size = (int(size),)
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(
            f"size must be None, an int or a tuple of ints, got {size!r}."
        ) from None
    if any(s < 0 for s in shape):
        raise ValueError(f"size must not be negative, got {size!r}.")
    return shape


def _broadcast_or_none(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _check_nonnegative(name, value):
    arr = np.asarray(value, dtype=np.float64)
    if np.any(arr < 0) or np.any(np.isnan(arr)):
        raise ValueError(f"{name} must be >= 0, got {value!r}.")
    return arr


class SecureGenerator:
    """Random draws from the OS CSPRNG through floating-point-safe samplers.

    A drop-in for the part of :class:`numpy.random.Generator` the package uses,
    with NumPy's conventions for ``size`` (None gives a scalar; an int or a tuple
    gives an array of that shape; array parameters broadcast). It holds no random
    state: every call reads new bytes from :func:`os.urandom`, so it cannot be
    seeded, and forked or unpickled copies draw independent values. It counts the
    bounded uniforms it draws and refuses more than :data:`MAX_BOUNDED_UNIFORMS`
    (the accounted support delta, :func:`support_delta`). See the module notes
    for the samplers (Holohan & Braghin, ESORICS 2021, Sect. 5) and the exact
    guarantee.

    Examples
    --------
    >>> from sklearn_dpgd._engine._secure import SecureGenerator
    >>> rng = SecureGenerator()
    >>> rng.standard_normal((2, 3)).shape
    (2, 3)
    >>> isinstance(rng.random(), float)
    True
    """

    def __init__(self):
        self._bounded_uniforms = 0

    def __repr__(self):
        return "SecureGenerator()"

    def _spend_bounded(self, count):
        """Count ``count`` bounded uniforms; refuse past :data:`MAX_BOUNDED_UNIFORMS`.

        The accounted support delta (:func:`support_delta`) holds for at most that
        many a generator, so a draw that would exceed it raises before reading
        random bytes.
        """
        with _COUNT_LOCK:
            total = self._bounded_uniforms + count
            if total > MAX_BOUNDED_UNIFORMS:
                raise RuntimeError(
                    f"this SecureGenerator has drawn {self._bounded_uniforms} of its "
                    f"{MAX_BOUNDED_UNIFORMS} bounded uniforms; {count} more would "
                    "void the accounted support delta of secure_mode."
                )
            self._bounded_uniforms = total

    def _draw(self, sampler, size, params=()):
        """Shape handling shared by the samplers: returns (draws, scalar_output)."""
        shape = _check_size(size)
        param_shape = np.broadcast_shapes(*(np.shape(p) for p in params))
        if shape is None:
            shape = param_shape
        elif _broadcast_or_none(shape, param_shape) != shape:
            raise ValueError(
                f"size={size!r} does not match the shape {param_shape} of the "
                "parameters."
            )
        n = math.prod(shape)
        per_value = _BOUNDED_PER_VALUE.get(sampler, 0)
        if per_value:
            self._spend_bounded(per_value * (max(n, 2) if n else 0))
        return sampler(n).reshape(shape), size is None and shape == ()

    @staticmethod
    def _out(values, scalar):
        return float(values) if scalar else values

    def random(self, size=None):
        """Uniform floats on ``[0, 1)`` (53 random bits each).

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape; None returns one Python float.

        Returns
        -------
        out : float or ndarray
        """
        x, scalar = self._draw(_uniform53, size)
        return self._out(x, scalar)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Uniform floats on ``[low, high)``.

        Parameters
        ----------
        low : float or array_like, default=0.0
            Lower bound.
        high : float or array_like, default=1.0
            Upper bound.
        size : int or tuple of int, optional
            Output shape; None broadcasts ``low`` and ``high``.

        Returns
        -------
        out : float or ndarray
        """
        low, high = np.asarray(low, float), np.asarray(high, float)
        x, scalar = self._draw(_uniform53, size, (low, high))
        return self._out(low + (high - low) * x, scalar)

    def standard_normal(self, size=None):
        """Standard normal draws: half-sums of four independent Box-Muller normals.

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape; None returns one Python float.

        Returns
        -------
        out : float or ndarray
        """
        x, scalar = self._draw(_standard_normal, size)
        return self._out(x, scalar)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal draws ``loc + scale * standard_normal()``.

        Parameters
        ----------
        loc : float or array_like, default=0.0
            Mean.
        scale : float or array_like, default=1.0
            Standard deviation, >= 0.
        size : int or tuple of int, optional
            Output shape; None broadcasts ``loc`` and ``scale``.

        Returns
        -------
        out : float or ndarray

        Raises
        ------
        ValueError
            If ``scale`` is negative.
        """
        loc = np.asarray(loc, float)
        scale = _check_nonnegative("scale", scale)
        x, scalar = self._draw(_standard_normal, size, (loc, scale))
        return self._out(loc + scale * x, scalar)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        """Laplace draws from Holohan & Braghin's sum of two products.

        Parameters
        ----------
        loc : float or array_like, default=0.0
            Location.
        scale : float or array_like, default=1.0
            Scale ``b`` (variance ``2 b**2``), >= 0.
        size : int or tuple of int, optional
            Output shape; None broadcasts ``loc`` and ``scale``.

        Returns
        -------
        out : float or ndarray

        Raises
        ------
        ValueError
            If ``scale`` is negative.
        """
        loc = np.asarray(loc, float)
        scale = _check_nonnegative("scale", scale)
        x, scalar = self._draw(_standard_laplace, size, (loc, scale))
        return self._out(loc + scale * x, scalar)

    def exponential(self, scale=1.0, size=None):
        """Exponential draws ``(Z_1**2 + Z_2**2) / 2`` times ``scale``.

        Parameters
        ----------
        scale : float or array_like, default=1.0
            Mean, >= 0.
        size : int or tuple of int, optional
            Output shape; None broadcasts ``scale``.

        Returns
        -------
        out : float or ndarray

        Raises
        ------
        ValueError
            If ``scale`` is negative.
        """
        scale = _check_nonnegative("scale", scale)
        x, scalar = self._draw(_standard_exponential, size, (scale,))
        return self._out(scale * x, scalar)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        """Gumbel draws ``loc - scale * ln(E)`` with ``E`` a secure exponential.

        Parameters
        ----------
        loc : float or array_like, default=0.0
            Location (mode).
        scale : float or array_like, default=1.0
            Scale, >= 0.
        size : int or tuple of int, optional
            Output shape; None broadcasts ``loc`` and ``scale``.

        Returns
        -------
        out : float or ndarray

        Raises
        ------
        ValueError
            If ``scale`` is negative.
        """
        loc = np.asarray(loc, float)
        scale = _check_nonnegative("scale", scale)
        x, scalar = self._draw(_standard_exponential, size, (loc, scale))
        return self._out(loc - scale * np.log(x), scalar)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Uniform integers on ``[low, high)`` (``[low, high]`` with ``endpoint``).

        Exact: words masked to the bit length of the range, out-of-range values
        redrawn (no modulo bias).

        Parameters
        ----------
        low : int
            Lowest value (``high=None``: the range is ``[0, low)``).
        high : int, optional
            One above the highest value (the highest with ``endpoint=True``).
        size : int or tuple of int, optional
            Output shape; None returns a NumPy scalar of ``dtype``.
        dtype : numpy integer dtype, default=numpy.int64
            Output type; the range must fit in it.
        endpoint : bool, default=False
            Whether ``high`` is included.

        Returns
        -------
        out : numpy integer or ndarray

        Raises
        ------
        ValueError
            If the range is empty or does not fit ``dtype``.
        """
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        dtype = np.dtype(dtype)
        if dtype.kind not in "iu":
            raise TypeError(f"dtype must be an integer type, got {dtype}.")
        top = high if endpoint else high - 1
        info = np.iinfo(dtype)
        if top < low:
            raise ValueError(f"low must be < high, got low={low}, high={high}.")
        if low < info.min or top > info.max:
            raise ValueError(
                f"the range [{low}, {top}] does not fit dtype={dtype.name}."
            )
        span = top - low + 1  # <= 2**64
        shape = _check_size(size)
        n = 1 if shape is None else math.prod(shape)
        if span == 2**64:
            values = _words(n)
        else:
            mask = np.uint64((1 << (span - 1).bit_length()) - 1)
            values = _words(n) & mask
            bad = np.flatnonzero(values >= np.uint64(span))
            while bad.size:  # each round keeps > half of the remaining draws
                values[bad] = _words(bad.size) & mask
                bad = bad[values[bad] >= np.uint64(span)]
        # Two's-complement wrap-around gives low + value for signed dtypes too.
        values = values + np.uint64(low % 2**64)
        if dtype.kind == "i":
            values = values.view(np.int64)
        values = values.astype(dtype)
        if shape is None:
            return values[0]
        return values.reshape(shape)

    def permutation(self, x):
        """A uniformly random permutation.

        The order of distinct random 64-bit keys (redrawn until all differ, which
        makes every order exactly equally likely).

        Parameters
        ----------
        x : int or array_like
            An int ``n`` permutes ``arange(n)``; an array is copied and permuted
            along its first axis.

        Returns
        -------
        out : ndarray
        """
        if isinstance(x, Integral) and not isinstance(x, bool):
            arr = np.arange(int(x))
        else:
            arr = np.array(x, copy=True)
            if arr.ndim == 0:
                raise ValueError("x must be an int or an array with ndim >= 1.")
        n = arr.shape[0]
        while True:
            keys = _words(n)
            order = np.argsort(keys, kind="stable")
            sorted_keys = keys[order]
            if not np.any(sorted_keys[1:] == sorted_keys[:-1]):
                return arr[order]

    def poisson_indices(self, n_samples, rate):
        """Rows kept by Poisson sampling, drawn as gaps between kept rows.

        Row ``i`` is kept independently with probability ``rate``: the gaps
        ``G_j`` between consecutive kept rows are i.i.d. geometric,
        ``P(G >= k) = (1 - rate)**k``, drawn by inversion,
        ``G = floor(ln U / ln(1 - rate))`` (``U`` of :func:`_log_u`, resolved to
        ``2**-128``). A Bernoulli process is exactly a renewal process with
        geometric gaps, so the indices have the distribution of the one-uniform-
        per-row mask, up to the rounding of ``ln`` (a relative error of a few
        ``2**-53`` on each ``P(G >= k)``). The cost is ``O(rate n)`` draws instead
        of ``n``, which keeps minibatch steps on ``secure_mode`` cheap.

        Parameters
        ----------
        n_samples : int
            Number of rows, >= 0.
        rate : float
            Inclusion probability, in ``[0, 1]``.

        Returns
        -------
        indices : ndarray of int64
            The kept rows, increasing.

        Raises
        ------
        ValueError
            If ``n_samples`` is negative or ``rate`` is outside ``[0, 1]``.
        """
        n = operator.index(n_samples)
        if n < 0:
            raise ValueError(f"n_samples must be >= 0, got {n_samples!r}.")
        rate = float(rate)
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be in [0, 1], got {rate!r}.")
        if rate == 1.0:
            return np.arange(n, dtype=np.int64)
        if rate == 0.0 or n == 0:
            return np.empty(0, dtype=np.int64)
        log_keep = math.log1p(-rate)
        expected = n * rate
        chunk = int(expected + 6.0 * math.sqrt(expected) + 16)
        parts, last = [], -1
        while True:
            self._spend_bounded(chunk)
            gaps = np.floor(_log_uniform(chunk) / log_keep)
            # Gaps past the end are all equivalent; the cap keeps int64 exact.
            gaps = np.minimum(gaps, n).astype(np.int64)
            positions = last + np.cumsum(gaps + 1)
            parts.append(positions[positions < n])
            if positions[-1] >= n:
                return np.concatenate(parts)
            last = int(positions[-1])
