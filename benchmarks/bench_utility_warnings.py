"""Precision and recall of ``UtilityWarning`` (issue 43).

Fits the package's models over data sets, sizes and epsilons and records, for
each fit, its test accuracy, the majority class's and which utility warnings
fired (any message of :class:`~sklearn_dpgd.exceptions.UtilityWarning`). A fit
is *useful* when its test accuracy is at least 5 points above the majority
class, a *majority-class fit* when it is at most 1 point above it (or below).
The targets: warnings on at most 5% of the useful fits (false-positive rate)
and on at least 90% of the majority-class fits (detection rate).

Data: ``datasets.private_pipeline`` (breast cancer; Adult and Bank when
``SKLEARN_DPGD_DATA`` holds them, on 2,000 and 10,000 training rows), digits
(public bounds (0, 16), 10 classes), breast cancer raw (unscaled: the
package's warnings should fire) and standardised, iris (``DPHuberSVM``, 3
classes) and synthetic logistic problems (unit-norm rows). The standardised and
iris preprocessing is scikit-learn's non-private ``StandardScaler``: the
benchmark measures the warnings, not a private pipeline.

Run: ``python benchmarks/bench_utility_warnings.py [n_seeds]`` (about 10
minutes with 3 seeds on 2 cores).
"""

import os
import sys
import warnings
from collections import Counter

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler, normalize

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.datasets import load_adult, load_bank, private_pipeline
from sklearn_dpgd.exceptions import UtilityWarning
from sklearn_dpgd.preprocessing import DPMinMaxScaler

EPSILONS = (0.1, 0.3, 1.0, 3.0)
DELTA = 1e-6
USEFUL_MARGIN = 0.05
MAJORITY_MARGIN = 0.01


def _synthetic(n, d, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    w *= 4.0 / np.linalg.norm(w)
    X = rng.standard_normal((n, d))
    y = (X @ w + rng.logistic(size=n) > 0).astype(int)
    return normalize(X), y


def _subsample(X, y, n, seed):
    rows = np.random.default_rng(seed).choice(len(y), size=n, replace=False)
    return X.iloc[rows].reset_index(drop=True), np.asarray(y)[rows]


def cases():
    """``(name, data(seed) -> (X, y), model(epsilon, seed))`` of every case."""
    bc = load_breast_cancer(return_X_y=True)
    digits = load_digits(return_X_y=True)
    iris = load_iris(return_X_y=True)

    def logistic(classes, **kw):
        return lambda e, s: DPLogisticRegression(
            epsilon=e, delta=DELTA, classes=classes, random_state=s, **kw
        )

    out = [
        (
            "recipe breast cancer",
            lambda s: bc,
            lambda e, s: private_pipeline(
                "breast_cancer", epsilon=e, delta=DELTA, random_state=s
            ),
        ),
        ("breast cancer raw", lambda s: bc, logistic([0, 1])),
        (
            "breast cancer standardised",
            lambda s: bc,
            lambda e, s: make_pipeline(StandardScaler(), logistic([0, 1])(e, s)),
        ),
        (
            "digits (bounds 0-16)",
            lambda s: digits,
            lambda e, s: make_pipeline(
                DPMinMaxScaler(bounds=(0, 16)), logistic(list(range(10)))(e, s)
            ),
        ),
        (
            "iris DPHuberSVM",
            lambda s: iris,
            lambda e, s: make_pipeline(
                StandardScaler(),
                DPHuberSVM(epsilon=e, delta=DELTA, classes=[0, 1, 2], random_state=s),
            ),
        ),
    ]
    for n, d in ((300, 10), (3000, 10), (3000, 100)):
        out.append(
            (
                f"synthetic n={n} d={d}",
                lambda s, n=n, d=d: _synthetic(n, d, s),
                logistic([0, 1]),
            )
        )
    if os.environ.get("SKLEARN_DPGD_DATA"):
        for name, loader in (("adult", load_adult), ("bank", load_bank)):
            X, y = loader()
            for n in (2000, 10000):
                out.append(
                    (
                        f"recipe {name} n={n}",
                        lambda s, X=X, y=y, n=n: _subsample(X, y, n, s),
                        lambda e, s, name=name: private_pipeline(
                            name, epsilon=e, delta=DELTA, random_state=s
                        ),
                    )
                )
    return out


def run_fit(data, model, epsilon, seed):
    """``(test accuracy, majority accuracy, warning kinds)`` of one fit."""
    X, y = data(seed)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=seed
    )
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est = model(epsilon, seed).fit(X_tr, y_tr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        accuracy = float(np.mean(est.predict(X_te) == np.asarray(y_te)))
    majority = np.bincount(np.asarray(y_te)).max() / len(y_te)
    kinds = {
        _kind(str(w.message)) for w in record if issubclass(w.category, UtilityWarning)
    }
    return accuracy, majority, kinds


def _kind(message):
    for key, kind in (
        ("budget is too small", "signal"),
        ("rows look unscaled", "one class, unscaled rows"),
        ("one class", "one class"),
    ):
        if key in message:
            return kind
    return "other"


def main(n_seeds=3):
    total = Counter()
    print(
        f"{'case':<30} {'eps':>5} | {'fits':>4} {'useful':>6} {'warned':>6} | "
        f"{'majority':>8} {'warned':>6} | kinds of warnings (all fits)"
    )
    for name, data, model in cases():
        for epsilon in EPSILONS:
            row, kinds = Counter(), Counter()
            for seed in range(n_seeds):
                acc, majority, fired = run_fit(data, model, epsilon, seed)
                row["fits"] += 1
                kinds.update(fired)
                if acc >= majority + USEFUL_MARGIN:
                    row["useful"] += 1
                    row["useful warned"] += bool(fired)
                elif acc <= majority + MAJORITY_MARGIN:
                    row["majority"] += 1
                    row["majority warned"] += bool(fired)
            total.update(row)
            print(
                f"{name:<30} {epsilon:>5g} | {row['fits']:>4} {row['useful']:>6} "
                f"{row['useful warned']:>6} | {row['majority']:>8} "
                f"{row['majority warned']:>6} | {dict(kinds)}",
                flush=True,
            )
    fp = total["useful warned"] / max(1, total["useful"])
    recall = total["majority warned"] / max(1, total["majority"])
    print(
        f"\nfits {total['fits']}; useful (>= majority + {USEFUL_MARGIN:g}) "
        f"{total['useful']}, warned {total['useful warned']}: false-positive "
        f"rate {fp:.3f} (target <= 0.05)"
    )
    print(
        f"majority-class fits (<= majority + {MAJORITY_MARGIN:g}) "
        f"{total['majority']}, warned {total['majority warned']}: detection "
        f"rate {recall:.3f} (target >= 0.90)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
