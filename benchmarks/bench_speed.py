"""Speed of the private fit against scikit-learn and NumPy: the ratios of issue 19.

    python benchmarks/bench_speed.py [--quick] [--repeats 5] [--data-home DIR]
        [--skip-cold] [--small] [--whole]

Every ratio is measured side by side in this one process (the two sides of a ratio
alternate within each repeat) and the median of the per-repeat ratios is printed, so
that load from other processes on a shared machine hits both sides alike. Treat the
numbers as indicative when the machine is shared: run it twice and compare.

Rows (``--quick`` shrinks the synthetic matrices and the step counts, not Adult):

- default ``DPLogisticRegression`` fit on Adult (dense float64, the paper
  preprocessing of :func:`sklearn_dpgd.datasets.paper_preprocessor`) over scikit-learn's
  ``LogisticRegression(max_iter=1000)`` fit, at epsilon 0.1 and 1.6 (delta 1e-8);
- 100 full-batch private steps (:meth:`PrivateGradientOracle.noisy_gradient`) on a
  bag-of-words CSR matrix (200,000 x 20,000, 20 nonzeros per row) over 100 SciPy
  pairs ``X @ w``, ``X.T @ r``;
- the default fit on Adult as CSR over the same fit on dense Adult (epsilon 1.6);
- 100 private steps on a dense 400,000 x 100 matrix over 100 BLAS products ``X @ w``;
- whole ``fit()`` calls (``max_iter=100``, the public size declared, every other
  parameter at its default) on both matrices over 100 SciPy pairs / BLAS passes,
  with a cProfile of one fit saying which share each stage takes (validation, row
  norms, utility diagnostics, calibration stage, steps); ``--whole`` runs only
  only these;
- a fit (``max_iter=50``) on that matrix in float32 over the same fit in float64;
- ``GridSearchCV(n_jobs=2)`` over ``n_jobs=1`` (4 candidates x 2 folds, the default
  estimator on Adult);
- whether a fit runs in a child forked (``os.fork``) after a fit in the parent;
- a default fit on 2,000 x 20 while another process spins (then one per core), over
  the same fit without them, measured just before;
- small data: the default fit on breast cancer over scikit-learn's
  ``LogisticRegression``, and the NumPy twins over the compiled kernels (both warm)
  at 17,070, 100,000 and 200,000 entries (the threshold ``SMALL_WORK`` is 100,000);
- ``import sklearn_dpgd`` after ``import sklearn.linear_model``, in fresh processes;
- ``GridSearchCV`` (4 candidates x 5 folds) on breast cancer with ``n_jobs=2`` over
  ``n_jobs=1``, every search in a fresh process (so its workers start cold), next to
  ``PrivateGridSearchCV`` (20 candidates) and scikit-learn's own ``GridSearchCV`` of
  ``LogisticRegression``;
- the first default fit in a fresh process with an empty Numba cache
  (``NUMBA_CACHE_DIR`` set to a new folder), and the extra time of each further
  input kind (CSR, float32, multiclass, minibatch), on 1,000 x 20 (the NumPy twins)
  and on 20,000 x 20 (the kernels); seconds, not ratios.

``--small`` runs only the small-data, import, search and cold-start rows.

Adult is read from ``--data-home`` (default: ``$SKLEARN_DPGD_DATA``, else
scikit-learn's data home).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._engine import _twins
from sklearn_dpgd._engine._losses import LOGISTIC
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd.accounting import GaussianPrivacyFilter
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

warnings.simplefilter("ignore")  # fixed seeds (PrivacyLeakWarning), weak-privacy notes


def _timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def _paired(a, b, repeats):
    """Median of the per-repeat ratios a/b (a and b alternate), medians of a and b."""
    a(), b()  # warm: compile or load the cache, touch the pages
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(_timed(a))
        tb.append(_timed(b))
    ratios = np.array(ta) / np.array(tb)
    return float(np.median(ratios)), float(np.median(ta)), float(np.median(tb))


def _model(epsilon, n, **kwargs):
    return DPLogisticRegression(
        epsilon=epsilon, delta=1e-8, classes=[0, 1], public_n_samples=n, **kwargs
    )


def _oracle(X, y):
    return PrivateGradientOracle(
        X,
        y,
        n_outputs=1,
        loss=LOGISTIC,
        huber_width=0.5,
        clip_norm=1.0,
        sensitivity=1.0,
        fit_intercept=True,
        privacy_filter=GaussianPrivacyFilter(1e9),  # never exhausted here
        rng=np.random.default_rng(2),
        public_n_samples=X.shape[0],
    )


def _steps(X, y, n_steps):
    oracle = _oracle(X, y)
    rng = np.random.default_rng(1)
    W = rng.standard_normal((1, X.shape[1])) / np.sqrt(X.shape[1])
    b = np.zeros(1)

    def run():
        for _ in range(n_steps):
            oracle.noisy_gradient(W, b, 1.0)

    return run


def _row(table, name, value, unit=""):
    table.append((name, value, unit))
    print(f"| {name} | {value} {unit} |".replace("  |", " |"), flush=True)


def _adult(data_home):
    X_train, _, y_train, _ = load_benchmark_split("adult", data_home)
    X = np.ascontiguousarray(paper_preprocessor().fit_transform(X_train))
    return X, np.asarray(y_train, dtype=np.int64)


def bench_adult(X, y, repeats, table):
    n = X.shape[0]
    for eps in (0.1, 1.6):
        ratio, a, b = _paired(
            lambda e=eps: _model(e, n).fit(X, y),
            lambda: LogisticRegression(max_iter=1000).fit(X, y),
            repeats,
        )
        _row(
            table,
            f"default fit / sklearn LogisticRegression, Adult dense, eps {eps}",
            f"{ratio:.2f}",
            f"({a:.2f} s / {b:.2f} s)",
        )
    Xs = sp.csr_matrix(X)
    ratio, a, b = _paired(
        lambda: _model(1.6, n).fit(Xs, y), lambda: _model(1.6, n).fit(X, y), repeats
    )
    _row(
        table,
        f"Adult as CSR / Adult dense, default fit eps 1.6 (density "
        f"{Xs.nnz / np.prod(X.shape):.2f})",
        f"{ratio:.2f}",
        f"({a:.2f} s / {b:.2f} s)",
    )


def bench_csr_steps(n, d, nnz_row, n_steps, repeats, table):
    rng = np.random.default_rng(0)
    indices = rng.integers(0, d, size=(n, nnz_row))
    X = sp.csr_matrix(
        (
            rng.standard_normal(n * nnz_row) / np.sqrt(nnz_row),
            indices.ravel(),
            np.arange(0, n * nnz_row + 1, nnz_row),
        ),
        shape=(n, d),
    )
    X.sum_duplicates()
    y = (rng.random(n) < 0.5).astype(np.int64)
    w, r = rng.standard_normal(d), rng.standard_normal(n)

    def scipy_pairs():
        for _ in range(n_steps):
            X @ w
            X.T @ r

    ratio, a, b = _paired(_steps(X, y, n_steps), scipy_pairs, repeats)
    _row(
        table,
        f"{n_steps} steps CSR {n} x {d} (nnz {X.nnz / 1e6:.1f}M) / {n_steps} scipy "
        "(X@w, X.T@r)",
        f"{ratio:.2f}",
        f"({a * 1e3 / n_steps:.1f} ms / {b * 1e3 / n_steps:.1f} ms per step)",
    )


def bench_dense(n, d, n_steps, fit_iter, repeats, table):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(np.int64)
    w = rng.standard_normal(d)

    def blas():
        for _ in range(n_steps):
            X @ w

    ratio, a, b = _paired(_steps(X, y, n_steps), blas, repeats)
    _row(
        table,
        f"{n_steps} steps dense {n} x {d} / {n_steps} BLAS X@w",
        f"{ratio:.2f}",
        f"({a * 1e3 / n_steps:.2f} ms / {b * 1e3 / n_steps:.2f} ms per step)",
    )
    X32 = X.astype(np.float32)
    ratio, a, b = _paired(
        lambda: _model(1.0, n, max_iter=fit_iter).fit(X32, y),
        lambda: _model(1.0, n, max_iter=fit_iter).fit(X, y),
        repeats,
    )
    _row(
        table,
        f"float32 / float64 fit (max_iter={fit_iter}), {n} x {d}",
        f"{ratio:.2f}",
        f"({a:.2f} s / {b:.2f} s)",
    )


# Stages of a fit, by the package function that runs each (cumulative time in a
# cProfile of one fit): what a whole fit costs around its steps.
_STAGES = {
    "validation": ("_validation.py", "validate_fit_data"),
    "row norms (oracle set-up)": ("_rows.py", "__init__"),
    "utility diagnostics": ("_utility.py", "utility_checks"),
    "unscaled-rows count": ("_utility.py", "check_row_norms"),
    "predicted-class counts": ("_utility.py", "check_predictions"),
    "calibration stage": ("_calibration.py", "temperature_scale"),
    "steps (noisy gradients)": ("_oracle.py", "noisy_gradient"),
}


def _stage_profile(fit):
    """Seconds of each stage of one call of ``fit`` (cProfile, cumulative)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    start = time.perf_counter()
    fit()
    total = time.perf_counter() - start
    profile.disable()
    stats = pstats.Stats(profile).stats
    seconds = {}
    for label, (file, name) in _STAGES.items():
        seconds[label] = sum(
            v[3] for (f, _, fn), v in stats.items() if f.endswith(file) and fn == name
        )
    return total, seconds


