import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import (
    DPHuberSVM,
    DPLogisticRegression,
    ExponentialDecaySchedule,
    PrivacyLeakWarning,
    PURSchedule,
    UniformSchedule,
    WeakPrivacyWarning,
)
from sklearn_dpgd.accounting import (
    PrivacyLedger,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_from_noise_multipliers,
)
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule

from ._sklearn_checks import expected_failed_checks, parametrize_with_checks


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    # Most tests read the label set from y on purpose; the warning is tested below.
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


@parametrize_with_checks(
    [
        DPLogisticRegression(),
        DPHuberSVM(),
        DPLogisticRegression(epsilon=100.0, neighboring="replace", classes=None),
        # Weights up to 10 (the checks pass 3 and 10), at a budget where the
        # class-weight check's accuracy bar is reachable with a weight of 1000.
        DPLogisticRegression(epsilon=100.0, max_sample_weight=10.0),
        # Adaptive strategies at a budget where the check's accuracy bar (0.83 on
        # a few dozen rows) is reachable: a privacy reason, not a workaround.
        DPLogisticRegression(
            epsilon=100.0, schedule=AdaptiveStepSchedule(), max_iter=20
        ),
        DPHuberSVM(epsilon=100.0, schedule=LineSearchSchedule(), max_iter=20),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_fitted_attributes_and_shapes():
    X, y = _data()
    clf = DPLogisticRegression(epsilon=1.0, delta=1e-6, max_iter=30, random_state=0)
    clf.fit(X, y)
    assert clf.coef_.shape == (1, X.shape[1]) and clf.intercept_.shape == (1,)
    assert clf.n_iter_ == 30 and clf.noise_multipliers_.shape == (30,)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert clf.n_features_in_ == X.shape[1]
    assert clf.schedule_ == UniformSchedule()
    assert clf.schedule is None  # the parameter is never mutated
    assert clf.predict_proba(X).shape == (X.shape[0], 2)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), clf.predict_proba(X))
    np.testing.assert_array_equal(
        clf.predict(X), clf.classes_[(clf.decision_function(X) > 0).astype(int)]
    )


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0, 8.0])
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
@pytest.mark.parametrize(
    "schedule", [UniformSchedule(), ExponentialDecaySchedule(0.95)]
)
def test_spent_budget_is_exact_and_never_exceeded(epsilon, neighboring, schedule):
    X, y = _data(n=500)
    clf = DPLogisticRegression(
        epsilon=epsilon,
        delta=1e-6,
        max_iter=40,
        schedule=schedule,
        neighboring=neighboring,
        random_state=0,
    ).fit(X, y)
    assert clf.epsilon_ <= epsilon
    assert clf.epsilon_ == pytest.approx(epsilon, rel=1e-9)
    assert clf.delta_ == 1e-6
    # Re-audit from the published ledger alone (under add/remove its first entry
    # is the noisy count of the rows, tests/test_privacy.py).
    everything = np.concatenate(
        [np.full(s.count, s.noise_multiplier) for s in clf.ledger_]
    )
    # The training steps come before the calibration's (if any) and the last
    # record, the utility diagnostic's noisy count of the predicted classes.
    after = 1 + (0 if clf.calibration_ is None else clf.ledger_[-2].count)
    np.testing.assert_array_equal(
        everything[-clf.n_iter_ - after : -after], clf.noise_multipliers_
    )
    assert clf.mu_ == pytest.approx(gdp_mu_from_noise_multipliers(everything))
    # mu_ is the fit's guarantee (under add/remove the filter's cap: the plan read
    # a noisy count), and epsilon_ its exact epsilon at delta_.
    assert gdp_epsilon(clf.mu_, clf.delta_) == pytest.approx(clf.epsilon_, rel=1e-14)
    assert gdp_delta(clf.mu_, clf.epsilon_) <= clf.delta_
    ratio = clf.noise_multipliers_[1:] / clf.noise_multipliers_[:-1]
    np.testing.assert_allclose(ratio, getattr(schedule, "decay_rate", 1.0), rtol=1e-12)


