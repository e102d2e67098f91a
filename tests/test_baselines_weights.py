"""Sample weights of the baselines: bounded by the public max_sample_weight.

The sensitivities scale by ``w_max`` (tests on worst-case neighbouring pairs that
fail without the factor), the inner solvers minimise the weighted objective
(against scikit-learn and against duplicated rows), unit weights give the same
floats as no weights, and weights outside ``[0, max_sample_weight]`` are refused
before anything is charged.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
    PrivacyLeakWarning,
)
from sklearn_dpgd._solvers import localization, outpert
from sklearn_dpgd.accounting import PrivacyLedger

from .test_baselines_privacy import (
    _gaussian_pair_delta,
    _mixture_epsilon,
    _mixture_pair_delta,
)

BASELINES = [OutputPerturbationClassifier, PhasedLocalizationClassifier]


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=600, d=5, seed=0, n_classes=2):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=3,
        n_redundant=0,
        random_state=seed,
        n_classes=n_classes,
    )
    return Normalizer().fit_transform(X), y


def _released(clf):
    return np.concatenate([clf.coef_.ravel(), clf.intercept_.ravel()])


@pytest.mark.parametrize("cls", BASELINES)
@pytest.mark.parametrize(
    "sparse, n_classes, params",
    [
        (False, 2, {}),
        (True, 3, {"neighboring": "replace"}),
        (False, 2, {"public_n_samples": 500, "loss": "huber_hinge"}),
    ],
)
def test_unit_weights_are_bit_identical_to_no_weights(cls, sparse, n_classes, params):
    X, y = _data(n_classes=n_classes)
    if sparse:
        X = sp.csr_matrix(X)
    kw = dict(random_state=3, classes=list(range(n_classes)), **params)
    plain = cls(**kw).fit(X, y)
    unit = cls(**kw).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(unit.coef_, plain.coef_)
    np.testing.assert_array_equal(unit.intercept_, plain.intercept_)
    assert unit.ledger_ == plain.ledger_ and unit.epsilon_ == plain.epsilon_


@pytest.mark.parametrize("cls", BASELINES)
def test_max_sample_weight_is_unused_without_weights(cls):
    X, y = _data()
    kw = dict(random_state=3, classes=[0, 1])
    plain = cls(**kw).fit(X, y)
    bounded = cls(max_sample_weight=5.0, **kw).fit(X, y)
    np.testing.assert_array_equal(bounded.coef_, plain.coef_)


@pytest.mark.parametrize("cls", BASELINES)
@pytest.mark.parametrize(
    "weights, bound",
    [([2.0], 1.0), ([-0.1], 1.0), ([np.nan], 2.0), ([np.inf], 2.0), ([3.5], 3.0)],
)
def test_weights_outside_the_bound_are_refused_naming_it(cls, weights, bound):
    X, y = _data(n=50)
    sample_weight = np.ones(len(y))
    sample_weight[7] = weights[0]
    ledger = PrivacyLedger()
    clf = cls(classes=[0, 1], max_sample_weight=bound)
    with ledger, pytest.raises(ValueError, match=f"max_sample_weight={bound:g}\\]"):
        clf.fit(X, y, sample_weight=sample_weight)
    assert len(ledger.entries) == 0  # refused before anything was charged or read


@pytest.mark.parametrize("cls", BASELINES)
@pytest.mark.parametrize("bound", [0.0, -1.0, np.inf, np.nan])
def test_max_sample_weight_must_be_positive_and_finite(cls, bound):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="max_sample_weight"):
        cls(classes=[0, 1], max_sample_weight=bound).fit(X, y)


# ------------------------------------------------------------ output perturbation


@pytest.mark.parametrize("n_classes", [2, 3])
def test_weighted_minimiser_is_scikit_learns(n_classes):
    # (1/m) sum_i w_i l_i + alpha/2 ||theta||^2 is scikit-learn's objective
    # C sum_i w_i l_i + 1/2 ||coef||^2 times 1 / (C m) with C = 1 / (m alpha).
    X, y = _data(n=300, n_classes=n_classes)
    w = np.random.default_rng(1).uniform(0.0, 2.0, size=len(y))
    m, alpha, tol = 400, 0.01, 1e-10
    K = 1 if n_classes == 2 else n_classes
    fun = outpert._regularised_objective(X, y, "logistic", K, alpha, False, m, w)
    theta = outpert._solve_to_tolerance(fun, K * X.shape[1], tol, 10.0, alpha)
    ref = LogisticRegression(C=1.0 / (m * alpha), fit_intercept=False, tol=1e-12)
    ref.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(theta, ref.coef_.ravel(), atol=1e-6)


def test_weight_two_equals_a_duplicated_row_in_the_minimiser():
    X, y = _data(n=200)
    twice = np.zeros(len(y), dtype=bool)
    twice[::3] = True
    w = np.where(twice, 2.0, 1.0)
    Xd, yd = np.vstack([X, X[twice]]), np.append(y, y[twice])
    m, alpha, tol = 300, 0.05, 1e-11
    thetas = []
    for args in ((X, y, w), (Xd, yd, None)):
        fun = outpert._regularised_objective(
            args[0], args[1], "logistic", 1, alpha, True, m, args[2]
        )
        thetas.append(outpert._solve_to_tolerance(fun, 6, tol, 10.0, alpha))
    np.testing.assert_allclose(thetas[0], thetas[1], atol=1e-9)


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_output_perturbation_sensitivity_scales_with_the_bound(neighboring):
    X, y = _data()
    kw = dict(alpha=0.1, tol=1e-9, public_n_samples=500, neighboring=neighboring)
    w_max = 2.5
    clf = OutputPerturbationClassifier(max_sample_weight=w_max, **kw).fit(
        X, y, sample_weight=np.full(len(y), 1.0)
    )
    f = {"add_remove": 1.0, "replace": 2.0}[neighboring]
    L = math.sqrt(2.0)
    assert clf.sensitivity_ == pytest.approx(
        f * w_max * L / (500 * 0.1) + 2e-9 / 0.1, rel=1e-12
    )
    plain = OutputPerturbationClassifier(**kw).fit(X, y)
    # Same budget (same ledger), noise std grown with the sensitivity.
    assert clf.ledger_ == plain.ledger_
    assert clf.noise_scale_ / plain.noise_scale_ == pytest.approx(
        clf.sensitivity_ / plain.sensitivity_, rel=1e-9
    )


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_output_perturbation_weighted_worst_case_pair(neighboring):
    # The pair of test_baselines_privacy with the differing row at weight w_max
    # (the others at 1): hinge, alpha = 8, every margin in the linear part, so the
    # row pulls with its full weighted gradient w_max L and the minimiser moves
    # by exactly f w_max L / (m alpha). Calibrated to L alone, the noise would be
    # w_max times too small for this pair.
    m, alpha, tol, epsilon, delta, w_max = 50, 8.0, 1e-10, 1.0, 1e-5, 3.0
    X, y, w = np.ones((m, 1)), np.ones(m, dtype=int), np.ones(m)
    if neighboring == "add_remove":
        X2, y2, w2 = np.ones((m + 1, 1)), np.append(y, 0), np.append(w, w_max)
    else:
        w[-1] = w_max
        X2, y2, w2 = X, np.append(y[:-1], 0), w
    params = dict(
        epsilon=epsilon,
        delta=delta,
        loss="huber_hinge",
        alpha=alpha,
        tol=tol,
        neighboring=neighboring,
        public_n_samples=m,
        classes=[0, 1],
        max_sample_weight=w_max,
        random_state=7,
    )
    a = OutputPerturbationClassifier(**params).fit(X, y, sample_weight=w)
    b = OutputPerturbationClassifier(**params).fit(X2, y2, sample_weight=w2)
    assert a.noise_scale_ == b.noise_scale_
    distance = float(np.linalg.norm(_released(a) - _released(b)))
    f = 1.0 if neighboring == "add_remove" else 2.0
    L = math.sqrt(2.0)
    assert distance == pytest.approx(
        f * w_max * L / (m * alpha), abs=2 * tol / alpha + 1e-12
    )
    assert distance <= a.sensitivity_
    assert _gaussian_pair_delta(distance, a.noise_scale_, a.epsilon_) <= a.delta_
    # Without the factor w_max (the unweighted sensitivity at the same mu):
    unscaled = f * L / (m * alpha) + 2 * tol / alpha
    sigma = unscaled / (a.sensitivity_ / a.noise_scale_)
    assert distance > 2.5 * unscaled
    assert _gaussian_pair_delta(distance, sigma, a.epsilon_) > 100 * delta


@pytest.mark.parametrize("n_classes", [2, 3])
def test_auto_alpha_scales_with_the_bound(n_classes):
    # alpha="auto" uses w_max L: weights and bound scaled together give the same
    # penalty per unit weight, the same minimiser and the same noise, up to the
    # tolerance term 2 tol / alpha of the sensitivity (4 times smaller at the
    # larger alpha: the noise std differs by ~1e-5 relative).
    X, y = _data(n_classes=n_classes)
    kw = dict(random_state=5, classes=list(range(n_classes)), public_n_samples=500)
    w = np.random.default_rng(2).uniform(0.0, 1.0, size=len(y))
    one = OutputPerturbationClassifier(**kw).fit(X, y, sample_weight=w)
    four = OutputPerturbationClassifier(max_sample_weight=4.0, **kw).fit(
        X, y, sample_weight=4.0 * w
    )
    assert four.alpha_ == pytest.approx(4.0 * one.alpha_, rel=1e-12)
    np.testing.assert_allclose(_released(four), _released(one), rtol=1e-4)


# ------------------------------------------------------------ phased localization


def test_weighted_sgd_step_is_the_step_on_the_weighted_loss():
    X, y = _data(n=40)
    rows = np.array([3, -1, 5, 7, 0, 11])
    w = np.random.default_rng(0).uniform(0.0, 2.0, size=len(y))
    theta0 = np.zeros((1, X.shape[1] + 1))
    weighted = localization._one_pass_sgd(X, y, rows, "logistic", theta0, 0.3, True, w)
    # One step at a time (a one-row pass returns its one iterate): row i's step
    # is the unweighted step at eta w_i.
    theta, average = theta0.copy(), np.zeros_like(theta0)
    for t, i in enumerate(rows):
        if i >= 0:
            theta = localization._one_pass_sgd(
                X, y, np.array([i]), "logistic", theta, 0.3 * w[i], True
            )
        average += (theta - average) / (t + 1)
    np.testing.assert_allclose(weighted, average, rtol=1e-12, atol=1e-15)


def test_localization_sensitivities_and_step_cap_scale_with_the_bound():
    X, y = _data()
    w_max = 2.0
    kw = dict(learning_rate=0.1, public_n_samples=512, random_state=0)
    clf = PhasedLocalizationClassifier(max_sample_weight=w_max, **kw).fit(
        X, y, sample_weight=np.full(len(y), 0.5)
    )
    L = math.sqrt(2.0)
    np.testing.assert_allclose(
        clf.sensitivities_, 2 * w_max * L * clf.learning_rates_, rtol=1e-12
    )
    plain = PhasedLocalizationClassifier(**kw).fit(X, y)
    assert clf.ledger_ == plain.ledger_
    # beta = 1/4 (1 + 1) = 1/2: steps up to 4 unweighted, 2 at w_max = 2.
    PhasedLocalizationClassifier(learning_rate=3.0, public_n_samples=512).fit(X, y)
    with pytest.raises(ValueError, match="max_sample_weight beta"):
        PhasedLocalizationClassifier(
            learning_rate=3.0, public_n_samples=512, max_sample_weight=w_max
        ).fit(X, y, sample_weight=np.ones(len(y)))


def test_localization_auto_step_scales_with_the_bound():
    X, y = _data()
    kw = dict(random_state=5, classes=[0, 1], public_n_samples=512)
    w = np.random.default_rng(2).uniform(0.0, 1.0, size=len(y))
    one = PhasedLocalizationClassifier(**kw).fit(X, y, sample_weight=w)
    four = PhasedLocalizationClassifier(max_sample_weight=4.0, **kw).fit(
        X, y, sample_weight=4.0 * w
    )
    np.testing.assert_allclose(four.learning_rates_, one.learning_rates_ / 4.0)
    np.testing.assert_allclose(four.sensitivities_, one.sensitivities_)
    np.testing.assert_allclose(_released(four), _released(one), rtol=1e-9, atol=1e-12)


def test_localization_weighted_worst_case_pair():
    # test_baselines_privacy's pair (m = 2: one phase, one slot) with every row at
    # weight w_max: the slot's step from 0 is +-c with c = eta w_max x~, so the
    # releases are N(c, s^2) on D and 2/3 N(c, s^2) + 1/3 N(-c, s^2) on D'. The
    # noise calibrated to 2 L eta (without w_max) is too small for this pair.
    eta, epsilon, delta, w_max = 0.1, 1.0, 1e-5, 3.0
    X2, y2 = np.ones((3, 1)), np.array([1, 1, 0])
    params = dict(
        epsilon=epsilon,
        delta=delta,
        loss="huber_hinge",
        learning_rate=eta,
        public_n_samples=2,
        classes=[0, 1],
        max_sample_weight=w_max,
    )
    clf = PhasedLocalizationClassifier(**params).fit(
        X2[:2], y2[:2], sample_weight=np.full(2, w_max)
    )
    sharp = PhasedLocalizationClassifier(**{**params, "epsilon": 1e6})
    centres = np.array(
        [
            _released(sharp.fit(X2, y2, sample_weight=np.full(3, w_max)))
            for _ in range(60)
        ]
    )
    c = eta * w_max * np.ones(2)
    assert np.all(
        np.minimum(
            np.linalg.norm(centres - c, axis=1), np.linalg.norm(centres + c, axis=1)
        )
        < 5e-3
    )
    L = math.sqrt(2.0)
    a = L * eta * w_max  # half the distance between the centres
    sigma = float(clf.noise_scales_[0])
    assert _mixture_pair_delta(a, sigma, clf.epsilon_) <= clf.delta_
    assert _mixture_epsilon(a, sigma, delta) <= clf.epsilon_
    assert _mixture_epsilon(a, sigma / w_max, delta) > 2 * epsilon
