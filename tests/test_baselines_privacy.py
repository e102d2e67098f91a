"""Privacy of the baselines on worst-case neighbouring pairs.

Each profile test computes the exact privacy profile ``delta(epsilon)`` of the
actual output distributions of a fit on ``D`` and on a neighbour ``D'`` and
compares it with the fit's claim; each also shows that the old factor (the divisor
``n``, or the sensitivity ``L eta`` of a phase) would break the claim.
"""

import math
import os
import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from sklearn_dpgd import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
    PrivacyLeakWarning,
)
from sklearn_dpgd._solvers import outpert
from sklearn_dpgd.accounting import PrivacyLedger, ledger_epsilon
from sklearn_dpgd.exceptions import BudgetExhaustedError, UnrecordedFitError

BASELINES = [OutputPerturbationClassifier, PhasedLocalizationClassifier]


def _gaussian_pair_delta(distance, sigma, epsilon):
    """Exact ``delta(epsilon)`` of ``N(0, sigma^2 I)`` against ``N(v, sigma^2 I)``.

    Written out here (not the package's ``gdp_delta``): with ``mu = ||v|| / sigma``,
    ``Phi(-epsilon / mu + mu / 2) - e^epsilon Phi(-epsilon / mu - mu / 2)``
    (Balle & Wang, ICML 2018, Thm 8).
    """
    mu = distance / sigma
    return norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(
        -epsilon / mu - mu / 2
    )


def _fit_quietly(estimator, X, y):
    with warnings.catch_warnings():
        # A fixed seed on purpose: D and D' then share the noise, which cancels in
        # the difference of the releases (exactly the leak the warning is about).
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return estimator.fit(X, y)


def _released(clf):
    return np.concatenate([clf.coef_.ravel(), clf.intercept_.ravel()])


# ------------------------------------------------------------ output perturbation


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_output_perturbation_exact_profile_on_a_worst_case_pair(neighboring):
    # D: m copies of the row x = 1 with label 1. D': D plus the same row with the
    # other label (add/remove), or D with one label flipped (replace). Hinge with
    # alpha = 8 keeps every margin in the linear part of the loss, where the added
    # (or flipped) row pulls with the full gradient L: the minimiser moves by
    # exactly f L / (m alpha), the bound.
    m, alpha, tol, epsilon, delta = 50, 8.0, 1e-10, 1.0, 1e-5
    X = np.ones((m, 1))
    y = np.ones(m, dtype=int)
    if neighboring == "add_remove":
        X2, y2 = np.ones((m + 1, 1)), np.append(y, 0)
    else:
        X2, y2 = X, np.append(y[:-1], 0)
    params = dict(
        epsilon=epsilon,
        delta=delta,
        loss="huber_hinge",
        alpha=alpha,
        tol=tol,
        neighboring=neighboring,
        public_n_samples=m,
        classes=[0, 1],
        random_state=7,
    )
    a = _fit_quietly(OutputPerturbationClassifier(**params), X, y)
    b = _fit_quietly(OutputPerturbationClassifier(**params), X2, y2)
    assert a.noise_scale_ == b.noise_scale_ and a.sensitivity_ == b.sensitivity_
    # Same seed, same sigma: the noise cancels and the difference of the releases
    # is the difference of the points the solver found on D and on D'.
    distance = float(np.linalg.norm(_released(a) - _released(b)))
    f = 1.0 if neighboring == "add_remove" else 2.0
    L = math.sqrt(2.0)  # unit row plus the intercept coordinate, binary hinge
    exact = f * L / (m * alpha)
    assert distance == pytest.approx(exact, abs=2 * tol / alpha + 1e-12)  # tight
    assert distance <= a.sensitivity_
    # Both releases are N(centre, sigma^2 I): the pair's exact privacy profile.
    assert _gaussian_pair_delta(distance, a.noise_scale_, a.epsilon_) <= a.delta_
    assert a.epsilon_ <= epsilon

    if neighboring == "add_remove":
        # The old divisor n: D' reweights the m rows of D by m / (m + 1); the
        # minimiser moves twice as far (2 L / ((m + 1) alpha)) as the old
        # sensitivity L / (m alpha) + 2 tol / alpha covered.
        old = []
        for Xs, ys in ((X, y), (X2, y2)):
            fun = outpert._regularised_objective(
                Xs, ys, "huber_hinge", 1, alpha, True, len(ys)
            )
            # Hinge curvature 1 times ||[x, 1]||^2 = 2, plus alpha.
            old.append(outpert._solve_to_tolerance(fun, 2, tol, 2.0 + alpha, alpha))
        old_distance = float(np.linalg.norm(old[0] - old[1]))
        assert old_distance == pytest.approx(2 * L / ((m + 1) * alpha), rel=1e-6)
        old_sensitivity = L / (m * alpha) + 2 * tol / alpha
        old_sigma = old_sensitivity / (a.sensitivity_ / a.noise_scale_)
        assert old_distance > 1.9 * old_sensitivity
        assert _gaussian_pair_delta(old_distance, old_sigma, a.epsilon_) > 100 * delta


