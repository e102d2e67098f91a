"""Throughput of one full-batch private step against NumPy passes over the same matrix.

    python benchmarks/bench_kernel.py [--n-samples 1000000] [--n-features 100]
        [--repeats 15] [--threads 1 2] [--cases f64 f32 csr adult]
        [--data-home DIR]
    python benchmarks/bench_kernel.py --threshold

``--threshold`` instead times the serial twin against the parallel kernel on all
threads for dense problems of growing size (n x 20, n x 100), to place
:data:`sklearn_dpgd._engine._threads.SERIAL_WORK`: below it a call runs on one thread.

For each matrix, and each Numba thread count, the script times, interleaved in one
process (so that load from other processes hits all of them alike):

- ``oracle``: :meth:`PrivateGradientOracle.noisy_gradient`, one full-batch step as a
  fit runs it (privacy-filter charge, fused kernel, Gaussian noise, scaling);
- ``kernel``: the fused kernel alone
  (:func:`sklearn_dpgd._engine._kernels.clipped_gradient_sum` or its CSR twin), all
  rows;
- ``X @ w``: one NumPy (or SciPy, for CSR) matrix-vector product;
- ``reduce``: ``np.add.reduce(X, axis=0)`` (dense) or ``X.sum(axis=0)`` (CSR), the
  cheapest pass that reads every entry once.

The thread count applies to the Numba passes; ``X @ w`` and ``reduce`` run with
whatever threads NumPy's BLAS uses. It prints the best and the median time of the
repeats, the achieved bandwidth in
GB/s (bytes of the matrix, ``X.nbytes`` or ``data + indices + indptr``, per
second of the best time) and the ratio of each best time to that of ``reduce``. The
target for the dense 1,000,000 x 100 float64 case is ``oracle / reduce <= 1.3``.

Cases: ``f64`` synthetic standard normal rows scaled to unit norm (the
preprocessing of the papers), ``f32`` the same matrix in float32, ``csr`` a synthetic
CSR matrix with the same number of rows, 1,000 columns and 1% density, ``adult``
the preprocessed Adult training matrix
(:func:`sklearn_dpgd.datasets.load_benchmark_split`).
"""

import argparse
import time

import numba
import numpy as np
import scipy.sparse as sp

from sklearn_dpgd._engine._kernels import (
    clipped_gradient_sum,
    clipped_gradient_sum_csr,
    row_norms,
    row_norms_csr,
)
from sklearn_dpgd._engine._losses import LOGISTIC
from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd.accounting import GaussianPrivacyFilter


