"""Class weights on imbalanced data: Bank (11.7% positives) at epsilon 1.

    python benchmarks/bench_class_weight.py [--data-home DIR] [--seeds 5]

The protocol of ``benchmarks/bench_accuracy.py``: Bank 80/20 stratified with
random_state=0 (``load_benchmark_split``), one-hot + min-max + unit-norm rows
(``paper_preprocessor``), delta = 1e-8. Prints the mean (and standard deviation)
over the seeds of the test accuracy and balanced accuracy of
``DPLogisticRegression`` and ``DPHuberSVM`` at epsilon 1 with every parameter at
its default, without class weights and with ``class_weight="balanced"`` (noisy
class counts at 1% of the budget), next to scikit-learn's
``LogisticRegression`` with and without ``class_weight="balanced"``.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.schedules import AdaptiveStepSchedule

EPSILON = 1.0
DELTA = 1e-8


def _scores(model, X_test, y_test):
    pred = model.predict(X_test)
    return accuracy_score(y_test, pred), balanced_accuracy_score(y_test, pred)


def _row(name, scores):
    scores = np.asarray(scores)
    mean, std = scores.mean(axis=0), scores.std(axis=0)
    print(f"| {name} | {mean[0]:.3f} ± {std[0]:.3f} | {mean[1]:.3f} ± {std[1]:.3f} |")


def main(data_home, seeds):
    X_train, X_test, y_train, y_test = load_benchmark_split("bank", data_home)
    pre = paper_preprocessor().fit(X_train)
    X_train = np.ascontiguousarray(pre.transform(X_train))
    X_test = pre.transform(X_test)
    y_train, y_test = y_train.to_numpy(), y_test.to_numpy()
    print(
        f"\n### Bank, epsilon={EPSILON:g}, delta={DELTA:g}, {seeds} seeds "
        f"(positives: {y_train.mean():.1%} of {len(y_train)} training rows)\n"
    )
    print("| model | test accuracy | test balanced accuracy |")
    print("|---|---|---|")
    settings = [(Estimator, {}) for Estimator in (DPLogisticRegression, DPHuberSVM)]
    # The minibatch and adaptive variants of "balanced" (the counts composed with
    # the subsampled plan; the adaptive filter's first records).
    settings += [
        (DPLogisticRegression, {"batch_size": 2000}),
        (DPLogisticRegression, {"schedule": AdaptiveStepSchedule()}),
    ]
    for Estimator, extra in settings:
        for class_weight in (None, "balanced"):
            start = time.perf_counter()
            scores = [
                _scores(
                    Estimator(
                        epsilon=EPSILON,
                        delta=DELTA,
                        classes=[0, 1],
                        class_weight=class_weight,
                        random_state=seed,
                        **extra,
                    ).fit(X_train, y_train),
                    X_test,
                    y_test,
                )
                for seed in range(seeds)
            ]
            shown = "".join(
                f", {k}={type(v).__name__ + '()' if k == 'schedule' else repr(v)}"
                for k, v in extra.items()
            )
            label = f"{Estimator.__name__}(class_weight={class_weight!r}{shown})"
            _row(label, scores)
            print(f"<!-- {time.perf_counter() - start:.0f} s -->")
    for class_weight in (None, "balanced"):
        model = LogisticRegression(class_weight=class_weight, max_iter=1000)
        model.fit(X_train, y_train)
        _row(
            f"scikit-learn LogisticRegression(class_weight={class_weight!r}), "
            "non-private",
            [_scores(model, X_test, y_test)],
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    with warnings.catch_warnings():
        # Fixed seeds make the benchmark reproducible (PrivacyLeakWarning).
        warnings.simplefilter("ignore")
        main(args.data_home, args.seeds)
