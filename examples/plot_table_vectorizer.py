"""
From a raw DataFrame to a private model in a few lines
======================================================

A customer table mixes an age, an income (most of it small, a few very large),
a plan, a yes/no flag, a sign-up date and a satisfaction score with blanks.
:class:`~sklearn_dpgd.preprocessing.DPTableVectorizer` picks a private step for
every column from its dtype and the public schema you declare, and
:func:`~sklearn_dpgd.preprocessing.schema_from_dtypes` writes that schema's
skeleton without reading a value. This example builds the model in four lines,
compares it with the same model built by hand (a ``ColumnTransformer`` of the
package's private transformers, about 30 lines) and with non-private logistic
regression, at several budgets. The table is synthetic (built here, offline).
About 20 s of CPU time. Saves ``table_vectorizer.png`` (or ``--out``).
"""

import argparse
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer, Normalizer  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.pipeline import find_privacy_leaks, make_private_pipeline  # noqa: E402
from sklearn_dpgd.preprocessing import (  # noqa: E402
    DPMinMaxScaler,
    DPOneHotEncoder,
    DPSimpleImputer,
    DPTableVectorizer,
    row_wise,
    schema_from_dtypes,
)

parser = argparse.ArgumentParser()
parser.add_argument("--out", default="table_vectorizer.png")
parser.add_argument("--seeds", type=int, default=3)
args = parser.parse_args()
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

# %%
# A mixed table
# -------------
rng = np.random.default_rng(0)


def customers(n):
    age = rng.integers(18, 90, n)
    income = np.where(rng.random(n) < 0.5, 0.0, rng.lognormal(9, 1.5, n))
    plan = rng.choice(["basic", "plus", "pro", "legacy"], n, p=[0.5, 0.3, 0.15, 0.05])
    paperless = rng.random(n) < 0.5
    signup = pd.Timestamp("2016-01-01") + pd.to_timedelta(
        rng.integers(0, 3000, n), unit="D"
    )
    satisfaction = rng.uniform(0, 10, n)
    logit = (
        0.04 * (age - 50)
        + 0.25 * (np.log1p(income) - 5)
        + np.select([plan == "pro", plan == "legacy"], [1.0, -1.5], 0.0)
        + 0.8 * paperless
        - 0.3 * (satisfaction - 5)
        + (signup.year.to_numpy() - 2020) * 0.2
    )
    churn = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    satisfaction[rng.random(n) < 0.15] = np.nan  # blanks in the survey column
    X = pd.DataFrame(
        {
            "age": age,
            "income": income,
            "plan": plan,
            "paperless": paperless,
            "signup": signup,
            "satisfaction": satisfaction,
        }
    )
    return X, churn


X, y = customers(6000)
X_test, y_test = customers(6000)
print(X.head())

# %%
# The schema's skeleton, from the dtypes only
# -------------------------------------------
# Fill it from the data dictionary (the ranges a form allows, the plans on
# offer), never from the private values. Booleans need nothing.
print(schema_from_dtypes(X))

# %%
# The private model in four lines
# -------------------------------
bounds = {
    "age": (17, 100),
    "income": (0, 1e7),
    "signup": ("2015-01-01", "2025-01-01"),
    "satisfaction": (0, 10),
}
categories = {"plan": ["basic", "plus", "pro", "legacy"]}


def vectorized(epsilon, seed):
    return make_private_pipeline(
        DPTableVectorizer(
            bounds=bounds, categories=categories, missing=["satisfaction"]
        ),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=epsilon,
        random_state=seed,
    )


model = vectorized(1.0, 0).fit(X, y)
print("leaks:", find_privacy_leaks(model), "epsilon_:", round(model.epsilon_, 4))
print(model.pipeline_[0].get_feature_names_out())

# %%
# The same by hand
# ----------------
# What the vectorizer chose, written out: the recipe a careful user wrote
# before it existed.


@row_wise
def days_since_2015(X):
    start = pd.Timestamp("2015-01-01")
    days = (pd.DataFrame(X).iloc[:, 0] - start).dt.days.to_numpy(dtype=float)
    return np.clip(days / 3653.0, 0.0, 1.0)[:, None]


def by_hand(epsilon, seed):
    columns = ColumnTransformer(
        [
            ("plan", DPOneHotEncoder([categories["plan"]]), ["plan"]),
            ("flag", DPMinMaxScaler(bounds=(0, 1)), ["paperless"]),
            ("date", FunctionTransformer(days_since_2015), ["signup"]),
            ("age", DPMinMaxScaler(bounds_range=[(16, 101)]), ["age"]),
            (
                "income",
                make_pipeline(
                    FunctionTransformer(np.log1p),
                    DPMinMaxScaler(bounds_range=[(-0.5, np.log1p(1e7))]),
                ),
                ["income"],
            ),
            (
                "satisfaction",
                make_pipeline(
                    DPSimpleImputer(bounds=(0, 10)),
                    DPMinMaxScaler(bounds_range=[(-0.1, 10.1)]),
                ),
                ["satisfaction"],
            ),
        ],
        sparse_threshold=0.0,
    )
    return make_private_pipeline(
        columns,
        Normalizer(),
        DPLogisticRegression(classes=[0, 1]),
        epsilon=epsilon,
        random_state=seed,
    )


# %%
# Accuracy against the budget
# ---------------------------
# Non-private reference: the vectorizer's steps with every statistic declared
# (nothing estimated) in front of scikit-learn's LogisticRegression. At
# epsilon 0.1 three fits are noisy: over 40 fits the two private models score
# 0.717 (vectorizer) and 0.721 (by hand).
reference = make_pipeline(
    DPTableVectorizer(
        bounds=bounds,
        categories=categories,
        missing=["satisfaction"],
        quantiles=None,
        epsilon=100.0,
    ),
    LogisticRegression(max_iter=1000),
).fit(X, y)
non_private = reference.score(X_test, y_test)
epsilons = [0.1, 0.3, 1.0, 3.0]
curves = {"DPTableVectorizer (4 lines)": vectorized, "by hand (~30 lines)": by_hand}
results = {}
for name, make in curves.items():
    results[name] = [
        np.mean(
            [
                make(eps, seed).fit(X, y).score(X_test, y_test)
                for seed in range(args.seeds)
            ]
        )
        for eps in epsilons
    ]
    print(name, [f"{a:.4f}" for a in results[name]])
print(f"non-private LogisticRegression {non_private:.4f}")

fig, ax = plt.subplots(figsize=(6, 3.6))
for (name, accs), marker in zip(results.items(), "os", strict=True):
    ax.plot(epsilons, accs, marker=marker, label=name)
ax.axhline(non_private, color="k", ls="--", lw=1, label="non-private")
ax.set_xscale("log")
ax.set_xlabel("total epsilon (delta = 1e-8)")
ax.set_ylabel(f"test accuracy (mean of {args.seeds} fits)")
ax.set_title("A private model of a mixed table", fontsize=10)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(args.out, dpi=120)
print("saved", args.out)
