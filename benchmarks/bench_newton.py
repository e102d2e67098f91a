"""solver="newton" against the default (solver="gd"), scikit-learn and diffprivlib
(issue 34).

    python benchmarks/bench_newton.py [--seeds 5] [--data-home DIR]
        [--datasets adult bank breast_cancer digits_binary digits]
        [--small adult_5k bank_5k digits_binary] [--diffprivlib-python PATH]

For each data set, epsilon in {0.1, 0.4, 1.6} and seed: the default
``DPLogisticRegression`` (every parameter at its default), the same with
``solver="newton"``, and scikit-learn's ``LogisticRegression()`` are fitted in turn
in this one process (the three sides alternate within each seed, so that load from
other processes hits them alike). Printed: mean test accuracy over the seeds of
each, and the medians over the seeds of the fit-time ratios Newton / scikit-learn
and Newton / default. Only ratios are reported: absolute times on a shared machine
mean little.

Data: Adult (standard split) and Bank (80/20 stratified, random_state=0) with the
protocol of ``benchmarks/bench_adult.py`` (one-hot + min-max + unit-norm rows,
delta = 1e-8); scikit-learn's breast cancer and digits (binary: digit >= 5), on which
no default of the package was set, split 80/20 stratified (random_state=0),
min-max + unit-norm rows, delta = 1e-5; ``digits`` is the same with its 10 classes
(multinomial Newton, a Hessian of side 10 x 65 = 650). ``classes`` is given (public
labels) and the public size is estimated by the fit (add/remove neighbouring), as by
default.

Second table (``--small``): tables of a few thousand rows at epsilon 2 and 4, where
an exact minimiser plus one noise draw can beat 1,000 noisy steps. ``adult_5k`` and
``bank_5k`` are 5,000 training rows drawn per seed (stratified, random_state=seed)
from the training split above, tested on the full test split; ``digits_binary`` is
the whole 1,437-row training split. Beside the default, Newton and scikit-learn:
diffprivlib's ``LogisticRegression`` (Chaudhuri et al.'s objective perturbation
with the Vector mechanism; ``data_norm=1``, the unit-norm rows, ``C=1``) at the same
epsilon. diffprivlib is *pure* epsilon-DP (delta = 0), a stronger guarantee than
the ``(epsilon, delta)`` of the others: the comparison is of the epsilon a user asks
for, not of equal guarantees. diffprivlib 0.6 imports only beside scikit-learn <
1.7, so it runs in its own interpreter (``--diffprivlib-python``, default
``/tmp/dpl-venv/bin/python``: ``pip install diffprivlib "scikit-learn<1.6"``), on
the same arrays, in a separate process after the others; without it its column
says "not run".

Third (``--variants adult bank``): what limits the Newton solver, on an 80/20
holdout of the *training* split (random_state=0; 3 seeds, epsilon 0.4 and 1.6;
never a test split): the default and ``solver="newton"``, then the same Newton
iterations with the gradient noise, the direction noise or both set to zero
(diagnostics only, not private: the damping is kept), and a prototype of a
variant, a private Böhning-Lindsay iteration ("private MM"). The prototype is not
in the package (this script reads the rows itself): it releases once the Gram
bound ``G = sum_i x~_i x~_i^T / (4 m) >= H(theta) / m`` of every logistic Hessian
(Böhning & Lindsay 1988) with Gaussian noise on its upper triangle (L2
sensitivity ``R^2 / (4 m)`` under add/remove-one, the Frobenius norm of one row's
term), floors its eigenvalues at ``2 sigma sqrt(p)`` (the noise's spectral scale),
then takes ``T = 20`` steps ``theta <- theta - (G~ + alpha I)^{-1} g~_t`` with
noisy gradients from the package's oracle (``mu^2``: 20% the Gram, 80% the
gradients, GDP).
"""

