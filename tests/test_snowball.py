import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    DPHuberSVM,
    DPLogisticRegression,
    PrivacyLeakWarning,
    UniformSchedule,
)
from sklearn_dpgd._engine import _kernels, _losses, _twins
from sklearn_dpgd._public_size import COUNT_SHARE, count_noise_multiplier
from sklearn_dpgd._solvers.snowball import (
    assign_slots,
    snowball_batch_sizes,
    snowball_rho,
)
from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    GaussianSteps,
    SnowballSteps,
    ledger_epsilon,
)

from ._sklearn_checks import expected_failed_checks, parametrize_with_checks


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


@parametrize_with_checks(
    [DPLogisticRegression(solver="snowball", epsilon=4.0, public_n_samples=100)],
    expected_failed_checks=expected_failed_checks,
)
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
    "estimator, neighboring, n_classes, clip_norm, public_n_samples",
    [
        (DPLogisticRegression, "add_remove", 2, 1.0, None),
        (DPLogisticRegression, "add_remove", 2, 1.0, 2500),
        (DPLogisticRegression, "replace", 3, 2.0, None),
        (DPHuberSVM, "add_remove", 3, 0.5, None),
    ],
)
def test_snowball_privacy_parameters_follow_feldman_koren_talwar(
    estimator, neighboring, n_classes, clip_norm, public_n_samples
):
    import dp_accounting

    n, d = 3000, 8
    X, y = _data(n=n, d=d, n_classes=n_classes)
    clf = estimator(
        solver="snowball",
        epsilon=2.0,
        delta=1e-6,
        neighboring=neighboring,
        clip_norm=clip_norm,
        public_n_samples=public_n_samples,
        random_state=0,
    ).fit(X, y)
    rho = snowball_rho(2.0, 1e-6)
    counted = public_n_samples is None and neighboring == "add_remove"
    m = clf.public_n_samples_
    if counted:
        # A noisy count (sensitivity 1) with 1 / z_c^2 = COUNT_SHARE rho^2, the
        # training with the rest of rho^2, recorded first in the ledger.
        count, record = clf.ledger_
        assert count == GaussianSteps(count_noise_multiplier(rho))
        assert count.noise_multiplier**-2 == pytest.approx(COUNT_SHARE * rho**2)
        assert m != n  # the count is noisy (std 4 here)
        rho_train = rho * math.sqrt(1 - COUNT_SHARE)
    else:
        (record,) = clf.ledger_
        assert m == (n if public_n_samples is None else public_n_samples)
        rho_train = rho
    assert isinstance(record, SnowballSteps)
    K = 1 if n_classes == 2 else n_classes
    p = K * (d + 1)
    B = np.asarray(record.batch_sizes)
    T = B.size
    assert clf.n_iter_ == T and clf.mu_ is None
    # Batches: B_t = ceil(2 sqrt(p) / (rho sqrt(T - t + 1))), the sensitivity 2 L
    # under both relations, the longest such plan within the public size m.
    c = 2 * math.sqrt(p) / rho_train
    expected = np.ceil(c / np.sqrt(np.arange(T, 0, -1)))
    np.testing.assert_array_equal(B, expected)
    assert B.sum() <= m
    assert np.ceil(c / np.sqrt(np.arange(T + 1, 0, -1))).sum() > m
    assert np.all(np.diff(B) >= 0)
    # Noise L / sqrt(p) per coordinate of the mean gradient (Thm 3.5).
    sigma_mean = np.asarray(clf.noise_multipliers_) * 2 * clip_norm / B
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
    paper = _paper_rho(B, clf.noise_multipliers_, record.learning_rates, 2, clip_norm)
    assert record.rho == pytest.approx(paper, rel=1e-12)
    assert paper <= rho_train * (1 + 1e-12)
    # (alpha, alpha rho^2 / 2)-RDP is the RDP curve of a Gaussian mechanism with
    # noise multiplier 1 / rho: convert it (and the count's) with dp-accounting.
    # With a counted size the plan depends on the count: the claim is the curve it
    # was designed to (rho_train), valid for every m; what ran is within it.
    acc = dp_accounting.rdp.RdpAccountant(orders=list(DEFAULT_ORDERS))
    acc.compose(dp_accounting.GaussianDpEvent(1.0 / (rho_train if counted else paper)))
    if counted:
        acc.compose(dp_accounting.GaussianDpEvent(count.noise_multiplier))
    assert acc.get_epsilon(1e-6) == pytest.approx(clf.epsilon_, rel=1e-6)
    assert clf.epsilon_ <= 2.0
    if counted:
        assert ledger_epsilon(clf.ledger_, 1e-6) <= clf.epsilon_
    else:
        assert ledger_epsilon(clf.ledger_, 1e-6) == clf.epsilon_


def _recorded_batches(monkeypatch):
    """Record the rows of every gradient sum, on the kernels or their NumPy twins."""
    seen = []

    def recording(kernel):
        def record(X, y, W, b, row_norms, rows, *args):
            seen.append((np.array(rows), np.asarray(X).shape[0]))
            return kernel(X, y, W, b, row_norms, rows, *args)

        return record

    for module in (_kernels, _twins):
        monkeypatch.setattr(
            module, "clipped_gradient_sum", recording(module.clipped_gradient_sum)
        )
    return seen


