"""The budget ledger across fits: PrivacyLedger and the ledgers a fit records into.

Nothing in this module reads data. A fit charges the active ledgers
(:func:`_charge_active_ledgers`) after its noise is calibrated and before it reads
data; a ledger with a cap refuses a fit that would overspend (a privacy filter over
fits; Rogers et al., NeurIPS 2016; Whitehouse et al., ICML 2023).
"""

import contextlib
import contextvars
import math
import os
import threading
from typing import NamedTuple

import joblib

from ..exceptions import BudgetExhaustedError, UnrecordedFitError
from ._compose import _compose_entries
from ._gdp import _check_delta, _check_positive
from ._joblib import LedgerThreadingBackend
from ._records import LedgerEntry

__all__ = ["PrivacyLedger", "active_ledgers", "recording_only"]


# ---------------------------------------------------------------------------------
# The budget ledger across fits (GridSearchCV, cross-validation, tuning).
#
# A fit cannot hold its ledger as a parameter: scikit-learn clones estimators, and a
# clone would hold a copy. The ledger is therefore *active*: ``with ledger:`` puts it
# on a context-local stack, and a fit records into every ledger on the stack of its
# context. New threads start with an empty context (contextvars do not follow
# ``threading.Thread``), so a fit whose context has no ledger records into every
# ledger open anywhere in its process: over-reporting is safe, under-reporting is not.
# Another process sees no ledger at all; see _ledger_guard_state. A forked process
# (os.fork, joblib's "multiprocessing" backend) sees copies of its parent's ledgers,
# in its contexts and in _OPEN_LEDGERS alike, and what it records there never
# reaches the parent: each ledger remembers the process it belongs to (_pid), and a
# copy refuses to record (_check_not_forked_copy).

_ACTIVE_LEDGERS = contextvars.ContextVar("sklearn_dpgd_active_ledgers", default=())
# Whether a strict ledger is open in this context; recording_only keeps it.
_STRICT = contextvars.ContextVar("sklearn_dpgd_strict", default=False)
_OPEN_LEDGERS = {}  # id(ledger) -> [ledger, times entered], process-wide
_LEDGER_LOCK = threading.RLock()
_FORK_ADVICE = (
    "Run the fits with n_jobs=1 or joblib's threading backend (the ledger's "
    "default), or open a new PrivacyLedger inside the child process and record its "
    "entries in the parent's ledger yourself."
)
_LEDGER_GUARD = "_sklearn_dpgd_ledger_pid"


def _open(ledger, *, only=False):
    """Make ``ledger`` active in this context (alone if ``only``), and visible.

    Visible everywhere it must be: in the worker threads of joblib calls made
    inside the block (:class:`~._joblib.LedgerThreadingBackend` becomes joblib's
    default backend and carries this context into them), to threads that have no
    ledger in their context (``_OPEN_LEDGERS``: they record into every open
    ledger, which can only over-report), and to the pickling guard, which marks
    estimators shipped to another process so that their fits there are refused.
    """
    with _LEDGER_LOCK:
        slot = _OPEN_LEDGERS.setdefault(id(ledger), [ledger, 0])
        slot[1] += 1
    stack = (ledger,) if only else _ACTIVE_LEDGERS.get() + (ledger,)
    token = (
        _ACTIVE_LEDGERS.set(stack),
        _STRICT.set(_STRICT.get() or getattr(ledger, "strict", False)),
    )
    backend = joblib.parallel_config(backend=LedgerThreadingBackend())
    backend.__enter__()
    return token, backend


def _close(ledger, token, backend, exc_info):
    """Undo :func:`_open`, in the thread and context that opened it."""
    backend.__exit__(*exc_info)
    _STRICT.reset(token[1])
    _ACTIVE_LEDGERS.reset(token[0])
    with _LEDGER_LOCK:
        slot = _OPEN_LEDGERS[id(ledger)]
        slot[1] -= 1
        if slot[1] == 0:
            del _OPEN_LEDGERS[id(ledger)]


