"""Training on Dask arrays: same guarantee, same model as the NumPy path.

A two-process LocalCluster on loopback runs for the whole module, so the chunk sums
really are computed in other processes and only what the client gathers reaches it.
"""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression  # noqa: E402
from sklearn_dpgd._engine._dask import DaskRows  # noqa: E402
from sklearn_dpgd._engine._losses import LOSS_CODES  # noqa: E402
from sklearn_dpgd.exceptions import PrivacyLeakWarning  # noqa: E402
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule  # noqa: E402

ESTIMATORS = [DPLogisticRegression, DPHuberSVM]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _data(n=3000, d=5, n_classes=2, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    scores = X @ rng.standard_normal((d, n_classes)) + 0.3 * rng.standard_normal(
        (n, n_classes)
    )
    y = np.argmax(scores, axis=1) * 10 + 1  # labels 1, 11, 21, ...
    return X.astype(dtype), y


def _dask(X, y, rows=700):
    # Uneven row chunks (the last is shorter) and two column chunks, which the
    # backend merges.
    return (
        da.from_array(X, chunks=(rows, max(1, X.shape[1] // 2))),
        da.from_array(y, chunks=rows),
    )


def test_temperature_stage_same_as_numpy(client):
    # The calibration's feature clip(X @ coef / 8) is computed where the rows live.
    X, y = _data()
    params = dict(epsilon=2.0, delta=1e-6, max_iter=15, classes=[1, 11])
    params.update(calibration="temperature", random_state=7)
    ref = DPLogisticRegression(**params).fit(X, y)
    fitted = DPLogisticRegression(**params).fit(*_dask(X, y))
    assert fitted.calibration_ == ref.calibration_ == "temperature"
    assert fitted.calibration_scale_ == pytest.approx(ref.calibration_scale_, abs=1e-10)
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-10)
    assert fitted.ledger_ == ref.ledger_ and fitted.mu_ == ref.mu_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_same_model_and_epsilon_as_numpy(client, Estimator, n_classes):
    X, y = _data(n_classes=n_classes)
    classes = [1 + 10 * k for k in range(n_classes)]
    params = dict(epsilon=2.0, delta=1e-6, max_iter=15, classes=classes)
    ref = Estimator(**params, random_state=7).fit(X, y)
    fitted = Estimator(**params, random_state=7).fit(*_dask(X, y))
    # Only the order of the floating-point additions differs (chunk sums).
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fitted.intercept_, ref.intercept_, rtol=0, atol=1e-10)
    assert fitted.epsilon_ == ref.epsilon_
    assert fitted.mu_ == ref.mu_
    assert fitted.ledger_ == ref.ledger_
    np.testing.assert_array_equal(fitted.classes_, ref.classes_)
    assert fitted.n_features_in_ == X.shape[1]
    # Another seed gives another model: the comparison above is not vacuous.
    other = Estimator(**params, random_state=8).fit(X, y)
    assert np.abs(other.coef_ - ref.coef_).max() > 1e-6


@pytest.mark.parametrize(
    "params",
    [
        dict(class_weight={1: 0.5, 11: 2.0}, max_sample_weight=3.0),
        dict(class_weight="balanced", max_sample_weight=3.0),
        dict(batch_size=600, max_sample_weight=3.0),
        dict(batch_size=600, class_weight="balanced", max_sample_weight=3.0),
        dict(schedule=AdaptiveStepSchedule(), max_sample_weight=3.0),
    ],
)
def test_weighted_same_model_as_numpy(client, params):
    # The weights travel with the row chunks (a dask array, rechunked like X) and
    # are validated on the workers.
    X, y = _data()
    weights = np.random.default_rng(1).uniform(0.0, 3.0, size=len(y))
    params = dict(epsilon=2.0, delta=1e-6, max_iter=15, classes=[1, 11], **params)
    ref = DPLogisticRegression(**params, random_state=7).fit(
        X, y, sample_weight=weights
    )
    Xd, yd = _dask(X, y)
    fitted = DPLogisticRegression(**params, random_state=7).fit(
        Xd, yd, sample_weight=da.from_array(weights, chunks=500)
    )
    if "batch_size" not in params:  # Poisson samples are drawn per chunk on dask
        np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-10)
    assert fitted.ledger_ == ref.ledger_ and fitted.epsilon_ == ref.epsilon_
    assert fitted.alpha_ == pytest.approx(ref.alpha_, rel=1e-12)
    unweighted = DPLogisticRegression(**params, random_state=7).fit(Xd, yd)
    assert np.abs(unweighted.coef_ - ref.coef_).max() > 1e-6
    weights[0] = 3.5
    with pytest.raises(ValueError, match=r"max_sample_weight=3\]"):
        DPLogisticRegression(**params).fit(Xd, yd, sample_weight=da.from_array(weights))


def test_float32_unknown_chunks_and_rechunked_y(client):
    X, y = _data(dtype=np.float32)
    params = dict(epsilon=1.0, max_iter=10, classes=[1, 11], random_state=3)
    ref = DPLogisticRegression(**params).fit(X, y)
    Xd, yd = _dask(X, y)
    keep = da.ones(X.shape[0], chunks=700, dtype=bool)
    # A boolean mask leaves the row-chunk lengths unknown (NaN); y gets other chunks.
    Xd, yd = Xd[keep], da.from_array(y, chunks=1100)
    assert np.isnan(Xd.chunks[0][0])
    fitted = DPLogisticRegression(**params).fit(Xd, yd)
    assert fitted.coef_.dtype == np.float32
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-6)
    assert fitted.epsilon_ == ref.epsilon_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_predictions_are_lazy_dask_arrays(client, Estimator):
    X, y = _data(n_classes=3)
    clf = Estimator(max_iter=10, classes=[1, 11, 21], random_state=0).fit(X, y)
    Xd, _ = _dask(X, y)
    methods = ["decision_function", "predict"]
    if hasattr(clf, "predict_proba"):
        methods += ["predict_proba", "predict_log_proba"]
    for method in methods:
        out = getattr(clf, method)(Xd)
        assert isinstance(out, da.Array), method
        expected = getattr(clf, method)(X)
        assert out.shape == expected.shape and out.dtype == expected.dtype
        np.testing.assert_allclose(out.compute(), expected, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="has 4 features"):
        clf.predict(Xd[:, :4])


