"""Tests of the empirical privacy audit (sklearn_dpgd.audit)."""

import dataclasses
import math
import sys

import numpy as np
import pytest
from scipy.stats import binomtest, norm
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, _public_size
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.audit import (
    AuditResult,
    audit,
    clopper_pearson_upper,
    epsilon_lower_bound,
    mu_lower_bound,
)
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPStandardScaler


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


def _mechanisms():
    """name -> (estimator, audit options) of every mechanism the small audit checks.

    All add Gaussian noise scaled by ``SENSITIVITY_FACTOR[neighboring]``
    (sklearn_dpgd/_public_size.py) times a public norm: the private gradient
    oracle of full-batch DPLogisticRegression and DPHuberSVM under add/remove,
    DPLogisticRegression under replace and as the classifier of a PrivatePipeline
    (whose GDP claim is its composed mu), and the sums of DPStandardScaler
    (a canary at the bounds of every column; statistic: the sum of the released
    means, 1/sqrt(1.25) of the claim since the variance sums are not used).
    """
    inner = {
        k: v
        for k, v in _LINEAR.items()
        if k not in ("epsilon", "delta", "public_n_samples")
    }
    replace = dict(_LINEAR, neighboring="replace", public_n_samples=None)
    scaler = DPStandardScaler(
        bounds=(-1.0, 1.0), epsilon=12.0, delta=1e-5, public_n_samples=60
    )
    at_bounds = dict(canary=(np.ones(3), 1), statistic=lambda s: float(s.mean_.sum()))
    return {
        "logistic": (DPLogisticRegression(**_LINEAR), {}),
        "huber": (DPHuberSVM(**_LINEAR), {}),
        "replace": (DPLogisticRegression(**replace), {}),
        "private_pipeline": (
            make_private_pipeline(
                DPLogisticRegression(**inner),
                epsilon=12.0,
                delta=1e-5,
                public_n_samples=60,
            ),
            {},
        ),
        "standard_scaler": (scaler, at_bounds),
    }


# 400 trials per mechanism (10-20 s each): the default suite audits the gradient
# oracle (logistic) and the scaler's sums; the other mechanisms share the oracle's
# sensitivity factors and are audited by the slow set.
_AUDITED_BY_DEFAULT = ("logistic", "standard_scaler")


@pytest.mark.parametrize(
    "name",
    [
        n if n in _AUDITED_BY_DEFAULT else pytest.param(n, marks=pytest.mark.slow)
        for n in _mechanisms()
    ],
)
def test_small_audit_fails_if_a_factor_of_two_is_missing(name, monkeypatch):
    # The in-suite audit: the claim must survive it (a lower bound above the
    # claimed mu, at 99.9%, would prove the noise too small). That it would catch
    # a sensitivity missing a factor of 2 is checked by halving the factors the
    # mechanisms read: the true mu doubles and the same audit must refute it.
    estimator, options = _mechanisms()[name]
    X, y = _data()
    kwargs = dict(n_trials=400, confidence=0.999, progress=False, **options)
    correct = audit(estimator, X, y, **kwargs)
    # (The scaler reports no mu_: its claim is the mu of its epsilon.)
    claim = gdp_mu(correct.epsilon_claimed, correct.delta)
    assert claim == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    if name == "standard_scaler":
        assert correct.mu_claimed is None
    else:
        assert correct.mu_claimed == pytest.approx(claim, rel=1e-6)
    assert correct.mu_lower <= claim
    assert correct.epsilon_lower <= correct.epsilon_claimed
    # The canary is near-tight here: the estimate is close to the claim.
    assert 0.6 * claim < correct.mu_estimate < 1.5 * claim

    factors = _public_size.SENSITIVITY_FACTOR
    for relation in ("add_remove", "replace"):
        monkeypatch.setitem(factors, relation, factors[relation] / 2.0)
    broken = audit(estimator, X, y, **kwargs)
    assert broken.epsilon_claimed == pytest.approx(correct.epsilon_claimed)
    # (epsilon at delta 1e-5 needs tail events that 200 held-out trials cannot
    # show; the GDP view uses the whole trade-off curve.)
    assert broken.mu_lower > claim


