"""Accuracy of the defaults: against other libraries, and on data they were not set on.

    python benchmarks/bench_accuracy.py [--data-home DIR] [--seeds 5]
        [--skip-benchmarks] [--skip-generalisation]
    python benchmarks/bench_accuracy.py --ablation [--seeds 4]

``--ablation`` prints the evidence the defaults were set on: accuracy and log-loss
of each free improvement switched off, on an 80/20 holdout of Adult's and Bank's
*training* splits (never their test splits).

Part 1 (Adult, Bank; the protocol of ``benchmarks/bench_adult.py``: Adult's standard
split, Bank 80/20 stratified with random_state=0, one-hot + min-max + unit-norm
rows, delta = 1e-8): mean test accuracy over the seeds of DPLogisticRegression and
DPHuberSVM with every parameter at its default, printed under the other options'
values. Those rows are quoted from the accuracy issue of this project (measured on
this machine with the same protocol); ``benchmarks/privacy_utility.py`` re-measures
diffprivlib and Opacus side by side.

Part 2 (generalisation; data the defaults were not designed on): scikit-learn's
breast cancer (binary) and digits (10 classes), and a synthetic problem
(``make_classification``, 20,000 rows, 40 features, 3 classes, random_state=0),
each split 80/20 stratified (random_state=0), min-max + unit-norm rows, epsilon in
{1, 4}, delta = 1e-5. The defaults are compared with the best fixed configuration
(learning_rate x max_iter grid, for normalised steps and for plain gradient steps
with clip_norm=1) chosen on the *test* split: an optimistic reference
that spends privacy it does not count, reported and never used to set a default.
"""

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor
from sklearn_dpgd.schedules import auto_learning_rate, auto_max_iter

EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
OTHERS = {
    "adult": {
        "Opacus DP-SGD, batch 256, 5 epochs, lr from a non-private run": (
            0.776,
            0.816,
            0.831,
            0.835,
            0.836,
            0.837,
        ),
        "Opacus, best lr per epsilon on the test set (optimistic)": (
            0.805,
            0.820,
            0.829,
            0.834,
            0.836,
            0.836,
        ),
        "full-batch noisy GD, exact accounting, 100 steps, step 4": (
            0.809,
            0.823,
            0.827,
            0.828,
            0.828,
            0.828,
        ),
        "the same with 1,000 steps": (0.775, 0.805, 0.826, 0.836, 0.839, 0.840),
        "diffprivlib (objective perturbation)": (
            0.675,
            0.702,
            0.726,
            0.752,
            0.750,
            0.821,
        ),
    },
    "bank": {
        "best of the other options": (0.887, 0.891, 0.893, 0.895, 0.895, 0.895),
    },
}
TARGETS = {
    "adult": (0.81, 0.825, 0.833, 0.838, 0.841, 0.843),
    "bank": OTHERS["bank"]["best of the other options"],
}
GEN_EPSILONS = (1.0, 4.0)
GEN_DELTA = 1e-5
HORIZONS = (10, 25, 50, 100, 200, 400, 800)
# The reference grid spans both step kinds: normalised steps (learning_rate is the
# step length) with the default clip_norm, and plain gradient steps with
# clip_norm=1 (the former defaults).
GRID = [
    (lr, T, dict(normalize_steps=True))
    for lr, T in itertools.product((0.03, 0.06, 0.125, 0.25, 0.5, 1.0), HORIZONS)
] + [
    (lr, T, dict(normalize_steps=False, clip_norm=1.0))
    for lr, T in itertools.product((0.25, 0.5, 1.0, 2.0, 4.0, 8.0), HORIZONS)
]


def _row(name, cells, fmt="{:.4f}"):
    print(f"| {name} | " + " | ".join(fmt.format(c) for c in cells) + " |", flush=True)


def _mean_score(Estimator, X_train, y_train, X_test, y_test, seeds, **params):
    return float(
        np.mean(
            [
                Estimator(random_state=s, **params)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for s in range(seeds)
            ]
        )
    )


