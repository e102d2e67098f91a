"""The documented "auto" rules: horizon, step size and clipping threshold.

Each rule is a function of public quantities only (the budget, the public size,
the dimension, the neighbouring relation), so resolving ``"auto"`` reads no data.
The public ones are re-exported by :mod:`sklearn_dpgd.schedules`
(:func:`~sklearn_dpgd.schedules.auto_max_iter`,
:func:`~sklearn_dpgd.schedules.auto_clip_norm`,
:func:`~sklearn_dpgd.schedules.auto_learning_rate`); the user guide, "How the
defaults were chosen", gives the evidence.
"""

import math
from numbers import Integral

from ..accounting import gdp_mu

__all__ = ["auto_clip_norm", "auto_learning_rate", "auto_max_iter"]

# Bounds of the automatic horizon: a handful of steps is the least that moves a
# model; past 1000 full passes the accuracy gain on Adult is below 0.001 while the
# cost grows linearly (benchmarks/bench_adult.py).
AUTO_MAX_ITER_BOUNDS = (5, 1000)
# auto_clip_norm: the horizon unit mu n / (s sqrt(d')) at which the threshold
# reaches 1.0 (holdouts of Adult's and Bank's training splits).
AUTO_CLIP_SCALE = 400.0

# Base step length of normalised steps under learning_rate="auto" (parameter units;
# both losses), chosen with clip_norm="auto" on holdouts of Adult's and Bank's
# training splits (benchmarks/bench_accuracy.py --ablation).
NORMALIZED_STEP_LENGTH = 0.5


# The automatic horizon is this many times mu n / (s sqrt(d')), and the automatic
# step keeps the "noisy radius" learning_rate * max_iter of the rule with factor 1
# (see auto_max_iter and auto_learning_rate for the evidence).
AUTO_HORIZON_FACTOR = 4


def _horizon_unit(
    epsilon, delta, n_samples, n_features, n_outputs, neighboring, fit_intercept
):
    if neighboring not in ("add_remove", "replace"):
        raise ValueError(
            f"neighboring must be 'add_remove' or 'replace', got {neighboring!r}."
        )
    for name, value in (
        ("n_samples", n_samples),
        ("n_features", n_features),
        ("n_outputs", n_outputs),
    ):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
    s = 2.0 if neighboring == "replace" else 1.0
    dim = n_outputs * (n_features + (1 if fit_intercept else 0))
    return gdp_mu(epsilon, delta) * n_samples / (s * math.sqrt(dim))


def _clip_steps(t):
    lo, hi = AUTO_MAX_ITER_BOUNDS
    return int(min(hi, max(lo, round(t))))


def auto_max_iter(
    epsilon,
    delta,
    n_samples,
    n_features,
    *,
    n_outputs=1,
    neighboring="add_remove",
    fit_intercept=True,
    horizon_factor=AUTO_HORIZON_FACTOR,
):
    """Number of private steps chosen from public quantities only.

    ``T = c mu n / (s sqrt(d'))``, rounded and clipped to [5, 1000], where ``mu`` is
    the GDP budget of ``(epsilon, delta)``, ``n`` the number of rows, ``s`` the
    sensitivity factor (1 for add/remove-one, 2 for replace-one neighbouring) and
    ``d' = n_outputs * (n_features + fit_intercept)`` the gradient dimension and
    ``c = horizon_factor`` (4 for the estimators' defaults; 1 for the Huber hinge
    with plain gradient steps).

    Why this shape: with exact composition each of ``T`` equal steps has noise
    multiplier ``z = sqrt(T) / mu``, so the noise on the mean gradient has norm about
    ``s sqrt(T d') / (mu n)`` (units of ``clip_norm``). More steps reduce the
    optimisation error but raise the per-step noise like ``sqrt(T)``; a horizon
    proportional to ``mu n / (s sqrt(d'))`` keeps the per-step noise-to-signal ratio at
    a fixed level as the budget and the data grow. The proportionality was read off a
    sweep over ``T`` on a holdout of Adult's *training* split
    (``benchmarks/bench_adult.py --sweep``). What matters most is the "noisy radius"
    ``learning_rate * T`` (Panda et al., *A New Linear Scaling Rule for Private Adaptive
    Hyperparameter Optimization*, Sec. 2): at a fixed radius, four times more, four
    times smaller steps (:func:`auto_learning_rate`) were as good or better on holdouts
    of Adult's and Bank's training splits at every epsilon, by up to 0.6 points at small
    budgets, where few steps leave heavy-ball momentum no time to act
    (``benchmarks/bench_accuracy.py``). The Huber hinge did not gain with plain gradient
    steps (on Adult's holdout it lost 1.4 points at epsilon = 0.1 and tied at 0.05 and
    0.4), so :class:`~sklearn_dpgd.DPHuberSVM` keeps ``c = 1`` for them; with normalised
    steps (its default for binary problems) ``c = 4`` gained on the same holdouts.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    n_samples : int
        The public size of the training set (``public_n_samples_`` of the
        estimator, never the private number of rows under add/remove), >= 1.
    n_features : int
        Number of features, >= 1.
    n_outputs : int, default=1
        Rows of the coefficient matrix: 1 for binary models, the number of classes
        for multiclass ones.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation; "replace" doubles the sensitivity.
    fit_intercept : bool, default=True
        Whether the gradient has one more coordinate for the intercept.
    horizon_factor : float, default=4
        ``c`` > 0.

    Returns
    -------
    max_iter : int
        In [5, 1000].

    Raises
    ------
    ValueError
        If ``epsilon``, ``delta``, ``n_samples``, ``n_features``, ``n_outputs`` or
        ``neighboring`` is invalid.
    """
    t = _horizon_unit(
        epsilon, delta, n_samples, n_features, n_outputs, neighboring, fit_intercept
    )
    if not horizon_factor > 0 or not math.isfinite(horizon_factor):
        raise ValueError(
            f"horizon_factor must be finite and > 0, got {horizon_factor!r}."
        )
    return _clip_steps(horizon_factor * t)


