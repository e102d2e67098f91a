"""Fixed per-fit cost on small tables and the Bank pipeline, against scikit-learn.

    python benchmarks/bench_fixed_cost.py [--repeats 8] [--data-home DIR]
        [--fingerprint] [--cpu-time] [--default-threads]
        [--cases bc digits diabetes bank]

Issue 42: on tables of a few hundred or thousand rows a private fit's time is not
the passes over the data but what every fit pays whatever its size (validation,
the scikit-learn boundary walk, the ledger and the accountant, the utility
diagnostics, the per-step bookkeeping of the noisy steps). Four fits at
``epsilon=1``, each beside its scikit-learn counterpart on the same rows:

* ``bc``: ``DPLogisticRegression(classes=[0, 1])`` on breast cancer (569 x 30,
  ``StandardScaler`` rows) / ``LogisticRegression()``;
* ``digits``: ``DPLogisticRegression(classes=range(10))`` on digits (1,797 x 64,
  ``Normalizer`` rows) / ``LogisticRegression()``;
* ``diabetes``: ``DPLinearRegression(y_bounds=(0, 400))`` on diabetes (442 x 10,
  min-max then ``Normalizer`` rows) / ``LinearRegression()``;
* ``bank``: ``datasets.private_pipeline("bank", epsilon=1)`` on Bank's raw
  training table (36,168 rows; DP quantile bounds, row norm, the default
  solver) / ``make_pipeline(paper_preprocessor(), LogisticRegression())``
  (scikit-learn's ``ColumnTransformer`` + ``LogisticRegression``).

One thread each (``threadpoolctl.threadpool_limits(1)`` around both sides,
``numba.set_num_threads(1)``), in one process; the two sides alternate within
each repeat, and the table gives medians over ``--repeats`` and the median of
the per-repeat ratios. The load average before the table is printed: on a
shared machine compare only runs taken side by side. ``--cpu-time`` times the
CPU time of the calling thread (``time.thread_time``), which does all the work
of both sides with one thread each: on a loaded machine wall times move
several-fold with the other processes, CPU times far less.
``--default-threads`` lifts both limits (the table beside the one-thread one;
use wall time there: the thread's CPU time misses the other threads' work).

Then the breakdown of one more set of fits (``--repeats`` each, not timed
above): the time spent *exclusively* in each stage, found by wrapping the
stage's functions in the package (a wrapped call inside another is subtracted
from its caller), as mean milliseconds per fit. Stages missing from an older
layout of the package are skipped, so the same script times a checkout before a
change (``PYTHONPATH=<old tree> python benchmarks/bench_fixed_cost.py``).

``--fingerprint`` prints one SHA-256 prefix per case over the fitted arrays,
``epsilon_`` and the predictions (and the pipeline's transformed rows) of fits
with fixed seeds: a change that must not change results prints the same lines.
Dense multiclass fits on the compiled kernels (``digits``) may show one of two
values per process: the kernels' reassociated sums depend on the alignment of
the rows in memory (the same on main before this benchmark existed).

Integer seeds make the noise reproducible, which the package warns about with a
``PrivacyLeakWarning``: that is the point here, so warnings are silenced.
"""

import argparse
import collections
import functools
import hashlib
import importlib
import os
import statistics
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_dpgd import DPLinearRegression, DPLogisticRegression
from sklearn_dpgd.datasets import (
    load_benchmark_split,
    paper_preprocessor,
    private_pipeline,
)

CASES = ("bc", "digits", "diabetes", "bank")

