"""Does the best noisy radius grow linearly with the budget? (Panda et al.'s premise)

    SKLEARN_DPGD_DATA=DIR nice -n 10 python benchmarks/bench_linear_scaling.py
        [--datasets adult bank] [--seeds 2] [--quick]

Panda et al., *A New Linear Scaling Rule for Private Adaptive Hyperparameter
Optimization* (ICML 2024), Sec. 2.1-2.2: for noisy gradient descent the learning
rate ``eta`` and the number of steps ``T`` matter mostly through the *noisy radius*
``r = eta T``, and the best radius ``r*(epsilon)`` is close to a line in the run's
budget, so two cheap private searches at ``epsilon_1 = 0.1`` and ``epsilon_2 = 0.2``
fix the line and predict the radius at any larger budget.
:class:`~sklearn_dpgd.model_selection.LinearScalingSearch` builds on that premise;
this script measures it, *without* privacy in the selection (an oracle on a
holdout), so that only the premise is tested:

- data: Adult's standard training file, Bank's 80 % training part
  (:func:`~sklearn_dpgd.datasets.load_benchmark_split`), the papers' preprocessing
  (:func:`~sklearn_dpgd.datasets.paper_preprocessor`, unit-norm rows), split once
  more 80/20 (``random_state=0``) into a fit part and a holdout (the test split is
  not used);
- for each run budget epsilon in 0.1, 0.2, 0.4, 0.8, 1.6 (delta 1e-8, the fit
  part's size declared public so that the runs differ only in the budget), every
  pair of a grid of learning rates x numbers of steps is fitted with
  :class:`~sklearn_dpgd.DPLogisticRegression` (its other parameters at their
  defaults: normalised steps, so ``r`` is the length of the walk in units of the
  step), scored on the holdout, averaged over the seeds;
- ``r*`` is the radius of the best pair; the line through ``(0.1, r*(0.1))`` and
  ``(0.2, r*(0.2))`` predicts ``r`` at 0.4, 0.8 and 1.6, and the table gives the
  holdout accuracy of the pair whose radius is nearest the prediction (ties: the
  better) against the best pair's.

The paper tunes deep networks with DP-SGD/DP-Adam; here the model is convex and
trained by full-batch noisy gradient descent, the setting of its Sec. 1 analysis.
"""

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

EPSILONS = (0.1, 0.2, 0.4, 0.8, 1.6)
DELTA = 1e-8
LEARNING_RATES = (0.03, 0.1, 0.3, 1.0, 3.0)
STEPS = (25, 50, 100, 200, 400, 800)


def _parts(name, data_home):
    X, _, y, _ = load_benchmark_split(name, data_home)
    X_fit, X_hold, y_fit, y_hold = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    pre = paper_preprocessor().fit(X_fit)
    return pre.transform(X_fit), pre.transform(X_hold), np.asarray(y_fit), y_hold


def _grid_scores(parts, epsilon, seeds, grid):
    """Mean holdout accuracy of each (learning rate, steps) pair."""
    X_fit, X_hold, y_fit, y_hold = parts
    scores = {}
    for lr, steps in grid:
        accs = [
            DPLogisticRegression(
                epsilon=epsilon,
                delta=DELTA,
                learning_rate=lr,
                max_iter=steps,
                public_n_samples=X_fit.shape[0],
                classes=[0, 1],
                random_state=seed,
            )
            .fit(X_fit, y_fit)
            .score(X_hold, y_hold)
            for seed in range(seeds)
        ]
        scores[(lr, steps)] = float(np.mean(accs))
    return scores


def _nearest(scores, radius):
    """Accuracy of the pair whose radius is nearest ``radius`` (log scale)."""
    gap = {p: abs(np.log(p[0] * p[1] / radius)) for p in scores}
    closest = min(gap.values())
    return max(s for p, s in scores.items() if gap[p] <= closest + 1e-12)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["adult", "bank"])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--data-home", default=None)
    parser.add_argument(
        "--quick", action="store_true", help="Adult only, one seed, a 3 x 3 grid"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    grid = list(itertools.product(LEARNING_RATES, STEPS))
    datasets, seeds = args.datasets, args.seeds
    if args.quick:
        datasets, seeds = ["adult"], 1
        grid = list(itertools.product((0.1, 0.3, 1.0), (50, 200, 800)))
    for name in datasets:
        parts = _parts(name, args.data_home)
        print(f"\n{name}: fit part {parts[0].shape}, holdout {parts[1].shape[0]}")
        best = {}
        for epsilon in EPSILONS:
            scores = _grid_scores(parts, epsilon, seeds, grid)
            pair = max(scores, key=scores.get)
            best[epsilon] = (pair, scores)
            print(
                f"  epsilon {epsilon}: best eta {pair[0]}, T {pair[1]}, "
                f"r* {pair[0] * pair[1]:g}, holdout {scores[pair]:.4f}",
                flush=True,
            )
        (p1, _), (p2, _) = best[0.1], best[0.2]
        r1, r2 = p1[0] * p1[1], p2[0] * p2[1]
        slope = (r2 - r1) / 0.1
        print(
            f"\n{name}, {seeds} seed(s): line through (0.1, {r1:g}) and "
            f"(0.2, {r2:g}), slope {slope:g} per unit of epsilon"
        )
        print("| epsilon | r* measured | r predicted | best holdout | at predicted r |")
        print("|---|---|---|---|---|")
        for epsilon in EPSILONS:
            pair, scores = best[epsilon]
            predicted = r1 + slope * (epsilon - 0.1)
            at_pred = _nearest(scores, predicted) if predicted > 0 else float("nan")
            print(
                f"| {epsilon} | {pair[0] * pair[1]:g} | {predicted:g} | "
                f"{scores[pair]:.4f} | {at_pred:.4f} |"
            )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"\n{time.perf_counter() - start:.0f} s")
