"""One shared temperature for multinomial predict_proba: its ceiling and its cost.

    nice -n 10 python benchmarks/bench_multiclass_temperature.py [--seeds 3]

Multinomial ``DPLogisticRegression`` fits can end with a private temperature
scaling of their scores, as binary fits do (``linear_model/_calibration.py``). For
each task (``classes`` given, delta = 1e-5, 80/20 stratified split,
``random_state=0`` for the split) and seed the script fits the model with
``calibration=None`` and with ``calibration="temperature"`` (the private stage,
2% of the budget), and prints the test log-loss and the top-label expected
calibration error (15 equal-width bins; Guo, Pleiss, Sun & Weinberger, ICML 2017)
of: the uncalibrated model; the same model with an *oracle* temperature (one
factor ``a`` of the scores minimising the training log-loss without noise: not
private, the ceiling of any private stage); and the private stage. The last
column says whether ``calibration="auto"`` runs the stage
(``sqrt(0.02) m mu / 2 >= 300``).

Tasks: scikit-learn's digits (1,437 training rows, 10 classes; pixels / 16, rows to
unit norm) and ``make_classification`` problems (3 classes, 16,000 training rows,
unit-norm or standardised rows; 5 classes, 4,000 rows, unit norm).
"""

import argparse
import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer, StandardScaler

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.linear_model._calibration import (
    CALIBRATION_SHARE,
    MIN_CALIBRATION_SIGNAL,
)

N_BINS = 15


def ece(P, y):
    """Top-label expected calibration error over ``N_BINS`` equal-width bins."""
    conf, correct = P.max(1), P.argmax(1) == y
    edges = np.linspace(0.0, 1.0, N_BINS + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(correct[m].mean() - conf[m].mean())
    return total


def log_loss(S, y, a=1.0):
    """Mean cross-entropy of ``softmax(a S)``."""
    return -np.mean(log_softmax(a * S, axis=1)[np.arange(len(y)), y])


def tasks():
    X, y = load_digits(return_X_y=True)
    yield "digits, 10 classes, unit-norm", Normalizer().fit_transform(X / 16.0), y
    X, y = make_classification(
        n_samples=20000,
        n_features=20,
        n_informative=8,
        n_classes=3,
        n_clusters_per_class=1,
        random_state=0,
    )
    yield "synthetic, 3 classes, unit-norm", Normalizer().fit_transform(X), y
    yield "synthetic, 3 classes, standardised", StandardScaler().fit_transform(X), y
    X, y = make_classification(
        n_samples=5000,
        n_features=30,
        n_informative=10,
        n_classes=5,
        n_clusters_per_class=1,
        random_state=1,
    )
    yield "synthetic, 5 classes, unit-norm", Normalizer().fit_transform(X), y


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 4.0])
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # fixed seeds warn PrivacyLeakWarning
    print(
        "| task | model | accuracy | log-loss | oracle T | private T | ECE "
        "| oracle T | private T | auto runs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, X, y in tasks():
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=0
        )
        k = len(np.unique(y))
        sk = LogisticRegression(max_iter=2000).fit(X_tr, y_tr)
        S = sk.decision_function(X_te)
        print(
            f"| {name} | scikit-learn | {sk.score(X_te, y_te):.4f} | "
            f"{log_loss(S, y_te):.4f} | | | {ece(sk.predict_proba(X_te), y_te):.3f} "
            "| | | |"
        )
        for eps in args.epsilons:
            rows = []
            for seed in range(args.seeds):
                kw = dict(
                    epsilon=eps, delta=1e-5, classes=list(range(k)), random_state=seed
                )
                est = DPLogisticRegression(calibration=None, **kw).fit(X_tr, y_tr)
                cal = DPLogisticRegression(calibration="temperature", **kw)
                cal.fit(X_tr, y_tr)
                S_tr, S_te = est.decision_function(X_tr), est.decision_function(X_te)
                a = minimize_scalar(
                    lambda a, S=S_tr, t=y_tr: log_loss(S, t, a),
                    bounds=(0.05, 20.0),
                    method="bounded",
                ).x
                C_te = cal.decision_function(X_te)
                rows.append(
                    [
                        est.score(X_te, y_te),
                        log_loss(S_te, y_te),
                        log_loss(S_te, y_te, a),
                        log_loss(C_te, y_te),
                        ece(np.exp(log_softmax(S_te, axis=1)), y_te),
                        ece(np.exp(log_softmax(a * S_te, axis=1)), y_te),
                        ece(np.exp(log_softmax(C_te, axis=1)), y_te),
                    ]
                )
            r = np.mean(rows, axis=0)
            signal = np.sqrt(CALIBRATION_SHARE) * len(y_tr) * gdp_mu(eps, 1e-5) / 2
            auto = "yes" if signal >= MIN_CALIBRATION_SIGNAL else "no"
            print(
                f"| {name} | epsilon={eps:g} | {r[0]:.4f} | {r[1]:.4f} | {r[2]:.4f} "
                f"| {r[3]:.4f} | {r[4]:.3f} | {r[5]:.3f} | {r[6]:.3f} "
                f"| {auto} ({signal:.0f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
