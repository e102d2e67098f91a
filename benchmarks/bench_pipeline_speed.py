"""Speed of a whole private pipeline from the raw table against scikit-learn's.

Run from the repository root (Adult and Bank are read from the data home)::

    python benchmarks/bench_pipeline_speed.py [--data-home DIR] [--repeats 7]

For Adult and Bank (the training part of :func:`load_benchmark_split`), two
pipelines fitted on the raw DataFrame, alternately in one process:

* **ours**: :func:`sklearn_dpgd.datasets.private_pipeline` at ``epsilon=1``
  (a :class:`~sklearn_dpgd.preprocessing.DPTableVectorizer`: DP quantile bounds,
  declared categories, row norm) with the classifier's ``solver`` (``--solver``,
  default ``"newton"``);
* **scikit-learn**: :func:`sklearn_dpgd.datasets.paper_preprocessor`
  (``ColumnTransformer`` of ``OneHotEncoder`` and ``MinMaxScaler``, then
  ``Normalizer``) and ``LogisticRegression()``.

Each side is timed three ways: the preprocessing alone (``fit_transform`` of the
vectorizer, or of the scikit-learn preprocessor, on the training table), the
final estimator alone (its ``fit`` on that output), and the whole pipeline's
``fit``. The table gives medians over the repeats and the median of the
per-repeat ratios ours / scikit-learn. It is printed twice: with one thread each
(``threadpoolctl.threadpool_limits(1)`` and ``numba.set_num_threads(1)``), then
with the default threads. The load average (``os.getloadavg``) before each table
is printed beside it: the timings are only comparable side by side.
"""

import argparse
import os
import statistics
import time
import warnings

from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

from sklearn_dpgd.datasets import (
    load_benchmark_split,
    paper_preprocessor,
    private_pipeline,
)


def _timed(func):
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def _ours(name, solver):
    model = private_pipeline(name, epsilon=1.0)
    return model.set_params(dplogisticregression__solver=solver)


def _one_repeat(name, X, y, solver):
    """``{(side, part): seconds}`` of one repeat, the two sides alternating."""
    times = {}
    ours = _ours(name, solver)
    vectorizer = clone(ours.named_steps["dptablevectorizer"]).set_params(epsilon=0.1)
    times["ours", "preprocessing"], Z = _timed(lambda: vectorizer.fit_transform(X))
    theirs = paper_preprocessor()
    times["sklearn", "preprocessing"], W = _timed(lambda: theirs.fit_transform(X))
    classifier = clone(ours.named_steps["dplogisticregression"]).set_params(
        epsilon=0.9, classes=[0, 1]
    )
    times["ours", "estimator"], _ = _timed(lambda: classifier.fit(Z, y))
    times["sklearn", "estimator"], _ = _timed(lambda: LogisticRegression().fit(W, y))
    times["ours", "whole"], _ = _timed(lambda: ours.fit(X, y))
    sk = make_pipeline(paper_preprocessor(), LogisticRegression())
    times["sklearn", "whole"], _ = _timed(lambda: sk.fit(X, y))
    return times


def _table(names, data, solver, repeats, label):
    load = os.getloadavg()
    print(f"\n{label} (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    print(
        "| data | part | ours (s) | scikit-learn (s) | ratio |\n|---|---|---|---|---|"
    )
    for name in names:
        X, y = data[name]
        _one_repeat(name, X, y, solver)  # warm-up: compilation, caches
        runs = [_one_repeat(name, X, y, solver) for _ in range(repeats)]
        for part in ("preprocessing", "estimator", "whole"):
            ours = [r["ours", part] for r in runs]
            theirs = [r["sklearn", part] for r in runs]
            ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
            print(
                f"| {name} | {part} | {statistics.median(ours):.3f} | "
                f"{statistics.median(theirs):.3f} | {ratio:.2f}x |"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--solver", default="newton")
    parser.add_argument("--data", nargs="+", default=["adult", "bank"])
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the fixed-seed and leak warnings are known
    data = {}
    for name in args.data:
        X, _, y, _ = load_benchmark_split(name, data_home=args.data_home)
        data[name] = (X, y)
    import numba  # a dependency; imported here to set its threads

    default_threads = numba.get_num_threads()
    print(f"solver={args.solver!r}, {args.repeats} repeats, medians")
    with threadpool_limits(1):
        numba.set_num_threads(1)
        _table(args.data, data, args.solver, args.repeats, "One thread each")
    numba.set_num_threads(default_threads)
    _table(args.data, data, args.solver, args.repeats, "Default threads")


if __name__ == "__main__":
    main()
