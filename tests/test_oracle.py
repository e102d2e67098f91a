"""The private gradient oracle (``_oracle.py``), the only code that reads private
data: each query matches its NumPy twin (``_reference.py``) with the same noise, and
charges its privacy filter before it computes anything."""

import math

import numpy as np
import pytest

from sklearn_dpgd._engine._oracle import PrivateGradientOracle
from sklearn_dpgd._engine._secure import SecureGenerator
from sklearn_dpgd.accounting import (
    FixedOrderRenyiFilter,
    GaussianPrivacyFilter,
    GaussianSteps,
    NoisyMaxSteps,
    SparseVectorSteps,
)
from sklearn_dpgd.exceptions import BudgetExhaustedError

from . import _reference as ref


def _problem(n=300, d=6, K=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2 if K == 1 else K, size=n).astype(np.int64)
    W = rng.normal(size=(K, d))
    b = rng.normal(size=K)
    D = rng.normal(size=(K, d))
    db = rng.normal(size=K)
    return X, y, W, b, D, db


def _oracle(privacy_filter, seed, X, y, sampling_rate=1.0, sensitivity=1.0):
    return PrivateGradientOracle(
        X,
        y,
        n_outputs=1,
        loss=0,
        huber_width=0.5,
        clip_norm=1.0,
        sensitivity=sensitivity,
        fit_intercept=True,
        privacy_filter=privacy_filter,
        rng=np.random.default_rng(seed),
        public_n_samples=X.shape[0],
        sampling_rate=sampling_rate,
    )


@pytest.mark.parametrize("factor", [1.0, 2.0])  # add/remove, replace-one
def test_noisy_argmin_matches_numpy_twin(factor):
    X, y, W, b, D, db = _problem()
    etas = np.arange(5) * 0.3
    public = np.linspace(0.0, 1.0, 5)
    oracle = _oracle(
        FixedOrderRenyiFilter(1.0, 1e-6, 32.0), 5, X, y, sensitivity=factor
    )
    got = oracle.noisy_argmin(W[:, :], b, D, db, etas, public, 3.0, 0.2)
    scores = ref.clipped_objective_along(X, y, W, b, D, db, etas, True, 3.0, "logistic")
    noise = np.random.default_rng(5).exponential(factor * 3.0 / 0.2, size=5)
    assert got == int(np.argmax(-(scores + public) + noise))
    assert oracle.privacy_filter.ledger == (NoisyMaxSteps(0.2),)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@pytest.mark.parametrize("q", [1.0, 0.3])
def test_sparse_vector_matches_numpy_twin(noise, q):
    X, y, W, b, D, db = _problem()
    etas = 2.0 * 0.8 ** np.arange(6)
    public = -0.5 * etas
    filt = FixedOrderRenyiFilter(10.0, 1e-6, 32)
    got = _oracle(filt, 9, X, y, q).sparse_vector_armijo(
        W, b, D, db, etas, public, 1.0, 0.05, noise
    )
    rng = np.random.default_rng(9)
    rows = np.flatnonzero(rng.random(len(y)) < q) if q < 1 else np.arange(len(y))
    f = ref.clipped_objective_along(
        X[rows], y[rows], W, b, D, db, np.r_[0.0, etas], True, 1.0, "logistic"
    )
    queries = f[0] - f[1:] + public
    if noise == "laplace":
        threshold = rng.laplace(0.0, 1.0 / 0.025)
        nu = rng.laplace(0.0, 1.0 / 0.0125, size=6)
    else:
        threshold = rng.normal(0.0, math.sqrt(3 / 0.1))
        nu = rng.normal(0.0, math.sqrt(3 / 0.05), size=6)
    passed = np.flatnonzero(queries + nu >= threshold)
    assert got == (int(passed[0]) if passed.size else -1)
    assert filt.ledger == (SparseVectorSteps(0.05, noise, q),)


