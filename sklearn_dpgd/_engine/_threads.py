"""How many threads a kernel call runs on, and Numba's threading layer.

The kernels of :mod:`sklearn_dpgd._engine._kernels` are compiled twice by
:func:`_parallel_kernel`: a parallel kernel and its serial twin, the same function
compiled with ``parallel=False`` (``prange`` is then ``range``, the blocks and their
order are unchanged, so the result is the same bit for bit). This module decides,
per call, which of the two runs and on how many threads; it never changes a result.

Threads: a call whose work (entries of ``X`` read, times outputs; a stored CSR
entry counts as ``_kernels._CSR_ENTRY_WORK`` dense ones) is below
:data:`SERIAL_WORK` runs the serial twin (below it, waking a second thread costs more
than it saves, and on a machine busy with other processes a parallel region waits
for every one of its threads to be scheduled). Larger calls use Numba's thread count
(``numba.get_num_threads()``, which honours ``NUMBA_NUM_THREADS``, set by joblib's
loky backend in its workers), capped by a caller's limit: the oracle passes, once
per fit, :func:`fit_threads`, which also honours ``threadpoolctl.threadpool_limits``
on OpenMP, and times its gradient sums on one thread and on that count
(:class:`ThreadChooser`) to run the faster. The count is set for the call and
restored after it (Numba's count is per Python thread).

Threading layer: unless the user chose one (``NUMBA_THREADING_LAYER`` or
``numba.config.THREADING_LAYER`` set before the first parallel call) or TBB is
installed (Numba's first choice, thread- and fork-safe), the first import of the
kernels (which imports Numba: not before a fit needs them) selects Numba's
``workqueue`` layer. It is fork-safe and its idle threads sleep; GNU
OpenMP, which Numba picks otherwise, spins its idle threads (slowing every other
process on a shared machine, and itself) and is not fork-safe (Numba's
documentation, "The Threading Layers"). ``workqueue`` aborts the process if two
Python threads run parallel regions at once: one thread at a time runs a parallel
kernel here (a lock, never waited for), and a kernel called meanwhile from another
thread runs its serial twin. Code of the user's own that runs Numba ``parallel=True``
functions from several threads should choose TBB or OpenMP itself. If the user
selects GNU OpenMP, a process forked (``os.fork``, joblib's ``"multiprocessing"``
backend) from a parent that started it runs the serial twins: Numba terminates such
a child at its first parallel region ("fork() called from a process already using
GNU OpenMP, this is unsafe").
"""

import contextlib
import ctypes
import os
import statistics
import sys
import threading
import time
import types
from collections import deque

from threadpoolctl import ThreadpoolController

# Numba itself is imported by the functions that need it, never at import: a
# process that fits only small problems (the NumPy twins of _twins.py) never
# imports it (0.7 s).

# Rows per block of the kernels' parallel sums (_kernels.py). Large enough that the
# per-block overhead (one K-by-(d+1) partial) is negligible, small enough for load
# balance; here, without Numba, for the solvers that size their calls by it.
BLOCK_ROWS = 2048

# Work of one call (entries read times outputs) below which it runs on one thread
# (8 MB of float64). Measured by ``benchmarks/bench_kernel.py --threshold`` on a
# 2-core machine shared with other jobs (load ~4.8): two threads lost to one up to
# 400,000 entries (n x 20: 1.3 x slower) and won from 1,000,000 (0.66 x).
SERIAL_WORK = 1_000_000

# Seconds a kernel's serial twin runs, in a process, on calls large enough to go
# parallel, before any call (_Kernel.run, ThreadChooser) first runs a parallel twin
# that is neither compiled in the process nor in Numba's on-disk cache (rent or
# buy: _Kernel.parallel_pays). Compiling one takes
# 5-7 s (numba 0.68, 2 cores, first fits on 20,000 x 20 with an empty cache: the
# binary CSR gradient sum 5.2 s, the multiclass dense one 5.6-6.7 s), and two
# threads save at most about a third of the serial time (Adult: 0.93 s a fit
# against 1.21-1.41 s), so a compile pays for itself in a process only after some
# 15-20 s of serial work; it also fills the cache for later processes, which then
# use the parallel twin at once.
PARALLEL_COMPILE_AFTER = 10.0

