"""R^2 and RMSE of the private regressors against scikit-learn and diffprivlib.

Run from the repository root::

    python benchmarks/bench_regression.py [--seeds 5] [--dataset diabetes|adult|all]
        [--diffprivlib-python PATH]

Protocol: epsilon in {0.1, 0.5, 1, 2, 4}, delta = 1e-6, mean (std) over the seeds of
the test R^2 and RMSE (target units), estimators at their defaults (nothing is tuned
on a test split).

* diabetes (scikit-learn's embedded data, 442 rows, 10 features): a 70/30 split per
  seed; features clipped to the declared range (-0.2, 0.2) and mapped to [0, 1]
  (no budget), unit-norm rows for the private models; target bounds declared as
  (0, 400) (a round range, not the observed one).
* adult (UCI Adult's standard train/test split, 32,561/16,281 rows): the target is
  ``hours-per-week`` (public range 1 to 99, from ``adult.names``' coding), the
  features the other 13 columns with the private recipe of
  :func:`sklearn_dpgd.datasets.private_pipeline`: declared categories one-hot
  encoded, the 5 numeric columns clipped and scaled with bounds estimated by DP
  quantiles inside public ranges (10% of the budget), unit-norm rows, then the
  regressor with the rest of the budget; all of it one ``(epsilon, delta)``.

Baselines: scikit-learn's ``LinearRegression`` and ``HuberRegressor`` (non-private)
on the same one-hot and min-max features with the public ranges, and diffprivlib's
``LinearRegression`` (Holohan et al. 2019) at the same epsilon with the public
bounds of the features and the target, as it predicts and with its predictions
clipped to the target bounds (as the private regressors here clip theirs).
diffprivlib is *pure* epsilon-DP (delta = 0), so its guarantee is stronger than
``(epsilon, 1e-6)``: a like-for-like comparison of the epsilon a user asks for,
not of equal guarantees. diffprivlib 0.6 imports only beside scikit-learn < 1.6,
so it runs in its own interpreter (``--diffprivlib-python``, default
``/tmp/dpl-venv/bin/python``: ``pip install diffprivlib "scikit-learn<1.6"``),
on the same arrays; without it its rows say so.
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
from sklearn.datasets import load_diabetes
from sklearn.linear_model import HuberRegressor, LinearRegression
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import DPHuberRegressor, DPLinearRegression
from sklearn_dpgd.datasets import load_adult
from sklearn_dpgd.datasets._schema import _ADULT_CATEGORIES, _ADULT_RANGES
from sklearn_dpgd.exceptions import PrivacyLeakWarning
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPMinMaxScaler, DPOneHotEncoder

EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0)
DELTA = 1e-6
DIABETES_X = (-0.2, 0.2)
DIABETES_Y = (0.0, 400.0)
ADULT_TARGET = "hours-per-week"
ADULT_Y = (1.0, 99.0)

_DIFFPRIVLIB = r"""
import json, sys, warnings
import numpy as np
from diffprivlib.models import LinearRegression
from sklearn.metrics import mean_squared_error, r2_score
warnings.simplefilter("ignore")
spec = json.load(open(sys.argv[1]))
out = {}
for key, path in spec["splits"].items():
    d = np.load(path)
    rows = []
    for eps in spec["epsilons"]:
        reg = LinearRegression(
            epsilon=eps, bounds_X=(0.0, 1.0), bounds_y=tuple(spec["y_bounds"]),
            random_state=int(d["seed"]),
        ).fit(d["X"], d["y"])
        pred = reg.predict(d["X_test"])
        cut = np.clip(pred, *spec["y_bounds"])
        rows.append([r2_score(d["y_test"], pred),
                     mean_squared_error(d["y_test"], pred) ** 0.5,
                     r2_score(d["y_test"], cut),
                     mean_squared_error(d["y_test"], cut) ** 0.5])
    out[key] = rows
