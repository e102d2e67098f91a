import pickle

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.schedules import (
    ExponentialDecaySchedule,
    NoiseSchedule,
    UniformSchedule,
)


@pytest.mark.parametrize("n_steps", [1, 2, 100])
def test_uniform_profile(n_steps):
    p = UniformSchedule().noise_multipliers(n_steps)
    assert p.shape == (n_steps,)
    np.testing.assert_array_equal(p, 1.0)


@pytest.mark.parametrize("rate", [0.5, 0.99, 1.0])
def test_exponential_profile_is_geometric(rate):
    p = ExponentialDecaySchedule(rate).noise_multipliers(50)
    assert p.shape == (50,)
    np.testing.assert_allclose(p, rate ** np.arange(50), rtol=1e-12)


def test_exponential_profile_refuses_underflow():
    with pytest.raises(ValueError, match="underflow"):
        ExponentialDecaySchedule(1e-3).noise_multipliers(2000)


@pytest.mark.parametrize("rate", [0.0, -0.5, 1.5, float("nan")])
def test_exponential_rejects_bad_rate(rate):
    with pytest.raises(ValueError, match="decay_rate"):
        ExponentialDecaySchedule(rate)


def test_exponential_rejects_non_numbers():
    with pytest.raises(TypeError, match="decay_rate"):
        ExponentialDecaySchedule("0.9")


@pytest.mark.parametrize("schedule", [UniformSchedule(), ExponentialDecaySchedule(0.9)])
@pytest.mark.parametrize("bad", [0, -3])
def test_n_steps_validated(schedule, bad):
    with pytest.raises(ValueError, match="n_steps"):
        schedule.noise_multipliers(bad)
    with pytest.raises(TypeError, match="n_steps"):
        schedule.noise_multipliers(2.5)


def test_schedules_are_frozen_values():
    s = ExponentialDecaySchedule(0.95)
    assert s == ExponentialDecaySchedule(0.95) and s != ExponentialDecaySchedule(0.9)
    assert repr(s) == "ExponentialDecaySchedule(decay_rate=0.95)"
    with pytest.raises(AttributeError):
        s.decay_rate = 0.5
    assert pickle.loads(pickle.dumps(s)) == s
    assert isinstance(s, NoiseSchedule) and hash(s) == hash(
        ExponentialDecaySchedule(0.95)
    )


def test_schedule_survives_clone():
    est = DPLogisticRegression(schedule=ExponentialDecaySchedule(0.9))
    assert clone(est).get_params()["schedule"] == ExponentialDecaySchedule(0.9)


from sklearn_dpgd.accounting import gdp_mu  # noqa: E402
from sklearn_dpgd.schedules import (  # noqa: E402
    PLOptimalSchedule,
    PURSchedule,
    ScheduleContext,
    StepDecaySchedule,
    TimeDecaySchedule,
)


def _context(**kw):
    base = dict(
        epsilon=1.0,
        delta=1e-8,
        n_samples=30000,
        n_features=100,
        n_outputs=1,
        fit_intercept=True,
        clip_norm=1.0,
        sensitivity=1.0,
        alpha=0.0,
        margin_smoothness=0.25,
        initial_loss=np.log(2),
    )
    base.update(kw)
    return ScheduleContext(**base)


def test_step_decay_profile():
    p = StepDecaySchedule(decay_rate=0.5, period=3).noise_multipliers(8)
    np.testing.assert_allclose(p, [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25])


def test_time_decay_profile():
    p = TimeDecaySchedule(k=0.5, power=0.5).noise_multipliers(4)
    np.testing.assert_allclose(p, 1 / np.sqrt(1 + 0.5 * np.arange(4)))
    p1 = TimeDecaySchedule(k=0.5, power=1.0).noise_multipliers(4)
    np.testing.assert_allclose(p1, 1 / (1 + 0.5 * np.arange(4)))
    np.testing.assert_array_equal(TimeDecaySchedule(k=0.0).noise_multipliers(3), 1.0)


def test_pl_optimal_profile_is_exponential_with_rate_gamma_quarter():
    kappa = 50.0
    p = PLOptimalSchedule(kappa=kappa).noise_multipliers(30)
    gamma = 1 - 1 / kappa
    # Thm 4.4: sigma_t^2 proportional to gamma^(t/2), so sigma_t to gamma^(t/4).
    np.testing.assert_allclose(p[1:] / p[:-1], gamma**0.25, rtol=1e-12)
    np.testing.assert_array_equal(
        PLOptimalSchedule(kappa=1.0).noise_multipliers(4), 1.0
    )


def test_pl_optimal_horizon_follows_theorem_4_4():
    ctx = _context()
    s = PLOptimalSchedule(kappa=20.0)
    # alpha of eq. (4) from public constants: D G^2 / (2 R M N^2 F0).
    M = 0.25 * (1 + 1)
    alpha = 101 * 1.0 / (2 * gdp_mu(1.0, 1e-8) ** 2 * M * 30000**2 * np.log(2))
    assert s.horizon(ctx) == int(np.ceil(2 * 20 * np.log1p(1 / (20 * alpha))))
    # More budget or more data -> smaller alpha -> longer horizon.
    assert s.horizon(_context(epsilon=4.0)) > s.horizon(ctx)
    lr = PLOptimalSchedule(theory_learning_rate=True).learning_rates(5, ctx)
    np.testing.assert_allclose(lr, 1 / M)
    assert PLOptimalSchedule().learning_rates(5, ctx) is None