def test_snowball_uses_each_row_at_most_once(monkeypatch):
    seen = _recorded_batches(monkeypatch)
    X, y = _data(n=2000)
    clf = DPLogisticRegression(
        solver="snowball", epsilon=1.0, public_n_samples=2000, random_state=0
    ).fit(X, y)
    used = np.concatenate([rows for rows, _ in seen])
    assert len(seen) == clf.n_iter_
    assert [rows.size for rows, _ in seen] == list(clf.ledger_[0].batch_sizes)
    assert np.unique(used).size == used.size <= 2000
    # The order is a random permutation drawn from the seed.
    assert not np.array_equal(used, np.sort(used))


def test_snowball_fills_missing_rows_with_empty_slots(monkeypatch):
    # n < M: every row is used once, the other slots hold the zero row (index n,
    # appended to the design) and each batch keeps its public planned size.
    seen = _recorded_batches(monkeypatch)
    X, y = _data(n=600)
    clf = DPLogisticRegression(
        solver="snowball", epsilon=1.0, public_n_samples=2000, random_state=0
    ).fit(X, y)
    assert [rows.size for rows, _ in seen] == list(clf.ledger_[0].batch_sizes)
    assert {design_rows for _, design_rows in seen} == {601}
    used = np.concatenate([rows for rows, _ in seen])
    real = used[used < 600]
    assert np.array_equal(np.sort(real), np.arange(600))
    assert np.all(used[used >= 600] == 600)
    # The zero row adds nothing to a batch sum, whatever theta and the label.
    zero = np.zeros((1, 4))
    for label in (0, 1):
        grad = _kernels.clipped_gradient_sum(
            zero,
            np.array([label], dtype=np.int64),
            np.ones((1, 4)),
            np.zeros(1),
            _kernels.row_norms(zero, False),
            np.zeros(3, dtype=np.int64),
            False,
            1.0,
            _losses.LOSS_CODES["logistic"],
            0.5,
        )
        assert not np.any(grad)


def test_assign_slots_is_a_uniform_injection():
    rng = np.random.default_rng(0)
    # n >= M: distinct rows; every row equally likely in every slot.
    counts = np.zeros((5, 3))
    for _ in range(3000):
        slots = assign_slots(5, 3, rng)
        assert np.unique(slots).size == 3 and slots.max() < 5
        counts[slots, np.arange(3)] += 1
    np.testing.assert_allclose(counts / 3000, 1 / 5, atol=0.03)
    # n < M: all rows placed once, uniformly over the slots; the rest are blanks.
    counts = np.zeros((2, 4))
    for _ in range(3000):
        slots = assign_slots(2, 4, rng)
        assert sorted(slots[slots < 2]) == [0, 1] and np.all(slots[slots >= 2] == 2)
        counts[slots[slots < 2], np.flatnonzero(slots < 2)] += 1
    np.testing.assert_allclose(counts / 3000, 1 / 4, atol=0.03)


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
    params = {"solver": "snowball", "public_n_samples": 300, **params}
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(**params).fit(X, y)


def test_snowball_batch_sizes_and_rho_helpers():
    rho = snowball_rho(1.0, 1e-8)
    orders = np.asarray(DEFAULT_ORDERS)
    from sklearn_dpgd.accounting import rdp_epsilon

    assert rdp_epsilon(0.5 * orders * rho**2, orders, 1e-8) <= 1.0
    assert rdp_epsilon(0.5 * orders * (rho * 1.001) ** 2, orders, 1e-8) > 1.0
    B = snowball_batch_sizes(10_000, 20, rho)
    assert B.sum() <= 10_000
    np.testing.assert_array_equal(B[-1], math.ceil(2 * math.sqrt(20) / rho))
    with pytest.raises(ValueError, match="public size public_n_samples_ is 5"):
        snowball_batch_sizes(5, 20, rho)


@pytest.mark.parametrize("public_n_samples", [None, 2000])
def test_snowball_draws_every_random_value_through_make_generator(
    monkeypatch, public_n_samples
):
    # secure_mode reaches every generator of the fit (count, order, noise), each
    # seeded by a child of the fit's SeedSequence; nothing else draws randomness.
    from sklearn_dpgd._solvers import snowball as _snowball

    calls = []

    def recording(seed, secure_mode=False):
        calls.append((seed, secure_mode))
        return np.random.default_rng(seed)

    monkeypatch.setattr(_snowball, "make_generator", recording)
    X, y = _data(n=2000)
    clf = DPLogisticRegression(
        solver="snowball",
        epsilon=1.0,
        public_n_samples=public_n_samples,
        secure_mode=True,
    )
    clf.fit(X, y)
    assert len(calls) == (3 if public_n_samples is None else 2)
    assert all(secure for _, secure in calls)
    seeds = [seed for seed, _ in calls]
    assert all(isinstance(s, np.random.SeedSequence) for s in seeds)
    assert len({s.spawn_key for s in seeds}) == len(seeds)
