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