def test_poisson_sampling_spends_the_same_epsilon(client):
    X, y = _data(n=4000)
    params = dict(epsilon=2.0, max_iter=20, batch_size=400, classes=[1, 11])
    ref = DPLogisticRegression(**params, random_state=0).fit(X, y)
    Xd, yd = _dask(X, y)
    fitted = DPLogisticRegression(**params, random_state=0).fit(Xd, yd)
    assert fitted.epsilon_ == ref.epsilon_
    assert fitted.ledger_ == ref.ledger_
    again = DPLogisticRegression(**params, random_state=0).fit(Xd, yd)
    np.testing.assert_array_equal(again.coef_, fitted.coef_)  # reproducible
    # A different random stream from the NumPy path, but the same learning.
    assert not np.array_equal(fitted.coef_, ref.coef_)
    assert fitted.score(X, y) > 0.8 and ref.score(X, y) > 0.8


def test_poisson_sample_is_per_row_bernoulli():
    # One-hot rows: at W = 0 the binary logistic gradient of row j is
    # -0.5 * [e_j, 1] (norm 0.71 < clip_norm 1, so unclipped), so column j of the
    # clipped sum is -0.5 if row j was sampled and 0 otherwise. This reads the
    # sample back out of the sum (only possible without noise, here in a test).
    # The sampling runs in the chunk task whatever the scheduler; the in-process
    # one makes the 150 steps fast.
    n, n_chunks, q, n_steps = 400, 4, 0.3, 150
    X = da.from_array(np.eye(n), chunks=(n // n_chunks, n))
    y = da.from_array(np.ones(n, dtype=np.int64), chunks=n // n_chunks)
    kernel_args = (True, 1.0, LOSS_CODES["logistic"], 0.5)
    rng = np.random.default_rng(0)
    W, b = np.zeros((1, n)), np.zeros(1)
    with dask.config.set(scheduler="synchronous"):
        rows = DaskRows(X, y, fit_intercept=True)
        assert rows.n_chunks == n_chunks
        samples = np.array(
            [
                -2.0 * rows.clipped_sum(W, b, kernel_args, q, rng)[0]
                for _ in range(n_steps)
            ]
        )
    np.testing.assert_array_equal(samples[:, n], samples[:, :n].sum(axis=1))
    assert set(np.unique(samples[:, :n])) == {0.0, 1.0}
    samples = samples[:, :n]
    # Overall inclusion rate: 60000 Bernoulli(0.3) draws, std 0.0019.
    assert abs(samples.mean() - q) < 5 * np.sqrt(q * (1 - q) / samples.size)
    # Per-row frequencies spread as Binomial(150, q) / 150 across rows (no row is
    # favoured): their variance over the 400 rows is q (1 - q) / 150 to ~7%.
    freq = samples.mean(axis=0)
    assert 0.75 < freq.var() / (q * (1 - q) / n_steps) < 1.25
    # Batch size: mean q n = 120 and variance n q (1 - q) = 84 (Poisson sampling,
    # not a fixed batch size; a fixed size would have variance 0).
    sizes = samples.sum(axis=1)
    assert abs(sizes.mean() - q * n) < 5 * np.sqrt(n * q * (1 - q) / n_steps)
    assert 0.6 < sizes.var() / (n * q * (1 - q)) < 1.4
    # Independent rows within and across chunks; the same position in different
    # chunks is not sampled alike (each chunk has its own seed).
    corr = np.corrcoef(samples.T)
    assert abs(corr[np.triu_indices(n, 1)].mean()) < 0.005
    size = n // n_chunks
    same_position = [
        corr[i, i + k * size] for k in range(1, n_chunks) for i in range(size)
    ]
    assert abs(np.mean(same_position)) < 0.05
    # Full batch draws nothing from the generator and sums every row.
    state = rng.bit_generator.state
    with dask.config.set(scheduler="synchronous"):
        full = rows.clipped_sum(W, b, kernel_args, 1.0, rng)
    np.testing.assert_array_equal(full[0, :n], -0.5)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("batch_size", [None, 300])
def test_only_sums_reach_the_client(client, monkeypatch, batch_size):
    X, y = _data(n=2100, d=4)
    Xd, yd = _dask(X, y)
    gathered = []
    gather = client.gather

    def recording_gather(*args, **kwargs):
        out = gather(*args, **kwargs)
        gathered.append(out)
        return out

    monkeypatch.setattr(client, "gather", recording_gather)
    max_iter = 12
    DPLogisticRegression(
        max_iter=max_iter, batch_size=batch_size, classes=[1, 11], random_state=0
    ).fit(Xd, yd)

    def leaves(obj):
        if isinstance(obj, list | tuple):
            for item in obj:
                yield from leaves(item)
        else:
            yield obj

    arrays = [np.asarray(leaf) for leaf in leaves(gathered)]
    sums = [a for a in arrays if a.shape == (1, X.shape[1] + 1)]
    assert len(sums) == max_iter  # one reduced sum per step, not one per chunk
    others = [a for a in arrays if a.shape != (1, X.shape[1] + 1)]
    # Validation: the "all finite" flag and the (empty) labels outside `classes`;
    # full batch, also the utility diagnostics' reduced counts (unscaled rows,
    # predicted classes, the 2 x 2 confusion matrix behind the accuracy gains),
    # noised on the client like the sums.
    flags = [a for a in others if a.dtype == bool or a.size == 0]
    assert sorted(a.size for a in flags) == [0, 1]
    counts = sorted(a.size for a in others if a.dtype != bool and a.size)
    assert counts == ([] if batch_size else [1, 2, 4])


def test_nan_is_refused_before_training(client, monkeypatch):
    X, y = _data()
    X[1234, 2] = np.nan

    def no_training(*args, **kwargs):
        raise AssertionError("a training step ran")

    monkeypatch.setattr(DaskRows, "clipped_sum", no_training)
    with pytest.raises(ValueError, match="NaN or infinity"):
        DPLogisticRegression(classes=[1, 11]).fit(*_dask(X, y))
    X[1234, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        DPLogisticRegression(classes=[1, 11]).fit(*_dask(X, y))


def test_labels_follow_the_numpy_rules(client):
    X, y = _data()
    Xd, yd = _dask(X, y)
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        clf = DPLogisticRegression(max_iter=5).fit(Xd, yd)
    np.testing.assert_array_equal(clf.classes_, [1, 11])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = DPLogisticRegression(max_iter=5, classes=[1, 11, 21]).fit(Xd, yd)
    assert clf.coef_.shape == (3, X.shape[1])
    with pytest.raises(ValueError, match=r"labels that are not in classes"):
        DPLogisticRegression(classes=[1, 2]).fit(Xd, yd)
    with pytest.raises(ValueError, match="only one class"):
        with pytest.warns(PrivacyLeakWarning):
            DPLogisticRegression().fit(Xd, yd * 0 + 1)
    with pytest.raises(ValueError, match="Unknown label type"):
        DPLogisticRegression().fit(Xd, yd + 0.5 * (yd == 1))


def test_input_types_and_shapes(client):
    X, y = _data(n=500)
    Xd, yd = _dask(X, y, rows=200)
    with pytest.raises(TypeError, match="y must be a dask.array.Array"):
        DPLogisticRegression(classes=[1, 11]).fit(Xd, y)
    with pytest.raises(TypeError, match="X must be a dask.array.Array"):
        DPLogisticRegression(classes=[1, 11]).fit(X, yd)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        DPLogisticRegression(classes=[1, 11]).fit(Xd, yd[:-1])
    with pytest.raises(ValueError, match="Expected 2D array"):
        DPLogisticRegression(classes=[1, 11]).fit(Xd[:, 0], yd)
    with pytest.raises(ValueError, match="minimum of 2"):
        DPLogisticRegression(classes=[1, 11]).fit(Xd[:1], yd[:1])
    with pytest.raises(ValueError, match="Complex data"):
        DPLogisticRegression(classes=[1, 11]).fit(Xd.astype(complex), yd)
    # Integers are converted to float64, as validate_data does for NumPy input.
    Xi = (Xd * 10).astype(np.int64)
    clf = DPLogisticRegression(max_iter=5, classes=[1, 11], random_state=0)
    ref = clf.fit(Xi.compute(), y).coef_
    np.testing.assert_allclose(clf.fit(Xi, yd).coef_, ref, rtol=0, atol=1e-10)
    assert clf.coef_.dtype == np.float64


def test_importing_the_package_does_not_import_dask():
    code = "import sys, sklearn_dpgd.linear_model; print('dask' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "schedule",
    [AdaptiveStepSchedule(), LineSearchSchedule(sampling_rate=1.0)],
    ids=["dp-agd", "dp-blgd"],
)
def test_adaptive_full_batch_same_model_as_numpy(client, schedule):
    # The private selections read the objective through the same backend: full
    # batch, the random stream is the NumPy path's, so the runs coincide.
    X, y = _data()
    params = dict(epsilon=2.0, delta=1e-6, max_iter=10, classes=[1, 11])
    ref = DPLogisticRegression(**params, schedule=schedule, random_state=3).fit(X, y)
    fitted = DPLogisticRegression(**params, schedule=schedule, random_state=3).fit(
        *_dask(X, y)
    )
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(fitted.learning_rates_, ref.learning_rates_)
    assert fitted.ledger_ == ref.ledger_ and fitted.epsilon_ == ref.epsilon_


def test_adaptive_line_search_with_sampling(client):
    X, y = _data()
    est = DPLogisticRegression(
        epsilon=2.0,
        delta=1e-6,
        max_iter=10,
        schedule=LineSearchSchedule(),
        classes=[1, 11],
        random_state=3,
    ).fit(*_dask(X, y))
    assert est.n_iter_ == 10 and est.epsilon_ == 2.0
    # The first entry is the noisy count of the public size (full batch).
    assert est.ledger_[0].sampling_rate == 1.0
    assert all(r.sampling_rate == 0.1 for r in est.ledger_[1:])


@pytest.mark.slow
def test_benchmark_runs_on_workers_with_a_memory_limit_and_their_own_threads(
    tmp_path,
):
    # benchmarks/bench_dask.py, small: tables generated on the workers, a memory
    # limit, NUMBA_NUM_THREADS=1 set by the nanny's env, after an in-memory fit in
    # the client, from a script that imports the package at its top (so the spawned
    # workers import Numba before their env is applied), with an empty Numba cache
    # (every worker compiles). Before the fix in _engine/_threads.py every worker
    # failed in _chunk_row_norms ("Cannot set NUMBA_NUM_THREADS to a different
    # value once the threads have been launched").
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("NUMBA_NUM_THREADS", None)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(root), env.get("PYTHONPATH")])
    )
    args = ["--gb", "0.1", "--numpy-gb", "0.04", "--max-iter", "3", "--workers", "2"]
    args += ["--memory-limit", "1GB", "--chunk-mb", "10"]
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "bench_dask.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line.split() for line in proc.stdout.splitlines()]
    runs = {" ".join(r[:2]): r for r in rows if r and r[0] in ("numpy,", "dask,")}
    assert set(runs) == {"numpy, in", "dask, same", "dask, >"}
    for row in runs.values():
        assert 0.6 < float(row[-1]) <= 1.0  # test accuracy of a trained model
    # The nanny's NUMBA_NUM_THREADS=1 is what the workers' kernels ran on.
    assert "Numba threads per worker: 1, 1" in proc.stdout