def _matrices(cases, n, d, data_home):
    rng = np.random.default_rng(0)
    if {"f64", "f32"} & set(cases):
        X = rng.standard_normal((n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(np.int64)
        if "f64" in cases:
            yield f"dense {n} x {d} float64", X, y
        if "f32" in cases:
            yield f"dense {n} x {d} float32", X.astype(np.float32), y
        del X
    if "csr" in cases:
        d_csr = 1000
        X = sp.random(
            n, d_csr, density=0.01, format="csr", random_state=rng, dtype=np.float64
        )
        X.sum_duplicates()
        y = (rng.random(n) < 0.5).astype(np.int64)
        yield f"CSR {n} x {d_csr} float64, density 0.01", X, y
    if "adult" in cases:
        from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

        X_train, _, y_train, _ = load_benchmark_split("adult", data_home)
        Xa = np.ascontiguousarray(paper_preprocessor().fit_transform(X_train))
        ya = np.asarray(y_train, dtype=np.int64)
        yield f"Adult train {Xa.shape[0]} x {Xa.shape[1]} float64", Xa, ya


def _nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def _bench_one(label, X, y, threads, repeats):
    n, d = X.shape
    sparse = sp.issparse(X)
    rng = np.random.default_rng(1)
    W = rng.standard_normal((1, d)) * (3.0 / np.sqrt(d))
    b = np.zeros(1)
    w = W[0].astype(X.dtype)
    if sparse:
        norms = row_norms_csr(X.data, X.indptr, True)

        def kernel():
            return clipped_gradient_sum_csr(
                X.data, X.indices, X.indptr, d, y, W, b, norms, None, True, 1.0,
                LOGISTIC, 0.5,
            )  # fmt: skip

        def reduce():
            return X.sum(axis=0)
    else:
        norms = row_norms(X, True)

        def kernel():
            return clipped_gradient_sum(
                X, y, W, b, norms, None, True, 1.0, LOGISTIC, 0.5
            )

        def reduce():
            return np.add.reduce(X, axis=0)

    oracle = PrivateGradientOracle(
        X,
        y,
        n_outputs=1,
        loss=LOGISTIC,
        huber_width=0.5,
        clip_norm=1.0,
        sensitivity=1.0,
        fit_intercept=True,
        # A budget no benchmark run can exhaust: each step charges mu_t = 1 / z = 1.
        privacy_filter=GaussianPrivacyFilter(1e6),
        rng=np.random.default_rng(2),
        public_n_samples=X.shape[0],
    )

    funcs = {
        "oracle": lambda: oracle.noisy_gradient(W, b, 1.0),
        "kernel": kernel,
        "X @ w": lambda: X @ w,
        "reduce": reduce,
    }
    nbytes = _nbytes(X)
    print(f"\n### {label} ({nbytes / 1e6:.0f} MB)\n")
    print("| threads | pass | best ms | median ms | GB/s | best / reduce |")
    print("|---|---|---|---|---|---|")
    for n_threads in threads:
        numba.set_num_threads(n_threads)
        for f in funcs.values():
            f()  # compile / load the cache, warm the pages
        times = {name: [] for name in funcs}
        for _ in range(repeats):
            for name, f in funcs.items():
                start = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - start)
        best = {name: min(t) for name, t in times.items()}
        for name, t in times.items():
            print(
                f"| {n_threads} | {name} | {best[name] * 1e3:.1f} | "
                f"{np.median(t) * 1e3:.1f} | {nbytes / best[name] / 1e9:.1f} | "
                f"{best[name] / best['reduce']:.2f} |",
                flush=True,
            )


def _threshold(repeats):
    threads = numba.config.NUMBA_NUM_THREADS
    print(f"Serial twin vs parallel kernel on {threads} threads ({repeats} repeats)")
    print("\n| n x d | work | serial us | parallel us | parallel / serial |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for d in (20, 100):
        for n in (500, 2000, 5000, 10_000, 20_000, 50_000, 100_000):
            X = rng.standard_normal((n, d)) / np.sqrt(d)
            y = (X[:, 0] > 0).astype(np.int64)
            W, b = rng.standard_normal((1, d)), np.zeros(1)
            norms = row_norms.serial(X, True)
            args = (X, y, W, b, norms, None, True, 1.0, LOGISTIC, 0.5)
            funcs = (clipped_gradient_sum.serial, clipped_gradient_sum.parallel)
            times = [[], []]
            for f in funcs:
                f(*args)
            for _ in range(repeats):
                for k, f in enumerate(funcs):
                    start = time.perf_counter()
                    for _ in range(10):
                        f(*args)
                    times[k].append((time.perf_counter() - start) / 10)
            s_, p_ = (np.median(t) * 1e6 for t in times)
            print(f"| {n} x {d} | {n * d} | {s_:.0f} | {p_:.0f} | {p_ / s_:.2f} |")
    print(f"\nNumba threading layer: {numba.threading_layer()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", action="store_true")
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-features", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--cases", nargs="+", default=["f64", "f32", "csr", "adult"],
        choices=["f64", "f32", "csr", "adult"],
    )  # fmt: skip
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    args = parser.parse_args()
    if args.threshold:
        _threshold(args.repeats)
        return
    threads = [t for t in args.threads if 1 <= t <= numba.config.NUMBA_NUM_THREADS]
    print(
        f"Numba: up to {numba.config.NUMBA_NUM_THREADS} threads; times are the best "
        f"and the median of {args.repeats} interleaved repeats."
    )
    for label, X, y in _matrices(
        args.cases, args.n_samples, args.n_features, args.data_home
    ):
        _bench_one(label, X, y, threads, args.repeats)
    print(f"\nNumba threading layer: {numba.threading_layer()}.")


if __name__ == "__main__":
    main()
