"""Privacy of ``solver="snowball"`` on a worst-case pair of neighbouring datasets.

The pair: ``D`` = ``m`` copies of the row ``x = 1`` with label 1, and ``D'`` = ``D``
plus the same row with label 0 (add/remove neighbours), public size ``m`` declared,
``DPHuberSVM`` with one feature and the intercept (``p = 2``). With ``m = B_1`` the
plan has one step (``T = 1``). At ``theta = 0`` the margins are in the linear part
of the hinge, so every row's gradient is ``-/+ L e`` (``e = [1, 1] / sqrt(2)``, the
scaled row, ``L = clip_norm``) whatever the noise, and the released
``theta_1 = -(eta / B) (S + xi)`` is an affine image of the batch sum ``S`` plus
Gaussian noise ``xi`` of std ``s`` per coordinate (the radius is huge, so the
projection does not bind). In ``D`` the batch holds all ``m`` rows; in ``D'`` the
flipped row is in the batch with probability ``w = m / (m + 1)``, and then displaces
a row of ``D``: ``S`` moves by ``2 L`` along ``e``. Along ``e`` the outputs are
``N(0, 1)`` against ``(1 - w) N(0, 1) + w N(-2 L / s, 1)`` (in units of ``s``), and
identical across ``e``: the exact privacy profile of the pair is that of these
two 1-D laws.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.optimize import brentq

from sklearn_dpgd import DPHuberSVM, PrivacyLeakWarning
from sklearn_dpgd._public_size import COUNT_SHARE
from sklearn_dpgd._solvers.snowball import snowball_batch_sizes, snowball_rho
from sklearn_dpgd.accounting import SnowballSteps, ledger_epsilon

DELTA = 1e-5
CLIP = 1.0


def _pair_estimator(epsilon, m, random_state=None):
    return DPHuberSVM(
        solver="snowball",
        epsilon=epsilon,
        delta=DELTA,
        clip_norm=CLIP,
        radius=1e6,
        classes=[0, 1],
        public_n_samples=m,
        random_state=random_state,
    )


def _pair(m):
    X = np.ones((m, 1))
    y = np.ones(m, dtype=int)
    return (X, y), (np.vstack([X, [[1.0]]]), np.append(y, 0))


def _one_step_size(epsilon):
    # B_1 of a one-step plan for p = 2 (Thm 3.5 with the sensitivity 2 L).
    return math.ceil(2 * math.sqrt(2) / snowball_rho(epsilon, DELTA))


def _hockey_stick(p, q, log_ratio, eps, shift):
    """``int max(0, q - e^eps p)``; ``log(q / p)`` is monotone: one breakpoint."""
    lo, hi = -15.0 - abs(shift), 15.0 + abs(shift)
    excess = lambda x: log_ratio(x) - eps  # noqa: E731
    points = [brentq(excess, lo, hi, xtol=1e-13)] if excess(lo) * excess(hi) < 0 else []
    value, _ = integrate.quad(
        lambda x: max(0.0, q(x) - math.exp(eps) * p(x)),
        lo,
        hi,
        points=points,
        limit=400,
        epsabs=1e-15,
        epsrel=1e-10,
    )
    return value


def _pair_delta(eps, shift, w):
    """Exact ``delta(eps)`` of ``N(0, 1)`` vs ``(1 - w) N(0, 1) + w N(shift, 1)``,
    both orders of the pair."""

    def p(x):
        return stats.norm.pdf(x)

    def q(x):
        return (1 - w) * stats.norm.pdf(x) + w * stats.norm.pdf(x - shift)

    def log_q_over_p(x):
        return np.logaddexp(math.log1p(-w), math.log(w) + shift * x - shift**2 / 2)

    return max(
        _hockey_stick(p, q, log_q_over_p, eps, shift),
        _hockey_stick(q, p, lambda x: -log_q_over_p(x), eps, shift),
    )


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_snowball_exact_profile_of_a_worst_case_add_remove_pair(epsilon):
    m = _one_step_size(epsilon)
    D, _ = _pair(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf = _pair_estimator(epsilon, m, random_state=0).fit(*D)
    (record,) = clf.ledger_
    assert isinstance(record, SnowballSteps)
    assert record.batch_sizes == (m,) and clf.n_iter_ == 1
    B = m
    # Noise on the batch sum: L / sqrt(p) per coordinate of the mean (Thm 3.5),
    # i.e. z * 2 L on the sum; the Monte-Carlo test below checks it on the fits.
    s = clf.noise_multipliers_[0] * 2 * CLIP
    assert s == pytest.approx(B * CLIP / math.sqrt(2), rel=1e-12)
    w = m / (m + 1)  # probability that the added row is in the (only) batch
    exact = _pair_delta(clf.epsilon_, -2 * CLIP / s, w)
    assert clf.epsilon_ <= epsilon
    assert exact <= DELTA
    # With the add/remove factor 1 of the previous release (noise on the sum
    # z * L for the same z, i.e. halved) the same pair breaks the claim.
    assert _pair_delta(clf.epsilon_, -2 * CLIP / (s / 2), w) > 10 * DELTA


def _projected_outputs(m, D, n_fits, epsilon, first_seed):
    along, across = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for i in range(n_fits):
            clf = _pair_estimator(epsilon, m, random_state=first_seed + i).fit(*D)
            theta = np.array([clf.coef_[0, 0], clf.intercept_[0]])
            scale = m / clf.learning_rates_[0]  # B / eta
            along.append(scale * theta.sum() / math.sqrt(2))
            across.append(scale * (theta[0] - theta[1]) / math.sqrt(2))
    s = clf.noise_multipliers_[0] * 2 * CLIP
    return (np.asarray(along) - m * CLIP) / s, np.asarray(across) / s, s


def test_snowball_fits_follow_the_laws_of_the_exact_profile():
    # The laws used above, checked on the real estimator: D gives N(0, 1) along e;
    # D' gives the mixture with weight m / (m + 1) on a shift of -2 L / s. A large
    # epsilon makes the shift (1.4 s) visible with few fits.
    epsilon, n_fits = 8.0, 250
    m = _one_step_size(epsilon)
    D, D_prime = _pair(m)
    along, across, s = _projected_outputs(m, D, n_fits, epsilon, 0)
    along2, across2, _ = _projected_outputs(m, D_prime, n_fits, epsilon, 10_000)
    shift, w = -2 * CLIP / s, m / (m + 1)

    def mixture_cdf(x):
        return (1 - w) * stats.norm.cdf(x) + w * stats.norm.cdf(x - shift)

    assert stats.kstest(along, "norm").pvalue > 1e-3
    assert stats.kstest(across, "norm").pvalue > 1e-3
    assert stats.kstest(across2, "norm").pvalue > 1e-3
    assert stats.kstest(along2, mixture_cdf).pvalue > 1e-3
    # The displacement is real: without it (or with half of it) D' is rejected.
    assert stats.kstest(along2, "norm").pvalue < 1e-3

    def half_shift_cdf(x):
        return (1 - w) * stats.norm.cdf(x) + w * stats.norm.cdf(x - shift / 2)

    assert stats.kstest(along2, half_shift_cdf).pvalue < 1e-3


def test_snowball_exact_profile_matches_the_issue_reproduction():
    # The previous release's plan for the audited pair (DPHuberSVM, epsilon=1,
    # delta=1e-5, D = 8 identical rows, D' = D plus the row with the other label):
    # one step of B = 6 rows, noise z L on the sum with z = B / sqrt(2): it
    # reported epsilon_ = 0.950, yet its exact epsilon at delta=1e-5 is 1.49.
    B, n = 6, 8
    z = B / math.sqrt(2)
    claimed = SnowballSteps((B,), (z,), (2.0,))
    assert ledger_epsilon((claimed,), DELTA) == pytest.approx(0.950, abs=5e-4)
    w = B / (n + 1)
    exact = brentq(lambda e: _pair_delta(e, -2 / z, w) - DELTA, 0.5, 3.0, xtol=1e-6)
    assert exact == pytest.approx(1.49, abs=0.01)


def _public_attributes(clf):
    return {
        k: v
        for k, v in vars(clf).items()
        if k.endswith("_")
        and not k.startswith("_")
        and k not in ("coef_", "intercept_")
    }


@pytest.mark.parametrize("n", [400, 1500])  # below and above the plan's M <= 1000
def test_snowball_attributes_do_not_depend_on_n_when_the_size_is_declared(n):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n + 1, 4))
    y = (X[:, 0] > 0).astype(int)
    fits = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for rows in (n, n + 1):
            clf = DPHuberSVM(
                solver="snowball",
                epsilon=2.0,
                delta=DELTA,
                clip_norm=1.0,
                classes=[0, 1],
                public_n_samples=1000,
                random_state=3,
            )
            fits.append(_public_attributes(clf.fit(X[:rows], y[:rows])))
    a, b = fits
    assert a.keys() == b.keys() and "public_n_samples_" in a
    assert a["public_n_samples_"] == 1000 and a["n_iter_"] > 1
    for key in a:
        assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key


def test_snowball_attributes_differ_only_through_the_charged_count():
    # Without a declared size, the plan is a function of the noisy count alone: for
    # the same seed, n and n + 1 rows give counts one apart, and the attributes are
    # those of a fit whose public size is that count.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(801, 4))
    y = (X[:, 0] > 0).astype(int)
    kw = dict(solver="snowball", epsilon=2.0, delta=DELTA, clip_norm=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = DPHuberSVM(random_state=5, **kw).fit(X[:800], y[:800])
        b = DPHuberSVM(random_state=5, **kw).fit(X, y)
    assert b.public_n_samples_ == a.public_n_samples_ + 1
    assert a.ledger_[0] == b.ledger_[0]  # the count: GaussianSteps, same noise
    rho_train = snowball_rho(2.0, DELTA) * math.sqrt(1 - COUNT_SHARE) * (1 - 1e-9)
    for clf in (a, b):
        expected = snowball_batch_sizes(clf.public_n_samples_, 5, rho_train)
        assert clf.ledger_[1].batch_sizes == tuple(expected)
