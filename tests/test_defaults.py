"""The "auto" rules (sklearn_dpgd/schedules/_defaults.py) and how the estimators use them."""

import itertools
import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

import sklearn_dpgd.schedules as schedules
import sklearn_dpgd.schedules._defaults as defaults
from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd.accounting import gdp_mu
from sklearn_dpgd.schedules import (
    AdaptiveStepSchedule,
    auto_clip_norm,
    auto_learning_rate,
    auto_max_iter,
)


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    # The label set is read from y on purpose here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=2000, d=8, seed=0, n_classes=2):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=4,
        random_state=seed,
        class_sep=1.5,
        n_classes=n_classes,
    )
    return Normalizer().fit_transform(X), y


def test_public_rules_are_reexported_by_schedules():
    # The documented import path (doc/api.rst) keeps working after the move.
    for name in defaults.__all__:
        assert getattr(schedules, name) is getattr(defaults, name)
        assert name in schedules.__all__


def test_auto_max_iter_grows_with_budget_and_data():
    t = [auto_max_iter(e, 1e-8, 30000, 107) for e in (0.05, 0.1, 0.4, 1.6, 100.0)]
    assert t == sorted(t) and t[0] >= 5 and t[-1] == 1000
    assert auto_max_iter(0.4, 1e-8, 30000, 107, neighboring="replace") < t[2]
    assert auto_max_iter(0.4, 1e-8, 60000, 107) > t[2]
    assert auto_max_iter(1e-4, 1e-8, 10, 3) == 5
    X, y = _data(n=3000)
    # Without the utility diagnostics, whose 1% of mu^2 shortens the horizon.
    clf = DPLogisticRegression(epsilon=0.4, random_state=0, utility_diagnostics=False)
    clf.fit(X, y)
    assert clf.n_iter_ == auto_max_iter(0.4, 1e-8, 3000, X.shape[1])
    with pytest.raises(ValueError, match="n_samples"):
        auto_max_iter(1.0, 1e-8, 0, 3)
    with pytest.raises(ValueError, match="neighboring"):
        auto_max_iter(1.0, 1e-8, 10, 3, neighboring="x")


@pytest.mark.parametrize(
    "Estimator, base, normalize_steps, clip_norm",
    [
        # Gradient steps: the loss's base step, divided by clip_norm.
        (DPLogisticRegression, 2.0, False, 1.0),
        (DPLogisticRegression, 2.0 / 0.25, False, 0.25),
        (DPHuberSVM, 0.5, False, 1.0),
        # Normalised steps (the default): a step length of base 0.5, any clip_norm.
        (DPLogisticRegression, 0.5, "auto", "auto"),
        (DPHuberSVM, 0.5, True, 2.0),
    ],
)
def test_auto_learning_rate_keeps_the_noisy_radius(
    Estimator, base, normalize_steps, clip_norm
):

    n, d = 3000, 8
    factor = (
        Estimator._horizon_factor
        if normalize_steps  # "auto" normalises binary problems such as this one
        else Estimator._gradient_horizon_factor
    )
    # The reference rule: base step over mu n / sqrt(d + 1) steps (within bounds).
    t_ref = round(gdp_mu(0.4, 1e-8) * n / math.sqrt(d + 1))
    assert 5 < t_ref < 1000
    T = auto_max_iter(0.4, 1e-8, n, d, horizon_factor=factor)
    assert abs(T - factor * t_ref) <= 2
    lr = auto_learning_rate(base, T, 0.4, 1e-8, n, d)
    assert lr * T == pytest.approx(base * t_ref, rel=2e-3)
    # Never a larger step than the base, for short runs either.
    assert auto_learning_rate(base, 3, 0.4, 1e-8, n, d) == base
    # Capped horizons spread the same radius over at most 1000 steps.
    big = auto_max_iter(50.0, 1e-8, n, d)
    with pytest.raises(ValueError, match="horizon_factor"):
        auto_max_iter(0.4, 1e-8, n, d, horizon_factor=0.0)
    assert big == 1000
    assert auto_learning_rate(base, big, 50.0, 1e-8, n, d) == pytest.approx(base)
    X, y = _data(n=n, d=d)
    params = dict(epsilon=0.4, normalize_steps=normalize_steps, clip_norm=clip_norm)
    # Without the utility diagnostics, whose 1% of mu^2 shortens the horizon.
    clf = Estimator(random_state=0, utility_diagnostics=False, **params).fit(X, y)
    np.testing.assert_allclose(clf.learning_rates_, lr)
    assert clf.n_iter_ == T
    fixed = Estimator(learning_rate=0.3, random_state=0, **params).fit(X, y)
    np.testing.assert_array_equal(fixed.learning_rates_, 0.3)
    with pytest.raises(ValueError, match="base_learning_rate"):
        auto_learning_rate(0.0, 10, 0.4, 1e-8, n, d)
    with pytest.raises(ValueError, match="n_steps"):
        auto_learning_rate(1.0, 0, 0.4, 1e-8, n, d)


