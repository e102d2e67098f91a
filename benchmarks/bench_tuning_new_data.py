"""Private tuning on data the package's defaults were not chosen on.

Run from the repository root (no download: every data set is embedded in
scikit-learn or generated)::

    nice -n 10 python benchmarks/bench_tuning_new_data.py [--quick] [--seeds 5]

Data sets (fixed public train/test splits; every preprocessing step is a fixed
per-row or per-value map that reads no statistic of the data, so it costs no
privacy, and none of the package's private transformers is used):

- ``breast_cancer``: scikit-learn's Wisconsin breast cancer (569 x 30),
  ``train_test_split(test_size=0.3, stratify=y, random_state=0)``; ``log1p`` of
  every (non-negative) value, then each row scaled to unit L2 norm.
- ``digits_odd``: scikit-learn's 8x8 digits (1797 x 64), label = odd digit,
  same split; pixels divided by their public maximum 16, rows to unit L2 norm.
- ``synthetic_scaled``: ``make_classification(n_samples=15000, n_features=60,
  n_informative=8, n_redundant=4, flip_y=0.03, random_state=0)`` whose columns
  are multiplied by fixed public scales ``10**u``, ``u`` evenly spaced in
  [-2, 2] and shuffled by a fixed seed (badly scaled, 48 uninformative
  columns); first 10000 rows train, last 5000 test; rows to unit L2 norm.
- ``sparse_text``: a synthetic bag of words as a CSR matrix (24000 documents x
  5000 words, Zipf word frequencies, about 60 words per document, each class
  tilts its own 150 words by a factor 3); first 16000 rows train, the rest test;
  ``log1p`` of the counts, rows to unit L2 norm (sparse kept sparse).

Methods, at equal total budget ``(epsilon, delta = 1e-6)`` for the whole
procedure (``public_n_samples`` is not declared: every method pays for its own
noisy size count):

- ``defaults``: ``DPLogisticRegression()`` untuned at the whole budget;
- ``PrivateGridSearchCV``: with its default grid and budget split;
- ``LinearScalingSearch``: with its defaults;
- ``forced_default`` (only with ``--methods``): ``PrivateGridSearchCV`` whose
  comparison (still charged) always returns the factor-1 candidate, the defaults'
  configuration: what the search's budget split alone costs when the defaults are
  the right choice;
- ``perfect_selector`` (only with ``--methods``): the best on the test set of
  the searches forced to each candidate in turn, i.e. ``PrivateGridSearchCV``
  with a selector that never errs: the ceiling of this search design at its
  budget split, below the ``oracle`` because its refit has ``refit_share`` of
  the budget;
- ``oracle``: every candidate of the default grid fitted on all training rows at
  the whole budget (the factor-1 candidate is the ``defaults`` fit itself), the
  best *on the test set* kept: a non-private ceiling (its selection is neither
  paid for nor honest).

Test accuracy, mean (and std) over the seeds.
"""

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.model_selection import (
    LinearScalingSearch,
    PrivateGridSearchCV,
    default_candidates,
)
from sklearn_dpgd.model_selection._grids import DEFAULT_RADIUS_FACTORS

DELTA = 1e-6
EPSILONS = (0.5, 1.0, 2.0)


def _embedded(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        X = np.log1p(X)
    else:
        X, y = load_digits(return_X_y=True)
        X, y = X / 16.0, y % 2
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=0
    )
    return X_tr, X_te, y_tr, y_te


def _synthetic_scaled():
    X, y = make_classification(
        n_samples=15000,
        n_features=60,
        n_informative=8,
        n_redundant=4,
        flip_y=0.03,
        random_state=0,
    )
    rng = np.random.default_rng(0)
    X = X * 10.0 ** rng.permutation(np.linspace(-2.0, 2.0, X.shape[1]))
    return X[:10000], X[10000:], y[:10000], y[10000:]


def _sparse_text(n_docs=24000, n_words=5000, tilted=150, factor=3.0):
    rng = np.random.default_rng(1)
    base = 1.0 / np.arange(1, n_words + 1) ** 1.1
    y = rng.integers(0, 2, size=n_docs)
    cdfs = []
    for _ in (0, 1):
        p = base.copy()
        p[rng.choice(n_words, size=tilted, replace=False)] *= factor
        cdfs.append(np.cumsum(p / p.sum()))
    lengths = rng.poisson(60, size=n_docs) + 1
    words = np.concatenate(
        [
            np.minimum(np.searchsorted(cdfs[c], rng.random(k)), n_words - 1)
            for k, c in zip(lengths, y, strict=True)
        ]
    )
    docs = np.repeat(np.arange(n_docs), lengths)
    counts = sp.csr_matrix(
        (np.ones(words.shape[0]), (docs, words)), shape=(n_docs, n_words)
    )
    counts.sum_duplicates()
    X = counts.log1p()
    n_train = 2 * n_docs // 3
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def load(name):
    """Train/test split of one data set, preprocessed (see the module docstring)."""
    if name in ("breast_cancer", "digits_odd"):
        parts = _embedded(name)
    elif name == "synthetic_scaled":
        parts = _synthetic_scaled()
    else:
        parts = _sparse_text()
    X_tr, X_te, y_tr, y_te = parts
    norm = Normalizer()  # stateless: each row divided by its own L2 norm
    return norm.transform(X_tr), norm.transform(X_te), y_tr, y_te


