"""The main job: private vs non-private accuracy table on a real data set.

``python -m sklearn_dpgd`` trains on scikit-learn's embedded breast-cancer data;
``python -m sklearn_dpgd --dataset adult`` on Adult, downloaded from the UCI
repository into the data home on first use (``--data-home DIR``, default
``$SKLEARN_DPGD_DATA``, else scikit-learn's data home; see
:func:`sklearn_dpgd.datasets.fetch_adult`). The table has the end-to-end private
pipeline (:func:`sklearn_dpgd.datasets.private_pipeline`: from the raw data,
every step private, the whole epsilon) first, then the classifier alone on the
papers' non-private preprocessing (MinMax scaling read from the training split,
unit-norm rows), per schedule.
"""

import argparse
import sys
import time
import warnings
from functools import partial

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from . import (
    DPLogisticRegression,
    ExponentialDecaySchedule,
    UniformSchedule,
    UtilityWarning,
)
from .datasets import load_benchmark_split, paper_preprocessor, private_pipeline

EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0)
SCHEDULES = {
    "uniform": UniformSchedule(),
    "exp. decay 0.998": ExponentialDecaySchedule(0.998),
}


PIPELINE = "private pipeline"


def _load(dataset, data_home):
    """Return (X_train, X_test, y_train, y_test, preprocessor, description).

    Also the private end-to-end recipe of the data set.
    """
    if dataset == "breast_cancer":
        from sklearn.datasets import load_breast_cancer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import MinMaxScaler, Normalizer

        X, y = load_breast_cancer(return_X_y=True)
        split = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        pre = make_pipeline(MinMaxScaler(clip=True), Normalizer())
        description = "breast cancer (scikit-learn), 80/20 stratified split"
        return (*split, pre, description, partial(private_pipeline, dataset))
    description = {
        "adult": "Adult, standard train/test split",
        "bank": "Bank, 80/20 stratified split",
    }[dataset]
    split = load_benchmark_split(dataset, data_home)
    return (
        *split,
        paper_preprocessor(),
        description,
        partial(private_pipeline, dataset),
    )


def _fit_pipeline(recipe, epsilon, delta, seed, raw):
    """Test accuracy and spent epsilon of the recipe fitted on the raw split."""
    X_train, X_test, y_train, y_test = raw
    model = recipe(epsilon=epsilon, delta=delta, random_state=seed)
    model.fit(X_train, y_train)
    return model.score(X_test, y_test), model.epsilon_


