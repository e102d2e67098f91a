"""How each scikit-learn construct around a private fit is classified (issue 41).

    python benchmarks/bench_boundary.py

For each construct (a package estimator at epsilon 0.5 inside it, 240 synthetic
rows): the first ``PrivacyLeakWarning`` under the default filters (and whether its
location is the calling line of this script), and under ``PrivacyLedger(strict=True)``
whether the construct ran or raised ``PrivacyLeakError``, with the number of private
fits the ledger recorded (0: the error came before any fit). Run it against an
older checkout (``PYTHONPATH=<old tree>``) for the "before" column of the issue's
closing note. The "unclassified third-party meta-estimator" is written to a
temporary ``site-packages`` directory, as an installed package the table does not
list would be.
"""

import importlib
import os
import sys
import tempfile
import textwrap
import warnings

import joblib
import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    VotingClassifier,
)
from sklearn.feature_selection import (
    RFE,
    RFECV,
    SelectFromModel,
    SequentialFeatureSelector,
)
from sklearn.model_selection import (
    FixedThresholdClassifier,
    GridSearchCV,
    TunedThresholdClassifierCV,
    cross_val_score,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import (
    ClassifierChain,
    MultiOutputClassifier,
    MultiOutputRegressor,
    RegressorChain,
)
from sklearn.preprocessing import StandardScaler
from sklearn.semi_supervised import SelfTrainingClassifier

import sklearn_dpgd._warnings as W
from sklearn_dpgd import DPLinearRegression, DPLogisticRegression
from sklearn_dpgd.accounting import PrivacyLedger
from sklearn_dpgd.exceptions import PrivacyLeakError, PrivacyLeakWarning

rng = np.random.default_rng(0)
X = rng.normal(size=(240, 4)) / 3
Y = (X[:, 0] > 0).astype(int)
Y2 = np.c_[Y, 1 - Y]
YR = np.clip(X[:, 0], -1, 1)
Y3 = np.digitize(X[:, 0], [-0.2, 0.2])


def dp():
    return DPLogisticRegression(classes=[0, 1], max_iter=3, epsilon=0.5)


def reg():
    return DPLinearRegression(y_bounds=(-1.0, 1.0), epsilon=0.5)


d = tempfile.mkdtemp()
os.makedirs(f"{d}/site-packages/unclassified_meta")
open(f"{d}/site-packages/unclassified_meta/__init__.py", "w").write(
    textwrap.dedent("""
class SubsetMeta:
    def __init__(self, estimator): self.estimator = estimator
    def fit(self, X, y):
        from sklearn.base import clone
        self.estimator_ = clone(self.estimator).fit(X[:120], y[:120]); return self
""")
)
sys.path.insert(0, f"{d}/site-packages")
Meta = importlib.import_module("unclassified_meta").SubsetMeta
P = [
    (
        "TransformedTargetRegressor(transformer=StandardScaler())",
        lambda: TransformedTargetRegressor(reg(), transformer=StandardScaler()).fit(
            X, YR
        ),
    ),
    (
        "TransformedTargetRegressor(func=np.tanh, check_inverse=False)",
        lambda: TransformedTargetRegressor(
            reg(), func=np.tanh, inverse_func=np.arctanh, check_inverse=False
        ).fit(X, YR),
    ),
    ("RFECV", lambda: RFECV(dp(), cv=2).fit(X, Y)),
    (
        "TunedThresholdClassifierCV",
        lambda: TunedThresholdClassifierCV(dp(), cv=2).fit(X, Y),
    ),
    ("AdaBoostClassifier", lambda: AdaBoostClassifier(dp(), n_estimators=2).fit(X, Y)),
    (
        "SelfTrainingClassifier",
        lambda: SelfTrainingClassifier(dp(), max_iter=2).fit(
            X, np.where(np.arange(240) % 3 == 0, -1, Y)
        ),
    ),
    (
        "SequentialFeatureSelector",
        lambda: SequentialFeatureSelector(dp(), n_features_to_select=2, cv=2).fit(X, Y),
    ),
    ("RFE", lambda: RFE(dp(), n_features_to_select=2).fit(X, Y)),
    ("MultiOutputClassifier", lambda: MultiOutputClassifier(dp()).fit(X, Y2)),
    (
        "MultiOutputRegressor",
        lambda: MultiOutputRegressor(reg()).fit(X, np.c_[YR, -YR]),
    ),
    ("RegressorChain", lambda: RegressorChain(reg()).fit(X, np.c_[YR, -YR])),
    ("ClassifierChain", lambda: ClassifierChain(dp()).fit(X, Y2)),
    ("OneVsRestClassifier", lambda: OneVsRestClassifier(dp()).fit(X, Y3)),
    (
        "VotingClassifier",
        lambda: VotingClassifier([("a", dp()), ("b", dp())]).fit(X, Y),
    ),
    ("BaggingClassifier", lambda: BaggingClassifier(dp(), n_estimators=2).fit(X, Y)),
    (
        "BaggingClassifier(bootstrap=False)",
        lambda: BaggingClassifier(dp(), n_estimators=2, bootstrap=False).fit(X, Y),
    ),
    ("GridSearchCV", lambda: GridSearchCV(dp(), {"alpha": [0.0, 0.1]}, cv=2).fit(X, Y)),
    (
        "cross_val_score(n_jobs=2, loky)",
        lambda: cross_val_score(dp(), X, Y, cv=2, n_jobs=2),
    ),
    ("unclassified third-party meta-estimator", lambda: Meta(dp()).fit(X, Y)),
    ("FixedThresholdClassifier", lambda: FixedThresholdClassifier(dp()).fit(X, Y)),
    ("SelectFromModel", lambda: SelectFromModel(dp()).fit(X, Y)),
    (
        "user joblib.Parallel (threads)",
        lambda: joblib.Parallel(n_jobs=2, backend="threading")(
            joblib.delayed(dp().fit)(X, Y) for _ in range(2)
        ),
    ),
    (
        "OneVsRestClassifier(classes=[0,1,2])",
        lambda: OneVsRestClassifier(
            DPLogisticRegression(classes=[0, 1, 2], max_iter=3)
        ).fit(X, Y3),
    ),
]


def main():
    print(
        "| construct | default: PrivacyLeakWarning (location) "
        "| strict: outcome, fits recorded |"
    )
    print("|---|---|---|")
    for name, run in P:
        W._SHOWN.clear()
        with warnings.catch_warnings(record=True) as c:
            warnings.simplefilter("default")
            warnings.simplefilter("ignore", FutureWarning)
            try:
                run()
                err = ""
            except Exception as e:
                err = f"{type(e).__name__}: {str(e)[:60]}"
        leaks = [
            w
            for w in c
            if w.category is PrivacyLeakWarning and "random_state" not in str(w.message)
        ]
        here = (
            "here"
            if all(w.filename == __file__ for w in leaks)
            else "sklearn/joblib/package file"
        )
        first = (str(leaks[0].message)[:70] + f"... ({here})") if leaks else "silent"
        if err:
            first = f"{first}; then {err}"
        W._SHOWN.clear()
        led = PrivacyLedger(strict=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with led:
                    run()
                out = "ran"
            except PrivacyLeakError:
                out = "PrivacyLeakError"
            except Exception as e:
                out = f"{type(e).__name__}: {str(e)[:50]}"
        print(f"| {name} | {first} | {out}, {len(led.entries)} |")


if __name__ == "__main__":
    main()
