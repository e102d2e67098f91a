"""The full-batch line search (DP-BLGD) with DPHuberSVM: before and after its fix.

    SKLEARN_DPGD_DATA=DIR nice -n 10 python benchmarks/bench_huber_line_search.py
        [--datasets adult bank] [--seeds 5] [--epsilons 0.1 0.4 1.0 1.6]
        [--methods ...]

Chen & Lee, *Stochastic Adaptive Line Search for Differentially Private
Optimization* (arXiv:2008.07978, 2020): their full-batch DP-BLGD with the Huber
hinge (``h = 0.5``), on the package's benchmark splits (Adult: its standard files;
Bank: stratified 80/20, ``random_state=0``) with the preprocessing of its other
benchmarks (one-hot, min-max, unit-norm rows), delta = 1e-8, the estimator's
defaults otherwise. Each cell is the mean test accuracy over the seeds, its
standard deviation, and in brackets how many fits predicted one class on the test
rows (the majority-class model) and how many raised the one-class
``UtilityWarning`` (the check of the predicted classes that full-batch adaptive
fits run on what their filter left).

Rows: the earlier defaults written out (``objective_clip=1.0``,
``initial_learning_rate=1.0``, i.e. ``2 / M`` for the hinge on unit-norm rows,
``iteration_fraction=0.01``), each of the first two changes alone and both, the
current defaults (``objective_clip="auto"``: 5.0 here; ``eta_0 = 8 / M = 4``;
``iteration_fraction="auto"``: 0.003 here, about 3 times more updates), and for
reference the subsampled DP-BLSGD
default (``sampling_rate=0.1``, whose "auto" values are the earlier ones) and the
logistic DP-BLGD (unchanged by the fix).
"""

import argparse
import os
import time
import warnings

import numpy as np

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, UtilityWarning
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.schedules import LineSearchSchedule

EPSILONS = (0.1, 0.4, 1.0, 1.6)
DELTA = 1e-8


def methods():
    """Name -> (estimator class, schedule)."""
    # The earlier values, written out: iteration_fraction=0.01 (epsilon / 100).
    full = {"sampling_rate": 1.0}
    paper = {"iteration_fraction": 0.01, **full}

    def hinge(**kw):
        return DPHuberSVM, LineSearchSchedule(**kw)

    return {
        "DP-BLGD hinge, before (C_obj=1, eta_0=2/M)": hinge(
            objective_clip=1.0, initial_learning_rate=1.0, **paper
        ),
        "DP-BLGD hinge, C_obj=5 only": hinge(
            objective_clip=5.0, initial_learning_rate=1.0, **paper
        ),
        "DP-BLGD hinge, eta_0=8/M only": hinge(
            objective_clip=1.0, initial_learning_rate=4.0, **paper
        ),
        "DP-BLGD hinge, C_obj=5 and eta_0=8/M": hinge(
            objective_clip=5.0, initial_learning_rate=4.0, **paper
        ),
        "DP-BLGD hinge, after (defaults: also eps_iter=0.003 eps)": hinge(**full),
        "DP-BLSGD hinge, q=0.1 (default, unchanged)": (
            DPHuberSVM,
            LineSearchSchedule(),
        ),
        "DP-BLGD logistic (defaults, unchanged)": (
            DPLogisticRegression,
            LineSearchSchedule(**full),
        ),
    }


def split(dataset, data_home):
    X_tr, X_te, y_tr, y_te = load_benchmark_split(dataset, data_home)
    pre = paper_preprocessor().fit(X_tr)
    return (
        np.ascontiguousarray(pre.transform(X_tr)),
        pre.transform(X_te),
        y_tr.to_numpy(),
        y_te.to_numpy(),
    )


def cell(Estimator, schedule, data, eps, n_seeds):
    X_tr, X_te, y_tr, y_te = data
    accs, one_class, warned, iters = [], 0, 0, []
    for seed in range(n_seeds):
        est = Estimator(
            epsilon=eps, delta=DELTA, schedule=schedule, classes=[0, 1],
            random_state=seed,
        )  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(X_tr, y_tr)
        warned += any(
            issubclass(w.category, UtilityWarning) and "one class" in str(w.message)
            for w in caught
        )
        accs.append(est.score(X_te, y_te))
        one_class += np.unique(est.predict(X_te)).size == 1
        iters.append(est.n_iter_)
    return (
        f"{np.mean(accs):.4f} ± {np.std(accs):.3f} [{one_class}/{warned}]",
        np.mean(iters),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=os.environ.get("SKLEARN_DPGD_DATA"))
    parser.add_argument("--datasets", nargs="+", default=["adult", "bank"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    names = list(methods())
    parser.add_argument("--methods", nargs="+", default=names, choices=names)
    args = parser.parse_args()
    for dataset in args.datasets:
        start = time.perf_counter()
        data = split(dataset, args.data_home)
        majority = max(np.mean(data[3] == 1), np.mean(data[3] != 1))
        print(f"\n### {dataset}: {args.seeds} seeds, delta={DELTA:g}\n")
        print("| method | " + " | ".join(f"eps={e:g}" for e in args.epsilons) + " |")
        print("|---|" + "---|" * len(args.epsilons))
        updates = {}
        for name in args.methods:
            Estimator, schedule = methods()[name]
            row = []
            for eps in args.epsilons:
                text, n_iter = cell(Estimator, schedule, data, eps, args.seeds)
                row.append(text)
                updates.setdefault(name, []).append(f"{n_iter:.0f}")
            print(f"| {name} | " + " | ".join(row) + " |", flush=True)
        print(
            "| majority class (test rows) | "
            + " | ".join(f"{majority:.4f}" for _ in args.epsilons)
            + " |"
        )
        print("\nmean updates (n_iter_):")
        for name, its in updates.items():
            print(f"  {name}: " + " / ".join(its))
        print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
