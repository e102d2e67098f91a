"""Where every private mechanism of the package gets its randomness.

One rule for every estimator, baseline and search (the privacy page, "Randomness
and ``random_state``"):

* ``random_state=None`` (the default) draws 128 bits of fresh operating-system
  entropy (:class:`numpy.random.SeedSequence` with no entropy argument reads
  ``os.urandom``) for every fit. It never reads NumPy's global state, which
  ``np.random.seed`` makes predictable, so two fits never share noise.
* An integer or a :class:`numpy.random.RandomState` makes the noise reproducible,
  and therefore *subtractable* by anyone who knows the seed: outside a ledger, two
  fits with the same seed (e.g. the clones of ``GridSearchCV`` or
  ``cross_val_score`` on different folds) draw the same noise, which then cancels
  in their difference. Inside a user's
  :class:`~sklearn_dpgd.accounting.PrivacyLedger` the ``k``-th fixed-seed fit gets
  child ``k`` of the seed, so the fits the ledger composes as independent are
  (reproducibly, for the same sequence of fits). This is a debugging aid; it warns
  with :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
* ``secure_mode=True`` ignores ``random_state`` and draws every noise value from the
  operating system's cryptographically secure generator through
  :class:`sklearn_dpgd._engine._secure.SecureGenerator` (the option of the same name in
  Opacus).
"""

from numbers import Integral

import numpy as np

from .._warnings import warn_once
from ..accounting import _seed_position
from ..exceptions import PrivacyLeakWarning
from ._secure import SecureGenerator

__all__ = ["draw_seed", "make_generator", "spawn_seeds"]

# A regular expression matching the fixed-seed warning below, for code that warns
# once for many fits (the searches) and filters the fits' own warnings.
FIXED_SEED_MESSAGE = r".*random_state=.* fixes the noise"

# Bits of entropy of every seed the package draws itself (NIST SP 800-90A's
# security strength for a 128-bit key; numpy's SeedSequence pool is 128 bits).
SEED_BITS = 128


def _fixed_seed_warning(random_state, owner):
    warn_once(
        f"{owner}: random_state={random_state!r} fixes the noise. Anyone who knows "
        "the seed can regenerate and subtract it, and fits that share the seed "
        "(e.g. clones in GridSearchCV or cross_val_score) share their noise, which "
        "cancels between them. Use random_state=None (fresh entropy for every fit) "
        "for any release; a fixed seed is for debugging and tests only.",
        PrivacyLeakWarning,
        stacklevel=4,
    )


def draw_seed(random_state, *, owner="estimator"):
    """Turn a ``random_state`` parameter into the seed of one private fit.

    Parameters
    ----------
    random_state : None, int or numpy.random.RandomState
        None: 128 bits of fresh operating-system entropy. An int (>= 0) or a
        ``RandomState``: a reproducible seed (a ``RandomState`` gives 128 bits
        drawn from it); warns.
    owner : str, default="estimator"
        Name used in the warning.

    Returns
    -------
    seed : numpy.random.SeedSequence
        The seed of the fit. Spawn children from it for sub-mechanisms.

    Raises
    ------
    TypeError
        If ``random_state`` is of another type (``numpy.random.Generator`` is not
        accepted by scikit-learn's ``random_state`` convention either).
    ValueError
        If ``random_state`` is a negative integer.

    Warns
    -----
    PrivacyLeakWarning
        If ``random_state`` is not None.
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                f"random_state must be None or an integer >= 0, got {random_state!r}."
            )
        _fixed_seed_warning(random_state, owner)
        return _in_ledger(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        _fixed_seed_warning(random_state, owner)
        words = random_state.randint(0, 2**32, size=SEED_BITS // 32, dtype=np.uint64)
        return _in_ledger([int(w) for w in words])
    raise TypeError(
        "random_state must be None, an int or a numpy.random.RandomState, got "
        f"{type(random_state).__name__}."
    )


def _in_ledger(entropy):
    """The fixed seed ``entropy``, spawned by the fit's position in the innermost
    user :class:`~sklearn_dpgd.accounting.PrivacyLedger` if one is active.

    A ledger composes its fits as independent mechanisms; two fits with the same
    seed would share their noise, so the ledger's total would be false. Inside a
    ledger the ``k``-th fixed-seed fit therefore gets the child ``k`` of the seed
    (``SeedSequence(entropy, spawn_key=(k,))``): distinct noise for every fit,
    the same for the same sequence of fits in a new ledger. Outside any ledger the
    seed is ``entropy`` itself, as before.
    """
    position = _seed_position()
    if position is None:
        return np.random.SeedSequence(entropy)
    return np.random.SeedSequence(entropy, spawn_key=(position[1],))


def spawn_seeds(seed, n):
    """``n`` independent child seeds of ``seed`` (each with 128 bits of entropy).

    Parameters
    ----------
    seed : numpy.random.SeedSequence
    n : int
        Number of children, >= 0.

    Returns
    -------
    seeds : list of numpy.random.SeedSequence
    """
    return seed.spawn(int(n))


def make_generator(seed, secure_mode=False):
    """The random generator of one private mechanism.

    Parameters
    ----------
    seed : numpy.random.SeedSequence
        From :func:`draw_seed` (ignored when ``secure_mode`` is True).
    secure_mode : bool, default=False
        True: a :class:`sklearn_dpgd._engine._secure.SecureGenerator` (operating-system
        CSPRNG, floating-point-attack-resistant Gaussian and Laplace samplers).

    Returns
    -------
    rng : numpy.random.Generator or SecureGenerator
        Both offer ``standard_normal``, ``normal``, ``laplace``, ``exponential``,
        ``gumbel``, ``random``, ``uniform``, ``integers`` and ``permutation``.
    """
    if secure_mode:
        return SecureGenerator()
    return np.random.Generator(np.random.PCG64(seed))
