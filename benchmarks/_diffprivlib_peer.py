"""diffprivlib's ``LogisticRegression`` beside scikit-learn's, in its own interpreter.

Used by ``bench_peers.py`` and ``bench_heldback.py``. diffprivlib 0.6.6 needs
scikit-learn <= 1.7 (the package's own environment has a newer one), so diffprivlib
lives in its own environment and never in the package's dependencies::

    python3 -m venv /work/venv-dpl
    /work/venv-dpl/bin/pip install diffprivlib==0.6.6 "scikit-learn>=1.6,<1.8" \\
        threadpoolctl

:func:`run` (called by the benchmarks, in the package's interpreter) writes the
preprocessed split to a temporary ``.npz`` file and runs this file as a script with
that interpreter. The worker (:func:`main`, which imports neither sklearn_dpgd nor
anything outside numpy, scikit-learn, threadpoolctl and diffprivlib) fits, per
epsilon and seed, diffprivlib's ``LogisticRegression(epsilon=eps, data_norm=1.0,
random_state=seed)`` and scikit-learn's ``LogisticRegression(max_iter=1000)`` one
after the other (the order alternates with the seed) in the same process, and
prints one JSON line: test accuracies and the per-seed ratio of diffprivlib's fit
time to scikit-learn's. With ``one_thread`` the worker's environment sets
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` = 1 and its fits
run inside ``threadpool_limits(1)``; otherwise both use their default threads.

Privacy of the peer: diffprivlib's guarantee is pure epsilon-DP (delta = 0) by
objective perturbation (Chaudhuri, Monteleoni & Sarwate, JMLR 2011) and holds for
rows of L2 norm at most ``data_norm``. :func:`run` refuses training rows of norm
above 1 (the benchmarks' rows are scaled to unit norm), so ``data_norm=1`` is an
honest bound and its claim holds. This package's fits are (epsilon, delta)-DP.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

ONE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}


def run(python, X_train, X_test, y_train, y_test, epsilons, seeds, one_thread):
    """Fit diffprivlib and scikit-learn in ``python``; return the worker's results.

    Parameters
    ----------
    python : str
        Path of an interpreter with diffprivlib, scikit-learn and threadpoolctl.
    X_train, X_test : ndarray of shape (n_train, p), (n_test, p)
        Preprocessed rows; every training row must have L2 norm <= 1.
    y_train, y_test : ndarray of shape (n_train,), (n_test,)
        0/1 labels.
    epsilons : sequence of float
        Budgets of the private fits.
    seeds : int
        Seeds 0 .. seeds - 1 per epsilon.
    one_thread : bool
        Limit both libraries to one thread.

    Returns
    -------
    results : dict
        ``accuracy`` {str(eps): [% per seed]}, ``ratio`` {str(eps): [t_dpl / t_sk
        per seed]}, ``sk_accuracy`` [%], ``versions``.

    Raises
    ------
    ValueError
        If a training row has norm above 1 (``data_norm=1`` would be false).
    subprocess.CalledProcessError
        If the worker fails.
    """
    if np.max(np.linalg.norm(X_train, axis=1)) > 1.0 + 1e-9:
        raise ValueError("training rows must have L2 norm <= 1 for data_norm=1")
    env = dict(os.environ, **(ONE_THREAD_ENV if one_thread else {}))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "split.npz")
        np.savez(path, X_train=X_train, X_test=X_test, y_train=y_train, y_test=y_test)
        spec = {"epsilons": list(epsilons), "seeds": seeds, "one_thread": one_thread}
        out = subprocess.run(
            [python, os.path.abspath(__file__), path, json.dumps(spec)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _timed_fit(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return time.perf_counter() - start


def _fits(data, spec):
    from diffprivlib.models import LogisticRegression as DPLR
    from sklearn.linear_model import LogisticRegression

    X_train, X_test, y_train, y_test = data
    acc, ratio, sk_acc = {}, {}, []
    for eps in spec["epsilons"]:
        acc[str(eps)], ratio[str(eps)] = [], []
        for seed in range(spec["seeds"]):
            models = {
                "dpl": DPLR(epsilon=eps, data_norm=1.0, random_state=seed),
                "sk": LogisticRegression(max_iter=1000),
            }
            order = ("sk", "dpl") if seed % 2 == 0 else ("dpl", "sk")
            times = {side: _timed_fit(models[side], X_train, y_train) for side in order}
            acc[str(eps)].append(100.0 * models["dpl"].score(X_test, y_test))
            sk_acc.append(100.0 * models["sk"].score(X_test, y_test))
            ratio[str(eps)].append(times["dpl"] / times["sk"])
    return acc, ratio, sk_acc


def main():
    """Worker: ``python _diffprivlib_peer.py split.npz '{"epsilons": ..., ...}'``."""
    from importlib.metadata import version

    from threadpoolctl import threadpool_limits

    with np.load(sys.argv[1]) as f:
        data = (f["X_train"], f["X_test"], f["y_train"], f["y_test"])
    spec = json.loads(sys.argv[2])
    if spec["one_thread"]:
        with threadpool_limits(1):
            acc, ratio, sk_acc = _fits(data, spec)
    else:
        acc, ratio, sk_acc = _fits(data, spec)
    versions = {p: version(p) for p in ("diffprivlib", "scikit-learn", "numpy")}
    print(json.dumps({"accuracy": acc, "ratio": ratio, "sk_accuracy": sk_acc,
                      "versions": versions}))  # fmt: skip


if __name__ == "__main__":
    main()
