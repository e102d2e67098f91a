"""solver="newton" against the default (solver="gd") and scikit-learn (issue 34).

    python benchmarks/bench_newton.py [--seeds 5] [--data-home DIR]
        [--datasets adult bank breast_cancer digits_binary]

For each data set, epsilon in {0.1, 0.4, 1.6} and seed: the default
``DPLogisticRegression`` (every parameter at its default), the same with
``solver="newton"``, and scikit-learn's ``LogisticRegression()`` are fitted in turn
in this one process (the three sides alternate within each seed, so that load from
other processes hits them alike). Printed: mean test accuracy over the seeds of
each, and the medians over the seeds of the fit-time ratios Newton / scikit-learn
and Newton / default. Only ratios are reported: absolute times on a shared machine
mean little.

Data: Adult (standard split) and Bank (80/20 stratified, random_state=0) with the
protocol of ``benchmarks/bench_adult.py`` (one-hot + min-max + unit-norm rows,
delta = 1e-8); scikit-learn's breast cancer and digits (binary: digit >= 5), on which
no default of the package was set, split 80/20 stratified (random_state=0),
min-max + unit-norm rows, delta = 1e-5. ``classes`` is given (public labels) and
the public size is estimated by the fit (add/remove neighbouring), as by default.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

EPSILONS = (0.1, 0.4, 1.6)


def _benchmark_data(name, data_home):
    X_train, X_test, y_train, y_test = load_benchmark_split(name, data_home)
    pre = paper_preprocessor().fit(X_train)
    classes = np.unique(y_train)
    return (
        np.ascontiguousarray(pre.transform(X_train)),
        pre.transform(X_test),
        (y_train.to_numpy() == classes[1]).astype(int),
        (y_test.to_numpy() == classes[1]).astype(int),
        1e-8,
    )


def _embedded_data(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        X, y = load_digits(return_X_y=True)
        y = (y >= 5).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    scaler = MinMaxScaler(clip=True).fit(X_train)
    norm = Normalizer()
    return (
        np.ascontiguousarray(norm.transform(scaler.transform(X_train))),
        norm.transform(scaler.transform(X_test)),
        y_train,
        y_test,
        1e-5,
    )


def _timed_fit(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model, time.perf_counter() - start


def run(name, data_home, seeds):
    if name in ("adult", "bank"):
        X, X_test, y, y_test, delta = _benchmark_data(name, data_home)
    else:
        X, X_test, y, y_test, delta = _embedded_data(name)
    # Warm-up: Numba compilation and first-call costs are not what is compared.
    for solver in ("gd", "newton"):
        _timed_fit(DPLogisticRegression(solver=solver, classes=[0, 1]), X, y)
    rows = []
    for epsilon in EPSILONS:
        acc = {"gd": [], "newton": [], "sklearn": []}
        vs_sklearn, vs_gd = [], []
        for seed in range(seeds):
            common = dict(epsilon=epsilon, delta=delta, classes=[0, 1])
            fits = {
                "gd": DPLogisticRegression(**common, random_state=seed),
                "newton": DPLogisticRegression(
                    **common, solver="newton", random_state=seed
                ),
                "sklearn": LogisticRegression(),
            }
            times = {}
            for key, model in fits.items():
                model, times[key] = _timed_fit(model, X, y)
                acc[key].append(model.score(X_test, y_test))
            vs_sklearn.append(times["newton"] / times["sklearn"])
            vs_gd.append(times["newton"] / times["gd"])
        rows.append(
            (
                name,
                epsilon,
                np.mean(acc["gd"]),
                np.mean(acc["newton"]),
                np.mean(acc["sklearn"]),
                np.median(vs_sklearn),
                np.median(vs_gd),
            )
        )
        print(_format(rows[-1]), flush=True)
    return rows


def _format(row):
    name, eps, gd, newton, sk, r_sk, r_gd = row
    return (
        f"| {name} | {eps:g} | {gd:.4f} | {newton:.4f} | {newton - gd:+.4f} | "
        f"{sk:.4f} | {r_sk:.2f} | {r_gd:.2f} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data-home", default=None)
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["adult", "bank", "breast_cancer", "digits_binary"],
    )
    args = parser.parse_args()
    print(
        "| data | epsilon | default (gd) | newton | newton - default | "
        "sklearn LR | time newton/sklearn | time newton/default |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        run(name, args.data_home, args.seeds)


if __name__ == "__main__":
    main()