# ------------------------------------------------------------ phased localization


def _mixture_pair_delta(a, sigma, epsilon):
    """Exact ``delta(epsilon)`` of ``P = N(a, s^2)`` against the mixture
    ``Q = 2/3 N(a, s^2) + 1/3 N(-a, s^2)`` (both directions, the larger).

    ``q / p = 2/3 + exp(-2 a x / s^2) / 3`` is monotone in ``x``, so each
    hockey-stick divergence is a Gaussian tail difference at one threshold.
    """
    s2 = sigma * sigma
    e = math.exp(epsilon)
    # Q against P: {q > e p} = {x < t}.
    t = -s2 * math.log(3 * e - 2) / (2 * a)
    q_over_p = (
        2 / 3 * norm.cdf((t - a) / sigma)
        + 1 / 3 * norm.cdf((t + a) / sigma)
        - e * norm.cdf((t - a) / sigma)
    )
    # P against Q: {p > e q} = {x > t'}, empty when e^-epsilon <= 2/3.
    p_over_q = 0.0
    if 1 / e > 2 / 3:
        t2 = -s2 * math.log(3 / e - 2) / (2 * a)
        p_over_q = norm.sf((t2 - a) / sigma) - e * (
            2 / 3 * norm.sf((t2 - a) / sigma) + 1 / 3 * norm.sf((t2 + a) / sigma)
        )
    return max(q_over_p, p_over_q, 0.0)


def _mixture_epsilon(a, sigma, delta):
    return brentq(lambda e: _mixture_pair_delta(a, sigma, e) - delta, 1e-9, 50.0)


def test_localization_exact_profile_on_a_worst_case_pair():
    # m = 2 public rows: one phase of one slot. D: two copies of the row x = 1,
    # label 1; D': D plus the same row with label 0. The slot holds a uniformly
    # random row, so the first (only) phase releases N(c, s^2 I) on D and
    # 2/3 N(c, s^2 I) + 1/3 N(-c, s^2 I) on D', with c = eta x~ the one hinge
    # step from 0 (margin 0: full gradient), ||2c|| = 2 L eta.
    eta, epsilon, delta = 0.1, 1.0, 1e-5
    X2, y2 = np.ones((3, 1)), np.array([1, 1, 0])
    params = dict(
        epsilon=epsilon,
        delta=delta,
        loss="huber_hinge",
        learning_rate=eta,
        public_n_samples=2,
        classes=[0, 1],
    )
    clf = PhasedLocalizationClassifier(**params).fit(X2[:2], y2[:2])
    assert clf.phase_sizes_.tolist() == [1]
    L = math.sqrt(2.0)
    sigma = float(clf.noise_scales_[0])

    # The centres and weights of the mixture are the code's: with almost no noise
    # the releases on D' sit at +c or -c, -c (the added row) a third of the time.
    sharp = PhasedLocalizationClassifier(**{**params, "epsilon": 1e6})
    centres = np.array([_released(sharp.fit(X2, y2)) for _ in range(300)])
    c = eta * np.ones(2)
    assert np.all(
        np.minimum(
            np.linalg.norm(centres - c, axis=1), np.linalg.norm(centres + c, axis=1)
        )
        < 1e-3
    )
    share = np.mean(np.linalg.norm(centres + c, axis=1) < 1e-3)
    assert abs(share - 1 / 3) < 0.1  # 300 draws: 3.7 standard errors

    # The pair differs only along c; the exact profile of the 1-D projection.
    a = L * eta  # half the distance between the centres
    assert _mixture_pair_delta(a, sigma, clf.epsilon_) <= clf.delta_
    true_epsilon = _mixture_epsilon(a, sigma, delta)
    assert true_epsilon <= clf.epsilon_
    # The old sensitivity L eta (half of 2 L eta) halves the noise: the same pair
    # then spends more than the claimed epsilon.
    old_epsilon = _mixture_epsilon(a, sigma / 2, delta)
    assert old_epsilon > 1.14 * epsilon  # 1.148 at delta = 1e-5
    assert _mixture_pair_delta(a, sigma / 2, clf.epsilon_) > 3 * delta


def test_localization_with_empty_slots():
    # Fewer rows than slots (m declared larger than n): some slots stay empty, the
    # averages still divide by the planned sizes and the guarantee is unchanged.
    X, y = np.array([[1.0], [-1.0], [0.5]]), np.array([1, 0, 1])
    clf = PhasedLocalizationClassifier(public_n_samples=64, classes=[0, 1]).fit(X, y)
    assert clf.phase_sizes_.tolist() == [32, 16, 8, 4, 2, 1]
    assert np.all(np.isfinite(clf.coef_))
    assert clf.epsilon_ <= 1.0


