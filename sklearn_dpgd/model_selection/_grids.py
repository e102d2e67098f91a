"""The default grid of :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV`.

Candidates are multiples of the estimator's automatic noisy radius
``learning_rate * max_iter`` (Panda et al., "A new linear scaling rule for
private adaptive hyperparameter optimization", ICML 2024, Sec. 2.1-2.2), resolved
from public quantities only by the rules of :mod:`sklearn_dpgd.schedules`.
"""

import math
from numbers import Integral, Real

import numpy as np

from ..accounting import gdp_epsilon, gdp_mu
from ..linear_model._base import _NORMALIZED_STEP_LENGTH
from ..linear_model._classifier import _BaseDPLinearClassifier
from ..linear_model._utility import DIAGNOSTICS_SHARE
from ..pipeline import PrivatePipeline
from ..schedules import auto_learning_rate, auto_max_iter

#: Multiples of the estimator's default noisy radius ``learning_rate * max_iter``
#: that the default grid of
#: :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` tries (see
#: :func:`default_candidates`): the default itself and 4 and 16 times longer walks.
DEFAULT_RADIUS_FACTORS = (1.0, 4.0, 16.0)

#: The L2 penalty of each default-grid candidate, aligned with
#: :data:`DEFAULT_RADIUS_FACTORS`: "auto" keeps the estimator's ``alpha="auto"``
#: (``1 / public_n_samples``), a number replaces it. The longest walk runs without
#: the penalty: a penalty of ``1 / m`` caps how far the coefficients can travel,
#: which is what a longer walk is for (see :func:`default_candidates`).
DEFAULT_ALPHAS = ("auto", "auto", 0.0)


def _check_default_grid_estimator(estimator, owner):
    """The estimator must resolve its step and horizon by the package's rules."""
    if not isinstance(estimator, _BaseDPLinearClassifier):
        raise TypeError(
            f"{owner} builds its default grid for the linear models of "
            "sklearn_dpgd.linear_model only; pass an explicit grid for "
            f"{type(estimator).__name__}."
        )
    params = estimator.get_params(deep=False)
    fixed = [
        name
        for name, value in (
            ("learning_rate", params["learning_rate"]),
            ("max_iter", params["max_iter"]),
        )
        if value != "auto"
    ]
    # "auto" runs as "gd" in a search (_search_base._gd_for_auto).
    gd = params["solver"] in ("gd", "auto")
    if fixed or params["schedule"] is not None or not gd:
        raise ValueError(
            f"{owner} builds its default grid around learning_rate='auto', "
            "max_iter='auto', schedule=None and solver='gd' (or 'auto', run as "
            "'gd') of the estimator; got "
            f"learning_rate={params['learning_rate']!r}, max_iter="
            f"{params['max_iter']!r}, schedule={params['schedule']!r}, solver="
            f"{params['solver']!r}. Pass an explicit grid instead."
        )


def _training_epsilon(estimator, epsilon, delta):
    """The epsilon the "auto" rules of a fit see: its utility diagnostics' share of
    ``mu^2`` (full-batch fits, ``utility_diagnostics=True``) comes off first."""
    if not (estimator.utility_diagnostics and estimator.batch_size is None):
        return epsilon
    mu = gdp_mu(epsilon, delta)
    return gdp_epsilon(math.sqrt(mu**2 - DIAGNOSTICS_SHARE * mu**2), delta)


def _auto_step_and_horizon(estimator, epsilon, delta, n_samples, n_features, n_outputs):
    """The ``(learning_rate, max_iter)`` that "auto" resolves to (public inputs)."""
    epsilon = _training_epsilon(estimator, epsilon, delta)
    normalized = estimator._resolve_normalize_steps(n_outputs)
    common = dict(
        n_outputs=n_outputs,
        neighboring=estimator.neighboring,
        fit_intercept=bool(estimator.fit_intercept),
    )
    horizon_factor = (
        estimator._horizon_factor if normalized else estimator._gradient_horizon_factor
    )
    n_steps = auto_max_iter(
        epsilon,
        delta,
        n_samples,
        n_features,
        horizon_factor=horizon_factor,
        **common,
    )
    if normalized:
        base, scale = _NORMALIZED_STEP_LENGTH, 1.0
    else:
        clip = estimator._resolve_clip_norm(False, n_samples, n_features, n_outputs)
        base, scale = estimator._base_learning_rate, 1.0 / clip
    step = scale * auto_learning_rate(
        base, n_steps, epsilon, delta, n_samples, n_features, **common
    )
    return step, n_steps


