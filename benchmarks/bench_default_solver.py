"""``solver="auto"`` / ``"pgd"`` against ``solver="gd"`` and scikit-learn (issue 42).

    python benchmarks/bench_default_solver.py [--seeds 8] [--data-home DIR]
        [--threaded-seeds 3] [--default-only]

For each data set, epsilon in {0.1, 0.4, 1.6, 4} and seed, three fits alternate
in this one process: ``DPLogisticRegression(solver="gd")`` (every other parameter
at its default), the same with ``solver="pgd"`` (private preconditioned gradient
descent), and scikit-learn's ``LogisticRegression(max_iter=1000)``. ``auto`` is the
solver ``solver="auto"`` picks by its public rule
(``sklearn_dpgd.linear_model._pgd.auto_solver``; every private fit here declares
``public_n_samples`` = the training rows, the papers' protocol, which the rule
needs); where it picks "gd" its fit *is*
the "gd" fit (the same code path, the same seed: ``tests/test_pgd.py`` checks the
coefficients are equal), so its accuracy and time are those of "gd".

Printed: mean test accuracy (%) over the seeds with its standard error, and the
medians over the seeds of the fit-time ratios to scikit-learn's fit of the same
seed. Only ratios: absolute times on a shared machine mean little. The first table
runs everything on one thread (``threadpoolctl.threadpool_limits(1)`` and
``NUMBA_NUM_THREADS=1``, set below before Numba is imported); the second repeats
the timing with default threads (``--threaded-seeds`` seeds). The machine's load
(``os.getloadavg``) is printed beside each table.

Data: Adult (standard split) and Bank (80/20 stratified, random_state=0) with the
papers' protocol of ``benchmarks/bench_adult.py`` (one-hot + min-max + unit-norm
rows, delta = 1e-8), on which the constants of "pgd" were chosen (on holdouts of
the training splits). Third table, tables no constant was set on: scikit-learn's
breast cancer and digits (binary: digit >= 5), 80/20 stratified (random_state=0),
min-max + unit-norm rows, delta = 1e-5, at epsilon 1 and 4.

The first two tables, "The default, no public size" (``--default-only`` prints
only these): what a user gets who declares nothing. ``DPLogisticRegression()``
with only ``epsilon``, ``delta``, ``classes`` and the seed set (``solver="auto"``,
add/remove-one, no ``public_n_samples``: the size is the fit's noisy count, which
the rule reads), beside ``solver="gd"`` with the same parameters and seed (the
default before ``solver="auto"`` became it) and scikit-learn; ``ran`` counts the
seeds on which the default ran "pgd". One thread, then default threads.
"""

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from _common import (  # noqa: E402
    benchmark_split,
    default_gd_sklearn_cell,
    embedded_split,
    timed,
)
from sklearn.linear_model import LogisticRegression  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.linear_model._pgd import auto_solver  # noqa: E402

EPSILONS = (0.1, 0.4, 1.6, 4.0)
HELD_BACK_EPSILONS = (1.0, 4.0)


def _cell(data, epsilon, seeds):
    """Accuracies and time ratios of gd, pgd and scikit-learn over the seeds."""
    X_train, X_test, y_train, y_test, delta = data

    def private(solver, seed):
        return lambda: DPLogisticRegression(
            epsilon=epsilon,
            delta=delta,
            classes=[0, 1],
            solver=solver,
            public_n_samples=len(y_train),
            random_state=seed,
        )

    acc = {"gd": [], "pgd": [], "sk": []}
    ratio = {"gd": [], "pgd": []}
    for seed in range(seeds):
        # Alternate the order so that load from other processes hits all alike.
        order = ("sk", "gd", "pgd") if seed % 2 == 0 else ("pgd", "gd", "sk")
        times = {}
        for side in order:
            make = (
                (lambda: LogisticRegression(max_iter=1000))
                if side == "sk"
                else private(side, seed)
            )
            model, times[side] = timed(make, X_train, y_train)
            acc[side].append(100.0 * model.score(X_test, y_test))
        for side in ratio:
            ratio[side].append(times[side] / times["sk"])
    chosen = auto_solver(
        DPLogisticRegression(
            epsilon=epsilon,
            delta=delta,
            solver="auto",
            public_n_samples=len(y_train),
        ),
        X_train,
        1,
        None,
    )
    return acc, ratio, chosen