# {stage: [(module, attribute)]}: the functions whose time is the stage's; a
# module starting with "." is the package's, a method is "Class.method". Every
# reference to a function in a loaded module of scikit-learn or the package is
# wrapped (names imported with ``from``).
STAGES = {
    "scikit-learn parameter checks": [
        ("sklearn.base", "BaseEstimator._validate_params")
    ],
    "data validation": [
        ("._validation", "validate_fit_data"),
        ("sklearn.utils.validation", "validate_data"),
    ],
    "boundary walk": [
        ("._boundary", "boundary_leaks"),
        ("._boundary", "check_clone_boundary"),
        ("._boundary", "privacy_leaks"),
    ],
    "clone": [("sklearn.base", "clone")],
    "planning and accounting": [
        (".linear_model._pgd", "resolve_auto"),
        (".linear_model._pgd", "open_fit"),
        (".linear_model._base", "_BaseDPLinearModel._setting"),
        (".linear_model._base", "_BaseDPLinearModel._plan"),
        (".linear_model._base", "resolve_max_iter"),
        ("._solvers.gd", "training_filter"),
        ("._solvers.gd", "gdp_epsilon"),
    ],
    "gradient steps (oracle)": [
        ("._engine._oracle", "PrivateGradientOracle.noisy_gradient"),
        ("._engine._oracle", "PrivateNewtonOracle.noisy_gradient"),
        ("._engine._oracle", "PrivateNewtonOracle.noisy_gram"),
    ],
    "gd loop (besides the oracle)": [("._solvers.gd", "noisy_gradient_descent")],
    "utility diagnostics": [
        (".linear_model._utility", "utility_checks"),
        (".linear_model._utility", "check_predictions"),
    ],
    "calibration": [
        (".linear_model._calibration", "temperature_scale"),
        (".linear_model._calibration", "temperature_scale_multinomial"),
    ],
    "DP quantiles": [(".preprocessing._quantiles", "_dp_quantiles")],
    "DP min-max transform": [(".preprocessing._scalers", "DPMinMaxScaler.transform")],
}


def _data(data_home):
    X, y = load_breast_cancer(return_X_y=True)
    bc = (StandardScaler().fit_transform(X), y)
    X, y = load_digits(return_X_y=True)
    digits = (Normalizer().fit_transform(X), y)
    X, y = load_diabetes(return_X_y=True)
    diabetes = (Normalizer().fit_transform(MinMaxScaler().fit_transform(X)), y)
    X, _, y, _ = load_benchmark_split("bank", data_home=data_home)
    return {"bc": bc, "digits": digits, "diabetes": diabetes, "bank": (X, y)}


def _ours(case, seed=None):
    if case == "bc":
        return DPLogisticRegression(classes=[0, 1], epsilon=1.0, random_state=seed)
    if case == "digits":
        return DPLogisticRegression(
            classes=list(range(10)), epsilon=1.0, random_state=seed
        )
    if case == "diabetes":
        return DPLinearRegression(epsilon=1.0, y_bounds=(0.0, 400.0), random_state=seed)
    return private_pipeline("bank", epsilon=1.0, random_state=seed)


def _theirs(case):
    if case == "diabetes":
        return LinearRegression()
    if case == "bank":
        return make_pipeline(paper_preprocessor(), LogisticRegression())
    return LogisticRegression()


# perf_counter (wall time), or thread_time with --cpu-time: the CPU time of
# this thread, which does all the work with one thread each, and which other
# processes on a loaded machine barely move (they move wall time several-fold).
_CLOCK = [time.perf_counter]


def _timed(fit):
    clock = _CLOCK[0]
    start = clock()
    fit()
    return clock() - start


def _ratio_table(data, cases, repeats, threads="One thread each"):
    load = os.getloadavg()
    clock = "CPU time" if _CLOCK[0] is time.thread_time else "wall time"
    print(
        f"\n{threads}, {repeats} repeats, medians of the {clock} "
        f"(load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})"
    )
    print("| table | ours (ms) | scikit-learn (ms) | ratio |\n|---|---|---|---|")
    for case in cases:
        X, y = data[case]
        _ours(case).fit(X, y)  # warm-up: imports, caches, compilation
        _theirs(case).fit(X, y)
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(_timed(lambda: _ours(case).fit(X, y)))  # noqa: B023
            theirs.append(_timed(lambda: _theirs(case).fit(X, y)))  # noqa: B023
        ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
        print(
            f"| {case} | {statistics.median(ours) * 1e3:.1f} | "
            f"{statistics.median(theirs) * 1e3:.1f} | {ratio:.2f}x |"
        )