class LeakRecord(NamedTuple):
    """One leak around a private fit, as :attr:`PrivacyLedger.leaks` lists it.

    Parameters
    ----------
    construct : str
        What leaks: the scikit-learn (or third-party) class or function, or the
        non-private step of a container.
    releases : str
        The message: what it releases without noise and what to use instead.
    location : str
        ``"file:line"`` of the user's call that ran it.
    """

    construct: str
    releases: str
    location: str


def _record_leak(key, construct, releases, location):
    """Add a leak to every user ledger open in this context or process (once each)."""
    record = LeakRecord(construct, releases, location)
    with _LEDGER_LOCK:
        ledgers = {id(s[0]): s[0] for s in _OPEN_LEDGERS.values()}
        ledgers.update((id(led), led) for led in _ACTIVE_LEDGERS.get())
        for ledger in ledgers.values():
            if getattr(ledger, "_internal", False):
                continue
            seen = ledger.__dict__.setdefault("_leak_keys", set())
            if (key, location) not in seen:
                seen.add((key, location))
                ledger.__dict__.setdefault("_leaks", []).append(record)


class PrivacyLedger:
    """A budget ledger across fits: records every private fit run while it is open.

    Open it with ``with ledger:``; every fit of a DP estimator of this package in
    that block (also the fits that scikit-learn's ``GridSearchCV``,
    ``cross_validate`` or ``Pipeline`` make on clones) records what it ran, its
    ``ledger_``, here. :meth:`epsilon` composes all of it. With a cap
    ``(epsilon, delta)``, a fit whose planned steps would take the composition
    above the cap raises :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError`
    before it reads any data: the fit's noise is calibrated from public quantities,
    so its whole cost is known before it starts (a privacy filter over fits;
    Rogers et al., NeurIPS 2016; Whitehouse et al., ICML 2023).

    The ledger is not an estimator parameter (clones would hold copies), and
    there is no global accountant: only fits inside ``with ledger:`` are recorded.

    Parameters
    ----------
    epsilon : float or None, default=None
        Cap on the total epsilon, > 0; None records without a cap.
    delta : float or None, default=None
        The delta at which the cap is checked, in (0, 1); required with
        ``epsilon``.
    strict : bool, default=False
        For production jobs: while the ledger is open, every leak that a private
        fit detects around itself (a non-private step of its ``Pipeline``, a
        scikit-learn search, cross-validation, calibration, multiclass wrapper or
        ensemble fitting it; see the privacy page) raises
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakError` before that fit reads
        data, instead of warning :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
        Holds in nested ledgers, inside ``recording_only`` and in the worker
        threads of joblib calls made in the block.

    Attributes
    ----------
    entries : tuple of LedgerEntry
        What was recorded, in order.
    neighboring : str or None
        The neighbouring relation of the recorded mechanisms (all must share one);
        None while empty.

    Raises
    ------
    ValueError
        If only one of ``epsilon`` and ``delta`` is given, or either is invalid.
    TypeError
        If ``strict`` is not a bool.

    See Also
    --------
    ledger_epsilon : The epsilon of one fit's ``ledger_``.

    Notes
    -----
    Composition is sequential over all recorded mechanisms, as if each had read
    all rows (a fit on a fold reads fewer, so this is an upper bound), except for
    entries marked with disjoint ``part``s, which compose in parallel (McSherry,
    SIGMOD 2009). Full-batch Gaussian steps compose exactly in closed form
    (``mu^2`` adds up; Dong, Roth & Su 2022, Cor. 3.3); subsampled steps by RDP
    or PLD (:func:`ledger_epsilon`); ``(epsilon, delta)`` records by
    dp-accounting's privacy-loss distributions (Doroshenko et al. 2022).

    Adaptivity, exactly what the cap guarantees. While every entry is a
    full-batch Gaussian mechanism the cap is checked by the GDP composition,
    which is a privacy filter: it stays valid when each fit (and its budget) is
    chosen after seeing earlier outputs (fully adaptive composition; Smith &
    Thakurta 2022). As soon as the ledger holds another entry (subsampled
    ``batch_size`` steps, the ``(epsilon, delta)`` record of an adaptive
    schedule, Snowball-SGD, a private search or a pipeline with ``epsilon``
    shares), the cap is checked by the privacy-loss-distribution composition,
    which is exact for mechanisms fixed in advance but is not a proven filter:
    the cap then guarantees ``(epsilon, delta)`` only if the sequence of fits and
    their budgets is fixed before the first one runs (a script that does not
    decide the next fit from earlier results). To choose later fits from earlier
    outputs under a cap, keep the ledger to full-batch fits (``batch_size=None``,
    a data-independent schedule).

    What a ledger does *not* see: the scores ``GridSearchCV`` computes on the
    held-out folds, ``best_params_`` and ``cv_results_`` are exact functions of
    private data, released without noise. Around a plain ``GridSearchCV`` the
    ledger's epsilon is therefore the spend of the fits only, a lower bound on the
    leak; :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` makes the
    selection private too.

    Parallelism: while open, the ledger makes joblib's default backend a
    ``"threading"`` backend that runs every task in a copy of the caller's
    context (:class:`~sklearn_dpgd.accounting._joblib.LedgerThreadingBackend`), so
    the fits in the threads of ``n_jobs=2`` (a search, a ``ColumnTransformer`` or
    ``FeatureUnion``, a ``Parallel`` call) record exactly where they would in the
    caller's thread; a thread started otherwise, without the ledger in its
    context, records into every ledger open in the process, which can only
    over-report. One ledger may be entered by many threads at once, each ``with``
    block exiting in its own thread; a capped ledger refuses, with
    :class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` raised in the refused
    fit's thread only, whatever would overspend. A fit that still reaches another
    process (an explicit ``backend="loky"``) raises
    :class:`~sklearn_dpgd.exceptions.UnrecordedFitError` there, before it reads
    data. So does a fit in a forked process (``os.fork``, an explicit
    ``backend="multiprocessing"``) that would record in a ledger of its parent:
    the child holds a copy the parent never sees, whether the ledger was open at
    the fork or is opened in the child. So does a ledger pickled in one process
    and loaded in another, until :meth:`adopt` makes the copy that process's own.
    A ledger created in the child records there, for the child to report.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.accounting import PrivacyLedger
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> ledger = PrivacyLedger()
    >>> with ledger:
    ...     scores = cross_val_score(
    ...         DPLogisticRegression(epsilon=0.5, delta=1e-6, classes=[0, 1]),
    ...         X, y, cv=3,
    ...     )
    >>> len(ledger.entries), round(ledger.epsilon(1e-6), 3)
    (3, 0.901)
    """

    def __init__(self, epsilon=None, delta=None, *, strict=False):
        if not isinstance(strict, bool):
            raise TypeError(f"strict must be True or False, got {strict!r}.")
        self.strict = strict
        if (epsilon is None) != (delta is None):
            raise ValueError("give both epsilon and delta for a cap, or neither.")
        self.cap_epsilon = (
            None if epsilon is None else _check_positive(epsilon, "epsilon")
        )
        self.cap_delta = None if delta is None else _check_delta(delta)
        self._entries = []
        # Leaks around the fits made while open (LeakRecord), whether or not the
        # warning was shown; what made each distinct.
        self._leaks = []
        self._leak_keys = set()
        self._tokens = {}  # thread id -> [(context token, joblib config), ...]
        # Fixed-seed fits drawn inside this ledger: each gets its position as a
        # spawn key, so two fits with one integer random_state never share noise.
        self._seeded_fits = 0
        # A ledger a fit of the package keeps for itself (a pipeline's, a search's
        # scratch) rather than the user's: it numbers no seeds.
        self._internal = False
        # The process whose ledger this is: a forked child holds a copy, which must
        # not record (the parent never sees it).
        self._pid = os.getpid()

    def __setstate__(self, state):
        # An unpickled ledger is a copy, not open anywhere. It still belongs to
        # the process that pickled it: in another process (a joblib worker, a
        # file loaded elsewhere) it refuses to record until adopt() makes it that
        # process's own, so a worker never records silently where the original
        # ledger cannot see it.
        self.__dict__.update(state)
        self.__dict__.setdefault("strict", False)  # pickled before strict existed
        self.__dict__.setdefault("_seeded_fits", 0)
        self.__dict__.setdefault("_internal", False)
        self.__dict__.setdefault("_pid", os.getpid())
        self._tokens = {}
        self._unpickled = True

    def adopt(self):
        """Make this copy of a ledger the ledger of the current process.

        A ledger pickled in one process and loaded in another (sent to a joblib
        worker, saved and loaded) refuses to record there: what the copy records
        never reaches the original. Call ``adopt()`` to record into the copy
        knowingly (then report its :attr:`entries` to the original yourself, or
        re-audit them with :func:`ledger_epsilon`). A no-op in the process the
        ledger belongs to.

        Returns
        -------
        self : PrivacyLedger
            The same ledger, now owned by this process.
        """
        self._pid = os.getpid()
        return self

    def _check_not_forked_copy(self, source):
        """Refuse to record in a copy of a ledger from another process."""
        if self._pid == os.getpid():
            return
        what = f"{source or 'a mechanism'} would be recorded in a copy of a "
        if self.__dict__.get("_unpickled"):
            raise UnrecordedFitError(
                what + f"PrivacyLedger of process {self._pid}, unpickled in this "
                f"process ({os.getpid()}): that process never sees what the copy "
                "records, so this privacy spend would be lost; nothing ran. Call "
                "ledger.adopt() to record into the copy knowingly (and report its "
                "entries yourself), or open a new PrivacyLedger here."
            )
        raise UnrecordedFitError(
            what + f"PrivacyLedger of process {self._pid}, made when this process "
            f"({os.getpid()}) was forked from it (os.fork, joblib's "
            '"multiprocessing" backend): that process never sees what the copy '
            "records, so this privacy spend would be lost; nothing ran. " + _FORK_ADVICE
        )

    @property
    def entries(self):
        """The recorded mechanisms, in order: tuple of LedgerEntry."""
        with _LEDGER_LOCK:
            return tuple(self._entries)

    @property
    def leaks(self):
        """Every leak found around a fit while this ledger was open: tuple of records.

        Each record is a named tuple ``(construct, releases, location)``: the
        scikit-learn (or third-party) construct or non-private step, the message
        saying what it releases without noise and what to use instead, and the
        ``"file:line"`` of the user's call. Filled whether or not the
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` is shown (it shows
        once per process; a second leaky pipeline later in a notebook is listed
        here) and in strict mode too; once per construct and call line.
        """
        with _LEDGER_LOCK:
            return tuple(self.__dict__.get("_leaks", ()))

    @property
    def neighboring(self):
        """Neighbouring relation of the recorded mechanisms; None while empty."""
        entries = self.entries
        return entries[0].neighboring if entries else None

    def __len__(self):
        return len(self._entries)

    def __enter__(self):
        token, backend = _open(self)
        with _LEDGER_LOCK:
            # Per thread: one ledger may be entered from many threads at once, each
            # exiting its own block (a context's token can only be reset there).
            self._tokens.setdefault(threading.get_ident(), []).append((token, backend))
        return self

    def __exit__(self, *exc_info):
        with _LEDGER_LOCK:
            stack = self._tokens[threading.get_ident()]
            token, backend = stack.pop()
            if not stack:
                del self._tokens[threading.get_ident()]
        _close(self, token, backend, exc_info)
        return False

    def _check_entry(self, entry, entries):
        if entries and entry.neighboring != entries[0].neighboring:
            raise ValueError(
                f"this ledger records {entries[0].neighboring!r} mechanisms; a "
                f"{entry.neighboring!r} one cannot be composed with them. Use one "
                "neighbouring relation per ledger."
            )
        if self.cap_epsilon is None:
            return
        spent = self._epsilon(entries + [entry], self.cap_delta, "auto")
        if spent > self.cap_epsilon:
            raise BudgetExhaustedError(
                f"{entry.source or 'a mechanism'} would take this ledger to "
                f"epsilon={spent:.6g} > cap epsilon={self.cap_epsilon:.6g} (at "
                f"delta={self.cap_delta:g}); it was refused before reading data."
            )

    def charge(
        self, mechanism, *, neighboring="add_remove", source="", part=None, support=0.0
    ):
        """Record a mechanism about to run, or refuse it if it would overspend.

        Parameters
        ----------
        mechanism : tuple of GaussianSteps or EpsilonDeltaRecord
            What will run (see :class:`LedgerEntry`).
        neighboring : {"add_remove", "replace"}, default="add_remove"
            Its neighbouring relation; must match the ledger's.
        source : str, default=""
            Who runs it (informational).
        part : str or None, default=None
            The disjoint part of the data it reads; None for all rows.
        support : float, default=0.0
            Its total-variation distance from its ideal version (``secure_mode``'s
            bounded samplers; see :class:`LedgerEntry`).

        Returns
        -------
        index : int
            Position of the new entry in :attr:`entries`.

        Raises
        ------
        BudgetExhaustedError
            If the ledger has a cap and the mechanism would exceed it; nothing is
            recorded.
        UnrecordedFitError
            If this ledger is a copy inherited by a forked process (its parent
            would never see the entry); nothing is recorded.
        ValueError
            If ``neighboring`` differs from the recorded mechanisms'.
        TypeError
            If ``mechanism`` is neither kind.
        """
        entry = LedgerEntry(mechanism, neighboring, source, part, support)
        self._check_not_forked_copy(source)
        with _LEDGER_LOCK:
            self._check_entry(entry, self._entries)
            self._entries.append(entry)
            return len(self._entries) - 1

    def _settle(self, index, mechanism):
        with _LEDGER_LOCK:
            old = self._entries[index]
            self._entries[index] = LedgerEntry(
                mechanism, old.neighboring, old.source, old.part, old.support
            )

    @staticmethod
    def _epsilon(entries, delta, accountant):
        parts = {e.part for e in entries if e.part is not None}
        if not parts:
            return _compose_with_support(entries, delta, accountant)
        return max(
            _compose_with_support(
                [e for e in entries if e.part is None or e.part == p], delta, accountant
            )
            for p in parts
        )

    def epsilon(self, delta=None, accountant="auto"):
        """Total epsilon at ``delta`` of everything recorded, composed exactly.

        Parameters
        ----------
        delta : float or None, default=None
            In (0, 1); None is the cap's delta (a ledger without a cap needs one).
        accountant : {"auto", "gdp", "rdp", "pld"}, default="auto"
            As in :func:`ledger_epsilon`; "auto" is the exact GDP closed form when
            every entry is a full-batch Gaussian step, the pessimistic PLD of
            :func:`ledger_epsilon` for subsampled steps (the accountant minibatch
            fits report with), and PLD as soon as an ``(epsilon, delta)`` record is
            present. A cap (``epsilon=``) decides with the same composition.

        Returns
        -------
        epsilon : float
            >= 0; 0.0 for an empty ledger.

        Raises
        ------
        ValueError
            If ``delta`` is None and the ledger has no cap, if ``delta`` is
            invalid, if the ledger's ``(epsilon, delta)`` records' deltas add up to
            more than ``delta`` in a way no accountant can meet, or if
            ``accountant`` cannot compose the entries.
        """
        if delta is None:
            if self.cap_delta is None:
                raise ValueError(
                    "this PrivacyLedger has no cap: give the delta at which to "
                    "compose, e.g. ledger.epsilon(1e-6)."
                )
            delta = self.cap_delta
        delta = _check_delta(delta)
        return self._epsilon(list(self.entries), delta, accountant)

    def __repr__(self):
        cap = (
            ""
            if self.cap_epsilon is None
            else f"epsilon={self.cap_epsilon!r}, delta={self.cap_delta!r}, "
        )
        strict = "strict=True, " if self.strict else ""
        return f"PrivacyLedger({cap}{strict}entries={len(self._entries)})"


