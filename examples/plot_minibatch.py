"""
Full batch vs minibatch DP-SGD (``batch_size``)
===============================================

With ``batch_size`` set, every private step sums the clipped gradients of a fresh
Poisson sample (each row with probability ``q = batch_size / n``) instead of all
rows. Subsampling amplifies privacy, so a minibatch step needs far less noise per
unit of budget, but its gradient is computed from fewer rows. This example compares
the two on scikit-learn's breast-cancer data at the same ``(epsilon, delta)``, and
shows the noise multipliers each run actually used.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
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
delta = 1e-5

# %%
# Accuracy against epsilon for the full batch and two expected batch sizes, with
# the same number of steps so that only the sampling differs.
epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
settings = {"full batch": None, "batch_size=64": 64, "batch_size=16": 16}
curves = {}
for name, batch_size in settings.items():
    accs = [
        np.mean(
            [
                DPLogisticRegression(
                    epsilon=eps,
                    delta=delta,
                    batch_size=batch_size,
                    max_iter=200,
                    classes=[0, 1],
                    random_state=seed,
                )
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(3)
            ]
        )
        for eps in epsilons
    ]
    curves[name] = accs
    print(name, np.round(accs, 3))

# %%
# The noise multiplier per step at epsilon = 1: a Poisson-subsampled step
# with ``q = 16 / 455`` is much cheaper than a full-batch one, so the calibration
# can afford a far smaller multiplier for the same budget. (The noise on the
# *mean* gradient is ``z * clip_norm / (q n)``: the divisor is smaller too.)
fits = {
    name: DPLogisticRegression(
        epsilon=1.0,
        delta=delta,
        batch_size=batch_size,
        max_iter=200,
        classes=[0, 1],
        random_state=0,
    ).fit(X_train, y_train)
    for name, batch_size in settings.items()
}
for name, clf in fits.items():
    print(
        f"{name}: z = {clf.noise_multipliers_[0]:.3f}, epsilon_ = {clf.epsilon_:.6f},"
        f" ledger = {clf.ledger_}"
    )

fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for name, accs in curves.items():
    axes[0].plot(epsilons, accs, marker="o", label=name)
axes[0].set_xscale("log")
axes[0].set_xlabel(f"epsilon (delta = {delta:g}), 200 steps")
axes[0].set_ylabel("test accuracy (mean of 3 seeds)")
axes[0].set_title("breast cancer: full batch vs Poisson minibatches")
axes[0].legend()
names = list(fits)
axes[1].bar(names, [fits[n].noise_multipliers_[0] for n in names], color="C1")
axes[1].set_ylabel("noise multiplier z (units of clip_norm)")
axes[1].set_title("per-step noise multiplier at epsilon = 1")
fig.tight_layout()