def default_candidates(
    estimator,
    epsilon,
    delta,
    n_samples,
    n_features,
    *,
    n_classes=2,
    radius_factors=DEFAULT_RADIUS_FACTORS,
    alphas=DEFAULT_ALPHAS,
):
    """The default grid of a private grid search at one budget and shape.

    Candidate ``j`` keeps the horizon ``T`` that ``max_iter="auto"`` resolves to
    and takes ``radius_factors[j]`` times the step of ``learning_rate="auto"``:
    its noisy radius ``learning_rate * max_iter`` is ``radius_factors[j]`` times
    the default's (Panda et al., "A new linear scaling rule for private adaptive
    hyperparameter optimization", ICML 2024, Sec. 2.1: for noisy gradient descent
    the pair matters mostly through this product). With a factor of 1 the
    candidate *is* the estimator's untuned default. If the estimator's ``alpha``
    is "auto", candidate ``j`` also takes the L2 penalty ``alphas[j]`` where it is
    a number (by default the longest walk, 16 times the default radius, runs with
    ``alpha=0``); an ``alpha`` the user set is kept for every candidate. The
    default penalty ``1 / m`` is scikit-learn's ``C=1.0``; on data whose signal
    needs large coefficients (many weak or badly scaled features, rows scaled to
    unit norm) it costs accuracy (on the badly scaled task of
    ``benchmarks/bench_tuning_new_data.py`` at epsilon 2, the default fit
    scores 0.814 with it and 0.864 without it, 3 seeds), so the grid, like a
    scikit-learn user tuning ``C``, also tries the unpenalised objective. Its
    longest walk gets it because a penalty of ``1 / m`` stops the coefficients
    where a longer walk is meant to take them further. Everything is a function of
    public quantities (the budget, the public size, the number of features and
    of classes) through :func:`~sklearn_dpgd.schedules.auto_max_iter` and
    :func:`~sklearn_dpgd.schedules.auto_learning_rate`; no data is read.

    The search resolves the grid twice: at each candidate's budget and the
    train part's public size to fit the candidates, and at the refit's budget
    and the whole public size for the refit of the winning *factor*. The auto
    rules scale the radius with ``mu n / sqrt(d)``, so a factor chosen at the
    candidates' budget transfers to the refit's.

    Parameters
    ----------
    estimator : DPLogisticRegression or DPHuberSVM
        With ``learning_rate="auto"``, ``max_iter="auto"``, ``schedule=None``
        and ``solver="gd"`` or ``"auto"`` (run as "gd" by the searches).
    epsilon : float
        The budget of the fits the grid is for, > 0.
    delta : float
        In (0, 1).
    n_samples : int
        Their public size, >= 1.
    n_features : int
        Number of features, >= 1.
    n_classes : int, default=2
        Number of classes (public, e.g. ``len(estimator.classes)``), >= 2.
    radius_factors : sequence of float, default=DEFAULT_RADIUS_FACTORS
        Multiples of the default radius, each finite and > 0.
    alphas : sequence of {"auto"} or float, default=DEFAULT_ALPHAS
        The L2 penalty of each candidate, as long as ``radius_factors``: "auto"
        keeps the estimator's, a number (finite, >= 0) sets ``alpha`` where the
        estimator's ``alpha`` is "auto".

    Returns
    -------
    candidates : list of dict
        One ``{"learning_rate": float, "max_iter": int}`` per factor, in order,
        with an ``"alpha"`` entry where ``alphas`` sets one.

    Raises
    ------
    TypeError
        If ``estimator`` is not a linear model of this package.
    ValueError
        If the estimator does not use the "auto" rules, or ``epsilon``,
        ``delta``, ``n_samples``, ``n_features``, ``n_classes`` or
        ``radius_factors`` or ``alphas`` is invalid (the message names it).
    """
    _check_default_grid_estimator(estimator, "default_candidates")
    factors = _check_radius_factors(radius_factors)
    penalties = _check_alphas(alphas, len(factors))
    if isinstance(n_classes, bool) or not isinstance(n_classes, Integral):
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}.")
    if n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}.")
    if not (isinstance(epsilon, Real) and 0 < epsilon < math.inf):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}.")
    if not (isinstance(delta, Real) and 0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    n_outputs = 1 if n_classes == 2 else int(n_classes)
    step, n_steps = _auto_step_and_horizon(
        estimator, float(epsilon), float(delta), n_samples, n_features, n_outputs
    )
    candidates = [{"learning_rate": f * step, "max_iter": n_steps} for f in factors]
    if estimator.get_params(deep=False)["alpha"] == "auto":
        for candidate, alpha in zip(candidates, penalties, strict=True):
            if alpha != "auto":
                candidate["alpha"] = alpha
    return candidates


def grid_estimator(estimator):
    """The estimator the default grid is built for: a pipeline's final step."""
    if isinstance(estimator, PrivatePipeline):
        return estimator.steps[-1][1]
    return estimator


def pipeline_default_candidates(
    pipeline, epsilon, delta, n_samples, n_features, **kwargs
):
    """:func:`default_candidates` of a pipeline's final step, as pipeline parameters.

    The final step's budget is its share of the pipeline's ``(epsilon, delta)``
    (the pipeline's split, a function of its parameters only); ``n_features`` is
    the width of the rows the final step sees (after the preprocessing). The keys
    are ``<final step>__learning_rate`` and so on.
    """
    plan = pipeline.set_params(epsilon=epsilon, delta=delta)
    _, budget = plan._plan(plan._readers(plan._pipeline()))
    name, final = pipeline.steps[-1]
    eps, delta_final = budget[name]
    return [
        {f"{name}__{key}": value for key, value in candidate.items()}
        for candidate in default_candidates(
            final, eps, delta_final, n_samples, n_features, **kwargs
        )
    ]


def default_grids(estimator, budgets, delta, sizes, n_features, n_classes):
    """The default grid of a search: candidates, refit factors, refit parameters.

    ``budgets``: ``(epsilon, mu)`` of a candidate, then of the refit; ``sizes``:
    the candidates' and the refit's public sizes. For a
    :class:`~sklearn_dpgd.pipeline.PrivatePipeline`, the grid of its final step
    (:func:`pipeline_default_candidates`; ``n_features`` is then the width of
    its rows).
    """
    eps_candidate, mu_candidate, eps_refit, mu_refit = budgets
    grid = (
        pipeline_default_candidates
        if isinstance(estimator, PrivatePipeline)
        else default_candidates
    )
    candidates = grid(
        estimator,
        eps_candidate,
        delta,
        sizes[0],
        n_features,
        n_classes=n_classes,
        alphas=DEFAULT_ALPHAS,
    )
    # The winner's factor is read at the candidates' budget; see
    # _transferred_factors for how it is carried to the refit's.
    refit_factors = _transferred_factors(DEFAULT_RADIUS_FACTORS, mu_candidate, mu_refit)
    refit_grid = grid(
        estimator,
        eps_refit,
        delta,
        sizes[1],
        n_features,
        n_classes=n_classes,
        radius_factors=refit_factors,
        alphas=DEFAULT_ALPHAS,
    )
    return candidates, refit_factors, refit_grid


def grid_cv_results(candidates, best, eps_candidate, refit_factors, refit_grid):
    """``cv_results_`` of a private grid search: the candidates and the winner.

    Never a score (see :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV`).
    """
    k = len(candidates)
    results = {"params": candidates}
    if refit_factors is not None:
        results["param_radius_factor"] = np.ma.masked_array(
            DEFAULT_RADIUS_FACTORS, mask=False, dtype=object
        )
    for name in sorted({n for c in candidates for n in c}):
        results[f"param_{name}"] = np.ma.masked_array(
            [c.get(name) for c in candidates],
            mask=[name not in c for c in candidates],
            dtype=object,
        )
    results["selected"] = np.arange(k) == best
    results["candidate_epsilon"] = np.full(k, eps_candidate)
    if refit_factors is not None:
        results["refit_radius_factor"] = np.asarray(refit_factors)
        results["refit_params"] = list(refit_grid)
    return results


def _transferred_factors(factors, mu_candidate, mu_refit):
    """The radius factors of the refit for factors chosen at the candidates' budget.

    Panda et al. (ICML 2024, Sec. 2.2) model the best noisy radius as a line in
    the budget, ``r*(e) = a + b e``. The automatic radius of the estimators grows
    like the GDP ``mu`` (:func:`~sklearn_dpgd.schedules.auto_learning_rate`), so
    if it matches the slope (``r_auto = b mu``), the best factor
    ``r* / r_auto = 1 + a / (b mu)`` exceeds 1 by an amount inversely
    proportional to ``mu``: a factor ``f`` that wins at ``mu_candidate`` becomes
    ``1 + (f - 1) mu_candidate / mu_refit`` at ``mu_refit``. On the benchmark of
    ``benchmarks/bench_tuning_new_data.py`` the untransferred factor overshot:
    the candidates, with a fraction of the budget, preferred longer walks than
    the refit could use.
    """
    ratio = mu_candidate / mu_refit
    return tuple(1.0 + (f - 1.0) * ratio for f in factors)


def _check_radius_factors(radius_factors):
    try:
        factors = tuple(float(f) for f in radius_factors)
    except (TypeError, ValueError):
        factors = ()
    if not factors or not all(math.isfinite(f) and f > 0 for f in factors):
        raise ValueError(
            "radius_factors must be a non-empty sequence of finite numbers > 0, got "
            f"{radius_factors!r}."
        )
    return factors


def _check_alphas(alphas, n_factors):
    try:
        penalties = tuple(a if isinstance(a, str) else float(a) for a in alphas)
    except (TypeError, ValueError):
        penalties = ()
    valid = len(penalties) == n_factors and all(
        a == "auto" if isinstance(a, str) else (math.isfinite(a) and a >= 0)
        for a in penalties
    )
    if not valid:
        raise ValueError(
            f"alphas must hold one 'auto' or finite number >= 0 for each of the "
            f"{n_factors} radius factors, got {alphas!r}."
        )
    return penalties
