"""SecureGenerator: exact distributions, NumPy's conventions, no shared state.

The samplers are random by design (OS entropy, no seed), so the distribution tests
use a Kolmogorov-Smirnov threshold of 1e-6: a false alarm is a one-in-a-million
event per test, while a wrong scale (a factor 2 in the standard deviation) gives
p-values below 1e-300 at 1e5 draws.
"""

import math
import os
import pickle
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from sklearn_dpgd._engine import _secure
from sklearn_dpgd._engine._randomness import draw_seed, make_generator
from sklearn_dpgd._engine._secure import (
    RADIUS_MAX,
    SecureGenerator,
    _gaussian_from_uniforms,
    gaussian_support_delta,
    poisson_indices,
)

N = 100_000
P_MIN = 1e-6


@pytest.fixture
def rng():
    return SecureGenerator()


@pytest.mark.parametrize(
    "draw, dist, mean, var",
    [
        (lambda g: g.standard_normal(N), stats.norm(), 0.0, 1.0),
        (lambda g: g.normal(3.0, 2.0, N), stats.norm(3.0, 2.0), 3.0, 4.0),
        (lambda g: g.laplace(0.0, 1.0, N), stats.laplace(), 0.0, 2.0),
        (lambda g: g.laplace(-1.0, 0.5, N), stats.laplace(-1.0, 0.5), -1.0, 0.5),
        (lambda g: g.exponential(1.0, N), stats.expon(), 1.0, 1.0),
        (lambda g: g.exponential(3.0, N), stats.expon(scale=3.0), 3.0, 9.0),
        (
            lambda g: g.gumbel(0.0, 1.0, N),
            stats.gumbel_r(),
            np.euler_gamma,
            np.pi**2 / 6,
        ),
        (
            lambda g: g.gumbel(2.0, 0.5, N),
            stats.gumbel_r(2.0, 0.5),
            2.0 + 0.5 * np.euler_gamma,
            np.pi**2 / 24,
        ),
        (lambda g: g.random(N), stats.uniform(), 0.5, 1 / 12),
        (lambda g: g.uniform(-2.0, 4.0, N), stats.uniform(-2.0, 6.0), 1.0, 3.0),
    ],
)
def test_distribution_matches_scipy(rng, draw, dist, mean, var):
    x = draw(rng)
    assert x.shape == (N,) and x.dtype == np.float64
    assert stats.kstest(x, dist.cdf).pvalue > P_MIN
    # Six standard errors (the fourth moment bounds the variance's error).
    assert abs(x.mean() - mean) < 6 * math.sqrt(var / N)
    kurt = dist.stats(moments="k") + 3.0
    assert abs(x.var() - var) < 6 * var * math.sqrt((kurt - 1) / N)


def test_gaussian_is_half_sum_of_four_distinct_pairs():
    """Each output is (C + C' + S'' + S''') / 2 over four different pairs.

    Weights 1/2 on four unit-variance terms give variance exactly 4 / 4 = 1 (a
    missing or doubled 1/2 would fail), and no output gets both the cosine and the
    sine of one pair (which would collapse to a single Box-Muller draw, Holohan &
    Braghin 2021, Sect. 5, footnote 2).
    """
    m = 5
    radius = np.arange(1.0, 2 * m + 1)  # pair k has radius k + 1
    log_u = -0.5 * radius**2
    # Angle 0: cos 1, sin 0, so output j is (R[2j] + R[2j+1]) / 2.
    out = _gaussian_from_uniforms(log_u, np.zeros(2 * m))
    np.testing.assert_allclose(out, 0.5 * (radius[0::2] + radius[1::2]))
    # Angle pi/2: cos 0, sin 1, so output j is (R[2j+2] + R[2j+3]) / 2 (mod 2m).
    out = _gaussian_from_uniforms(log_u, np.full(2 * m, 0.25))
    rolled = np.roll(radius, -2)
    np.testing.assert_allclose(out, 0.5 * (rolled[0::2] + rolled[1::2]), atol=1e-12)
    # Moving one pair moves exactly two different outputs.
    rng = np.random.default_rng(0)
    log_u = np.log(rng.random(2 * m))
    v = rng.random(2 * m)
    base = _gaussian_from_uniforms(log_u, v)
    for k in range(2 * m):
        v2 = v.copy()
        v2[k] = (v2[k] + 0.3) % 1.0
        changed = np.flatnonzero(~np.isclose(_gaussian_from_uniforms(log_u, v2), base))
        assert changed.size == 2


