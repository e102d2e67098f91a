"""Minibatch DP-SGD with Poisson sampling, the ledger, and the RDP filter."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    DPHuberSVM,
    DPLogisticRegression,
    ExponentialDecaySchedule,
    PrivacyLeakWarning,
    PURSchedule,
)
from sklearn_dpgd._solvers.gd import fixed_order_filter as _fixed_order_filter
from sklearn_dpgd.accounting import (
    compress_ledger,
    ledger_epsilon,
    pld_epsilon,
    pld_grid_step,
)
from sklearn_dpgd.accounting._records import _expand_ledger

from . import _reference as ref

_expand = _expand_ledger


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=3000, n_classes=2):
    X, y = make_classification(
        n_samples=n, n_features=8, n_informative=4, n_classes=n_classes, random_state=0
    )
    return Normalizer().fit_transform(X), y


@pytest.mark.parametrize("Estimator", [DPLogisticRegression, DPHuberSVM])
@pytest.mark.parametrize(
    "schedule", [None, ExponentialDecaySchedule(0.99)], ids=["uniform", "exp"]
)
def test_minibatch_spends_the_budget_and_learns(Estimator, schedule):
    X, y = _data()
    clf = Estimator(
        epsilon=2.0,
        delta=1e-6,
        batch_size=100,
        max_iter=200,
        schedule=schedule,
        random_state=0,
        # A declared size: the plan is fixed in advance, so the PLD may approve it
        # (with an estimated size, see the next test).
        public_n_samples=3000,
    ).fit(X, y)
    assert clf.epsilon_ <= 2.0
    # The subsampled steps are composed in one PLD, and the plan is rescaled until
    # that PLD spends the budget (to 1e-4, never more).
    assert clf.epsilon_ >= 2.0 * (1 - 1e-4)
    assert clf.mu_ is None  # no closed form for subsampled steps
    assert all(r.sampling_rate == pytest.approx(100 / 3000) for r in clf.ledger_)
    assert sum(r.count for r in clf.ledger_) == clf.n_iter_ == 200
    # Non-private logistic regression reaches 0.722 on these data.
    assert clf.score(X, y) > 0.65
    # The ledger alone re-audits the fit: exactly on the filter's grid, and its
    # default (PLD) re-audit, which tries the grids of nearby epsilons, meets it.
    # RDP would have called the same noise an overspend.
    z, q = _expand(clf.ledger_)
    assert pld_epsilon(z, q, 1e-6, pld_grid_step(2.0, z.size)) == clf.epsilon_
    assert ledger_epsilon(clf.ledger_, 1e-6) == clf.epsilon_
    assert ledger_epsilon(clf.ledger_, 1e-6, accountant="rdp") > 2.0


@pytest.mark.parametrize(
    "schedule",
    [None, ExponentialDecaySchedule(0.99), PURSchedule()],
    ids=["uniform", "exp", "pur"],
)
def test_minibatch_with_an_estimated_size_uses_a_fixed_order_filter(schedule):
    # q = batch_size / m is chosen after the noisy count m: only a Rényi filter at
    # an order fixed before the count is valid for such an adaptive choice. Its
    # order depends on (epsilon, delta) alone; the count and the steps fill its
    # budget, and epsilon_ is its guarantee.
    X, y = _data()
    clf = DPLogisticRegression(
        epsilon=2.0, delta=1e-6, batch_size=100, schedule=schedule, random_state=0
    ).fit(X, y)
    assert clf.epsilon_ == 2.0
    count, *steps = clf.ledger_
    assert count.sampling_rate == 1.0 and count.count == 1
    q = 100 / clf.public_n_samples_
    assert all(r.sampling_rate == pytest.approx(q) for r in steps)
    filt = _fixed_order_filter(2.0, 1e-6)
    spent = sum(filt.cost(r) for r in clf.ledger_)
    assert spent <= filt.budget
    if schedule is None or isinstance(schedule, ExponentialDecaySchedule):
        assert spent >= filt.budget * (1 - 1e-6)  # a calibrated plan spends it all
    # The PLD of the same steps, composed as if fixed in advance, is smaller: it
    # is not a valid bound for a plan chosen after the count.
    assert ledger_epsilon(clf.ledger_, 1e-6) < clf.epsilon_


def test_minibatch_step_matches_reference_on_the_sampled_rows():
    # One step, no momentum: the update is -lr * (clipped sum over the Poisson sample
    # + noise) / (q n), with the sample and the noise drawn from the documented RNG.
    X, y = _data(n=500)
    q_batch = 50
    clf = DPLogisticRegression(
        epsilon=1.0,
        delta=1e-6,
        batch_size=q_batch,
        max_iter=1,
        learning_rate=1.0,
        momentum=0.0,
        average=0.0,
        normalize_steps=False,
        clip_norm=1.0,
        random_state=7,
        public_n_samples=500,
    ).fit(X, y)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7)))
    q = q_batch / 500
    rows = np.flatnonzero(rng.random(500) < q)
    noise = clf.noise_multipliers_[0] * rng.standard_normal((1, X.shape[1] + 1))
    g = ref.clipped_gradient_sum(
        X[rows], y[rows], np.zeros((1, 8)), np.zeros(1), True, 1.0, "logistic"
    )
    theta = -(g + noise) / (q * 500)
    np.testing.assert_allclose(clf.coef_, theta[:, :8], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(clf.intercept_, theta[:, 8], rtol=1e-12, atol=1e-14)


def test_pld_default_needs_less_noise_than_rdp_for_the_same_promise():
    X, y = _data()
    kw = dict(
        epsilon=1.0,
        delta=1e-6,
        batch_size=60,
        max_iter=300,
        random_state=0,
        public_n_samples=3000,  # a plan fixed in advance (see the test above)
    )
    rdp = DPLogisticRegression(accountant="rdp", **kw).fit(X, y)
    pld = DPLogisticRegression(**kw).fit(X, y)
    assert DPLogisticRegression().accountant == "pld"
    # Both spend the budget, each by its own accountant.
    assert 1.0 * (1 - 1e-4) <= rdp.epsilon_ <= 1.0
    assert 1.0 * (1 - 1e-4) <= pld.epsilon_ <= 1.0
    assert rdp.epsilon_ == pytest.approx(
        ledger_epsilon(rdp.ledger_, 1e-6, accountant="rdp"), rel=1e-9
    )
    assert np.all(pld.noise_multipliers_ < 0.97 * rdp.noise_multipliers_)
    # epsilon_ is the pessimistic PLD of what ran: never below a 4x finer grid,
    # at most 2% above it.
    z, q = _expand(pld.ledger_)
    finer = pld_epsilon(z, q, 1e-6, pld_grid_step(1.0, z.size) / 4)
    assert finer <= pld.epsilon_ <= 1.02 * finer


def test_batch_size_not_smaller_than_n_is_full_batch():
    X, y = _data(n=200)
    a = DPLogisticRegression(batch_size=500, max_iter=10, random_state=0).fit(X, y)
    b = DPLogisticRegression(max_iter=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.mu_ == b.mu_


def test_minibatch_refuses_replace_one():
    X, y = _data(n=200)
    with pytest.raises(ValueError, match="add/remove"):
        DPLogisticRegression(batch_size=20, neighboring="replace").fit(X, y)


@pytest.mark.parametrize("bad", [0, -5, 2.5])
def test_batch_size_validated(bad):
    X, y = _data(n=100)
    with pytest.raises((ValueError, TypeError), match="batch_size"):
        DPLogisticRegression(batch_size=bad).fit(X, y)


def test_pur_with_minibatches_stops_at_the_budget():
    from sklearn_dpgd.accounting import ledger_epsilon as eps_of

    X, y = _data()
    clf = DPLogisticRegression(
        epsilon=1.0,
        delta=1e-6,
        batch_size=300,
        schedule=PURSchedule(),
        random_state=0,
        public_n_samples=3000,  # a plan fixed in advance: the PLD decides
    ).fit(X, y)
    assert clf.epsilon_ <= 1.0 and clf.n_iter_ >= 1
    # One more step at PUR's next noise level would overspend.
    ctx_z = clf.noise_multipliers_
    t = clf.n_iter_
    z_next = ctx_z[0] * 1.0 / (t + 1)  # nonconvex PUR: z_t = z_1 / t
    more = list(zip(np.append(ctx_z, z_next), [0.1] * (t + 1), strict=True))
    assert eps_of(compress_ledger(*map(list, zip(*more, strict=True))), 1e-6) > 1.0