@pytest.mark.parametrize("epsilon", [0.1, 1.6])
def test_spent_epsilon_matches_dp_accounting_pld(epsilon):
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    X, y = _data(n=1000)
    clf = DPLogisticRegression(epsilon=epsilon, max_iter=80, random_state=0).fit(X, y)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    # Every Gaussian mechanism of the ledger: the noisy count of the public size,
    # then the steps.
    acc.compose(
        dp_accounting.ComposedDpEvent(
            [
                dp_accounting.GaussianDpEvent(float(s.noise_multiplier))
                for s in clf.ledger_
                for _ in range(s.count)
            ]
        )
    )
    assert clf.epsilon_ <= epsilon
    assert acc.get_epsilon(clf.delta_) == pytest.approx(clf.epsilon_, rel=1e-3)


def test_replace_one_doubles_the_noise():
    from . import _reference as ref

    X, y = _data(n=300)
    # One plain step from zero: coef = -(clipped sum + noise) / n, with the same
    # standard-normal draw for both relations (same seed).
    kw = dict(
        epsilon=0.5,
        max_iter=1,
        learning_rate=1.0,
        momentum=0.0,
        average=0.0,
        normalize_steps=False,
        clip_norm=1.0,
        random_state=0,
        public_n_samples=300,
    )
    a = DPLogisticRegression(neighboring="add_remove", **kw).fit(X, y)
    b = DPLogisticRegression(neighboring="replace", **kw).fit(X, y)
    np.testing.assert_allclose(a.noise_multipliers_, b.noise_multipliers_)
    g = ref.clipped_gradient_sum(
        X, y, np.zeros((1, 8)), np.zeros(1), True, 1.0, "logistic"
    )
    noiseless = -g[:, :8] / 300
    # Sensitivity 2C under replace-one: the noise part is exactly twice as large.
    np.testing.assert_allclose(
        b.coef_ - noiseless, 2 * (a.coef_ - noiseless), rtol=1e-9
    )


def test_reproducible_with_random_state_and_varies_without():
    X, y = _data()
    a = DPLogisticRegression(random_state=3, max_iter=20).fit(X, y)
    b = DPLogisticRegression(random_state=3, max_iter=20).fit(X, y)
    c = DPLogisticRegression(random_state=4, max_iter=20).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


def test_learns_at_generous_budget():
    X, y = _data(n=5000)
    clf = DPLogisticRegression(epsilon=10.0, delta=1e-6, random_state=0).fit(X, y)
    base = LogisticRegression().fit(X, y).score(X, y)
    assert clf.score(X, y) > base - 0.03


def test_tiny_budget_gives_noisy_model():
    X, y = _data(n=300)
    clf = DPLogisticRegression(epsilon=1e-3, delta=1e-6, random_state=0).fit(X, y)
    # With almost no budget the noise dominates: the model is far from the optimum.
    assert clf.score(X, y) < 0.9


def test_no_intercept():
    X, y = _data()
    clf = DPLogisticRegression(fit_intercept=False, max_iter=20, random_state=0).fit(
        X, y
    )
    assert clf.intercept_[0] == 0.0


def test_alpha_shrinks_coefficients():
    X, y = _data()
    kw = dict(epsilon=50.0, max_iter=100, random_state=0)
    small = DPLogisticRegression(alpha=0.0, **kw).fit(X, y)
    big = DPLogisticRegression(alpha=1.0, **kw).fit(X, y)
    assert np.linalg.norm(big.coef_) < np.linalg.norm(small.coef_)


def test_string_labels_and_pandas():
    import pandas as pd

    X, y = _data(n=400)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.where(y == 1, "yes", "no")
    clf = DPLogisticRegression(max_iter=10, random_state=0).fit(df, labels)
    np.testing.assert_array_equal(clf.feature_names_in_, df.columns)
    assert set(clf.predict(df)) <= {"no", "yes"}
    np.testing.assert_array_equal(clf.classes_, ["no", "yes"])


def test_classes_parameter():
    X, y = _data(n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = DPLogisticRegression(classes=[0, 1], max_iter=5).fit(X, y)
        np.testing.assert_array_equal(clf.classes_, [0, 1])
        # A declared class may be absent from the private data.
        DPLogisticRegression(classes=[0, 1], max_iter=5).fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="not in classes"):
        DPLogisticRegression(classes=[0, 2], max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="classes"):
        DPLogisticRegression(classes=[1], max_iter=5).fit(X, np.ones_like(y))