def test_single_gaussian_draw_uses_four_distinct_pairs(monkeypatch):
    """With size 1 the sine terms must still come from pairs of their own."""
    calls = []
    real = _secure._gaussian_from_uniforms

    def spy(log_u, v):
        calls.append(log_u.size)
        return real(log_u, v)

    monkeypatch.setattr(_secure, "_gaussian_from_uniforms", spy)
    assert isinstance(SecureGenerator().standard_normal(), float)
    assert calls == [4]


def test_laplace_and_exponential_formulas(monkeypatch):
    """Laplace = sum of two ln U cos(pi V); Exp = -sum of two ln U cos^2(pi V)."""
    log_u = np.array([-1.0, -2.0, -3.0, -4.0])
    v = np.array([0.0, 1 / 3, 0.5, 1.0])
    monkeypatch.setattr(_secure, "_pairs", lambda k: (log_u[:k].copy(), v[:k].copy()))
    c = np.cos(np.pi * v)
    lap = SecureGenerator().laplace(size=2)
    np.testing.assert_allclose(lap, log_u[:2] * c[:2] + log_u[2:] * c[2:])
    exp = SecureGenerator().exponential(size=2)
    np.testing.assert_allclose(exp, -(log_u[:2] * c[:2] ** 2 + log_u[2:] * c[2:] ** 2))


def test_log_uniform_resolution_and_radius_cap(monkeypatch):
    """The smallest U is 2**-128, so the Box-Muller radius is at most RADIUS_MAX."""
    monkeypatch.setattr(_secure, "_words", lambda n: np.zeros(n, dtype=np.uint64))
    np.testing.assert_allclose(_secure._log_uniform(3), 128 * math.log(0.5))
    assert RADIUS_MAX == pytest.approx(math.sqrt(256 * math.log(2)))
    monkeypatch.setattr(
        _secure, "_words", lambda n: np.full(n, 2**64 - 1, dtype=np.uint64)
    )
    assert np.all(_secure._log_uniform(3) == 0.0)  # U = 1 is reached, never above


def test_low_word_is_read_only_for_small_uniforms(monkeypatch):
    """U = hi 2**-64 + (lo + 1) 2**-128, with lo drawn only where hi < 2**53."""
    reads = []
    hi = np.array([0, 5, 2**45, 2**53, 2**63], dtype=np.uint64)
    lo = np.array([7, 2**60, 1], dtype=np.uint64)

    def words(n):
        reads.append(n)
        return hi.copy() if len(reads) == 1 else lo[:n].copy()

    monkeypatch.setattr(_secure, "_words", words)
    got = _secure._log_uniform(5)
    assert reads == [5, 3]
    expected = [
        math.log(8 * 2.0**-128),
        math.log(5 * 2.0**-64 + (2**60 + 1) * 2.0**-128),
        math.log(2.0**-19),
        math.log(2.0**-11),
        math.log(0.5),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-15)


def test_gaussian_support_delta():
    r = RADIUS_MAX
    z = 0.5
    # Four independent Box-Muller radii, each a Rayleigh variable, must all pass
    # r - 2/z: the Rayleigh tail to the fourth, per coordinate and step.
    assert gaussian_support_delta(z, 20_000, 10) == pytest.approx(
        10 * 20_000 * stats.rayleigh.sf(r - 2 / z) ** 4
    )
    assert gaussian_support_delta(0.5, 20_000) < 1e-70
    assert gaussian_support_delta(2 / r, 1) == 1.0
    with pytest.raises(ValueError, match="noise_multiplier"):
        gaussian_support_delta(0.0, 1)