def bench_whole_fits(csr_shape, dense_shape, n_steps, repeats, table):
    """Whole ``fit()`` calls of ``n_steps`` steps over ``n_steps`` SciPy pairs (CSR)
    or BLAS passes (dense), and where a fit's time goes (issue 33, item 6)."""
    n, d, nnz_row = csr_shape
    rng = np.random.default_rng(0)
    indices = rng.integers(0, d, size=(n, nnz_row))
    X = sp.csr_matrix(
        (
            rng.standard_normal(n * nnz_row) / np.sqrt(nnz_row),
            indices.ravel(),
            np.arange(0, n * nnz_row + 1, nnz_row),
        ),
        shape=(n, d),
    )
    X.sum_duplicates()
    y = (X @ rng.standard_normal(d) > 0).astype(np.int64)
    w, r = rng.standard_normal(d), rng.standard_normal(n)

    def scipy_pairs():
        for _ in range(n_steps):
            X @ w
            X.T @ r

    n2, d2 = dense_shape
    Xd = rng.standard_normal((n2, d2))
    Xd /= np.linalg.norm(Xd, axis=1, keepdims=True)
    yd = (Xd[:, 0] + 0.5 * rng.standard_normal(n2) > 0).astype(np.int64)
    wd = rng.standard_normal(d2)

    def blas():
        for _ in range(n_steps):
            Xd @ wd

    for label, data, target, floor, floor_name in (
        (f"CSR {n} x {d} (nnz {X.nnz / 1e6:.1f}M)", X, y, scipy_pairs, "scipy pairs"),
        (f"dense {n2} x {d2}", Xd, yd, blas, "BLAS X@w"),
    ):
        rows = data.shape[0]

        def fit(data=data, target=target, rows=rows):
            _model(1.0, rows, max_iter=n_steps).fit(data, target)

        ratio, a, b = _paired(fit, floor, repeats)
        _row(
            table,
            f"whole fit (max_iter={n_steps}) {label} / {n_steps} {floor_name}",
            f"{ratio:.2f}",
            f"({a:.2f} s / {b:.2f} s)",
        )
        total, stages = _stage_profile(fit)
        shares = ", ".join(
            f"{k} {v / total:.0%}" for k, v in stages.items() if v >= 0.005 * total
        )
        print(f"<!-- one profiled fit, {total:.2f} s: {shares} -->", flush=True)


