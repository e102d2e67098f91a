"""The shared engine of the private linear models (the classifiers' base is in
``_classifier.py``, the regressors' in ``_regression.py``): parameter checks, the
resolution of the public setting (budget split, public size, "auto" rules,
schedule context), the call of a solver of ``_solvers/`` and the fitted attributes
(``_base.set_fitted``).

It is not in ``_base.py`` because it imports the solvers, which import
``_base.FitResult``: one module would be an import cycle.
"""

import math
from dataclasses import replace
from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context

from .._base import set_fitted
from .._boundary import add_secure_support, charge_ledgers, check_fit_boundary
from .._engine import _losses
from .._engine._dask import check_fit_data, is_dask_collection
from .._engine._oracle import PrivateGradientOracle
from .._engine._randomness import draw_seed
from .._errors import NotFittedAttributesMixin
from .._public_size import (
    SENSITIVITY_FACTOR,
    resolve_public_size,
    split_count_budget,
)
from .._sklearn_compat import Interval, StrOptions
from .._solvers import adaptive as adaptive_solver
from .._solvers import gd as gd_solver
from .._solvers import snowball as snowball_solver
from .._validation import validate_fit_data
from ..accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    _ledger_guard_state,
    gdp_epsilon,
    gdp_mu,
)
from ..schedules import (
    AdaptiveSchedule,
    NoiseSchedule,
    ScheduleContext,
    UniformSchedule,
    auto_clip_norm,
)
from ..schedules._defaults import (
    NORMALIZED_STEP_LENGTH,
    resolve_learning_rate,
    resolve_max_iter,
)
from ..schedules._noise import MAX_HORIZON
from ._calibration import (
    CALIBRATION_SHARE,
    calibration_noise_multiplier,
    temperature_scale,
    temperature_scale_multinomial,
)
from ._frank_wolfe import solve_frank_wolfe
from ._newton import solve_newton
from ._penalty import check_penalty, penalty_strength
from ._pgd import open_fit, resolve_auto, solve_pgd
from ._utility import utility_checks, warn_weak_delta
from ._weights import (
    check_sample_weight,
    check_weight_settings,
    class_weight_vector,
    resolve_class_weights,
    row_weights,
)

# The L2 sensitivity of a sum of per-example vectors clipped to norm C is C when
# neighbours differ by adding or removing one row, and 2C when one row is replaced.
_SENSITIVITY_FACTOR = SENSITIVITY_FACTOR

# The base step length of normalised steps ("auto"; see _defaults.py), under the
# name linear_model and the searches import.
_NORMALIZED_STEP_LENGTH = NORMALIZED_STEP_LENGTH

#: The solvers of ``solve(estimator, X, y_index, n_outputs, initial, seed,
#: sample_weight)`` besides "gd" (a method) and "snowball".
_SOLVERS = {"newton": solve_newton, "pgd": solve_pgd, "frank_wolfe": solve_frank_wolfe}


