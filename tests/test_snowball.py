import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_dpgd import (
    BudgetExhaustedError,
    DPHuberSVM,
    DPLogisticRegression,
    PrivacyLeakWarning,
    UniformSchedule,
    _oracle,
)
from sklearn_dpgd._snowball import snowball_batch_sizes, snowball_rho
from sklearn_dpgd._subsampled import DEFAULT_ORDERS
from sklearn_dpgd.accounting import (
    AmplifiedIterationFilter,
    GaussianSteps,
    SnowballSteps,
    ledger_epsilon,
)


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=3000, d=8, seed=0, n_classes=2, class_sep=1.5):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=4,
        random_state=seed,
        class_sep=class_sep,
        n_classes=n_classes,
    )
    return Normalizer().fit_transform(X), y


@parametrize_with_checks([DPLogisticRegression(solver="snowball", epsilon=4.0)])
def test_sklearn_estimator_checks_snowball(estimator, check):
    check(estimator)


def _paper_rho(batch_sizes, noise_multipliers, learning_rates, factor, lipschitz):
    # Feldman, Koren & Talwar (2020), Thm 3.1, written in the paper's quantities:
    # sigma_s is the per-coordinate noise std on the batch-mean gradient, the
    # sensitivity of one row on the step-t mean is factor * L / B_t.
    B = np.asarray(batch_sizes, float)
    eta = np.asarray(learning_rates, float)
    sigma = np.asarray(noise_multipliers, float) * factor * lipschitz / B
    T = B.size
    return max(
        factor
        * lipschitz
        * eta[t]
        / (B[t] * math.sqrt(np.sum(eta[t:] ** 2 * sigma[t:] ** 2)))
        for t in range(T)
    )


@pytest.mark.parametrize(
    "estimator, neighboring, n_classes, clip_norm",
    [
        (DPLogisticRegression, "add_remove", 2, 1.0),
        (DPLogisticRegression, "replace", 3, 2.0),
        (DPHuberSVM, "add_remove", 3, 0.5),
    ],
)
def test_snowball_privacy_parameters_follow_seed_002(
    estimator, neighboring, n_classes, clip_norm
):
    dp_accounting = pytest.importorskip("dp_accounting")
    n, d = 3000, 8
    X, y = _data(n=n, d=d, n_classes=n_classes)
    clf = estimator(
        solver="snowball",
        epsilon=2.0,
        delta=1e-6,
        neighboring=neighboring,
        clip_norm=clip_norm,
        random_state=0,
    ).fit(X, y)
    (record,) = clf.ledger_
    assert isinstance(record, SnowballSteps)
    f = 2.0 if neighboring == "replace" else 1.0
    K = 1 if n_classes == 2 else n_classes
    p = K * (d + 1)
    B = np.asarray(record.batch_sizes)
    T = B.size
    assert clf.n_iter_ == T and clf.mu_ is None
    # Batches: each row at most once, B_t = ceil(f sqrt(p) / (rho sqrt(T - t + 1))),
    # the longest such plan within n.
    rho = snowball_rho(2.0, 1e-6)
    c = f * math.sqrt(p) / rho
    expected = np.ceil(c / np.sqrt(np.arange(T, 0, -1)))
    np.testing.assert_array_equal(B, expected)
    assert B.sum() <= n
    assert np.ceil(c / np.sqrt(np.arange(T + 1, 0, -1))).sum() > n
    assert np.all(np.diff(B) >= 0)
    # Noise L / sqrt(p) per coordinate of the mean gradient (Thm 3.5).
    sigma_mean = np.asarray(clf.noise_multipliers_) * f * clip_norm / B
    np.testing.assert_allclose(sigma_mean, clip_norm / math.sqrt(p), rtol=1e-12)
    # Contraction: eta <= 2 / beta with rows scaled to clip_norm / G_K.
    G = (
        1.0
        if K == 1
        else (math.sqrt(2) if estimator is DPLogisticRegression else math.sqrt(K))
    )
    curvature = {DPLogisticRegression: 0.25 if K == 1 else 0.5, DPHuberSVM: 1.0}[
        estimator
    ]
    assert max(record.learning_rates) <= 2.0 / (curvature * (clip_norm / G) ** 2)
    # rho by the paper's formula, computed independently, and <= the target.
    paper = _paper_rho(B, clf.noise_multipliers_, record.learning_rates, f, clip_norm)
    assert record.rho == pytest.approx(paper, rel=1e-12)
    assert paper <= rho * (1 + 1e-12)
    # (alpha, alpha rho^2 / 2)-RDP is the RDP curve of a Gaussian mechanism with
    # noise multiplier 1 / rho: convert it with dp-accounting's RDP accountant.
    acc = dp_accounting.rdp.RdpAccountant(orders=list(DEFAULT_ORDERS))
    acc.compose(dp_accounting.GaussianDpEvent(1.0 / paper))
    assert acc.get_epsilon(1e-6) == pytest.approx(clf.epsilon_, rel=1e-6)
    assert clf.epsilon_ <= 2.0
    assert ledger_epsilon(clf.ledger_, 1e-6) == clf.epsilon_


