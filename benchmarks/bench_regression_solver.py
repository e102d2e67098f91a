"""``solver="pgd"`` against ``solver="gd"`` for the private regressors (issue 42, 3).

    python benchmarks/bench_regression_solver.py [--seeds 8] [--data-home DIR]
        [--loss squared|huber|both] [--unscaled-rows]

For each data set, epsilon in {0.1, 0.5, 1, 4} and seed, three fits alternate in
this one process, on one thread (``threadpoolctl.threadpool_limits(1)`` and
``NUMBA_NUM_THREADS=1``, set below before Numba is imported): the regressor with
``solver="gd"`` (every other parameter at its default), the same with
``solver="pgd"`` (private preconditioned gradient descent), and scikit-learn's
``LinearRegression`` on the same features. Every private fit declares
``public_n_samples`` = the training rows (the papers' protocol) and delta = 1e-6.

Printed: mean test R^2 over the seeds with its standard error, the mean paired
difference pgd - gd, and the medians over the seeds of the fit-time ratios to
``LinearRegression``'s fit of the same seed (only ratios: absolute times on a
shared machine mean little). The machine's load is printed with the table.

Data (features mapped by public, declared maps only; unit-norm rows):

* ``synthetic``: ``make_regression(30_000 rows, 20 features, 10 informative,
  noise=20)`` (seed 0), 80/20 split per seed; ``y_bounds`` (-600, 600), round
  bounds of the generator's range (target std 164).
* ``synthetic-lowrank``: ``make_regression(40_000 x 50, effective_rank=8,
  tail_strength=0.3, noise=0.1)`` (seed 1): correlated, ill-conditioned
  features, 80/20 per seed; ``y_bounds`` (-1.5, 1.5) (target std 0.39).
* ``diabetes``: scikit-learn's 442 rows, 70/30 per seed, features clipped to the
  declared (-0.2, 0.2) and mapped to [0, 1]; ``y_bounds`` (0, 400).
* ``adult-hours``: UCI Adult's standard split, target ``hours-per-week`` (public
  range 1-99 from ``adult.names``), the 13 other columns one-hot encoded and
  min-max scaled with their public ranges (no budget: the preprocessing is not
  what is compared); needs ``--data-home`` or ``SKLEARN_DPGD_DATA``.

``--unscaled-rows`` adds two tables whose rows exceed norm 1, where "pgd" (which
scales every row to norm 1) fits another model than "gd" (which clips only the
gradients): diabetes min-max scaled without ``Normalizer`` (median row norm 1.6),
and the first synthetic table divided by the public constant 4 (row norms about
1.1).
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
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.datasets import load_diabetes, make_regression  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.metrics import r2_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import Normalizer  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpgd import DPHuberRegressor, DPLinearRegression  # noqa: E402
from sklearn_dpgd.datasets import load_adult  # noqa: E402
from sklearn_dpgd.datasets._schema import _ADULT_CATEGORIES, _ADULT_RANGES  # noqa: E402
from sklearn_dpgd.preprocessing import DPMinMaxScaler, DPOneHotEncoder  # noqa: E402

EPSILONS = (0.1, 0.5, 1.0, 4.0)
DELTA = 1e-6
LOSSES = {"squared": DPLinearRegression, "huber": DPHuberRegressor}


def _synthetic(seed_data, n, d, bounds, divisor=None, **kwargs):
    X, y = make_regression(n_samples=n, n_features=d, random_state=seed_data, **kwargs)
    # Row by row, or by a public constant: no statistic of the data.
    X = Normalizer().fit_transform(X) if divisor is None else X / divisor

    def splits(seed):
        return train_test_split(X, y, test_size=0.2, random_state=seed)

    return splits, bounds


def _diabetes(normalize=True):
    X, y = load_diabetes(return_X_y=True)
    X = DPMinMaxScaler(bounds=(-0.2, 0.2)).fit_transform(X)
    if normalize:
        X = Normalizer().fit_transform(X)

    def splits(seed):
        return train_test_split(X, y, test_size=0.3, random_state=seed)

    return splits, (0.0, 400.0)


def _adult(data_home, normalize=True):
    """Adult's hours-per-week from its other columns (declared categories and
    ranges), rows scaled to unit norm unless ``normalize`` is False."""
    X, _ = load_adult(subset="train", data_home=data_home)
    X_te, _ = load_adult(subset="test", data_home=data_home)
    y, y_te = X.pop("hours-per-week").to_numpy(float), X_te.pop("hours-per-week")
    categorical = list(_ADULT_CATEGORIES)
    numeric = [c for c in _ADULT_RANGES if c != "hours-per-week"]
    encoder = DPOneHotEncoder([sorted(_ADULT_CATEGORIES[c]) for c in categorical])
    ranges = np.array([_ADULT_RANGES[c] for c in numeric], dtype=float)
    columns = ColumnTransformer(
        [
            ("cat", encoder, categorical),
            ("num", DPMinMaxScaler(bounds=ranges), numeric),
        ],
        sparse_threshold=0.0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        columns.fit(X)  # declared categories and ranges: nothing is estimated
    A = np.asarray(columns.transform(X), dtype=float)
    A_te = np.asarray(columns.transform(X_te), dtype=float)
    if normalize:
        A, A_te = Normalizer().fit_transform(A), Normalizer().fit_transform(A_te)

    def splits(seed):  # the standard split, the same for every seed
        return A, A_te, y, y_te.to_numpy(float)

    return splits, (1.0, 99.0)


def _timed(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def _cell(splits, bounds, Regressor, epsilon, seeds):
    r2 = {"gd": [], "pgd": [], "sklearn": []}
    ratio = {"gd": [], "pgd": []}
    for seed in range(seeds):
        X, X_te, y, y_te = splits(seed)
        reference, t_ref = _timed(LinearRegression(), X, y)
        r2["sklearn"].append(r2_score(y_te, reference.predict(X_te)))
        for solver in ("gd", "pgd"):
            model = Regressor(
                epsilon=epsilon, delta=DELTA, y_bounds=bounds, solver=solver,
                public_n_samples=X.shape[0], random_state=seed,
            )  # fmt: skip
            model, t = _timed(model, X, y)
            r2[solver].append(r2_score(y_te, model.predict(X_te)))
            ratio[solver].append(t / t_ref)
    return r2, ratio


def _mean_se(values):
    values = np.asarray(values)
    return f"{values.mean():.4f} ({values.std(ddof=1) / np.sqrt(len(values)):.4f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--data-home", default=os.environ.get("SKLEARN_DPGD_DATA"))
    parser.add_argument("--loss", choices=("squared", "huber", "both"), default="both")
    parser.add_argument("--unscaled-rows", action="store_true")
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="default BLAS and Numba threads (the table beside the one-thread one)",
    )
    args = parser.parse_args()
    datasets = {
        "synthetic": _synthetic(0, 30_000, 20, (-600.0, 600.0), n_informative=10,
                                noise=20.0),
        "synthetic-lowrank": _synthetic(1, 40_000, 50, (-1.5, 1.5),
                                        effective_rank=8, tail_strength=0.3,
                                        noise=0.1),
        "diabetes": _diabetes(),
    }  # fmt: skip
    if args.data_home:
        datasets["adult-hours"] = _adult(args.data_home)
    if args.unscaled_rows:
        datasets["diabetes-minmax"] = _diabetes(normalize=False)
        datasets["synthetic/4"] = _synthetic(
            0, 30_000, 20, (-600.0, 600.0), divisor=4.0, n_informative=10, noise=20.0
        )
    losses = LOSSES if args.loss == "both" else {args.loss: LOSSES[args.loss]}
    print(
        f"{'default threads' if args.default_threads else 'one thread'}; "
        f"{args.seeds} seeds; load average {os.getloadavg()[0]:.2f}\n"
        "R^2: mean (standard error); time: median ratio to LinearRegression\n"
    )
    header = (
        f"{'data':18s} {'loss':8s} {'eps':>4s}  {'sklearn R^2':>10s}  "
        f"{'gd R^2':>16s}  {'pgd R^2':>16s}  {'pgd-gd':>7s}  {'gd x':>6s}  "
        f"{'pgd x':>6s}"
    )
    print(header)
    print("-" * len(header))
    threads = None if args.default_threads else 1
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (splits, bounds) in datasets.items():
            for loss, Regressor in losses.items():
                for epsilon in EPSILONS:
                    r2, ratio = _cell(splits, bounds, Regressor, epsilon, args.seeds)
                    gap = np.mean(np.subtract(r2["pgd"], r2["gd"]))
                    print(
                        f"{name:18s} {loss:8s} {epsilon:4g}  "
                        f"{np.mean(r2['sklearn']):10.4f}  {_mean_se(r2['gd']):>16s}  "
                        f"{_mean_se(r2['pgd']):>16s}  {gap:+7.4f}  "
                        f"{np.median(ratio['gd']):6.2f}  "
                        f"{np.median(ratio['pgd']):6.2f}",
                        flush=True,
                    )
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
