"""
Effect of ``clip_norm``
=======================

Each per-example gradient is clipped to L2 norm ``clip_norm`` (``C``) and the
Gaussian noise has std ``z_t * C``: the noise grows with ``C`` while the signal is
capped by it. With rows scaled to unit norm, a binary logistic gradient has norm at
most ``sqrt(2)``, so ``C`` around 1 clips only the large gradients. A much smaller
``C`` clips nearly every gradient: they all count alike and only their directions
survive (with the default normalised steps the step length does not change); a
much larger one clips nothing and only adds noise. The default for binary
problems, ``clip_norm="auto"``, is 0.5 at budgets this small for data this size
(:func:`~sklearn_dpgd.schedules.auto_clip_norm`) and grows to 1.0 at large ones.

We sweep ``clip_norm`` at a few budgets on scikit-learn's breast-cancer data, and
show the fraction of per-example gradients that the clipping changes at the
non-private optimum.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.preprocessing import DPStandardScaler

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.2, stratify=y, random_state=0
)
# Private preprocessing (the classifiers see unit-norm rows, as the defaults assume).
pre = make_pipeline(
    FunctionTransformer(np.log1p),  # value by value: reads no statistic
    # A DP mean and variance of every column inside one public range, on its own
    # budget (spent once, before the classifiers' budgets below).
    DPStandardScaler(bounds=(0.0, 9.0), epsilon=0.2, delta=1e-8, random_state=0),
    Normalizer(),  # unit-norm rows, row by row
).fit(X_train)
X_train, X_test = pre.transform(X_train), pre.transform(X_test)

clip_norms = np.geomspace(0.01, 100, 7)
epsilons = [0.3, 1.0, 3.0]
delta = 1e-5
curves = {}
for eps in epsilons:
    curves[eps] = [
        np.mean(
            [
                DPLogisticRegression(
                    epsilon=eps,
                    delta=delta,
                    clip_norm=c,
                    classes=[0, 1],
                    random_state=seed,
                )
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(2)
            ]
        )
        for c in clip_norms
    ]
    print(f"epsilon={eps}:", np.round(curves[eps], 3))

# %%
# How many gradients does each ``C`` clip? Per-example gradient norms of the
# logistic loss at the non-private solution, ``|p_i - y_i| * ||[x_i, 1]||``.
ref = LogisticRegression(C=10.0, max_iter=1000).fit(X_train, y_train)
p = expit(ref.decision_function(X_train))
norms = np.abs(p - y_train) * np.sqrt((X_train**2).sum(axis=1) + 1.0)
clipped = [(norms > c).mean() for c in clip_norms]

fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for eps, accs in curves.items():
    axes[0].plot(clip_norms, accs, marker="o", label=f"epsilon = {eps:g}")
axes[0].axvline(0.5, color="grey", linestyle=":", label='"auto" here: 0.5')
axes[0].set_xscale("log")
axes[0].set_xlabel("clip_norm")
axes[0].set_ylabel("test accuracy (mean of 2 seeds)")
axes[0].set_title("breast cancer, unit-norm rows")
axes[0].legend(fontsize=8)
axes[1].plot(clip_norms, clipped, marker="s", color="C3")
axes[1].set_xscale("log")
axes[1].set_xlabel("clip_norm")
axes[1].set_ylabel("fraction of gradients clipped")
axes[1].set_title("at the non-private optimum")
fig.tight_layout()
