"""The public size (``_public_size.py``): under add/remove-one neighbouring the exact
number of rows is private, so every size-dependent rule uses the public size
(declared, or a noisy count charged to the budget) and the fitted attributes other
than the noisy model are the same for ``n`` and ``n + 1`` rows. Error messages
raised on private data name no private value."""

import math
import warnings

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from sklearn.base import clone

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, PURSchedule
from sklearn_dpgd._public_size import COUNT_SHARE, count_noise_multiplier
from sklearn_dpgd.accounting import (
    GaussianSteps,
    PrivacyLedger,
    gdp_epsilon,
    gdp_mu,
    ledger_epsilon,
)
from sklearn_dpgd.exceptions import PrivacyLeakWarning


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(501, 5)) / 2.0
    y = (X[:, 0] + 0.3 * rng.normal(size=501) > 0).astype(int)
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return clone(estimator).fit(X, y)


PUBLIC_ATTRIBUTES = (
    "n_iter_",
    "clip_norm_",
    "learning_rates_",
    "noise_multipliers_",
    "ledger_",
    "epsilon_",
    "delta_",
    "mu_",
    "public_n_samples_",
)


def _public_attributes(clf):
    return {name: getattr(clf, name) for name in PUBLIC_ATTRIBUTES}


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        if isinstance(a[name], np.ndarray):
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
        else:
            assert a[name] == b[name], name


@pytest.mark.parametrize(
    "estimator",
    [
        DPLogisticRegression(epsilon=4.0, classes=[0, 1]),
        DPLogisticRegression(epsilon=0.5, classes=[0, 1]),
        DPHuberSVM(epsilon=1.0, classes=[0, 1]),
        DPLogisticRegression(epsilon=1.0, classes=[0, 1], batch_size=64),
        DPLogisticRegression(epsilon=1.0, classes=[0, 1], schedule=PURSchedule()),
    ],
    ids=["logistic-eps4", "logistic-eps0.5", "hinge", "minibatch", "pur"],
)
def test_declared_size_makes_attributes_independent_of_n(data, estimator):
    # The audit's reproduction: at epsilon=4 the default fit took 755 steps on 500
    # rows and 757 on 501. With a declared public size nothing but the noisy model
    # may depend on which of the two neighbours was trained on.
    X, y = data
    estimator = estimator.set_params(public_n_samples=500, random_state=0)
    small = _fit(estimator, X[:500], y[:500])
    large = _fit(estimator, X, y)
    _assert_same(_public_attributes(small), _public_attributes(large))
    assert small.public_n_samples_ == 500


