"""Private hyperparameter tuning on Adult at one total budget.

Run from the repository root (Adult is downloaded on first use; see --data-home)::

    python benchmarks/bench_tuning.py [--data-home DIR] [--seeds 5]

Protocol: Adult's standard split, the papers' preprocessing
(:func:`sklearn_dpgd.datasets.paper_preprocessor`), total budget epsilon = 1,
delta = 1e-8, mean and std of test accuracy over the seeds. Rows:

- ``DPLogisticRegression`` with its defaults at the whole budget (no tuning);
- a plain ``GridSearchCV`` (3 folds) whose fits are calibrated so that all of them,
  composed exactly by a :class:`~sklearn_dpgd.accounting.PrivacyLedger`, spend the
  budget; its choice of the winner is *not* private (an unpaid leak); the
  slowest row, so it runs for the first ``--naive-seeds`` seeds only (default 2);
- :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` over the same grid;
- :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` with its default grid
  (``param_grid=None``);
- :class:`~sklearn_dpgd.model_selection.LinearScalingSearch` with its defaults.

The spent epsilon column is what the ledger (or ``epsilon_``) reports.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger, gdp_epsilon, gdp_mu
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV

EPSILON = 1.0
DELTA = 1e-8
GRID = {"learning_rate": [0.5, 2.0, 8.0], "max_iter": [50, 200]}
FOLDS = 3


def _prepared(data_home):
    X_train, X_test, y_train, y_test = load_benchmark_split("adult", data_home)
    pre = paper_preprocessor().fit(X_train)
    return (
        np.ascontiguousarray(pre.transform(X_train)),
        pre.transform(X_test),
        y_train.to_numpy(),
        y_test.to_numpy(),
    )


def _runs(X_train, y_train, seed, naive=True):
    """(name, fitted model, epsilon spent) of each method for one seed."""
    base = DPLogisticRegression(delta=DELTA, classes=[0, 1])
    yield (
        "DPLogisticRegression, defaults",
        base.set_params(epsilon=EPSILON, random_state=seed).fit(X_train, y_train),
        None,
    )
    pgs = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]),
        GRID,
        epsilon=EPSILON,
        delta=DELTA,
        random_state=seed,
    ).fit(X_train, y_train)
    yield "PrivateGridSearchCV", pgs, pgs.epsilon_
    default = PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]),
        epsilon=EPSILON,
        delta=DELTA,
        random_state=seed,
    ).fit(X_train, y_train)
    yield "PrivateGridSearchCV, default grid", default, default.epsilon_
    lss = LinearScalingSearch(
        DPLogisticRegression(classes=[0, 1]),
        epsilon=EPSILON,
        delta=DELTA,
        random_state=seed,
    ).fit(X_train, y_train)
    yield "LinearScalingSearch", lss, lss.epsilon_
    if not naive:
        return
    # Each of the k * folds + 1 fits gets mu / sqrt(k * folds + 1): together mu.
    n_fits = len(GRID["learning_rate"]) * len(GRID["max_iter"]) * FOLDS + 1
    eps_fit = gdp_epsilon(gdp_mu(EPSILON, DELTA) / np.sqrt(n_fits), DELTA)
    ledger = PrivacyLedger()
    with ledger:
        search = GridSearchCV(
            DPLogisticRegression(
                epsilon=eps_fit, delta=DELTA, classes=[0, 1], random_state=seed
            ),
            GRID,
            cv=FOLDS,
        ).fit(X_train, y_train)
    yield "GridSearchCV, selection NOT private", search, ledger.epsilon(DELTA)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--naive-seeds",
        type=int,
        default=2,
        help="seeds of the plain GridSearchCV row (its 19 fits are the slowest)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X_train, X_test, y_train, y_test = _prepared(args.data_home)
    results = {}
    for seed in range(args.seeds):
        naive = seed < args.naive_seeds
        for name, model, spent in _runs(X_train, y_train, seed, naive):
            acc = model.score(X_test, y_test)
            row = results.setdefault(name, {"acc": [], "spent": [], "params": []})
            row["acc"].append(acc)
            row["spent"].append(np.nan if spent is None else spent)
            params = getattr(model, "best_params_", None)
            row["params"].append(params)
            print(f"seed {seed} {name}: {acc:.4f} spent={spent} {params}", flush=True)
    print(f"\nAdult, total epsilon = {EPSILON}, delta = {DELTA:g}, {args.seeds} seeds")
    print("| method | seeds | test accuracy | epsilon spent (max over seeds) |")
    print("|---|---|---|---|")
    for name, row in results.items():
        spent = EPSILON if np.all(np.isnan(row["spent"])) else np.nanmax(row["spent"])
        print(
            f"| {name} | {len(row['acc'])} "
            f"| {np.mean(row['acc']):.4f} +- {np.std(row['acc']):.4f} "
            f"| {spent:.6f} |"
        )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"\n{time.perf_counter() - start:.0f} s")