def test_sparse_vector_accepts_clear_decrease_and_refuses_increase():
    # Without noise worth the name (huge budget), the test is Armijo's.
    X, y, W, b, _, _ = _problem(n=2000)
    grad = ref.clipped_gradient_sum(X, y, W, b, True, 1e9, "logistic") / len(y)
    etas = np.array([0.5, 0.1])
    filt = FixedOrderRenyiFilter(1e9, 1e-6, 2.0)
    oracle = _oracle(filt, 0, X, y)
    D, db = grad[:, :-1], grad[:, -1]
    g2 = float(np.vdot(grad, grad))
    i = oracle.sparse_vector_armijo(
        W, b, D, db, etas, -0.1 * etas * g2 * 2000, 50.0, 1e6, "laplace"
    )
    assert i == 0
    i = oracle.sparse_vector_armijo(
        W, b, -D, -db, etas, np.zeros(2), 50.0, 1e6, "laplace"
    )
    assert i == -1  # ascent directions never pass


def test_filter_refuses_overspending_query_before_computing():
    X, y, W, b, D, db = _problem()
    filt = FixedOrderRenyiFilter(2.0, 1e-6, 16.0)
    oracle = _oracle(filt, 3, X, y)
    state = oracle._rng.bit_generator.state
    with pytest.raises(BudgetExhaustedError, match="would spend"):
        oracle.noisy_argmin(W, b, D, db, np.arange(3.0), np.zeros(3), 1.0, 10.0)
    with pytest.raises(BudgetExhaustedError):
        oracle.sparse_vector_armijo(
            W, b, D, db, np.ones(2), np.zeros(2), 1.0, 5.0, "laplace"
        )
    with pytest.raises(BudgetExhaustedError):
        oracle.noisy_gradient(W, b, 0.01)
    assert oracle._rng.bit_generator.state == state  # nothing was drawn
    assert filt.ledger == () and filt.rdp_spent == 0.0


@pytest.mark.parametrize("sensitivity", [1.0, 2.0])  # add/remove, replace-one
def test_noisy_gradient_matches_numpy_twin_and_charges_first(sensitivity):
    X, y, W, b, _, _ = _problem()
    filt = GaussianPrivacyFilter(2.0)
    oracle = _oracle(filt, 4, X, y, sensitivity=sensitivity)
    got = oracle.noisy_gradient(W, b, 3.0)
    total = ref.clipped_gradient_sum(X, y, W, b, True, 1.0, "logistic")
    noise = np.random.default_rng(4).standard_normal(total.shape)
    expected = (total + 3.0 * sensitivity * noise) / X.shape[0]
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert filt.ledger == (GaussianSteps(3.0),)


@pytest.mark.parametrize("clip", [0.6, 1.0])
def test_decayed_clip_noise_under_replace(clip):
    # Replace-one: a row's clipped gradient g_i (||g_i|| <= C') becomes g_i'
    # (||g_i'|| <= C'), so the clipped sum moves by ||g_i - g_i'|| <= 2 C'. The
    # oracle was built for C = 1 with Delta = 2 C; at the decayed C' (eq. 9) its
    # noise std must be z * 2 C', not z * C' (a missing factor 2 fails this).
    X, y, W, b, _, _ = _problem()
    filt = FixedOrderRenyiFilter(100.0, 1e-6, 8.0)
    oracle = _oracle(filt, 4, X, y, sensitivity=2.0)
    got = oracle.noisy_gradient(W, b, 0.7, clip_norm=clip)
    want = ref.clipped_gradient_sum(X, y, W, b, True, clip, "logistic")
    want += 0.7 * 2.0 * clip * np.random.default_rng(4).standard_normal(want.shape)
    np.testing.assert_allclose(got, want / X.shape[0], rtol=1e-10)