print(json.dumps(out))
"""


def _diabetes_splits(seeds):
    X, y = load_diabetes(return_X_y=True)
    for seed in range(seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, random_state=seed
        )
        yield seed, X_tr, X_te, y_tr, y_te


def _diabetes_public(X):
    # Declared bounds, no budget: the same map for every model.
    return DPMinMaxScaler(bounds=DIABETES_X).fit_transform(X)


def _diabetes_private(Regressor, epsilon, seed):
    return make_private_pipeline(
        DPMinMaxScaler(bounds=DIABETES_X),
        Normalizer(),
        Regressor(y_bounds=DIABETES_Y),
        epsilon=epsilon,
        delta=DELTA,
        random_state=seed,
    )


def _adult_data():
    X, y_income = load_adult(subset="train")
    X_te, _ = load_adult(subset="test")
    y, y_te = X.pop(ADULT_TARGET).to_numpy(float), X_te.pop(ADULT_TARGET)
    return X, X_te, y, y_te.to_numpy(float)


def _adult_columns(private):
    categorical = list(_ADULT_CATEGORIES)
    numeric = [c for c in _ADULT_RANGES if c != ADULT_TARGET]
    encoder = DPOneHotEncoder([sorted(_ADULT_CATEGORIES[c]) for c in categorical])
    ranges = [_ADULT_RANGES[c] for c in numeric]
    # The private recipe estimates the bounds inside the public ranges (DP
    # quantiles); the baselines use the public ranges themselves (no budget).
    scaler = (
        DPMinMaxScaler(bounds_range=ranges)
        if private
        else DPMinMaxScaler(bounds=np.array(ranges, dtype=float))
    )
    return ColumnTransformer([("cat", encoder, categorical), ("num", scaler, numeric)])


def _adult_private(Regressor, epsilon, seed):
    return make_private_pipeline(
        _adult_columns(private=True),
        Normalizer(),
        Regressor(y_bounds=ADULT_Y),
        epsilon=epsilon,
        delta=DELTA,
        random_state=seed,
    )


def _scores(y_true, pred):
    return r2_score(y_true, pred), mean_squared_error(y_true, pred) ** 0.5


def _diffprivlib(python, splits, y_bounds):
    """``{seed: [[r2, rmse] per epsilon]}`` from diffprivlib, or None."""
    if not (python and os.path.exists(python)):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for seed, (X, y, X_te, y_te) in splits.items():
            path = os.path.join(tmp, f"{seed}.npz")
            np.savez(path, X=X, y=y, X_test=X_te, y_test=y_te, seed=seed)
            paths[str(seed)] = path
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            json.dump(
                {"splits": paths, "epsilons": list(EPSILONS), "y_bounds": y_bounds}, f
            )
        script = os.path.join(tmp, "run.py")
        with open(script, "w") as f:
            f.write(_DIFFPRIVLIB)
        done = subprocess.run(
            [python, script, spec], capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        print(f"diffprivlib failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return {int(k): v for k, v in json.loads(done.stdout).items()}


def _row(name, values):
    values = np.asarray(values)  # (seeds, epsilons, 2)
    cells = [
        f"{values[:, j, 0].mean():.3g} ({values[:, j, 0].std():.2g}) / "
        f"{values[:, j, 1].mean():.3g}"
        for j in range(values.shape[1])
    ]
    print(f"| {name:<28} | " + " | ".join(cells) + " |")


def _table(title, results):
    print(f"\n### {title}: test R^2 mean (std) / RMSE over the seeds\n")
    print("| model | " + " | ".join(f"eps={e:g}" for e in EPSILONS) + " |")
    print("|---|" + "---|" * len(EPSILONS))
    for name, values in results.items():
        if values is None:
            print(f"| {name:<28} | " + " | ".join(["not run"] * len(EPSILONS)) + " |")
        else:
            _row(name, values)


def run(dataset, seeds, dpl_python):
    t0 = time.perf_counter()
    results = {"DPLinearRegression": [], "DPHuberRegressor": []}
    baselines = {
        "LinearRegression (non-private)": [],
        "HuberRegressor (non-private)": [],
    }
    dpl_splits = {}
    if dataset == "diabetes":
        splits = list(_diabetes_splits(seeds))
        for seed, X_tr, X_te, y_tr, y_te in splits:
            P_tr, P_te = _diabetes_public(X_tr), _diabetes_public(X_te)
            dpl_splits[seed] = (P_tr, y_tr, P_te, y_te)
            for name, model in (
                ("LinearRegression (non-private)", LinearRegression()),
                ("HuberRegressor (non-private)", HuberRegressor(max_iter=1000)),
            ):
                pred = model.fit(P_tr, y_tr).predict(P_te)
                baselines[name].append([_scores(y_te, pred)] * len(EPSILONS))
            for Regressor in (DPLinearRegression, DPHuberRegressor):
                results[Regressor.__name__].append(
                    [
                        _scores(
                            y_te,
                            _diabetes_private(Regressor, e, seed)
                            .fit(X_tr, y_tr)
                            .predict(X_te),
                        )  # fmt: skip
                        for e in EPSILONS
                    ]
                )
        y_bounds = list(DIABETES_Y)
    else:
        X, X_te, y, y_te = _adult_data()
        public = _adult_columns(private=False).fit(X)
        P, P_te = public.transform(X), public.transform(X_te)
        for name, model in (
            ("LinearRegression (non-private)", LinearRegression()),
            ("HuberRegressor (non-private)", HuberRegressor(max_iter=1000)),
        ):
            pred = model.fit(P, y).predict(P_te)
            baselines[name] = [[_scores(y_te, pred)] * len(EPSILONS)]
        for seed in range(seeds):
            dpl_splits[seed] = (P, y, P_te, y_te)
            for Regressor in (DPLinearRegression, DPHuberRegressor):
                results[Regressor.__name__].append(
                    [
                        _scores(
                            y_te,
                            _adult_private(Regressor, e, seed).fit(X, y).predict(X_te),
                        )  # fmt: skip
                        for e in EPSILONS
                    ]
                )
        y_bounds = list(ADULT_Y)
    dpl = _diffprivlib(dpl_python, dpl_splits, y_bounds)
    dpl_rows = dpl_cut = None
    if dpl is not None:
        values = np.array([dpl[s] for s in sorted(dpl)])  # (seeds, eps, 4)
        dpl_rows, dpl_cut = values[:, :, :2], values[:, :, 2:]
    _table(
        f"{dataset} ({seeds} seeds, delta={DELTA:g}; {time.perf_counter() - t0:.0f} s)",
        {
            **results,
            "diffprivlib LinearRegression (pure eps-DP)": dpl_rows,
            "diffprivlib, predictions clipped to bounds_y": dpl_cut,
            **baselines,
        },
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--dataset", choices=["diabetes", "adult", "all"], default="all"
    )
    parser.add_argument("--diffprivlib-python", default="/tmp/dpl-venv/bin/python")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=PrivacyLeakWarning)  # fixed seeds
    print(f"python {sys.version.split()[0]}, epsilons {EPSILONS}, delta {DELTA:g}")
    for dataset in ("diabetes", "adult") if args.dataset == "all" else (args.dataset,):
        run(dataset, args.seeds, args.diffprivlib_python)


if __name__ == "__main__":
    main()