@pytest.mark.parametrize("Estimator", [DPLogisticRegression, DPHuberSVM])
def test_auto_clip_norm_rule(Estimator):
    # t / 400 clipped to [0.5, 1], t = mu n / (s sqrt(d')).
    for n in (100, 2000, 4000, 5000, 10**6):
        for neighboring, s in (("add_remove", 1), ("replace", 2)):
            t = gdp_mu(0.5, 1e-8) * n / (s * math.sqrt(7))
            want = min(1.0, max(0.5, t / 400))
            got = auto_clip_norm(0.5, 1e-8, n, 6, neighboring=neighboring)
            assert got == pytest.approx(want, rel=1e-12)
    assert auto_clip_norm(0.01, 1e-8, 1000, 6) == 0.5
    assert auto_clip_norm(10.0, 1e-8, 10**6, 6) == 1.0
    with pytest.raises(ValueError, match="n_samples"):
        auto_clip_norm(1.0, 1e-8, 0, 6)
    X, y = _data(n=400, d=6)
    assert Estimator(epsilon=2.0).fit(X, y).clip_norm_ == 0.5
    # The rule reads the public size: declared here (an estimate would do too).
    big = Estimator(epsilon=2.0, max_iter=5, public_n_samples=8000).fit(
        np.tile(X, (20, 1)), np.tile(y, 20)
    )
    assert big.clip_norm_ == auto_clip_norm(2.0, 1e-8, 8000, 6) == 1.0
    assert Estimator(epsilon=2.0, clip_norm=0.7).fit(X, y).clip_norm_ == 0.7
    # Gradient steps (the multiclass default) keep the former threshold.
    X3, y3 = _data(n=600, d=6, n_classes=3)
    assert Estimator(epsilon=2.0).fit(X3, y3).clip_norm_ == 1.0
    plain = Estimator(epsilon=2.0, normalize_steps=False).fit(X, y)
    assert plain.clip_norm_ == 1.0
    # The strategies designed and measured with clip_norm = 1 keep it.
    adaptive = Estimator(epsilon=2.0, schedule=AdaptiveStepSchedule()).fit(X, y)
    assert adaptive.clip_norm_ == 1.0
    snowball = Estimator(epsilon=2.0, solver="snowball").fit(X, y)
    assert snowball.clip_norm_ == 1.0


class _Horizon:
    def __init__(self, horizon):
        self._horizon = horizon

    def horizon(self, context):
        return self._horizon


def _context(**kwargs):
    fields = dict(
        epsilon=0.4,
        delta=1e-8,
        n_samples=3000,
        n_features=8,
        n_outputs=1,
        fit_intercept=True,
        clip_norm=0.25,
    )
    return SimpleNamespace(**{**fields, **kwargs})


