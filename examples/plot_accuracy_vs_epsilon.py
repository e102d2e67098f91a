"""
Accuracy against epsilon
========================

Test accuracy of :class:`~sklearn_dpgd.DPLogisticRegression` (defaults) as the privacy
budget grows, next to scikit-learn's non-private ``LogisticRegression`` and the fully
private recipe :func:`~sklearn_dpgd.datasets.private_pipeline` (every statistic of
its preprocessing private, on the same total budget, fitted on the raw rows; the
classifier curve's preprocessing is fitted once beforehand, on a budget of its own
for breast cancer and non-privately, as in the papers, for Adult). By default it
uses scikit-learn's embedded breast-cancer data; pass ``--adult`` to use Adult
(standard split, the papers' preprocessing; :func:`~sklearn_dpgd.datasets.fetch_adult`
downloads it on first use). Saves
``accuracy_vs_epsilon.png`` (or ``--out``).
"""

import argparse
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.datasets import private_pipeline  # noqa: E402

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

parser = argparse.ArgumentParser()
parser.add_argument(
    "--adult", action="store_true", help="use Adult (fetch_adult downloads it once)"
)
parser.add_argument("--data-home", default=None, help="folder for adult/ (optional)")
parser.add_argument("--out", default="accuracy_vs_epsilon.png")
parser.add_argument("--seeds", type=int, default=5)
args = parser.parse_args()

if args.adult:
    from sklearn_dpgd.datasets import fetch_adult, paper_preprocessor

    X_train, y_train = fetch_adult(args.data_home, subset="train")
    X_test, y_test = fetch_adult(args.data_home, subset="test")
    pre = paper_preprocessor()
    description = "Adult, standard split"
    recipe = "adult"
else:
    from sklearn.datasets import load_breast_cancer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, Normalizer

    from sklearn_dpgd.preprocessing import DPStandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    # Private preprocessing: log1p, DP standardisation, unit-norm rows.
    pre = make_pipeline(
        FunctionTransformer(np.log1p),  # value by value: reads no statistic
        # A DP mean and variance of every column inside one public range, on its own
        # budget (spent once, before the classifiers' budgets below).
        DPStandardScaler(bounds=(0.0, 9.0), epsilon=0.2, delta=1e-8, random_state=0),
        Normalizer(),  # unit-norm rows, row by row
    )
    description = "breast cancer (scikit-learn), 80/20 split"
    recipe = "breast_cancer"
raw = (X_train, X_test)
pre = pre.fit(X_train)
X_train, X_test = pre.transform(X_train), pre.transform(X_test)
classes = np.unique(y_train)  # public label set of this data set

epsilons = np.geomspace(0.05, 4.0, 8)
means, stds = [], []
for eps in epsilons:
    accs = [
        DPLogisticRegression(epsilon=eps, classes=classes, random_state=seed)
        .fit(X_train, y_train)
        .score(X_test, y_test)
        for seed in range(args.seeds)
    ]
    means.append(np.mean(accs))
    stds.append(np.std(accs))
    print(f"epsilon={eps:.3g}: {means[-1]:.4f} +- {stds[-1]:.4f}")

# The fully private recipe: preprocessing and classifier on one budget, raw rows.
recipe_means, recipe_stds = [], []
for eps in epsilons:
    accs = [
        private_pipeline(recipe, epsilon=eps, random_state=seed)
        .fit(raw[0], y_train)
        .score(raw[1], y_test)
        for seed in range(args.seeds)
    ]
    recipe_means.append(np.mean(accs))
    recipe_stds.append(np.std(accs))
    print(f"recipe, epsilon={eps:.3g}: {recipe_means[-1]:.4f} +- {recipe_stds[-1]:.4f}")
reference = (
    LogisticRegression(max_iter=1000).fit(X_train, y_train).score(X_test, y_test)
)

fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(
    epsilons, means, yerr=stds, marker="o", capsize=3, label="DPLogisticRegression"
)
ax.errorbar(
    epsilons,
    recipe_means,
    yerr=recipe_stds,
    marker="s",
    capsize=3,
    label=f'private_pipeline("{recipe}"): all private, one budget',
)
ax.axhline(reference, color="k", linestyle="--", label="non-private LogisticRegression")
ax.set_xscale("log")
ax.set_xlabel("epsilon (delta = 1e-8)")
ax.set_ylabel("test accuracy")
ax.set_title(description)
ax.legend(loc="lower right")
fig.tight_layout()
fig.savefig(args.out, dpi=120)
print(f"saved {args.out}")
