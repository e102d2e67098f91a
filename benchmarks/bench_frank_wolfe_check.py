"""Accuracy cost of ``solver="frank_wolfe"``'s utility check (issue 42).

With ``utility_diagnostics=True`` 10% of the fit's Rényi filter budget (at its
order) is reserved for the check of the predictions; the selections share the
rest. This prints the test accuracy with and without the check on Adult's
standard split (``load_benchmark_split``, ``paper_preprocessor``, delta 1e-8),
for ``C`` 0.05 and 1 and epsilon 0.1, 0.4 and 1.6, mean over the seeds.

Run: ``SKLEARN_DPGD_DATA=DIR python benchmarks/bench_frank_wolfe_check.py
[n_seeds]`` (about a minute with 5 seeds).
"""

import sys
import warnings

import numpy as np

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor


def main(n_seeds=5):
    X_tr, X_te, y_tr, y_te = load_benchmark_split("adult")
    pre = paper_preprocessor().fit(X_tr)
    A, B = pre.transform(X_tr), pre.transform(X_te)
    print(f"eps  C     without    with       (test accuracy, {n_seeds} seeds)")
    for C in (0.05, 1.0):
        for eps in (0.1, 0.4, 1.6):
            row = []
            for diagnostics in (False, True):
                accuracies = []
                for seed in range(n_seeds):
                    clf = DPLogisticRegression(
                        epsilon=eps,
                        delta=1e-8,
                        C=C,
                        l1_ratio=1.0,
                        solver="frank_wolfe",
                        classes=[0, 1],
                        random_state=seed,
                        utility_diagnostics=diagnostics,
                    )
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        accuracies.append(clf.fit(A, y_tr).score(B, y_te))
                row.append(np.mean(accuracies))
            print(
                f"{eps:<4} {C:<5} {row[0]:.4f}     {row[1]:.4f}     "
                f"{row[1] - row[0]:+.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