def test_resolvers_take_the_parameter_then_the_schedule_then_the_rule():
    context = _context()
    rule = auto_max_iter(0.4, 1e-8, 3000, 8, horizon_factor=2)
    kwargs = dict(neighboring="add_remove", horizon_factor=2)
    assert defaults.resolve_max_iter(7, _Horizon(50), context, **kwargs) == 7
    assert defaults.resolve_max_iter("auto", _Horizon(50), context, **kwargs) == 50
    assert defaults.resolve_max_iter("auto", _Horizon(None), context, **kwargs) == rule
    replace = defaults.resolve_max_iter(
        "auto", _Horizon(None), context, neighboring="replace", horizon_factor=2
    )
    assert replace < rule
    lr = dict(base_learning_rate=2.0, neighboring="add_remove")
    assert defaults.resolve_learning_rate(
        0.3, 10, context, normalize_steps=True, **lr
    ) == pytest.approx(0.3)
    # Normalised steps: a step length of base 0.5; gradient steps: the loss's base
    # step over clip_norm (units of the clipped gradient).
    assert defaults.resolve_learning_rate(
        "auto", rule, context, normalize_steps=True, **lr
    ) == auto_learning_rate(0.5, rule, 0.4, 1e-8, 3000, 8)
    assert defaults.resolve_learning_rate(
        "auto", rule, context, normalize_steps=False, **lr
    ) == 4.0 * auto_learning_rate(2.0, rule, 0.4, 1e-8, 3000, 8)


# ---- the rules against their documented formulas, over public inputs

# Public inputs: every (neighbouring, intercept, outputs) case is a test, over budgets
# and sizes that reach both bounds of the rules.
CASES = [
    (neighboring, fit_intercept, n_outputs)
    for neighboring in ("add_remove", "replace")
    for fit_intercept in (True, False)
    for n_outputs in (1, 3)
]
SIZES = [(e, n) for e in (0.01, 0.1, 0.4, 1.6, 50.0) for n in (10, 1000, 30000, 10**6)]
D = 7


def _unit(epsilon, n, neighboring, fit_intercept, n_outputs):
    """``mu n / (s sqrt(d'))`` with ``d' = n_outputs (d + fit_intercept)``."""
    s = 2.0 if neighboring == "replace" else 1.0
    return gdp_mu(epsilon, 1e-8) * n / (s * math.sqrt(n_outputs * (D + fit_intercept)))


def _kw(neighboring, fit_intercept, n_outputs):
    return dict(
        neighboring=neighboring, fit_intercept=fit_intercept, n_outputs=n_outputs
    )


def test_documented_constants():
    # The docstrings promise [5, 1000] steps, c = 4 and the threshold t / 400.
    assert defaults.AUTO_MAX_ITER_BOUNDS == (5, 1000)
    assert defaults.AUTO_HORIZON_FACTOR == 4
    assert defaults.AUTO_CLIP_SCALE == 400.0


@pytest.mark.parametrize("neighboring, fit_intercept, n_outputs", CASES)
def test_auto_max_iter_follows_its_formula(neighboring, fit_intercept, n_outputs):
    kw = _kw(neighboring, fit_intercept, n_outputs)
    for epsilon, n in SIZES:
        t = _unit(epsilon, n, neighboring, fit_intercept, n_outputs)
        for c in (4, 1, 0.5):
            want = int(min(1000, max(5, round(c * t))))
            got = auto_max_iter(epsilon, 1e-8, n, D, horizon_factor=c, **kw)
            assert got == want and isinstance(got, int)
        assert auto_max_iter(epsilon, 1e-8, n, D, **kw) == int(
            min(1000, max(5, round(4 * t)))
        )


