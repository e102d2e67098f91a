"""
Regression: R^2 against epsilon
===============================

Test R^2 of :class:`~sklearn_dpgd.DPLinearRegression` and
:class:`~sklearn_dpgd.DPHuberRegressor` (defaults) on scikit-learn's embedded
diabetes data as the privacy budget grows, next to scikit-learn's non-private
``LinearRegression``. The features are clipped to a declared range and mapped to
[0, 1], rows scaled to unit norm (neither reads the data), and the target is
clipped to the declared ``y_bounds=(0, 400)``. With 331 training rows a private
model needs a large budget: the diabetes data is the hard case (the Adult table of
the docs' Benchmarks page, 32,561 rows, reaches the non-private R^2 at epsilon 4).
Saves ``regression_vs_epsilon.png`` (or ``--out``).
"""

import argparse
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_diabetes  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import Normalizer  # noqa: E402

from sklearn_dpgd import DPHuberRegressor, DPLinearRegression  # noqa: E402
from sklearn_dpgd.preprocessing import DPMinMaxScaler  # noqa: E402

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

parser = argparse.ArgumentParser()
parser.add_argument("--out", default="regression_vs_epsilon.png")
parser.add_argument("--seeds", type=int, default=5)
args = parser.parse_args()

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
# Declared bounds: the scaler reads nothing, so it spends no budget.
scale = DPMinMaxScaler(bounds=(-0.2, 0.2)).fit(X_train)
X_train, X_test = scale.transform(X_train), scale.transform(X_test)
baseline = LinearRegression().fit(X_train, y_train).score(X_test, y_test)
X_train, X_test = Normalizer().transform(X_train), Normalizer().transform(X_test)

epsilons = np.array([0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
fig, ax = plt.subplots(figsize=(6, 4))
for Regressor in (DPLinearRegression, DPHuberRegressor):
    scores = np.array(
        [
            [
                Regressor(epsilon=eps, delta=1e-6, y_bounds=(0, 400), random_state=seed)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(args.seeds)
            ]
            for eps in epsilons
        ]
    )
    mean, std = scores.mean(axis=1), scores.std(axis=1)
    ax.errorbar(
        epsilons, mean, yerr=std, marker="o", capsize=3, label=Regressor.__name__
    )
    print(
        Regressor.__name__,
        dict(zip(epsilons.tolist(), mean.round(3).tolist(), strict=True)),
    )
ax.axhline(baseline, color="k", ls="--", label="LinearRegression (non-private)")
ax.axhline(0.0, color="grey", lw=0.5)
ax.set_xscale("log")
ax.set_xlabel("epsilon (delta = 1e-6)")
ax.set_ylabel("test R^2")
ax.set_title(f"diabetes, 75/25 split, {args.seeds} seeds")
ax.legend()
fig.tight_layout()
fig.savefig(args.out)