import argparse
import json
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np
from _common import benchmark_split, embedded_split
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._engine._oracle import PrivateNewtonOracle
from sklearn_dpgd._solvers import newton as newton_solver
from sklearn_dpgd.accounting import gdp_mu

EPSILONS = (0.1, 0.4, 1.6)
SMALL_EPSILONS = (2.0, 4.0)
SMALL_ROWS = 5000

_DIFFPRIVLIB = r"""
import json, sys, warnings
import numpy as np
from diffprivlib.models import LogisticRegression
warnings.simplefilter("ignore")
spec = json.load(open(sys.argv[1]))
out = {}
for key, path in spec["splits"].items():
    d = np.load(path)
    out[key] = [
        LogisticRegression(epsilon=eps, data_norm=1.0, random_state=int(d["seed"]))
        .fit(d["X"], d["y"]).score(d["X_test"], d["y_test"])
        for eps in spec["epsilons"]
    ]
print(json.dumps(out))
"""


def _timed_fit(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model, time.perf_counter() - start


def run(name, data_home, seeds):
    X, X_test, y, y_test, delta = _load(name, data_home)
    classes = list(np.unique(y))
    # Warm-up: Numba compilation and first-call costs are not what is compared.
    for solver in ("gd", "newton"):
        _timed_fit(DPLogisticRegression(solver=solver, classes=classes), X, y)
    rows = []
    for epsilon in EPSILONS:
        acc = {"gd": [], "newton": [], "sklearn": []}
        vs_sklearn, vs_gd = [], []
        for seed in range(seeds):
            common = dict(epsilon=epsilon, delta=delta, classes=classes)
            fits = {
                "gd": DPLogisticRegression(**common, random_state=seed),
                "newton": DPLogisticRegression(
                    **common, solver="newton", random_state=seed
                ),
                "sklearn": LogisticRegression(),
            }
            times = {}
            for key, model in fits.items():
                model, times[key] = _timed_fit(model, X, y)
                acc[key].append(model.score(X_test, y_test))
            vs_sklearn.append(times["newton"] / times["sklearn"])
            vs_gd.append(times["newton"] / times["gd"])
        rows.append(
            (
                name,
                epsilon,
                np.mean(acc["gd"]),
                np.mean(acc["newton"]),
                np.mean(acc["sklearn"]),
                np.median(vs_sklearn),
                np.median(vs_gd),
            )
        )
        print(_format(rows[-1]), flush=True)
    return rows


def _load(name, data_home):
    if name in ("adult", "bank"):
        return benchmark_split(name, data_home)
    return embedded_split(name)


def _small_splits(name, data_home, seeds):
    """``{seed: (X, y, X_test, y_test)}`` and delta of a table of a few thousand
    rows."""
    if name == "digits_binary":
        X, X_test, y, y_test, delta = embedded_split(name)
        return {seed: (X, y, X_test, y_test) for seed in range(seeds)}, delta
    X, X_test, y, y_test, delta = benchmark_split(name.split("_")[0], data_home)
    splits = {}
    for seed in range(seeds):
        X_s, _, y_s, _ = train_test_split(
            X, y, train_size=SMALL_ROWS, stratify=y, random_state=seed
        )
        splits[seed] = (np.ascontiguousarray(X_s), y_s, X_test, y_test)
    return splits, delta


def _diffprivlib(python, splits):
    """``{seed: [accuracy per epsilon]}`` from diffprivlib, or None."""
    if not (python and os.path.exists(python)):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for seed, (X, y, X_te, y_te) in splits.items():
            path = os.path.join(tmp, f"{seed}.npz")
            np.savez(path, X=X, y=y, X_test=X_te, y_test=y_te, seed=seed)
            paths[str(seed)] = path
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            json.dump({"splits": paths, "epsilons": list(SMALL_EPSILONS)}, f)
        script = os.path.join(tmp, "run.py")
        with open(script, "w") as f:
            f.write(_DIFFPRIVLIB)
        done = subprocess.run(
            [python, script, spec], capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        print(f"diffprivlib failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return {int(k): v for k, v in json.loads(done.stdout).items()}


def run_small(name, data_home, seeds, dpl_python):
    """Accuracy at epsilon 2 and 4 on a table of a few thousand rows."""
    splits, delta = _small_splits(name, data_home, seeds)
    acc = {key: np.zeros((seeds, len(SMALL_EPSILONS))) for key in ("gd", "newton")}
    sk = []
    for seed, (X, y, X_test, y_test) in splits.items():
        sk.append(LogisticRegression().fit(X, y).score(X_test, y_test))
        for j, epsilon in enumerate(SMALL_EPSILONS):
            for solver in ("gd", "newton"):
                model = DPLogisticRegression(
                    solver=solver,
                    epsilon=epsilon,
                    delta=delta,
                    classes=[0, 1],
                    random_state=seed,
                )
                model, _ = _timed_fit(model, X, y)
                acc[solver][seed, j] = model.score(X_test, y_test)
    dpl = _diffprivlib(dpl_python, splits)
    for j, epsilon in enumerate(SMALL_EPSILONS):
        dpl_cell = (
            "not run"
            if dpl is None
            else f"{np.mean([dpl[s][j] for s in sorted(dpl)]):.4f}"
        )
        print(
            f"| {name} | {len(splits[0][1])} | {epsilon:g} | "
            f"{acc['gd'][:, j].mean():.4f} | {acc['newton'][:, j].mean():.4f} | "
            f"{dpl_cell} | {np.mean(sk):.4f} |",
            flush=True,
        )


class _NoFilter:
    # The variants account for themselves (GDP, fixed noise multipliers).
    def charge(self, record):
        pass


class _Zeros:
    def standard_normal(self, size):
        return np.zeros(size)


def _newton_variant(X, y, epsilon, delta, seed, *, g_noise=True, d_noise=True):
    """The default Newton iterations with a noise switched off (diagnostic)."""
    m, d, n_steps = X.shape[0], X.shape[1], newton_solver.NEWTON_STEPS
    rng = np.random.default_rng(seed)
    oracle = PrivateNewtonOracle(
        X,
        y,
        row_clip=1.0,
        sensitivity_factor=1.0,
        fit_intercept=True,
        privacy_filter=_NoFilter(),
        rng=rng,
        public_n_samples=m,
    )
    z_g, z_d = newton_solver.newton_noise_multipliers(gdp_mu(epsilon, delta), n_steps)
    damping = newton_solver.newton_damping(oracle.curvature_bound, z_d, d + 1)
    theta, alpha = np.zeros(d + 1), 1.0 / m
    for _ in range(n_steps):
        oracle._rng = rng if g_noise else _Zeros()
        grad = oracle.noisy_gradient(theta, z_g)
        grad[:d] += alpha * theta[:d]
        oracle._rng = rng if d_noise else _Zeros()
        theta -= oracle.noisy_direction(theta, grad, damping, alpha, z_d)
    return theta


def _private_mm(X, y, epsilon, delta, seed, n_steps=20, gram_share=0.2):
    """The private Böhning-Lindsay prototype described in the module docstring."""
    m, d = X.shape
    p, mu = d + 1, gdp_mu(epsilon, delta)
    rng = np.random.default_rng(seed)
    oracle = PrivateNewtonOracle(
        X,
        y,
        row_clip=1.0,
        sensitivity_factor=1.0,
        fit_intercept=True,
        privacy_filter=_NoFilter(),
        rng=rng,
        public_n_samples=m,
    )
    rows = np.hstack([X, np.ones((m, 1))])  # unit-norm rows: no clipping needed
    c = oracle.curvature_bound  # R^2 / (4 m): one row's term, Frobenius norm
    sigma = c / np.sqrt(gram_share * mu**2)
    noise = np.triu(sigma * rng.standard_normal((p, p)))
    gram = rows.T @ rows / (4.0 * m) + noise + np.triu(noise, 1).T
    eigenvalues, vectors = np.linalg.eigh(gram)
    alpha = 1.0 / m
    eigenvalues = np.maximum(eigenvalues, 2.0 * sigma * np.sqrt(p)) + alpha
    preconditioner = (vectors / eigenvalues) @ vectors.T
    z_g = np.sqrt(n_steps / ((1.0 - gram_share) * mu**2))
    theta = np.zeros(p)
    for _ in range(n_steps):
        grad = oracle.noisy_gradient(theta, z_g)
        grad[:d] += alpha * theta[:d]
        theta -= preconditioner @ grad
    return theta


def run_variants(name, data_home, seeds=3):
    """Holdout accuracies of the default, Newton, its diagnostics and private MM."""
    X, _, y, _, delta = benchmark_split(name, data_home)
    X, X_ho, y, y_ho = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    X = np.ascontiguousarray(X)

    def score(theta):
        return np.mean(((X_ho @ theta[:-1] + theta[-1]) > 0) == y_ho)

    def fitted(solver):
        def fit(eps, seed):
            model = DPLogisticRegression(
                solver=solver, epsilon=eps, delta=delta, classes=[0, 1],
                random_state=seed,
            )  # fmt: skip
            return _timed_fit(model, X, y)[0].score(X_ho, y_ho)

        return fit

    variants = {
        "default (gd)": fitted("gd"),
        "newton": fitted("newton"),
        "newton, no gradient noise": lambda e, s: score(
            _newton_variant(X, y, e, delta, s, g_noise=False)
        ),
        "newton, no direction noise": lambda e, s: score(
            _newton_variant(X, y, e, delta, s, d_noise=False)
        ),
        "newton, no noise (damped)": lambda e, s: score(
            _newton_variant(X, y, e, delta, s, g_noise=False, d_noise=False)
        ),
        "private MM (prototype)": lambda e, s: score(_private_mm(X, y, e, delta, s)),
    }
    for key, fit in variants.items():
        cells = [np.mean([fit(e, s) for s in range(seeds)]) for e in (0.4, 1.6)]
        print(f"| {name} | {key} | " + " | ".join(f"{c:.4f}" for c in cells) + " |")


def _format(row):
    name, eps, gd, newton, sk, r_sk, r_gd = row
    return (
        f"| {name} | {eps:g} | {gd:.4f} | {newton:.4f} | {newton - gd:+.4f} | "
        f"{sk:.4f} | {r_sk:.2f} | {r_gd:.2f} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data-home", default=None)
    parser.add_argument(
        "--datasets",
        nargs="*",
        default=["adult", "bank", "breast_cancer", "digits_binary", "digits"],
    )
    parser.add_argument(
        "--small",
        nargs="*",
        default=["adult_5k", "bank_5k", "digits_binary"],
        help="tables of a few thousand rows for the epsilon 2 and 4 comparison",
    )
    parser.add_argument("--diffprivlib-python", default="/tmp/dpl-venv/bin/python")
    parser.add_argument(
        "--variants",
        nargs="*",
        default=[],
        help="holdout diagnostics and the private MM prototype (adult, bank)",
    )
    args = parser.parse_args()
    if args.datasets:
        print(
            "| data | epsilon | default (gd) | newton | newton - default | "
            "sklearn LR | time newton/sklearn | time newton/default |"
        )
        print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        run(name, args.data_home, args.seeds)
    if args.small:
        print(
            "\n| data | training rows | epsilon | default (gd) | newton | "
            "diffprivlib LR (pure eps-DP) | sklearn LR |"
        )
        print("|---|---|---|---|---|---|---|")
    for name in args.small:
        run_small(name, args.data_home, args.seeds, args.diffprivlib_python)
    if args.variants:
        print("\n| data | holdout of the training split | eps 0.4 | eps 1.6 |")
        print("|---|---|---|---|")
    for name in args.variants:
        run_variants(name, args.data_home)


if __name__ == "__main__":
    main()