def test_label_set_read_from_data_warns():
    X, y = _data(n=200)
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        DPLogisticRegression(max_iter=5).fit(X, y)


def test_weak_delta_warns():
    X, y = _data(n=200)
    with pytest.warns(WeakPrivacyWarning, match="delta"):
        DPLogisticRegression(delta=1e-2, max_iter=5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeakPrivacyWarning)
        DPLogisticRegression(delta=1e-3, max_iter=5).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": -1e-5}, "delta"),
        ({"clip_norm": 0.0}, "clip_norm"),
        ({"clip_norm": -1.0}, "clip_norm"),
        ({"max_iter": 0}, "max_iter"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"alpha": -1.0}, "alpha"),
        ({"neighboring": "swap"}, "neighboring"),
        ({"momentum": 1.0}, "momentum"),
        ({"average": 1.5}, "average"),
        ({"max_iter": "many"}, "max_iter"),
        ({"schedule": "uniform"}, "schedule"),
    ],
)
def test_bad_parameters_raise_value_error_naming_them(params, match):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(**params).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_raises(bad):
    X, y = _data(n=50)
    X[3, 1] = bad
    with pytest.raises(ValueError, match="X"):
        DPLogisticRegression().fit(X, y)
    X, _ = _data(n=50)
    y = y.astype(float)
    y[0] = bad
    with pytest.raises(ValueError, match="y|Input"):
        DPLogisticRegression().fit(X, y)


def test_one_class_and_continuous_targets_raise():
    X, y = _data(n=60)
    with pytest.raises(ValueError, match="class"):
        DPLogisticRegression().fit(X, np.zeros(60))
    with pytest.raises(ValueError, match="continuous"):
        DPLogisticRegression().fit(X, np.linspace(0, 1, 60))


def test_schedule_returning_a_wrong_plan_raises():
    from sklearn_dpgd.schedules import NoiseSchedule

    class TooLong(NoiseSchedule):
        def noise_multipliers(self, n_steps):
            return np.ones(n_steps + 1)

    class BadRates(NoiseSchedule):
        def noise_multipliers(self, n_steps):
            return np.ones(n_steps)

        def learning_rates(self, n_steps, context):
            return -np.ones(n_steps)

    X, y = _data(n=50)
    with pytest.raises(ValueError, match=r"expected \(T,\) with 1 <= T <= 5"):
        DPLogisticRegression(schedule=TooLong(), max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="learning rates must be positive"):
        DPLogisticRegression(schedule=BadRates(), max_iter=5).fit(X, y)


def test_duck_typed_schedule_is_refused():
    class Duck:
        def noise_multipliers(self, n_steps):
            return np.ones(n_steps)

    X, y = _data(n=50)
    with pytest.raises(ValueError, match="'schedule' parameter .*NoiseSchedule"):
        DPLogisticRegression(schedule=Duck(), max_iter=5).fit(X, y)


def test_works_in_pipeline_grid_search_clone_and_pickle():
    X, y = _data(n=600)
    pipe = make_pipeline(
        Normalizer(), DPLogisticRegression(max_iter=10, random_state=0)
    )
    grid = GridSearchCV(
        pipe,
        {
            "dplogisticregression__schedule": [
                UniformSchedule(),
                ExponentialDecaySchedule(0.9),
            ]
        },
        cv=2,
    ).fit(X, y)
    assert grid.best_estimator_[-1].epsilon_ <= 1.0
    assert cross_val_score(clone(pipe), X, y, cv=3).shape == (3,)
    fitted = pipe.fit(X, y)
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(fitted)).predict(X), fitted.predict(X)
    )


