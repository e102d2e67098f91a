"""Multiclass ``solver="pgd"`` against ``solver="gd"`` and scikit-learn (issue 42).

    python benchmarks/bench_multiclass_solver.py [--seeds 8] [--holdout]
        [--rows 40000] [--tables digits,synth5,synth50]

For each table, epsilon in {0.4, 1.6, 4} and seed, three fits alternate in this
one process on one thread (``threadpoolctl.threadpool_limits(1)`` and
``NUMBA_NUM_THREADS=1``, set before Numba is imported):
``DPLogisticRegression(solver="gd")`` and ``solver="pgd"`` (every other
parameter at its default; ``public_n_samples`` = the training rows, the papers'
protocol) and scikit-learn's ``LogisticRegression(max_iter=1000)``.

Printed: mean accuracy (%) over the seeds with its standard error, "pgd - gd"
in points, and the medians over the seeds of the fit-time ratios to
scikit-learn's fit of the same seed (only ratios: absolute times on a shared
machine mean little). ``--holdout`` scores on a 20% holdout of the *training*
rows (the test split is never read): the numbers any rule or constant is
judged on; without it, on the test split.

Tables: scikit-learn's digits (1,797 x 64, 10 classes; 80/20 stratified,
random_state=0, delta 1e-5) and ``make_classification`` tables (``--rows``
rows, 20 features of which 16 informative, one cluster per class, 5 and 50
classes, class_sep 2; 80/20 split, delta 1e-6), and Adult's ``education`` (16
levels) from its other columns (``education-num``, a code of the target,
dropped; one-hot categories; the standard split, delta 1e-8; ``--data-home`` or
``SKLEARN_DPGD_DATA``). Every table is min-max scaled on its training split and
its rows scaled to norm 1 (``Normalizer``).
"""

import os
import sys

# One thread each (the headline); --default-threads: the libraries' own threads,
# for the table beside it (read before Numba is imported).
if "--default-threads" not in sys.argv:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.datasets import load_digits, make_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import (  # noqa: E402
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
)
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.datasets import fetch_adult  # noqa: E402

EPSILONS = (0.4, 1.6, 4.0)


def _adult_education(data_home):
    """Adult's education (16 levels) from the other columns (education-num,
    its code, dropped): one-hot categories and the numeric columns as is."""
    parts = [fetch_adult(data_home, subset=s) for s in ("train", "test")]
    X_train, X_test = (
        X.drop(columns=["education", "education-num"]) for X, _ in parts
    )
    y_train, y_test = (X["education"].astype(str).to_numpy() for X, _ in parts)
    categorical = X_train.select_dtypes(exclude="number").columns
    encode = make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical),
        remainder="passthrough",
    ).fit(X_train)
    return encode.transform(X_train), encode.transform(X_test), y_train, y_test, 1e-8


def _table(name, rows, data_home=None):
    if name == "adult_edu":
        return _adult_education(data_home)
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        delta = 1e-5
    else:
        n_classes = int(name.removeprefix("synth"))
        X, y = make_classification(
            n_samples=rows, n_features=20, n_informative=16, n_redundant=2,
            n_classes=n_classes, n_clusters_per_class=1, class_sep=2.0,
            random_state=0,
        )  # fmt: skip
        delta = 1e-6
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    return X_train, X_test, y_train, y_test, delta


def _prepare(X_train, X_test):
    pre = make_pipeline(MinMaxScaler(clip=True), Normalizer()).fit(X_train)
    return np.ascontiguousarray(pre.transform(X_train)), pre.transform(X_test)


def _timed(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model, time.perf_counter() - start


def _row(name, epsilon, scores, times):
    def mean_se(values):
        values = 100 * np.asarray(values)
        return values.mean(), values.std(ddof=1) / np.sqrt(len(values))

    gd, gd_se = mean_se(scores["gd"])
    pgd, pgd_se = mean_se(scores["pgd"])
    sk = 100 * np.mean(scores["sklearn"])
    sk_times = np.array(times["sklearn"])
    ratio = {s: np.median(np.array(times[s]) / sk_times) for s in times}
    print(
        f"{name:8s} {epsilon:4.1f} {gd:6.2f}±{gd_se:4.2f} {pgd:6.2f}±{pgd_se:4.2f} "
        f"{pgd - gd:+6.2f} {sk:6.2f} {ratio['gd']:7.1f}x {ratio['pgd']:7.1f}x"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--rows", type=int, default=40000)
    parser.add_argument("--holdout", action="store_true")
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="default BLAS and Numba threads (the table beside the one-thread one)",
    )
    parser.add_argument("--tables", default="digits,synth5,synth50,adult_edu")
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args()
    print(
        f"{'table':8s} {'eps':>4s} {'gd %':>11s} {'pgd %':>11s} {'diff':>6s} "
        f"{'sklearn':>6s} {'gd/skl':>8s} {'pgd/skl':>8s}"
        f"   ({'holdout of the training rows' if args.holdout else 'test split'}; "
        f"{'default threads' if args.default_threads else 'one thread'}; "
        f"load {os.getloadavg()[0]:.1f})"
    )
    for name in args.tables.split(","):
        X_train, X_test, y_train, y_test, delta = _table(
            name, args.rows, args.data_home
        )
        if args.holdout:
            X_train, X_test, y_train, y_test = train_test_split(
                X_train, y_train, test_size=0.2, stratify=y_train, random_state=1
            )
        X_train, X_test = _prepare(X_train, X_test)
        classes = np.unique(y_train)
        for epsilon in EPSILONS:
            scores = {"gd": [], "pgd": [], "sklearn": []}
            times = {"gd": [], "pgd": [], "sklearn": []}
            for seed in range(args.seeds):
                with threadpool_limits(None if args.default_threads else 1):
                    models = {
                        s: DPLogisticRegression(
                            solver=s, epsilon=epsilon, delta=delta, classes=classes,
                            public_n_samples=len(y_train), random_state=seed,
                        )  # fmt: skip
                        for s in ("gd", "pgd")
                    }
                    models["sklearn"] = LogisticRegression(max_iter=1000)
                    for key, model in models.items():
                        fitted, seconds = _timed(model, X_train, y_train)
                        scores[key].append(fitted.score(X_test, y_test))
                        times[key].append(seconds)
            _row(name, epsilon, scores, times)


if __name__ == "__main__":
    main()
