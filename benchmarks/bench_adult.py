"""Accuracy and speed of the private estimators on Adult (and Bank).

Run from the repository root (Adult is downloaded on first use; see --data-home)::

    python benchmarks/bench_adult.py [--data-home DIR] [--seeds 5]
    python benchmarks/bench_adult.py --dataset bank
    python benchmarks/bench_adult.py --sweep   # evidence for the auto horizon

Protocol (Lee & Kifer, KDD 2018; Chen & Lee, Sec. V): one-hot + min-max + unit-norm
rows (:func:`sklearn_dpgd.datasets.paper_preprocessor`), delta = 1e-8, epsilon in
{0.05, 0.1, 0.2, 0.4, 0.8, 1.6}, mean and std of test accuracy over the seeds, with
the estimators' defaults (nothing is tuned on the test split). Adult uses its
standard train/test split; Bank an 80/20 stratified split with random_state=0.

Timing is measured side by side in this one process and reported as ratios:
a full DP fit with T = 100 steps vs scikit-learn's ``LogisticRegression().fit`` on the
same matrix, and one private step (the fused kernel) vs one NumPy pass ``X @ w`` and vs
a naive NumPy clipped-gradient sum that forms the n-by-d matrix of per-example
gradients.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_dpgd import (
    DPHuberSVM,
    DPLogisticRegression,
    ExponentialDecaySchedule,
    UniformSchedule,
)
from sklearn_dpgd._engine._kernels import clipped_gradient_sum, row_norms
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.schedules import auto_max_iter

EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
DELTA = 1e-8
MODELS = {
    "LR uniform (default)": (DPLogisticRegression, UniformSchedule()),
    "LR exp. decay 0.998": (DPLogisticRegression, ExponentialDecaySchedule(0.998)),
    "LR exp. decay 0.99": (DPLogisticRegression, ExponentialDecaySchedule(0.99)),
    "HuberSVM uniform (default)": (DPHuberSVM, UniformSchedule()),
}


def _prepared(data_home, dataset):
    X_train, X_test, y_train, y_test = load_benchmark_split(dataset, data_home)
    pre = paper_preprocessor().fit(X_train)
    return (
        np.ascontiguousarray(pre.transform(X_train)),
        pre.transform(X_test),
        y_train.to_numpy(),
        y_test.to_numpy(),
    )


def _best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _naive_clipped_sum(X, y, w, b, clip_norm):
    # The obvious NumPy implementation: materialises per-example gradients (n x d).
    m = X @ w + b
    dl = -y / (1.0 + np.exp(y * m))
    G = np.hstack([dl[:, None] * X, dl[:, None]])
    norms = np.linalg.norm(G, axis=1)
    return (G * np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))[:, None]).sum(0)


def accuracy_table(X_train, X_test, y_train, y_test, n_seeds):
    lr = LogisticRegression(max_iter=1000).fit(X_train, y_train)
    ref = lr.score(X_test, y_test)
    header = f"| {'model':<26} | " + " | ".join(f"eps={e:<5g}" for e in EPSILONS)
    print(header + " |")
    print("|" + "---|" * (len(EPSILONS) + 1))
    for name, (Estimator, schedule) in MODELS.items():
        cells = []
        for eps in EPSILONS:
            accs = [
                Estimator(
                    epsilon=eps,
                    delta=DELTA,
                    schedule=schedule,
                    classes=[0, 1],
                    random_state=seed,
                )
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(n_seeds)
            ]
            cells.append(f"{np.mean(accs):.4f}+-{np.std(accs):.4f}")
        print(f"| {name:<26} | " + " | ".join(cells) + " |", flush=True)
    steps = [
        auto_max_iter(e, DELTA, X_train.shape[0], X_train.shape[1]) for e in EPSILONS
    ]
    print(f"| {'steps (auto)':<26} | " + " | ".join(f"{t:>9d}" for t in steps) + " |")
    print(
        f"| {'non-private sklearn LR':<26} | "
        + " | ".join(f"{ref:>9.4f}" for _ in EPSILONS)
        + " |"
    )


def timing(X, y):
    ys = np.where(y == 1, 1.0, -1.0)
    yi = (y == 1).astype(np.int64)
    w = np.random.default_rng(0).standard_normal(X.shape[1]) * 0.1
    W, b = w[None, :], np.zeros(1)
    norms = row_norms(X, True)  # once per fit in the estimator

    def step():
        return clipped_gradient_sum(X, yi, W, b, norms, None, True, 1.0, 0, 0.5)

    step()  # compile / load the cache
    dp = DPLogisticRegression(max_iter=100, classes=[0, 1], random_state=0)
    dp.fit(X, y)
    t_dp = _best_time(lambda: dp.fit(X, y), 5)
    t_lr = _best_time(lambda: LogisticRegression().fit(X, y), 5)
    t_step = _best_time(step, 50)
    t_matvec = _best_time(lambda: X @ w, 50)
    t_naive = _best_time(lambda: _naive_clipped_sum(X, ys, w, 0.0, 1.0), 10)
    print(f"matrix {X.shape[0]} x {X.shape[1]} float64 ({X.nbytes / 1e6:.1f} MB)")
    print("| measurement | ratio |")
    print("|---|---|")
    print(f"| DP fit (T=100) / sklearn LogisticRegression().fit | {t_dp / t_lr:.3f} |")
    print(f"| one private step (fused kernel) / one X @ w | {t_step / t_matvec:.3f} |")
    print(f"| one private step / naive NumPy clipped sum | {t_step / t_naive:.3f} |")
    print(
        f"(best of repeats: DP fit {t_dp * 1e3:.1f} ms, sklearn {t_lr * 1e3:.1f} ms, "
        f"step {t_step * 1e3:.3f} ms, X @ w {t_matvec * 1e3:.3f} ms, naive "
        f"{t_naive * 1e3:.2f} ms)"
    )


def sweep(X_train, y_train, n_seeds):
    """Accuracy vs horizon on a holdout of the *training* split (never the test)."""
    X_fit, X_val, y_fit, y_val = train_test_split(
        X_train, y_train, test_size=0.2, stratify=y_train, random_state=0
    )
    horizons = (25, 50, 100, 200, 400, 800)
    print("holdout accuracy by max_iter (rows) and epsilon (columns)")
    print("| T | " + " | ".join(f"eps={e:g}" for e in EPSILONS) + " |")
    best = {}
    for T in horizons:
        cells = []
        for eps in EPSILONS:
            acc = np.mean(
                [
                    DPLogisticRegression(
                        epsilon=eps,
                        delta=DELTA,
                        max_iter=T,
                        classes=[0, 1],
                        random_state=seed,
                    )
                    .fit(X_fit, y_fit)
                    .score(X_val, y_val)
                    for seed in range(n_seeds)
                ]
            )
            best[eps] = max(best.get(eps, (0, 0)), (acc, T))
            cells.append(f"{acc:.4f}")
        print(f"| {T} | " + " | ".join(cells) + " |", flush=True)
    print("| best T | " + " | ".join(str(best[e][1]) for e in EPSILONS) + " |")
    auto = [auto_max_iter(e, DELTA, X_fit.shape[0], X_fit.shape[1]) for e in EPSILONS]
    print("| auto T | " + " | ".join(str(t) for t in auto) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--dataset", choices=["adult", "bank"], default="adult")
    parser.add_argument("--sweep", action="store_true", help="horizon sweep only")
    args = parser.parse_args()
    warnings.simplefilter("ignore", category=UserWarning)
    X_train, X_test, y_train, y_test = _prepared(args.data_home, args.dataset)
    if args.sweep:
        sweep(X_train, y_train, args.seeds)
        return
    print(
        f"{args.dataset} test accuracy, delta={DELTA:g}, {args.seeds} seeds, defaults\n"
    )
    accuracy_table(X_train, X_test, y_train, y_test, args.seeds)
    print()
    timing(X_train, y_train)


if __name__ == "__main__":
    main()
