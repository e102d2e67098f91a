"""The regressors' default ``solver="auto"`` against the former default "gd".

    python benchmarks/bench_regression_auto.py [--seeds 8] [--data-home DIR]
        [--loss squared|huber|both] [--only NAMES] [--default-threads]
    python benchmarks/bench_regression_auto.py --long-rows [--seeds 4]
    python benchmarks/bench_regression_auto.py --wide [--seeds 2]

For each data set, epsilon in {0.1, 0.5, 1, 4} and seed, three fits alternate in
this one process, on one thread (``threadpoolctl.threadpool_limits(1)`` and
``NUMBA_NUM_THREADS=1``, set by ``bench_regression_solver`` before Numba is
imported): scikit-learn's ``LinearRegression`` (squared loss) or
``HuberRegressor`` (Huber loss) on the same features, the regressor with
``solver="gd"`` (the default before issue 42) and the regressor at its defaults
(``solver="auto"``). Unlike ``bench_regression_solver.py`` no public size is
declared: the private fits run as a user's default fit does (add/remove-one, a
noisy count of the rows), delta = 1e-6.

Printed: mean test R^2 over the seeds with its standard error, the mean paired
difference auto - gd, how many of the seeds "auto" ran "pgd", and the medians
over the seeds of the fit-time ratios to scikit-learn's fit of the same seed.

Data: the tables of ``bench_regression_solver.py`` (synthetic 20 and 50
features, diabetes, Adult hours-per-week; unit-norm rows), and three it did not
tune on: ``friedman1`` (``make_friedman1``, 20,640 rows x 10, noise 1, seed 3:
a non-linear target, 80/20 per seed, rows normalised, ``y_bounds`` (-5, 35)),
and two whose rows exceed norm 1, where "auto" must run "gd": ``synthetic/4``
(the first table divided by the public constant 4, row norms about 1.1) and
``adult-minmax`` (Adult without ``Normalizer``: min-max and one-hot columns,
row norms 2.4-3.7).

``--long-rows`` prints instead the study behind ``MAX_LONG_ROW_FRACTION``:
"pgd" minus "gd" test R^2 (``public_n_samples`` declared, epsilon 1) on the
first synthetic table's unit rows with a share of the training and test rows
(0.5% to 5%) multiplied by 2 or by 4.

``--wide`` prints the study behind ``MIN_WIDTH_UNIT``: "pgd" minus "gd" test R^2
(``public_n_samples`` declared) on isotropic ``make_regression`` tables
(a quarter of the features informative, noise 10, unit rows, 80/20 holdouts)
at budgets set to ratios ``mu m / w^1.5`` of 0.5 to 4: widths 101, 201 and 401,
and 401 on 4,000 rows at 0.2 and 0.4 (the threshold was set on these), then 151
and 301 at ratios 0.7 to 1.5 (a check on widths and tables it was not set on).
"""

import argparse
import os
import warnings

import numpy as np
from bench_regression_solver import (
    DELTA,
    EPSILONS,
    LOSSES,
    _adult,
    _diabetes,
    _mean_se,
    _synthetic,
    _timed,
)
from sklearn.datasets import make_friedman1, make_regression
from sklearn.linear_model import HuberRegressor, LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer
from threadpoolctl import threadpool_limits

from sklearn_dpgd import DPLinearRegression
from sklearn_dpgd.accounting import gdp_epsilon

REFERENCE = {"squared": LinearRegression, "huber": HuberRegressor}


def _friedman():
    X, y = make_friedman1(n_samples=20_640, n_features=10, noise=1.0, random_state=3)
    X = Normalizer().fit_transform(X)

    def splits(seed):
        return train_test_split(X, y, test_size=0.2, random_state=seed)

    return splits, (-5.0, 35.0)


