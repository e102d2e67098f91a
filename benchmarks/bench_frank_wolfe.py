"""Sparse L1 models on Adult: ``solver="frank_wolfe"`` against ``solver="gd"``.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_frank_wolfe.py [--data-home DIR] \
        [--seeds 3] [--epsilons 0.1 0.4 1.6] [--C 0.05 1]

The protocol of ``benchmarks/bench_l1.py`` (and ``bench_accuracy.py``): Adult's
standard split (``load_benchmark_split``), one-hot + min-max + unit-norm rows
(``paper_preprocessor``, 108 features), delta = 1e-8. For each ``C`` and
epsilon: ``DPLogisticRegression(C=C, l1_ratio=1, solver="frank_wolfe")`` and the
default ``solver="gd"`` with the same ``C`` and ``l1_ratio=1`` (proximal steps),
mean over the seeds of the non-zero coefficients, the test accuracy and the fit
time, and that time as a ratio of scikit-learn's
``LogisticRegression(C=C, penalty="l1", solver="liblinear")`` (non-private),
all with one thread each (``threadpoolctl.threadpool_limits(1)``; set
``NUMBA_NUM_THREADS=1`` in the environment), in one process. The first fit of
each solver is a warm-up (Numba compilation), not timed.
"""

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

DELTA = 1e-8


def _timed(make, X, y, repeats=1):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        model = make().fit(X, y)
        best = min(best, time.perf_counter() - start)
    return model, best


def _private(solver, C, eps, seed):
    return lambda: DPLogisticRegression(
        epsilon=eps,
        delta=DELTA,
        classes=[0, 1],
        C=C,
        l1_ratio=1.0,
        solver=solver,
        random_state=seed,
    )


def main(data_home, seeds, epsilons, Cs):
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", data_home)
    pre = paper_preprocessor().fit(X_train)
    X_train = np.ascontiguousarray(pre.transform(X_train))
    X_test = pre.transform(X_test)
    y_train, y_test = y_train.to_numpy(), y_test.to_numpy()
    d = X_train.shape[1]
    threads = os.environ.get("NUMBA_NUM_THREADS", "default")
    print(
        f"\n### Adult, delta={DELTA:g}, {seeds} seeds, {d} coefficients, BLAS "
        f"threads: one unless --default-threads, NUMBA_NUM_THREADS={threads}\n"
    )
    print(
        "| model | C | epsilon | non-zero coefficients | test accuracy | "
        "fit time (s) | x scikit-learn |"
    )
    print("|---|---|---|---|---|---|---|")
    for solver in ("frank_wolfe", "gd"):  # compile the kernels once
        _private(solver, 1.0, 1.0, 0)().fit(X_train[:500], y_train[:500])
    for C in Cs:

        def reference(C=C):
            return LogisticRegression(C=C, penalty="l1", solver="liblinear")

        base, base_time = _timed(reference, X_train, y_train, repeats=3)
        for eps in epsilons:
            for solver in ("frank_wolfe", "gd"):
                fits = [
                    _timed(_private(solver, C, eps, seed), X_train, y_train)
                    for seed in range(seeds)
                ]
                nnz = np.mean([np.count_nonzero(f.coef_) for f, _ in fits])
                acc = np.mean([f.score(X_test, y_test) for f, _ in fits])
                secs = np.mean([t for _, t in fits])
                print(
                    f"| DPLogisticRegression(solver={solver!r}) | {C:g} | {eps:g} | "
                    f"{nnz:.1f} | {acc:.4f} | {secs:.3f} | "
                    f"{secs / base_time:.1f} |"
                )
        print(
            f"| scikit-learn LogisticRegression(penalty='l1', liblinear), "
            f"non-private | {C:g} | - | {np.count_nonzero(base.coef_)} | "
            f"{base.score(X_test, y_test):.4f} | {base_time:.3f} | 1.0 |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.4, 1.6])
    parser.add_argument("--C", type=float, nargs="+", default=[0.05, 1.0])
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="default BLAS threads (run without NUMBA_NUM_THREADS=1 too)",
    )
    args = parser.parse_args()
    threads = None if args.default_threads else 1
    with warnings.catch_warnings(), threadpool_limits(threads):
        # Fixed seeds make the benchmark reproducible (PrivacyLeakWarning).
        warnings.simplefilter("ignore")
        main(args.data_home, args.seeds, args.epsilons, args.C)
