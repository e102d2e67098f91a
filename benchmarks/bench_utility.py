"""Accuracy by (n, d, epsilon): calibrating the free UtilityWarning (issue 31).

Synthetic binary problems with a logistic signal (Bayes accuracy about 0.90,
balanced classes), rows scaled to unit norm (row-wise, public), then
``DPLogisticRegression`` with its defaults (``delta = 1e-8``, no declared size)
on a 3:1 split. For each cell: the signal-to-noise units ``u = mu m / d'`` and
``mu m / sqrt(d')`` (``mu`` the fit's GDP budget, ``m`` the number of training
rows, ``d' = n_features + 1``), the mean test accuracy over the seeds, the
majority class and the non-private ``LogisticRegression``. The warning's
threshold (``sklearn_dpgd.linear_model._utility.SIGNAL_THRESHOLD``) is the
``u`` below which the accuracy is that of the majority class; ``mu m / d'``
separates the cells, ``mu m / sqrt(d')`` does not.

Run: ``python benchmarks/bench_utility.py [n_seeds]`` (about 2 minutes with 2).
"""

import sys
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import normalize

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import gdp_mu

DELTA = 1e-8
N_ROWS = (100, 300, 1000, 3000, 10000)
N_FEATURES = (2, 10, 50, 200, 1000)
EPSILONS = (0.1, 0.3, 1.0, 3.0)


def problem(n, d, seed):
    """Balanced logistic data, Bayes accuracy about 0.90, unit-norm rows."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    w *= 4.0 / np.linalg.norm(w)
    X = rng.standard_normal((n, d))
    y = (X @ w + rng.logistic(size=n) > 0).astype(int)
    return normalize(X), y


def main(n_seeds=2):
    print(
        f"{'n':>6} {'d':>5} {'eps':>5} {'mu m/d':>9} {'mu m/sqrt d':>11} "
        f"{'acc':>6} {'majority':>8} {'non-private':>11}"
    )
    rows = []
    for n in N_ROWS:
        for d in N_FEATURES:
            if n * d > 3e6:
                continue
            for eps in EPSILONS:
                accs, majs, refs = [], [], []
                for seed in range(n_seeds):
                    X, y = problem(n + n // 3, d, seed)
                    X_train, X_test, y_train, y_test = X[:n], X[n:], y[:n], y[n:]
                    clf = DPLogisticRegression(
                        epsilon=eps, delta=DELTA, classes=[0, 1], random_state=seed
                    ).fit(X_train, y_train)
                    accs.append(clf.score(X_test, y_test))
                    majs.append(max(np.mean(y_test), 1 - np.mean(y_test)))
                    ref = LogisticRegression(max_iter=1000).fit(X_train, y_train)
                    refs.append(ref.score(X_test, y_test))
                u = gdp_mu(eps, DELTA) * n / (d + 1)
                rows.append((u, n, d, eps, np.mean(accs) - np.mean(majs)))
                print(
                    f"{n:>6} {d:>5} {eps:>5g} {u:>9.3g} {u * np.sqrt(d + 1):>11.3g} "
                    f"{np.mean(accs):>6.3f} {np.mean(majs):>8.3f} "
                    f"{np.mean(refs):>11.3f}",
                    flush=True,
                )
    print("\nsorted by mu m / d': n, d, epsilon, accuracy - majority")
    for u, n, d, eps, gain in sorted(rows):
        print(f"{u:>9.3g} {n:>6} {d:>5} {eps:>5g} {gain:>+7.3f}")


if __name__ == "__main__":
    warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
