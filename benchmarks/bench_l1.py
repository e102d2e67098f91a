"""L1 sparsity on Adult: non-zero coefficients and accuracy, private and not.

    python benchmarks/bench_l1.py [--data-home DIR] [--seeds 5] [--epsilons 1 4]

The protocol of ``benchmarks/bench_accuracy.py``: Adult's standard split
(``load_benchmark_split``), one-hot + min-max + unit-norm rows
(``paper_preprocessor``, 108 features), delta = 1e-8. For each ``C`` and each
epsilon, ``DPLogisticRegression(C=C, l1_ratio=1)`` (the L1 penalty by proximal
steps on the privatised iterates, post-processing) and the same fit with
``l1_ratio=0`` (L2 at the same ``C``): mean over the seeds of the number of
non-zero coefficients and of the test accuracy, next to scikit-learn's
``LogisticRegression(C=C, l1_ratio=1, solver="saga")``.
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

DELTA = 1e-8


def _fit_sklearn(C, X_train, y_train):
    # scikit-learn >= 1.8 spells the lasso l1_ratio=1 (penalty is deprecated);
    # older versions need penalty="l1".
    try:
        model = LogisticRegression(C=C, l1_ratio=1.0, solver="saga", max_iter=5000)
        model.fit(X_train, y_train)
        if np.count_nonzero(model.coef_) == model.coef_.size:
            raise TypeError  # l1_ratio ignored: an older scikit-learn
    except TypeError:
        model = LogisticRegression(C=C, penalty="l1", solver="saga", max_iter=5000)
        model.fit(X_train, y_train)
    return model


def main(data_home, seeds, epsilons, Cs):
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", data_home)
    pre = paper_preprocessor().fit(X_train)
    X_train = np.ascontiguousarray(pre.transform(X_train))
    X_test = pre.transform(X_test)
    y_train, y_test = y_train.to_numpy(), y_test.to_numpy()
    d = X_train.shape[1]
    print(f"\n### Adult, delta={DELTA:g}, {seeds} seeds, {d} coefficients\n")
    print("| model | C | epsilon | non-zero coefficients | test accuracy |")
    print("|---|---|---|---|---|")
    for C in Cs:
        for eps in epsilons:
            for l1_ratio in (1.0, 0.0):
                fits = [
                    DPLogisticRegression(
                        epsilon=eps,
                        delta=DELTA,
                        classes=[0, 1],
                        C=C,
                        l1_ratio=l1_ratio,
                        random_state=seed,
                    ).fit(X_train, y_train)
                    for seed in range(seeds)
                ]
                nnz = np.mean([np.count_nonzero(f.coef_) for f in fits])
                acc = np.mean([f.score(X_test, y_test) for f in fits])
                print(
                    f"| DPLogisticRegression(l1_ratio={l1_ratio:g}) | {C:g} | "
                    f"{eps:g} | {nnz:.1f} of {d} | {acc:.4f} |"
                )
        model = _fit_sklearn(C, X_train, y_train)
        print(
            f"| scikit-learn LogisticRegression(l1_ratio=1, solver='saga'), "
            f"non-private | {C:g} | - | {np.count_nonzero(model.coef_)} of {d} | "
            f"{model.score(X_test, y_test):.4f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 4.0])
    parser.add_argument("--C", type=float, nargs="+", default=[0.05])
    args = parser.parse_args()
    with warnings.catch_warnings():
        # Fixed seeds make the benchmark reproducible (PrivacyLeakWarning).
        warnings.simplefilter("ignore")
        main(args.data_home, args.seeds, args.epsilons, args.C)