def _count_noise(seed):
    """The first draw of a fit with an int seed: the count's standard normal."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).normal()


def test_estimated_size_differs_only_through_the_count(data):
    # Every attribute but the noisy model is a function of the noisy count alone:
    # two fits on neighbours (500 and 501 rows) whose counts round to the same
    # public size, with different seeds, agree on all of them.
    X, y = data
    epsilon, delta = 2.0, 1e-6
    z = count_noise_multiplier(gdp_mu(epsilon, delta))
    target = round(500 + z * _count_noise(3))
    partner = next(
        seed
        for seed in range(4, 10_000)
        if round(501 + z * _count_noise(seed)) == target
    )
    est = DPLogisticRegression(epsilon=epsilon, delta=delta, classes=[0, 1])
    small = _fit(est.set_params(random_state=3), X[:500], y[:500])
    large = _fit(est.set_params(random_state=partner), X, y)
    assert small.public_n_samples_ == large.public_n_samples_ == target
    _assert_same(_public_attributes(small), _public_attributes(large))
    assert not np.array_equal(small.coef_, large.coef_)


def test_the_count_is_charged_and_composed(data):
    X, y = data
    epsilon, delta = 1.0, 1e-6
    # Without the utility diagnostics (their 1% is tested in test_utility.py).
    clf = DPLogisticRegression(
        epsilon=epsilon, delta=delta, classes=[0, 1], utility_diagnostics=False
    )
    clf = _fit(clf, X, y)
    mu = gdp_mu(epsilon, delta)
    count = clf.ledger_[0]
    assert count == GaussianSteps(count_noise_multiplier(mu), 1.0, 1)
    # The count takes COUNT_SHARE of mu^2; the steps take the rest, exactly.
    assert count.noise_multiplier**-2 == pytest.approx(COUNT_SHARE * mu**2)
    steps_mu_sq = float(np.sum(clf.noise_multipliers_**-2.0))
    assert steps_mu_sq == pytest.approx((1 - COUNT_SHARE) * mu**2, rel=1e-9)
    assert clf.mu_ == pytest.approx(mu, rel=1e-9) and clf.mu_ <= mu
    assert clf.epsilon_ <= epsilon
    assert ledger_epsilon(clf.ledger_, delta) == pytest.approx(clf.epsilon_, rel=1e-9)
    # Independent check: dp-accounting's PLD accountant on the same mechanisms
    # (count included). Dropping the count would under-report by about 0.5%.
    accountant = pld_privacy_accountant.PLDAccountant()
    for z in [count.noise_multiplier, *clf.noise_multipliers_]:
        accountant.compose(dp_event.GaussianDpEvent(z))
    pld = accountant.get_epsilon(delta)
    assert pld == pytest.approx(clf.epsilon_, rel=2e-3)
    without_count = gdp_epsilon(math.sqrt(steps_mu_sq), delta)
    assert without_count < 0.997 * clf.epsilon_


def test_minibatch_spend_includes_the_count(data):
    X, y = data
    clf = _fit(
        DPLogisticRegression(epsilon=1.0, delta=1e-6, classes=[0, 1], batch_size=50),
        X,
        y,
    )
    assert clf.ledger_[0].sampling_rate == 1.0
    assert clf.ledger_[1].sampling_rate == pytest.approx(50 / clf.public_n_samples_)
    assert clf.epsilon_ <= 1.0
    # The default re-audit (PLD, the accountant the fit used) includes the count.
    assert ledger_epsilon(clf.ledger_, 1e-6) <= 1.0
    assert ledger_epsilon(clf.ledger_[1:], 1e-6) < clf.epsilon_


def test_replace_one_uses_the_exact_size_and_no_count(data):
    X, y = data
    clf = DPLogisticRegression(
        neighboring="replace", classes=[0, 1], utility_diagnostics=False
    )
    clf = _fit(clf, X, y)
    assert clf.public_n_samples_ == X.shape[0]
    assert len(clf.ledger_) == 1  # the steps only (no utility diagnostics)
    assert clf.epsilon_ == pytest.approx(1.0, rel=1e-9)


def test_ledger_records_the_count_before_the_fit(data):
    X, y = data
    # Two epsilon=1 fits compose (GDP) to 1.46: a cap of 1.2 takes one.
    with PrivacyLedger(epsilon=1.2, delta=1e-6) as ledger:
        _fit(DPLogisticRegression(epsilon=1.0, delta=1e-6, classes=[0, 1]), X, y)
        assert ledger.epsilon(1e-6) == pytest.approx(1.0, rel=1e-9)
        with pytest.raises(Exception, match="budget|cap"):
            _fit(DPLogisticRegression(epsilon=1.0, delta=1e-6, classes=[0, 1]), X, y)
    assert len(ledger) == 1


def test_error_messages_name_no_private_label(data):
    X, y = data
    y = np.where(y == 1, "secret-diagnosis", "healthy").astype(object)
    with pytest.raises(ValueError, match="not in classes") as info:
        DPLogisticRegression(classes=["healthy", "ill"]).fit(X, y)
    assert "secret" not in str(info.value)


def test_weak_delta_warning_uses_the_public_size(data):
    from sklearn_dpgd.exceptions import WeakPrivacyWarning

    X, y = data
    # 501 rows, but the declared size is what the warning (an output) may read.
    est = DPLogisticRegression(delta=0.02, classes=[0, 1], public_n_samples=100)
    with pytest.warns(WeakPrivacyWarning, match="public_n_samples_=0.01"):
        est.fit(X, y)
