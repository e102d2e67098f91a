"""The adaptive strategies (DP-AGD, line search; ``_adaptive_drivers.py``) as a solver.

A thin adapter: the schedule makes its Rényi filter and runs its strategy
(:func:`sklearn_dpgd._solvers._adaptive_drivers.dp_agd` or
:func:`sklearn_dpgd._solvers._adaptive_drivers.dp_blsgd`)
on the oracle; this module charges the noisy count first and turns what ran into a
:class:`~sklearn_dpgd._base.FitResult`.
"""

from .._base import FitResult, model_arrays
from ..accounting import GaussianSteps


def solve(
    make_oracle,
    schedule,
    context,
    *,
    count_multiplier,
    max_updates,
    initial,
    verbose,
    dtype,
    fit_intercept,
    delta,
    class_count_multiplier=None,
    diagnose=None,
):
    """Run an adaptive strategy under its Rényi filter.

    Parameters
    ----------
    make_oracle : callable
        ``make_oracle(privacy_filter=...) -> PrivateGradientOracle`` over the data.
    schedule : AdaptiveSchedule
        The resolved schedule (``make_filter`` and ``run``).
    context : ScheduleContext
        Public quantities of the fit.
    count_multiplier : float or None
        Noise multiplier of the row count, which ran first; None if no count.
    max_updates : int
        The most parameter updates.
    initial : ndarray of shape (n_outputs, n_features + 1) or None
        Public starting point.
    verbose : int
        Passed to the strategy.
    dtype : numpy dtype
        The dtype of the released coefficients.
    fit_intercept : bool
        Whether intercepts are released (else zeros).
    delta : float
        Delta of the guarantee.
    class_count_multiplier : float or None, default=None
        Noise multiplier of the class counts of ``class_weight="balanced"``,
        which ran after the row count; None if they did not run.
    diagnose : callable or None, default=None
        ``diagnose(coef, intercept, privacy_filter=...)``, run after training on
        the same filter (the utility check of ``linear_model/_utility.py``; it
        charges the filter before it reads a row, from what training left).

    Returns
    -------
    result : FitResult
        ``epsilon`` is the filter's guarantee, whatever the (data-dependent)
        realised spend; ``mu`` is None.
    """
    privacy_filter = schedule.make_filter(context)
    # The counts ran first (the rows', then the classes'): the filter's first
    # records, so the strategy stops within what they left.
    counts = [z for z in (count_multiplier, class_count_multiplier) if z is not None]
    for z in counts:
        privacy_filter.charge(GaussianSteps(z))
    theta, learning_rates = schedule.run(
        make_oracle(privacy_filter=privacy_filter),
        context,
        max_updates=max_updates,
        initial=initial,
        verbose=verbose,
    )
    # The training's own steps: after the counts, before any diagnostic.
    trained = privacy_filter.noise_multipliers[len(counts) :]
    d = context.n_features
    coef, intercept = model_arrays(theta[:, :d], theta[:, d], dtype, fit_intercept)
    if diagnose is not None:
        diagnose(coef, intercept, privacy_filter=privacy_filter)
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=privacy_filter.ledger,
        mu=None,
        epsilon=privacy_filter.epsilon,
        delta=float(delta),
        public_n_samples=context.n_samples,
        n_iter=int(learning_rates.shape[0]),
        learning_rates=learning_rates,
        noise_multipliers=trained,
    )
