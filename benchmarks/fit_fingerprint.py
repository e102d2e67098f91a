"""A fingerprint of recorded fits, to show that a refactoring changes no result.

Runs a fixed set of seeded fits through the public API only (every solver, noise
schedule, adaptive schedule, baseline, search, private pipeline and transformer; dense,
CSR, float32, multiclass, minibatch, ``secure_mode`` excluded since it draws from the
operating system) and prints one SHA-256 over every fitted array, ``epsilon_`` and
prediction, then one line per fit. Run it before and after a change that must not
change behaviour; the two hashes must be equal.

    python benchmarks/fit_fingerprint.py [--pickle PATH]

``--pickle PATH`` also writes the fitted objects (estimators, schedules, searches,
pipelines, transformers) to PATH, the fixture from which the tests check that a pickle
written by an earlier layout of the package still loads and predicts the same.

Integer seeds make the noise reproducible, which the package warns about with a
``PrivacyLeakWarning``: that is the point here, so the warnings are silenced.
"""

import argparse
import hashlib
import pickle
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.preprocessing import Normalizer

import sklearn_dpgd
from sklearn_dpgd import (
    AdaptiveStepSchedule,
    DPHuberSVM,
    DPLogisticRegression,
    ExponentialDecaySchedule,
    LineSearchSchedule,
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
    PLOptimalSchedule,
    PURSchedule,
    StepDecaySchedule,
    TimeDecaySchedule,
    UniformSchedule,
)
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPSimpleImputer,
    DPStandardScaler,
)

SEED = 20261127


def _data():
    X, y = load_breast_cancer(return_X_y=True)
    Xn = Normalizer().fit_transform((X - X.min(0)) / (X.max(0) - X.min(0)))
    Xd, yd = load_digits(return_X_y=True)
    Xd = Normalizer().fit_transform(Xd)
    rng = np.random.default_rng(0)
    cats = rng.integers(0, 4, size=(400, 2)).astype(float)
    return X, Xn, y, Xd, yd, cats


def _fits():
    """``[(name, fitted object, X used for predictions or None)]``."""
    X, Xn, y, Xd, yd, cats = _data()
    b = {"classes": [0, 1], "random_state": SEED}
    m = {"classes": list(range(10)), "random_state": SEED}
    out = []

    def est(name, model, Xf, yf):
        out.append((name, model.fit(Xf, yf), Xf))

    est("logistic default", DPLogisticRegression(**b), Xn, y)
    est(
        "logistic eps 0.3 replace",
        DPLogisticRegression(epsilon=0.3, neighboring="replace", **b),
        Xn,
        y,
    )
    est("logistic csr", DPLogisticRegression(**b), sp.csr_matrix(Xn), y)
    est("logistic float32", DPLogisticRegression(**b), Xn.astype(np.float32), y)
    est("logistic multiclass", DPLogisticRegression(**m), Xd, yd)
    est("logistic multiclass csr", DPLogisticRegression(**m), sp.csr_matrix(Xd), yd)
    est(
        "logistic minibatch",
        DPLogisticRegression(batch_size=64, max_iter=200, **b),
        Xn,
        y,
    )
    est("logistic snowball", DPLogisticRegression(solver="snowball", **b), Xn, y)
    est(
        "logistic public n",
        DPLogisticRegression(public_n_samples=569, alpha=0.0, calibration=None, **b),
        Xn,
        y,
    )
    for sched in [
        UniformSchedule(),
        ExponentialDecaySchedule(),
        StepDecaySchedule(),
        TimeDecaySchedule(),
        PLOptimalSchedule(),
        PURSchedule(),
        AdaptiveStepSchedule(),
        LineSearchSchedule(),
    ]:
        est(
            f"logistic {type(sched).__name__}",
            DPLogisticRegression(schedule=sched, **b),
            Xn,
            y,
        )
    est("huber", DPHuberSVM(**b), Xn, y)
    est("huber multiclass", DPHuberSVM(**m), Xd, yd)
    est("huber line search", DPHuberSVM(schedule=LineSearchSchedule(), **b), Xn, y)
    est("output perturbation", OutputPerturbationClassifier(**b), Xn, y)
    est("phased localization", PhasedLocalizationClassifier(**b), Xn, y)
    est(
        "grid search",
        PrivateGridSearchCV(DPLogisticRegression(classes=[0, 1]), random_state=SEED),
        Xn,
        y,
    )
    est(
        "linear scaling",
        LinearScalingSearch(
            DPLogisticRegression(classes=[0, 1]), n_candidates=3, random_state=SEED
        ),
        Xn,
        y,
    )
    ranges = [(0.0, 3000.0)] * X.shape[1]
    est(
        "private pipeline",
        make_private_pipeline(
            DPMinMaxScaler(bounds_range=ranges),
            Normalizer(),
            DPLogisticRegression(classes=[0, 1]),
            random_state=SEED,
        ),
        X,
        y,
    )
    est(
        "private pipeline standard",
        make_private_pipeline(
            DPStandardScaler(bounds=(0.0, 3000.0)),
            DPLogisticRegression(classes=[0, 1]),
            random_state=SEED,
        ),
        X,
        y,
    )
    out.append(
        ("minmax", DPMinMaxScaler(bounds_range=ranges, random_state=SEED).fit(X), X)
    )
    out.append(
        (
            "standard",
            DPStandardScaler(bounds=(0.0, 3000.0), random_state=SEED).fit(X),
            X,
        )
    )
    holes = X.copy()
    holes[::7, 3] = np.nan
    out.append(
        (
            "imputer",
            DPSimpleImputer(bounds=(0.0, 3000.0), random_state=SEED).fit(holes),
            holes,
        )
    )
    out.append(("onehot", DPOneHotEncoder(random_state=SEED).fit(cats), cats))
    return out


def _arrays(name, obj, X):
    """Every number the fit produced, in a fixed order."""
    found = []
    for attr in sorted(vars(obj)):
        if attr.endswith("_") and not attr.startswith("_"):
            value = getattr(obj, attr)
            if isinstance(value, (int, float, np.ndarray, np.generic)):
                found.append((attr, np.asarray(value, dtype=float)))
    if hasattr(obj, "predict"):
        found.append(("predict", np.asarray(obj.predict(X), dtype=float)))
    if hasattr(obj, "predict_proba"):
        found.append(("predict_proba", np.asarray(obj.predict_proba(X))))
    if hasattr(obj, "transform"):
        t = obj.transform(X)
        found.append(
            ("transform", np.asarray(t.toarray() if sp.issparse(t) else t, dtype=float))
        )
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pickle", help="also write the fitted objects to this file")
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = _fits()
        total = hashlib.sha256()
        lines = []
        for name, obj, X in fits:
            h = hashlib.sha256()
            for attr, a in _arrays(name, obj, X):
                h.update(attr.encode())
                h.update(np.ascontiguousarray(a).tobytes())
            total.update(h.digest())
            lines.append(f"{h.hexdigest()[:16]}  {name}")
    version, digest = sklearn_dpgd.__version__, total.hexdigest()
    print(f"sklearn_dpgd {version}: {len(fits)} fits, sha256 {digest}")
    print("\n".join(lines))
    if args.pickle:
        with open(args.pickle, "wb") as f:
            # The first 20 rows of each fit's input and what the fit predicted on them,
            # so that a loaded object can be checked without the data sets.
            fixture = []
            for name, obj, X in fits:
                rows = X[:20]
                fixture.append((name, obj, rows, _arrays(name, obj, rows)[-2:]))
            pickle.dump(fixture, f, protocol=4)


if __name__ == "__main__":
    main()
