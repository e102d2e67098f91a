"""The default grid of the private grid search: the "auto" rules, public inputs."""

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_dpgd import DPHuberSVM, DPLogisticRegression
from sklearn_dpgd.model_selection._grids import (
    DEFAULT_ALPHAS,
    DEFAULT_RADIUS_FACTORS,
    default_candidates,
)

DELTA = 1e-6


@pytest.mark.parametrize(
    "estimator, n_classes",
    [
        (DPLogisticRegression(), 2),
        (DPLogisticRegression(), 3),
        (DPHuberSVM(), 2),
        (DPHuberSVM(), 3),
        (DPLogisticRegression(neighboring="replace", fit_intercept=False), 2),
    ],
)
def test_default_grid_contains_the_default_configuration(estimator, n_classes):
    # Factor 1 is what learning_rate="auto", max_iter="auto" resolve to in a fit
    # at the same budget and public size (a drift of the rules fails here).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 7)) / 4
    y = np.arange(300) % n_classes
    public_size = 5000
    fitted = (
        clone(estimator)
        .set_params(
            epsilon=0.7,
            delta=DELTA,
            classes=list(range(n_classes)),
            public_n_samples=public_size,
            random_state=0,
        )
        .fit(X, y)
    )
    grid = default_candidates(
        estimator, 0.7, DELTA, public_size, 7, n_classes=n_classes
    )
    assert grid[DEFAULT_RADIUS_FACTORS.index(1.0)] == {
        "learning_rate": pytest.approx(fitted.learning_rates_[0], rel=1e-12),
        "max_iter": fitted.n_iter_,
    }
    for factor, candidate in zip(DEFAULT_RADIUS_FACTORS, grid, strict=True):
        assert candidate["max_iter"] == fitted.n_iter_
        assert candidate["learning_rate"] == pytest.approx(
            factor * fitted.learning_rates_[0], rel=1e-12
        )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"radius_factors": ()}, "radius_factors"),
        ({"radius_factors": (1.0, -4.0)}, "radius_factors"),
        ({"radius_factors": (1.0, float("inf"))}, "radius_factors"),
        ({"radius_factors": "big"}, "radius_factors"),
        ({"n_classes": 1}, "n_classes"),
        ({"n_classes": 2.5}, "n_classes"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"n_samples": 0}, "n_samples"),
        ({"n_features": 0}, "n_features"),
    ],
)
def test_default_candidates_validation(kwargs, match):
    args = {"epsilon": 1.0, "delta": DELTA, "n_samples": 1000, "n_features": 5}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        default_candidates(DPLogisticRegression(), **args)


def test_default_grid_drops_the_penalty_on_its_longest_walk():
    # With alpha="auto" the longest walk runs unpenalised (DEFAULT_ALPHAS); the
    # other candidates keep the estimator's "auto" (no alpha entry).
    grid = default_candidates(DPLogisticRegression(), 1.0, DELTA, 1000, 5)
    assert [c.get("alpha", "auto") for c in grid] == list(DEFAULT_ALPHAS)
    assert (
        DEFAULT_ALPHAS[DEFAULT_RADIUS_FACTORS.index(max(DEFAULT_RADIUS_FACTORS))] == 0
    )
    assert DEFAULT_ALPHAS[DEFAULT_RADIUS_FACTORS.index(1.0)] == "auto"
    # A penalty the user set is kept for every candidate.
    grid = default_candidates(DPLogisticRegression(alpha=0.01), 1.0, DELTA, 1000, 5)
    assert all("alpha" not in c for c in grid)
    # Explicit penalties, aligned with the factors.
    grid = default_candidates(
        DPLogisticRegression(),
        1.0,
        DELTA,
        1000,
        5,
        radius_factors=(1.0, 2.0),
        alphas=(0.5, "auto"),
    )
    assert grid[0]["alpha"] == 0.5 and "alpha" not in grid[1]


@pytest.mark.parametrize(
    "alphas",
    [
        ("auto",),
        ("auto", "auto", -1.0),
        ("auto", "auto", float("nan")),
        ("big",) * 3,
        3,
    ],
)
def test_default_candidates_rejects_bad_alphas(alphas):
    with pytest.raises(ValueError, match="alphas"):
        default_candidates(DPLogisticRegression(), 1.0, DELTA, 1000, 5, alphas=alphas)
