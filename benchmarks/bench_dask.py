"""Training on a table larger than any one worker's memory, with Dask.

A synthetic float32 table (default 4 GB: 10 million rows x 100 features) is
generated chunk by chunk *on the workers* of a local Dask cluster (default 3
worker processes with a 3 GB memory limit each), so it fits the cluster but no
single worker, and :class:`~sklearn_dpgd.DPLogisticRegression` is trained on it
end to end. For comparison the in-memory NumPy path trains on a table that fits
the client (default 1 GB), and the Dask path trains on a table of that size too (its
overhead at equal size).

Printed per run: the time of a private step (median over the steps; the oracle's
``noisy_gradient`` is timed, i.e. the distributed clipped sum plus the noise), the
throughput in rows/s and GB/s of ``X`` read per step, the whole fit time (which
includes validation, persisting and the row norms), and the accuracy on a NumPy
test set drawn from the same model. Timings are only comparable within one run
(the machine may be shared).

Run (5 minutes on 2 idle cores with a warm Numba cache; 25 at load 7-11 with an
empty one)::

    nice -n 10 python benchmarks/bench_dask.py
    nice -n 10 python benchmarks/bench_dask.py --gb 4 --max-iter 5   # faster
"""

import argparse
import time

import numpy as np

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd._engine._threads import num_threads

N_FEATURES = 100
TRUE_SEED = 0


def _true_model(d):
    w = np.random.default_rng(TRUE_SEED).standard_normal(d)
    return w / np.linalg.norm(w)


def _numpy_table(n, d, seed):
    # The same model as the Dask table: unit-variance rows scaled to norm ~1, labels
    # from a noisy linear rule.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d), dtype=np.float32)
    X /= np.float32(np.sqrt(d))
    y = (X @ _true_model(d) + 0.1 * rng.standard_normal(n) > 0).astype(np.int64)
    return X, y


def _dask_table(n, d, chunk_rows, seed):
    import dask.array as da

    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n, d), chunks=(chunk_rows, d), dtype=np.float32)
    X = X / np.float32(np.sqrt(d))
    noise = rng.standard_normal(n, chunks=chunk_rows)
    y = ((X @ _true_model(d)) + 0.1 * noise > 0).astype(np.int64)
    return X, y


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def _numba_threads():
    # The package's own entry (numba.get_num_threads would start the threads of a
    # worker that ran no kernel with the count read at import, before its env).
    return num_threads()


class StepTimer:
    """Times every call of the oracle's noisy_gradient (one private step)."""

    def __init__(self):
        self.times = []
        self._original = PrivateGradientOracle.noisy_gradient

    def __enter__(self):
        original = self._original

        def timed(oracle, *args, **kwargs):
            start = time.perf_counter()
            out = original(oracle, *args, **kwargs)
            self.times.append(time.perf_counter() - start)
            return out

        PrivateGradientOracle.noisy_gradient = timed
        return self

    def __exit__(self, *exc):
        PrivateGradientOracle.noisy_gradient = self._original


def _fit(X, y, n, max_iter):
    clf = DPLogisticRegression(
        epsilon=1.0, delta=1e-10, max_iter=max_iter, classes=[0, 1], random_state=0
    )
    with StepTimer() as timer:
        start = time.perf_counter()
        clf.fit(X, y)
        fit_time = time.perf_counter() - start
    return clf, fit_time, float(np.median(timer.times))