class _BaseDPLinearModel(NotFittedAttributesMixin, BaseEstimator):
    """The private engine of the linear models: budget, public size, plan, solver.

    Subclasses set the loss and the data's meaning: the classifiers below, the
    regressors of ``_regression.py`` (which fit a target, not labels).
    """

    _loss = None  # key of _losses.LOSS_CODES, set by subclasses
    # Pickles from before the parameter existed keep get_params and refit (default).
    utility_diagnostics = True

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "schedule": [NoiseSchedule, AdaptiveSchedule, None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "average": [Interval(Real, 0, 1, closed="both")],
        "normalize_steps": ["boolean", StrOptions({"auto"})],
        "batch_size": [Interval(Integral, 1, None, closed="left"), None],
        "accountant": [StrOptions({"rdp", "pld"})],
        "clip_norm": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "C": [Interval(Real, 0, None, closed="right"), None],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "classes": ["array-like", None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "max_sample_weight": [Interval(Real, 0, None, closed="neither")],
        "solver": [StrOptions({"gd", "snowball", "auto", *_SOLVERS})],
        "radius": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
        "verbose": ["verbose"],
        "utility_diagnostics": ["boolean"],
    }

    def _huber_width(self):
        return 0.5

    def _loss_constants(self, n_outputs):
        """(margin smoothness, loss at zero) of this loss: public constants."""
        if self._loss == "logistic":
            if n_outputs == 1:
                return 0.25, math.log(2.0)
            return 0.5, math.log(n_outputs)
        return 1.0 / (2.0 * self._huber_width()), 1.0

    def _gdp_ledger_refusal(self):
        """Why a fit is not recorded as full-batch Gaussian steps; None if it is.

        The private searches (:mod:`sklearn_dpgd.model_selection`) split their
        budget by the closed form of full-batch Gaussian steps and ask every
        candidate this before reading any data.
        """
        if self.solver not in ("gd", "auto"):  # "auto" runs "gd" or "pgd", both
            how = {  # charged GaussianSteps(1 / mu) before reading (_open.open_fit)
                "snowball": "Renyi DP (amplification by iteration)",
                "frank_wolfe": "exponential-mechanism selections",
                "newton": "Newton steps",
            }.get(self.solver, "its own releases ('pgd': a noisy Gram)")
            return (
                f"solver={self.solver!r} is accounted by {how}, "
                "not as the searches' Gaussian gradient steps; use solver='gd'"
            )
        if isinstance(self.schedule, AdaptiveSchedule):
            return (
                f"schedule={type(self.schedule).__name__}() is adaptive: its Renyi "
                "privacy filter is recorded as an (epsilon, delta) record, not as "
                "Gaussian steps; use a NoiseSchedule"
            )
        if self.batch_size is not None:
            return (
                "batch_size must be None: Poisson-subsampled steps are not a "
                "Gaussian mechanism (the search splits its budget by the closed "
                "form of full-batch Gaussian steps)"
            )
        return None

    def _resolve_schedule(self):
        return UniformSchedule() if self.schedule is None else self.schedule

    def _check_finite_params(self):
        # Interval constraints let NaN and inf through for unbounded sides.
        for name in (
            "epsilon",
            "clip_norm",
            "learning_rate",
            "alpha",
            "momentum",
            "radius",
            "max_sample_weight",
        ):
            value = getattr(self, name)
            if not (isinstance(value, str) or np.isfinite(value)):
                raise ValueError(f"{name} must be finite, got {value!r}.")

    def _initial_point(self, coef_init, intercept_init, n_outputs, n_features):
        """Validate the public start; return it as (n_outputs, n_features + 1)."""
        if coef_init is None and intercept_init is None:
            return None
        theta = np.zeros((n_outputs, n_features + 1))
        if coef_init is not None:
            coef = np.asarray(coef_init, dtype=float)
            if coef.ndim == 1 and n_outputs == 1:
                coef = coef[None, :]
            if coef.shape != (n_outputs, n_features):
                raise ValueError(
                    f"coef_init must have shape ({n_outputs}, {n_features})"
                    + (f" or ({n_features},)" if n_outputs == 1 else "")
                    + f", got {np.shape(coef_init)}."
                )
            theta[:, :n_features] = coef
        if intercept_init is not None:
            if not self.fit_intercept:
                raise ValueError("intercept_init needs fit_intercept=True.")
            intercept = np.atleast_1d(np.asarray(intercept_init, dtype=float))
            if intercept.shape != (n_outputs,):
                raise ValueError(
                    f"intercept_init must have shape ({n_outputs},), got "
                    f"{np.shape(intercept_init)}."
                )
            theta[:, n_features] = intercept
        if not np.all(np.isfinite(theta)):
            raise ValueError("coef_init and intercept_init must be finite.")
        return theta

    def _resolve_alpha(self, schedule, public_size):
        """The L2 penalty: ``(1 - l1_ratio)`` times the strength of ``C`` or
        ``alpha`` (``_penalty.py``)."""
        strength = penalty_strength(self, schedule, public_size)
        return strength * (1.0 - float(self.l1_ratio))

    def _l1_strength(self, schedule, public_size):
        """The L1 part of the penalty (its L2 part: :meth:`_resolve_alpha`)."""
        return penalty_strength(self, schedule, public_size) * float(self.l1_ratio)

    def _class_weights(self, y_index, mu, rng):
        """``(class weights or None, class-count noise multiplier or None, penalty
        factor)`` (``_weights.resolve_class_weights``)."""
        return resolve_class_weights(self, y_index, mu, rng)

    def _resolve_calibration(self, n_outputs, full_batch, signal):
        """Whether this fit ends with private temperature scaling (``_calibration.py``).

        ``signal`` is ``sqrt(CALIBRATION_SHARE) m mu``: the public size times
        the calibration's GDP budget.

        Only :class:`DPLogisticRegression` calibrates (its ``calibration``
        parameter); the base class never does.
        """
        return False

    def _resolve_normalize_steps(self, n_outputs):
        """Whether "gd" takes normalised steps: the parameter, or binary for "auto"."""
        if self.normalize_steps != "auto":
            return bool(self.normalize_steps)
        # Validated on binary problems (holdouts of Adult's and Bank's training
        # splits); multiclass models keep the plain gradient steps of the former
        # rule (see the user guide, "How the defaults were chosen").
        return n_outputs == 1

    def _resolve_clip_norm(self, normalize_steps, n_samples, n_features, n_outputs):
        """The clipping threshold: the parameter, or the rule of ``"auto"``."""
        if self.clip_norm != "auto":
            return float(self.clip_norm)
        # The rule was chosen with normalised steps on the holdouts above; gradient
        # steps, Snowball-SGD and the adaptive strategies keep the threshold they
        # were designed and measured with.
        adaptive = isinstance(self.schedule, AdaptiveSchedule)
        if not normalize_steps or self.solver not in ("gd", "auto") or adaptive:
            return 1.0
        return auto_clip_norm(
            self.epsilon,
            self.delta,
            n_samples,
            n_features,
            n_outputs=n_outputs,
            neighboring=self.neighboring,
            fit_intercept=self.fit_intercept,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Train the model with ``(epsilon, delta)``-differential privacy.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)
            Training data; finite values, float32 kept as float32, sparse input as
            CSR (other sparse formats are converted). Rows need no bound:
            per-example gradients are clipped. A row-chunked ``dask.array.Array``
            (with a dask ``y``) is trained on where its chunks live, with the same
            guarantee (user guide, "Training on data larger than memory").
        y : array-like or dask array of shape (n_samples,)
            Target labels.
        coef_init : array-like of shape (n_features,), (1, n_features) or \
                (n_classes, n_features), default=None
            Public starting point of the coefficients (a warm start, as in
            :meth:`sklearn.linear_model.SGDClassifier.fit`); None starts from zero.
            It must not be computed from the private data, unless it is itself a
            private release whose budget you count (e.g. ``coef_`` of an earlier
            fit, composed with this one in a
            :class:`~sklearn_dpgd.accounting.PrivacyLedger`): the guarantee of
            this fit covers only what it reads. A public start helps most at small
            budgets (the docs' Benchmarks page, "How the defaults were chosen").
            Not supported by ``solver="snowball"``.
        intercept_init : array-like of shape (1,) or (n_classes,), default=None
            Public starting point of the intercepts (a scalar for binary
            problems); None starts from zero.
        sample_weight : array-like or dask array of shape (n_samples,), \
                default=None
            Weight of each row, in ``[0, max_sample_weight]``: its clipped
            gradient is multiplied by it (times its ``class_weight``), and the
            noise is calibrated to the public bound (the guarantee above). None:
            every row weighs 1. With dask ``X``, a dask array (or an array,
            chunked like ``X``). Not supported by ``solver="snowball"`` and
            adaptive schedules.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range; ``X`` is empty, has fewer than 2 rows
            or no column, or holds NaN, inf or strings; ``y`` is continuous, holds
            NaN, has one class only or labels outside ``classes``; ``X`` and
            ``y`` have different lengths; or ``coef_init`` or ``intercept_init``
            has the wrong shape, is not finite, or is given with
            ``solver="snowball"`` (or ``intercept_init`` with
            ``fit_intercept=False``); or ``sample_weight`` has the wrong shape or
            a weight that is negative, not finite or above ``max_sample_weight``;
            or weights are given with ``solver="newton"``, or
            ``class_weight="balanced"`` with ``solver="snowball"``.
        TypeError
            If a parameter has a wrong type (e.g. ``schedule`` without a
            ``noise_multipliers`` method), or only one of ``X`` and ``y`` is a
            dask array.

        Warns
        -----
        PrivacyLeakWarning
            If ``classes`` is None (the label set is read from the data), or
            ``random_state`` fixes the noise (not None, without ``secure_mode``).
        WeakPrivacyWarning
            If ``delta >= 1 / public_n_samples_`` (the public size, never the private
            number of rows).
        """
        # First: a leak around this fit is named before any other error.
        check_fit_boundary(self)
        self._check_finite_params()
        check_penalty(self)
        if is_dask_collection(X) or is_dask_collection(y):
            # Rows stay on the Dask workers; the oracle sums their chunks there.
            X, y_index = check_fit_data(self, X, y)
        else:
            X, y_index = validate_fit_data(self, X, y)
        n_outputs = 1 if self.classes_.shape[0] == 2 else self.classes_.shape[0]
        initial = self._initial_point(coef_init, intercept_init, n_outputs, X.shape[1])
        sample_weight = check_sample_weight(sample_weight, X, self.max_sample_weight)
        check_weight_settings(self, sample_weight is not None)
        # secure_mode ignores random_state (its noise is not seeded): no warning.
        random_state = None if self.secure_mode else self.random_state
        seed = draw_seed(random_state, owner=type(self).__name__)
        solver, opened = self.solver, {}
        if solver == "auto":  # one rule over public and released values (_pgd.py)
            solver, opened = resolve_auto(self, X, n_outputs, sample_weight, seed)
        if solver == "snowball":
            result = self._solve_snowball(
                X, y_index, n_outputs, initial, seed, sample_weight
            )
        else:
            solve = _SOLVERS.get(solver, type(self)._solve_gd)
            result = solve(
                self, X, y_index, n_outputs, initial, seed, sample_weight, **opened
            )
        result = replace(result, outputs={**result.outputs, "solver_": solver})
        add_secure_support(set_fitted(self, result))
        return self

    def _solve_gd(self, X, y_index, n_outputs, initial, seed, sample_weight=None, *,
                  opened=None):  # fmt: skip
        """Budget, size, plan and run of "gd" (opened by "auto", or not): FitResult."""
        schedule = self._resolve_schedule()
        adaptive = isinstance(schedule, AdaptiveSchedule)
        self._check_sampling(schedule, adaptive)
        # The whole cost, the count included, is charged before any row is read.
        opened = opened or open_fit(self, X, seed, adaptive)
        mu, z_count, mu_train = opened.mu, opened.z_count, opened.mu_train
        planned, ledger_charge = opened.planned, opened.ledger_charge
        rng, m = opened.rng, opened.n_samples
        class_weights, z_class, penalty = self._class_weights(y_index, mu, rng)
        if z_class is not None:  # its share of mu**2 comes off the training's
            mu_train = math.sqrt(mu_train**2 - z_class**-2)
        diagnostics, mu_train = utility_checks(
            self, X, n_outputs=n_outputs, mu=mu, mu_train=mu_train,
            adaptive=adaptive, rng=rng, n_samples=m,
            sampling_rate=schedule.sampling_rate if adaptive else 1.0, y=y_index,
        )  # fmt: skip
        calibrate, normalized, context = self._setting(
            schedule, mu, mu_train, z_count, m, X.shape[1], n_outputs
        )
        weights, max_weight = row_weights(
            class_weights, sample_weight, y_index, self.max_sample_weight
        )
        # The L1 part of the penalty, by proximal steps (post-processing).
        l1 = self._l1_strength(schedule, m)
        if weights is not None:  # the schedules see the weighted sensitivity
            l1 *= penalty
            context = replace(
                context,
                alpha=context.alpha * penalty,
                sensitivity=context.sensitivity * max_weight,
            )
        make_oracle = self._oracle_factory(
            X, y_index, context, rng, weights, max_weight
        )
        if adaptive:
            result = adaptive_solver.solve(
                make_oracle,
                schedule,
                context,
                count_multiplier=z_count,
                class_count_multiplier=z_class,
                max_updates=MAX_HORIZON
                if self.max_iter == "auto"
                else int(self.max_iter),
                initial=initial,
                verbose=self.verbose,
                dtype=X.dtype,
                fit_intercept=self.fit_intercept,
                delta=self.delta,
                diagnose=diagnostics[1] if diagnostics else None,
            )
            ledger_charge.settle(planned)
        else:
            calibration = (
                self._calibration(
                    X, y_index, rng, context.n_samples, mu, context.n_outputs
                )
                if calibrate
                else None
            )
            result = self._solve_planned(
                schedule,
                context,
                normalized,
                make_oracle,
                initial,
                calibration,
                mu=mu,
                z_count=z_count,
                z_class=z_class,
                dtype=X.dtype,
                l1=l1,
                diagnostics=diagnostics,
            )
            # An adaptively chosen plan is recorded by the guarantee its filter
            # enforced (composing its steps as if fixed in advance would
            # understate).
            adaptive_plan = z_count is not None
            ledger_charge.settle(planned if adaptive_plan else result.ledger)
        outputs = {
            "schedule_": schedule,
            "clip_norm_": context.clip_norm,
            # The penalty's whole strength (its L1 part is l1_ratio of it).
            "alpha_": context.alpha + l1 if l1 else context.alpha,
            "calibration_": None,
            "calibration_scale_": None,
            **result.outputs,
        }
        return replace(result, outputs=outputs)

    def _calibration(self, X, y_index, rng, m, mu, n_outputs=1):
        """Private temperature scaling (``_calibration.py``) as the gd solver's
        ``calibrate(coef, intercept, privacy_filter=...)``: it runs on the
        training's filter, at a public share of ``mu**2`` (one shared temperature
        of the scores when multinomial)."""
        return partial(
            temperature_scale if n_outputs == 1 else temperature_scale_multinomial,
            X,
            y_index,
            sensitivity_factor=_SENSITIVITY_FACTOR[self.neighboring],
            rng=rng,
            public_n_samples=m,
            noise_multiplier=calibration_noise_multiplier(mu),
        )

    def _budget(self, adaptive):
        """``(mu, count noise multiplier or None, mu left to training, planned)``.

        ``planned`` is what the active ledgers are charged with before any data is
        read. Full-batch Gaussian steps compose exactly in GDP, so one step of
        noise multiplier ``1 / mu`` has the same privacy profile as the run; other
        runs are recorded by the guarantee their filter enforces.
        """
        mu = gdp_mu(self.epsilon, self.delta)
        z_count, mu_train = split_count_budget(
            mu, self.neighboring, self.public_n_samples
        )
        planned = (
            (GaussianSteps(1.0 / mu),)
            if not adaptive and self.batch_size is None
            else EpsilonDeltaRecord(float(self.epsilon), float(self.delta))
        )
        return mu, z_count, mu_train, planned

    def _public_size(self, n_rows, z_count, rng):
        """The public size ``m`` (a noisy count if ``z_count`` is not None)."""
        size = resolve_public_size(
            n_rows,
            neighboring=self.neighboring,
            public_n_samples=self.public_n_samples,
            noise_multiplier=z_count,
            rng=rng,
        )
        # From here on only the public size m is used; n_rows is never read again.
        warn_weak_delta(self.delta, size.n_samples)
        return size.n_samples

    def _oracle_factory(self, X, y_index, context, rng, weights=None, max_weight=1.0):
        """``make_oracle(privacy_filter=...)``: the fit's one access to the data.

        The oracle is given the unweighted sensitivity and scales it by
        ``max_weight`` itself (where the noise is drawn)."""
        return partial(
            PrivateGradientOracle,
            X,
            y_index,
            n_outputs=context.n_outputs,
            loss=_losses.LOSS_CODES[self._loss],
            huber_width=self._huber_width(),
            clip_norm=context.clip_norm,
            sensitivity=_SENSITIVITY_FACTOR[self.neighboring] * context.clip_norm,
            fit_intercept=bool(self.fit_intercept),
            rng=rng,
            public_n_samples=context.n_samples,
            sampling_rate=context.sampling_rate,
            sample_weight=weights,
            max_weight=max_weight,
        )

    def _setting(self, schedule, mu, mu_train, z_count, m, n_features, n_outputs):
        """The public setting of a gradient-descent fit at the public size ``m``.

        Returns ``(calibrate, normalized, context)``: whether the fit ends with
        temperature scaling, whether "auto" steps are normalised, and the
        :class:`~sklearn_dpgd.schedules.ScheduleContext` (resolved ``clip_norm``,
        ``alpha``, sensitivity, sampling rate, training budget).
        """
        adaptive = isinstance(schedule, AdaptiveSchedule)
        calibrate = self._resolve_calibration(
            n_outputs,
            not adaptive and self.batch_size is None,
            math.sqrt(CALIBRATION_SHARE) * m * mu,
        )
        if calibrate:  # a public share of mu**2 (GDP composition) is set aside
            mu_train = math.sqrt(mu_train**2 - CALIBRATION_SHARE * mu**2)
        normalized = self._resolve_normalize_steps(n_outputs)
        clip_norm = self._resolve_clip_norm(normalized, m, n_features, n_outputs)
        sampling_rate = schedule.sampling_rate if adaptive else 1.0
        if self.batch_size is not None:
            sampling_rate = min(1.0, self.batch_size / m)
        margin_smoothness, initial_loss = self._loss_constants(n_outputs)
        # Full-batch and minibatch runs train on what the count left of the budget
        # (adaptive runs charge the count to their own filter, which then stops
        # them within the whole budget).
        epsilon_train = float(self.epsilon)
        # mu_train < mu exactly when a count (of the rows, or of the classes for
        # "balanced") took its share.
        if (mu_train != mu or calibrate) and not adaptive:
            epsilon_train = gdp_epsilon(mu_train, self.delta)
        context = ScheduleContext(
            epsilon=epsilon_train,
            delta=float(self.delta),
            n_samples=m,
            n_features=n_features,
            n_outputs=n_outputs,
            fit_intercept=bool(self.fit_intercept),
            clip_norm=clip_norm,
            sensitivity=_SENSITIVITY_FACTOR[self.neighboring] * clip_norm,
            alpha=self._resolve_alpha(schedule, m),
            margin_smoothness=margin_smoothness,
            initial_loss=initial_loss,
            sampling_rate=sampling_rate,
            accountant=self._planning_accountant(schedule),
            loss=self._loss,
        )
        return calibrate, normalized, context

    def _solve_planned(
        self,
        schedule,
        context,
        normalized,
        make_oracle,
        initial,
        calibration,
        *,
        mu,
        z_count,
        dtype,
        z_class=None,
        l1=0.0,
        diagnostics=None,
    ):
        """Plan a data-independent schedule, fit it to the budget, run it.

        ``calibration`` is None or ``calibration(coef, intercept,
        privacy_filter=...)``; ``z_count`` the count's noise multiplier or None;
        ``diagnostics`` None or the hooks of ``_utility.utility_checks``.
        """
        n_steps = resolve_max_iter(
            self.max_iter,
            schedule,
            context,
            neighboring=self.neighboring,
            horizon_factor=self._horizon_factor
            if normalized
            else self._gradient_horizon_factor,
        )
        noise_multipliers, learning_rates, normalize_steps = self._plan(
            schedule, n_steps, context, normalized
        )
        privacy_filter, noise_multipliers, learning_rates = gd_solver.training_filter(
            noise_multipliers,
            learning_rates,
            mu=mu,
            count_multiplier=z_count,
            class_count_multiplier=z_class,
            sampling_rate=context.sampling_rate,
            epsilon=self.epsilon,
            delta=self.delta,
            accountant=self.accountant,
            calibrated=type(schedule).plan is NoiseSchedule.plan,
        )
        before, after = diagnostics or (None, None)
        if before is not None:  # charged to the filter before it reads a row
            before(privacy_filter=privacy_filter, clip_norm=context.clip_norm)
        return gd_solver.solve(
            make_oracle(privacy_filter=privacy_filter),
            privacy_filter,
            noise_multipliers=noise_multipliers,
            learning_rates=learning_rates,
            alpha=context.alpha,
            momentum=float(self.momentum),
            average=float(self.average),
            normalize_steps=normalize_steps,
            initial=initial,
            verbose=self.verbose,
            dtype=dtype,
            fit_intercept=self.fit_intercept,
            delta=self.delta,
            public_n_samples=context.n_samples,
            n_counted=int(z_count is not None)
            + int(z_class is not None)
            + int(before is not None),
            l1=l1,
            adaptive_plan=z_count is not None,
            cap_epsilon=self.epsilon,
            calibrate=calibration,
            diagnose=after,
        )

    def _check_sampling(self, schedule, adaptive):
        """Refuse sampling settings the accounting does not cover (public checks)."""
        sampling = schedule.sampling_rate < 1.0 if adaptive else False
        if adaptive and self.batch_size is not None:
            raise ValueError(
                "batch_size must be None with an adaptive schedule, which sets its "
                "own sampling (e.g. LineSearchSchedule(sampling_rate=...))."
            )
        if (sampling or self.batch_size is not None) and self.neighboring == "replace":
            raise ValueError(
                "Poisson subsampling (batch_size, or an adaptive schedule's "
                "sampling_rate) is accounted for under add/remove-one neighbouring "
                "only; use neighboring='add_remove'."
            )

    def _plan(self, schedule, n_steps, context, normalized):
        """Noise multipliers and step sizes of a data-independent schedule."""
        noise_multipliers, learning_rates = schedule.plan(n_steps, context)
        noise_multipliers = np.asarray(noise_multipliers, dtype=float)
        n_run = noise_multipliers.shape[0]
        if noise_multipliers.ndim != 1 or not 1 <= n_run <= n_steps:
            raise ValueError(
                f"schedule.plan({n_steps}) returned noise multipliers of shape "
                f"{noise_multipliers.shape}, expected (T,) with 1 <= T <= {n_steps}."
            )
        # Normalised steps need step lengths; a schedule that prescribes its own
        # step sizes (PURSchedule) gets the plain gradient steps of its theory.
        normalize_steps = normalized and learning_rates is None
        if learning_rates is None:
            learning_rates = np.full(
                n_run,
                resolve_learning_rate(
                    self.learning_rate,
                    n_run,
                    context,
                    normalize_steps=normalize_steps,
                    base_learning_rate=self._base_learning_rate,
                    neighboring=self.neighboring,
                ),
            )
        learning_rates = np.asarray(learning_rates, dtype=float)
        if learning_rates.shape != (n_run,) or not np.all(learning_rates > 0):
            raise ValueError(
                f"schedule learning rates must be positive with shape ({n_run},), "
                f"got shape {learning_rates.shape}."
            )
        return noise_multipliers, learning_rates, normalize_steps

    def _planning_accountant(self, schedule):
        """The accountant the schedule plans with (``ScheduleContext.accountant``).

        A calibrated profile is rescaled against the privacy filter, count
        included, by :func:`sklearn_dpgd._solvers.gd.fit_plan_to_budget` with
        ``accountant``; the cheap RDP root is its starting point (a PLD root here
        would double the PLD evaluations). A plan of absolute levels whose horizon
        the budget sets
        (``PURSchedule``) is only truncated there, so it plans with ``accountant``.
        """
        calibrated = isinstance(schedule, NoiseSchedule) and (
            type(schedule).plan is NoiseSchedule.plan
        )
        return "rdp" if calibrated else self.accountant

    def _solve_snowball(self, X, y_index, n_outputs, initial, seed, sample_weight):
        """Snowball-SGD: its own plan, public size and accounting; its FitResult."""
        self._resolve_calibration(n_outputs, False, 0.0)  # refuses "temperature"
        if self.batch_size is not None or self.schedule is not None:
            raise ValueError(
                "solver='snowball' fixes its own batches and noise; batch_size and "
                "schedule must be None."
            )
        if is_dask_collection(X):
            raise TypeError(
                "solver='snowball' visits rows by index and needs in-memory "
                "(NumPy or CSR) data; use solver='gd' for dask arrays."
            )
        if initial is not None:
            raise ValueError(
                "coef_init and intercept_init are not supported by "
                "solver='snowball' (its analysis starts from zero); use "
                "solver='gd'."
            )
        # Snowball-SGD's clipping threshold is the one its analysis was measured
        # with; it depends on no size.
        clip_norm = 1.0 if self.clip_norm == "auto" else float(self.clip_norm)
        # Its step and smoothness are planned before the public size is known, and
        # were analysed without a penalty: "auto" is no penalty here.
        alpha = 0.0 if self.alpha == "auto" else float(self.alpha)
        # The plan spends at most (epsilon, delta); an open PrivacyLedger records
        # that before any data is read (the count of the rows included), or
        # refuses the fit.
        guarantee = EpsilonDeltaRecord(float(self.epsilon), float(self.delta))
        ledger_charge = charge_ledgers(self, guarantee, neighboring=self.neighboring)
        weights, max_weight = row_weights(
            class_weight_vector(self.class_weight, self.classes_),
            sample_weight,
            y_index,
            self.max_sample_weight,
        )
        result = snowball_solver.fit_snowball(
            X,
            y_index,
            n_outputs,
            seed=seed,
            epsilon=self.epsilon,
            delta=self.delta,
            neighboring=self.neighboring,
            public_n_samples=self.public_n_samples,
            fit_intercept=self.fit_intercept,
            clip_norm=clip_norm,
            radius=self.radius,
            alpha=alpha,
            loss=self._loss,
            huber_width=self._huber_width(),
            margin_smoothness=self._loss_constants(n_outputs)[0],
            secure_mode=self.secure_mode,
            sample_weight=weights,
            max_weight=max_weight,
        )
        ledger_charge.settle(guarantee)
        warn_weak_delta(self.delta, result.public_n_samples)
        outputs = dict(
            schedule_=None,
            clip_norm_=clip_norm,
            alpha_=alpha,
            calibration_=None,
            calibration_scale_=None,
        )
        return replace(result, outputs=outputs)

    def __getstate__(self):
        # Marks a copy sent to another process while a PrivacyLedger is open, so
        # that a fit there, which the ledger could not see, is refused.
        return _ledger_guard_state(super().__getstate__())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
