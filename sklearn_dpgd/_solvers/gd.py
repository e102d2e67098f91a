"""Noisy gradient descent over a data-independent plan: the privacy filter that
approves the plan, the training loop, and the :class:`~sklearn_dpgd._base.FitResult`
of the run."""

import math

import numpy as np

from .._base import FitResult, model_arrays
from ..accounting import (
    DEFAULT_ORDERS,
    FixedOrderRenyiFilter,
    GaussianPrivacyFilter,
    GaussianSteps,
    PlannedStepsRdpFilter,
    PldPrivacyFilter,
    best_filter_order,
    gdp_epsilon,
    pld_plan_levels,
    poisson_gaussian_rdp,
    scale_to_budget,
)
from ._progress import Deciles


def initial_iterate(n_outputs, n_features, initial):
    """The first iterate, shape (n_outputs, n_features + 1): zero or a copy of the
    public ``initial`` point (intercepts in the last column)."""
    if initial is None:
        return np.zeros((n_outputs, n_features + 1))
    return np.array(initial, dtype=float)


def noisy_gradient_descent(
    oracle,
    *,
    noise_multipliers,
    learning_rates,
    alpha,
    momentum,
    average,
    normalize_steps=False,
    initial=None,
    verbose=0,
    l1=0.0,
):
    """Full-batch private gradient descent with heavy-ball momentum and averaging.

    At step t the oracle returns the noisy clipped mean gradient ``g~_t`` at noise
    multiplier ``z_t`` (Hong, Wang & Zhou, FAccT 2022, Algorithm 1, line 4); the
    noiseless gradient of the L2 penalty ``alpha/2 ||w||^2`` is added (the intercept
    is not penalised), and the iterate moves by Polyak's heavy ball::

        v_{t+1} = momentum * v_t - eta_t * u_t,   u_t = g~_t + alpha w_t
        theta_{t+1} = theta_t + v_{t+1}

    With ``normalize_steps`` the direction is ``u_t / ||u_t||_2`` (the Frobenius
    norm over every output and the intercepts), so ``eta_t`` is the length of the
    step in parameter space, whatever the size of the gradient: normalised gradient
    descent (Hazan, Levy & Shalev-Shwartz, NeurIPS 2015, Alg. 1, NGD) under heavy
    ball (Cutkosky & Mehta, ICML 2020, normalise the momentum instead; here the
    private gradient is normalised and the momentum averages the directions). It
    keeps moving where the gradient of the logistic loss fades long before the
    optimum, and its step no longer depends on the units of ``clip_norm``.

    ``momentum = 0`` is plain private gradient descent; for ``momentum > 0`` this is
    the exponential moving average of Hong et al. (eq. 3, without its bias
    correction) with step size ``eta_t / (1 - momentum)``. The returned model is the
    mean of the last ``ceil(average * T)`` iterates (suffix averaging, Rakhlin,
    Shamir & Sridharan, ICML 2012), or the last iterate when ``average == 0``.
    Momentum, normalisation and averaging only post-process the private gradients:
    they cost no privacy.

    With ``l1 > 0`` the objective has the non-smooth penalty ``l1 ||w||_1`` too,
    handled by a proximal step after each update: the coefficients (not the
    intercepts) are soft-thresholded, ``w <- sign(w) max(|w| - s_t l1, 0)``, with
    ``s_t`` the step the update took along the gradient (``eta_t``, or
    ``eta_t / ||u_t||`` for normalised steps), and the velocity becomes the
    whole move ``theta_{t+1} - theta_t``, as in the inertial proximal method
    iPiano (Ochs, Chen, Brox & Pock, SIAM J. Imaging Sci. 2014). The proximal
    step reads only the privatised iterate: post-processing, no privacy cost
    (the proximal noisy gradient step of Wang, Ye & Xu, NeurIPS 2017, for a
    loss plus a simple non-smooth regulariser). The released average of the
    last iterates is thresholded once more with the last step's ``s_T l1``, so
    the coordinates the proximal steps keep at zero stay exactly zero.

    Parameters
    ----------
    oracle : PrivateGradientOracle
        The only access to the data; charges its privacy filter at every step.
    noise_multipliers : ndarray of shape (n_steps,)
        ``z_t``, noise std in units of the clipped-gradient sensitivity.
    learning_rates : ndarray of shape (n_steps,)
        Step sizes ``eta_t`` (> 0).
    alpha : float
        L2 penalty (>= 0).
    momentum : float
        Heavy-ball coefficient in [0, 1).
    average : float
        Fraction of the last iterates averaged, in [0, 1].
    normalize_steps : bool, default=False
        Whether each step follows the normalised direction ``u_t / ||u_t||``.
    initial : ndarray of shape (n_outputs, n_features + 1), default=None
        Public starting point ``theta_0`` (intercepts in the last column); None
        starts from zero.
    verbose : int
        1: print a line (privatised quantities only) per tenth of the steps;
        2 or more: one per step.
    l1 : float, default=0.0
        L1 penalty ``l1 ||w||_1`` (>= 0), by proximal steps.

    Returns
    -------
    coef : ndarray of shape (n_outputs, n_features)
    intercept : ndarray of shape (n_outputs,)
    n_iter : int
        Number of steps taken.
    """
    d = oracle.n_features
    n_steps = len(noise_multipliers)
    n_averaged = max(1, math.ceil(average * n_steps))
    # One row per output: coefficients, then the intercept in the last column.
    theta = initial_iterate(oracle.n_outputs, d, initial)
    velocity = np.zeros_like(theta)
    theta_sum = np.zeros_like(theta)
    progress = Deciles(verbose)
    for t, (z, eta) in enumerate(zip(noise_multipliers, learning_rates, strict=True)):
        grad = oracle.noisy_gradient(theta[:, :d], theta[:, d], z)
        grad[:, :d] += alpha * theta[:, :d]
        step = eta
        if normalize_steps:
            norm = np.linalg.norm(grad)
            # The Gaussian noise makes a zero direction a null event; stay put then.
            direction = grad / norm if norm > 0.0 else grad
            step = eta / norm if norm > 0.0 else eta
        else:
            direction = grad
        velocity *= momentum
        velocity -= eta * direction
        theta += velocity
        if l1 > 0.0:
            shrunk = _soft_threshold(theta[:, :d], step * l1)
            velocity[:, :d] += shrunk - theta[:, :d]
            theta[:, :d] = shrunk
        if t >= n_steps - n_averaged:
            theta_sum += theta
        if progress((t + 1) / n_steps):
            # Only post-processed private values are printed (never the loss).
            print(
                f"step {t + 1}/{n_steps} ({(t + 1) / n_steps:.0%}): "
                f"noise_multiplier={z:.4g}, "
                f"||noisy gradient||={np.linalg.norm(grad):.4g}"
            )
    theta = theta_sum / n_averaged
    if l1 > 0.0:
        theta[:, :d] = _soft_threshold(theta[:, :d], step * l1)
    return theta[:, :d].copy(), theta[:, d].copy(), n_steps