# Calls per option whose median time ThreadChooser compares.
_WINDOW = 8

# ThreadChooser runs one thread only if its median time is below this fraction of
# the parallel kernel's (near-ties go to the parallel kernel; see its docstring).
_SERIAL_MARGIN = 0.8

# True in a process forked from a parent whose Numba threading layer is GNU OpenMP:
# the kernels then run their serial twins (see _after_fork_in_child).
_serial = False


def _argument_kind(args):
    """What of a call's arguments selects a compiled specialisation, roughly: the
    type of each, and the dtype and dimensions of arrays (a cheap stand-in for
    Numba's signature, for :meth:`_Kernel.parallel_pays`)."""
    return tuple(
        (type(a), getattr(a, "dtype", None), getattr(a, "ndim", None)) for a in args
    )


class _Kernel:
    """A parallel kernel and its serial twin; a call runs the one that pays.

    The twin compiles a copy of the Python function under another qualified name:
    Numba's on-disk cache keys an entry by the function's name, source line and
    bytecode, not by the ``parallel`` flag, so the twins would otherwise overwrite
    (or, worse, load) each other's machine code. Each is compiled on its first call
    only, so a process that never runs a large problem never compiles the (slower to
    compile) parallel version.

    ``work(*args)`` returns the entries of ``X`` a call reads, times the outputs.
    """

    def __init__(self, py_func, options, work):
        from numba import njit

        self.py_func = py_func
        self.work = work
        self.parallel = njit(cache=True, parallel=True, **options)(py_func)
        twin = types.FunctionType(
            py_func.__code__,
            py_func.__globals__,
            py_func.__name__,
            py_func.__defaults__,
            py_func.__closure__,
        )
        twin.__qualname__ = f"{py_func.__qualname__}_serial"
        twin.__doc__ = py_func.__doc__
        self.serial = njit(cache=True, parallel=False, **options)(twin)
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self.__wrapped__ = py_func
        # Rent or buy (PARALLEL_COMPILE_AFTER): seconds its serial twin ran in this
        # process on calls that could have gone parallel (the first call of each
        # argument kind, which may compile, not counted), and whether the parallel
        # twin is ready, asked once per argument kind.
        self.serial_seconds = 0.0
        self._ready = {}
        self._warm = set()

    def parallel_ready(self, args):
        """Whether the parallel twin for these arguments' types needs no compiling.

        True when it is compiled in this process or stored in Numba's on-disk
        cache (then loaded at its first call). Reads Numba's cache index through
        its internal API; any failure counts as not ready (the caller then only
        waits longer before compiling).

        Parameters
        ----------
        args : tuple
            The arguments of a call.

        Returns
        -------
        ready : bool
        """
        dispatcher = self.parallel
        try:
            sig = tuple(dispatcher.typeof_pyval(a) for a in args)
            if sig in dispatcher.overloads:
                return True
            cache = dispatcher._cache
            key = cache._index_key(sig, dispatcher.targetctx.codegen())
            return key in cache._cache_file._load_index()
        except Exception:  # a Numba without this internal API
            return False

    def parallel_pays(self, args):
        """Whether a call that could go parallel may use the parallel twin now.

        Rent or buy (:data:`PARALLEL_COMPILE_AFTER`): yes if the twin needs no
        compiling (:meth:`parallel_ready`, asked once per kind of arguments), or
        once the serial twin has run that long in the process (:meth:`rent`).

        Parameters
        ----------
        args : tuple
            The arguments of a call.

        Returns
        -------
        pays : bool
        """
        if self.serial_seconds >= PARALLEL_COMPILE_AFTER:
            return True
        key = _argument_kind(args)
        if key not in self._ready:
            self._ready[key] = self.parallel_ready(args)
        return self._ready[key]

    def rent(self, args):
        """Run the serial twin on a call that could have gone parallel, and count
        its time towards :data:`PARALLEL_COMPILE_AFTER` (but for the first call of
        a kind of arguments, which may compile or load the twin)."""
        key = _argument_kind(args)
        start = time.perf_counter()
        out = self.serial(*args)
        if key in self._warm:
            self.serial_seconds += time.perf_counter() - start
        self._warm.add(key)
        return out

    def __call__(self, *args):
        return self.run(None, *args)

    def run(self, threads, *args):
        """Call the kernel on at most ``threads`` threads (None: Numba's count)."""
        import numba

        if _serial or self.work(*args) < SERIAL_WORK:
            return self.serial(*args)
        current = num_threads()
        if threads is None or threads >= current:
            threads = current
        if threads <= 1:
            return self.serial(*args)
        if not self.parallel_pays(args):
            return self.rent(args)
        if not _parallel_lock.acquire(blocking=False):
            return self.serial(*args)  # another thread runs a parallel kernel
        try:
            if threads == current:
                return self.parallel(*args)
            numba.set_num_threads(threads)
            try:
                return self.parallel(*args)
            finally:
                numba.set_num_threads(current)
        finally:
            _parallel_lock.release()

    def __repr__(self):
        return f"<kernel {self.__module__}.{self.__qualname__}>"


