"""Empirical privacy audit of every estimator, schedule family, search and pipeline.

For each configuration, :func:`sklearn_dpgd.audit.audit` fits ``n`` models on each
of two neighbouring data sets (a tiny synthetic set of 100 rows and 4 features,
and the same plus the white-box canary of the user guide: a fresh column, started
on its wrong side where the estimator takes a public start) and prints the
claimed epsilon (delta 1e-5), the audited lower bound (95%), their ratio, the
claimed GDP mu (where the claim is one), the audited mu lower bound, the held-out
mu point estimate and its ratio to the claim (the tightness), and the Gaussian fit
of the two worlds' statistics (shift of the means in pooled standard deviations).
The public size is declared (``public_n_samples=100``) so that the noisy count
does not dilute the test; the claims then cover the training alone.

Soundness: no lower bound may exceed its claim (asserted for every row, for
epsilon and for mu). Tightness: for the full-batch default
``DPLogisticRegression`` at epsilon 1 and 4 the issue's target is a mu estimate
of at least 0.8 times the claimed mu at >= 2,000 trials.

Usage::

    python benchmarks/bench_audit.py [--trials 2000] [--soundness-trials 200]
                                     [--n-jobs 1] [--only NAME]

The two tightness rows run ``--trials`` fits per world; the others
``--soundness-trials`` (times the share in ``configurations``, at least 20).
About 5 minutes on one core with the defaults.
"""

import argparse
import time

import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    DPHuberSVM,
    DPLogisticRegression,
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
)
from sklearn_dpgd.audit import audit
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler
from sklearn_dpgd.schedules import (
    AdaptiveStepSchedule,
    ExponentialDecaySchedule,
    LineSearchSchedule,
    PLOptimalSchedule,
    PURSchedule,
)

N, D, DELTA = 100, 4, 1e-5
# The soundness rows claim epsilon 4 (mu 0.925): a few hundred trials can then
# bring a lower bound near a claim that is wrong by a small factor.
EPS = 4.0
COMMON = dict(delta=DELTA, classes=[0, 1], public_n_samples=N)
SOUND = dict(COMMON, epsilon=EPS)
# Plain gradient steps: the released coefficient is the sum of the noisy steps.
PLAIN = dict(normalize_steps=False, momentum=0.0, average=0.0, learning_rate=0.05)
# The private pipeline standardises with public bounds; the canary's column
# (the fifth) is declared in [0, CANARY] so that the scaler keeps it.
CANARY = 8.0
BOUNDS = [(-4.0, 4.0)] * D + [(0.0, CANARY)]


