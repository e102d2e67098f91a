"""The default fit beside scikit-learn and diffprivlib, one thread and default threads.

    python benchmarks/bench_peers.py [--seeds 8] [--threaded-seeds 8]
        [--data-home DIR] [--diffprivlib-python /work/venv-dpl/bin/python]

Issue 42's evidence. Adult (standard split) and Bank (80/20 stratified,
random_state=0), :func:`sklearn_dpgd.datasets.paper_preprocessor` fitted on the
training split (one-hot, min-max, unit-norm rows), delta = 1e-8, epsilon in
{0.1, 0.4, 1.6, 4}, seeds 0 .. seeds - 1. Per seed, in this process and in an
order that alternates with the seed: the default ``DPLogisticRegression(epsilon,
delta, classes=[0, 1], random_state=seed)`` (``solver="auto"``, add/remove-one, no
``public_n_samples``: the rule reads the fit's noisy count), the same with
``solver="gd"``, and scikit-learn's ``LogisticRegression(max_iter=1000)``.
``ran pgd`` counts the seeds on which the default ran "pgd".

diffprivlib's ``LogisticRegression(epsilon, data_norm=1)`` runs in its own
interpreter (``--diffprivlib-python`` or ``SKLEARN_DPGD_DIFFPRIVLIB_PYTHON``; how
to build it: ``benchmarks/_diffprivlib_peer.py``) on the same preprocessed rows,
handed over as a temporary ``.npz`` file, and is timed against scikit-learn's
``LogisticRegression(max_iter=1000)`` fitted beside it in *that* process
(scikit-learn 1.7 there). Its guarantee is pure epsilon-DP by objective
perturbation; ours is (epsilon, 1e-8)-DP. Without the interpreter its column is
skipped with a line saying so.

Printed: mean test accuracy (%) ± standard error over the seeds, and the median
over the seeds of each library's fit time divided by scikit-learn's fit of the
same seed in the same process (only ratios: absolute times on a shared machine
mean little). First table: one thread each (``NUMBA_NUM_THREADS``,
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` = 1 set before
any import, and ``threadpoolctl.threadpool_limits(1)`` around the fits, in both
processes). Second table: the script runs itself again with
``--default-threads`` (nothing limited: scikit-learn's BLAS and the package's
kernels choose their threads). The load average (``os.getloadavg``) is printed
with each table.
"""

import os
import sys

DEFAULT_THREADS = "--default-threads" in sys.argv
if not DEFAULT_THREADS:
    for _lib in ("NUMBA", "OMP", "OPENBLAS", "MKL"):
        os.environ[f"{_lib}_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import subprocess  # noqa: E402
import warnings  # noqa: E402

import _diffprivlib_peer  # noqa: E402
import numpy as np  # noqa: E402
from _common import default_gd_sklearn_cell  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor  # noqa: E402

EPSILONS = (0.1, 0.4, 1.6, 4.0)
DELTA = 1e-8


def preprocess(X_train, X_test, y_train, y_test):
    """The papers' preprocessing fitted on the training split; 0/1 labels."""
    pre = paper_preprocessor().fit(X_train)
    classes = np.unique(y_train)
    return (
        np.ascontiguousarray(pre.transform(X_train)),
        np.ascontiguousarray(pre.transform(X_test)),
        (np.asarray(y_train) == classes[1]).astype(int),
        (np.asarray(y_test) == classes[1]).astype(int),
    )


def ours_cell(data, epsilon, seeds, delta=DELTA):
    """Accuracies (%) and per-seed times of the default, "gd" and scikit-learn."""
    return default_gd_sklearn_cell(data, epsilon, seeds, delta)


def fmt(values):
    """Mean ± standard error."""
    values = np.asarray(values)
    return f"{values.mean():6.2f} ± {values.std(ddof=1) / np.sqrt(len(values)):.2f}"


def load():
    """The machine's load average, for the table's header."""
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def diffprivlib_results(python, data, epsilons, seeds, one_thread):
    """The peer's results, or None without an interpreter."""
    if not python:
        return None
    return _diffprivlib_peer.run(python, *data, epsilons, seeds, one_thread)


def _table(datasets, seeds, python, one_thread):
    threads = "one thread each" if one_thread else "default threads"
    print(f"\nThe default, gd, diffprivlib and scikit-learn, {threads} "
          f"({seeds} seeds; {load()})")  # fmt: skip
    if not python:
        print("diffprivlib: skipped (no --diffprivlib-python or "
              "SKLEARN_DPGD_DIFFPRIVLIB_PYTHON given)")  # fmt: skip
    print(
        f"{'data':6s} {'eps':>4s} {'default':>13s} {'gd':>13s} {'def-gd':>6s} "
        f"{'ran pgd':>7s} {'diffprivlib':>13s} {'sklearn':>13s} {'def/sk':>7s} "
        f"{'gd/sk':>7s} {'dpl/sk':>7s}"
    )
    for name, data in datasets.items():
        peer = diffprivlib_results(python, data, EPSILONS, seeds, one_thread)
        for epsilon in EPSILONS:
            acc, t, ran = ours_cell(data, epsilon, seeds)
            gap = np.mean(acc["default"]) - np.mean(acc["gd"])
            dpl_acc, dpl_t = "-".rjust(13), "-".rjust(7)
            if peer is not None:
                dpl_acc = fmt(peer["accuracy"][str(epsilon)])
                dpl_t = f"{np.median(peer['ratio'][str(epsilon)]):6.2f}x"
            print(
                f"{name:6s} {epsilon:4.1f} {fmt(acc['default'])} {fmt(acc['gd'])} "
                f"{gap:+6.2f} {ran.count('pgd'):>4d}/{len(ran):<2d} {dpl_acc} "
                f"{fmt(acc['sk'])} {np.median(t['default'] / t['sk']):6.2f}x "
                f"{np.median(t['gd'] / t['sk']):6.2f}x {dpl_t}",
                flush=True,
            )
        if peer is not None:
            print(f"  ({name}: diffprivlib's scikit-learn {fmt(peer['sk_accuracy'])}; "
                  f"{peer['versions']})")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--threaded-seeds", type=int, default=8)
    parser.add_argument(
        "--data-home", default=os.environ.get("SKLEARN_DPGD_DATA", "~/sklearn_dpgd")
    )
    parser.add_argument(
        "--diffprivlib-python",
        default=os.environ.get("SKLEARN_DPGD_DIFFPRIVLIB_PYTHON"),
    )
    parser.add_argument("--default-threads", action="store_true", help="internal")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data_home = os.path.expanduser(args.data_home)
    datasets = {
        name: preprocess(*load_benchmark_split(name, data_home))
        for name in ("adult", "bank")
    }
    one_thread = not args.default_threads
    seeds = args.threaded_seeds if args.default_threads else args.seeds
    limit = threadpool_limits(1) if one_thread else contextlib.nullcontext()
    with limit:
        _table(datasets, seeds, args.diffprivlib_python, one_thread)
    if one_thread:
        command = [sys.executable, os.path.abspath(__file__), "--default-threads"]
        command += sys.argv[1:]
        env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
        subprocess.run(command, env=env, check=True)


if __name__ == "__main__":
    main()
