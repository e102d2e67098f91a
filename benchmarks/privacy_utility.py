"""Privacy-utility benchmark: test accuracy vs epsilon of every method, Adult and Bank.

    python benchmarks/privacy_utility.py [--data-home DIR]
        [--datasets adult bank] [--seeds 5] [--epsilons 0.05 0.1 0.2 0.4 0.8 1.6]
        [--methods SUBSTRING ...] [--others-python /work/venv-others/bin/python]
        [--out benchmarks/results]

Protocol (Lee & Kifer, KDD 2018; the papers in ``doc/references.rst``): Adult with
its standard train/test split, Bank with an 80/20 stratified split (random_state=0),
both from :func:`sklearn_dpgd.datasets.load_benchmark_split`; one-hot encoding,
min-max scaling and unit-L2-norm rows (:func:`sklearn_dpgd.datasets.paper_preprocessor`,
fitted on the training split); delta = 1e-8; mean and standard deviation of the test
accuracy over the seeds (``random_state = 0 .. seeds-1``); every method with its
defaults, nothing tuned on the test split. The fit time is the mean wall-clock time of
one ``fit`` over all (epsilon, seed) cells of that method, measured in this run
with one thread per fit (``--jobs`` worker processes run the fits of this package
and of scikit-learn; the other libraries run afterwards, one fit at a time).

Methods (a row appears when its code is importable, so rows for methods added to the
package later appear without editing this script):

- every estimator of :mod:`sklearn_dpgd` with its defaults; ``DPLogisticRegression``
  once per schedule class exported by :mod:`sklearn_dpgd.schedules` that can be built
  with no arguments, once per non-default ``solver`` option, and once with Poisson
  minibatches (``batch_size=256``, the package's DP-SGD);
- every classifier exported by :mod:`sklearn_dpgd.baselines` (output perturbation,
  phased localization, ...), with ``data_norm=1`` where it has that parameter;
- non-private references: scikit-learn's ``LogisticRegression()`` and the majority
  class (``DummyClassifier``); they do not depend on epsilon;
- other libraries, run by ``benchmarks/_privacy_utility_others.py`` in a separate
  interpreter (diffprivlib 0.6.6 needs scikit-learn <= 1.7, this package >= 1.6):
  diffprivlib's ``LogisticRegression(epsilon, data_norm=1)`` (objective perturbation,
  pure epsilon-DP, delta = 0) and an Opacus DP-SGD logistic regression (torch CPU;
  Poisson batches of expected size 256, 5 epochs, per-example clip norm 1, noise
  calibrated by ``make_private_with_epsilon`` to (epsilon, 1e-8) with the PRV
  accountant; the learning rate is chosen once per data set by a NON-private run
  on a validation split carved from the training data, which is not paid for in
  epsilon).

The other interpreter is given by ``--others-python`` or the environment variable
``SKLEARN_DPGD_OTHERS_PYTHON``; without either, those rows are skipped with a note.
To build it (a CPU wheel of torch; an unpinned ``torch`` would pull CUDA)::

    python3 -m venv /work/venv-others
    /work/venv-others/bin/pip install "scikit-learn>=1.6,<1.8" diffprivlib pandas
    /work/venv-others/bin/pip install torch==2.13.0 opacus

The split is handed to it as a temporary ``.npz`` file (preprocessed arrays only);
it prints its results as JSON.

Output: the tables on stdout, ``<out>/privacy_utility.md`` and
``<out>/privacy_utility.png`` (accuracy vs epsilon, one panel per data set).
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

import sklearn_dpgd
from sklearn_dpgd import schedules as _schedules
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
DELTA = 1e-8
HERE = Path(__file__).resolve().parent
OTHERS_WORKER = HERE / "_privacy_utility_others.py"
OTHERS_METHODS = ("diffprivlib LogisticRegression", "Opacus DP-SGD")


class Method:
    """One row of the table: ``build(epsilon, seed)`` returns an unfitted estimator."""

    def __init__(self, name, build, private=True, note=""):
        self.name = name
        self.build = build
        self.private = private
        self.note = note


def _schedule_classes():
    """Schedule classes exported by :mod:`sklearn_dpgd.schedules`, built by default."""
    found = []
    for name in getattr(_schedules, "__all__", dir(_schedules)):
        obj = getattr(_schedules, name, None)
        if not (inspect.isclass(obj) and name.endswith("Schedule")):
            continue
        if inspect.isabstract(obj):
            continue
        try:
            obj()
        except TypeError:  # needs arguments: no default configuration
            continue
        found.append(obj)
    return found


def _dp_estimators():
    """Public estimator classes of the package (the names in ``__all__``)."""
    from sklearn.base import ClassifierMixin

    found = []
    for name in sklearn_dpgd.__all__:
        cls = getattr(sklearn_dpgd, name)
        if inspect.isclass(cls) and issubclass(cls, ClassifierMixin):
            try:
                cls()
            except TypeError:  # a meta-estimator that needs an estimator
                continue
            found.append(cls)
    return found


def _string_options(cls, param):
    """The string options of ``param`` in ``cls._parameter_constraints``."""
    options = set()
    for constraint in getattr(cls, "_parameter_constraints", {}).get(param, []):
        options |= set(getattr(constraint, "options", ()) or ())
    return sorted(o for o in options if isinstance(o, str))


def _with_params(cls, params, **extra):
    accepted = cls().get_params()
    return {k: v for k, v in {**params, **extra}.items() if k in accepted}


def build_methods():
    """The registry of in-process methods, in table order."""
    from sklearn_dpgd import DPLogisticRegression

    def dp(cls, **fixed):
        def build(eps, seed):
            params = {"epsilon": eps, "delta": DELTA, "random_state": seed}
            return cls(**_with_params(cls, params, **fixed))

        return build

    methods = []
    for cls in _dp_estimators():
        methods.append(Method(f"{cls.__name__} (defaults)", dp(cls, data_norm=1.0)))
    for sched in _schedule_classes():
        methods.append(
            Method(
                f"DPLogisticRegression, {sched.__name__}()",
                dp(DPLogisticRegression, schedule=sched()),
            )
        )
    default_solver = DPLogisticRegression().get_params().get("solver")
    for solver in _string_options(DPLogisticRegression, "solver"):
        if solver != default_solver:
            methods.append(
                Method(
                    f"DPLogisticRegression, solver={solver!r}",
                    dp(DPLogisticRegression, solver=solver),
                )
            )
    methods.append(
        Method(
            "DPLogisticRegression, batch_size=256 (DP-SGD)",
            dp(DPLogisticRegression, batch_size=256),
        )
    )
    try:
        from sklearn_dpgd import baselines
    except ImportError:
        baselines = None
    if baselines is not None:
        from sklearn.base import ClassifierMixin

        seen = set(_dp_estimators())  # baselines may be exported at the top too
        for name in getattr(baselines, "__all__", []):
            cls = getattr(baselines, name)
            if (
                inspect.isclass(cls)
                and issubclass(cls, ClassifierMixin)
                and cls not in seen
            ):
                methods.append(Method(f"{name} (defaults)", dp(cls, data_norm=1.0)))
    methods.append(
        Method(
            "sklearn LogisticRegression (non-private)",
            lambda eps, seed: LogisticRegression(max_iter=1000),
            private=False,
        )
    )
    methods.append(
        Method(
            "majority class (non-private)",
            lambda eps, seed: DummyClassifier(strategy="most_frequent"),
            private=False,
        )
    )
    return methods


def _split(dataset, data_home):
    X_train, X_test, y_train, y_test = load_benchmark_split(dataset, data_home)
    pre = paper_preprocessor().fit(X_train)
    return (
        np.ascontiguousarray(pre.transform(X_train), dtype=np.float64),
        np.ascontiguousarray(pre.transform(X_test), dtype=np.float64),
        y_train.to_numpy().astype(np.int64),
        y_test.to_numpy().astype(np.int64),
    )


def _fit_one(method, eps, seed, data):
    """Fit one cell in a worker with one thread: accuracy, (wall, CPU) seconds."""
    import numba
    from threadpoolctl import threadpool_limits

    X_train, X_test, y_train, y_test = data
    # One thread per worker process: the workers already fill the cores, and
    # spinning OpenMP threads of two processes would fight over them.
    numba.set_num_threads(1)
    with threadpool_limits(1), warnings.catch_warnings():
        # Weak-privacy and convergence warnings are expected at some epsilons.
        warnings.simplefilter("ignore")
        est = method.build(eps, seed)
        start, start_cpu = time.perf_counter(), time.process_time()
        est.fit(X_train, y_train)
        seconds = (time.perf_counter() - start, time.process_time() - start_cpu)
        return float(est.score(X_test, y_test)), seconds


def run_in_process(methods, data, epsilons, seeds, n_jobs):
    """``{name: ({eps: [acc per seed]}, [(wall, CPU) s per fit])}``, in-process."""
    from joblib import Parallel, delayed

    tasks = []
    for method in methods:
        # Non-private references depend neither on epsilon nor (here) on the seed.
        eps_grid = epsilons if method.private else epsilons[:1]
        seed_grid = seeds if method.private else seeds[:1]
        tasks += [(method, eps, seed) for eps in eps_grid for seed in seed_grid]
    out = Parallel(n_jobs=n_jobs)(
        delayed(_fit_one)(method, eps, seed, data) for method, eps, seed in tasks
    )
    rows = {m.name: ({e: [] for e in epsilons}, []) for m in methods}
    for (method, eps, _), (acc, seconds) in zip(tasks, out, strict=True):
        accs, times = rows[method.name]
        times.append(seconds)
        for e in epsilons if not method.private else [eps]:
            accs[e].append(acc)
    return rows


def run_others(python, data, epsilons, seeds, wanted):
    """Run the other libraries' methods in ``python``; returns rows and notes."""
    X_train, X_test, y_train, y_test = data
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "split.npz"
        np.savez(path, X_train=X_train, X_test=X_test, y_train=y_train, y_test=y_test)
        spec = {
            "data": str(path),
            "epsilons": list(epsilons),
            "seeds": list(seeds),
            "delta": DELTA,
            "methods": list(wanted),
        }
        proc = subprocess.run(
            [python, str(OTHERS_WORKER)],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-5:]
        return {}, [f"other libraries' worker failed: {' / '.join(tail)}"]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = {}
    for name, res in out["results"].items():
        accs = {float(e): v for e, v in res["accuracy"].items()}
        rows[name] = ({e: accs[e] for e in epsilons}, res["fit_seconds"])
    return rows, out["notes"]


