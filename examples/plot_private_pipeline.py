"""
A private pipeline from the raw DataFrame, on one budget
=========================================================

A private classifier does not make a pipeline private: scikit-learn's
``MinMaxScaler`` and ``OneHotEncoder`` store the extremes and the categories of the
training data, exactly. :func:`sklearn_dpgd.datasets.private_pipeline` returns an
unfitted model of the Adult census data whose every step reads the training rows
only through a differentially private mechanism, on one total budget:

* the categories of ``adult.names`` (public: no budget);
* the bounds of the numeric columns, estimated privately (DP quantiles by the
  exponential mechanism inside public ranges; Smith, STOC 2011): 10% of epsilon;
* unit-norm rows (row-wise: no budget);
* :class:`~sklearn_dpgd.DPLogisticRegression` (Lee & Kifer, KDD 2018): 90%.

This example fits it on the raw DataFrame inside a
:class:`~sklearn_dpgd.accounting.PrivacyLedger`, compares its test accuracy with
the classifier alone on the papers' non-private preprocessing, and draws the
budget split. It needs Adult, downloaded once by
:func:`~sklearn_dpgd.datasets.fetch_adult` (into ``--data-home`` if given). About
15 s of CPU time. Saves ``private_pipeline.png`` (or ``--out``).
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from sklearn_dpgd import DPLogisticRegression  # noqa: E402
from sklearn_dpgd.accounting import EpsilonDeltaRecord, PrivacyLedger  # noqa: E402
from sklearn_dpgd.datasets import (  # noqa: E402
    load_benchmark_split,
    paper_preprocessor,
    private_pipeline,
)
from sklearn_dpgd.pipeline import find_privacy_leaks  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument(
    "--data-home",
    default=None,
    help="folder for adult/ (default: $SKLEARN_DPGD_DATA, else scikit-learn's "
    "data home; Adult is downloaded into it on first use)",
)
parser.add_argument("--out", default="private_pipeline.png")
parser.add_argument("--epsilon", type=float, default=0.4)
args = parser.parse_args()
EPSILON, DELTA = args.epsilon, 1e-8

# %%
# The raw DataFrame
# -----------------
# 14 columns: 6 numeric, 8 categorical with missing values (NaN), as
# :func:`~sklearn_dpgd.datasets.fetch_adult` returns them. Nothing is fitted on
# them before the private pipeline.
X_train, X_test, y_train, y_test = load_benchmark_split("adult", args.data_home)
print(X_train.head(3).T)

# %%
# The recipe, unfitted
# --------------------
# Built from the public schema alone; no step fits without a mechanism.
model = private_pipeline("adult", epsilon=EPSILON, delta=DELTA)
print([name for name, _ in model.steps])
print("leaking steps:", find_privacy_leaks(model))

# %%
# Fit inside a ledger
# -------------------
# ``random_state=None`` (the default): fresh OS entropy for every step, as a
# release needs. Every mechanism is recorded on the open ledger before it reads
# a row.
ledger = PrivacyLedger()
with ledger:
    model.fit(X_train, y_train)
accuracy = model.score(X_test, y_test)
print(f"test accuracy {accuracy:.4f} at total epsilon {EPSILON}, delta {DELTA:g}")
print(
    f"reported epsilon_ = {model.epsilon_:.6f} (the steps' guarantees composed, "
    f"below the sum of their shares {sum(e for e, _ in model.budget_.values()):.6f})"
)
print(f"ledger's exact composition: {ledger.epsilon(DELTA):.6f}")
for entry in ledger.entries:
    mechanism = entry.mechanism
    if isinstance(mechanism, EpsilonDeltaRecord):
        what = f"exponential mechanisms, epsilon = {mechanism.epsilon:.4f} in total"
    else:  # the classifier's Gaussian steps: the noisy row count, then the steps
        what = ", ".join(
            f"{r.count} x Gaussian (noise multiplier {r.noise_multiplier:.1f})"
            for r in mechanism
        )
    print(f"  {entry.source:22s} {what}")
print("budget_ (epsilon, delta) by step:", model.budget_)

# %%
# What the preprocessing released
# -------------------------------
# The bounds of the numeric columns are DP quantiles (0.01 and 0.99): noisy
# at this budget, but they cost 10% of it and reveal no one's extreme value.
# ``fnlwgt`` and the capital columns are in ``log1p`` space (their ranges span
# orders of magnitude).
vectorizer = model.pipeline_.named_steps["dptablevectorizer"]
columns = vectorizer.pipeline_.pipeline_.named_steps["columns"]
numeric = columns.named_transformers_["numeric"]
scaler = numeric.named_steps["scale"]
for name, (lo, hi), public in zip(
    numeric.feature_names_in_, scaler.bounds_, scaler.bounds_range, strict=True
):
    print(f"  {name:15s} [{lo:8.2f}, {hi:8.2f}]  in [{public[0]:.2f}, {public[1]:.2f}]")

# %%
# The cost of privatising the preprocessing
# -----------------------------------------
# The classifier alone at the same epsilon on the papers' preprocessing (min/max
# and categories read from the training rows without noise: not covered by
# epsilon), and the non-private logistic regression.
classifier_only = make_pipeline(
    paper_preprocessor(),
    DPLogisticRegression(epsilon=EPSILON, delta=DELTA, classes=[0, 1]),
).fit(X_train, y_train)
non_private = make_pipeline(paper_preprocessor(), LogisticRegression(max_iter=1000))
non_private.fit(X_train, y_train)
scores = {
    "private pipeline\n(all steps)": accuracy,
    "classifier only\n(leaky prep.)": classifier_only.score(X_test, y_test),
    "non-private\nLogReg": non_private.score(X_test, y_test),
}
for name, score in scores.items():
    print(f"{name.replace(chr(10), ' '):45s} {score:.4f}")

# %%
# The budget split
# ----------------
# Left: the epsilon of every step (the declared categories and the row-wise
# normaliser read nothing); their sum is the reported total. Right: test
# accuracies.
clf = model.pipeline_.named_steps["dplogisticregression"]
steps = {
    "DPOneHotEncoder\n(adult.names)": columns.named_transformers_[
        "categorical"
    ].epsilon_,
    "DPMinMaxScaler\n(DP bounds)": scaler.epsilon_,
    "Normalizer\n(row-wise)": 0.0,
    "DPLogisticRegression\n(count + steps)": clf.epsilon_,
}
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), width_ratios=(3, 2))
y_pos = np.arange(len(steps))[::-1]
left.barh(y_pos, list(steps.values()), color=["0.6", "C1", "0.6", "C0"])
for y, value in zip(y_pos, steps.values(), strict=True):
    label = f" {value:.3f}" if value else " 0 (reads nothing)"
    left.text(value, y, label, va="center", fontsize=8)
left.set_yticks(y_pos, list(steps), fontsize=8)
left.axvline(EPSILON, color="k", ls="--", lw=1)
left.text(1.01 * EPSILON, y_pos[0], f"total\n{EPSILON}", va="center", fontsize=8)
left.set_xlim(0, 1.25 * EPSILON)
left.set_xlabel("epsilon spent (basic composition of the shares)")
left.set_title(f"Budget split, total epsilon = {EPSILON}", fontsize=9)
names = list(scores)
right.bar(range(len(names)), list(scores.values()), color=["C0", "0.7", "0.4"])
right.set_xticks(range(len(names)), names, fontsize=7)
right.set_ylim(0.75, 0.86)
right.axhline(0.761, color="k", lw=0.8, ls=":")
right.text(2.4, 0.762, "majority", ha="right", fontsize=7)
right.set_ylabel("test accuracy (Adult)")
right.set_title("Accuracy at the same epsilon", fontsize=9)
fig.tight_layout()
fig.savefig(args.out, dpi=120)
print(f"saved {args.out}")