def _row(name, n, nbytes, clf, fit_time, step, X_test, y_test):
    print(
        f"{name:<32} {n:>11,d} {nbytes / 1e9:>6.2f} {step:>9.3f} "
        f"{n / step / 1e6:>10.2f} {nbytes / step / 1e9:>6.2f} {fit_time:>8.1f} "
        f"{clf.score(X_test, y_test):>6.3f}",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gb", type=float, default=4.0, help="Dask table, GB")
    parser.add_argument("--numpy-gb", type=float, default=1.0, help="NumPy table, GB")
    parser.add_argument("--workers", type=int, default=3)
    # Each worker holds ~1.35 GB of the default table, plus ~0.35 GB of Python,
    # NumPy, scikit-learn and Numba, plus a generated chunk and, with a cold Numba
    # cache, LLVM's compilation: at 2 GB the workers crossed Dask's 95% pause and
    # 99% restart thresholds while generating the table, and the fit never ended.
    parser.add_argument("--memory-limit", default="3GB", help="per worker")
    parser.add_argument("--chunk-mb", type=float, default=100.0)
    parser.add_argument("--max-iter", type=int, default=10)
    args = parser.parse_args()

    import dask
    import distributed

    d = N_FEATURES
    row_bytes = 4 * d
    n_big = int(args.gb * 1e9 / row_bytes)
    n_small = int(args.numpy_gb * 1e9 / row_bytes)
    chunk_rows = int(args.chunk_mb * 1e6 / row_bytes)
    X_test, y_test = _numpy_table(100_000, d, seed=12345)

    print(
        f"{'run':<32} {'rows':>11} {'GB':>6} {'s/step':>9} {'Mrows/s':>10} "
        f"{'GB/s':>6} {'fit s':>8} {'acc':>6}"
    )
    X, y = _numpy_table(n_small, d, seed=1)
    clf, fit_time, step = _fit(X, y, n_small, args.max_iter)
    _row("numpy, in memory", n_small, X.nbytes, clf, fit_time, step, X_test, y_test)
    del X, y, clf

    # Rows live in worker memory for the whole fit: spilling them to disk would
    # defeat the purpose, so spilling is off and a worker pauses only near its limit.
    with (
        dask.config.set(
            {
                "distributed.worker.memory.target": False,
                "distributed.worker.memory.spill": False,
                "distributed.worker.memory.pause": 0.95,
                "distributed.worker.memory.terminate": 0.99,
            }
        ),
        distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            host="127.0.0.1",
            dashboard_address=None,
            # One Numba thread per worker process: the processes share the cores.
            env={"NUMBA_NUM_THREADS": "1"},
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        # A table of the NumPy run's size, generated on the workers (shipping the
        # NumPy array through the scheduler would time the transfer instead).
        Xd, yd = client.persist(list(_dask_table(n_small, d, chunk_rows, seed=1)))
        distributed.wait([Xd, yd])
        clf, fit_time, step = _fit(Xd, yd, n_small, args.max_iter)
        _row(
            f"dask, same size, {args.workers} workers",
            n_small,
            Xd.nbytes,
            clf,
            fit_time,
            step,
            X_test,
            y_test,
        )
        del Xd, yd, clf

        start = time.perf_counter()
        Xd, yd = client.persist(list(_dask_table(n_big, d, chunk_rows, seed=2)))
        distributed.wait([Xd, yd])
        generate = time.perf_counter() - start
        per_worker = Xd.nbytes / args.workers / 1e9
        clf, fit_time, step = _fit(Xd, yd, n_big, args.max_iter)
        rss = client.run(_rss)
        threads = client.run(_numba_threads)
        _row(
            f"dask, > 1 worker, {args.workers} workers",
            n_big,
            Xd.nbytes,
            clf,
            fit_time,
            step,
            X_test,
            y_test,
        )
        print(
            f"\nDask table: {Xd.nbytes / 1e9:.2f} GB in {Xd.numblocks[0]} chunks, "
            f"~{per_worker:.2f} GB per worker (limit {args.memory_limit} each), "
            f"generated on the workers in {generate:.1f} s; {args.max_iter} steps.\n"
            "Worker memory (RSS) after the fit, GB: "
            + ", ".join(f"{v / 1e9:.2f}" for v in rss.values())
            + "\nNumba threads per worker: "
            + ", ".join(str(v) for v in threads.values())
        )


if __name__ == "__main__":
    main()