def test_verbose_prints_only_private_quantities(capsys):
    X, y = _data(n=100)
    DPLogisticRegression(max_iter=3, verbose=1, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("noise_multiplier=") == 3 and "loss" not in out


def _noise_of_fit(random_state, noise_multipliers, n_outputs, width):
    """The noise draws of a fit, reproduced from its documented seeding (an int seed
    is a SeedSequence of a PCG64 generator; the size is declared, so no count).
    The utility diagnostics' count of unscaled rows draws one value first."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(random_state)))
    rng.standard_normal()
    return np.array(
        [z * rng.standard_normal((n_outputs, width)) for z in noise_multipliers]
    )


@pytest.mark.parametrize("Estimator", [DPLogisticRegression, DPHuberSVM])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
@pytest.mark.parametrize("momentum, average", [(0.0, 0.0), (0.9, 0.5), (0.5, 1.0)])
def test_fit_matches_numpy_reference_loop(
    Estimator, n_classes, fit_intercept, neighboring, momentum, average
):
    from . import _reference as ref

    X, y = _data(n=700, d=6, n_classes=n_classes)
    X = X * np.linspace(0.5, 3, 700)[:, None]  # some rows get clipped, some not
    clf = Estimator(
        epsilon=2.0,
        delta=1e-6,
        max_iter=25,
        learning_rate=0.7,
        alpha=0.01,
        momentum=momentum,
        average=average,
        clip_norm=0.8,
        fit_intercept=fit_intercept,
        neighboring=neighboring,
        public_n_samples=700,
        random_state=11,
    ).fit(X, y)
    K = 1 if n_classes == 2 else n_classes
    width = X.shape[1] + 1 if fit_intercept else X.shape[1]
    noise = _noise_of_fit(11, clf.noise_multipliers_, K, width)
    if not fit_intercept:
        noise = np.concatenate([noise, np.zeros((noise.shape[0], K, 1))], axis=2)
    coef, intercept = ref.noisy_gradient_descent(
        X,
        y,
        noise,
        n_outputs=K,
        learning_rate=0.7,
        alpha=0.01,
        clip_norm=0.8,
        momentum=momentum,
        average=average,
        fit_intercept=fit_intercept,
        loss=Estimator._loss,
        sensitivity=0.8 * (2 if neighboring == "replace" else 1),
        # normalize_steps="auto": normalised steps for binary problems only.
        normalize_steps=n_classes == 2,
    )
    np.testing.assert_allclose(clf.coef_, coef, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        clf.intercept_, intercept if fit_intercept else 0.0, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fit_from_a_public_start_matches_the_reference(n_classes):
    from . import _reference as ref

    X, y = _data(n=700, d=6, n_classes=n_classes)
    K = 1 if n_classes == 2 else n_classes
    rng = np.random.default_rng(5)
    coef0, intercept0 = rng.normal(size=(K, 6)), rng.normal(size=K)
    clf = DPLogisticRegression(
        epsilon=2.0,
        delta=1e-6,
        max_iter=15,
        learning_rate=0.3,
        random_state=3,
        public_n_samples=700,
    ).fit(
        X,
        y,
        # 1-D forms are accepted for binary problems
        coef_init=coef0[0] if K == 1 else coef0,
        intercept_init=intercept0[0] if K == 1 else intercept0,
    )
    noise = _noise_of_fit(3, clf.noise_multipliers_, K, 7)
    coef, intercept = ref.noisy_gradient_descent(
        X,
        y,
        noise,
        n_outputs=K,
        learning_rate=0.3,
        alpha=clf.alpha_,  # the default "auto": 1 / public_n_samples
        clip_norm=clf.clip_norm_,
        momentum=0.9,
        average=0.5,
        normalize_steps=n_classes == 2,
        initial=np.column_stack([coef0, intercept0]),
    )
    np.testing.assert_allclose(clf.coef_, coef, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, intercept, rtol=1e-12, atol=1e-12)
    # The start matters: from zero the same noise gives another model.
    zero = DPLogisticRegression(
        epsilon=2.0, delta=1e-6, max_iter=15, learning_rate=0.3, random_state=3
    ).fit(X, y)
    assert not np.allclose(zero.coef_, clf.coef_)


def test_public_start_for_adaptive_schedules():
    # DP-AGD moves by at most max_step per update along a unit direction, so one
    # update from a far public start stays within max_step of it.
    X, y = _data(n=800, d=6)
    schedule = AdaptiveStepSchedule()
    coef0, intercept0 = np.full((1, 6), 5.0), np.array([-5.0])
    warm = DPLogisticRegression(
        epsilon=0.5, schedule=schedule, max_iter=1, random_state=1
    ).fit(X, y, coef_init=coef0, intercept_init=intercept0)
    assert warm.n_iter_ == 1
    moved = np.hypot(
        np.linalg.norm(warm.coef_ - coef0), np.linalg.norm(warm.intercept_ - intercept0)
    )
    assert moved <= schedule.max_step + 1e-12
    assert warm.epsilon_ <= 0.5 + 1e-12


@pytest.mark.parametrize(
    "params, kwargs, match",
    [
        ({}, {"coef_init": np.zeros(5)}, "coef_init must have shape"),
        ({}, {"coef_init": np.zeros((2, 6))}, "coef_init must have shape"),
        ({}, {"intercept_init": np.zeros(2)}, "intercept_init must have shape"),
        ({}, {"coef_init": np.full(6, np.nan)}, "must be finite"),
        ({"fit_intercept": False}, {"intercept_init": 0.0}, "fit_intercept=True"),
        ({"solver": "snowball"}, {"coef_init": np.zeros(6)}, "snowball"),
    ],
)
def test_bad_public_start_raises(params, kwargs, match):
    X, y = _data(n=300, d=6)
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(epsilon=1.0, **params).fit(X, y, **kwargs)


class _ConstantOracle:
    """A stand-in oracle whose noisy gradient is always ``direction``."""

    n_outputs = 1

    def __init__(self, direction):
        self.direction = np.asarray(direction, dtype=float)
        self.n_features = self.direction.shape[1] - 1

    def noisy_gradient(self, W, b, z):
        return self.direction.copy()


@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_normalized_steps_have_the_learning_rate_as_length(momentum):
    from sklearn_dpgd._solvers.gd import noisy_gradient_descent

    direction = np.array([[3.0, 0.0, 4.0]])  # norm 5; the intercept is last
    common = dict(
        noise_multipliers=np.ones(3),
        learning_rates=np.array([0.1, 0.2, 0.4]),
        alpha=0.0,
        momentum=momentum,
        average=0.0,
    )
    coef, intercept, _ = noisy_gradient_descent(
        _ConstantOracle(direction), normalize_steps=True, **common
    )
    theta = np.concatenate([coef[0], intercept])
    # Heavy ball along a constant unit direction: v_t = m v_{t-1} - eta_t u.
    v, path = 0.0, 0.0
    for eta in common["learning_rates"]:
        v = momentum * v + eta
        path += v
    np.testing.assert_allclose(theta, -path * direction[0] / 5.0)
    plain, plain_b, _ = noisy_gradient_descent(
        _ConstantOracle(direction), normalize_steps=False, **common
    )
    # Without normalisation the same run moves five times as far.
    np.testing.assert_allclose(np.concatenate([plain[0], plain_b]), 5.0 * theta)


def test_schedule_with_its_own_steps_takes_gradient_steps(monkeypatch):
    import sklearn_dpgd._solvers.gd as gd
    from sklearn_dpgd import PURSchedule

    seen = []
    original = gd.noisy_gradient_descent

    def spy(oracle, **kwargs):
        seen.append(kwargs["normalize_steps"])
        return original(oracle, **kwargs)

    monkeypatch.setattr(gd, "noisy_gradient_descent", spy)
    X, y = _data(n=400, d=6)
    X3, y3 = _data(n=600, d=6, n_classes=3)
    DPLogisticRegression(epsilon=2.0, max_iter=20).fit(X, y)
    DPLogisticRegression(epsilon=2.0, max_iter=20).fit(X3, y3)
    DPLogisticRegression(epsilon=2.0, max_iter=20, normalize_steps=True).fit(X3, y3)
    DPLogisticRegression(epsilon=2.0, max_iter=20, normalize_steps=False).fit(X, y)
    DPLogisticRegression(
        epsilon=2.0, alpha=0.1, schedule=PURSchedule(kind="convex")
    ).fit(X, y)
    # "auto" normalises binary problems only; PUR prescribes its own steps.
    assert seen == [True, False, True, False, False]


def test_predict_proba_keeps_tiny_probabilities():
    X, y = _data(n=400, d=6)
    clf = DPLogisticRegression(epsilon=2.0, random_state=0).fit(X, y)
    # Margins up to 300: 1 - expit(m) rounds to 0 there, expit(-m) does not.
    scale = 300.0 / np.abs(clf.decision_function(X)).max()
    clf.coef_, clf.intercept_ = clf.coef_ * scale, clf.intercept_ * scale
    proba = clf.predict_proba(X)
    assert proba.min() > 0.0
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), proba, rtol=1e-12)


ESTIMATORS = [DPLogisticRegression, DPHuberSVM]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_multiclass_shapes_and_predictions(Estimator):
    X, y = _data(n=1500, d=8, n_classes=4)
    clf = Estimator(epsilon=20.0, delta=1e-6, random_state=0).fit(X, y)
    assert clf.coef_.shape == (4, 8) and clf.intercept_.shape == (4,)
    scores = clf.decision_function(X)
    assert scores.shape == (1500, 4)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])
    assert clf.score(X, y) > 0.5  # 4 classes: chance is 0.25
    assert clf.epsilon_ <= 20.0
    if Estimator is DPLogisticRegression:
        proba = clf.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_allclose(np.log(proba), clf.predict_log_proba(X), atol=1e-10)


def test_huber_svm_has_no_predict_proba():
    clf = DPHuberSVM(max_iter=5, random_state=0).fit(*_data(n=100))
    assert not hasattr(clf, "predict_proba")


def test_declared_classes_may_exceed_those_present():
    X, y = _data(n=300)
    clf = DPLogisticRegression(classes=[0, 1, 2], max_iter=5, random_state=0).fit(X, y)
    assert clf.coef_.shape == (3, X.shape[1])
    assert set(clf.predict(X)) <= {0, 1, 2}


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_csr_gives_the_dense_coefficients(Estimator, n_classes):
    X, y = _data(n=800, n_classes=n_classes)
    X[np.abs(X) < 0.3] = 0.0
    kw = dict(epsilon=1.0, max_iter=30, random_state=5)
    dense = Estimator(**kw).fit(X, y)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        sparse = Estimator(**kw).fit(fmt(X), y)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(
            sparse.intercept_, dense.intercept_, rtol=1e-10, atol=1e-10
        )
        np.testing.assert_allclose(
            sparse.decision_function(fmt(X)), dense.decision_function(X), atol=1e-10
        )


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_float32_stays_float32(Estimator):
    X, y = _data(n=600)
    X32 = X.astype(np.float32)
    a = Estimator(max_iter=20, random_state=0).fit(X32, y)
    b = Estimator(max_iter=20, random_state=0).fit(X, y)
    assert a.coef_.dtype == np.float32 and a.intercept_.dtype == np.float32
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-4, atol=1e-5)
    a_sparse = Estimator(max_iter=20, random_state=0).fit(sp.csr_matrix(X32), y)
    assert a_sparse.coef_.dtype == np.float32


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_c_and_f_order_give_the_same_model(Estimator):
    X, y = _data(n=400)
    a = Estimator(max_iter=10, random_state=0).fit(np.ascontiguousarray(X), y)
    b = Estimator(max_iter=10, random_state=0).fit(np.asfortranarray(X), y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_extreme_values_give_finite_coefficients(Estimator):
    X, y = _data(n=200)
    X[:5] = 1e300
    X[5:10] = -1e300
    clf = Estimator(epsilon=5.0, max_iter=20, random_state=0).fit(X, y)
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    assert np.all(np.isfinite(clf.decision_function(X[10:])))


def test_sample_weight_above_the_public_bound_is_refused():
    # Weights are accepted up to max_sample_weight (tests/test_weights.py).
    X, y = _data(n=50)
    DPLogisticRegression(max_iter=3).fit(X, y, sample_weight=np.ones(50))
    with pytest.raises(ValueError, match=r"\[0, max_sample_weight=1\]"):
        DPLogisticRegression().fit(X, y, sample_weight=np.full(50, 1.01))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "make_input, match",
    [
        (lambda X, y: (X[:0], y[:0]), "0 sample"),
        (lambda X, y: (X[:1], y[:1]), "1 sample"),
        (lambda X, y: (X[:, :0], y), "0 feature"),
        (lambda X, y: (np.where(X > 0.5, np.nan, X), y), "NaN"),
        (lambda X, y: (np.where(X > 0.5, np.inf, X), y), "infinity"),
        (
            lambda X, y: (np.array([["a", "b"]] * len(y), dtype=object), y),
            "string|convert",
        ),
        (lambda X, y: (X, np.zeros_like(y)), "class"),
        (lambda X, y: (X, y + np.linspace(0, 0.5, len(y))), "continuous"),
        (lambda X, y: (X, np.where(y == 1, np.nan, 0.0)), "NaN"),
        (lambda X, y: (X, y[:-3]), "inconsistent"),
    ],
)
def test_bad_data_raises_value_error(Estimator, make_input, match):
    X, y = _data(n=60)
    Xb, yb = make_input(X, y.astype(float))
    with pytest.raises(ValueError, match=match):
        Estimator().fit(Xb, yb)


def test_bad_schedule_type_raises_naming_it():
    X, y = _data(n=50)
    with pytest.raises((TypeError, ValueError), match="schedule"):
        DPLogisticRegression(schedule=0.99).fit(X, y)


@pytest.mark.parametrize("bad_h", [0.0, -1.0, float("inf")])
def test_huber_width_validated(bad_h):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="h"):
        DPHuberSVM(h=bad_h).fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_pandas_in_set_output_upstream_and_feature_names(Estimator):
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    X, y = _data(n=300)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    pipe = make_pipeline(
        StandardScaler(), Normalizer(), Estimator(max_iter=10, random_state=0)
    )
    pipe.set_output(transform="pandas")
    pipe.fit(df, pd.Series(y))
    np.testing.assert_array_equal(pipe[-1].feature_names_in_, df.columns)
    assert pipe.predict(df).shape == (300,)
    with pytest.warns(UserWarning, match="feature names"):
        pipe[-1].predict(X)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_pickle_clone_cross_val(Estimator):
    X, y = _data(n=400, n_classes=3)
    est = Estimator(max_iter=10, random_state=0)
    fitted = clone(est).fit(X, y)
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(fitted)).predict(X), fitted.predict(X)
    )
    assert clone(fitted).get_params() == est.get_params()
    assert cross_val_score(est, X, y, cv=3).shape == (3,)


def test_csr_duplicates_are_summed_without_touching_the_input():
    # Two stored entries (0.4, 0.4) in one cell are one value 0.8: its row norm
    # must be 0.8, not sqrt(2) * 0.4, or the clip would let the row exceed C.
    data = np.array([0.4, 0.4, 0.5, 0.9, 0.1, 0.7])
    indices = np.array([0, 0, 1, 1, 0, 1])
    indptr = np.array([0, 3, 4, 6])
    X = sp.csr_matrix((data, indices, indptr), shape=(3, 2))
    y = np.array([0, 1, 1])
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    kw = dict(max_iter=5, clip_norm=0.3, classes=[0, 1], random_state=0)
    a = DPLogisticRegression(**kw).fit(X, y)
    for got, want in zip((X.data, X.indices, X.indptr), before, strict=True):
        np.testing.assert_array_equal(got, want)
    b = DPLogisticRegression(**kw).fit(X.toarray(), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)


def test_a_plan_chosen_after_the_noisy_count_reports_its_filters_cap():
    # PURSchedule's plan, read off the noisy count, may spend less than its cap;
    # the cap is the guarantee (before: the realised 0.958 was reported).
    X, y = _data(n=500)
    kw = {"epsilon": 1.0, "delta": 1e-6, "schedule": PURSchedule(), "random_state": 0}
    counted = DPLogisticRegression(**kw).fit(X, y)
    spent = gdp_mu_from_noise_multipliers(
        np.concatenate([np.full(s.count, s.noise_multiplier) for s in counted.ledger_])
    )
    assert spent < counted.mu_ * (1 - 1e-3)  # the plan did spend less
    assert counted.epsilon_ == pytest.approx(1.0, rel=1e-12)
    assert gdp_delta(counted.mu_, counted.epsilon_) <= counted.delta_
    with PrivacyLedger() as ledger:
        DPLogisticRegression(**kw).fit(X, y)
    assert ledger.epsilon(1e-6) == pytest.approx(1.0, rel=1e-9)
    # A declared public size: the plan is fixed in advance, its spend is exact.
    fixed = DPLogisticRegression(public_n_samples=500, **kw).fit(X, y)
    assert fixed.epsilon_ < 1.0
