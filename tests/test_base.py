"""FitResult and set_fitted: the one place fitted attributes are written."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_dpgd import DPLogisticRegression, _base
from sklearn_dpgd._base import FitResult, model_arrays, set_fitted
from sklearn_dpgd.baselines import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
)
from sklearn_dpgd.schedules import AdaptiveStepSchedule


def _result(**kwargs):
    fields = dict(
        coef=np.ones((1, 3)),
        intercept=np.zeros(1),
        ledger=("record",),
        mu=0.5,
        epsilon=1.0,
        delta=1e-5,
        public_n_samples=100,
    )
    return FitResult(**{**fields, **kwargs})


class _Bare:
    pass


def test_set_fitted_writes_every_field_and_output():
    result = _result(
        n_iter=3,
        learning_rates=np.full(3, 0.1),
        noise_multipliers=np.full(3, 2.0),
        outputs={"clip_norm_": 1.5, "calibration_": None},
    )
    est = set_fitted(_Bare(), result)
    assert est.coef_ is result.coef and est.intercept_ is result.intercept
    assert est.ledger_ == ("record",)
    assert (est.mu_, est.epsilon_, est.delta_) == (0.5, 1.0, 1e-5)
    assert est.public_n_samples_ == 100 and est.n_iter_ == 3
    assert est.learning_rates_ is result.learning_rates
    assert est.noise_multipliers_ is result.noise_multipliers
    assert est.clip_norm_ == 1.5 and est.calibration_ is None


def test_set_fitted_leaves_out_what_the_estimator_does_not_have():
    est = set_fitted(_Bare(), _result(outputs={"noise_scale_": 2.0}))
    assert not hasattr(est, "n_iter_")
    assert not hasattr(est, "learning_rates_")
    assert not hasattr(est, "noise_multipliers_")
    assert est.noise_scale_ == 2.0
    with pytest.raises(TypeError, match="FitResult"):
        set_fitted(_Bare(), {"coef": 1})


def test_fit_result_is_frozen_and_checks_its_outputs():
    result = _result(outputs={"alpha_": 0.1})
    with pytest.raises(AttributeError):
        result.coef = None
    with pytest.raises(TypeError):
        result.outputs["alpha_"] = 1.0  # a read-only view
    for bad in ("alpha", "_alpha_", "not an attr_", 3):
        with pytest.raises(ValueError, match="fitted-attribute names"):
            _result(outputs={bad: 1.0})
    with pytest.raises(ValueError, match="repeat the field"):
        _result(outputs={"coef_": 1.0})


def test_model_arrays_casts_and_zeroes_the_missing_intercept():
    coef, intercept = model_arrays(np.ones((2, 3)), None, np.float32, False)
    assert coef.dtype == intercept.dtype == np.float32
    assert np.array_equal(intercept, np.zeros(2))
    coef, intercept = model_arrays(np.ones((2, 3)), [1.0, 2.0], np.float64, True)
    assert np.array_equal(intercept, [1.0, 2.0])


@pytest.mark.parametrize(
    "estimator",
    [
        DPLogisticRegression(epsilon=2.0, max_iter=5),
        DPLogisticRegression(epsilon=4.0, solver="snowball"),
        DPLogisticRegression(epsilon=2.0, schedule=AdaptiveStepSchedule(), max_iter=5),
        OutputPerturbationClassifier(epsilon=2.0),
        PhasedLocalizationClassifier(epsilon=2.0),
    ],
    ids=["gd", "snowball", "adaptive", "outpert", "localization"],
)
def test_fit_writes_its_attributes_through_set_fitted(estimator, monkeypatch):
    # Every fit path ends in the one setter: recording it sees the fit's FitResult.
    module = sys.modules[type(estimator).fit.__module__]
    seen = []
    original = module.set_fitted

    def recording(est, result):
        seen.append(result)
        return original(est, result)

    monkeypatch.setattr(module, "set_fitted", recording)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 4))
    y = (X[:, 0] > 0).astype(int)
    estimator.set_params(classes=[0, 1], public_n_samples=400).fit(X, y)
    assert len(seen) == 1
    assert estimator.coef_ is seen[0].coef
    assert estimator.epsilon_ == seen[0].epsilon


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_scores_are_float64_products_block_by_block(monkeypatch, dtype):
    # A float32 X is converted block by block (here 7 rows at a time, a partial
    # last block included): the scores are the float64 products of exact copies.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3)).astype(dtype)
    coef = rng.standard_normal((2, 3))
    monkeypatch.setattr(_base, "_SCORE_BLOCK_ENTRIES", 21)
    scores = _base.linear_scores(X, coef)
    assert scores.dtype == np.float64 and scores.shape == (50, 2)
    np.testing.assert_allclose(
        scores, X.astype(np.float64) @ coef.T, rtol=1e-13, atol=1e-15
    )
    sparse = _base.linear_scores(sp.csr_matrix(X), coef)
    np.testing.assert_allclose(sparse, scores, rtol=1e-13, atol=1e-15)