def configurations():
    """(name, estimator, audit options, tightness row?, share of the trials)."""
    lr = DPLogisticRegression
    inner = lr(classes=[0, 1])
    public = dict(epsilon=EPS, delta=DELTA, public_n_samples=N)
    grid = PrivateGridSearchCV(inner, {"clip_norm": [0.5, 1.0]}, **public)
    scaling = LinearScalingSearch(inner, **public)
    private_pipe = make_private_pipeline(
        DPStandardScaler(bounds=BOUNDS),
        lr(classes=[0, 1]),
        **public,
    )
    free = dict(canary_margin=None)
    return [
        (
            "DPLogisticRegression default (uniform)",
            lr(epsilon=1.0, **COMMON),
            {},
            True,
            1,
        ),
        (
            "DPLogisticRegression default (uniform)",
            lr(epsilon=4.0, **COMMON),
            {},
            True,
            1,
        ),
        (
            "  same, canary not started (before)",
            lr(epsilon=4.0, **COMMON),
            free,
            False,
            2,
        ),
        (
            "  same, its penalty 1/N kept (forgets)",
            lr(epsilon=4.0, alpha=1.0 / N, **COMMON),
            {},
            False,
            2,
        ),
        (
            "  same, normalize_steps=False",
            lr(epsilon=4.0, normalize_steps=False, **COMMON),
            {},
            False,
            2,
        ),
        (
            "  same, learning_rate=2.0 (16x)",
            lr(epsilon=4.0, learning_rate=2.0, **COMMON),
            {},
            False,
            2,
        ),
        (
            "  same, learning_rate=2.0, start at -1000",
            lr(epsilon=4.0, learning_rate=2.0, **COMMON),
            dict(canary_margin=-1000.0),
            False,
            2,
        ),
        (
            "  same, plain gradient steps",
            lr(epsilon=4.0, **PLAIN, **COMMON),
            {},
            False,
            2,
        ),
        ("DPHuberSVM default", DPHuberSVM(**SOUND), {}, False, 1),
        (
            "DPLogisticRegression batch_size=20",
            lr(batch_size=20, **SOUND),
            {},
            False,
            1,
        ),
        (
            "DPLogisticRegression solver='snowball'",
            lr(solver="snowball", **SOUND),
            {},
            False,
            1,
        ),
        (
            "OutputPerturbationClassifier",
            OutputPerturbationClassifier(**SOUND),
            {},
            False,
            0.5,
        ),
        (
            "PhasedLocalizationClassifier",
            PhasedLocalizationClassifier(**SOUND),
            {},
            False,
            1,
        ),
        (
            "schedule ExponentialDecaySchedule",
            lr(schedule=ExponentialDecaySchedule(), **SOUND),
            {},
            False,
            1,
        ),
        ("schedule PURSchedule", lr(schedule=PURSchedule(), **SOUND), {}, False, 1),
        (
            "schedule PLOptimalSchedule",
            lr(schedule=PLOptimalSchedule(), **SOUND),
            {},
            False,
            1,
        ),
        (
            "schedule AdaptiveStepSchedule (DP-AGD)",
            lr(schedule=AdaptiveStepSchedule(), **SOUND),
            {},
            False,
            0.25,
        ),
        (
            "schedule LineSearchSchedule",
            lr(schedule=LineSearchSchedule(), **SOUND),
            {},
            False,
            0.5,
        ),
        ("PrivateGridSearchCV over clip_norm", grid, {}, False, 1),
        ("LinearScalingSearch", scaling, {}, False, 0.25),
        (
            "Pipeline(Normalizer, DPLogisticRegression)",
            make_pipeline(Normalizer(), lr(**SOUND)),
            {},
            False,
            1,
        ),
        (
            "PrivatePipeline(DPStandardScaler, DPLogReg)",
            private_pipe,
            dict(canary_value=CANARY),
            False,
            1,
        ),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--soundness-trials", type=int, default=200)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--only", default="", help="rows whose name contains this")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D))
    y = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(int)
    rows = [row for row in configurations() if args.only in row[0]]
    header = (
        f"{'configuration':44s} {'eps':>5s} {'eps_lb':>6s} {'ratio':>5s} "
        f"{'mu':>5s} {'mu_lb':>5s} {'mu_hat':>6s} {'hat/mu':>6s} "
        f"{'g/mu':>5s} {'n':>5s} {'sec':>4s}"
    )
    print(f"delta {DELTA}, 95% confidence; n = trials per world (half held out)")
    print(header)
    print("-" * len(header))
    total = time.perf_counter()
    for name, estimator, options, tight, share in rows:
        start = time.perf_counter()
        base = args.trials if tight else args.soundness_trials
        r = audit(
            estimator,
            X,
            y,
            n_trials=max(20, int(share * base)),
            n_jobs=args.n_jobs,
            random_state=0,
            progress=False,
            **options,
        )
        s0, s1 = r.statistics_without, r.statistics_with
        gauss = abs(s1.mean() - s0.mean()) / np.sqrt((s0.var() + s1.var()) / 2)
        if r.mu_claimed is not None:
            mu = f"{r.mu_claimed:5.3f}"
            ratios = f"{r.mu_estimate / r.mu_claimed:6.2f} {gauss / r.mu_claimed:5.2f}"
        else:
            mu, ratios = f"{'-':>5s}", f"{'-':>6s} {'-':>5s}"
        print(
            f"{name:44s} {r.epsilon_claimed:5.3f} {r.epsilon_lower:6.3f} "
            f"{r.epsilon_lower / r.epsilon_claimed:5.3f} {mu} {r.mu_lower:5.3f} "
            f"{r.mu_estimate:6.3f} {ratios} {r.n_trials:5d} "
            f"{time.perf_counter() - start:4.0f}",
            flush=True,
        )
        assert r.epsilon_lower <= r.epsilon_claimed, f"{name}: audit refutes epsilon"
        if r.mu_claimed is not None:
            assert r.mu_lower <= r.mu_claimed, f"{name}: audit refutes mu"
    print(f"total {time.perf_counter() - total:.0f} s")


if __name__ == "__main__":
    main()