@pytest.mark.parametrize("neighboring, fit_intercept, n_outputs", CASES)
def test_auto_clip_norm_follows_its_formula(neighboring, fit_intercept, n_outputs):
    kw = _kw(neighboring, fit_intercept, n_outputs)
    for epsilon, n in SIZES:
        t = _unit(epsilon, n, neighboring, fit_intercept, n_outputs)
        got = auto_clip_norm(epsilon, 1e-8, n, D, **kw)
        assert got == pytest.approx(min(1.0, max(0.5, t / 400.0)), rel=1e-12)


def test_auto_clip_norm_thresholds():
    # 0.5 up to t = 200, 1.0 from t = 400, linear in between.
    mu = gdp_mu(1.0, 1e-8)
    n_at = {t: t * math.sqrt(D + 1) / mu for t in (150, 300, 500)}
    assert auto_clip_norm(1.0, 1e-8, round(n_at[150]), D) == 0.5
    assert auto_clip_norm(1.0, 1e-8, round(n_at[300]), D) == pytest.approx(
        0.75, abs=1e-3
    )
    assert auto_clip_norm(1.0, 1e-8, round(n_at[500]), D) == 1.0


@pytest.mark.parametrize("neighboring, fit_intercept, n_outputs", CASES)
def test_auto_learning_rate_keeps_the_reference_radius(
    neighboring, fit_intercept, n_outputs
):
    kw = _kw(neighboring, fit_intercept, n_outputs)
    for (epsilon, n), n_steps in itertools.product(SIZES, (1, 37, 5000)):
        t = _unit(epsilon, n, neighboring, fit_intercept, n_outputs)
        t_ref = int(min(1000, max(5, round(t))))
        got = auto_learning_rate(0.5, n_steps, epsilon, 1e-8, n, D, **kw)
        assert got == pytest.approx(min(0.5, 0.5 * t_ref / n_steps), rel=1e-12)
        assert 0 < got <= 0.5


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: auto_max_iter(0.0, 1e-8, 10, 3), ValueError, "epsilon"),
        (lambda: auto_max_iter(1.0, 1.5, 10, 3), ValueError, "delta"),
        (lambda: auto_max_iter(1.0, 1e-8, 0, 3), ValueError, "n_samples"),
        (lambda: auto_max_iter(1.0, 1e-8, True, 3), ValueError, "n_samples"),
        (lambda: auto_max_iter(1.0, 1e-8, 10.5, 3), ValueError, "n_samples"),
        (lambda: auto_max_iter(1.0, 1e-8, 10, 0), ValueError, "n_features"),
        (lambda: auto_max_iter(1.0, 1e-8, 10, 3, n_outputs=0), ValueError, "n_outputs"),
        (
            lambda: auto_max_iter(1.0, 1e-8, 10, 3, neighboring="x"),
            ValueError,
            "neighboring",
        ),
        (
            lambda: auto_max_iter(1.0, 1e-8, 10, 3, horizon_factor=math.inf),
            ValueError,
            "horizon_factor",
        ),
        (
            lambda: auto_max_iter(1.0, 1e-8, 10, 3, horizon_factor=-1.0),
            ValueError,
            "horizon_factor",
        ),
        (lambda: auto_clip_norm(1.0, 1e-8, 10, 0), ValueError, "n_features"),
        (
            lambda: auto_clip_norm(1.0, 1e-8, 10, 3, neighboring="swap"),
            ValueError,
            "neighboring",
        ),
        (
            lambda: auto_learning_rate(math.inf, 10, 1.0, 1e-8, 10, 3),
            ValueError,
            "base_learning_rate",
        ),
        (
            lambda: auto_learning_rate(1.0, True, 1.0, 1e-8, 10, 3),
            ValueError,
            "n_steps",
        ),
        (
            lambda: auto_learning_rate(1.0, 2.5, 1.0, 1e-8, 10, 3),
            ValueError,
            "n_steps",
        ),
        (
            lambda: auto_learning_rate(1.0, 10, 1.0, 1e-8, 10, 3, n_outputs=0),
            ValueError,
            "n_outputs",
        ),
    ],
)
def test_rules_validate_their_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