# ------------------------------------------------------------ ledger


@pytest.mark.parametrize("estimator", BASELINES)
def test_baselines_charge_the_active_ledger(estimator):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 2
    y = (X[:, 0] > 0).astype(int)
    params = dict(epsilon=0.4, delta=1e-6, public_n_samples=200, classes=[0, 1])
    ledger = PrivacyLedger(epsilon=0.5, delta=1e-6)
    with ledger:
        first = estimator(**params).fit(X, y)
        second = estimator(**params)
        # Two 0.4 fits compose to 0.57 > 0.5 (GDP): refused before any data is read.
        with pytest.raises(BudgetExhaustedError):
            second.fit(X, y)
    assert not hasattr(second, "coef_")
    assert len(ledger.entries) == 1
    assert ledger.entries[0].mechanism == first.ledger_
    assert ledger.epsilon(1e-6) == pytest.approx(first.epsilon_, rel=1e-9)


@pytest.mark.parametrize("estimator", BASELINES)
def test_baselines_ledger_records_the_count(estimator):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) / 2
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyLedger()
    with ledger:
        clf = estimator(epsilon=0.5, delta=1e-6, classes=[0, 1]).fit(X, y)
    # The count (1% of mu^2) and the training: one GaussianSteps each.
    assert len(clf.ledger_) == 2
    mu = clf.mu_
    assert clf.ledger_[0].noise_multiplier == pytest.approx(1 / (0.1 * mu), rel=1e-9)
    assert ledger_epsilon(clf.ledger_, clf.delta_) == pytest.approx(
        clf.epsilon_, rel=1e-9
    )
    assert clf.epsilon_ == pytest.approx(0.5, rel=1e-6) and clf.epsilon_ <= 0.5
    assert ledger.entries[0].mechanism == clf.ledger_


@pytest.mark.parametrize("estimator", BASELINES)
def test_baselines_refuse_an_unrecorded_fit_in_another_process(estimator):
    X, y = np.array([[1.0], [-1.0], [0.5]]), np.array([1, 0, 1])
    with PrivacyLedger():
        state = pickle.dumps(estimator(public_n_samples=3, classes=[0, 1]))
    clone = pickle.loads(state)
    # Pretend it was unpickled in a worker process, where no ledger is open.
    clone.__dict__["_sklearn_dpgd_ledger_pid"] = os.getpid() + 1
    with pytest.raises(UnrecordedFitError):
        clone.fit(X, y)


# ------------------------------------------------------------ public size, seeds


def _public_attributes(clf):
    return {
        k: v
        for k, v in vars(clf).items()
        if k.endswith("_") and k not in ("coef_", "intercept_")
    }


@pytest.mark.parametrize("estimator", BASELINES)
def test_fitted_attributes_do_not_depend_on_n(estimator):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(101, 4)) / 3
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    a = estimator(public_n_samples=120, classes=[0, 1]).fit(X[:100], y[:100])
    b = estimator(public_n_samples=120, classes=[0, 1]).fit(X, y)
    attrs_a, attrs_b = _public_attributes(a), _public_attributes(b)
    assert attrs_a.keys() == attrs_b.keys()
    assert "public_n_samples_" in attrs_a and "ledger_" in attrs_a
    for key, value in attrs_a.items():
        np.testing.assert_array_equal(value, attrs_b[key], err_msg=key)


@pytest.mark.parametrize("estimator", BASELINES)
def test_seeds(estimator):
    X, y = np.array([[1.0], [-1.0], [0.5], [-0.2]]), np.array([1, 0, 1, 0])
    params = dict(public_n_samples=4, classes=[0, 1])
    with pytest.warns(PrivacyLeakWarning, match="random_state=3"):
        estimator(random_state=3, **params).fit(X, y)
    # None: fresh OS entropy per fit, never NumPy's global state.
    np.random.seed(0)  # noqa: NPY002 (the global state must not matter)
    first = _released(estimator(**params).fit(X, y))
    np.random.seed(0)  # noqa: NPY002
    second = _released(estimator(**params).fit(X, y))
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("estimator", BASELINES)
def test_secure_mode(estimator):
    X, y = np.array([[1.0], [-1.0], [0.5], [-0.2]]), np.array([1, 0, 1, 0])
    params = dict(classes=[0, 1], secure_mode=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        first = _released(estimator(**params).fit(X, y))
        second = _released(estimator(**params).fit(X, y))
    assert not np.array_equal(first, second)  # random_state is ignored


@pytest.mark.parametrize("estimator", BASELINES)
def test_label_errors_do_not_echo_private_labels(estimator):
    X, y = np.array([[1.0], [-1.0], [0.5]]), np.array([1, 0, 987654])
    with pytest.raises(ValueError, match="labels that are not in classes") as error:
        estimator(classes=[0, 1], public_n_samples=3).fit(X, y)
    assert "987654" not in str(error.value)