def _compose_with_support(entries, delta, accountant):
    """Epsilon at ``delta`` of ``entries``, paying their supports out of ``delta``.

    Entries within total variation ``eta`` (summed) of their ideal versions, whose
    composition is ``(epsilon, delta')``-DP, are ``(epsilon, delta' + (1 +
    e^epsilon) eta)``-DP (see :mod:`sklearn_dpgd._engine._secure`). The ideal
    composition is taken at ``delta' = delta - 2 (1 + e^epsilon_0) eta`` with
    ``epsilon_0`` the composition at ``delta``; the result is returned if it
    satisfies ``(1 + e^epsilon) eta <= delta - delta'``, else ``inf``. The term of
    ``secure_mode`` (``~1e-25``) is usually below the resolution of a float
    ``delta``: ``delta'`` then rounds to ``delta`` and the epsilon at ``delta`` is
    returned (the change the term stands for, about ``eta / delta`` relative, is
    far below one unit in the last place of epsilon, and below the accountants'
    own pessimistic rounding), so a ``secure_mode`` fit planned at a ledger's cap
    still fits under it.
    """
    eta = math.fsum(e.support for e in entries)
    epsilon = _compose_entries(entries, delta, accountant)
    if eta == 0:
        return epsilon
    slack = 2.0 * (1.0 + math.exp(min(epsilon, 700.0))) * eta
    reduced = delta - slack
    if reduced == delta:
        return epsilon
    if not reduced > 0:
        return math.inf
    epsilon = _compose_entries(entries, reduced, accountant)
    if (1.0 + math.exp(min(epsilon, 700.0))) * eta > delta - reduced:
        return math.inf
    return epsilon