class _Stages:
    """Exclusive time per stage of the wrapped functions (see module docstring)."""

    def __init__(self):
        self.seconds = collections.defaultdict(float)
        self._stack = []

    def wrap(self, stage, func):
        @functools.wraps(func)
        def timed(*args, **kwargs):
            self._stack.append(0.0)  # time of wrapped calls inside this one
            clock = _CLOCK[0]
            start = clock()
            try:
                return func(*args, **kwargs)
            finally:
                elapsed = clock() - start
                inner = self._stack.pop()
                self.seconds[stage] += elapsed - inner
                if self._stack:
                    self._stack[-1] += elapsed

        return timed

    def install(self):
        """Wrap every stage function wherever a loaded module refers to it."""
        for stage, module_name, attr in (
            (stage, module, attr)
            for stage, functions in STAGES.items()
            for module, attr in functions
        ):
            if module_name.startswith("."):
                module_name = "sklearn_dpgd" + module_name
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            owner, _, name = attr.rpartition(".")
            holder = getattr(module, owner, None) if owner else module
            func = getattr(holder, name, None) if holder is not None else None
            if func is None:
                continue  # not in this layout of the package
            timed = self.wrap(stage, func)
            if owner:
                setattr(holder, name, timed)
                continue
            for loaded in list(sys.modules.values()):
                space = getattr(loaded, "__dict__", None)
                prefix = getattr(loaded, "__name__", "") or ""
                if space is None or not prefix.startswith(("sklearn", "sklearn_dpgd")):
                    continue
                if space.get(name) is func:
                    setattr(loaded, name, timed)


def _breakdown(data, cases, repeats, threads="one thread"):
    stages = _Stages()
    stages.install()
    print(
        "\nWhere a fit's time goes: mean ms per fit, exclusive of the other "
        f"stages listed ({threads}, the same clock)"
    )
    rows = {}
    for case in cases:
        X, y = data[case]
        _ours(case).fit(X, y)
        stages.seconds.clear()
        total = sum(_timed(lambda: _ours(case).fit(X, y)) for _ in range(repeats))  # noqa: B023
        found = dict(stages.seconds)
        found["rest (pandas, encoders, scikit-learn's Pipeline, ...)"] = total - sum(
            found.values()
        )
        rows[case] = ({k: v / repeats for k, v in found.items()}, total / repeats)
    names = sorted({k for found, _ in rows.values() for k in found})
    print("| stage | " + " | ".join(cases) + " |")
    print("|---" * (len(cases) + 1) + "|")
    for name in names:
        cells = [
            f"{rows[c][0][name] * 1e3:.2f}" if name in rows[c][0] else "-"
            for c in cases
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(
        "| whole fit | " + " | ".join(f"{rows[c][1] * 1e3:.2f}" for c in cases) + " |"
    )


def _fingerprint(data, cases):
    print("\nFingerprints (fixed seeds 0, 1, 2; equal before and after a change):")
    for case in cases:
        X, y = data[case]
        for seed in (0, 1, 2):
            model = _ours(case, seed).fit(X, y)
            digest = hashlib.sha256()
            parts = [model] + [s for _, s in getattr(model, "steps", [])]
            for part in parts:
                for attr in sorted(vars(part)):
                    if not attr.endswith("_") or attr.startswith("_"):
                        continue
                    value = getattr(part, attr)
                    if isinstance(value, (int, float, np.ndarray, np.generic)):
                        value = np.asarray(value)
                        raw = (
                            repr(value.tolist()).encode()
                            if value.dtype.kind not in "biuf"
                            else np.ascontiguousarray(value, dtype=float).tobytes()
                        )
                        digest.update(attr.encode() + raw)
            digest.update(np.asarray(model.predict(X), dtype=float).tobytes())
            if hasattr(model, "steps"):
                rows = np.asarray(model[:-1].transform(X), dtype=float)
                digest.update(np.ascontiguousarray(rows).tobytes())
            print(f"{case} seed {seed}: {digest.hexdigest()[:16]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--fingerprint", action="store_true")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time the thread's CPU time instead of wall time (loaded machines)",
    )
    parser.add_argument(
        "--default-threads",
        action="store_true",
        help="no thread limit (the table beside the one-thread one)",
    )
    args = parser.parse_args()
    if args.cpu_time:
        _CLOCK[0] = time.thread_time
    warnings.simplefilter("ignore")  # fixed seeds, weak-privacy notes (known)
    data = _data(args.data_home)
    import numba  # a dependency; imported here to set its threads

    with threadpool_limits(None if args.default_threads else 1):
        if not args.default_threads:
            numba.set_num_threads(1)
        if args.fingerprint:
            _fingerprint(data, args.cases)
        if args.default_threads:
            _ratio_table(data, args.cases, args.repeats, "Default threads")
            _breakdown(data, args.cases, args.repeats, "default threads")
        else:
            _ratio_table(data, args.cases, args.repeats)
            _breakdown(data, args.cases, args.repeats)


if __name__ == "__main__":
    main()
