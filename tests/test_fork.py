"""Ledgers and kernels under fork (os.fork, joblib's "multiprocessing" backend).

The forking scenarios run in one subprocess (a small script), so that the pytest
process, whose Numba threads and other state the tests do not control, never forks.
"""

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import sklearn_dpgd
from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._engine import _kernels
from sklearn_dpgd._engine._losses import LOSS_CODES
from sklearn_dpgd.accounting import EpsilonDeltaRecord, PrivacyLedger

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

_SCRIPT = textwrap.dedent(
    """
    import contextvars, json, multiprocessing, os, signal, sys, threading, warnings

    import numpy as np
    from joblib import Parallel, delayed

    # joblib's "multiprocessing" backend forks only where that is the default start
    # method (Python 3.14 moved POSIX to forkserver): ask for fork explicitly.
    multiprocessing.set_start_method("fork", force=True)

    warnings.simplefilter("ignore")  # the fixed seed's PrivacyLeakWarning
    from sklearn_dpgd import DPLogisticRegression, accounting
    from sklearn_dpgd._engine import _kernels
    from sklearn_dpgd.accounting import EpsilonDeltaRecord, PrivacyLedger
    from sklearn_dpgd.exceptions import UnrecordedFitError

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3 * _kernels.BLOCK_ROWS, 4)) / 4  # several blocks
    y = (X[:, 0] > 0).astype(int)


    def model(epsilon=0.5):
        return DPLogisticRegression(
            epsilon=epsilon, delta=1e-6, classes=[0, 1], public_n_samples=len(y),
            max_iter=20, random_state=7,
        )


    def fit(epsilon=0.5):
        return model(epsilon).fit(X, y).coef_.tolist()


    def outcome(call):
        try:
            call()
            return "ran"
        except UnrecordedFitError as exc:
            return "UnrecordedFitError: " + str(exc)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"


    def in_child(body):
        # body() runs in a forked child; its JSON result comes back through a pipe.
        r, w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            signal.alarm(60)  # a deadlocked child ends with SIGALRM, not a hang
            try:
                result = body()
            except BaseException as exc:
                result = f"{type(exc).__name__}: {exc}"
            os.write(w, json.dumps(result).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 1 << 16):
            data += chunk
        os.close(r)
        status = os.waitpid(pid, 0)[1]
        return {
            "exit": os.waitstatus_to_exitcode(status),
            "result": json.loads(data) if data else None,
        }


    out = {}
    # (a) Two epsilon=0.5 fits under a 0.6 cap in joblib's forked workers. Each
    # worker reports its own outcome: an exception raised in a worker makes
    # joblib abort the pool, and multiprocessing's terminate can then deadlock on
    # its task handler (seen once in CI: the pool's join never returned).
    capped = PrivacyLedger(epsilon=0.6, delta=1e-6)
    with capped:
        results = Parallel(n_jobs=2, backend="multiprocessing")(
            delayed(outcome)(fit) for _ in range(2)
        )
    out["a"] = next((r for r in results if r != "ran"), "ran")
    out["a_entries"] = len(capped.entries)

    # (c) A ledger open elsewhere in the parent (another context, as another
    # thread's would be), and another thread holding the ledgers' lock at the
    # fork; the child opens its own ledger.
    parent = PrivacyLedger()
    elsewhere = contextvars.copy_context()
    elsewhere.run(parent.__enter__)
    held, release = threading.Event(), threading.Event()

    def hold_lock():
        with accounting._ledger._LEDGER_LOCK:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold_lock)
    holder.start()
    held.wait()

    def child_c():
        refused = outcome(fit)
        charge = outcome(lambda: parent.charge(EpsilonDeltaRecord(0.1)))
        mine = PrivacyLedger()
        with mine:
            fit()
        return [refused, charge, len(mine.entries), len(parent.entries)]

    out["c"] = in_child(child_c)
    release.set()
    holder.join()

    # (d) Forked inside the parent's block: the child's fits are in its scope.
    def child_d():
        mine = PrivacyLedger()
        with mine:
            return [outcome(fit), len(mine.entries)]

    with parent:
        out["d"] = in_child(child_d)
    elsewhere.run(parent.__exit__, None, None, None)
    out["parent_entries"] = len(parent.entries)
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def forked():
    env = dict(os.environ)
    root = str(Path(sklearn_dpgd.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_multiprocessing_fits_under_a_ledger_are_refused_not_lost(forked):
    # Before: both epsilon=0.5 fits ran under the 0.6 cap, recorded in the
    # workers' copies, and the parent's ledger stayed empty.
    assert forked["a"].startswith("UnrecordedFitError"), forked["a"]
    assert "n_jobs=1 or joblib's threading backend" in forked["a"]
    assert "inside the child" in forked["a"]
    assert forked["a_entries"] == 0


_PARALLEL_THEN_FORK = textwrap.dedent(
    """
    import json, os, signal, sys, warnings

    import numba
    import numpy as np

    warnings.simplefilter("ignore")  # the fixed seed's PrivacyLeakWarning
    from sklearn_dpgd import DPLogisticRegression
    from sklearn_dpgd._engine import _kernels, _threads

    _threads.PARALLEL_COMPILE_AFTER = 0.0  # the parallel twins at once, even uncached
    chosen = numba.config.THREADING_LAYER
    rng = np.random.default_rng(0)
    # Above the serial threshold: the parent's fit runs the parallel kernels.
    X = rng.normal(size=(_kernels.SERIAL_WORK // 40 + 1, 40)) / 7
    y = (X[:, 0] > 0).astype(int)


    def fit():
        return DPLogisticRegression(
            classes=[0, 1], public_n_samples=len(y), max_iter=3, random_state=7
        ).fit(X, y).coef_.tolist()


    reference = fit()
    # The parent runs a parallel kernel itself too, whichever twin its fit's
    # thread chooser picked (a full-suite run once saw its fit stay serial).
    yi = y.astype(np.int64)
    norms = np.hypot(np.linalg.norm(X, axis=1), 1.0)
    _kernels.clipped_gradient_sum.parallel(
        X, yi, np.zeros((1, 40)), np.zeros(1), norms, None, True, 1.0, 0, 0.5, None
    )
    layer = numba.threading_layer()  # raises if no parallel region ran
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a deadlocked child ends with SIGALRM, not a hang
        os.write(w, json.dumps(fit() == reference).encode())
        os._exit(0)
    os.close(w)
    same = json.loads(os.read(r, 100) or b"null")
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print(json.dumps([chosen, layer, status, same]))
    """
)


# The GNU OpenMP layer compiles every kernel again in its child (~20 s): slow set.
@pytest.mark.parametrize("layer", [None, pytest.param("omp", marks=pytest.mark.slow)])
def test_forked_child_fits_after_the_parent_ran_parallel_kernels(layer):
    # Before: Numba's GNU OpenMP layer (its default without TBB) terminated the
    # child (SIGTERM, exit -15). Whatever the layer, the child must fit, and give
    # the parent's coefficients bit for bit (serial twins or not).
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    env.pop("NUMBA_THREADING_LAYER", None)
    if layer is not None:
        env["NUMBA_THREADING_LAYER"] = layer
    root = str(Path(sklearn_dpgd.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", _PARALLEL_THEN_FORK],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    chosen, used, status, same = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status == 0, proc.stderr[-3000:]
    assert same is True
    if layer is None:
        # The package's default: fork-safe and idle threads sleep (not GNU OpenMP).
        assert (chosen, used) == ("workqueue", "workqueue")
    else:
        assert used == layer  # the user's choice is kept


def test_ledger_opened_inside_the_child_records_there(forked):
    assert forked["c"]["exit"] == 0, forked
    refused, charge, mine, parent_copy = forked["c"]["result"]
    # A fit with no ledger in its context falls back to the process-wide
    # registry, which holds the parent's (copied) ledger: refused, not lost.
    assert refused.startswith("UnrecordedFitError"), refused
    assert charge.startswith("UnrecordedFitError"), charge
    assert (mine, parent_copy) == (1, 0)
    assert forked["parent_entries"] == 0


def test_child_forked_inside_a_ledger_block_cannot_leave_its_scope(forked):
    # The parent's block caps every fit in it; the child's own ledger does not
    # lift that cap, so the fit is refused rather than recorded only in the child.
    assert forked["d"]["exit"] == 0, forked
    outcome, mine = forked["d"]["result"]
    assert outcome.startswith("UnrecordedFitError"), outcome
    assert mine == 0


@pytest.mark.parametrize(("K", "loss"), [(1, "logistic"), (3, "huber_hinge")])
def test_serial_twins_are_bit_identical(K, loss):
    rng = np.random.default_rng(K)
    n, d = 2 * _kernels.BLOCK_ROWS + 77, 9
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 3, size=(n, 1))
    y = rng.integers(0, max(K, 2), size=n).astype(np.int64)
    W, b = rng.standard_normal((K, d)), rng.standard_normal(K)
    norms = _kernels.row_norms.parallel(X, True)
    np.testing.assert_array_equal(_kernels.row_norms.serial(X, True), norms)
    args = (X, y, W, b, norms, None, True, 0.7, LOSS_CODES[loss], 0.5)
    np.testing.assert_array_equal(
        _kernels.clipped_gradient_sum.serial(*args),
        _kernels.clipped_gradient_sum.parallel(*args),
    )


def test_unpickled_ledger_records_in_this_process_and_refuses_elsewhere():
    # In the process it belongs to, an unpickled copy records (an explicit copy).
    ledger = PrivacyLedger()
    ledger.charge(EpsilonDeltaRecord(0.1))
    copy = pickle.loads(pickle.dumps(ledger))
    copy.charge(EpsilonDeltaRecord(0.2))
    assert (len(ledger.entries), len(copy.entries)) == (1, 2)
    X = np.random.default_rng(0).normal(size=(50, 2)) / 2
    with copy:
        DPLogisticRegression(
            epsilon=0.3, delta=1e-6, classes=[0, 1], public_n_samples=50, max_iter=3
        ).fit(X, (X[:, 0] > 0).astype(int))
    assert len(copy.entries) == 3
    # In another process it refuses, until adopt() makes it that process's own.
    script = (
        "import pickle, sys, warnings\n"
        "import numpy as np\n"
        "from sklearn_dpgd import DPLogisticRegression\n"
        "from sklearn_dpgd.exceptions import UnrecordedFitError\n"
        "warnings.simplefilter('ignore')\n"
        "ledger = pickle.loads(sys.stdin.buffer.read())\n"
        "X = np.random.default_rng(0).normal(size=(50, 2)) / 2\n"
        "y = (X[:, 0] > 0).astype(int)\n"
        "est = DPLogisticRegression(epsilon=0.3, delta=1e-6, classes=[0, 1],\n"
        "                           public_n_samples=50, max_iter=3)\n"
        "try:\n"
        "    with ledger:\n"
        "        est.fit(X, y)\n"
        "    print('recorded')\n"
        "except UnrecordedFitError as e:\n"
        "    print('refused', 'adopt()' in str(e), len(ledger.entries))\n"
        "with ledger.adopt():\n"
        "    est.fit(X, y)\n"
        "print('adopted', len(ledger.entries))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        input=pickle.dumps(ledger),
        capture_output=True,
        check=True,
    ).stdout.decode()
    assert out.split("\n")[:2] == ["refused True 1", "adopted 2"], out


@pytest.mark.parametrize(
    "module",
    [
        "sklearn_dpgd.accounting",
        "sklearn_dpgd.exceptions",
        "sklearn_dpgd.datasets",
        "sklearn_dpgd.preprocessing",
    ],
)
def test_importing_any_module_installs_the_fork_hook(module):
    # The hook that switches a child forked from a GNU-OpenMP parent to the serial
    # kernels is registered when _engine._threads is imported; any import of the
    # package runs its __init__, which imports the engine, so the hook is in place
    # before any fork whatever part of the package was imported.
    script = (
        f"import sys, {module}\nprint('sklearn_dpgd._engine._threads' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True
    ).stdout.decode()
    assert out.strip() == "True"