def _active_ledgers():
    """Ledgers a fit in the current context must record into."""
    stack = _ACTIVE_LEDGERS.get()
    if stack:
        return stack
    with _LEDGER_LOCK:
        return tuple(slot[0] for slot in _OPEN_LEDGERS.values())


def active_ledgers():
    """The ledgers a private fit started now, in this context, would record into.

    Inside ``with ledger:`` blocks (nested blocks stack) these are the open
    ledgers of the current context (thread or task); outside of any, the ledgers
    opened in other threads of this process, so that fits that joblib's
    ``"threading"`` backend runs for an open ledger are recorded too.

    Returns
    -------
    ledgers : tuple of PrivacyLedger
        Innermost last; empty when no ledger is open.

    See Also
    --------
    PrivacyLedger : Records the fits made inside its ``with`` block.
    recording_only : Send the fits of a block to one ledger only.

    Examples
    --------
    >>> from sklearn_dpgd.accounting import PrivacyLedger, active_ledgers
    >>> with PrivacyLedger() as outer, PrivacyLedger() as inner:
    ...     active_ledgers() == (outer, inner)
    True
    >>> active_ledgers()
    ()
    """
    return _active_ledgers()


@contextlib.contextmanager
def recording_only(ledger):
    """Within the block, fits of this context record into ``ledger`` alone.

    The open ledgers of the enclosing blocks are not charged for what runs
    inside: the caller must charge them for the whole block itself, before it
    reads data, with a guarantee that covers the block's mechanisms by
    composition (e.g. sequential composition, Dwork & Roth 2014, Thm 3.16, or
    the GDP composition of Dong, Roth & Su 2022, Cor. 3.3).
    :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` uses it
    to collect each candidate's mechanisms in a scratch ledger after charging the
    user's ledgers once for the whole search.

    The block reaches the worker threads of joblib calls made inside it (the
    same backend as :class:`PrivacyLedger`'s carries this context into them), and
    ``ledger`` counts as open for threads without a context and for the guard
    that refuses fits of estimators shipped to another process.

    Parameters
    ----------
    ledger : PrivacyLedger
        The only ledger the fits of the block record into.

    Yields
    ------
    ledger : PrivacyLedger
        The same ledger.

    Raises
    ------
    TypeError
        If ``ledger`` is not a :class:`PrivacyLedger`.

    Examples
    --------
    >>> from sklearn_dpgd.accounting import (
    ...     PrivacyLedger, active_ledgers, recording_only)
    >>> with PrivacyLedger() as outer:
    ...     with recording_only(PrivacyLedger()) as scratch:
    ...         active_ledgers() == (scratch,)
    True
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    token, backend = _open(ledger, only=True)
    try:
        yield ledger
    finally:
        _close(ledger, token, backend, (None, None, None))


def _seed_position():
    """``(ledger, k)``: the innermost user ledger active here and this fit's number
    among the fixed-seed fits drawn in it (0, 1, ...); None outside any.

    :func:`~sklearn_dpgd._engine._randomness.draw_seed` spawns a fixed seed by
    ``k``, so fits that share an integer ``random_state`` inside one ledger draw
    independent noise (as the ledger's composition assumes), reproducibly for the
    same sequence of fits.
    """
    for ledger in reversed(_active_ledgers()):
        if not getattr(ledger, "_internal", False):
            with _LEDGER_LOCK:
                k = ledger.__dict__.get("_seeded_fits", 0)
                ledger._seeded_fits = k + 1
            return ledger, k
    return None


def _strict_mode():
    """Whether a ``PrivacyLedger(strict=True)`` governs a fit started now.

    In this context (also inside ``recording_only``); in a thread without a
    ledger in its context, whether any open ledger is strict.
    """
    if _ACTIVE_LEDGERS.get():
        return _STRICT.get()
    with _LEDGER_LOCK:
        return any(getattr(s[0], "strict", False) for s in _OPEN_LEDGERS.values())


def _ledger_guard_state(state):
    """Mark an estimator serialised while a ledger is open in this process.

    joblib's process backends (and anything else that ships estimators to another
    process) pickle them; the mark travels with the pickle, and
    :func:`_charge_active_ledgers` refuses to fit a marked estimator in another
    process where no ledger is open, since its spend would be lost.
    """
    state = dict(state)
    with _LEDGER_LOCK:
        if _OPEN_LEDGERS:
            state[_LEDGER_GUARD] = os.getpid()
    return state


def _copy_ledger_guard(estimator, clone):
    """Carry ``estimator``'s process guard (see :func:`_ledger_guard_state`) over
    to ``clone``.

    For a construct's clone in a worker process (one-vs-rest, multi-output,
    bagging clone there): without it the clone's fit would run unrecorded. A
    user's own ``clone`` does not call this and clears the guard.
    """
    origin = estimator.__dict__.get(_LEDGER_GUARD)
    if origin is not None:
        clone.__dict__[_LEDGER_GUARD] = origin


class _LedgerCharge:
    """The entries a fit reserved in the active ledgers, settled after it ran."""

    def __init__(self, slots):
        self._slots = slots

    def settle(self, mechanism):
        for ledger, index in self._slots:
            ledger._settle(index, mechanism)


def _charge_active_ledgers(
    estimator, mechanism, *, neighboring, part=None, support=0.0
):
    """Charge a planned mechanism to every active ledger, or refuse it.

    Called by a private ``fit`` after its noise is calibrated and before it reads
    data (the oracle is built afterwards). Charges all active ledgers or none.

    Raises
    ------
    UnrecordedFitError
        If ``estimator`` was serialised while a ledger was open in another process
        and no ledger is open here, or if an active ledger is a copy inherited from
        the parent of this forked process.
    BudgetExhaustedError
        If a ledger's cap would be exceeded.
    """
    ledgers = _active_ledgers()
    origin = estimator.__dict__.get(_LEDGER_GUARD)
    if origin is not None and origin != os.getpid() and not ledgers:
        raise UnrecordedFitError(
            f"{type(estimator).__name__} was sent from process {origin}, where a "
            f"PrivacyLedger is open, to process {os.getpid()}, where none is: this "
            "fit's privacy spend could not be recorded. Run the search with "
            "n_jobs=1 or joblib's threading backend (the ledger's default), or fit "
            "a fresh sklearn.base.clone of the estimator outside the ledger."
        )
    source = type(estimator).__name__
    for ledger in ledgers:
        ledger._check_not_forked_copy(source)
    entry = LedgerEntry(mechanism, neighboring, source, part, support)
    with _LEDGER_LOCK:
        for ledger in ledgers:
            ledger._check_entry(entry, ledger._entries)
        slots = [
            (
                ledger,
                ledger.charge(
                    mechanism,
                    neighboring=neighboring,
                    source=source,
                    part=part,
                    support=support,
                ),
            )
            for ledger in ledgers
        ]
    return _LedgerCharge(slots)


def _reset_lock_after_fork():
    # Another thread of the parent may have held the lock at the fork; it does not
    # exist in the child and would never release it.
    global _LEDGER_LOCK
    _LEDGER_LOCK = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lock_after_fork)