@pytest.mark.parametrize(
    "method, args",
    [
        ("standard_normal", ()),
        ("normal", (1.0, 2.0)),
        ("laplace", (1.0, 2.0)),
        ("exponential", (2.0,)),
        ("gumbel", (1.0, 2.0)),
        ("random", ()),
        ("uniform", (-1.0, 1.0)),
    ],
)
@pytest.mark.parametrize("size", [None, 0, 1, 7, (3, 4), (2, 0, 3)])
def test_float_shapes_and_types_match_numpy(method, args, size):
    ours = getattr(SecureGenerator(), method)(*args, size=size)
    ref = getattr(np.random.default_rng(0), method)(*args, size=size)
    assert type(ours) is type(ref)
    assert np.shape(ours) == np.shape(ref)
    if size is not None:
        assert ours.dtype == ref.dtype


def test_array_parameters_broadcast_like_numpy(rng):
    loc = np.zeros((2, 1))
    scale = np.ones(3)
    for method in ("normal", "laplace", "gumbel"):
        ours = getattr(rng, method)(loc, scale)
        ref = getattr(np.random.default_rng(0), method)(loc, scale)
        assert ours.shape == ref.shape == (2, 3)
    assert rng.exponential(np.ones(4)).shape == (4,)
    assert rng.normal(0.0, 1.0, size=(5, 3)).shape == (5, 3)
    assert rng.normal(0.0, [0.0, 0.0]).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="size"):
        rng.normal(np.zeros(3), 1.0, size=4)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((5,), {}),
        ((-3, 3), {}),
        ((0, 2**64 - 1), {"dtype": np.uint64, "endpoint": True}),
        ((0, 10), {"dtype": np.int32}),
        ((0, 255), {"dtype": np.uint8, "endpoint": True}),
    ],
)
@pytest.mark.parametrize("size", [None, 4, (2, 3)])
def test_integers_like_numpy(args, kwargs, size):
    ours = SecureGenerator().integers(*args, size=size, **kwargs)
    ref = np.random.default_rng(0).integers(*args, size=size, **kwargs)
    assert type(ours) is type(ref)
    assert np.shape(ours) == np.shape(ref)
    assert np.asarray(ours).dtype == np.asarray(ref).dtype
    low, high = (0, args[0]) if len(args) == 1 else args
    top = high if kwargs.get("endpoint") else high - 1
    assert np.all((np.asarray(ours) >= low) & (np.asarray(ours) <= top))


def test_integers_are_uniform_and_validated(rng):
    # 3 is not a power of 2: a modulo reduction of masked words would be biased.
    counts = np.bincount(rng.integers(-1, 2, size=60_000) + 1, minlength=3)
    assert stats.chisquare(counts).pvalue > P_MIN
    wide = rng.integers(0, 2**64 - 1, size=20_000, dtype=np.uint64, endpoint=True)
    assert stats.kstest(wide.astype(float) / 2.0**64, "uniform").pvalue > P_MIN
    with pytest.raises(ValueError, match="low"):
        rng.integers(3, 3)
    with pytest.raises(ValueError, match="dtype"):
        rng.integers(0, 300, dtype=np.uint8)
    with pytest.raises(TypeError, match="dtype"):
        rng.integers(0, 3, dtype=float)


