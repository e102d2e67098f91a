"""Tests of the empirical privacy audit (sklearn_dpgd.audit)."""

import dataclasses
import math
import sys

import numpy as np
import pytest
from scipy.stats import binomtest, norm
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_dpgd import DPLogisticRegression, linear_model
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.audit import (
    AuditResult,
    audit,
    clopper_pearson_upper,
    epsilon_lower_bound,
    mu_lower_bound,
)


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


# A configuration whose true mu is the claimed mu: full-batch plain gradient steps
# (no normalisation, momentum or averaging), a declared public size (no count), a
# small step so that the canary's margin never saturates its clipped gradient.
_LINEAR = dict(
    epsilon=12.0,
    delta=1e-5,
    classes=[0, 1],
    public_n_samples=60,
    normalize_steps=False,
    momentum=0.0,
    average=0.0,
    max_iter=4,
    learning_rate=0.05,
    clip_norm=1.0,
)


def test_clopper_pearson_against_hand_computed_values():
    # k = 0: the upper end solves (1 - p)^n = 0.025.
    assert clopper_pearson_upper(0, 10) == pytest.approx(1 - 0.025**0.1, rel=1e-9)
    assert clopper_pearson_upper(10, 10) == 1.0
    # Same as scipy's exact binomial interval.
    high = binomtest(3, 20).proportion_ci(confidence_level=0.95, method="exact").high
    assert clopper_pearson_upper(3, 20) == pytest.approx(high, rel=1e-9)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson_upper(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson_upper(1, 10, confidence=1.0)


def test_epsilon_and_mu_conversions_against_hand_computed_values():
    # max(log(0.9 / 0.01), log(0.99 / 0.1)) = log(90)
    assert epsilon_lower_bound(0.01, 0.1, 0.0) == pytest.approx(math.log(90.0))
    assert epsilon_lower_bound(0.01, 0.1, 0.05) == pytest.approx(math.log(85.0))
    assert epsilon_lower_bound(0.1, 0.01, 0.05) == pytest.approx(math.log(85.0))
    assert epsilon_lower_bound(0.5, 0.5, 0.0) == 0.0  # a coin flip proves nothing
    assert epsilon_lower_bound(0.0, 0.5, 0.0) == math.inf
    # Phi^-1(0.9) - Phi^-1(0.1) = 2 * 1.2815515655446004
    assert mu_lower_bound(0.1, 0.1) == pytest.approx(2 * 1.2815515655446004)
    assert mu_lower_bound(0.6, 0.6) == 0.0
    # On the mu-GDP trade-off curve the bound returns mu itself.
    mu, fpr = 1.3, 0.2
    assert mu_lower_bound(fpr, norm.cdf(norm.isf(fpr) - mu)) == pytest.approx(mu)


def test_audit_is_sound_and_detects_a_missing_factor_of_two(monkeypatch):
    X, y = _data()
    correct = audit(
        DPLogisticRegression(**_LINEAR),
        X,
        y,
        n_trials=300,
        confidence=0.999,
        random_state=0,
        progress=False,
    )
    assert correct.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    assert correct.mu_lower <= correct.mu_claimed
    assert correct.epsilon_lower <= correct.epsilon_claimed
    # The canary is near-tight here: the estimate is close to the claim.
    assert 0.6 * correct.mu_claimed < correct.mu_estimate < 1.5 * correct.mu_claimed

    # Half the sensitivity: half the noise, so the true mu is twice the claim.
    monkeypatch.setitem(linear_model._SENSITIVITY_FACTOR, "add_remove", 0.5)
    broken = audit(
        DPLogisticRegression(**_LINEAR),
        X,
        y,
        n_trials=300,
        confidence=0.999,
        random_state=0,
        progress=False,
    )
    assert broken.mu_claimed == pytest.approx(correct.mu_claimed)
    # (epsilon at delta 1e-5 needs tail events that 150 held-out trials cannot
    # show; the GDP view uses the whole trade-off curve.)
    assert broken.mu_lower > broken.mu_claimed


def test_replace_relation_flips_the_canary_label(monkeypatch):
    # Under replace the sensitivity is 2C; with the factor of add/remove (C) the
    # claim would be too small by two and the audit must see it.
    X, y = _data()
    params = dict(_LINEAR, neighboring="replace", public_n_samples=None)
    kwargs = dict(n_trials=300, confidence=0.999, random_state=0, progress=False)
    correct = audit(DPLogisticRegression(**params), X, y, **kwargs)
    assert correct.mu_lower <= correct.mu_claimed
    assert correct.mu_estimate > 0.6 * correct.mu_claimed  # the flip is tight
    monkeypatch.setitem(linear_model._SENSITIVITY_FACTOR, "replace", 1.0)
    broken = audit(
        DPLogisticRegression(**params),
        X,
        y,
        n_trials=300,
        confidence=0.999,
        random_state=0,
        progress=False,
    )
    assert broken.mu_lower > broken.mu_claimed


def test_user_canary_statistic_split_and_result():
    X, y = _data()
    calls = []

    def statistic(model):
        calls.append(1)
        return float(model.coef_[0, 0])

    kwargs = dict(
        canary=(np.array([5.0, 0.0, 0.0]), 1),
        statistic=statistic,
        n_trials=20,
        random_state=3,
        progress=False,
    )
    first = audit(DPLogisticRegression(**_LINEAR), X, y, **kwargs)
    second = audit(DPLogisticRegression(**_LINEAR), X, y, **kwargs)
    assert len(calls) == 80
    assert isinstance(first, AuditResult)
    assert first.statistics_with.shape == (20,)
    assert first.evaluation.sum() == 10
    # Only the split is reproducible; the fits draw fresh entropy.
    np.testing.assert_array_equal(first.evaluation, second.evaluation)
    assert not np.array_equal(first.statistics_without, second.statistics_without)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.epsilon_lower = 0.0


def test_pipeline_is_audited_through_its_last_step(monkeypatch):
    # A public scaler before the private classifier: the canary's column keeps
    # its index, the claim is the classifier's, and a missing factor of 2 shows.
    X, y = _data()
    monkeypatch.setitem(linear_model._SENSITIVITY_FACTOR, "add_remove", 0.5)
    pipe = make_pipeline(
        FunctionTransformer(lambda Z: 2.0 * Z), DPLogisticRegression(**_LINEAR)
    )
    result = audit(pipe, X, y, n_trials=300, confidence=0.999, progress=False)
    assert result.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    assert result.mu_lower > result.mu_claimed


def test_fits_use_fresh_entropy_even_with_a_fixed_random_state():
    X, y = _data()
    result = audit(
        DPLogisticRegression(**_LINEAR, random_state=0),
        X,
        y,
        n_trials=20,
        progress=False,
    )
    assert np.unique(result.statistics_without).shape[0] == 20


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n_trials=10), ValueError, "n_trials"),
        (dict(n_padding=-1), ValueError, "n_padding"),
        (dict(canary_value=0.0), ValueError, "canary_value"),
        (dict(canary_value=np.inf), ValueError, "canary_value"),
        (dict(confidence=0.0), ValueError, "confidence"),
        (dict(delta=1.0), ValueError, "delta"),
        (dict(statistic="coef"), TypeError, "statistic"),
        (dict(canary="big"), ValueError, "canary"),
        (dict(canary=[1.0, 1]), TypeError, "canary"),
        (dict(canary=(np.ones(2), 1), statistic=len), ValueError, "3 features"),
        (dict(canary=(np.ones(3), 1)), TypeError, "statistic='auto'"),
    ],
)
def test_bad_parameters_are_refused(kwargs, error, match):
    X, y = _data()
    with pytest.raises(error, match=match):
        audit(DPLogisticRegression(**_LINEAR), X, y, progress=False, **kwargs)


def test_plot_draws_both_curves(monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = _data()
    result = audit(DPLogisticRegression(**_LINEAR), X, y, n_trials=20, progress=False)
    fig, ax = plt.subplots()
    assert result.plot(ax) is ax
    assert {"claimed GDP", "empirical (all trials)"} <= {
        line.get_label() for line in ax.get_lines()
    }
    plt.close(fig)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="requires matplotlib"):
        result.plot()