class _KernelByOutputs(_Kernel):
    """Two kernels under one name: one for K == 1 output, one for K > 1.

    Numba compiles a function whole, whatever branch a call takes; a kernel with
    both paths compiled both on every first fit (the dense gradient sum: 4.2 s for
    its serial twin, against 2.75 s for the binary path alone). Split at the Python
    level, a binary fit compiles the binary kernel only and a multiclass fit the
    multiclass one. ``serial``, ``parallel``, ``work`` and ``run`` behave as those
    of :class:`_Kernel`, dispatching on the number of rows of the coefficients.

    Parameters
    ----------
    binary, multiclass : _Kernel
        The kernels for ``K == 1`` and for ``K > 1``, with the same arguments.
    coef_arg : int
        Position of the coefficients ``W`` (shape (K, n_features)) in a call.
    """

    def __init__(self, binary, multiclass, coef_arg):
        self.binary, self.multiclass, self.coef_arg = binary, multiclass, coef_arg
        self.__name__ = binary.__name__.replace("_binary", "", 1).lstrip("_")
        self.__qualname__ = self.__name__
        self.__module__ = binary.__module__

    def kernel(self, args):
        """The :class:`_Kernel` that runs a call with these arguments."""
        return self.binary if args[self.coef_arg].shape[0] == 1 else self.multiclass

    def serial(self, *args):
        return self.kernel(args).serial(*args)

    def parallel(self, *args):
        return self.kernel(args).parallel(*args)

    def work(self, *args):
        return self.kernel(args).work(*args)

    def parallel_ready(self, args):
        return self.kernel(args).parallel_ready(args)

    def parallel_pays(self, args):
        return self.kernel(args).parallel_pays(args)

    def rent(self, args):
        return self.kernel(args).rent(args)


def _parallel_kernel(work, **options):
    """Decorator: compile ``py_func`` as a :class:`_Kernel` with Numba ``options``.

    Chooses Numba's threading layer first (:func:`_choose_threading_layer`, which
    keeps a choice already made): every module that defines a parallel kernel
    (the row norms, the objective sums, not only ``_kernels``) may be the first
    to run one, and a parallel kernel run before the choice starts GNU OpenMP.
    """
    _choose_threading_layer()
    return lambda py_func: _Kernel(py_func, options, work)


