"""Helpers shared by the benchmark scripts (no side effects at import: the
scripts set their thread limits themselves before importing anything)."""

import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.datasets import load_benchmark_split, paper_preprocessor


def timed(make, X, y):
    """``make().fit(X, y)`` and its wall time in seconds."""
    start = time.perf_counter()
    model = make().fit(X, y)
    return model, time.perf_counter() - start


def default_gd_sklearn_cell(data, epsilon, seeds, delta):
    """The default ``DPLogisticRegression`` (no public size), ``solver="gd"`` and
    scikit-learn's ``LogisticRegression`` on one binary split, over the seeds.

    The three fits of a seed alternate their order with the seed's parity, in
    this process. ``data`` is ``(X_train, X_test, y_train, y_test)``. Returns
    ``(accuracy, times, ran)``: test accuracies (%) and fit times (s) per side
    ("default", "gd", "sk") and the solver the default ran, one per seed.
    """
    X_train, X_test, y_train, y_test = data
    acc = {"default": [], "gd": [], "sk": []}
    times = {"default": [], "gd": [], "sk": []}
    ran = []
    for seed in range(seeds):
        makes = {
            "sk": lambda: LogisticRegression(max_iter=1000),
            "gd": lambda s=seed: DPLogisticRegression(
                epsilon=epsilon, delta=delta, classes=[0, 1], solver="gd",
                random_state=s,
            ),
            "default": lambda s=seed: DPLogisticRegression(
                epsilon=epsilon, delta=delta, classes=[0, 1], random_state=s
            ),
        }  # fmt: skip
        order = ("sk", "gd", "default") if seed % 2 == 0 else ("default", "gd", "sk")
        for side in order:
            model, seconds = timed(makes[side], X_train, y_train)
            times[side].append(seconds)
            acc[side].append(100.0 * model.score(X_test, y_test))
            if side == "default":
                ran.append(model.solver_)
    return acc, {side: np.asarray(t) for side, t in times.items()}, ran


def benchmark_split(name, data_home):
    """Adult's or Bank's standard split, the papers' preprocessing (fitted on the
    training part), 0/1 labels: ``(X_train, X_test, y_train, y_test, delta)``
    with delta 1e-8."""
    X_train, X_test, y_train, y_test = load_benchmark_split(name, data_home)
    pre = paper_preprocessor().fit(X_train)
    classes = np.unique(y_train)
    return (
        np.ascontiguousarray(pre.transform(X_train)),
        pre.transform(X_test),
        (y_train.to_numpy() == classes[1]).astype(int),
        (y_test.to_numpy() == classes[1]).astype(int),
        1e-8,
    )


def embedded_split(name):
    """scikit-learn's breast cancer, digits or digits binarised (``>= 5``;
    ``name="digits_binary"``): 80/20 stratified split (``random_state=0``),
    min-max scaled on the training part (test values clipped), unit-norm rows:
    ``(X_train, X_test, y_train, y_test, delta)`` with delta 1e-5."""
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        X, y = load_digits(return_X_y=True)
        if name == "digits_binary":
            y = (y >= 5).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    scaler = MinMaxScaler(clip=True).fit(X_train)
    norm = Normalizer()
    return (
        np.ascontiguousarray(norm.transform(scaler.transform(X_train))),
        norm.transform(scaler.transform(X_test)),
        y_train,
        y_test,
        1e-5,
    )