@pytest.mark.parametrize("c_obj", [0.95, 3.0])
def test_sparse_vector_sensitivity_under_replace(c_obj):
    # Replace-one: query q_i = f(w) - f(w - eta g) with f = sum_j min(l_j, C_obj)
    # and l_j >= 0. A replaced row changes its two terms by a - b and a' - b' with
    # a, b, a', b' in [0, C_obj], so q_i moves by at most 2 C_obj (add/remove:
    # C_obj). Laplace threshold and query noise scales 2 C_obj / (eps / 2) and
    # 2 C_obj / (eps / 4) (Chen & Lee, Algorithm 1 with Delta_q doubled).
    X, y, W, b, D, db = _problem()
    etas = 2.0 * 0.8 ** np.arange(6)
    public = -0.5 * etas
    filt = FixedOrderRenyiFilter(10.0, 1e-6, 32)
    got = _oracle(filt, 9, X, y, sensitivity=2.0).sparse_vector_armijo(
        W, b, D, db, etas, public, c_obj, 0.05, "laplace"
    )
    rng = np.random.default_rng(9)
    f = ref.clipped_objective_along(
        X, y, W, b, D, db, np.r_[0.0, etas], True, c_obj, "logistic"
    )
    queries = f[0] - f[1:] + public
    threshold = rng.laplace(0.0, 2.0 * c_obj / 0.025)
    nu = rng.laplace(0.0, 2.0 * c_obj / 0.0125, size=6)
    passed = np.flatnonzero(queries + nu >= threshold)
    assert got == (int(passed[0]) if passed.size else -1)


@pytest.mark.parametrize("factor", [1.0, 2.0])  # add/remove, replace-one
def test_gumbel_argmin_matches_numpy_twin_and_charges_bounded_range(factor):
    X, y, W, b, D, db = _problem()
    etas = np.arange(5) * 0.3
    public = np.linspace(0.0, 1.0, 5)
    filt = FixedOrderRenyiFilter(1.0, 1e-6, 32.0)
    oracle = _oracle(filt, 5, X, y, sensitivity=factor)
    got = oracle.noisy_argmin(W, b, D, db, etas, public, 3.0, 0.2, "gumbel")
    scores = ref.clipped_objective_along(X, y, W, b, D, db, etas, True, 3.0, "logistic")
    noise = np.random.default_rng(5).gumbel(0.0, factor * 3.0 / 0.2, size=5)
    assert got == int(np.argmax(-(scores + public) + noise))
    assert filt.ledger == (NoisyMaxSteps(0.2, noise="gumbel"),)
    # epsilon^2 / 8 at the filter's order: a quarter of permute-and-flip's charge.
    assert filt.rdp_spent == pytest.approx(32.0 * 0.2**2 / 8, rel=1e-12)


def test_gumbel_argmin_samples_the_exponential_mechanism():
    # The selection's law is softmax(-epsilon * score / Delta): the scale the
    # bounded-range charge assumes (twice the scale would be a different law).
    X, y, W, b, D, db = _problem(n=60)
    etas = np.array([0.0, 0.5, 1.0])
    eps, c_obj = 0.5, 3.0
    oracle = _oracle(FixedOrderRenyiFilter(1e9, 1e-6, 2.0), 3, X, y)
    scores = ref.clipped_objective_along(
        X, y, W, b, D, db, etas, True, c_obj, "logistic"
    )
    public = -scores + np.array([0.0, 2.0, 4.0])  # scores 0, 2, 4 in units of C_obj
    n = 4000
    counts = np.bincount(
        [
            oracle.noisy_argmin(W, b, D, db, etas, public, c_obj, eps, "gumbel")
            for _ in range(n)
        ],
        minlength=3,
    )
    expected = np.exp(-eps * np.array([0.0, 2.0, 4.0]) / c_obj)
    expected /= expected.sum()
    sd = np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(counts / n - expected) < 4 * sd)


def test_gumbel_argmin_in_secure_mode_counts_bounded_uniforms():
    X, y, W, b, D, db = _problem()
    rng = SecureGenerator()
    oracle = PrivateGradientOracle(
        X,
        y,
        n_outputs=1,
        loss=0,
        huber_width=0.5,
        clip_norm=1.0,
        sensitivity=1.0,
        fit_intercept=True,
        privacy_filter=FixedOrderRenyiFilter(1.0, 1e-6, 32.0),
        rng=rng,
        public_n_samples=X.shape[0],
    )
    i = oracle.noisy_argmin(
        W, b, D, db, np.arange(5) * 0.3, np.zeros(5), 3.0, 0.2, "gumbel"
    )
    assert 0 <= i < 5
    assert rng._bounded_uniforms > 0  # the secure samplers ran, and were counted
    with pytest.raises(ValueError, match="noise"):
        oracle.noisy_argmin(W, b, D, db, np.arange(5) * 0.3, np.zeros(5), 3.0, 0.2, "x")