DATASETS = ("breast_cancer", "digits_odd", "synthetic_scaled", "sparse_text")


class _ForcedSearch(PrivateGridSearchCV):
    """A search whose comparison (charged as usual) returns ``forced_index``."""

    forced_index = 0

    def _report_noisy_max(self, models, X_val, y_val, epsilon, neighboring, rng):
        return self.forced_index


def _grid_search(X, y, epsilon, seed, refit_share, classes, forced_index=None):
    """``PrivateGridSearchCV`` with its default grid, fitted; its comparison forced
    to ``forced_index`` (still charged) unless that is None."""
    search = (PrivateGridSearchCV if forced_index is None else _ForcedSearch)(
        DPLogisticRegression(classes=classes),
        epsilon=epsilon,
        delta=DELTA,
        refit_share=refit_share,
        random_state=seed,
    )
    if forced_index is not None:
        search.forced_index = forced_index
    return search.fit(X, y)


def _runs(X, y, epsilon, seed, refit_share, methods):
    """(method, test-scoring model or list of models) for one budget and seed."""
    classes = np.unique(y)  # public: the label set of each task is known
    defaults = DPLogisticRegression(
        epsilon=epsilon, delta=DELTA, classes=classes, random_state=seed
    ).fit(X, y)
    yield "defaults", defaults
    if "PrivateGridSearchCV" in methods:
        yield (
            "PrivateGridSearchCV",
            _grid_search(X, y, epsilon, seed, refit_share, classes),
        )
    if "LinearScalingSearch" in methods:
        yield (
            "LinearScalingSearch",
            LinearScalingSearch(
                DPLogisticRegression(classes=classes),
                epsilon=epsilon,
                delta=DELTA,
                random_state=seed,
            ).fit(X, y),
        )
    if "forced_default" in methods:
        yield (
            "forced_default",
            _grid_search(X, y, epsilon, seed, refit_share, classes, 0),
        )
    if "perfect_selector" in methods:
        yield (
            "perfect_selector",
            [
                _grid_search(X, y, epsilon, seed, refit_share, classes, j)
                for j in range(len(DEFAULT_RADIUS_FACTORS))
            ],
        )
    base = DPLogisticRegression(classes=classes)
    grid = default_candidates(base, epsilon, DELTA, X.shape[0], X.shape[1])
    if "oracle" not in methods:
        return
    # The factor-1 candidate is the defaults' configuration: its fit is reused.
    yield (
        "oracle",
        [defaults]
        + [
            DPLogisticRegression(
                epsilon=epsilon,
                delta=DELTA,
                classes=classes,
                public_n_samples=X.shape[0],
                random_state=seed,
                **params,
            ).fit(X, y)
            for params in grid[1:]
        ],
    )


METHODS = ("defaults", "PrivateGridSearchCV", "LinearScalingSearch", "oracle")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one seed, epsilon = 1, the two small data sets (a smoke test)",
    )
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument(
        "--methods",
        default=",".join(METHODS),
        help=(
            "comma-separated methods (defaults always run): "
            + ", ".join(METHODS + ("forced_default", "perfect_selector"))
        ),
    )
    parser.add_argument("--epsilons", default=",".join(map(str, EPSILONS)))
    parser.add_argument(
        "--refit-share",
        type=float,
        default=PrivateGridSearchCV(None).refit_share,
        help="refit_share of PrivateGridSearchCV (default: its default)",
    )
    args = parser.parse_args()
    datasets = args.datasets.split(",")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    seeds = args.seeds
    methods = ["defaults"] + [m for m in args.methods.split(",") if m != "defaults"]
    if args.quick:
        datasets, epsilons, seeds = ["breast_cancer", "digits_odd"], [1.0], 1
    warnings.simplefilter("ignore")
    table = {}
    for name in datasets:
        X, X_test, y, y_test = load(name)
        print(f"{name}: train {X.shape}, test {X_test.shape[0]} rows", flush=True)
        for epsilon in epsilons:
            for seed in range(seeds):
                for method, model in _runs(
                    X, y, epsilon, seed, args.refit_share, methods
                ):
                    if isinstance(model, list):
                        acc = max(m.score(X_test, y_test) for m in model)
                    else:
                        acc = model.score(X_test, y_test)
                    table.setdefault((name, epsilon, method), []).append(acc)
                    print(
                        f"  eps={epsilon} seed={seed} {method}: {acc:.4f}", flush=True
                    )
    print(
        f"\nTest accuracy, mean +- std over {seeds} seeds, delta = {DELTA:g}, "
        f"refit_share = {args.refit_share}"
    )
    print("| data set | epsilon | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    for name in datasets:
        for epsilon in epsilons:
            cells = [
                f"{np.mean(a):.4f} +- {np.std(a):.4f}"
                for a in (table[(name, epsilon, m)] for m in methods)
            ]
            print(f"| {name} | {epsilon:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"\n{time.perf_counter() - start:.0f} s")