def _cell(splits, bounds, loss, epsilon, seeds):
    Regressor, Reference = LOSSES[loss], REFERENCE[loss]
    r2 = {"gd": [], "auto": [], "sklearn": []}
    ratio = {"gd": [], "auto": []}
    pgd_runs = 0
    for seed in range(seeds):
        X, X_te, y, y_te = splits(seed)
        reference, t_ref = _timed(Reference(), X, y)
        r2["sklearn"].append(r2_score(y_te, reference.predict(X_te)))
        for solver in ("gd", "auto"):
            model = Regressor(
                epsilon=epsilon, delta=DELTA, y_bounds=bounds, solver=solver,
                random_state=seed,
            )  # fmt: skip
            model, t = _timed(model, X, y)
            r2[solver].append(r2_score(y_te, model.predict(X_te)))
            ratio[solver].append(t / t_ref)
            pgd_runs += solver == "auto" and model.solver_ == "pgd"
    return r2, ratio, pgd_runs


def _long_rows(seeds):
    X, y = make_regression(
        n_samples=30_000, n_features=20, n_informative=10, noise=20.0, random_state=0
    )
    X = Normalizer().fit_transform(X)
    print(f"one thread; {seeds} seeds; epsilon 1; R^2 pgd - gd (mean over seeds)\n")
    print(f"{'long share':>10s}  {'norm 2':>8s}  {'norm 4':>8s}")
    for share in (0.005, 0.01, 0.02, 0.05):
        gaps = {}
        for factor in (2.0, 4.0):
            gaps[factor] = []
            for seed in range(seeds):
                parts = train_test_split(X, y, test_size=0.2, random_state=seed)
                X_tr, X_te, y_tr, y_te = (np.array(a) for a in parts)
                rng = np.random.default_rng(seed)
                for rows in (X_tr, X_te):  # a public constant times chosen rows
                    rows[rng.choice(len(rows), int(share * len(rows)), False)] *= factor
                r2 = {}
                for solver in ("gd", "pgd"):
                    model = DPLinearRegression(
                        epsilon=1.0, delta=DELTA, y_bounds=(-600.0, 600.0),
                        solver=solver, public_n_samples=len(y_tr), random_state=seed,
                    ).fit(X_tr, y_tr)  # fmt: skip
                    r2[solver] = r2_score(y_te, model.predict(X_te))
                gaps[factor].append(r2["pgd"] - r2["gd"])
        print(
            f"{share:10.3f}  {np.mean(gaps[2.0]):+8.4f}  {np.mean(gaps[4.0]):+8.4f}",
            flush=True,
        )


