"""The kernels' threading policy: small calls serial, limits honoured, count restored."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

import sklearn_dpgd
from sklearn_dpgd._engine import _kernels, _threads
from sklearn_dpgd._engine._losses import LOGISTIC
from sklearn_dpgd._engine._oracle import LocalRows


class _Recorder:
    def __init__(self, log, name, real):
        self.log, self.name, self.real = log, name, real

    def __call__(self, *args):
        self.log.append((self.name, numba.get_num_threads()))
        return self.real(*args)


@pytest.fixture
def two_threads(monkeypatch):
    """Pretend Numba has 2 threads (the suite runs with NUMBA_NUM_THREADS=1) and
    record which twin each kernel call runs, and on how many threads."""
    state = {"threads": 2}
    monkeypatch.setattr(numba, "get_num_threads", lambda: state["threads"])
    # Parallel twins count as compiled (rent or buy: see the tests below).
    monkeypatch.setattr(_threads, "PARALLEL_COMPILE_AFTER", 0.0)

    def set_threads(n):
        state["threads"] = n

    monkeypatch.setattr(numba, "set_num_threads", set_threads)
    log = []
    for kernel in (
        _kernels.clipped_gradient_sum,
        _kernels.clipped_gradient_sum_csr,
        _kernels.row_norms,
    ):
        # The parallel twin is stood in for by the serial one: same result, and
        # this process never starts a threading layer.
        monkeypatch.setattr(
            kernel, "parallel", _Recorder(log, "parallel", kernel.serial)
        )
        monkeypatch.setattr(kernel, "serial", _Recorder(log, "serial", kernel.serial))
    return log, state


def _args(n, d):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = (X[:, 0] > 0).astype(np.int64)
    W, b = rng.standard_normal((1, d)), np.zeros(1)
    norms = np.hypot(np.linalg.norm(X, axis=1), 1.0)
    return X, y, (X, y, W, b, norms, None, True, 1.0, LOGISTIC, 0.5)


def test_small_problems_run_the_serial_kernel(two_threads):
    log, _ = two_threads
    small = _threads.SERIAL_WORK // 20 - 1  # n x 20 just below the threshold
    _kernels.clipped_gradient_sum(*_args(small, 20)[2])
    assert log == [("serial", 2)]
    log.clear()
    _kernels.clipped_gradient_sum(*_args(small + 2, 20)[2])
    assert log == [("parallel", 2)]


def test_a_stored_csr_entry_counts_as_several_dense_ones(two_threads):
    log, _ = two_threads
    X, y, _ = _args(_threads.SERIAL_WORK // 20, 20)
    X[:, 4:] = 0.0  # 4 stored entries per row: fewer than SERIAL_WORK in all
    csr = sp.csr_matrix(X)
    assert csr.nnz < _threads.SERIAL_WORK <= _kernels._CSR_ENTRY_WORK * csr.nnz
    norms = np.hypot(np.linalg.norm(X, axis=1), 1.0)
    _kernels.clipped_gradient_sum_csr(
        csr.data, csr.indices, csr.indptr, 20, y, np.ones((1, 20)), np.zeros(1),
        norms, None, True, 1.0, LOGISTIC, 0.5,
    )  # fmt: skip
    assert log == [("parallel", 2)]


def test_minibatch_work_counts_the_sampled_rows(two_threads):
    log, _ = two_threads
    X, y, args = _args(_threads.SERIAL_WORK // 20 + 100, 20)
    rows = np.arange(50, dtype=np.int64)
    _kernels.clipped_gradient_sum(*args[:5], rows, *args[6:])
    assert log == [("serial", 2)]


def test_thread_limit_of_a_call_is_set_and_restored(two_threads):
    log, state = two_threads
    args = _args(_threads.SERIAL_WORK // 20 + 1, 20)[2]
    state["threads"] = 3
    _kernels.clipped_gradient_sum.run(2, *args)
    _kernels.clipped_gradient_sum.run(1, *args)
    _kernels.clipped_gradient_sum.run(8, *args)
    assert log == [("parallel", 2), ("serial", 3), ("parallel", 3)]
    assert state["threads"] == 3


def test_fits_honour_threadpoolctl_limits(two_threads):
    log, _ = two_threads
    X, y, _ = _args(_threads.SERIAL_WORK // 20 + 1, 20)
    # Numba's 2 threads, capped by any OpenMP runtime the environment limits.
    omp = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
    expected = min([2, *omp])
    assert _threads.fit_threads() == expected
    with threadpool_limits(limits=1):
        assert _threads.fit_threads() == 1
        rows = LocalRows(X, y, fit_intercept=True)
    rows.clipped_sum(
        np.zeros((1, 20)), np.zeros(1), (True, 1.0, LOGISTIC, 0.5), 1, None
    )
    # Read once per fit (at construction): the whole fit runs serially.
    assert [name for name, _ in log] == ["serial", "serial"]
    log.clear()
    rows = LocalRows(X, y, fit_intercept=True)
    rows.clipped_sum(
        np.zeros((1, 20)), np.zeros(1), (True, 1.0, LOGISTIC, 0.5), 1, None
    )
    # The row norms (read once, at construction) always run serially.
    assert [name for name, _ in log] == [
        "serial",
        "parallel" if expected > 1 else "serial",
    ]


def test_forked_child_of_gnu_openmp_runs_serial(two_threads, monkeypatch):
    log, _ = two_threads
    monkeypatch.setattr(_threads, "_serial", True)
    _kernels.clipped_gradient_sum(*_args(_threads.SERIAL_WORK // 20 + 1, 20)[2])
    assert log == [("serial", 2)]
    assert _threads.fit_threads() == 1


class _FakeKernel:
    """A kernel whose calls advance a fake clock by a cost per thread count.

    ``wake``: extra cost of a parallel call right after a serial one (its threads
    were asleep)."""

    def __init__(self, cost, clock, wake=0.0, pays=True):
        self.cost, self.clock, self.calls, self.wake = cost, clock, [], wake
        self.pays = pays

    def parallel_pays(self, args):
        return self.pays

    def rent(self, args):
        self.calls.append("rent")
        return 1

    def work(self, *args):
        return _threads.SERIAL_WORK

    def run(self, threads, *args):
        woken = threads > 1 and self.calls and self.calls[-1] == 1
        self.calls.append(threads)
        self.clock[0] += self.cost[threads] + (self.wake if woken else 0.0)
        return threads


def _chosen(monkeypatch, kernel, calls=100, probe_every=8):
    monkeypatch.setattr(_threads.time, "perf_counter", lambda: kernel.clock[0])
    chooser = _threads.ThreadChooser(2, probe_every=probe_every)
    for _ in range(calls):
        chooser.run(kernel)
    return kernel.calls


@pytest.mark.parametrize(
    ("cost", "winner"), [({1: 1.0, 2: 5.0}, 1), ({1: 5.0, 2: 1.0}, 2)]
)
def test_thread_chooser_runs_the_faster_option_and_keeps_probing(
    monkeypatch, cost, winner
):
    calls = _chosen(monkeypatch, _FakeKernel(cost, [0.0]))
    # Warm-up (each option twice in a row, the first call of each not timed),
    # then the faster one, with the other tried for two calls in every 8.
    assert calls[:4] == [2, 2, 1, 1]
    assert calls[4:].count(winner) >= 70
    assert 22 <= calls[4:].count(3 - winner) <= 26


def test_thread_chooser_does_not_time_the_wake_up_of_parallel_threads(monkeypatch):
    # Two threads cost 1.0 a call, one 1.5, but the first parallel call after a
    # serial one pays 5.0 more (its threads were asleep). Timing that call made
    # one thread look faster, and then every probe of two threads was such a call.
    kernel = _FakeKernel({1: 1.5, 2: 1.0}, [0.0], wake=5.0)
    calls = _chosen(monkeypatch, kernel, probe_every=16)
    assert calls[4:].count(2) >= 80


@pytest.mark.parametrize(("serial", "winner"), [(0.9, 2), (0.7, 1)])
def test_thread_chooser_leaves_near_ties_to_the_parallel_kernel(
    monkeypatch, serial, winner
):
    # One thread is chosen only if its median is below _SERIAL_MARGIN (0.8) times
    # the parallel kernel's.
    calls = _chosen(monkeypatch, _FakeKernel({1: serial, 2: 1.0}, [0.0]))
    assert calls[4:].count(winner) >= 70


def test_thread_chooser_keeps_small_calls_serial():
    kernel = _FakeKernel({1: 1.0, 2: 1.0}, [0.0])
    kernel.work = lambda *args: _threads.SERIAL_WORK - 1
    chooser = _threads.ThreadChooser(2)
    for _ in range(5):
        chooser.run(kernel)
    assert kernel.calls == [1] * 5
    assert _threads.ThreadChooser(1).run(_FakeKernel({1: 0.0}, [0.0])) == 1


def _identity(x):
    return x


def test_a_parallel_twin_to_compile_waits_for_the_serial_one_to_run_as_long(
    monkeypatch,
):
    # Rent or buy: a parallel twin neither compiled nor cached is first run once
    # the serial twin has run PARALLEL_COMPILE_AFTER seconds (here 5 calls of 1.0;
    # the first call of a kind of arguments, which may compile, is not counted).
    # The count is the kernel's, across fits of the process.
    monkeypatch.setattr(_threads, "PARALLEL_COMPILE_AFTER", 5.0)
    monkeypatch.setattr(_threads, "num_threads", lambda: 2)
    clock, calls = [0.0], []
    monkeypatch.setattr(_threads.time, "perf_counter", lambda: clock[0])

    def twin(name, cost):
        def run(*args):
            calls.append(name)
            clock[0] += cost

        return run

    def kernel(ready):
        k = _threads._Kernel(_identity, {}, work=lambda x: _threads.SERIAL_WORK)
        k.serial, k.parallel = twin("serial", 1.0), twin("parallel", 0.5)
        k.parallel_ready = lambda args: ready
        return k

    k = kernel(ready=False)
    for _ in range(7):
        k.run(None, np.zeros(3))
    assert calls == ["serial"] * 6 + ["parallel"]
    assert k.serial_seconds == 5.0
    # A cached (or already compiled) parallel twin is run at once.
    calls.clear()
    kernel(ready=True).run(None, np.zeros(3))
    assert calls == ["parallel"]
    # ThreadChooser follows the same rule: it rents while the kernel says so.
    fake = _FakeKernel({1: 1.0, 2: 0.5}, [0.0], pays=False)
    assert _chosen(monkeypatch, fake, calls=3) == ["rent"] * 3


_TINY = textwrap.dedent(
    """
    from numba import prange


    def total(x):
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i]
        return s
    """
)

_READY = textwrap.dedent(
    """
    import json
    import sys
    import numpy as np
    from sklearn_dpgd._engine import _kernels, _threads
    import tiny

    X = np.random.default_rng(0).standard_normal((50, 4))
    y = (X[:, 0] > 0).astype(np.int64)
    norms = np.hypot(np.linalg.norm(X, axis=1), 1.0)
    kernel = _kernels.clipped_gradient_sum
    args = (X, y, np.zeros((1, 4)), np.zeros(1), norms, None, True, 1.0, 0, 0.5, None)
    kernel(*args)  # a binary call: runs (and compiles) the binary serial twin
    compiled = [
        len(kernel.binary.serial.signatures),
        len(kernel.multiclass.serial.signatures),
        len(kernel.multiclass.parallel.signatures),
        len(kernel.binary.parallel.signatures),
    ]
    small = _threads._Kernel(tiny.total, {}, work=lambda x: x.size)
    before = small.parallel_ready((X[0],))
    if sys.argv[1] == "compile":
        small.parallel(X[0])
    print(json.dumps([compiled, before, small.parallel_ready((X[0],))]))
    """
)


def test_a_binary_fit_compiles_no_multiclass_kernel_and_the_cache_is_read(tmp_path):
    # Fresh processes. The first runs a binary sum (and compiles or loads its
    # serial twin only), then compiles a small parallel kernel, new to the cache
    # (Numba keys its cache by the source file's path); the second finds that
    # kernel in the cache before compiling anything.
    (tmp_path / "tiny.py").write_text(_TINY)
    env = dict(os.environ)
    root = str(Path(sklearn_dpgd.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [root, str(tmp_path), env.get("PYTHONPATH")])
    )
    runs = []
    for action in ("compile", "check"):
        proc = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", _READY, action],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert runs[0] == [[1, 0, 0, 0], False, True]
    assert runs[1] == [[1, 0, 0, 0], True, True]


def test_one_thread_at_a_time_runs_a_parallel_kernel(two_threads):
    log, _ = two_threads
    args = _args(_threads.SERIAL_WORK // 20 + 1, 20)[2]
    with _threads._parallel_lock:  # as if another thread were in a parallel kernel
        _kernels.clipped_gradient_sum(*args)
    _kernels.clipped_gradient_sum(*args)
    assert log == [("serial", 2), ("parallel", 2)]


_CONCURRENT = textwrap.dedent(
    """
    import json
    from concurrent.futures import ThreadPoolExecutor

    import numba
    import numpy as np
    from sklearn_dpgd._engine import _kernels, _threads
    from sklearn_dpgd._engine._losses import LOGISTIC

    _threads.PARALLEL_COMPILE_AFTER = 0.0  # the parallel twin at once, even uncached
    rng = np.random.default_rng(0)
    X = rng.standard_normal((_kernels.SERIAL_WORK // 20 + 1, 20))
    y = (X[:, 0] > 0).astype(np.int64)
    norms = np.hypot(np.linalg.norm(X, axis=1), 1.0)
    args = (X, y, np.ones((1, 20)), np.zeros(1), norms, None, True, 1.0, LOGISTIC, 0.5)
    ref = _kernels.clipped_gradient_sum.serial(*args)


    def job(_):
        return all(
            np.array_equal(_kernels.clipped_gradient_sum(*args), ref) for _ in range(20)
        )


    with ThreadPoolExecutor(4) as pool:
        same = all(pool.map(job, range(8)))
    assert _kernels.clipped_gradient_sum.binary.parallel.signatures  # it ran
    print(json.dumps([same, numba.threading_layer()]))
    """
)


def test_kernels_called_from_several_threads_at_once():
    # Before the lock: "Numba workqueue threading layer is terminating: Concurrent
    # access has been detected" (SIGABRT) under joblib's threading backend.
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    env.pop("NUMBA_THREADING_LAYER", None)
    root = str(Path(sklearn_dpgd.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", _CONCURRENT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [True, "workqueue"]


_ENV_CHANGED_AFTER_IMPORT = """
import json, os
import numba
import numpy as np
from sklearn_dpgd import DPLogisticRegression
# What a fit above the small-data threshold loads (with a cold Numba cache a
# 2-step fit may run the NumPy twins only and start no threading layer; the
# script's own numba.get_num_threads() below would then start Numba's default).
import sklearn_dpgd._engine._kernels

# What a Dask worker does: its nanny's env is applied after the user's script (and
# so Numba) was imported.
os.environ["NUMBA_NUM_THREADS"] = "1"
rng = np.random.default_rng(0)
X = rng.standard_normal((20_000, 60)) / np.sqrt(60)  # above SERIAL_WORK
y = (X[:, 0] > 0).astype(np.int64)
DPLogisticRegression(max_iter=2, classes=[0, 1], random_state=0).fit(X, y)
# Any compilation re-reads the environment (it raised RuntimeError: "Cannot set
# NUMBA_NUM_THREADS to a different value once the threads have been launched").
numba.njit(lambda v: v + 1)(1)
print(json.dumps([numba.get_num_threads(), numba.config.NUMBA_NUM_THREADS,
                  numba.threading_layer()]))
"""


def test_numba_num_threads_set_after_import_is_honoured():
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    env.pop("NUMBA_THREADING_LAYER", None)
    root = str(Path(sklearn_dpgd.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", _ENV_CHANGED_AFTER_IMPORT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # One thread, as asked after the import, on the layer chosen at import.
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [1, 1, "workqueue"]


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.mark.parametrize("outside", [1, 2])
def test_serial_blas_runs_one_thread_and_restores_the_count(outside):
    # It sets only the libraries not already at one thread, and restores those.
    with threadpool_limits(outside, user_api="blas"):
        before = _blas_threads()
        with _threads.serial_blas():
            assert all(n == 1 for n in _blas_threads())
            with _threads.serial_blas():  # nested: still one, and restored to one
                pass
            assert all(n == 1 for n in _blas_threads())
        assert _blas_threads() == before
        with pytest.raises(RuntimeError), _threads.serial_blas():
            raise RuntimeError  # restored on errors too
        assert _blas_threads() == before