class ThreadChooser:
    """Runs a repeated kernel call on one thread or on ``threads``, whichever is faster.

    The serial twin and the parallel kernel give the same sum bit for bit, so the
    choice changes the time only, never a result. On a machine whose cores other
    processes keep busy, a parallel region waits until every one of its threads is
    scheduled, and one thread can be several times faster; on an idle machine the
    parallel kernel wins. The chooser times both (the first call of each, which may
    load or compile it, is not counted), then runs the one with the smaller median
    of its last :data:`_WINDOW` times and tries the other for two calls in a row
    every ``probe_every`` calls. A parallel call right after a serial one is not
    timed: its threads were asleep, and waking them (0.5 ms on a virtual machine
    after a pause of that length) is the price of switching, not of the kernel.
    Even then, parallel calls interleaved with serial ones ran slower (median 1.32
    ms on Adult) than a run of parallel calls (about 0.75 ms), so one thread is
    chosen only when its median is below :data:`_SERIAL_MARGIN` times the parallel
    one. Without these two rules a moving average of all calls had an Adult fit run
    a third to a half of its steps on one thread (fit 1.21-1.41 s, against 0.93 s
    on two threads throughout). Calls below :data:`SERIAL_WORK` always run on one
    thread, and so do all calls of a kernel whose parallel twin would have to be
    compiled (not in this process, not in Numba's cache) until its serial twin has
    run :data:`PARALLEL_COMPILE_AFTER` seconds in the process (rent or buy:
    :meth:`_Kernel.parallel_pays`, the rule every call of a kernel follows).

    Parameters
    ----------
    threads : int
        Most threads a call may use (:func:`fit_threads`).
    probe_every : int, default=64
        The slower option is run (and timed, but for a woken parallel call) for
        two calls in a row once in this many calls.
    """

    def __init__(self, threads, probe_every=64):
        self.threads = int(threads)
        self.probe_every = int(probe_every)
        self.times = {}  # threads -> the last _WINDOW seconds per call
        self._seen = set()
        self._calls = 0
        self._last = None

    def _choose(self):
        if len(self.times) < 2:  # warming up: each twice in a row, parallel first
            return self.threads if self._calls % 4 < 2 else 1
        median = {n: statistics.median(t) for n, t in self.times.items()}
        serial_wins = median[1] < _SERIAL_MARGIN * median[self.threads]
        best = 1 if serial_wins else self.threads
        if self._calls % self.probe_every < 2:  # the other, twice in a row
            return 1 if best == self.threads else self.threads
        return best

    def run(self, kernel, *args):
        """``kernel.run(n, *args)`` with ``n`` the chosen thread count.

        A ``kernel`` without ``run`` (a plain function wrapping one) is called as is.
        """
        if not hasattr(kernel, "run"):
            return kernel(*args)
        if self.threads <= 1 or kernel.work(*args) < SERIAL_WORK:
            return kernel.run(1, *args)
        if not kernel.parallel_pays(args):
            return kernel.rent(args)  # rent or buy: see _Kernel.parallel_pays
        choice = self._choose()
        self._calls += 1
        start = time.perf_counter()
        out = kernel.run(choice, *args)
        elapsed = time.perf_counter() - start
        woken = choice != 1 and self._last != choice  # its threads were asleep
        self._last = choice
        if choice not in self._seen:
            self._seen.add(choice)  # first call: loading or compiling, not timed
        elif not woken:
            self.times.setdefault(choice, deque(maxlen=_WINDOW)).append(elapsed)
        return out


_controller = None
# Its BLAS libraries (serial_blas), filtered once.
_blas = None

# True once num_threads has run (Numba's threads are then started).
_started = False


def num_threads():
    """``numba.get_num_threads()``, starting Numba's threads as the environment asks.

    Numba reads ``NUMBA_NUM_THREADS`` when it is imported and launches that many
    threads at the first parallel call, but every later compilation re-reads the
    environment and raises ``RuntimeError: Cannot set NUMBA_NUM_THREADS to a
    different value once the threads have been launched`` if the variable changed
    in between. That is the order in a Dask worker: ``distributed`` spawns it, the
    child re-imports the user's script (which imports this package, hence Numba)
    and only then applies the nanny's ``env`` (``LocalCluster(env={"NUMBA_NUM_THREADS":
    "1"})``). So before the first start, this re-reads Numba's configuration (what
    the next compilation would do anyway; nothing happens unless a ``NUMBA_``
    variable changed), keeps the threading layer chosen in code, and sizes the pool
    to the re-read count. A layer started by other code is left as it is.

    Returns
    -------
    n_threads : int
    """
    global _started
    import numba
    import numba.np.ufunc.parallel as _numba_parallel

    if not _started:
        if not _numba_parallel._is_initialized:
            layer = numba.config.THREADING_LAYER
            numba.config.reload_config()
            if "NUMBA_THREADING_LAYER" not in os.environ:
                numba.config.THREADING_LAYER = layer
            _numba_parallel.NUM_THREADS = _numba_parallel.get_thread_count()
        _started = True
    return numba.get_num_threads()


def set_num_threads(n):
    """``numba.set_num_threads(n)`` for this Python thread (imports Numba).

    Parameters
    ----------
    n : int
        Between 1 and Numba's launched thread count.
    """
    import numba

    numba.set_num_threads(n)