def benchmark_tables(data_home, seeds):
    for dataset in ("adult", "bank"):
        X_train, X_test, y_train, y_test = load_benchmark_split(dataset, data_home)
        pre = paper_preprocessor().fit(X_train)
        X_train = np.ascontiguousarray(pre.transform(X_train))
        X_test = pre.transform(X_test)
        y_train, y_test = y_train.to_numpy(), y_test.to_numpy()
        print(f"\n### {dataset} (delta=1e-8, {seeds} seeds, test accuracy)\n")
        print("| method | " + " | ".join(f"eps={e:g}" for e in EPSILONS) + " |")
        print("|---|" + "---|" * len(EPSILONS))
        for name, cells in OTHERS[dataset].items():
            _row(name + " (quoted)", cells, "{:.3f}")
        _row("target (issue)", TARGETS[dataset], "{:.3f}")
        for Estimator in (DPLogisticRegression, DPHuberSVM):
            start = time.perf_counter()
            cells = [
                _mean_score(
                    Estimator,
                    X_train,
                    y_train,
                    X_test,
                    y_test,
                    seeds,
                    epsilon=eps,
                    delta=1e-8,
                    classes=[0, 1],
                )
                for eps in EPSILONS
            ]
            _row(f"{Estimator.__name__}, defaults", cells)
            print(f"({time.perf_counter() - start:.0f} s)")
        nonprivate = LogisticRegression(max_iter=1000).fit(X_train, y_train)
        print(
            f"\nnon-private LogisticRegression: {nonprivate.score(X_test, y_test):.4f}"
        )


def _auto_step(eps, n, d):
    """The default step length (normalised steps, learning_rate="auto")."""
    T = auto_max_iter(eps, 1e-8, n, d)
    return auto_learning_rate(0.5, T, eps, 1e-8, n, d)


# name -> parameters as a function of (epsilon, n, d), all public.
ABLATION = {
    'defaults (normalised steps, clip_norm="auto")': lambda e, n, d: {},
    "normalised steps, clip_norm=0.5": lambda e, n, d: dict(clip_norm=0.5),
    "normalised steps, clip_norm=1": lambda e, n, d: dict(clip_norm=1.0),
    "gradient steps, clip_norm=1 (former defaults)": lambda e, n, d: dict(
        normalize_steps=False, clip_norm=1.0
    ),
    "gradient steps, clip_norm=0.5": lambda e, n, d: dict(
        normalize_steps=False, clip_norm=0.5
    ),
    # Heavy ball with momentum m moves lr / (1 - m) per step in steady state:
    # without momentum, the same effective step is ten times the default's.
    "defaults without momentum (same effective step)": lambda e, n, d: dict(
        momentum=0.0, learning_rate=10 * _auto_step(e, n, d)
    ),
    "defaults without averaging": lambda e, n, d: dict(average=0.0),
}