def test_uniform_horizon_theorem_4_2_only_with_kappa():
    ctx = _context()
    assert UniformSchedule().horizon(ctx) is None
    t = UniformSchedule(kappa=20.0).horizon(ctx)
    assert 1 <= t < PLOptimalSchedule(kappa=20.0).horizon(ctx)


@pytest.mark.parametrize("kind", ["nonconvex", "convex", "strongly_convex"])
def test_pur_noise_levels_follow_proposition_3(kind):
    ctx = _context(alpha=0.01)
    s = PURSchedule(kind=kind, radius=5.0)
    sigma = s.noise_std(50, ctx)
    t = np.arange(1, 51)
    M = 0.25 * 2 + 0.01
    d = 101
    if kind == "nonconvex":
        want = 4 * M * np.sqrt(np.log(2)) / (np.sqrt(d) * t)
    elif kind == "convex":
        want = 4 * M * 5.0 / (np.sqrt(d) * t)
    else:
        want = np.sqrt(2 * 0.01 * np.log(2) * (1 - 0.01 / (2 * M)) ** t / d)
    np.testing.assert_allclose(sigma, want, rtol=1e-12)
    np.testing.assert_allclose(s.learning_rates(3, ctx), 1 / (2 * M))


def test_pur_horizon_is_set_by_the_budget():
    ctx = _context()
    s = PURSchedule()
    z, lr = s.plan(10_000, ctx)
    T = len(z)
    # The first T steps fit in mu^2, one more would not.
    mu2 = gdp_mu(1.0, 1e-8) ** 2
    assert np.sum(1 / z**2) <= mu2
    z_more = s._absolute(T + 1, ctx)
    assert np.sum(1 / z_more**2) > mu2
    assert s.horizon(ctx) == T and lr.shape == (T,)
    assert s.horizon(_context(epsilon=4.0)) > T


def test_pur_needs_alpha_or_radius():
    with pytest.raises(ValueError, match="alpha > 0"):
        PURSchedule(kind="strongly_convex").noise_std(3, _context())
    with pytest.raises(ValueError, match="radius"):
        PURSchedule(kind="convex").noise_std(3, _context())


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: StepDecaySchedule(decay_rate=0.0), "decay_rate"),
        (lambda: StepDecaySchedule(period=0), "period"),
        (lambda: TimeDecaySchedule(k=-1.0), "k"),
        (lambda: TimeDecaySchedule(power=0.0), "power"),
        (lambda: PLOptimalSchedule(kappa=0.5), "kappa"),
        (lambda: PLOptimalSchedule(data_norm=0.0), "data_norm"),
        (lambda: UniformSchedule(kappa=0.9), "kappa"),
        (lambda: PURSchedule(kind="concave"), "kind"),
        (lambda: PURSchedule(radius=-1.0), "radius"),
        (lambda: PURSchedule(max_steps=0), "max_steps"),
    ],
)
def test_new_schedules_validate(make, match):
    with pytest.raises(ValueError, match=match):
        make()


ALL_SCHEDULES = [
    UniformSchedule(),
    UniformSchedule(kappa=30.0),
    ExponentialDecaySchedule(),
    StepDecaySchedule(),
    TimeDecaySchedule(),
    PLOptimalSchedule(),
    PLOptimalSchedule(kappa=10.0, theory_learning_rate=True),
    PURSchedule(),
]


@pytest.mark.parametrize("schedule", ALL_SCHEDULES, ids=repr)
@pytest.mark.parametrize("estimator", ["logistic", "svm"])
def test_every_schedule_fits_within_budget(schedule, estimator):
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import Normalizer

    from sklearn_dpgd import DPHuberSVM

    X, y = make_classification(n_samples=800, n_features=6, random_state=0)
    X = Normalizer().fit_transform(X)
    Est = DPLogisticRegression if estimator == "logistic" else DPHuberSVM
    clf = Est(
        epsilon=0.8, delta=1e-6, schedule=schedule, classes=[0, 1], random_state=0
    )
    clf.fit(X, y)
    assert clf.epsilon_ <= 0.8
    assert clf.n_iter_ == len(clf.noise_multipliers_) >= 1
    assert clf.score(X, y) > 0.6
    if not isinstance(schedule, PURSchedule):  # PUR stops below the budget
        assert clf.epsilon_ == pytest.approx(0.8, rel=1e-9)


def test_schedules_in_a_grid_search():
    from sklearn.datasets import make_classification
    from sklearn.model_selection import GridSearchCV

    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    grid = GridSearchCV(
        DPLogisticRegression(classes=[0, 1], random_state=0),
        {"schedule": ALL_SCHEDULES},
        cv=2,
    ).fit(X, y)
    # Every candidate was fitted and scored (no candidate failed to fit).
    assert len(grid.cv_results_["params"]) == len(ALL_SCHEDULES)
    assert np.all(np.isfinite(grid.cv_results_["mean_test_score"]))
    assert np.all(grid.cv_results_["mean_test_score"] > 0.5)