def bench_grid(X, y, repeats, table):
    grid = {"momentum": [0.8, 0.9], "average": [0.25, 0.5]}

    def search(n_jobs):
        model = _model(1.0, X.shape[0] // 2)
        return lambda: GridSearchCV(model, grid, cv=2, n_jobs=n_jobs).fit(X, y)

    ratio, a, b = _paired(search(2), search(1), repeats)
    _row(
        table,
        f"GridSearchCV n_jobs=2 / n_jobs=1 (4 candidates x 2 folds, {X.shape[0]} x "
        f"{X.shape[1]})",
        f"{ratio:.2f}",
        f"({a:.2f} s / {b:.2f} s)",
    )


_FORK = textwrap.dedent(
    """
    import os, signal, sys, warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from sklearn_dpgd import DPLogisticRegression
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50_000, 20)) / 5
    y = (X[:, 0] > 0).astype(int)
    def fit():
        DPLogisticRegression(classes=[0, 1], public_n_samples=len(y), max_iter=20).fit(
            X, y
        )
    fit()
    import numba
    print(numba.threading_layer(), numba.get_num_threads(), flush=True)
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        fit()
        os._exit(0)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """
)


def bench_fork(table):
    proc = subprocess.run(
        [sys.executable, "-c", _FORK], capture_output=True, text=True, timeout=300
    )
    lines = proc.stdout.split()
    ok = proc.returncode == 0 and lines[-1:] == ["0"]
    detail = " ".join(lines[:2])
    if not ok:
        detail += f" (child exit {lines[-1:]}, {proc.stderr.strip()[-120:]!r})"
    _row(
        table,
        "a fit in a forked child after a fit in the parent",
        "fits" if ok else "killed",
        f"(layer, threads: {detail})",
    )


_SPIN = "import time\nend = time.time() + 120\nwhile time.time() < end: pass\n"


def bench_busy(repeats, table):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 20)) / 5
    y = (X[:, 0] > 0).astype(int)
    fit = lambda: _model(1.0, 2000).fit(X, y)  # noqa: E731
    fit()
    for n_spin in sorted({1, os.cpu_count()}):
        idle = [_timed(fit) for _ in range(repeats)]
        spinners = [
            subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(n_spin)
        ]
        try:
            time.sleep(0.5)
            busy = [_timed(fit) for _ in range(repeats)]
        finally:
            for p in spinners:
                p.kill()
                p.wait()
        a, b = np.median(busy), np.median(idle)
        _row(
            table,
            f"2,000 x 20 default fit, {n_spin} other process(es) spinning / without",
            f"{a / b:.2f}",
            f"({a:.3f} s / {b:.3f} s)",
        )


