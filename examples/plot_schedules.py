"""
Noise schedules: their shapes, and what they do to accuracy
===========================================================

Left: the noise multiplier of every step for each schedule at the same budget
(epsilon = 0.4, delta = 1e-8, Adult's size: 32,561 rows, 108 features), exactly as
the estimator calibrates it. Each curve spends the same budget; decaying schedules
buy quieter late steps with noisier early ones. PUR sets its own horizon from the
budget (Fay et al., Prop. 4).

Right (with ``--adult``): test accuracy on Adult against epsilon per schedule,
default hyperparameters. Saves ``schedules.png`` (or ``--out``).
"""

import argparse
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sklearn_dpgd import (  # noqa: E402
    DPLogisticRegression,
    ExponentialDecaySchedule,
    PLOptimalSchedule,
    PURSchedule,
    StepDecaySchedule,
    TimeDecaySchedule,
    UniformSchedule,
)
from sklearn_dpgd.schedules import ScheduleContext, auto_max_iter  # noqa: E402

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

parser = argparse.ArgumentParser()
parser.add_argument(
    "--adult", action="store_true", help="use Adult (fetch_adult downloads it once)"
)
parser.add_argument("--data-home", default=None, help="folder for adult/ (optional)")
parser.add_argument("--out", default="schedules.png")
parser.add_argument("--seeds", type=int, default=2)
args = parser.parse_args()

schedules = {
    "uniform": UniformSchedule(),
    "exponential 0.998": ExponentialDecaySchedule(),
    "step 0.9 / 100": StepDecaySchedule(),
    "time k=0.01": TimeDecaySchedule(),
    "PL-optimal kappa=100": PLOptimalSchedule(),
    "PUR (nonconvex)": PURSchedule(),
}
context = ScheduleContext(
    epsilon=0.4,
    delta=1e-8,
    n_samples=32561,
    n_features=108,
    n_outputs=1,
    fit_intercept=True,
    clip_norm=1.0,
    sensitivity=1.0,
    alpha=0.0,
    margin_smoothness=0.25,
    initial_loss=float(np.log(2)),
)
default_steps = auto_max_iter(0.4, 1e-8, 32561, 108)

with_accuracy = args.adult
fig, axes = plt.subplots(
    1, 2 if with_accuracy else 1, figsize=(12 if with_accuracy else 6, 4)
)
axes = np.atleast_1d(axes)
for name, schedule in schedules.items():
    n_steps = schedule.horizon(context) or default_steps
    z, _ = schedule.plan(n_steps, context)
    axes[0].plot(np.arange(1, len(z) + 1), z, label=f"{name} (T={len(z)})")
axes[0].set_yscale("log")
axes[0].set_xscale("log")
axes[0].set_xlabel("step t")
axes[0].set_ylabel("noise multiplier z_t (units of clip_norm)")
axes[0].set_title("Same budget: epsilon=0.4, delta=1e-8, n=32561")
axes[0].legend(fontsize=8)

if with_accuracy:
    from sklearn_dpgd.datasets import fetch_adult, paper_preprocessor

    X_train, y_train = fetch_adult(args.data_home, subset="train")
    X_test, y_test = fetch_adult(args.data_home, subset="test")
    pre = paper_preprocessor().fit(X_train)
    X_train, X_test = pre.transform(X_train), pre.transform(X_test)
    epsilons = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]
    for name, schedule in schedules.items():
        accs = [
            np.mean(
                [
                    DPLogisticRegression(
                        epsilon=eps, schedule=schedule, classes=[0, 1], random_state=s
                    )
                    .fit(X_train, y_train)
                    .score(X_test, y_test)
                    for s in range(args.seeds)
                ]
            )
            for eps in epsilons
        ]
        print(name, " ".join(f"{a:.4f}" for a in accs))
        axes[1].plot(epsilons, accs, marker="o", label=name)
    axes[1].set_xscale("log")
    axes[1].set_xlabel("epsilon (delta = 1e-8)")
    axes[1].set_ylabel("Adult test accuracy")
    axes[1].set_title(f"Adult, defaults, mean of {args.seeds} seeds")
    axes[1].legend(fontsize=8)
fig.tight_layout()
fig.savefig(args.out, dpi=110)
print(f"saved {args.out}")
