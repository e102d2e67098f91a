"""Tests of the utility diagnostics (``sklearn_dpgd/linear_model/_utility.py``):
UtilityWarning on fits that are likely useless, silence on an easy one, and the
private diagnostics' charge, sensitivity and order (charge before read)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import Normalizer, StandardScaler

from sklearn_dpgd import (
    BudgetExhaustedError,
    DPHuberSVM,
    DPLogisticRegression,
    PrivacyLeakWarning,
    UtilityWarning,
)
from sklearn_dpgd.accounting import (
    FixedOrderRenyiFilter,
    GaussianPrivacyFilter,
    GaussianSteps,
    gdp_mu,
    ledger_epsilon,
)
from sklearn_dpgd.linear_model import _utility
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule


@pytest.fixture(autouse=True)
def _fixed_seeds_are_fine():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=PrivacyLeakWarning)
        yield


def _utility_warnings(clf, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=PrivacyLeakWarning)
        clf.fit(X, y)
    return [w for w in caught if issubclass(w.category, UtilityWarning)]


def test_raw_breast_cancer_warns_unscaled_rows_naming_the_remedy():
    X, y = load_breast_cancer(return_X_y=True)
    clf = DPLogisticRegression(
        epsilon=1.0, classes=[0, 1], public_n_samples=600, random_state=0
    )
    caught = _utility_warnings(clf, X, y)
    messages = [str(w.message) for w in caught]
    assert any("rows look unscaled" in m for m in messages), messages
    (unscaled,) = [w for w in caught if "unscaled" in str(w.message)]
    assert "DPStandardScaler" in str(unscaled.message)
    # Points at the caller's line, and quotes no exact private value: the
    # public size declared, not the 569 rows.
    assert unscaled.filename == __file__
    assert "569" not in str(unscaled.message)


def test_normalizer_only_breast_cancer_warns_one_predicted_class():
    X, y = load_breast_cancer(return_X_y=True)
    X = Normalizer().fit_transform(X)
    hits = 0
    for seed in range(4):
        clf = DPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=seed)
        caught = _utility_warnings(clf, X, y)
        # The model is the majority-class guess (0.627 on the training rows).
        assert clf.score(X, y) == pytest.approx(np.mean(y == 1))
        hits += any("one class for almost every" in str(w.message) for w in caught)
    # A true zero is flagged with probability about 0.85 per fit at this size.
    assert hits >= 3


def test_high_dimensional_low_budget_warns_from_public_quantities_only():
    rng = np.random.default_rng(0)
    X = Normalizer().fit_transform(rng.standard_normal((1000, 1000)))
    y = (X[:, 0] > 0).astype(int)
    clf = DPLogisticRegression(
        epsilon=0.3, classes=[0, 1], utility_diagnostics=False, random_state=0
    )
    caught = _utility_warnings(clf, X, y)
    (low,) = [w for w in caught if "budget is too small" in str(w.message)]
    mu = gdp_mu(0.3, 1e-8)
    unit = mu * clf.public_n_samples_ / 1001
    assert unit < _utility.SIGNAL_THRESHOLD
    assert f"{unit:.2g}" in str(low.message)
    # No private diagnostic ran: their records are absent from the ledger.
    z = _utility.diagnostics_noise_multiplier(mu)
    assert all(s.noise_multiplier != pytest.approx(z) for s in clf.ledger_)


@pytest.mark.parametrize("Estimator", [DPLogisticRegression, DPHuberSVM])
def test_easy_well_scaled_problem_is_silent(Estimator):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5000, 10))
    y = (X @ rng.standard_normal(10) > 0).astype(int)
    X = StandardScaler().fit_transform(X) / math.sqrt(10)  # public scale here
    for seed in range(3):
        clf = Estimator(epsilon=1.0, classes=[0, 1], random_state=seed)
        assert _utility_warnings(clf, X, y) == []
        assert clf.score(X, y) > 0.85


def test_diagnostics_are_charged_within_the_budget_and_recorded():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X) / math.sqrt(30)
    kwargs = {"epsilon": 1.0, "delta": 1e-6, "classes": [0, 1], "random_state": 0}
    on = DPLogisticRegression(**kwargs).fit(X, y)
    off = DPLogisticRegression(utility_diagnostics=False, **kwargs).fit(X, y)
    mu = gdp_mu(1.0, 1e-6)
    z = _utility.diagnostics_noise_multiplier(mu)
    # Each diagnostic is sqrt(share / 2) mu-GDP: together share * mu^2.
    assert 2 / z**2 == pytest.approx(_utility.DIAGNOSTICS_SHARE * mu**2)
    diag = [s for s in on.ledger_ if s.noise_multiplier == pytest.approx(z)]
    assert sum(s.count for s in diag) == 2
    # The row count runs before the training steps, the class count last.
    assert on.ledger_[-1].noise_multiplier == pytest.approx(z)
    assert all(s.noise_multiplier != pytest.approx(z) for s in off.ledger_)
    # Same total: the share comes off the training's, whose noise grows by
    # 1 / sqrt(1 - 0.01 mu^2 / mu_train^2) (about 0.5%).
    for clf in (on, off):
        spent = math.sqrt(sum(s.count / s.noise_multiplier**2 for s in clf.ledger_))
        assert spent <= mu * (1 + 1e-9)
        assert spent == pytest.approx(mu, rel=1e-3)
    assert on.epsilon_ == pytest.approx(off.epsilon_) and on.epsilon_ <= 1.0
    ratio = on.noise_multipliers_[0] / off.noise_multipliers_[0]
    assert 1.0 < ratio < 1.02


def test_diagnostics_are_refused_before_they_read_a_row():
    class Unreadable:
        shape = (10, 3)

        def __array__(self, *args, **kwargs):
            raise AssertionError("the rows were read before the charge")

    exhausted = GaussianPrivacyFilter(0.1)
    with pytest.raises(BudgetExhaustedError):
        _utility.check_row_norms(
            Unreadable(),
            clip_norm=1.0,
            privacy_filter=exhausted,
            noise_multiplier=1.0,  # mu = 1 > 0.1
            rng=np.random.default_rng(0),
            n_samples=10,
            stacklevel=1,
        )
    with pytest.raises(BudgetExhaustedError):
        _utility.check_predictions(
            Unreadable(),
            np.zeros((1, 3)),
            np.zeros(1),
            neighboring="add_remove",
            privacy_filter=exhausted,
            noise_multiplier=1.0,
            rng=np.random.default_rng(0),
            n_samples=10,
            stacklevel=1,
        )
    assert exhausted.ledger == ()


class _OnesGenerator:
    """Draws 1 for every standard normal: the noise added is its std."""

    def standard_normal(self, size=None):
        return 1.0 if size is None else np.ones(size)


@pytest.mark.parametrize(
    "neighboring, factor", [("add_remove", 1.0), ("replace", math.sqrt(2.0))]
)
def test_class_count_noise_follows_the_histogram_sensitivity(neighboring, factor):
    # Replacing a row moves it from one predicted class to another: two counts
    # change by 1, an L2 change of sqrt(2); adding or removing changes one.
    predicted = np.array([0, 0, 1, 2, 2, 2])
    counts = _utility.noisy_class_counts(
        predicted,
        3,
        neighboring=neighboring,
        noise_multiplier=5.0,
        rng=_OnesGenerator(),
    )
    np.testing.assert_allclose(counts - [2, 1, 3], 5.0 * factor)


def test_row_count_has_sensitivity_one_under_both_relations():
    X = np.array([[1000.0, 0.0], [0.1, 0.0], [500.0, 500.0]])
    for _relation in ("add_remove", "replace"):  # the count takes no relation
        privacy_filter = GaussianPrivacyFilter(1.0)
        noisy = _utility.check_row_norms(
            X,
            clip_norm=1.0,
            privacy_filter=privacy_filter,
            noise_multiplier=2.0,
            rng=_OnesGenerator(),
            n_samples=100,
            stacklevel=1,
        )
        # Two rows above 100; noise std = noise multiplier (sensitivity 1).
        assert noisy == pytest.approx(2 + 2.0)
        assert privacy_filter.mu_spent == pytest.approx(0.5)


def test_row_count_noise_alone_does_not_flag_small_well_scaled_data():
    # No row above the limit; the noise draws +1 std = 40 rows, more than half
    # of 50. The two-std margin keeps the warning for real majorities.
    X = np.full((50, 2), 0.5)
    for count_rows, expected in ((X, 0), (X * 1000.0, 1)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _utility.check_row_norms(
                count_rows,
                clip_norm=1.0,
                privacy_filter=GaussianPrivacyFilter(1.0),
                noise_multiplier=40.0 if expected == 0 else 10.0,
                rng=_OnesGenerator(),
                n_samples=50,
                stacklevel=1,
            )
        assert len([w for w in caught if "unscaled" in str(w.message)]) == expected


def test_utility_diagnostics_must_be_a_bool():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="utility_diagnostics"):
        DPLogisticRegression(classes=[0, 1], utility_diagnostics="yes").fit(X, y)


def _noise_labels(n=2000, d=5, rate=0.05, seed=0):
    # Labels independent of the rows: any model is the majority-class guess.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (rng.random(n) < rate).astype(int)


@pytest.mark.parametrize(
    "schedule", [LineSearchSchedule(sampling_rate=1.0), AdaptiveStepSchedule()]
)
def test_collapsed_adaptive_fit_warns_on_what_its_filter_left(schedule):
    X, y = _noise_labels()
    kwargs = {"epsilon": 1.0, "delta": 1e-6, "classes": [0, 1], "random_state": 0}
    on = DPLogisticRegression(schedule=schedule, **kwargs)
    caught = _utility_warnings(on, X, y)
    assert np.all(on.predict(X) == 0)
    assert any("one class for almost every" in str(w.message) for w in caught)
    off = DPLogisticRegression(schedule=schedule, utility_diagnostics=False, **kwargs)
    off.fit(X, y)
    # The check ran after training, on the budget it left: the training is the
    # same (noise draws included), and the filter recorded one more Gaussian
    # step, at the usual noise or what the remainder affords (at most 4x).
    np.testing.assert_array_equal(on.coef_, off.coef_)
    np.testing.assert_array_equal(on.noise_multipliers_, off.noise_multipliers_)
    assert on.ledger_[:-1] == off.ledger_
    (check,) = on.ledger_[-1:]
    z = _utility.diagnostics_noise_multiplier(gdp_mu(1.0, 1e-6))
    assert isinstance(check, GaussianSteps) and check.count == 1
    assert z <= check.noise_multiplier <= _utility.SLACK_NOISE_LIMIT * z
    # Within the fit's guarantee, which is unchanged.
    assert on.epsilon_ == off.epsilon_ == 1.0
    assert ledger_epsilon(on.ledger_, 1e-6) <= 1.0 + 1e-9


def test_adaptive_check_is_silent_on_a_useful_model():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5000, 10))
    y = (X @ rng.standard_normal(10) > 0).astype(int)
    X = StandardScaler().fit_transform(X) / math.sqrt(10)
    ran = 0
    for seed in range(4):
        clf = DPHuberSVM(
            epsilon=1.0,
            schedule=LineSearchSchedule(sampling_rate=1.0),
            classes=[0, 1],
            random_state=seed,
        )
        assert _utility_warnings(clf, X, y) == []
        assert clf.score(X, y) > 0.85
        # The check ran when what the filter left afforded it: one record more
        # than the same fit without it (a training step can be Gaussian too).
        off = clone(clf).set_params(utility_diagnostics=False).fit(X, y)
        ran += len(clf.ledger_) == len(off.ledger_) + 1
    assert ran >= 2


def test_slack_noise_multiplier_spends_at_most_what_is_left():
    z, order = 10.0, 8.0
    cost = FixedOrderRenyiFilter(5.0, 1e-6, order).cost(GaussianSteps(z))
    # What is left, in units of the usual check's cost -> the multiplier used.
    for left, expected in ((2.0, z), (0.25, 2.0 * z), (1 / 20, None), (0.0, None)):
        privacy_filter = FixedOrderRenyiFilter(5.0, 1e-6, order)
        spend = (privacy_filter.budget - left * cost) * (1 - 1e-12)
        privacy_filter.charge(GaussianSteps(math.sqrt(order / (2 * spend))))
        got = _utility.slack_noise_multiplier(privacy_filter, z)
        if expected is None:
            assert got is None  # over SLACK_NOISE_LIMIT times the usual noise
        else:
            assert got == pytest.approx(expected)
            assert privacy_filter.cost(GaussianSteps(got)) <= privacy_filter.remaining()