def _fmt(values):
    values = np.asarray(values)
    return f"{values.mean():6.2f} ± {values.std(ddof=1) / np.sqrt(len(values)):.2f}"


def _load():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _table(datasets, epsilons, seeds, title):
    print(f"\n{title} ({seeds} seeds; {_load()})")
    print(
        f"{'data':14s} {'eps':>4s} {'gd':>13s} {'pgd':>13s} {'auto':>4s} "
        f"{'auto - gd':>9s} {'sklearn':>13s} {'t gd/sk':>8s} {'t pgd/sk':>8s} "
        f"{'t auto/sk':>9s}"
    )
    for name, data in datasets.items():
        for epsilon in epsilons:
            acc, ratio, chosen = _cell(data, epsilon, seeds)
            gap = np.mean(acc[chosen]) - np.mean(acc["gd"])
            t = {side: np.median(r) for side, r in ratio.items()}
            print(
                f"{name:14s} {epsilon:4.1f} {_fmt(acc['gd'])} {_fmt(acc['pgd'])} "
                f"{chosen:>4s} {gap:+9.2f} {_fmt(acc['sk'])} {t['gd']:7.2f}x "
                f"{t['pgd']:7.2f}x {t[chosen]:8.2f}x",
                flush=True,
            )


def _default_cell(data, epsilon, seeds):
    """The default (no public size) against "gd" and scikit-learn over the seeds."""
    *split, delta = data
    acc, times, ran = default_gd_sklearn_cell(split, epsilon, seeds, delta)
    ratio = {side: times[side] / times["sk"] for side in ("default", "gd")}
    return acc, ratio, ran


def _default_table(datasets, epsilons, seeds, title):
    print(f"\n{title} ({seeds} seeds; {_load()})")
    print(
        f"{'data':6s} {'eps':>4s} {'default':>13s} {'gd':>13s} {'default-gd':>10s} "
        f"{'ran pgd':>7s} {'sklearn':>13s} {'t default/sk':>12s} {'t gd/sk':>8s}"
    )
    for name, data in datasets.items():
        for epsilon in epsilons:
            acc, ratio, ran = _default_cell(data, epsilon, seeds)
            gap = np.mean(acc["default"]) - np.mean(acc["gd"])
            print(
                f"{name:6s} {epsilon:4.1f} {_fmt(acc['default'])} {_fmt(acc['gd'])} "
                f"{gap:+10.2f} {ran.count('pgd'):>4d}/{len(ran):<2d} "
                f"{_fmt(acc['sk'])} {np.median(ratio['default']):11.2f}x "
                f"{np.median(ratio['gd']):7.2f}x",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--threaded-seeds", type=int, default=3)
    parser.add_argument(
        "--data-home", default=os.environ.get("SKLEARN_DPGD_DATA", "~/sklearn_dpgd")
    )
    parser.add_argument("--default-only", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data_home = os.path.expanduser(args.data_home)
    papers = {name: benchmark_split(name, data_home) for name in ("adult", "bank")}
    title = "The default, no public size"
    with threadpool_limits(1):
        _default_table(papers, EPSILONS, args.seeds, f"{title}, one thread each")
    _default_table(papers, EPSILONS, args.threaded_seeds, f"{title}, default threads")
    if args.default_only:
        return
    with threadpool_limits(1):
        _table(papers, EPSILONS, args.seeds, "One thread each")
    print(f"\nNUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']} (set before import)")
    _table(papers, EPSILONS, args.threaded_seeds, "Default BLAS threads")
    held_back = {
        "breast_cancer": embedded_split("breast_cancer"),
        "digits_bin": embedded_split("digits_binary"),
    }
    with threadpool_limits(1):
        _table(
            held_back, HELD_BACK_EPSILONS, args.seeds, "Held-back tables, one thread"
        )


if __name__ == "__main__":
    main()
