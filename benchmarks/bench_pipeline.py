"""End-to-end private pipelines on Adult: from the raw DataFrame, one total epsilon.

Run from the repository root (Adult is downloaded on first use; see --data-home)::

    python benchmarks/bench_pipeline.py [--data-home DIR] [--seeds 3]

Rows (test accuracy, mean and std over the seeds, Adult's standard split,
delta = 1e-8, the classifier's defaults; nothing is tuned on the test split):

* ``private_pipeline("adult")``: the documented recipe,
  :func:`sklearn_dpgd.datasets.private_pipeline`: ``DPOneHotEncoder`` with the
  category lists of ``adult.names`` (public), ``DPMinMaxScaler`` with bounds
  estimated by DP quantiles (0.01 and 0.99) inside public ranges (10% of the
  budget, the pipeline's default split), ``Normalizer`` and
  ``DPLogisticRegression`` (90%);
* ``same, declared bounds``: the same pipeline with the public ranges declared as
  the bounds (``set_params``): the preprocessing reads nothing, the classifier
  gets the whole budget;
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

The public ranges and categories are those of ``private_pipeline("adult")`` (read
from its parameters; see its docstring for their sources), never the data.
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
    from sklearn_dpgd.datasets import (
        load_benchmark_split,
        paper_preprocessor,
        private_pipeline,
    )

EPSILONS = (0.1, 0.4, 1.0)
DELTA = 1e-8
TARGETS = {0.1: 0.815, 0.4: 0.833, 1.0: 0.838}


def _declared_bounds(epsilon):
    """``private_pipeline("adult")`` with its public ranges declared as bounds."""
    model = private_pipeline("adult", epsilon=epsilon, delta=DELTA)
    return model.set_params(dptablevectorizer__quantiles=None)


def _public_schema():
    """Categories and ranges of the recipe, by column, for the diffprivlib worker."""
    vectorizer = private_pipeline("adult", epsilon=1.0).named_steps["dptablevectorizer"]
    return (
        {c: list(v) for c, v in vectorizer.categories.items()},
        {c: list(r) for c, r in vectorizer.bounds.items()},
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
    cats, ranges = spec["categories"], spec["ranges"]
    X, X_test = (pd.read_csv(spec[k], dtype={c: object for c in cats}) for k in "XT")
    y, y_test = (np.loadtxt(spec[k]) for k in ("y", "y_test"))
    numeric = list(ranges)
    lo, hi = (np.array([ranges[c][i] for c in numeric]) for i in (0, 1))
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
    cats, ranges = _public_schema()
    with tempfile.TemporaryDirectory() as tmp:
        spec = {
            "categories": cats,
            "ranges": ranges,
            "epsilons": list(EPSILONS),
            "seeds": seeds,
        }
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
        'private_pipeline("adult")': lambda e: private_pipeline(
            "adult", epsilon=e, delta=DELTA
        ),
        "same, declared bounds": _declared_bounds,
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