def auto_clip_norm(
    epsilon,
    delta,
    n_samples,
    n_features,
    *,
    n_outputs=1,
    neighboring="add_remove",
    fit_intercept=True,
):
    """Clipping threshold for normalised steps, from public quantities only.

    With ``t = mu n / (s sqrt(d'))`` (the horizon unit of :func:`auto_max_iter`:
    ``mu`` the GDP budget of ``(epsilon, delta)``, ``n`` the rows, ``s`` = 1 for
    add/remove-one and 2 for replace-one, ``d'`` the gradient dimension), the
    threshold is ``t / 400`` clipped to [0.5, 1.0]: 0.5 up to ``t = 200``, 1.0
    from ``t = 400``. Clipping trades bias for noise (the noise std is
    proportional to ``clip_norm``; the signal of an example is capped by it): when
    each step's noise is large relative to the signal (small ``t``), clipping most
    per-example gradients to 0.5 pays; when it is small, the bias dominates. Read
    off three 80/20 holdouts of Adult's and Bank's *training* splits with
    normalised steps and unit-norm rows (6 to 8 seeds): up to ``t`` of about 210,
    0.5 beat 1.0 by 0.1 to 0.4 points; from ``t`` of about 400 on, the two tied in
    accuracy (within 0.05 points, or 1.0 ahead) while 1.0 had a much lower
    log-loss (at epsilon = 1.6: Adult 0.352 against 0.381, Bank 0.259 against
    0.285), because clipping biases the fitted probabilities;
    ``python benchmarks/bench_accuracy.py --ablation`` prints the evidence. This
    package's choice, not a rule from the papers it cites.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    n_samples : int
        The public size of the training set (``public_n_samples_`` of the
        estimator, never the private number of rows under add/remove), >= 1.
    n_features : int
        Number of features, >= 1.
    n_outputs : int, default=1
        Rows of the coefficient matrix.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation; "replace" doubles the sensitivity.
    fit_intercept : bool, default=True
        Whether the gradient has one more coordinate for the intercept.

    Returns
    -------
    clip_norm : float
        In [0.5, 1.0], in the units of the per-example gradient norm.

    Raises
    ------
    ValueError
        If an argument is invalid.
    """
    t = _horizon_unit(
        epsilon, delta, n_samples, n_features, n_outputs, neighboring, fit_intercept
    )
    return min(1.0, max(0.5, t / AUTO_CLIP_SCALE))