def ablation(data_home, seeds):
    """The evidence for the defaults: holdouts of the *training* splits only."""
    from sklearn.metrics import log_loss

    for dataset in ("adult", "bank"):
        X, _, y, _ = load_benchmark_split(dataset, data_home)
        X_fit, X_val, y_fit, y_val = train_test_split(
            X, y.to_numpy(), test_size=0.2, stratify=y, random_state=0
        )
        pre = paper_preprocessor().fit(X_fit)
        X_fit = np.ascontiguousarray(pre.transform(X_fit))
        X_val = pre.transform(X_val)
        print(
            f"\n### Ablation, {dataset}: 80/20 holdout of the training split "
            f"(delta=1e-8, {seeds} seeds; accuracy / log-loss)\n"
        )
        print("| DPLogisticRegression | " + " | ".join(f"eps={e:g}" for e in EPSILONS))
        print("|---|" + "---|" * len(EPSILONS))
        n, d = X_fit.shape
        for name, make_params in ABLATION.items():
            cells = []
            for eps in EPSILONS:
                params = make_params(eps, n, d)
                fits = [
                    DPLogisticRegression(
                        epsilon=eps,
                        delta=1e-8,
                        classes=[0, 1],
                        random_state=s,
                        **params,
                    ).fit(X_fit, y_fit)
                    for s in range(seeds)
                ]
                acc = np.mean([f.score(X_val, y_val) for f in fits])
                loss = np.mean([log_loss(y_val, f.predict_proba(X_val)) for f in fits])
                cells.append(f"{acc:.4f} / {loss:.3f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        _public_start(X_fit, y_fit, X_val, y_val, seeds)


def _public_start(X_fit, y_fit, X_val, y_val, seeds):
    """Warm start from a public point: 2% of the rows play the public data."""
    order = np.random.default_rng(0).permutation(len(y_fit))
    public, private = order[: len(y_fit) // 50], order[len(y_fit) // 50 :]
    start = LogisticRegression(max_iter=2000).fit(X_fit[public], y_fit[public])
    X_priv, y_priv = np.ascontiguousarray(X_fit[private]), y_fit[private]
    print(
        f"\npublic start: LogisticRegression on {len(public)} rows held out as "
        f"public (alone: {start.score(X_val, y_val):.4f}); private fits on the "
        "other 98%\n"
    )
    for name, init in (
        ("defaults from zero", {}),
        (
            "defaults from the public start",
            dict(coef_init=start.coef_, intercept_init=start.intercept_),
        ),
    ):
        cells = [
            np.mean(
                [
                    DPLogisticRegression(
                        epsilon=eps, delta=1e-8, classes=[0, 1], random_state=s
                    )
                    .fit(X_priv, y_priv, **init)
                    .score(X_val, y_val)
                    for s in range(seeds)
                ]
            )
            for eps in EPSILONS
        ]
        _row(name, cells)


def _generalisation_sets():
    pre = make_pipeline(MinMaxScaler(clip=True), Normalizer())
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast cancer", X, y, pre
    X, y = load_digits(return_X_y=True)
    yield "digits", X, y, pre
    X, y = make_classification(
        n_samples=20000,
        n_features=40,
        n_informative=15,
        n_classes=3,
        n_clusters_per_class=2,
        flip_y=0.05,
        random_state=0,
    )
    yield "synthetic (20000 x 40, 3 classes)", X, y, pre


def generalisation(seeds):
    print(f"\n### Generalisation (delta={GEN_DELTA:g}, {seeds} seeds)\n")
    print(
        "| data | eps | defaults | best fixed (lr, T, steps) on the test split "
        "(optimistic) | gap |"
    )
    print("|---|---|---|---|---|")
    for name, X, y, pre in _generalisation_sets():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=0
        )
        pre = pre.fit(X_train)
        X_train = np.ascontiguousarray(pre.transform(X_train))
        X_test = pre.transform(X_test)
        classes = np.unique(y)  # public: the label set of a public benchmark
        for eps in GEN_EPSILONS:
            common = dict(epsilon=eps, delta=GEN_DELTA, classes=classes)
            default = _mean_score(
                DPLogisticRegression, X_train, y_train, X_test, y_test, seeds, **common
            )
            scores = {
                (lr, T, kw["normalize_steps"]): _mean_score(
                    DPLogisticRegression,
                    X_train,
                    y_train,
                    X_test,
                    y_test,
                    seeds,
                    learning_rate=lr,
                    max_iter=T,
                    **kw,
                    **common,
                )
                for lr, T, kw in GRID
            }
            best = max(scores, key=scores.get)
            print(
                f"| {name} | {eps:g} | {default:.4f} | {scores[best]:.4f} "
                f"({best[0]:g}, {best[1]}, "
                f"{'normalised' if best[2] else 'gradient'}) | "
                f"{scores[best] - default:+.4f} |",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--skip-benchmarks", action="store_true")
    parser.add_argument("--skip-generalisation", action="store_true")
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="only the holdout evidence for the defaults (training splits)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", category=UserWarning)
    if args.ablation:
        ablation(args.data_home, args.seeds)
        return
    if not args.skip_benchmarks:
        benchmark_tables(args.data_home, args.seeds)
    if not args.skip_generalisation:
        generalisation(args.seeds)


if __name__ == "__main__":
    main()