def _soft_threshold(values, threshold):
    """The proximal map of ``threshold * ||.||_1``: ``sign(v) max(|v| - t, 0)``."""
    return np.sign(values) * np.maximum(np.abs(values) - threshold, 0.0)


def fixed_order_filter(epsilon, delta):
    """A Rényi filter whose order depends on (epsilon, delta) only.

    The order maximises the budget left by the RDP-to-DP conversion per unit of a
    Gaussian curve (:func:`~sklearn_dpgd.accounting.best_filter_order` with
    ``alpha / 2``), among integer orders (the subsampled-Gaussian bound needs
    them); it is fixed before anything is read.
    """
    orders = DEFAULT_ORDERS[DEFAULT_ORDERS == np.round(DEFAULT_ORDERS)]
    order = best_filter_order(epsilon, delta, orders, orders / 2.0)
    return FixedOrderRenyiFilter(epsilon, delta, int(order))


def fit_plan_to_budget(
    spent, budget, noise_multipliers, learning_rates, rtol, *, calibrated
):
    """Fit a minibatch plan into what the filter holding the count has left.

    The plan was calibrated to the GDP-equivalent share of the budget the
    count left; the count and the subsampled steps do not compose in GDP, so
    the plan is adjusted against ``spent``, the filter's own accountant with
    the count included (public work only: nothing has been read but the noisy
    count). A calibrated profile is rescaled by the one common factor that
    spends ``budget`` (to ``rtol`` relative, never more:
    :func:`~sklearn_dpgd.accounting.scale_to_budget`); a plan whose levels
    are absolute and whose length the budget sets (``PURSchedule``) keeps its
    longest prefix that fits (bisection: the spend grows with the prefix).

    Parameters
    ----------
    spent : callable
        ``spent(z) -> float``: the filter's spend (epsilon, or RDP at its
        order) with the plan ``z`` added.
    budget : float
        The most ``spent`` may return.
    noise_multipliers, learning_rates : ndarray of shape (n_steps,)
    rtol : float
        Relative tolerance of the rescaled spend below ``budget``.
    calibrated : bool
        Whether the plan is a profile the schedule calibrates (the default
        ``NoiseSchedule.plan``), else a plan of absolute levels.

    Returns
    -------
    noise_multipliers, learning_rates : ndarray of shape (n_run,)
    """
    if not calibrated:
        lo, hi = 1, noise_multipliers.shape[0]
        if spent(noise_multipliers[:hi]) > budget:
            while hi - lo > 1:  # invariant: lo fits or is 1, hi does not
                mid = (lo + hi) // 2
                lo, hi = (
                    (mid, hi) if spent(noise_multipliers[:mid]) <= budget else (lo, mid)
                )
            hi = lo
        return noise_multipliers[:hi], learning_rates[:hi]
    z = scale_to_budget(spent, noise_multipliers, budget, rtol=rtol)
    return z, learning_rates


