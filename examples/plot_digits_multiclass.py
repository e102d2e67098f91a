"""
DPHuberSVM vs DPLogisticRegression on digits (multiclass)
=========================================================

Both estimators handle more than two classes in one private mechanism per step:
:class:`~sklearn_dpgd.DPLogisticRegression` with the softmax loss,
:class:`~sklearn_dpgd.DPHuberSVM` one-vs-rest. In both, each example's whole
gradient matrix (all ten classes and intercepts) is clipped as one vector, so the
budget is not split between the classes.

We train both on scikit-learn's digits (10 classes, 64 features) with rows scaled
to unit norm, for a range of budgets, and compare with the non-private
:class:`~sklearn.linear_model.LogisticRegression`.
"""

# %%
# Data: the pixel intensities are in [0, 16] by construction, a public bound, so
# scaling by 16 and normalising the rows uses no private information.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

X, y = load_digits(return_X_y=True)
X = Normalizer().fit_transform(X / 16.0)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.25, stratify=y, random_state=0
)
classes = np.arange(10)  # the public label set
delta = 1e-5  # well below 1 / n_samples = 1 / 1347

# %%
# Test accuracy against epsilon, mean and spread over two seeds.
epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
models = {
    "DPLogisticRegression (softmax)": DPLogisticRegression,
    "DPHuberSVM (one-vs-rest)": DPHuberSVM,
}
results = {}
for name, Model in models.items():
    scores = np.array(
        [
            [
                Model(epsilon=eps, delta=delta, classes=classes, random_state=seed)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(2)
            ]
            for eps in epsilons
        ]
    )
    results[name] = scores
    print(name, np.round(scores.mean(axis=1), 3))

baseline = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)
print(f"non-private LogisticRegression: {baseline:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for name, scores in results.items():
    ax.errorbar(
        epsilons,
        scores.mean(axis=1),
        yerr=scores.std(axis=1),
        marker="o",
        capsize=3,
        label=name,
    )
ax.axhline(baseline, color="k", linestyle="--", label="non-private LogisticRegression")
ax.set_xscale("log")
ax.set_xlabel(f"epsilon (delta = {delta:g})")
ax.set_ylabel("test accuracy (10 classes)")
ax.set_title("digits: multiclass private models")
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()

# %%
# The fitted multiclass model has one row of coefficients per class, and a single
# noise multiplier per step covers all of them:
clf = DPLogisticRegression(epsilon=2.0, delta=delta, classes=classes, random_state=0)
clf.fit(X_train, y_train)
print(clf.coef_.shape, clf.n_iter_, clf.noise_multipliers_.shape, clf.epsilon_)