def _cell(values):
    return f"{np.mean(values):.4f} ± {np.std(values):.4f}"


def _table(dataset, shape, rows, epsilons, n_seeds):
    lines = [
        f"### {dataset} (n_train={shape[0]}, d={shape[1]}, {n_seeds} seeds, "
        f"delta={DELTA:g})",
        "",
        "| method | "
        + " | ".join(f"eps={e:g}" for e in epsilons)
        + " | fit s, wall | fit s, CPU |",
        "|---|" + "---|" * len(epsilons) + "---|---|",
    ]
    for name, (accs, times) in rows.items():
        lines.append(
            f"| {name} | "
            + " | ".join(_cell(accs[e]) for e in epsilons)
            + " | "
            + " | ".join(f"{t:.3f}" for t in np.mean(np.reshape(times, (-1, 2)), 0))
            + " |"
        )
    return "\n".join(lines)


def _plot(results, epsilons, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        1, len(results), figsize=(7.5 * len(results), 6), squeeze=False
    )
    cmap = plt.get_cmap("tab20")
    for ax, (dataset, rows) in zip(axes[0], results.items(), strict=True):
        for i, (name, (accs, _)) in enumerate(rows.items()):
            mean = np.array([np.mean(accs[e]) for e in epsilons])
            std = np.array([np.std(accs[e]) for e in epsilons])
            private = "non-private" not in name
            ax.errorbar(
                epsilons,
                mean,
                yerr=std,
                label=name,
                color=cmap(i % 20),
                linestyle="-" if private else "--",
                marker="o" if private else None,
                markersize=3,
                capsize=2,
            )
        ax.set_xscale("log")
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.set_xlabel(f"epsilon (delta = {DELTA:g})")
        ax.set_ylabel("test accuracy")
        ax.set_title(dataset)
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0.06 + 0.022 * ((len(labels) + 1) // 2), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


NOTES = """Notes:
- Cells: mean ± standard deviation of the test accuracy over the seeds. Fit time:
  mean wall-clock and CPU seconds per `fit` in this run, one thread per fit (this
  package's and scikit-learn's fits run in parallel worker processes, the other
  libraries' afterwards in one process). The machine was shared with other jobs,
  so wall times are inflated by waiting; CPU times are the comparable measure.
- All private rows of this package and the baselines are (epsilon, delta)-DP with
  delta = 1e-8 under add/remove-one neighbouring, with their default settings.
- diffprivlib LogisticRegression is objective perturbation (Chaudhuri et al. 2011),
  pure epsilon-DP (delta = 0), with data_norm = 1 (rows are unit-norm after the
  preprocessing).
- Opacus DP-SGD: logistic regression (one linear layer), Poisson batches of expected
  size 256, 5 epochs, clip norm 1, plain SGD; noise from `make_private_with_epsilon`
  for (epsilon, 1e-8) with the PRV accountant, bisection tolerance 1% of epsilon
  (the achieved epsilon is at most the target). Its learning rate was chosen on a
  non-private run on a 20% validation split of the training data (not on the test
  set); that choice is not paid for in epsilon.
- The min-max scaling of the preprocessing is fitted on the training split (as in the
  papers); a fully private pipeline would use public bounds.
- Non-private rows do not depend on epsilon."""


def _portable_arguments(argv):
    """The command line with this machine's paths as placeholders."""
    placeholders = {"--data-home": "DATA_HOME", "--others-python": "OTHERS_PYTHON"}
    out, hide = [], None
    for arg in argv:
        name, eq, _ = arg.partition("=")
        if hide is not None:
            out.append(hide)
            hide = None
        elif eq and name in placeholders:
            out.append(f"{name}={placeholders[name]}")
        else:
            out.append(arg)
            hide = placeholders.get(arg)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--datasets", nargs="+", default=["adult", "bank"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="keep only methods whose name contains one of these (case-insensitive)",
    )
    parser.add_argument(
        "--others-python",
        default=os.environ.get("SKLEARN_DPGD_OTHERS_PYTHON"),
        help="interpreter with diffprivlib and opacus "
        "(default: $SKLEARN_DPGD_OTHERS_PYTHON)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="worker processes for the in-process fits (one thread each)",
    )
    parser.add_argument("--out", default=str(HERE / "results"))
    args = parser.parse_args()
    epsilons = sorted(args.epsilons)
    seeds = list(range(args.seeds))

    def wanted(name):
        return args.methods is None or any(
            m.lower() in name.lower() for m in args.methods
        )

    methods = [m for m in build_methods() if wanted(m.name)]
    others = [name for name in OTHERS_METHODS if wanted(name)]
    notes = []
    if others and not args.others_python:
        notes.append(
            "diffprivlib and Opacus rows skipped: no --others-python and no "
            "SKLEARN_DPGD_OTHERS_PYTHON (see the docstring of this script)."
        )
        print(notes[-1])
        others = []

    start_all = time.perf_counter()
    results, sections = {}, []
    for dataset in args.datasets:
        data = _split(dataset, args.data_home)
        start = time.perf_counter()
        rows = run_in_process(methods, data, epsilons, seeds, args.jobs)
        print(
            f"[{dataset}] {len(methods)} methods of this package and scikit-learn: "
            f"{time.perf_counter() - start:.1f} s",
            flush=True,
        )
        if others:
            start = time.perf_counter()
            other_rows, other_notes = run_others(
                args.others_python, data, epsilons, seeds, others
            )
            rows.update(other_rows)
            notes += [f"{dataset}: {n}" for n in other_notes]
            print(
                f"[{dataset}] other libraries: {time.perf_counter() - start:.1f} s",
                flush=True,
            )
        results[dataset] = rows
        table = _table(dataset, data[0].shape, rows, epsilons, len(seeds))
        sections.append(table)
        print("\n" + table + "\n", flush=True)
    runtime = time.perf_counter() - start_all

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    header = (
        "# Privacy-utility benchmark\n\n"
        f"Generated by `python benchmarks/privacy_utility.py "
        f"{' '.join(_portable_arguments(sys.argv[1:]))}`".rstrip()
        + f" in {runtime / 60:.1f} min (2-core machine shared with other jobs).\n"
        "DATA_HOME holds the Adult and Bank files; OTHERS_PYTHON is the interpreter "
        "with diffprivlib and Opacus (the script's docstring says how to build it).\n"
        f"sklearn-dpgd {sklearn_dpgd.__version__}. Plot: `privacy_utility.png`.\n"
    )
    extra = "".join(f"\n- {n}" for n in notes)
    (out / "privacy_utility.md").write_text(
        header + "\n" + "\n\n".join(sections) + "\n\n" + NOTES + extra + "\n"
    )
    _plot(results, epsilons, out / "privacy_utility.png")
    print(NOTES + extra)
    print(f"\nTotal {runtime:.0f} s; wrote {out / 'privacy_utility.md'} and .png")


if __name__ == "__main__":
    main()
