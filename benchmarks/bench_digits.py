"""Multiclass accuracy vs epsilon on scikit-learn's digits (10 classes).

    python benchmarks/bench_digits.py [--seeds 5]

Standard 75/25 split (stratified, random_state=0), rows scaled to unit L2 norm
(a per-row, data-independent transform), delta = 1e-5, default hyperparameters:
multinomial DPLogisticRegression and one-vs-rest DPHuberSVM, one private mechanism
per step for all classes. Prints mean +- std test accuracy over the seeds next to
the non-private LogisticRegression.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
DELTA = 1e-5


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore", category=UserWarning)
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=0
    )
    X_train, X_test = Normalizer().transform(X_train), Normalizer().transform(X_test)
    classes = np.arange(10)
    ref = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)
    print(f"digits: n_train={X_train.shape[0]}, 10 classes, delta={DELTA:g}")
    print("| model | " + " | ".join(f"eps={e:g}" for e in EPSILONS) + " |")
    print("|---|" + "---|" * len(EPSILONS))
    for name, Estimator in [
        ("DPLogisticRegression (softmax)", DPLogisticRegression),
        ("DPHuberSVM (one-vs-rest)", DPHuberSVM),
    ]:
        cells = []
        for eps in EPSILONS:
            accs = [
                Estimator(epsilon=eps, delta=DELTA, classes=classes, random_state=s)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for s in range(args.seeds)
            ]
            cells.append(f"{np.mean(accs):.4f}+-{np.std(accs):.4f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"| non-private LogisticRegression | {ref:.4f} |")


if __name__ == "__main__":
    main()
