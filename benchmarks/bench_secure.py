"""Cost of ``secure_mode=True``: the samplers, and a fit on Adult, side by side.

Run from the repository root (Adult is downloaded on first use; see --data-home)::

    python benchmarks/bench_secure.py [--data-home DIR] [--repeat 5]

Part 1 times one call of each sampler of
:class:`sklearn_dpgd._engine._secure.SecureGenerator` (OS CSPRNG bits, Holohan &
Braghin's sums of independent terms, ESORICS 2021, Sect. 5) against the same call on
NumPy's PCG64 ``Generator``, per draw size: a noise vector of a step has a few hundred
to 20,000 values. The Poisson sample of a minibatch step is one uniform per row on NumPy
(``rng.random(n) < q``) and geometric gaps between sampled rows on the secure generator
(:func:`~sklearn_dpgd._engine._secure.poisson_indices`, ``O(q n)`` draws).

Part 2 fits the default :class:`~sklearn_dpgd.DPLogisticRegression` at epsilon = 1
on Adult (:func:`~sklearn_dpgd.datasets.paper_preprocessor`), full batch and with
``batch_size=256``, alternating ``secure_mode=False`` and ``True`` in the same
process, and reports the median fit time of each and their ratio (the goal of
issue 16: at most 1.5). It also counts the bytes the secure fits read from the OS,
which tells whether the estimators route their noise through the secure generator.
"""

import argparse
import os
import statistics
import time
import warnings

import numpy as np

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd._engine import _secure
from sklearn_dpgd._engine._secure import SecureGenerator, poisson_indices
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor

SAMPLERS = {
    "standard_normal": lambda g, n: g.standard_normal(n),
    "laplace": lambda g, n: g.laplace(0.0, 1.0, n),
    "exponential": lambda g, n: g.exponential(1.0, n),
    "gumbel": lambda g, n: g.gumbel(0.0, 1.0, n),
    "random": lambda g, n: g.random(n),
    "integers(0, 2**64)": lambda g, n: g.integers(
        0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True
    ),
    "permutation": lambda g, n: g.permutation(n),
    # The Poisson mask of a minibatch step with an expected batch of 256 rows.
    "poisson_indices(256/n)": lambda g, n: poisson_indices(g, n, min(1.0, 256 / n)),
}
SIZES = (1, 300, 20_000, 1_000_000)


def _median_time(fn, repeat, *args):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sampler_table(repeat):
    secure, numpy_rng = SecureGenerator(), np.random.default_rng()
    print("Samplers: median time of one call (microseconds), secure vs NumPy PCG64")
    print(f"{'sampler':<24}{'size':>10}{'numpy':>12}{'secure':>12}{'ratio':>8}")
    for name, draw in SAMPLERS.items():
        for n in SIZES:
            reps = repeat if n >= 20_000 else 20 * repeat
            t_np = _median_time(draw, reps, numpy_rng, n)
            t_sec = _median_time(draw, reps, secure, n)
            print(
                f"{name:<24}{n:>10}{t_np * 1e6:>12.1f}{t_sec * 1e6:>12.1f}"
                f"{t_sec / t_np:>8.2f}"
            )
    print()


class _ByteCounter:
    """Counts the bytes SecureGenerator reads from the OS during a fit."""

    def __init__(self):
        self.n_bytes = 0
        self._urandom = os.urandom

    def __call__(self, k):
        self.n_bytes += k
        return self._urandom(k)


def fit_table(data_home, repeat):
    X_train, _, y_train, _ = load_benchmark_split("adult", data_home)
    X = np.ascontiguousarray(paper_preprocessor().fit_transform(X_train))
    y = y_train.to_numpy()
    print(f"Adult: n = {X.shape[0]}, d = {X.shape[1]}; DPLogisticRegression, eps = 1")
    print(
        f"{'setting':<22}{'default (s)':>12}{'secure (s)':>12}{'ratio':>8}"
        f"{'OS bytes/fit':>14}{'n_iter_':>9}"
    )
    counter = _ByteCounter()
    _secure.os.urandom = counter
    try:
        for label, params in (
            ("full batch (default)", {}),
            ("batch_size=256", {"batch_size": 256}),
        ):
            times = {False: [], True: []}
            n_iter = None
            DPLogisticRegression(epsilon=1.0, **params).fit(X, y)  # compile kernels
            counter.n_bytes = 0
            for _ in range(repeat):
                for secure in (False, True):
                    est = DPLogisticRegression(
                        epsilon=1.0, secure_mode=secure, **params
                    )
                    start = time.perf_counter()
                    est.fit(X, y)
                    times[secure].append(time.perf_counter() - start)
                    n_iter = est.n_iter_
            t0, t1 = statistics.median(times[False]), statistics.median(times[True])
            print(
                f"{label:<22}{t0:>12.3f}{t1:>12.3f}{t1 / t0:>8.2f}"
                f"{counter.n_bytes // repeat:>14}{n_iter:>9}"
            )
    finally:
        _secure.os.urandom = counter._urandom
    if counter.n_bytes == 0:
        raise RuntimeError("no OS bytes read: secure_mode did not reach the sampler")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-home",
        default=None,
        help="data folder (default: $SKLEARN_DPGD_DATA, else scikit-learn's data "
        "home; Adult is downloaded into it on first use)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-samplers", action="store_true")
    parser.add_argument("--skip-fit", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if not args.skip_samplers:
        sampler_table(args.repeat)
    if not args.skip_fit:
        fit_table(args.data_home, args.repeat)


if __name__ == "__main__":
    main()