def test_pipeline_passes_the_start_to_its_last_step():
    # A public scaler before the private classifier: the canary's column keeps
    # its index, the start reaches the classifier as "<step>__coef_init", and
    # the claim is the classifier's.
    X, y = _data()
    pipe = make_pipeline(
        FunctionTransformer(lambda Z: 2.0 * Z), DPLogisticRegression(**_LINEAR)
    )
    result = audit(pipe, X, y, n_trials=20, progress=False)
    assert result.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)
    # Statistics are measured from the start (-1e6 / canary_value): near 0.
    assert np.all(np.abs(result.statistics_without) < 5.0)
    # The repr shows the bounds and the claim, not the raw statistics.
    text = repr(result)
    assert text.startswith("AuditResult(epsilon_lower=") and "n_trials=20" in text
    assert "statistics" not in text and len(text) < 250


def test_statistic_reads_the_trained_coefficient_of_a_calibrated_fit():
    # The temperature stage multiplies coef_ by calibration_scale_ (about 1, not
    # exactly): read raw, the canary coordinate would move by (a - 1) * start,
    # hundreds of thousands, and drown the training steps' shift.
    X, y = _data()
    est = DPLogisticRegression(**{**_LINEAR, "calibration": "temperature"})
    result = audit(est, X, y, n_trials=20, progress=False)
    assert np.all(np.abs(result.statistics_without) < 5.0)
    assert np.all(np.abs(result.statistics_with) < 5.0)
    assert result.mu_claimed == pytest.approx(gdp_mu(12.0, 1e-5), rel=1e-6)


def test_the_start_keeps_the_canary_gradient_clipped():
    # Without a start the canary fits itself (its clipped gradient fades) and the
    # default normalised heavy-ball fit hides part of the claim from the audit;
    # started at margin -1e6 the canary pushes with C at every step.
    X, y = _data()
    est = DPLogisticRegression(
        epsilon=12.0, delta=1e-5, classes=[0, 1], public_n_samples=60, max_iter=40
    )
    kwargs = dict(n_trials=150, progress=False, random_state=0)
    started = audit(est, X, y, **kwargs)
    free = audit(est, X, y, canary_margin=None, **kwargs)

    def shift(result):
        s0, s1 = result.statistics_without, result.statistics_with
        return (s1.mean() - s0.mean()) / np.sqrt((s0.var() + s1.var()) / 2)

    assert shift(started) > 1.3 * shift(free)


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
        (dict(canary_margin=np.nan), ValueError, "canary_margin"),
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


@pytest.mark.parametrize("C", [None, 0.01])
def test_audit_runs_on_frank_wolfe_fits(C):
    # Issue 42: the audit's clone set alpha=0, which solver="frank_wolfe" (its L1
    # radius read from C) refused, with C set or not.
    fw = dict(solver="frank_wolfe", l1_ratio=1.0, C=C, max_iter=1)
    estimator = DPLogisticRegression(
        epsilon=4.0, delta=1e-5, classes=[0, 1], fit_intercept=False, **fw
    )
    X, y = _data()
    fitted = audit(estimator, X, y, n_trials=20, progress=False)
    assert fitted.epsilon_claimed <= 4.0 and fitted.mu_claimed is None
    # A canary the first selection sees: a row alone on a column that is zero for
    # every other row (whose labels balance, so no other column's score moves),
    # read by minus its coefficient (the vertex -r e_2 when selected).
    zeros, labels = np.zeros((60, 3)), np.tile([0, 1], 30)
    result = audit(
        estimator,
        zeros,
        labels,
        canary=(np.array([0.0, 0.0, 10.0]), 1),
        statistic=lambda est: -float(est.coef_[0, 2]),
        n_trials=400,
        confidence=0.999,
        progress=False,
    )
    # The claim survives, and the statistic does see the canary.
    assert result.epsilon_lower <= result.epsilon_claimed
    assert result.mu_lower <= gdp_mu(result.epsilon_claimed, 1e-5)
    assert result.mu_estimate > 0.0
