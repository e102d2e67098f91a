"""``private_pipeline`` on ``DPTableVectorizer`` vs the recipe it replaced (issue 44).

Mean test accuracy over ``n_seeds`` fits of each recipe table at epsilon 0.1, 0.4
and 1 (delta 1e-8 for Adult and Bank, the benchmark splits of
``load_benchmark_split``; breast cancer: stratified 80/20 splits, delta 1e-6):

* ``before``: the hand-written ColumnTransformer of DPOneHotEncoder and
  DPMinMaxScaler (DP quantiles inside ranges starting one unit below the data
  dictionary's), Normalizer, DPLogisticRegression (the recipe until issue 44);
* ``after``: ``datasets.private_pipeline`` as it is now (DPTableVectorizer with
  the data dictionary's ranges, ``log1p`` on the columns whose range spans three
  orders of magnitude);
* ``after, no log``: the same vectorizer with ``log=[]`` (what the heavy-tail rule
  gives);
* breast cancer: ``FunctionTransformer(np.log1p)`` and ``DPStandardScaler`` before,
  the vectorizer with ``scaler="standard"`` after (the same mechanisms), over 10
  splits x 5 seeds.

Run: ``SKLEARN_DPGD_DATA=... python benchmarks/bench_table_vectorizer.py [n_seeds]``
(about 3 minutes with 6 seeds on one core).
"""

import sys
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import FunctionTransformer, Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, private_pipeline
from sklearn_dpgd.datasets._recipes import _adult_columns, _bank_columns
from sklearn_dpgd.datasets._schema import _BREAST_CANCER_UPPER
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler

EPSILONS = (0.1, 0.4, 1.0)


def before(name, epsilon, seed):
    columns = _adult_columns() if name == "adult" else _bank_columns()
    return make_private_pipeline(
        columns,
        Normalizer(),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=epsilon,
        random_state=seed,
    )


def after(name, epsilon, seed):
    return private_pipeline(name, epsilon=epsilon, random_state=seed)


def no_log(name, epsilon, seed):
    return after(name, epsilon, seed).set_params(dptablevectorizer__log=[])


def table(name, n_seeds):
    X, X_test, y, y_test = load_benchmark_split(name)
    makers = {"before": before, "after": after, "after, no log": no_log}
    print(f"\n{name}: mean test accuracy over {n_seeds} seeds (min)")
    print(f"{'epsilon':>8} | " + " | ".join(f"{m:>20}" for m in makers))
    for eps in EPSILONS:
        cells = []
        for make in makers.values():
            accs = [
                make(name, eps, 100 + s).fit(X, y).score(X_test, y_test)
                for s in range(n_seeds)
            ]
            cells.append(f"{np.mean(accs):>11.4f} ({np.min(accs):.3f})")
        print(f"{eps:>8g} | " + " | ".join(cells), flush=True)


def _breast_cancer_before(epsilon, seed):
    upper = np.log1p(np.tile(_BREAST_CANCER_UPPER, 3))
    return make_private_pipeline(
        FunctionTransformer(np.log1p),
        DPStandardScaler(bounds=np.column_stack([np.zeros_like(upper), upper])),
        DPLogisticRegression(classes=[0, 1], alpha=0.1),
        epsilon=epsilon,
        delta=1e-6,
        preprocessing_share=0.2,
        random_state=seed,
    )


def _breast_cancer_after(epsilon, seed):
    return private_pipeline(
        "breast_cancer", epsilon=epsilon, delta=1e-6, random_state=seed
    )


def breast_cancer(n_splits=10, repeats=5):
    X, y = load_breast_cancer(return_X_y=True)
    splits = list(
        StratifiedShuffleSplit(n_splits, test_size=0.2, random_state=0).split(X, y)
    )
    print(
        f"\nbreast_cancer: mean test accuracy over {n_splits} splits x {repeats} "
        "seeds (standard error)"
    )
    print(f"{'epsilon':>8} | {'before':>16} | {'after':>16}")
    for eps in EPSILONS:
        cells = []
        for make in (_breast_cancer_before, _breast_cancer_after):
            accs = [
                make(eps, 1000 * r + i).fit(X[a], y[a]).score(X[b], y[b])
                for r in range(repeats)
                for i, (a, b) in enumerate(splits)
            ]
            se = np.std(accs) / np.sqrt(len(accs))
            cells.append(f"{np.mean(accs):>7.4f} ({se:.4f})")
        print(f"{eps:>8g} | " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")
    warnings.filterwarnings("ignore", category=UserWarning)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    for data in ("adult", "bank"):
        table(data, n)
    breast_cancer()
