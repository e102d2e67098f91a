"""End-to-end private pipelines on Adult: from the raw DataFrame, one total epsilon.

Run from the repository root (Adult is downloaded on first use; see --data-home)::

    python benchmarks/bench_pipeline.py [--data-home DIR] [--seeds 3]

Rows (test accuracy, mean and std over the seeds, Adult's standard split,
delta = 1e-8, the classifier's defaults; nothing is tuned on the test split):

* ``private, declared bounds``: :class:`~sklearn_dpgd.pipeline.PrivatePipeline` of
  ``DPOneHotEncoder`` (the category lists of ``adult.names``, public) and
  ``DPMinMaxScaler`` with the public ranges below, ``Normalizer`` and
  ``DPLogisticRegression``: the preprocessing reads nothing, the classifier gets
  the whole budget;
* ``private, DP bounds (10%)``: the same with the numeric bounds estimated by DP
  quantiles (0.01 and 0.99) within the public ranges, which get 10% of the budget
  (the pipeline's default split);
* ``classifier only, non-private preprocessing``: ``paper_preprocessor()`` (min/max
  and categories read from the training data without noise) and
  ``DPLogisticRegression`` at the same epsilon: the cost of privatising the
  preprocessing is the difference to this row.

* ``diffprivlib StandardScaler + LogisticRegression`` (optional, with
  ``--others-python`` or ``SKLEARN_DPGD_OTHERS_PYTHON``: an interpreter with
  diffprivlib, which needs scikit-learn <= 1.7; see ``privacy_utility.py`` for how
  to build it): scikit-learn's ``OneHotEncoder`` with the public categories,
  diffprivlib's ``StandardScaler(bounds=public ranges)`` with 10% of epsilon,
  ``Normalizer``, diffprivlib's ``LogisticRegression(data_norm=1)`` with 90%; pure
  epsilon-DP in total (delta = 0), run by this script's ``--worker`` mode on the
  raw DataFrame handed over as CSV.

The public ranges come from ``adult.names`` and the coding of the Current
Population Survey, never from the data: ``age`` > 16 (the extraction rule of
``adult.names``) and at most 100; ``education-num`` codes 1 to 16 (16 education
levels); ``capital-gain`` and ``capital-loss`` in [0, 99999] (the survey's top
code); ``hours-per-week`` in [1, 99] (> 0 by the extraction rule, top-coded at
99); ``fnlwgt`` (a survey weight, no published range) in [0, 1.5e6].
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

if "--worker" not in sys.argv:  # the worker's interpreter has no sklearn_dpgd
    from sklearn_dpgd import DPLogisticRegression
    from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
    from sklearn_dpgd.pipeline import make_private_pipeline
    from sklearn_dpgd.preprocessing import DPMinMaxScaler, DPOneHotEncoder

EPSILONS = (0.1, 0.4, 1.0)
DELTA = 1e-8
TARGETS = {0.1: 0.815, 0.4: 0.833, 1.0: 0.838}
PUBLIC_RANGES = {
    "age": (17, 100),
    "fnlwgt": (0, 1.5e6),
    "education-num": (1, 16),
    "capital-gain": (0, 99999),
    "capital-loss": (0, 99999),
    "hours-per-week": (1, 99),
}


def _private(X, epsilon, private_bounds):
    categorical = [c for c in X.columns if str(X[c].dtype) == "category"]
    numeric = list(PUBLIC_RANGES)
    ranges = [PUBLIC_RANGES[c] for c in numeric]
    scaler = (
        DPMinMaxScaler(bounds_range=ranges)
        if private_bounds
        else DPMinMaxScaler(ranges)
    )
    # The categories of adult.names (the loader fixes them, never reads them).
    encoder = DPOneHotEncoder([list(X[c].cat.categories) for c in categorical])
    columns = ColumnTransformer(
        [("cat", encoder, categorical), ("num", scaler, numeric)]
    )
    return make_private_pipeline(
        columns,
        Normalizer(),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=epsilon,
        delta=DELTA,
    )


def _classifier_only(epsilon):
    return make_pipeline(
        paper_preprocessor(),
        DPLogisticRegression(epsilon=epsilon, delta=DELTA, classes=[0, 1]),
    )


def _worker():
    """Fit the diffprivlib pipeline on the CSVs of the spec read from stdin."""
    import pandas as pd
    from diffprivlib.models import LogisticRegression, StandardScaler
    from sklearn.preprocessing import OneHotEncoder

    spec = json.load(sys.stdin)
    cats = spec["categories"]
    X, X_test = (pd.read_csv(spec[k], dtype={c: object for c in cats}) for k in "XT")
    y, y_test = (np.loadtxt(spec[k]) for k in ("y", "y_test"))
    numeric = list(PUBLIC_RANGES)
    lo, hi = (np.array([PUBLIC_RANGES[c][i] for c in numeric]) for i in (0, 1))
    out = {}
    for eps in spec["epsilons"]:
        acc = []
        for _ in range(spec["seeds"]):
            columns = ColumnTransformer(
                [
                    (
                        "cat",
                        OneHotEncoder(
                            categories=list(cats.values()),
                            handle_unknown="ignore",
                            sparse_output=False,
                        ),
                        list(cats),
                    ),
                    (
                        "num",
                        StandardScaler(epsilon=0.1 * eps, bounds=(lo, hi)),
                        numeric,
                    ),
                ]
            )
            model = make_pipeline(
                columns,
                Normalizer(),
                LogisticRegression(epsilon=0.9 * eps, data_norm=1.0),
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X, y)
            acc.append(float(model.score(X_test, y_test)))
        out[str(eps)] = acc
    print(json.dumps(out))


def _diffprivlib_row(python, X, X_test, y, y_test, seeds):
    """Accuracies per epsilon of the worker in ``python``; None if it fails."""
    cats = {
        c: [str(v) for v in X[c].cat.categories]
        for c in X.columns
        if str(X[c].dtype) == "category"
    }
    with tempfile.TemporaryDirectory() as tmp:
        spec = {"categories": cats, "epsilons": list(EPSILONS), "seeds": seeds}
        for key, frame in (("X", X), ("T", X_test)):
            spec[key] = os.path.join(tmp, f"{key}.csv")
            frame.to_csv(spec[key], index=False)
        for key, labels in (("y", y), ("y_test", y_test)):
            spec[key] = os.path.join(tmp, f"{key}.txt")
            np.savetxt(spec[key], np.asarray(labels))
        run = subprocess.run(
            [python, __file__, "--worker"],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
        )
    if run.returncode != 0:
        print(f"diffprivlib worker failed: {run.stderr.strip().splitlines()[-1:]}")
        return None
    return {float(k): v for k, v in json.loads(run.stdout).items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--others-python", default=os.environ.get("SKLEARN_DPGD_OTHERS_PYTHON")
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return _worker()
    X, X_test, y, y_test = load_benchmark_split("adult", args.data_home)
    rows = {
        "private, declared bounds": lambda e: _private(X, e, False),
        "private, DP bounds (10%)": lambda e: _private(X, e, True),
        "classifier only, non-private prep.": _classifier_only,
    }
    print(f"Adult, delta={DELTA:g}, {args.seeds} seeds (fresh entropy each)")
    header = f"{'pipeline':38s}" + "".join(f"  eps={e:<13g}" for e in EPSILONS)
    print(header + "  spent (max)")
    start = time.perf_counter()
    for name, build in rows.items():
        cells, spent = [], 0.0
        for eps in EPSILONS:
            acc = []
            for _ in range(args.seeds):
                model = build(eps)
                with warnings.catch_warnings():
                    # The non-private row warns by design (printed in its name).
                    warnings.simplefilter("ignore")
                    model.fit(X, y)
                acc.append(model.score(X_test, y_test))
                if hasattr(model, "epsilon_"):
                    spent = max(spent, model.epsilon_ / eps)
            cells.append(f"{np.mean(acc):.4f}+-{np.std(acc):.4f}")
        print(
            f"{name:38s}"
            + "".join(f"  {c:17s}" for c in cells)
            + (f"  {spent:.6f} x eps" if spent else "  n/a")
        )
    if args.others_python:
        accs = _diffprivlib_row(args.others_python, X, X_test, y, y_test, args.seeds)
        if accs is not None:
            cells = [f"{np.mean(accs[e]):.4f}+-{np.std(accs[e]):.4f}" for e in EPSILONS]
            print(
                f"{'diffprivlib StdScaler + LR (pure)':38s}"
                + "".join(f"  {c:17s}" for c in cells)
                + "  1 x eps, delta=0"
            )
    else:
        print("(diffprivlib row skipped: no --others-python)")
    print(
        "targets (issue 20)                    "
        + "".join(f"  >= {TARGETS[e]:<14g}" for e in EPSILONS)
    )
    print(f"[{time.perf_counter() - start:.0f} s]")


if __name__ == "__main__":
    main()
