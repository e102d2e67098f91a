"""Calibration of DPLogisticRegression's probabilities next to scikit-learn's.

    python benchmarks/bench_calibration.py [--data-home DIR] [--seeds 3]
        [--epsilons 0.1 1 4] [--alpha auto] [--calibration auto]
    python benchmarks/bench_calibration.py --holdout [--seeds 3]
    python benchmarks/bench_calibration.py --generalisation [--seeds 3]
    python benchmarks/bench_calibration.py --temperature [--seeds 5]

Adult's standard split, delta = 1e-8, ``classes=[0, 1]``, every other parameter
at its default (``--alpha 0`` reproduces the former default without a penalty).
Three preprocessing recipes:

* unit-norm: the papers' recipe of the accuracy benchmark
  (:func:`sklearn_dpgd.datasets.paper_preprocessor`: one-hot + min-max + rows
  scaled to unit L2 norm);
* standardised: one-hot categories + ``StandardScaler`` on the numeric columns,
  rows not normalised (what a scikit-learn user writes first);
* standardised + unit-norm: the same, then rows scaled to unit L2 norm
  (``Normalizer``), the remedy for the clipping bias of the user guide.

For each: test accuracy, log-loss, expected calibration error (15 equal-width
bins of the predicted probability of the positive class; Guo, Pleiss, Sun &
Weinberger, ICML 2017, Sec. 2, on the binary top-label form), the share of
probabilities below 0.001 or above 0.999, and the largest ``|coef|``: means over
the seeds, next to scikit-learn's ``LogisticRegression()`` (C = 1).

``--holdout`` prints the evidence on the cost of the default penalty where the
defaults are set: 80/20 holdouts of Adult's and Bank's *training* splits (never
their test splits), unit-norm rows, accuracy and log-loss with ``alpha="auto"``
and ``alpha=0`` at epsilon 0.4 and 1.6.

``--calibration none`` turns off the temperature scaling that ends binary fits
(the former default; ``temperature`` forces it where "auto" would skip it).

``--temperature`` prints the evidence for when ``calibration="auto"`` scales:
binary tasks of various sizes (breast cancer; synthetic ``make_classification``
tasks of 2,000, 10,000 and 20,000 rows), standardised or unit-norm rows, 80/20
splits, delta = 1e-5, epsilon 1 and 4: accuracy / log-loss with the stage forced
on, off, and as "auto" decides, next to the signal ``sqrt(0.02) m mu`` that
"auto" compares with 300.

``--generalisation`` prints the same comparison on the data sets of
``bench_accuracy.py``'s generalisation check (breast cancer, digits, a 3-class
synthetic problem; 80/20 test splits, min-max + unit-norm rows, delta = 1e-5,
epsilon 1 and 4) next to ``LogisticRegression()``: a report on data the default
was not chosen on, never used to choose it.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    StandardScaler,
)

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.linear_model._calibration import CALIBRATION_SHARE

N_BINS = 15


def standardised_preprocessor():
    """One-hot categories and standardised numeric columns, rows not normalised."""
    return ColumnTransformer(
        [
            (
                "categorical",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                make_column_selector(dtype_include="category"),
            ),
            ("numeric", StandardScaler(), make_column_selector(dtype_include="number")),
        ],
        sparse_threshold=0.0,
    )


def standardised_unit_norm_preprocessor():
    """The standardised recipe with every row then scaled to unit L2 norm."""
    return make_pipeline(standardised_preprocessor(), Normalizer())


RECIPES = {
    "unit-norm": paper_preprocessor,
    "standardised": standardised_preprocessor,
    "standardised + unit-norm": standardised_unit_norm_preprocessor,
}


def expected_calibration_error(y_true, proba, n_bins=N_BINS):
    """Binary ECE: sum over equal-width bins of |mean label - mean probability|.

    Each bin is weighted by its share of the rows (Guo et al., ICML 2017, eq. 3,
    with the probability of the positive class as the confidence).
    """
    bins = np.minimum((proba * n_bins).astype(int), n_bins - 1)
    ece = 0.0
    for b in range(n_bins):
        in_bin = bins == b
        if in_bin.any():
            gap = abs(y_true[in_bin].mean() - proba[in_bin].mean())
            ece += in_bin.mean() * gap
    return ece


def scores(model, X, y):
    """(accuracy, log-loss, ECE, extreme share, largest |coef|) of a fitted model."""
    proba = model.predict_proba(X)[:, 1]
    return (
        float(np.mean((proba > 0.5) == y)),
        float(log_loss(y, proba)),
        expected_calibration_error(y, proba),
        float(np.mean((proba < 1e-3) | (proba > 1.0 - 1e-3))),
        float(np.abs(model.coef_).max()),
    )


def _row(name, cells):
    acc, loss, ece, extreme, coef = cells
    print(
        f"| {name} | {acc:.4f} | {loss:.4f} | {ece:.4f} | {extreme:.3f} | {coef:.2f} |",
        flush=True,
    )


def holdout(data_home, seeds):
    """Accuracy / log-loss with and without the penalty on training holdouts."""
    print(
        f"\n### Holdouts of the training splits (unit-norm rows, delta=1e-8, "
        f"{seeds} seeds; accuracy / log-loss)\n"
    )
    print('| data | eps | alpha="auto" | alpha=0 |')
    print("|---|---|---|---|")
    for dataset in ("adult", "bank"):
        X, _, y, _ = load_benchmark_split(dataset, data_home)
        X_fit, X_val, y_fit, y_val = train_test_split(
            X, y.to_numpy(), test_size=0.2, stratify=y, random_state=0
        )
        pre = paper_preprocessor().fit(X_fit)
        X_fit = np.ascontiguousarray(pre.transform(X_fit))
        X_val = pre.transform(X_val)
        for eps in (0.4, 1.6):
            cells = []
            for alpha in ("auto", 0.0):
                fits = [
                    DPLogisticRegression(
                        epsilon=eps,
                        delta=1e-8,
                        classes=[0, 1],
                        alpha=alpha,
                        random_state=seed,
                    ).fit(X_fit, y_fit)
                    for seed in range(seeds)
                ]
                acc = np.mean([f.score(X_val, y_val) for f in fits])
                loss = np.mean([log_loss(y_val, f.predict_proba(X_val)) for f in fits])
                cells.append(f"{acc:.4f} / {loss:.4f}")
            print(f"| {dataset} | {eps:g} | " + " | ".join(cells) + " |", flush=True)


def temperature_study(seeds):
    """Accuracy / log-loss with the temperature stage on, off and "auto"."""
    print(
        f"\n### Temperature scaling on binary tasks (delta=1e-5, {seeds} seeds; "
        "test accuracy / log-loss)\n"
    )
    print(
        '| data | rows | eps | sqrt(0.02) m mu | "auto" ran | "temperature" | '
        "None | LogisticRegression() |"
    )
    print("|---|---|---|---|---|---|---|---|")
    tasks = [("breast cancer", load_breast_cancer(return_X_y=True))]
    for n in (2000, 10000, 20000):
        tasks.append(
            (
                f"synthetic {n:,}",
                make_classification(n, 20, n_informative=5, random_state=0),
            )
        )
    recipes = {
        "standardised": StandardScaler,
        "unit-norm": lambda: make_pipeline(MinMaxScaler(clip=True), Normalizer()),
    }
    for name, (X, y) in tasks:
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=0
        )
        for recipe, make_preprocessor in recipes.items():
            pre = make_preprocessor().fit(X_train)
            X_fit, X_val = (
                np.ascontiguousarray(pre.transform(X_train)),
                pre.transform(X_test),
            )
            ref = LogisticRegression(max_iter=5000).fit(X_fit, y_train)
            ref_cell = (
                f"{ref.score(X_val, y_test):.4f} / "
                f"{log_loss(y_test, ref.predict_proba(X_val)):.4f}"
            )
            for eps in (1.0, 4.0):
                cells, ran = [], None
                for calibration in ("temperature", None, "auto"):
                    fits = [
                        DPLogisticRegression(
                            epsilon=eps,
                            delta=1e-5,
                            classes=[0, 1],
                            calibration=calibration,
                            random_state=seed,
                        ).fit(X_fit, y_train)
                        for seed in range(seeds)
                    ]
                    acc = np.mean([f.score(X_val, y_test) for f in fits])
                    loss = np.mean(
                        [log_loss(y_test, f.predict_proba(X_val)) for f in fits]
                    )
                    cells.append(f"{acc:.4f} / {loss:.4f}")
                    if calibration == "auto":
                        ran = sum(f.calibration_ is not None for f in fits)
                signal = (
                    np.sqrt(CALIBRATION_SHARE)
                    * fits[0].public_n_samples_
                    * gdp_mu(eps, 1e-5)
                )
                print(
                    f"| {name} | {recipe} | {eps:g} | {signal:.0f} | "
                    f"{ran}/{seeds} | {cells[0]} | {cells[1]} | {ref_cell} |",
                    flush=True,
                )


def generalisation(seeds):
    """Accuracy / log-loss with and without the penalty on other data sets."""
    print(
        f"\n### Generalisation (unit-norm rows, delta=1e-5, {seeds} seeds; "
        "test accuracy / log-loss)\n"
    )
    print('| data | eps | alpha="auto" | alpha=0 | LogisticRegression() |')
    print("|---|---|---|---|---|")
    synthetic = make_classification(
        n_samples=20000,
        n_features=40,
        n_informative=15,
        n_classes=3,
        n_clusters_per_class=2,
        flip_y=0.05,
        random_state=0,
    )
    for name, (X, y) in (
        ("breast cancer", load_breast_cancer(return_X_y=True)),
        ("digits", load_digits(return_X_y=True)),
        ("synthetic, 3 classes", synthetic),
    ):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=0
        )
        pre = make_pipeline(MinMaxScaler(clip=True), Normalizer()).fit(X_train)
        X_train = np.ascontiguousarray(pre.transform(X_train))
        X_test = pre.transform(X_test)
        classes = np.unique(y)  # public: the label set of a public data set
        reference = LogisticRegression(max_iter=5000).fit(X_train, y_train)
        ref = (
            f"{reference.score(X_test, y_test):.4f} / "
            f"{log_loss(y_test, reference.predict_proba(X_test)):.4f}"
        )
        for eps in (1.0, 4.0):
            cells = []
            for alpha in ("auto", 0.0):
                fits = [
                    DPLogisticRegression(
                        epsilon=eps,
                        delta=1e-5,
                        classes=classes,
                        alpha=alpha,
                        random_state=seed,
                    ).fit(X_train, y_train)
                    for seed in range(seeds)
                ]
                acc = np.mean([f.score(X_test, y_test) for f in fits])
                loss = np.mean(
                    [
                        log_loss(y_test, f.predict_proba(X_test), labels=classes)
                        for f in fits
                    ]
                )
                cells.append(f"{acc:.4f} / {loss:.4f}")
            print(
                f"| {name} | {eps:g} | " + " | ".join(cells) + f" | {ref} |",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0, 4.0])
    parser.add_argument(
        "--alpha",
        default="auto",
        help='alpha of DPLogisticRegression ("auto", the default, or a number)',
    )
    parser.add_argument(
        "--calibration",
        default="auto",
        choices=["auto", "temperature", "none"],
        help="calibration of DPLogisticRegression (default: auto)",
    )
    parser.add_argument(
        "--temperature",
        action="store_true",
        help="only when the temperature stage pays, on binary tasks of various sizes",
    )
    parser.add_argument(
        "--holdout",
        action="store_true",
        help="only the cost of the penalty on holdouts of the training splits",
    )
    parser.add_argument(
        "--generalisation",
        action="store_true",
        help="only the penalty's effect on breast cancer, digits and a synthetic set",
    )
    args = parser.parse_args()
    if args.temperature:
        warnings.simplefilter("ignore", category=UserWarning)
        temperature_study(args.seeds)
        return
    if args.generalisation:
        warnings.simplefilter("ignore", category=UserWarning)
        generalisation(args.seeds)
        return
    if args.holdout:
        warnings.simplefilter("ignore", category=UserWarning)
        holdout(args.data_home, args.seeds)
        return
    alpha = args.alpha if args.alpha == "auto" else float(args.alpha)
    calibration = None if args.calibration == "none" else args.calibration
    warnings.simplefilter("ignore", category=UserWarning)
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", args.data_home)
    y_train, y_test = y_train.to_numpy(), y_test.to_numpy()
    for recipe, make_preprocessor in RECIPES.items():
        pre = make_preprocessor().fit(X_train)
        Xf = np.ascontiguousarray(pre.transform(X_train))
        Xt = pre.transform(X_test)
        print(
            f"\n### Adult, {recipe} rows (delta=1e-8, {args.seeds} seeds, "
            f"alpha={args.alpha}, calibration={args.calibration})\n"
        )
        print(
            "| model | accuracy | log-loss | ECE | p<1e-3 or >1-1e-3 | max abs coef |"
        )
        print("|---|---|---|---|---|---|")
        _row(
            "scikit-learn LogisticRegression",
            scores(LogisticRegression(max_iter=2000).fit(Xf, y_train), Xt, y_test),
        )
        for eps in args.epsilons:
            start = time.perf_counter()
            cells = np.mean(
                [
                    scores(
                        DPLogisticRegression(
                            epsilon=eps,
                            delta=1e-8,
                            classes=[0, 1],
                            alpha=alpha,
                            calibration=calibration,
                            random_state=seed,
                        ).fit(Xf, y_train),
                        Xt,
                        y_test,
                    )
                    for seed in range(args.seeds)
                ],
                axis=0,
            )
            _row(
                f"DPLogisticRegression eps={eps:g} "
                f"({time.perf_counter() - start:.0f} s)",
                cells,
            )


if __name__ == "__main__":
    main()
