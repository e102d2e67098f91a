import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit, softmax
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    OutputPerturbationClassifier,
    PhasedLocalizationClassifier,
    PrivacyLeakWarning,
)
from sklearn_dpgd._solvers import outpert
from sklearn_dpgd.accounting import GaussianSteps, gdp_mu, ledger_epsilon

from ._sklearn_checks import expected_failed_checks, parametrize_with_checks


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


def _data(n=2000, d=8, seed=0, n_classes=2):
    X, y = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=4,
        random_state=seed,
        class_sep=1.5,
        n_classes=n_classes,
    )
    return Normalizer().fit_transform(X), y


def _pld_epsilon(noise_multipliers, delta):
    # dp-accounting's PLD of Gaussian mechanisms composed in sequence.
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    for z in np.atleast_1d(noise_multipliers):
        acc.compose(dp_accounting.GaussianDpEvent(float(z)))
    return acc.get_epsilon(delta)


def _training_mu(epsilon, delta, counted):
    # The GDP budget left to training once the charged count took 1% of mu^2.
    mu = gdp_mu(epsilon, delta)
    return math.sqrt(0.99) * mu if counted else mu


@parametrize_with_checks(
    [
        OutputPerturbationClassifier(),
        OutputPerturbationClassifier(loss="huber_hinge", neighboring="replace"),
        PhasedLocalizationClassifier(),
        # A bound above the checks' weights (3 and 10): their weight checks pass.
        OutputPerturbationClassifier(max_sample_weight=10.0),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ------------------------------------------------------------ output perturbation


@pytest.mark.parametrize(
    "loss, n_classes, neighboring, fit_intercept, gk",
    [
        ("logistic", 2, "add_remove", True, 1.0),
        ("logistic", 3, "replace", True, math.sqrt(2.0)),
        ("huber_hinge", 4, "add_remove", False, 2.0),  # one-vs-rest: sqrt(K)
    ],
)
def test_output_perturbation_sensitivity_and_spent_budget(
    loss, n_classes, neighboring, fit_intercept, gk
):
    X, y = _data(n=600, n_classes=n_classes)
    clf = OutputPerturbationClassifier(
        epsilon=0.8,
        delta=1e-6,
        loss=loss,
        data_norm=2.0,
        alpha=0.05,
        fit_intercept=fit_intercept,
        neighboring=neighboring,
        tol=1e-7,
        random_state=0,
    ).fit(X, y)
    f = 2.0 if neighboring == "replace" else 1.0
    counted = neighboring == "add_remove"
    m = clf.public_n_samples_
    if not counted:
        assert m == 600  # replace-one: n is public
    lipschitz = gk * math.sqrt(4.0 + fit_intercept)
    expected = f * lipschitz / (m * 0.05) + 2 * 1e-7 / 0.05
    assert clf.sensitivity_ == pytest.approx(expected, rel=1e-12)
    mu_t = _training_mu(0.8, 1e-6, counted)
    assert clf.noise_scale_ == pytest.approx(expected / mu_t, rel=1e-9)
    assert clf.epsilon_ <= 0.8
    assert clf.epsilon_ == pytest.approx(0.8, rel=1e-6)
    assert len(clf.ledger_) == 1 + counted
    # Independent: dp-accounting's PLD of the count (if any) and the release.
    zs = [r.noise_multiplier for r in clf.ledger_]
    assert zs[-1] == pytest.approx(clf.noise_scale_ / clf.sensitivity_, rel=1e-12)
    independent = _pld_epsilon(zs, 1e-6)
    assert independent == pytest.approx(clf.epsilon_, rel=2e-3)
    assert ledger_epsilon(clf.ledger_, 1e-6) == pytest.approx(clf.epsilon_, rel=1e-9)


def _objective_gradient(X, y, theta, alpha, loss, n_outputs):
    # Independent NumPy twin of the objective's gradient (intercept last column).
    n = X.shape[0]
    Xt = np.hstack([X, np.ones((n, 1))])
    M = Xt @ theta.T
    if n_outputs == 1 and loss == "logistic":
        s = 2.0 * y - 1.0
        R = (-s * expit(-s * M[:, 0]))[:, None]
    elif loss == "logistic":
        R = softmax(M, axis=1)
        R[np.arange(n), y] -= 1.0
    else:
        raise NotImplementedError
    return R.T @ Xt / n + alpha * theta


@pytest.mark.parametrize("n_classes", [2, 3])
def test_output_perturbation_releases_the_minimiser_plus_noise(n_classes):
    X, y = _data(n=500, n_classes=n_classes)
    clf = OutputPerturbationClassifier(
        epsilon=1e4, delta=1e-6, alpha=0.1, tol=1e-9, public_n_samples=500
    ).fit(X, y)
    theta = np.column_stack([clf.coef_, clf.intercept_])
    K = theta.shape[0]
    grad = _objective_gradient(X, y, theta, 0.1, "logistic", K)
    # At the minimiser the gradient is <= tol; the noise moves it by at most
    # smoothness * ||noise|| (a 6-sigma bound on the norm).
    smooth = (0.25 if K == 1 else 0.5) * 2.0 + 0.1
    bound = 1e-9 + smooth * 6 * clf.noise_scale_ * math.sqrt(theta.size)
    assert np.linalg.norm(grad) <= bound


def test_output_perturbation_noise_has_the_calibrated_scale():
    X, y = _data(n=400, d=30)
    fits = [
        OutputPerturbationClassifier(epsilon=1.0, alpha=0.5, public_n_samples=400).fit(
            X, y
        )
        for _ in range(2)
    ]
    diff = np.concatenate(
        [
            fits[0].coef_.ravel() - fits[1].coef_.ravel(),
            fits[0].intercept_ - fits[1].intercept_,
        ]
    )
    # The difference of two releases is N(0, 2 sigma^2) per coordinate (31 coords).
    ratio = np.std(diff) / (math.sqrt(2) * fits[0].noise_scale_)
    assert 0.6 < ratio < 1.4


def test_output_perturbation_clips_rows_and_never_reads_the_bound():
    X, y = _data(n=300)
    a = OutputPerturbationClassifier(data_norm=1.0, random_state=3).fit(X, y)
    b = OutputPerturbationClassifier(data_norm=1.0, random_state=3).fit(100 * X, y)
    # Unit-norm rows are unchanged; rows 100x longer are clipped back to norm 1.
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-7)
    assert a.sensitivity_ == b.sensitivity_


def test_output_perturbation_auto_alpha_is_public():
    X, y = _data(n=800)
    clf = OutputPerturbationClassifier(epsilon=0.5, random_state=0).fit(X, y)
    m = clf.public_n_samples_  # the noisy count: alpha never sees n itself
    p = X.shape[1] + 1
    L = math.sqrt(2.0)
    mu_t = _training_mu(0.5, 1e-8, counted=True)
    expected = L * math.sqrt(math.sqrt(p) / (m * mu_t)) / 30.0
    assert clf.alpha_ == pytest.approx(expected, rel=1e-9)


def test_output_perturbation_sparse_matches_dense():
    X, y = _data(n=300)
    a = OutputPerturbationClassifier(alpha=0.1, random_state=0).fit(X, y)
    b = OutputPerturbationClassifier(alpha=0.1, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)


def test_output_perturbation_no_proba_for_hinge_and_no_iteration_count():
    X, y = _data(n=200)
    clf = OutputPerturbationClassifier(loss="huber_hinge", random_state=0).fit(X, y)
    assert not hasattr(clf, "predict_proba")
    assert not hasattr(clf, "n_iter_")  # data-dependent: never exposed
    assert hasattr(OutputPerturbationClassifier().fit(X, y), "predict_proba")


def test_output_perturbation_label_set_warning():
    X, y = _data(n=200)
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        OutputPerturbationClassifier(random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        OutputPerturbationClassifier(classes=[0, 1]).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": 0.0}, "alpha"),
        ({"data_norm": -1.0}, "data_norm"),
        ({"tol": 0.0}, "tol"),
        ({"loss": "hinge"}, "loss"),
        ({"data_norm": float("inf")}, "data_norm"),
    ],
)
def test_output_perturbation_rejects_bad_parameters(params, match):
    X, y = _data(n=100)
    with pytest.raises(ValueError, match=match):
        OutputPerturbationClassifier(**params).fit(X, y)