def run(
    dataset="breast_cancer",
    data_home=None,
    epsilons=EPSILONS,
    delta=1e-8,
    n_seeds=3,
    out=None,
):
    """Print the accuracy table; return it as a dict ``{(row, column): value}``.

    Rows are epsilons, columns the schedules (mean test accuracy over ``n_seeds``
    seeds, default hyperparameters) and the spent epsilon; the non-private
    :class:`~sklearn.linear_model.LogisticRegression` is the reference line. The
    first column, ``"private pipeline"``, is
    :func:`~sklearn_dpgd.datasets.private_pipeline` fitted on the raw data
    (every step private, total ``epsilon``; its spend under
    ``"private pipeline spent"``).
    """
    out = sys.stdout if out is None else out  # the stream current at the call
    data = _load(dataset, data_home)
    X_train, X_test, y_train, y_test, pre, description, recipe = data
    raw = (X_train, X_test, y_train, y_test)
    pre = clone(pre).fit(X_train)
    X_train, X_test = pre.transform(X_train), pre.transform(X_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    classes = np.unique(y_train)  # the label set of these public data sets

    start = time.perf_counter()
    reference = LogisticRegression(max_iter=1000).fit(X_train, y_train)
    ref_acc = reference.score(X_test, y_test)

    print(f"sklearn-dpgd: DPLogisticRegression on {description}", file=out)
    print(
        f"n_train={X_train.shape[0]}, n_features={X_train.shape[1]}, delta={delta:g}, "
        f"mean test accuracy over {n_seeds} seeds, default hyperparameters",
        file=out,
    )
    header = f"{'epsilon':>8} | {PIPELINE:>16} | {'spent':>7} | "
    header += " | ".join(f"{s:>15}" for s in SCHEDULES)
    header += f" | {'non-private':>11} | {'spent epsilon':>13} | {'steps':>5}"
    print(
        f"{PIPELINE}: raw data, all steps private (datasets.private_pipeline), "
        "total epsilon as given;\n"
        f"classifier only ({', '.join(SCHEDULES)}): DPLogisticRegression on the "
        "papers' non-private preprocessing (MinMaxScaler + Normalizer); "
        "non-private: scikit-learn's LogisticRegression on the same",
        file=out,
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    table = {}
    for eps in epsilons:
        cells, spent, steps = [], 0.0, 0
        for name, schedule in SCHEDULES.items():
            accs = []
            for seed in range(n_seeds):
                clf = DPLogisticRegression(
                    epsilon=eps,
                    delta=delta,
                    schedule=schedule,
                    classes=classes,
                    # These data sets are public, and so is their size: declared,
                    # it spares the 1% of the budget a private count would cost.
                    public_n_samples=X_train.shape[0],
                    random_state=seed,
                ).fit(X_train, y_train)
                accs.append(clf.score(X_test, y_test))
                spent, steps = max(spent, clf.epsilon_), clf.n_iter_
            table[eps, name] = float(np.mean(accs))
            cells.append(f"{np.mean(accs):>8.4f}+-{np.std(accs):.3f}")
        table[eps, "spent epsilon"] = spent
        runs = [_fit_pipeline(recipe, eps, delta, seed, raw) for seed in range(n_seeds)]
        accs = [acc for acc, _ in runs]
        table[eps, PIPELINE] = float(np.mean(accs))
        table[eps, PIPELINE + " spent"] = max(e for _, e in runs)
        first = f"{np.mean(accs):>9.4f}+-{np.std(accs):.3f}"
        first += f" | {table[eps, PIPELINE + ' spent']:>7.4g} | "
        row = f" | {ref_acc:>11.4f} | {spent:>13.4g} | {steps:>5d}"
        print(f"{eps:>8g} | " + first + " | ".join(cells) + row, file=out)
    print(
        f"({time.perf_counter() - start:.1f} s. The classifier-only columns read "
        "the preprocessing's min/max (and categories) from the training split and "
        "treat them as public, as in the papers: not private.)",
        file=out,
    )
    return table


def main(argv=None):
    """Command-line entry point (``python -m sklearn_dpgd --help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_dpgd",
        description="Test accuracy of DPLogisticRegression vs epsilon, per schedule, "
        "next to scikit-learn's non-private LogisticRegression.",
    )
    parser.add_argument(
        "--dataset", choices=["breast_cancer", "adult", "bank"], default="breast_cancer"
    )
    parser.add_argument(
        "--data-home",
        default=None,
        help="folder holding adult/ and bank/ (default: $SKLEARN_DPGD_DATA, else "
        "scikit-learn's data home); Adult is downloaded into it on first use",
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per cell")
    parser.add_argument("--delta", type=float, default=1e-8)
    parser.add_argument(
        "--epsilons", type=float, nargs="+", default=list(EPSILONS), metavar="EPS"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    try:
        with warnings.catch_warnings():
            # Fixed seeds make the table reproducible; they also make the noise
            # subtractable, so they warn: never use one for a release.
            warnings.filterwarnings(
                "ignore", message=r".*random_state=.* fixes the noise"
            )
            # The table shows which cells are no better than the majority class.
            warnings.filterwarnings("ignore", category=UtilityWarning)
            run(args.dataset, args.data_home, args.epsilons, args.delta, args.seeds)
    except (OSError, ValueError) as exc:  # missing or corrupt data files
        parser.exit(2, f"error: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