def training_filter(
    noise_multipliers,
    learning_rates,
    *,
    mu,
    count_multiplier,
    sampling_rate,
    epsilon,
    delta,
    accountant,
    calibrated,
    class_count_multiplier=None,
):
    """The privacy filter of a data-independent plan, and the plan it approves.

    Public work only (nothing is read but the noisy count, if any). Full-batch
    plans run under a GDP filter of ``mu``; subsampled plans under the filter of
    ``accountant`` (PLD, or RDP), or, when the plan's sampling rate depends on a
    noisy count, under a Rényi filter at one order fixed before the count
    (Feldman & Zrnic, "Individual Privacy Accounting via a Rényi Filter",
    NeurIPS 2021, Thm 3.1). The count, if any, is the filter's first record.

    Parameters
    ----------
    noise_multipliers, learning_rates : ndarray of shape (n_steps,)
        The schedule's plan.
    mu : float
        The fit's GDP budget.
    count_multiplier : float or None
        Noise multiplier of the row count, None if no count ran.
    sampling_rate : float
        Poisson sampling rate of the steps (1 for full batch).
    epsilon, delta : float
        The fit's budget.
    accountant : {"pld", "rdp"}
        The accountant of subsampled plans.
    calibrated : bool
        See :func:`fit_plan_to_budget`.
    class_count_multiplier : float or None, default=None
        Noise multiplier of the noisy class counts of ``class_weight="balanced"``
        (a full-batch Gaussian mechanism), recorded after the row count. They
        weight the rows and choose nothing of the plan, so subsampled plans
        compose them with their steps in the plan's accountant (PLD or RDP; the
        fixed-order Rényi filter when a row count sized the plan).

    Returns
    -------
    privacy_filter : filter
    noise_multipliers, learning_rates : ndarray of shape (n_run,)
    """
    count = count_multiplier is not None
    if sampling_rate >= 1.0:
        privacy_filter = GaussianPrivacyFilter(mu)
        if count:
            privacy_filter.charge(GaussianSteps(count_multiplier))
        if class_count_multiplier is not None:
            privacy_filter.charge(GaussianSteps(class_count_multiplier))
        return privacy_filter, noise_multipliers, learning_rates
    # The same accountant approves the plan (the counts included), is
    # calibrated to, and reports: the PLD by default, RDP on request.
    if count:
        # The plan's sampling rate batch_size / m depends on the count's
        # output, so the plan is chosen adaptively: only a filter at one
        # Rényi order fixed before the count is valid for that (Feldman &
        # Zrnic, NeurIPS 2021, Thm 3.1). Declaring public_n_samples lets
        # the tight accountants below approve a plan fixed in advance.
        privacy_filter = fixed_order_filter(epsilon, delta)
        privacy_filter.charge(GaussianSteps(count_multiplier))
        if class_count_multiplier is not None:
            privacy_filter.charge(GaussianSteps(class_count_multiplier))
        order = np.array([float(privacy_filter.order)])

        def spent(z):  # RDP (nats) at the filter's order, count included
            rdp = poisson_gaussian_rdp(z, sampling_rate, order)[0]
            return privacy_filter.rdp_spent + float(rdp)

        # One order is cheap to evaluate: spend the budget to 1e-6.
        budget, rtol = privacy_filter.budget, 1e-6
    else:
        filter_class = (
            PldPrivacyFilter if accountant == "pld" else PlannedStepsRdpFilter
        )
        privacy_filter = filter_class(epsilon, delta)
        if class_count_multiplier is not None:
            # The class counts set the rows' weights, never the plan (its noise,
            # length and sampling rate are public): a full-batch Gaussian step
            # composed with the subsampled ones in the same accountant.
            privacy_filter.charge(GaussianSteps(class_count_multiplier))
        if accountant == "pld":  # run the levels the PLD composes
            noise_multipliers = pld_plan_levels(noise_multipliers, sampling_rate)

        def spent(z):
            return privacy_filter.epsilon_with(z, sampling_rate)

        budget, rtol = float(epsilon), 1e-4
    noise_multipliers, learning_rates = fit_plan_to_budget(
        spent, budget, noise_multipliers, learning_rates, rtol, calibrated=calibrated
    )
    if not count:  # the fixed-order filter is charged step by step
        privacy_filter.reserve(noise_multipliers, sampling_rate)
    return privacy_filter, noise_multipliers, learning_rates


