"""Recall and false alarms of the regressors' ``UtilityWarning`` on small data.

Diabetes (442 rows, 10 features; 331 training rows, a 3:1 split), columns
standardised (scikit-learn's ``StandardScaler``, non-private: the benchmark
measures the warnings) and divided by ``sqrt(10)``, ``DPLinearRegression`` at
epsilon 0.3, 1 and 3 (``delta=1e-6``) with public ``y_bounds`` that fit the
target (25, 346), ten times too wide (-1,000, 1,000) and a thousand times
(-100,000, 100,000). For each cell: the fits whose test R^2 is below 0 and how
many were warned, and the fits at R^2 0.1 or more and how many were warned.

Run: ``python benchmarks/bench_regression_warnings.py [n_seeds]`` (about a
minute with 10 seeds).
"""

import sys
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_dpgd import DPLinearRegression
from sklearn_dpgd.exceptions import UtilityWarning

BOUNDS = ((25, 346), (-1e3, 1e3), (-1e5, 1e5))
EPSILONS = (0.3, 1.0, 3.0)


def run_fit(X, y, bounds, epsilon, seed):
    """``(test R^2, warned)`` of one fit."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed)
    scaler = StandardScaler().fit(X_tr)
    width = np.sqrt(X.shape[1])
    A, B = scaler.transform(X_tr) / width, scaler.transform(X_te) / width
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = DPLinearRegression(
            epsilon=epsilon, delta=1e-6, y_bounds=bounds, random_state=seed
        ).fit(A, y_tr)
    warned = any(issubclass(w.category, UtilityWarning) for w in record)
    return model.score(B, y_te), warned


def main(n_seeds=10):
    X, y = load_diabetes(return_X_y=True)
    header = f"{'R^2 < 0: warned':>16} | {'R^2 >= 0.1: warned':>18}"
    print(f"{'y_bounds':<22} {'eps':>4} | {header}")
    total = np.zeros(4, dtype=int)
    for bounds in BOUNDS:
        for epsilon in EPSILONS:
            fits = [run_fit(X, y, bounds, epsilon, s) for s in range(n_seeds)]
            bad = [w for r2, w in fits if r2 < 0]
            good = [w for r2, w in fits if r2 >= 0.1]
            row = np.array([sum(bad), len(bad), sum(good), len(good)])
            total += row
            print(
                f"{str(bounds):<22} {epsilon:>4g} | {row[0]:>7} of {row[1]:<5} | "
                f"{row[2]:>9} of {row[3]:<5}",
                flush=True,
            )
    print(
        f"\nR^2 < 0: {total[0]} of {total[1]} warned; "
        f"R^2 >= 0.1: {total[2]} of {total[3]} warned"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