def _wide(seeds):
    print(f"one thread; {seeds} seeds; R^2 pgd - gd, mean (min) over seeds\n")
    print(f"{'w':>4s} {'m':>6s} {'ratio':>5s} {'eps':>6s} {'gd R^2':>7s}  pgd - gd")
    grids = [
        ((20_000, 400, 0), (0.5, 1.0, 2.0, 4.0)),
        ((10_000, 200, 0), (0.5, 1.0, 2.0, 4.0)),
        ((5_000, 100, 0), (0.5, 1.0, 2.0, 4.0)),
        ((5_000, 400, 0), (0.2, 0.4)),
        ((15_000, 300, 5), (0.7, 1.0, 1.5)),
        ((8_000, 150, 5), (0.7, 1.0, 1.5)),
    ]
    for (n, d, data_seed), ratios in grids:
        X, y = make_regression(
            n_samples=n, n_features=d, n_informative=d // 4, noise=10.0,
            random_state=data_seed,
        )  # fmt: skip
        X = Normalizer().fit_transform(X)
        bound = float(np.ceil(np.abs(y).max() / 100) * 100)  # a round public bound
        width, m = d + 1, int(0.8 * n)
        for ratio in ratios:
            epsilon = gdp_epsilon(ratio * width**1.5 / m, DELTA)
            gaps = []
            for seed in range(seeds):
                X_tr, X_te, y_tr, y_te = train_test_split(
                    X, y, test_size=0.2, random_state=seed
                )
                r2 = {}
                for solver in ("gd", "pgd"):
                    model = DPLinearRegression(
                        epsilon=epsilon, delta=DELTA, y_bounds=(-bound, bound),
                        solver=solver, public_n_samples=len(y_tr), random_state=seed,
                    ).fit(X_tr, y_tr)  # fmt: skip
                    r2[solver] = r2_score(y_te, model.predict(X_te))
                gaps.append(r2["pgd"] - r2["gd"])
            print(
                f"{width:4d} {m:6d} {ratio:5.1f} {epsilon:6.2f} {r2['gd']:7.3f}  "
                f"{np.mean(gaps):+.4f} ({np.min(gaps):+.4f})",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--data-home", default=os.environ.get("SKLEARN_DPGD_DATA"))
    parser.add_argument("--loss", choices=("squared", "huber", "both"), default="both")
    parser.add_argument("--only", default=None, help="comma-separated data names")
    parser.add_argument("--long-rows", action="store_true", help="the share study")
    parser.add_argument("--wide", action="store_true", help="the width study")
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="default BLAS and Numba threads (the table beside the one-thread one)",
    )
    args = parser.parse_args()
    if args.long_rows or args.wide:
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (_long_rows if args.long_rows else _wide)(args.seeds)
        return
    datasets = {
        "synthetic": _synthetic(0, 30_000, 20, (-600.0, 600.0), n_informative=10,
                                noise=20.0),
        "synthetic-lowrank": _synthetic(1, 40_000, 50, (-1.5, 1.5),
                                        effective_rank=8, tail_strength=0.3,
                                        noise=0.1),
        "diabetes": _diabetes(),
        "friedman1": _friedman(),
        "synthetic/4": _synthetic(0, 30_000, 20, (-600.0, 600.0), divisor=4.0,
                                  n_informative=10, noise=20.0),
    }  # fmt: skip
    if args.data_home:
        datasets["adult-hours"] = _adult(args.data_home)
        datasets["adult-minmax"] = _adult(args.data_home, normalize=False)
    if args.only:
        datasets = {k: v for k, v in datasets.items() if k in args.only.split(",")}
    losses = ("squared", "huber") if args.loss == "both" else (args.loss,)
    print(
        f"{'default threads' if args.default_threads else 'one thread'}; "
        f"{args.seeds} seeds; no public size (noisy count); delta {DELTA:g}; "
        f"load average {os.getloadavg()[0]:.2f}\n"
        "R^2: mean (standard error); pgd: seeds where auto ran pgd; time: median "
        "ratio to scikit-learn's LinearRegression / HuberRegressor\n"
    )
    header = (
        f"{'data':18s} {'loss':8s} {'eps':>4s}  {'sklearn R^2':>10s}  "
        f"{'gd R^2':>16s}  {'auto R^2':>16s}  {'auto-gd':>8s}  {'pgd':>4s}  "
        f"{'gd x':>6s}  {'auto x':>6s}"
    )
    print(header)
    print("-" * len(header))
    threads = None if args.default_threads else 1
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (splits, bounds) in datasets.items():
            for loss in losses:  # warm-up: compilation and caches out of the timing
                _cell(splits, bounds, loss, EPSILONS[-1], 1)
                for epsilon in EPSILONS:
                    r2, ratio, runs = _cell(splits, bounds, loss, epsilon, args.seeds)
                    gap = np.mean(np.subtract(r2["auto"], r2["gd"]))
                    print(
                        f"{name:18s} {loss:8s} {epsilon:4g}  "
                        f"{np.mean(r2['sklearn']):10.4f}  {_mean_se(r2['gd']):>16s}  "
                        f"{_mean_se(r2['auto']):>16s}  {gap:+8.4f}  "
                        f"{runs:>2d}/{args.seeds}  {np.median(ratio['gd']):6.2f}  "
                        f"{np.median(ratio['auto']):6.2f}",
                        flush=True,
                    )
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