def solve(
    oracle,
    privacy_filter,
    *,
    noise_multipliers,
    learning_rates,
    alpha,
    momentum,
    average,
    normalize_steps,
    initial,
    verbose,
    dtype,
    fit_intercept,
    delta,
    public_n_samples,
    n_counted,
    adaptive_plan=False,
    cap_epsilon=None,
    calibrate=None,
    l1=0.0,
    diagnose=None,
):
    """Run :func:`noisy_gradient_descent` and account for it.

    Parameters
    ----------
    oracle : PrivateGradientOracle
        Charges ``privacy_filter`` at every step.
    privacy_filter : filter
        The filter of :func:`training_filter`.
    noise_multipliers, learning_rates, alpha, momentum, average : see below
        As for :func:`noisy_gradient_descent`.
    normalize_steps, initial, verbose : see below
        As for :func:`noisy_gradient_descent`.
    dtype : numpy dtype
        The dtype of the released coefficients (the training data's).
    fit_intercept : bool
        Whether intercepts are released (else zeros).
    delta : float
        Delta of the guarantee.
    public_n_samples : int
        The public size the plan used (``public_n_samples_``).
    n_counted : int
        Records the filter holds before the training steps (1 for a noisy
        count, else 0).
    adaptive_plan : bool, default=False
        Whether the plan was chosen after a noisy count: then the guarantee its
        filter enforces (the cap ``mu``, or its epsilon for subsampled steps) is
        reported, not the realised spend (composing its steps as if fixed in
        advance would understate; a ``PURSchedule`` plan may spend less than its
        cap).
    cap_epsilon : float or None, default=None
        The epsilon the full-batch filter's cap ``mu`` was calibrated to
        (``gdp_mu(cap_epsilon, delta)``): the exact epsilon of the cap, reported
        for an adaptive plan (at most ``gdp_epsilon(mu, delta)``).
    calibrate : callable or None, default=None
        ``calibrate(coef, intercept, privacy_filter=...) -> (coef, intercept,
        scale)``, run after the
        training steps on the same filter (private temperature scaling,
        ``_calibration.py``); its scale is ``calibration_scale_``.
    l1 : float, default=0.0
        L1 penalty, by proximal steps (:func:`noisy_gradient_descent`).
    diagnose : callable or None, default=None
        ``diagnose(coef, intercept, privacy_filter=...)``, run last on the same
        filter with the released arrays (the noisy counts of the predicted
        classes of ``linear_model/_utility.py``); what it returns is ignored.

    Returns
    -------
    result : FitResult
        ``mu`` is the GDP spend of a full-batch run, None otherwise;
        ``outputs`` holds ``calibration_`` and ``calibration_scale_``.
    """
    coef, intercept, n_iter = noisy_gradient_descent(
        oracle,
        noise_multipliers=noise_multipliers,
        learning_rates=learning_rates,
        alpha=alpha,
        momentum=momentum,
        average=average,
        normalize_steps=normalize_steps,
        initial=initial,
        verbose=verbose,
        l1=l1,
    )
    scale = None
    if calibrate is not None:
        coef, intercept, scale = calibrate(
            coef, intercept, privacy_filter=privacy_filter
        )
    coef, intercept = model_arrays(coef, intercept, dtype, fit_intercept)
    if diagnose is not None:
        diagnose(coef, intercept, privacy_filter=privacy_filter)
    delta = float(delta)
    full_batch = isinstance(privacy_filter, GaussianPrivacyFilter)
    if full_batch:
        # A plan chosen after a noisy count (its horizon, steps and schedule read
        # the public size it estimated) is covered by the filter's cap: GDP's
        # fully adaptive composition bounds the run by the cap, not by the
        # realised sum of mu_t^2 (Smith & Thakurta 2022, Thm 1.1; Whitehouse et
        # al., ICML 2023). A plan fixed in advance spends exactly what it ran.
        mu = privacy_filter.mu if adaptive_plan else privacy_filter.mu_spent
        epsilon = gdp_epsilon(mu, delta)
        if adaptive_plan and cap_epsilon is not None:
            # The cap is gdp_mu(cap_epsilon, delta), which guarantees exactly
            # (cap_epsilon, delta); gdp_epsilon's root can sit a few ulps above.
            epsilon = min(epsilon, float(cap_epsilon))
    else:
        # No closed form for subsampled steps: the epsilon the filter approved
        # the whole run with (count included), by its accountant; for a plan
        # chosen after the count, the fixed-order filter's guarantee.
        mu = None
        epsilon = (
            float(privacy_filter.epsilon)
            if adaptive_plan
            else privacy_filter.epsilon_spent
        )
    return FitResult(
        coef=coef,
        intercept=intercept,
        ledger=privacy_filter.ledger,
        mu=mu,
        epsilon=epsilon,
        delta=delta,
        public_n_samples=public_n_samples,
        n_iter=n_iter,
        learning_rates=learning_rates,
        # The count (if any) is the filter's first record and the calibration's
        # steps its last: in ledger_, not in the training steps' multipliers.
        noise_multipliers=privacy_filter.noise_multipliers[
            n_counted : n_counted + n_iter
        ],
        outputs={
            "calibration_": None if calibrate is None else "temperature",
            "calibration_scale_": scale,
        },
    )