def test_snowball_uses_each_row_at_most_once(monkeypatch):
    seen = []
    kernel = _oracle.clipped_gradient_sum

    def recording(X, y, W, b, row_norms, rows, *args):
        seen.append(np.array(rows))
        return kernel(X, y, W, b, row_norms, rows, *args)

    monkeypatch.setattr(_oracle, "clipped_gradient_sum", recording)
    X, y = _data(n=2000)
    clf = DPLogisticRegression(solver="snowball", epsilon=1.0, random_state=0).fit(X, y)
    used = np.concatenate(seen)
    assert len(seen) == clf.n_iter_
    assert [s.size for s in seen] == list(clf.ledger_[0].batch_sizes)
    assert np.unique(used).size == used.size <= 2000
    # The order is a random permutation drawn from the seed.
    assert not np.array_equal(used, np.sort(used))


def test_snowball_accuracy_on_a_separable_problem():
    from sklearn.linear_model import LogisticRegression

    X, y = _data(n=6000, class_sep=3.0)
    reference = LogisticRegression().fit(X, y).score(X, y)
    clf = DPLogisticRegression(
        solver="snowball", epsilon=2.0, delta=1e-6, random_state=0
    )
    assert clf.fit(X, y).score(X, y) > reference - 0.05


def test_snowball_sparse_matches_dense():
    X, y = _data(n=1500)
    kw = dict(solver="snowball", epsilon=1.0, random_state=2)
    a = DPHuberSVM(**kw).fit(X, y)
    b = DPHuberSVM(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"batch_size": 10}, "batch_size"),
        ({"schedule": UniformSchedule()}, "schedule"),
        ({"epsilon": 1e-3}, "snowball"),
        ({"radius": 0.0}, "radius"),
        ({"solver": "sgd"}, "solver"),
    ],
)
def test_snowball_rejects_bad_parameters(params, match):
    X, y = _data(n=300)
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(**{"solver": "snowball", **params}).fit(X, y)


def test_snowball_batch_sizes_and_rho_helpers():
    rho = snowball_rho(1.0, 1e-8)
    orders = np.asarray(DEFAULT_ORDERS)
    from sklearn_dpgd._subsampled import rdp_epsilon

    assert rdp_epsilon(0.5 * orders * rho**2, orders, 1e-8) <= 1.0
    assert rdp_epsilon(0.5 * orders * (rho * 1.001) ** 2, orders, 1e-8) > 1.0
    B = snowball_batch_sizes(10_000, 20, rho, 1.0)
    assert B.sum() <= 10_000
    with pytest.raises(ValueError, match="n_samples"):
        snowball_batch_sizes(5, 20, rho, 1.0)


def test_amplified_iteration_filter_refuses_overspending_and_off_plan_steps():
    plan = SnowballSteps((2, 3), (0.5, 0.75), (0.1, 0.1))
    filt = AmplifiedIterationFilter(epsilon=1e-3, delta=1e-6)
    with pytest.raises(BudgetExhaustedError, match="Snowball plan"):
        filt.reserve(plan)
    filt = AmplifiedIterationFilter(epsilon=100.0, delta=1e-6)
    with pytest.raises(BudgetExhaustedError):
        filt.charge(2, 0.5)  # nothing reserved
    filt.reserve(plan)
    with pytest.raises(ValueError, match="plan"):
        filt.charge(3, 0.5)
    filt.charge(2, 0.5)
    filt.charge(3, 0.75)
    with pytest.raises(BudgetExhaustedError):
        filt.charge(3, 0.75)
    assert filt.ledger == (plan,)
    assert filt.epsilon_spent == ledger_epsilon((plan,), 1e-6)


def test_ledger_epsilon_composes_snowball_in_rdp_only():
    plan = SnowballSteps((4,), (1.0,), (0.1,))
    # One step with B = 4, z = 1: rho = 1 / z, the RDP of a Gaussian step.
    assert plan.rho == pytest.approx(1.0)
    mixed = (plan, GaussianSteps(1.0))
    assert ledger_epsilon(mixed, 1e-6) == pytest.approx(
        ledger_epsilon((GaussianSteps(1.0, count=2),), 1e-6, accountant="rdp"), rel=1e-9
    )
    for accountant in ("gdp", "pld"):
        with pytest.raises(ValueError, match="RDP"):
            ledger_epsilon((plan,), 1e-6, accountant=accountant)
    with pytest.raises(ValueError, match="batch_sizes"):
        SnowballSteps((0,), (1.0,), (0.1,))