def fit_threads():
    """Threads the kernels of one fit may use (1 means the serial twins).

    Numba's thread count in this Python thread (``NUMBA_NUM_THREADS``, joblib's
    worker limits, ``numba.set_num_threads``), capped by the smallest thread count
    of the OpenMP runtimes that ``threadpoolctl`` sees, which
    ``threadpoolctl.threadpool_limits`` lowers. The libraries are scanned once per
    process (a few milliseconds); their counts are read on each call.

    Returns
    -------
    n_threads : int
    """
    global _controller
    threads = num_threads()
    if _serial or threads <= 1:
        return 1
    if _controller is None:
        _controller = ThreadpoolController()
    for lib in _controller.lib_controllers:
        if lib.user_api == "openmp":
            threads = min(threads, max(1, int(lib.num_threads)))
    return threads


# Held by the thread running a parallel kernel. Another Python thread asking for one
# meanwhile runs the serial twin: the cores are taken, and the workqueue layer
# aborts the process on concurrent parallel regions.
_parallel_lock = threading.Lock()


def _tbb_available():
    # Numba's own test before it selects TBB (numba/np/ufunc/parallel.py).
    name = {"win32": "tbb12.dll", "darwin": "libtbb.12.dylib"}.get(
        sys.platform, "libtbb.so.12"
    )
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def _choose_threading_layer():
    """Select Numba's threading layer, at import (before Numba starts one).

    The user's choice (``NUMBA_THREADING_LAYER``, ``numba.config.THREADING_LAYER``)
    and a layer already started are kept; TBB, Numba's own first choice and both
    thread- and fork-safe, is kept when installed; else ``workqueue`` replaces
    Numba's next choice, GNU OpenMP (module docstring). Called by
    :mod:`sklearn_dpgd._engine._kernels` when it is first imported, before any call
    to ``numba.get_num_threads``, which starts the layer.
    """
    import numba

    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    if str(numba.config.THREADING_LAYER).lower() != "default":
        return
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is not None and getattr(parallel, "_is_initialized", False):
        return  # already started by other code: too late to choose
    if not _tbb_available():
        numba.config.THREADING_LAYER = "workqueue"


def _forked_from_gnu_openmp():
    """Whether this process's Numba runs on GNU OpenMP, started before a fork.

    Read from Numba's modules without importing anything: a process that never
    started the threading layer has nothing to inherit.
    """
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return False
    if getattr(parallel, "_threading_layer", None) != "omp":
        return False
    omppool = sys.modules.get("numba.np.ufunc.omppool")
    # Numba's omppool terminates a forked child only when built against GNU OpenMP.
    return omppool is None or getattr(omppool, "openmp_vendor", "GNU") == "GNU"


def _after_fork_in_child():
    global _serial
    if _forked_from_gnu_openmp():
        _serial = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def serial_blas():
    """Run the BLAS calls of a ``with`` block on one thread (restored after).

    For the dense products of the Newton oracle
    (:class:`~sklearn_dpgd._engine._oracle.PrivateNewtonOracle`) and of the NumPy
    twins of small fits (:mod:`sklearn_dpgd._engine._twins`): on a shared machine
    OpenBLAS's spinning threads made a 1,437 x 64 Hessian product 300 times slower
    than one thread (26,048 x 108: 15 times) and a 1,797 x 64 by 64 x 10 product
    20 times slower, and on two cores a second thread would gain at most a factor
    2. The libraries are scanned once per process (``threadpoolctl``); a block
    then reads each one's thread count and sets and restores only those not
    already at one: about 2 us a block under ``threadpool_limits(1)``, 5 us
    otherwise, against 40 us for a ``threadpool_limits`` block (the small fits'
    twins enter one block per gradient sum).

    Yields
    ------
    None
    """
    changed = [
        (lib, n) for lib in _blas_libraries() if (n := lib.get_num_threads()) != 1
    ]
    for lib, _ in changed:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in changed:
            lib.set_num_threads(n)


def _blas_libraries():
    """The BLAS libraries' ``threadpoolctl`` controllers, scanned once per process."""
    global _controller, _blas
    if _blas is None:
        if _controller is None:
            _controller = ThreadpoolController()
        _blas = [lib for lib in _controller.lib_controllers if lib.user_api == "blas"]
    return _blas