def test_permutation(rng):
    counts = Counter(tuple(rng.permutation(3)) for _ in range(6000))
    assert len(counts) == 6
    assert stats.chisquare(list(counts.values())).pvalue > P_MIN
    p = rng.permutation(1000)
    assert p.dtype == np.random.default_rng(0).permutation(1000).dtype
    assert sorted(p.tolist()) == list(range(1000))
    x = np.arange(12).reshape(6, 2)
    px = rng.permutation(x)
    assert px.shape == x.shape and sorted(px[:, 0].tolist()) == x[:, 0].tolist()
    assert np.all(px[:, 1] == px[:, 0] + 1)  # rows move whole
    assert x[0, 0] == 0  # the input is not shuffled in place
    assert rng.permutation(0).shape == (0,)
    with pytest.raises(ValueError, match="x"):
        rng.permutation(np.float64(3.0))


def test_poisson_indices_are_independent_bernoulli(rng):
    """Gaps drawn as geometrics give each row an independent Bernoulli(rate)."""
    n, rate, reps = 40, 0.3, 10_000
    masks = np.zeros((reps, n), dtype=bool)
    for r in range(reps):
        idx = rng.poisson_indices(n, rate)
        assert idx.dtype == np.int64 and np.all(np.diff(idx) > 0)
        masks[r, idx] = True
    se = math.sqrt(rate * (1 - rate) / reps)
    assert np.all(np.abs(masks.mean(axis=0) - rate) < 5.5 * se)  # every row
    # Neighbouring rows are independent: P(both) = rate**2.
    both = (masks[:, :-1] & masks[:, 1:]).mean()
    assert abs(both - rate**2) < 6 * math.sqrt(rate**2 / (reps * (n - 1)))
    # The sample size is Binomial(n, rate).
    counts = np.bincount(masks.sum(axis=1), minlength=n + 1)
    expected = stats.binom(n, rate).pmf(np.arange(n + 1)) * reps
    keep = expected > 5
    observed = np.append(counts[keep], counts[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    assert (
        stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue
        > P_MIN
    )


def test_poisson_indices_edge_cases_and_dispatch(rng):
    assert rng.poisson_indices(5, 1.0).tolist() == [0, 1, 2, 3, 4]
    assert rng.poisson_indices(5, 0.0).size == 0
    assert rng.poisson_indices(0, 0.5).size == 0
    assert rng.poisson_indices(10, 1e-300).size == 0  # huge gaps do not overflow
    big = rng.poisson_indices(1_000_000, 256 / 1_000_000)
    assert 150 < big.size < 400 and big.max() < 1_000_000
    with pytest.raises(ValueError, match="rate"):
        rng.poisson_indices(5, 1.5)
    with pytest.raises(ValueError, match="n_samples"):
        rng.poisson_indices(-1, 0.5)
    # A NumPy generator keeps its one-uniform-per-row stream.
    ref = np.flatnonzero(np.random.default_rng(3).random(100) < 0.2)
    np.testing.assert_array_equal(
        poisson_indices(np.random.default_rng(3), 100, 0.2), ref
    )
    assert poisson_indices(rng, 100, 1.0).size == 100


@pytest.mark.parametrize("method", ["normal", "laplace", "exponential", "gumbel"])
def test_negative_scale_is_rejected(rng, method):
    with pytest.raises(ValueError, match="scale"):
        getattr(rng, method)(scale=-1.0)


def test_bad_size_is_rejected(rng):
    with pytest.raises(ValueError, match="size"):
        rng.random(-1)
    with pytest.raises(TypeError, match="size"):
        rng.random(2.5)


def test_no_two_streams_are_equal():
    a, b = SecureGenerator(), SecureGenerator()
    assert not np.array_equal(a.random(8), b.random(8))
    assert not np.array_equal(a.random(8), a.random(8))
    # make_generator ignores the seed in secure mode: the same seed, new noise.
    seed = draw_seed(None)
    g1, g2 = make_generator(seed, secure_mode=True), make_generator(seed, True)
    assert isinstance(g1, SecureGenerator)
    assert not np.array_equal(g1.standard_normal(8), g2.standard_normal(8))


def test_pickled_copy_draws_new_values(rng):
    copy = pickle.loads(pickle.dumps(rng))
    assert isinstance(copy, SecureGenerator)
    assert not np.array_equal(copy.standard_normal(8), rng.standard_normal(8))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_draws_different_values(rng):
    """A fork duplicates any state, so the generator must hold none."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: send its draws, never return into pytest
        try:
            os.write(write_end, rng.standard_normal(8).tobytes())
            os.write(write_end, rng.random(8).tobytes())
        finally:
            os._exit(0)
    os.close(write_end)
    child = b""
    while len(child) < 128:
        chunk = os.read(read_end, 128 - len(child))
        if not chunk:
            break
        child += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    assert len(child) == 128
    parent = rng.standard_normal(8).tobytes() + rng.random(8).tobytes()
    assert child[:64] != parent[:64] and child[64:] != parent[64:]


def test_bits_come_from_os_urandom(monkeypatch):
    """Seeding NumPy's global state changes nothing; os.urandom is the only source."""
    np.random.seed(0)  # noqa: NPY002 (the point: global seeding has no effect)
    a = SecureGenerator().random(4)
    np.random.seed(0)  # noqa: NPY002 (the point: global seeding has no effect)
    assert not np.array_equal(a, SecureGenerator().random(4))
    monkeypatch.setattr(_secure.os, "urandom", lambda k: bytes(k))
    assert SecureGenerator().random(4).tolist() == [0.0] * 4
    assert SecureGenerator().integers(0, 10, size=3).tolist() == [0] * 3


@pytest.mark.filterwarnings("ignore::sklearn_dpgd.exceptions.PrivacyLeakWarning")
def test_secure_fit_end_to_end(monkeypatch):
    """secure_mode routes a fit's draws through os.urandom; the seed is ignored.

    A minibatch step reads O(q n) bytes (the gaps of the Poisson sample and the
    noise), not one 8-byte uniform a row, which is what keeps secure minibatch fits
    within 1.5x of the default ones (benchmarks/bench_secure.py).
    """
    from sklearn_dpgd import DPLogisticRegression

    data = np.random.default_rng(0)
    n = 4000
    X = data.normal(size=(n, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    n_bytes = [0]
    real = os.urandom

    def counting(k):
        n_bytes[0] += k
        return real(k)

    monkeypatch.setattr(_secure.os, "urandom", counting)
    fits = [
        DPLogisticRegression(
            epsilon=1.0, batch_size=64, max_iter=50, secure_mode=True, random_state=0
        ).fit(X, y)
        for _ in range(2)
    ]
    assert n_bytes[0] > 0
    assert n_bytes[0] / (2 * fits[0].n_iter_) < 8 * n / 4
    assert not np.array_equal(fits[0].coef_, fits[1].coef_)


# --- The accounted bounded support -------------------------------------------


def _hockey_stick(p, q, epsilon):
    """delta(epsilon) of two distributions on a finite set (both directions)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    return max(
        np.clip(p - math.exp(epsilon) * q, 0, None).sum(),
        np.clip(q - math.exp(epsilon) * p, 0, None).sum(),
    )


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_support_delta_is_the_tight_tv_penalty(epsilon):
    """(1 + e^eps) eta is what a TV-eta perturbation of an eps-DP pair can cost.

    Randomised response is eps-DP with delta 0; moving eta of mass towards the
    output that separates the pair (the worst a TV-eta perturbation can do) needs
    exactly (1 + e^eps) eta: a formula without the (1 + e^eps) factor, or with
    half of it, fails.
    """
    eta = 1e-3
    p_keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    ideal_d, ideal_dp = [p_keep, 1 - p_keep], [1 - p_keep, p_keep]
    assert _hockey_stick(ideal_d, ideal_dp, epsilon) == pytest.approx(0, abs=1e-15)
    run_d = [p_keep + eta, 1 - p_keep - eta]
    run_dp = [1 - p_keep - eta, p_keep + eta]
    needed = _hockey_stick(run_d, run_dp, epsilon)
    assert needed == pytest.approx((1 + math.exp(epsilon)) * eta, rel=1e-12)
    # support_delta is that penalty at eta = support_tv(n_generators).
    eta_fit = _secure.support_tv(_secure.GENERATORS_PER_FIT)
    assert eta_fit == _secure.GENERATORS_PER_FIT * 2.0**40 * 2.0**-128
    assert _secure.support_delta(epsilon) == pytest.approx(
        (1 + math.exp(epsilon)) * eta_fit, rel=1e-15
    )
    assert _secure.support_delta(math.inf) == 1.0
    assert _secure.support_delta(1.0, 0) == 0.0
    with pytest.raises(ValueError, match="epsilon"):
        _secure.support_delta(-1.0)
    with pytest.raises(ValueError, match="n_generators"):
        _secure.support_tv(-1)


def test_add_support_delta_rounds_up():
    assert _secure.add_support_delta(1e-6, 1.0) > 1e-6
    assert _secure.add_support_delta(1e-6, 1.0) == np.nextafter(1e-6, 1.0)
    # Where the term shows, it is added as is.
    tiny = 1e-30
    assert _secure.add_support_delta(tiny, 1.0) == pytest.approx(
        tiny + _secure.support_delta(1.0), rel=1e-15
    )
    assert _secure.add_support_delta(0.0, 1.0) == _secure.support_delta(1.0)


def test_generator_counts_and_caps_bounded_uniforms(monkeypatch, rng):
    rng.standard_normal(10)
    rng.laplace(size=3)
    rng.exponential(size=4)
    rng.gumbel(size=5)
    rng.random(100)  # 53-bit uniforms: exact, not counted
    rng.integers(0, 10, size=7)
    assert rng._bounded_uniforms == 2 * (10 + 3 + 4 + 5)
    rng.standard_normal()  # one value reads the pairs of two
    assert rng._bounded_uniforms == 2 * (10 + 3 + 4 + 5) + 4
    start = rng._bounded_uniforms
    rng.poisson_indices(1000, 0.1)
    assert rng._bounded_uniforms > start
    monkeypatch.setattr(_secure, "MAX_BOUNDED_UNIFORMS", rng._bounded_uniforms + 5)
    rng.laplace(size=2)  # 4 more: within the cap
    with pytest.raises(RuntimeError, match="support delta"):
        rng.standard_normal(1)


def _blobs(n=400, d=3, classes=2, seed=0):
    data = np.random.default_rng(seed)
    X = data.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int) if classes == 2 else np.arange(n) % classes
    return X, y


def _secure_estimators():
    from sklearn_dpgd import (
        DPHuberRegressor,
        DPHuberSVM,
        DPLinearRegression,
        DPLogisticRegression,
    )
    from sklearn_dpgd.baselines import (
        OutputPerturbationClassifier,
        PhasedLocalizationClassifier,
    )
    from sklearn_dpgd.schedules import AdaptiveStepSchedule, PURSchedule

    common = dict(epsilon=1.0, delta=1e-6, secure_mode=True)
    return [
        DPLogisticRegression(max_iter=20, **common),
        DPLogisticRegression(max_iter=20, batch_size=32, **common),
        DPLogisticRegression(solver="snowball", max_iter=20, **common),
        DPLogisticRegression(solver="newton", **common),
        DPLogisticRegression(schedule=AdaptiveStepSchedule(), max_iter=20, **common),
        DPLogisticRegression(schedule=PURSchedule(), max_iter=20, **common),
        DPHuberSVM(max_iter=20, **common),
        DPLinearRegression(y_bounds=(0.0, 1.0), max_iter=20, **common),
        DPHuberRegressor(y_bounds=(0.0, 1.0), max_iter=20, **common),
        OutputPerturbationClassifier(**common),
        PhasedLocalizationClassifier(**common),
    ]


@pytest.mark.filterwarnings("ignore:classes=None")
@pytest.mark.parametrize("est", _secure_estimators(), ids=lambda e: repr(e)[:40])
def test_secure_fit_uses_few_generators_and_reports_the_support(monkeypatch, est):
    """Every secure fit draws from at most GENERATORS_PER_FIT generators, whose
    support term is in its ``delta_``; without secure_mode ``delta_`` is delta."""
    made = []
    init = SecureGenerator.__init__

    def counting(self):
        made.append(self)
        init(self)

    monkeypatch.setattr(SecureGenerator, "__init__", counting)
    X, y = _blobs()
    est.fit(X, y)
    assert 1 <= len(made) <= _secure.GENERATORS_PER_FIT
    assert est.delta_ == _secure.add_support_delta(1e-6, est.epsilon_)
    assert est.delta_ > 1e-6
    plain = est.set_params(secure_mode=False).fit(X, y)
    assert plain.delta_ == 1e-6


def test_ledger_records_and_pays_the_support():
    from sklearn_dpgd import DPLogisticRegression
    from sklearn_dpgd.accounting import GaussianSteps, PrivacyLedger

    X, y = _blobs()
    with PrivacyLedger(1.0, 1e-6) as ledger:
        DPLogisticRegression(
            epsilon=1.0, delta=1e-6, max_iter=20, secure_mode=True, classes=[0, 1]
        ).fit(X, y)  # planned at the cap: still fits under it
    (entry,) = ledger.entries
    assert entry.support == _secure.support_tv(_secure.GENERATORS_PER_FIT)
    # Far below a float delta's resolution at 1e-6, the term shows at 1e-22.
    steps = (GaussianSteps(10.0),)
    plain, secure = PrivacyLedger(), PrivacyLedger()
    plain.charge(steps)
    secure.charge(steps, support=_secure.support_tv(4))
    assert secure.epsilon(1e-6) == plain.epsilon(1e-6)
    assert secure.epsilon(1e-22) > plain.epsilon(1e-22)
    # The epsilon at the reduced delta pays the term: (1 + e^eps) eta fits in
    # what was taken off delta.
    eta = secure.entries[0].support
    reduced = 1e-22 - 2 * (1 + math.exp(plain.epsilon(1e-22))) * eta
    eps = secure.epsilon(1e-22)
    assert eps == plain.epsilon(reduced)
    assert (1 + math.exp(eps)) * eta <= 1e-22 - reduced
    # No delta left for the term: no finite guarantee.
    assert secure.epsilon(1e-26) == math.inf


def test_search_and_pipeline_ledgers_carry_every_support():
    """A secure search's own ledger holds the support of every mechanism it ran
    (candidates, noisy count, selection); a secure pipeline's, each step's."""
    from sklearn_dpgd import DPLogisticRegression
    from sklearn_dpgd.model_selection import PrivateGridSearchCV
    from sklearn_dpgd.pipeline import make_private_pipeline
    from sklearn_dpgd.preprocessing import DPStandardScaler

    X, y = _blobs(n=600)
    search = PrivateGridSearchCV(
        DPLogisticRegression(max_iter=10, classes=[0, 1]),
        {"alpha": [1e-4, 1e-2]},
        epsilon=1.0,
        delta=1e-6,
        secure_mode=True,
    ).fit(X, y)
    supports = [e.support for e in search.ledger_.entries]
    assert all(s > 0 for s in supports)
    assert sum(s == _secure.support_tv(1) for s in supports) >= 1  # selection
    pipe = make_private_pipeline(
        DPStandardScaler(bounds=(-1.0, 1.0)),
        DPLogisticRegression(max_iter=10, classes=[0, 1]),
        epsilon=1.0,
        delta=1e-6,
        secure_mode=True,
    ).fit(X, y)
    assert len(pipe.ledger_.entries) == 2
    assert all(
        e.support == _secure.support_tv(_secure.GENERATORS_PER_FIT)
        for e in pipe.ledger_.entries
    )
