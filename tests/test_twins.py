"""The NumPy twins of the kernels: equal to the kernels and to the reference.

Small fits (:data:`sklearn_dpgd._engine._twins.SMALL_WORK`) run on the twins, so
they must compute what the kernels compute: the same clipped sums (checked against
the slow reference of ``tests/_reference.py`` and against the kernels), and whole
fits on either side of the threshold that agree to 1e-10 relative for the same
noise. A fresh process that fits only small problems never compiles nor loads a
kernel.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_dpgd import (
    DPHuberRegressor,
    DPHuberSVM,
    DPLinearRegression,
    DPLogisticRegression,
)
from sklearn_dpgd._engine import _kernels, _losses, _oracle, _twins
from sklearn_dpgd._engine._losses import HUBER_HINGE, LOGISTIC
from sklearn_dpgd.schedules import LineSearchSchedule

from . import _reference as ref

LOSSES = {"logistic": LOGISTIC, "huber_hinge": HUBER_HINGE}


def _data(n=300, d=7, K=1, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((n, d)) * 2).astype(dtype)
    y = rng.integers(0, 2 if K == 1 else K, size=n).astype(np.int64)
    W = rng.standard_normal((K, d))
    b = rng.standard_normal(K)
    return X, y, W, b


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("K", [1, 4])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_gradient_sum_matches_reference_and_kernel(loss, K, sparse, fit_intercept):
    X, y, W, b = _data(K=K)
    if sparse:
        X[np.abs(X) < 1.5] = 0.0
        X = sp.csr_matrix(X)
    weights = np.random.default_rng(3).uniform(0, 2, size=X.shape[0])
    for w in (None, weights):
        norms = _twins.row_norms(X, fit_intercept)
        got = _twins.clipped_gradient_sum(
            X, y, W, b, norms, None, fit_intercept, 0.7, LOSSES[loss], 0.5, w
        )
        expected = ref.clipped_gradient_sum(
            X, y, W, b, fit_intercept, 0.7, loss, weights=w
        )
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        if sparse:
            kernel_norms = _kernels.row_norms_csr(X.data, X.indptr, fit_intercept)
            kernel = _kernels.clipped_gradient_sum_csr(
                X.data, X.indices, X.indptr, X.shape[1], y, W, b, kernel_norms,
                None, fit_intercept, 0.7, LOSSES[loss], 0.5, w,
            )  # fmt: skip
        else:
            kernel_norms = _kernels.row_norms(X, fit_intercept)
            kernel = _kernels.clipped_gradient_sum(
                X, y, W, b, kernel_norms, None, fit_intercept, 0.7, LOSSES[loss],
                0.5, w,
            )  # fmt: skip
        np.testing.assert_allclose(norms, kernel_norms, rtol=1e-14)
        np.testing.assert_allclose(got, kernel, rtol=1e-12, atol=1e-12)


def test_row_sample_float32_and_overflowed_rows():
    X, y, W, b = _data(dtype=np.float32)
    rows = np.array([5, 1, 1, 40], dtype=np.int64)
    norms = _twins.row_norms(X, True)
    got = _twins.clipped_gradient_sum(X, y, W, b, norms, rows, True, 1.0, 0, 0.5)
    expected = ref.clipped_gradient_sum(
        X[rows].astype(np.float64), y[rows], W, b, True, 1.0, "logistic"
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # A row whose margin overflows is dropped by both (its term is zero), and a
    # row of huge finite entries keeps a finite norm.
    X64 = np.vstack([_data()[0], np.full((1, 7), 1e300)])
    y64 = np.append(_data()[1], 1)
    norms = _twins.row_norms(X64, True)
    assert np.isfinite(norms).all()
    np.testing.assert_allclose(norms, _kernels.row_norms(X64, True), rtol=1e-14)
    for csr in (sp.csr_matrix(X64), sp.csr_array(X64)):
        np.testing.assert_allclose(_twins.row_norms(csr, True), norms, rtol=1e-14)
    K = np.ones((3, 7))
    twin = _twins.clipped_gradient_sum(
        X64, y64, K, np.zeros(3), norms, None, True, 1.0, 0, 0.5
    )
    kernel = _kernels.clipped_gradient_sum(
        X64, y64, K, np.zeros(3), norms, None, True, 1.0, 0, 0.5
    )
    assert np.isfinite(twin).all()
    np.testing.assert_allclose(twin, kernel, rtol=1e-12)


@pytest.mark.parametrize("loss", ["logistic", "huber_hinge"])
@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_objective_along_matches_reference_and_kernel(loss, K, sparse, weighted):
    X, y, W, b = _data(K=K, seed=1)
    D = np.random.default_rng(2).standard_normal(W.shape)
    db = np.ones(K)
    etas = np.array([0.0, 0.5, 1.0, 3.0])
    rows = np.arange(0, X.shape[0], 2, dtype=np.int64)
    weights = (
        np.random.default_rng(3).uniform(0.0, 2.0, X.shape[0]) if weighted else None
    )
    Xs = sp.csr_matrix(X) if sparse else X
    args = (etas, rows, True, 2.0, LOSSES[loss], 0.5, weights)
    got = _twins.clipped_objective_along(Xs, y, W, b, D, db, *args)
    expected = ref.clipped_objective_along(
        X[rows], y[rows], W, b, D, db, etas, True, 2.0, loss,
        weights=None if weights is None else weights[rows],
    )  # fmt: skip
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    if sparse:
        kernel = _kernels.clipped_objective_along_csr(
            Xs.data, Xs.indices, Xs.indptr, X.shape[1], y, W, b, D, db, *args
        )
    else:
        kernel = _kernels.clipped_objective_along(X, y, W, b, D, db, *args)
    np.testing.assert_allclose(got, kernel, rtol=1e-12)


def _fit_vector(est):
    return np.hstack([est.coef_.ravel(), np.ravel(est.intercept_)])


def _backends(monkeypatch):
    used = []
    init = _oracle.PrivateGradientOracle.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        used.append(type(self._rows).__name__)

    monkeypatch.setattr(_oracle.PrivateGradientOracle, "__init__", spy)
    return used


@pytest.mark.filterwarnings("ignore::sklearn_dpgd.exceptions.PrivacyLeakWarning")
@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda: DPLogisticRegression(classes=[0, 1], random_state=0), "dense"),
        (lambda: DPLogisticRegression(classes=[0, 1], random_state=0), "csr"),
        (lambda: DPLogisticRegression(classes=[0, 1], random_state=0), "float32"),
        (
            lambda: DPLogisticRegression(classes=[0, 1], batch_size=32, random_state=0),
            "dense",
        ),
        (
            lambda: DPLogisticRegression(
                classes=[0, 1], schedule=LineSearchSchedule(), random_state=0
            ),
            "dense",
        ),
        (lambda: DPHuberSVM(classes=[0, 1, 2], random_state=0), "multiclass"),
    ],
)
def test_fits_on_both_sides_of_the_threshold_agree(monkeypatch, make, kind):
    """The same seeded fit on data just below and just above SMALL_WORK runs on
    the twins and on the kernels, with results equal to 1e-10 relative."""
    rng = np.random.default_rng(0)
    K = 3 if kind == "multiclass" else 1
    n, d = 200, 5
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int) if K == 1 else rng.integers(0, 3, n)
    if kind == "csr":
        X[np.abs(X) < 0.3] = 0.0
        X = sp.csr_matrix(X)
    elif kind == "float32":
        X = X.astype(np.float32)
    stored = (X.nnz if sp.issparse(X) else X.size) * K
    used = _backends(monkeypatch)
    fits = []
    for threshold in (stored, stored - 1):  # at the threshold: small; below: not
        monkeypatch.setattr(_twins, "SMALL_WORK", threshold)
        fits.append(_fit_vector(make().fit(X, y)))
    assert set(used[: len(used) // 2]) == {"SmallRows"}
    assert set(used[len(used) // 2 :]) == {"LocalRows"}
    np.testing.assert_allclose(fits[0], fits[1], rtol=1e-10, atol=1e-12)


_FRESH = textwrap.dedent(
    """
    import sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np, scipy.sparse as sp
    from numba.core.registry import CPUDispatcher
    from sklearn.datasets import load_breast_cancer
    from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
    from sklearn_dpgd.model_selection import PrivateGridSearchCV
    from sklearn_dpgd.schedules import LineSearchSchedule
    X, y = load_breast_cancer(return_X_y=True)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    DPLogisticRegression(classes=[0, 1]).fit(X, y)
    DPLogisticRegression(classes=[0, 1], batch_size=64).fit(X.astype(np.float32), y)
    DPLogisticRegression(classes=[0, 1], schedule=LineSearchSchedule()).fit(X, y)
    DPHuberSVM(classes=[0, 1]).fit(sp.csr_matrix(X), y)
    PrivateGridSearchCV(
        DPLogisticRegression(classes=[0, 1]), {"alpha": [1e-3, 1e-2]}
    ).fit(X, y)
    used = []
    for name, mod in list(sys.modules.items()):
        if name.startswith("sklearn_dpgd"):
            for key, value in vars(mod).items():
                for f in (value, getattr(value, "serial", None),
                          getattr(value, "parallel", None)):
                    if isinstance(f, CPUDispatcher) and f.signatures:
                        used.append(name + "." + key)
    print(sorted(set(used)))
    """
)


def test_small_fits_never_load_a_kernel():
    proc = subprocess.run(
        [sys.executable, "-c", _FRESH],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_an_unknown_loss_code_is_refused():
    X, y, W, b = _data()
    norms = _twins.row_norms(X, True)
    with pytest.raises(ValueError, match="loss code 7"):
        _twins.clipped_gradient_sum(X, y, W, b, norms, None, True, 1.0, 7, 0.5)


@pytest.mark.parametrize("loss", [_losses.SQUARED, _losses.HUBER])
def test_regression_losses_match_the_kernels(loss):
    X, _, W, b = _data(seed=4)
    y = np.random.default_rng(5).uniform(-1, 1, X.shape[0])
    norms = _twins.row_norms(X, True)
    rows = np.arange(0, X.shape[0], 3, dtype=np.int64)
    for r in (None, rows):
        got = _twins.clipped_gradient_sum(X, y, W, b, norms, r, True, 0.5, loss, 0.25)
        kernel = _kernels.clipped_gradient_sum(
            X, y, W, b, norms, r, True, 0.5, loss, 0.25
        )
        np.testing.assert_allclose(got, kernel, rtol=1e-12, atol=1e-12)
    D, db, etas = np.ones_like(W), np.ones(1), np.array([0.0, 0.1, 1.0])
    got = _twins.clipped_objective_along(
        X, y, W, b, D, db, etas, rows, True, 2.0, loss, 0.25
    )
    kernel = _kernels.clipped_objective_along(
        X, y, W, b, D, db, etas, rows, True, 2.0, loss, 0.25
    )
    np.testing.assert_allclose(got, kernel, rtol=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn_dpgd.exceptions.PrivacyLeakWarning")
@pytest.mark.parametrize("cls", [DPLinearRegression, DPHuberRegressor])
def test_regressors_on_both_sides_of_the_threshold_agree(monkeypatch, cls):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 4)) / 2
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(300)
    used = _backends(monkeypatch)
    fits = []
    for threshold in (X.size, X.size - 1):
        monkeypatch.setattr(_twins, "SMALL_WORK", threshold)
        fits.append(_fit_vector(cls(y_bounds=(-5, 5), random_state=0).fit(X, y)))
    assert used == ["SmallRows", "LocalRows"]
    np.testing.assert_allclose(fits[0], fits[1], rtol=1e-10, atol=1e-12)