def auto_learning_rate(
    base_learning_rate,
    n_steps,
    epsilon,
    delta,
    n_samples,
    n_features,
    *,
    n_outputs=1,
    neighboring="add_remove",
    fit_intercept=True,
):
    """Step size that keeps the noisy radius of the reference rule, from public data.

    The reference rule takes ``T_ref = mu n / (s sqrt(d'))`` steps (clipped to [5,
    1000]) of size ``base_learning_rate``; its "noisy radius" is
    ``r = base_learning_rate * T_ref`` (Panda et al., *A New Linear Scaling Rule for
    Private Adaptive Hyperparameter Optimization*, Sec. 2: the product of
    step size and steps is what the budget fixes). A run of ``n_steps`` steps gets
    ``min(base_learning_rate, r / n_steps)``: the same radius in more, smaller
    steps, never a larger step than the base.

    Parameters
    ----------
    base_learning_rate : float
        The step of the reference rule, > 0 (2.0 for the logistic loss, 0.5 for the
        Huber hinge).
    n_steps : int
        Steps of the run, >= 1.
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta, in (0, 1).
    n_samples : int
        The public size of the training set (``public_n_samples_`` of the
        estimator, never the private number of rows under add/remove), >= 1.
    n_features : int
        Number of features, >= 1.
    n_outputs : int, default=1
        Rows of the coefficient matrix.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation; "replace" doubles the sensitivity.
    fit_intercept : bool, default=True
        Whether the gradient has one more coordinate for the intercept.

    Returns
    -------
    learning_rate : float
        In ``(0, base_learning_rate]``.

    Raises
    ------
    ValueError
        If an argument is invalid.
    """
    if not base_learning_rate > 0 or not math.isfinite(base_learning_rate):
        raise ValueError(
            f"base_learning_rate must be finite and > 0, got {base_learning_rate!r}."
        )
    if isinstance(n_steps, bool) or not isinstance(n_steps, Integral) or n_steps < 1:
        raise ValueError(f"n_steps must be an integer >= 1, got {n_steps!r}.")
    t = _horizon_unit(
        epsilon, delta, n_samples, n_features, n_outputs, neighboring, fit_intercept
    )
    radius = base_learning_rate * _clip_steps(t)
    return min(float(base_learning_rate), radius / n_steps)


def resolve_max_iter(max_iter, schedule, context, *, neighboring, horizon_factor):
    """The horizon of a fit: ``max_iter``, the schedule's own, or :func:`auto_max_iter`.

    Parameters
    ----------
    max_iter : int or "auto"
        The estimator's parameter.
    schedule : NoiseSchedule
        Its resolved schedule (``schedule.horizon(context)`` may fix the horizon).
    context : ScheduleContext
        Public quantities of the fit (budget left for training, public size).
    neighboring : {"add_remove", "replace"}
    horizon_factor : float
        Factor of the "auto" rule (the estimator's, by step type).

    Returns
    -------
    n_steps : int
    """
    if max_iter != "auto":
        return int(max_iter)
    return schedule.horizon(context) or auto_max_iter(
        context.epsilon,
        context.delta,
        context.n_samples,
        context.n_features,
        n_outputs=context.n_outputs,
        neighboring=neighboring,
        fit_intercept=context.fit_intercept,
        horizon_factor=horizon_factor,
    )


def resolve_learning_rate(
    learning_rate, n_steps, context, *, normalize_steps, base_learning_rate, neighboring
):
    """The step size: ``learning_rate``, or the noisy-radius rule for "auto".

    Normalised steps get a step *length* of base :data:`NORMALIZED_STEP_LENGTH`
    (parameter units); plain gradient steps get the loss's base step divided by
    ``context.clip_norm``, so that the step does not depend on the units of the
    clipped gradient (:func:`auto_learning_rate`).

    Parameters
    ----------
    learning_rate : float or "auto"
        The estimator's parameter.
    n_steps : int
        The horizon of the run.
    context : ScheduleContext
        Public quantities of the fit.
    normalize_steps : bool
        Whether the steps are normalised.
    base_learning_rate : float
        The loss's base step of plain gradient steps.
    neighboring : {"add_remove", "replace"}

    Returns
    -------
    learning_rate : float
    """
    if learning_rate != "auto":
        return float(learning_rate)
    if normalize_steps:
        base, scale = NORMALIZED_STEP_LENGTH, 1.0
    else:
        base, scale = base_learning_rate, 1.0 / context.clip_norm
    return scale * auto_learning_rate(
        base,
        n_steps,
        context.epsilon,
        context.delta,
        context.n_samples,
        context.n_features,
        n_outputs=context.n_outputs,
        neighboring=neighboring,
        fit_intercept=context.fit_intercept,
    )