_COLD = textwrap.dedent(
    """
    import json, sys, time, warnings
    t0 = time.perf_counter()
    import numpy as np, scipy.sparse as sp
    warnings.simplefilter("ignore")
    from sklearn_dpgd import DPLogisticRegression
    n = int(sys.argv[1])
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 20)) / 5
    y = (X[:, 0] > 0).astype(int)
    y3 = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    kinds = {
        "dense": lambda: DPLogisticRegression(public_n_samples=n).fit(X, y),
        "CSR": lambda: DPLogisticRegression(public_n_samples=n).fit(
            sp.csr_matrix(X), y
        ),
        "float32": lambda: DPLogisticRegression(public_n_samples=n).fit(
            X.astype(np.float32), y
        ),
        "multiclass": lambda: DPLogisticRegression(public_n_samples=n).fit(X, y3),
        "minibatch": lambda: DPLogisticRegression(
            public_n_samples=n, batch_size=n // 10
        ).fit(X, y),
    }
    out = {}
    for name in sys.argv[2:]:
        kinds[name]()
        t1 = time.perf_counter()
        out[name] = t1 - t0
        t0 = t1
    print(json.dumps(out))
    """
)


def bench_cold(quick, table, n=20_000):
    """First fits in a fresh process with an empty Numba cache, on n x 20 data.

    n = 20,000 (400,000 entries) runs the compiled kernels; n = 1,000 runs the NumPy
    twins of small problems (no Numba at all).
    """
    kinds = (
        ["dense"] if quick else ["dense", "CSR", "float32", "multiclass", "minibatch"]
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        proc = subprocess.run(
            [sys.executable, "-c", _COLD, str(n), *kinds],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    if proc.returncode != 0:
        _row(table, "cold start", "failed", repr(proc.stderr[-300:]))
        return
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    _row(
        table,
        f"first default fit on {n:,} x 20, empty numba cache (incl. import)",
        f"{times.pop('dense'):.2f}",
        "s",
    )
    for name, t in times.items():
        _row(table, f"  then the first {name} fit", f"{t:.2f}", "s")


_SEARCH = textwrap.dedent(
    """
    import sys, time, warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.preprocessing import StandardScaler
    from sklearn_dpgd import DPLogisticRegression
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    which, n_jobs = sys.argv[1], int(sys.argv[2])
    if which == "ours":
        search = GridSearchCV(
            DPLogisticRegression(classes=[0, 1]),
            {"alpha": [1e-4, 1e-3, 1e-2, 1e-1]}, cv=5, n_jobs=n_jobs,
        )
    elif which == "private":
        from sklearn_dpgd.model_selection import PrivateGridSearchCV
        search = PrivateGridSearchCV(
            DPLogisticRegression(classes=[0, 1]),
            {"alpha": [float(a) for a in np.logspace(-4, -1, 20)]}, n_jobs=n_jobs,
        )
    else:
        search = GridSearchCV(
            LogisticRegression(), {"C": [1e-4, 1e-3, 1e-2, 1e-1]}, cv=5,
            n_jobs=n_jobs,
        )
    t = time.perf_counter()
    search.fit(X, y)
    print(time.perf_counter() - t)
    """
)


def _search_seconds(which, n_jobs):
    proc = subprocess.run(
        [sys.executable, "-c", _SEARCH, which, str(n_jobs)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return float(proc.stdout.strip().splitlines()[-1])


def bench_search_cold(repeats, table):
    """20 fits on breast cancer, each search in a fresh process (cold workers)."""
    for which, label in (
        ("ours", "GridSearchCV(DPLogisticRegression)"),
        ("private", "PrivateGridSearchCV(DPLogisticRegression), 20 candidates"),
        ("sklearn", "scikit-learn's GridSearchCV(LogisticRegression)"),
    ):
        ratios, two, one = [], [], []
        for _ in range(repeats):
            two.append(_search_seconds(which, 2))
            one.append(_search_seconds(which, 1))
            ratios.append(two[-1] / one[-1])
        _row(
            table,
            f"{label} on breast cancer, n_jobs=2 / n_jobs=1, fresh processes",
            f"{np.median(ratios):.2f}",
            f"({np.median(two):.2f} s / {np.median(one):.2f} s)",
        )


def _import_seconds(statement):
    code = f"import time; t = time.perf_counter(); {statement}; "
    code += "print(time.perf_counter() - t)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return float(proc.stdout.strip().splitlines()[-1])


def bench_import(repeats, table):
    """``import sklearn_dpgd`` over ``import sklearn.linear_model``, alternated."""
    base, ours = [], []
    for _ in range(max(repeats, 5)):
        base.append(_import_seconds("import sklearn.linear_model"))
        ours.append(_import_seconds("import sklearn.linear_model, sklearn_dpgd"))
    _row(
        table,
        "import sklearn_dpgd after import sklearn.linear_model (fresh processes)",
        f"+{np.median(ours) - np.median(base):.2f}",
        f"s ({np.median(ours):.2f} s / {np.median(base):.2f} s)",
    )


def _fit_with_threshold(X, y, threshold):
    """A default fit run with ``SMALL_WORK = threshold`` (restored after)."""

    def fit():
        saved, _twins.SMALL_WORK = _twins.SMALL_WORK, threshold
        try:
            DPLogisticRegression(classes=[0, 1]).fit(X, y)
        finally:
            _twins.SMALL_WORK = saved

    return fit


def bench_small(repeats, table):
    """Small data: the NumPy twins against the kernels and scikit-learn."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ratio, a, b = _paired(
        lambda: DPLogisticRegression(classes=[0, 1]).fit(X, y),
        lambda: LogisticRegression().fit(X, y),
        repeats,
    )
    _row(
        table,
        "default fit on breast cancer (569 x 30, NumPy twins) / LogisticRegression",
        f"{ratio:.2f}",
        f"({a * 1e3:.0f} ms / {b * 1e3:.0f} ms)",
    )
    rng = np.random.default_rng(0)
    for n, d in ((569, 30), (2000, 50), (4000, 50)):
        Xs = rng.standard_normal((n, d)) / np.sqrt(d)
        ys = (Xs[:, 0] > 0).astype(int)
        ratio, a, b = _paired(
            _fit_with_threshold(Xs, ys, 10**12),  # the twins
            _fit_with_threshold(Xs, ys, 0),  # the kernels
            repeats,
        )
        _row(
            table,
            f"default fit on {n:,} x {d} ({n * d:,} entries): NumPy twins / kernels "
            "(warm)",
            f"{ratio:.2f}",
            f"({a * 1e3:.0f} ms / {b * 1e3:.0f} ms)",
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller synthetic data")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--skip-cold", action="store_true")
    parser.add_argument(
        "--small",
        action="store_true",
        help="only the rows of small data, searches, import and cold starts",
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="only the whole fits over SciPy/BLAS, with their stage profiles",
    )
    args = parser.parse_args()
    quick = args.quick
    repeats = args.repeats or (3 if quick else 5)
    print(
        f"{platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, numba {numba.__version__} (up to "
        f"{numba.config.NUMBA_NUM_THREADS} threads), numpy {np.__version__}; "
        f"load average {os.getloadavg()[0]:.2f} at start; median of {repeats} "
        "repeats. The machine may be shared with other jobs: ratios are indicative.\n"
    )
    print("| ratio | value |\n|---|---|")
    table = []
    if args.small:
        bench_small(repeats, table)
        bench_import(repeats, table)
        bench_search_cold(3, table)
        bench_cold(quick, table, n=1_000)
        bench_cold(quick, table, n=20_000)
        return
    if args.whole:
        bench_whole_fits((200_000, 20_000, 20), (400_000, 100), 100, repeats, table)
        return
    X, y = _adult(args.data_home)
    bench_adult(X, y, repeats, table)
    if quick:
        bench_csr_steps(50_000, 20_000, 20, 20, repeats, table)
        bench_dense(100_000, 100, 20, 20, repeats, table)
    else:
        bench_csr_steps(200_000, 20_000, 20, 100, repeats, table)
        bench_dense(400_000, 100, 100, 50, repeats, table)
        bench_whole_fits((200_000, 20_000, 20), (400_000, 100), 100, repeats, table)
    bench_grid(X[::2] if quick else X, y[::2] if quick else y, repeats, table)
    bench_fork(table)
    bench_busy(repeats, table)
    bench_small(repeats, table)
    bench_import(repeats, table)
    bench_search_cold(3, table)
    if not args.skip_cold:
        bench_cold(quick, table, n=1_000)
        bench_cold(quick, table, n=20_000)
    print(
        f"\nNumba threading layer: {numba.threading_layer()}; load average "
        f"{os.getloadavg()[0]:.2f} at the end."
    )


if __name__ == "__main__":
    main()
