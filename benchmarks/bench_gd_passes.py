"""Gradient descent's accuracy against its number of passes (issue 42 item 2).

    python benchmarks/bench_gd_passes.py [--seeds 8] [--data-home DIR]
        [--epsilons 0.1 0.4] [--factors 1 2 3 4] [--heldback DIR]
        [--tables adult bank synth30 synth200 gauss30] [--default-threads]

Where "auto" keeps gradient descent (small epsilon), can it take fewer passes?
The automatic horizon is ``T = c t`` steps (``t`` the horizon unit
``mu m / (s sqrt(p))``, clipped to [5, 1000]) with ``c = 4`` for
``DPLogisticRegression``, and the automatic step size keeps the noisy radius
``learning_rate * T`` of ``c = 1``
(:func:`sklearn_dpgd.schedules.auto_max_iter`). This script fits
``solver="gd"`` with other factors ``c`` (the class attribute
``_horizon_factor``, patched for the run: fewer, larger steps at the same
radius) on 80/20 stratified holdouts of Adult's and Bank's *training* splits
(never a test split; the preprocessing of ``benchmarks/bench_adult.py``),
delta 1e-8, no ``public_n_samples``, and prints per (table, epsilon, c): the
steps, holdout accuracy (%, mean ± s.e. over the seeds), its difference to
``c = 4`` and the median ratio of the fit's time to scikit-learn's
``LogisticRegression`` on the same rows (``--default-threads``: no limit, the
table beside this one; else one thread each:
``NUMBA_NUM_THREADS=1`` and ``threadpool_limits(1)``, timed alternately in one
process). ``--tables`` also takes the synthetic tables of
``benchmarks/bench_pgd_band.py`` (synth30, synth200, gauss30). With
``--heldback DIR`` the tables are instead the held-back CSVs of
``benchmarks/bench_heldback.py`` (its split and preprocessing, test split),
and only the cells where "auto" keeps gradient descent (``t < 700``) are
fitted. The temperature calibration's 100 steps read one number per row, not the
rows (``linear_model/_calibration.py``), so they are not passes over ``X``.
"""

import os
import sys

DEFAULT_THREADS = "--default-threads" in sys.argv
if not DEFAULT_THREADS:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import glob  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from bench_heldback import read_table, split  # noqa: E402
from bench_pgd_band import _table  # noqa: E402
from bench_pgd_small_epsilon import _fmt, _holdout  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.linear_model._pgd import AUTO_PGD_MIN_UNIT  # noqa: E402
from sklearn_dpgd.schedules._defaults import _horizon_unit  # noqa: E402

DELTA = 1e-8


def _timed(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def _row(name, data, epsilon, factors, seeds):
    X_fit, X_val, y_fit, y_val = data
    acc, ratio, steps = {}, {}, {}
    saved = DPLogisticRegression._horizon_factor
    try:
        for seed in range(seeds):
            _, t_sk = _timed(LogisticRegression(max_iter=1000), X_fit, y_fit)
            for c in factors:
                DPLogisticRegression._horizon_factor = c
                model, t = _timed(
                    DPLogisticRegression(
                        solver="gd",
                        epsilon=epsilon,
                        delta=DELTA,
                        classes=[0, 1],
                        random_state=seed,
                    ),
                    X_fit,
                    y_fit,
                )
                acc.setdefault(c, []).append(100.0 * model.score(X_val, y_val))
                ratio.setdefault(c, []).append(t / t_sk)
                steps[c] = model.n_iter_
    finally:
        DPLogisticRegression._horizon_factor = saved
    base = np.mean(acc[4]) if 4 in acc else np.mean(acc[max(factors)])
    for c in factors:
        print(
            f"| {name} | {epsilon:g} | {c:g} | {steps[c]} | {_fmt(acc[c])} | "
            f"{np.mean(acc[c]) - base:+.2f} | {np.median(ratio[c]):.2f}x |",
            flush=True,
        )


def _tables(heldback, names, home):
    if heldback is None:
        for name in names:
            yield (
                name,
                _holdout(name, home)
                if name in ("adult", "bank")
                else _table(name, home),
            )
        return
    for path in sorted(glob.glob(os.path.join(heldback, "*.csv"))):
        X_train, X_test, y_train, y_test = split(*read_table(path))
        name = os.path.basename(path)[:-4]
        yield name, (np.ascontiguousarray(X_train), X_test, y_train, y_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.4])
    parser.add_argument("--factors", type=float, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--heldback", default=None)
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="no thread limit (the table beside the one-thread one)",
    )
    parser.add_argument("--tables", nargs="+", default=["adult", "bank"])
    parser.add_argument(
        "--data-home", default=os.environ.get("SKLEARN_DPGD_DATA", "~/sklearn_dpgd")
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    home = os.path.expanduser(args.data_home)
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print("| table | eps | c | steps | holdout acc | - (c=4) | time / sklearn |")
    print("|---|---|---|---|---|---|---|")
    with threadpool_limits(None if DEFAULT_THREADS else 1):
        for name, data in _tables(args.heldback, args.tables, home):
            for epsilon in args.epsilons:
                unit = _horizon_unit(
                    epsilon, DELTA, len(data[2]), data[0].shape[1], 1,
                    "add_remove", True,
                )  # fmt: skip
                if args.heldback and unit >= AUTO_PGD_MIN_UNIT:
                    continue
                _row(f"{name} (t={unit:.0f})", data, epsilon, args.factors, args.seeds)
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