def test_solver_fallback_reaches_the_tolerance(monkeypatch):
    # If L-BFGS-B stops early, gradient descent finishes the job (the release
    # never depends on whether L-BFGS-B converged).
    X, y = _data(n=300)
    fun = outpert._regularised_objective(X, y, "logistic", 1, 0.05, True, 300)

    class _Stopped:
        def __init__(self, x):
            self.x = x

    monkeypatch.setattr(
        outpert, "minimize", lambda f, x0, **kw: _Stopped(np.zeros_like(x0))
    )
    theta = outpert._solve_to_tolerance(fun, 9, 1e-8, 0.25 * 2 + 0.05, 0.05)
    assert np.linalg.norm(fun(theta)[1]) <= 1e-8


# ------------------------------------------------------------ phased localization


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_localization_privacy_parameters_follow_the_formulas(neighboring):
    n = 1000
    X, y = _data(n=n)
    clf = PhasedLocalizationClassifier(
        epsilon=0.7,
        delta=1e-6,
        neighboring=neighboring,
        public_n_samples=n if neighboring == "add_remove" else None,
    ).fit(X, y)
    assert clf.public_n_samples_ == n
    k = math.ceil(math.log2(n))
    sizes = [n // 2**i for i in range(1, k + 1) if n // 2**i > 0]
    np.testing.assert_array_equal(clf.phase_sizes_, sizes)
    assert clf.phase_sizes_.sum() <= n
    eta = clf.learning_rates_[0]
    np.testing.assert_allclose(
        clf.learning_rates_, eta / 4.0 ** np.arange(len(sizes)), rtol=1e-15
    )
    f = 2.0  # one slot changes: a replacement under both relations
    L = math.sqrt(2.0)  # binary, unit data_norm plus the intercept coordinate
    assert eta <= 2.0 / (0.25 * 2.0)  # contraction: eta <= 2 / beta
    p = X.shape[1] + 1
    mu = gdp_mu(0.7, 1e-6)
    expected_eta = min(
        (2 * 3.0 / L) * min(1 / math.sqrt(sizes[0]), mu / (f * math.sqrt(p))), 4.0
    )
    assert eta == pytest.approx(expected_eta, rel=1e-9)
    np.testing.assert_allclose(
        clf.sensitivities_, f * L * clf.learning_rates_, rtol=1e-15
    )
    np.testing.assert_allclose(clf.noise_scales_, clf.sensitivities_ / mu, rtol=1e-9)
    # Disjoint phases: the run is as private as its worst phase (parallel
    # composition), each one Gaussian mechanism; checked with dp-accounting's PLD.
    worst = np.min(clf.noise_scales_ / clf.sensitivities_)
    assert _pld_epsilon(worst, 1e-6) == pytest.approx(clf.epsilon_, rel=2e-3)
    assert clf.ledger_ == (GaussianSteps(worst),)
    assert clf.epsilon_ <= 0.7


def test_localization_rejects_a_non_contractive_step():
    X, y = _data(n=200)
    with pytest.raises(ValueError, match="learning_rate"):
        PhasedLocalizationClassifier(learning_rate=5.0).fit(X, y)


@pytest.mark.parametrize(
    "estimator", [PhasedLocalizationClassifier, OutputPerturbationClassifier]
)
def test_baselines_learn_at_a_large_budget(estimator):
    from sklearn.linear_model import LogisticRegression

    X, y = _data(n=4000)
    reference = LogisticRegression().fit(X, y).score(X, y)  # 0.764: a hard problem
    clf = estimator(epsilon=8.0, delta=1e-6, random_state=0)
    assert clf.fit(X, y).score(X, y) > reference - 0.03


def test_localization_sparse_matches_dense_and_multiclass():
    X, y = _data(n=400, n_classes=3)
    kw = dict(epsilon=2.0, random_state=1)
    a = PhasedLocalizationClassifier(**kw).fit(X, y)
    b = PhasedLocalizationClassifier(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-10)
    assert a.coef_.shape == (3, X.shape[1])
