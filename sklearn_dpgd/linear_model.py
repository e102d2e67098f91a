"""Differentially private linear classifiers trained by noisy gradient descent."""

import math
from dataclasses import replace
from functools import partial
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _losses
from ._base import set_fitted
from ._calibration import (
    CALIBRATION_SHARE,
    MIN_CALIBRATION_SIGNAL,
    calibration_noise_multiplier,
    temperature_scale,
)
from ._dask import check_fit_data, is_dask_collection, map_rows
from ._errors import NotFittedAttributesMixin, refuse_sample_weight
from ._oracle import PrivateGradientOracle
from ._public_size import (
    SENSITIVITY_FACTOR,
    resolve_public_size,
    split_count_budget,
)
from ._randomness import draw_seed, make_generator
from ._sklearn_compat import Interval, StrOptions
from ._solvers import adaptive as adaptive_solver
from ._solvers import gd as gd_solver
from ._solvers import snowball as snowball_solver
from ._solvers.gd import training_filter
from ._validation import validate_fit_data
from ._warnings import warn_once
from .accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    _charge_active_ledgers,
    _ledger_guard_state,
    gdp_epsilon,
    gdp_mu,
)
from .exceptions import WeakPrivacyWarning
from .schedules import (
    MAX_HORIZON,
    AdaptiveSchedule,
    NoiseSchedule,
    PURSchedule,
    ScheduleContext,
    UniformSchedule,
    auto_clip_norm,
    auto_learning_rate,
    auto_max_iter,
)

__all__ = ["DPHuberSVM", "DPLogisticRegression"]

# The L2 sensitivity of a sum of per-example vectors clipped to norm C is C when
# neighbours differ by adding or removing one row, and 2C when one row is replaced.
_SENSITIVITY_FACTOR = SENSITIVITY_FACTOR

# Base step length of normalised steps under learning_rate="auto" (parameter units;
# both losses), chosen with clip_norm="auto" on holdouts of Adult's and Bank's
# training splits (benchmarks/bench_accuracy.py --ablation).
_NORMALIZED_STEP_LENGTH = 0.5


class _BaseDPLinearClassifier(NotFittedAttributesMixin, ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the private linear classifiers (one loss per subclass)."""

    _loss = None  # key of _losses.LOSS_CODES, set by subclasses

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
        "fit_intercept": ["boolean"],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "classes": ["array-like", None],
        "solver": [StrOptions({"gd", "snowball"})],
        "radius": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
        "verbose": ["verbose"],
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
        if self.solver != "gd":
            return (
                f"solver={self.solver!r} is accounted by Renyi DP (amplification by "
                "iteration), not as a Gaussian mechanism; use solver='gd'"
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
        """The L2 penalty: the parameter, or the rule of "auto".

        ``alpha = 1 / m`` makes the objective, ``mean loss + ||w||^2 / (2 m)``,
        scikit-learn's ``LogisticRegression(C=1.0)`` one (``C sum loss +
        ||w||^2 / 2``, divided by ``m``), with the public size ``m`` in place of
        the private one. A PURSchedule gets 0: it picks its analysis (convex or
        strongly convex) and its horizon from ``alpha``.
        """
        if self.alpha != "auto":
            return float(self.alpha)
        if isinstance(schedule, PURSchedule):
            return 0.0
        return 1.0 / public_size

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
        if not normalize_steps or self.solver != "gd" or adaptive:
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
        sample_weight : None, default=None
            Refused: any value but None raises a ValueError (a weight above 1
            gives one row more influence than the sensitivity allows).

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
            ``fit_intercept=False``); or ``sample_weight`` is not None (weights
            break the sensitivity).
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

        Notes
        -----
        ``sample_weight`` is not accepted: a weight above 1 would raise one row's
        influence above ``clip_norm`` and break the guarantee.
        """
        refuse_sample_weight(sample_weight, type(self).__name__)
        self._check_finite_params()
        if is_dask_collection(X) or is_dask_collection(y):
            # Rows stay on the Dask workers; the oracle sums their chunks there.
            X, y_index = check_fit_data(self, X, y)
        else:
            X, y_index = validate_fit_data(self, X, y)
        n_outputs = 1 if self.classes_.shape[0] == 2 else self.classes_.shape[0]
        initial = self._initial_point(coef_init, intercept_init, n_outputs, X.shape[1])
        # secure_mode ignores random_state (its noise is not seeded): no warning.
        random_state = None if self.secure_mode else self.random_state
        seed = draw_seed(random_state, owner=type(self).__name__)
        if self.solver == "snowball":
            result = self._solve_snowball(X, y_index, n_outputs, initial, seed)
        else:
            result = self._solve_gd(X, y_index, n_outputs, initial, seed)
        set_fitted(self, result)
        return self

    def _solve_gd(self, X, y_index, n_outputs, initial, seed):
        """Budget, public size, plan and run of ``solver="gd"``: its FitResult."""
        schedule = self._resolve_schedule()
        adaptive = isinstance(schedule, AdaptiveSchedule)
        self._check_sampling(schedule, adaptive)
        mu, z_count, mu_train, planned = self._budget(adaptive)
        # The whole cost is known now, before any data is read (the count of the
        # rows included): an open PrivacyLedger records it here, or refuses the
        # fit if over its cap.
        ledger_charge = _charge_active_ledgers(
            self, planned, neighboring=self.neighboring
        )
        rng = make_generator(seed, self.secure_mode)
        m = self._public_size(X.shape[0], z_count, rng)
        calibrate, normalized, context = self._setting(
            schedule, mu, mu_train, z_count, m, X.shape[1], n_outputs
        )
        make_oracle = self._oracle_factory(X, y_index, context, rng)
        if adaptive:
            result = adaptive_solver.solve(
                make_oracle,
                schedule,
                context,
                count_multiplier=z_count,
                max_updates=MAX_HORIZON
                if self.max_iter == "auto"
                else int(self.max_iter),
                initial=initial,
                verbose=self.verbose,
                dtype=X.dtype,
                fit_intercept=self.fit_intercept,
                delta=self.delta,
            )
            ledger_charge.settle(planned)
        else:
            calibration = (
                self._calibration(X, y_index, rng, context.n_samples, mu)
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
                dtype=X.dtype,
            )
            # An adaptively chosen plan is recorded by the guarantee its filter
            # enforced (composing its steps as if fixed in advance would
            # understate).
            adaptive_plan = z_count is not None and context.sampling_rate < 1.0
            ledger_charge.settle(planned if adaptive_plan else result.ledger)
        outputs = {
            "schedule_": schedule,
            "clip_norm_": context.clip_norm,
            "alpha_": context.alpha,
            "calibration_": None,
            "calibration_scale_": None,
            **result.outputs,
        }
        return replace(result, outputs=outputs)

    def _calibration(self, X, y_index, rng, m, mu):
        """Private temperature scaling (``_calibration.py``) as the gd solver's
        ``calibrate(coef, intercept, privacy_filter=...)``: it runs on the
        training's filter, at a public share of ``mu**2``."""
        return partial(
            temperature_scale,
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
        self._warn_weak_delta(size.n_samples)
        return size.n_samples

    def _oracle_factory(self, X, y_index, context, rng):
        """``make_oracle(privacy_filter=...)``: the fit's one access to the data."""
        return partial(
            PrivateGradientOracle,
            X,
            y_index,
            n_outputs=context.n_outputs,
            loss=_losses.LOSS_CODES[self._loss],
            huber_width=self._huber_width(),
            clip_norm=context.clip_norm,
            sensitivity=context.sensitivity,
            fit_intercept=bool(self.fit_intercept),
            rng=rng,
            public_n_samples=context.n_samples,
            sampling_rate=context.sampling_rate,
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
        if (z_count is not None or calibrate) and not adaptive:
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
    ):
        """Plan a data-independent schedule, fit it to the budget, run it.

        ``calibration`` is None or ``calibration(coef, intercept,
        privacy_filter=...)``; ``z_count`` the count's noise multiplier or None.
        """
        n_steps = self._n_steps(schedule, context, normalized)
        noise_multipliers, learning_rates, normalize_steps = self._plan(
            schedule, n_steps, context, normalized
        )
        privacy_filter, noise_multipliers, learning_rates = training_filter(
            noise_multipliers,
            learning_rates,
            mu=mu,
            count_multiplier=z_count,
            sampling_rate=context.sampling_rate,
            epsilon=self.epsilon,
            delta=self.delta,
            accountant=self.accountant,
            calibrated=type(schedule).plan is NoiseSchedule.plan,
        )
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
            n_counted=int(z_count is not None),
            adaptive_plan=z_count is not None and context.sampling_rate < 1.0,
            calibrate=calibration,
        )

    def _warn_weak_delta(self, public_size):
        if self.delta >= 1.0 / public_size:
            warn_once(
                f"delta={self.delta:g} >= 1/public_n_samples_={1.0 / public_size:.3g}"
                ": a mechanism that publishes a random row meets this delta, so the "
                "guarantee is too weak to protect individuals. Use delta << 1/n.",
                WeakPrivacyWarning,
                stacklevel=3,
                # The quoted size is per fit (a noisy count): once per delta.
                key=("weak delta", self.delta),
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

    def _n_steps(self, schedule, context, normalized):
        """The horizon: the parameter, the schedule's, or the "auto" rule."""
        if self.max_iter != "auto":
            return int(self.max_iter)
        return schedule.horizon(context) or auto_max_iter(
            context.epsilon,
            context.delta,
            context.n_samples,
            context.n_features,
            n_outputs=context.n_outputs,
            neighboring=self.neighboring,
            fit_intercept=self.fit_intercept,
            horizon_factor=self._horizon_factor
            if normalized
            else self._gradient_horizon_factor,
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
                n_run, self._learning_rate(n_run, context, normalize_steps)
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

    def _learning_rate(self, n_steps, context, normalize_steps):
        """The step size: the parameter, or the noisy-radius rule for "auto".

        Normalised steps get a step *length* of base 0.5 (parameter units); plain
        gradient steps get the loss's base step divided by ``clip_norm_``, so that
        the step does not depend on the units of the clipped gradient.
        """
        if self.learning_rate != "auto":
            return float(self.learning_rate)
        if normalize_steps:
            base, scale = _NORMALIZED_STEP_LENGTH, 1.0
        else:
            base, scale = self._base_learning_rate, 1.0 / context.clip_norm
        return scale * auto_learning_rate(
            base,
            n_steps,
            context.epsilon,
            context.delta,
            context.n_samples,
            context.n_features,
            n_outputs=context.n_outputs,
            neighboring=self.neighboring,
            fit_intercept=context.fit_intercept,
        )

    def _solve_snowball(self, X, y_index, n_outputs, initial, seed):
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
        ledger_charge = _charge_active_ledgers(
            self, guarantee, neighboring=self.neighboring
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
        )
        ledger_charge.settle(guarantee)
        self._warn_weak_delta(result.public_n_samples)
        outputs = dict(
            schedule_=None,
            clip_norm_=clip_norm,
            alpha_=alpha,
            calibration_=None,
            calibration_scale_=None,
        )
        return replace(result, outputs=outputs)

    def decision_function(self, X):
        """Decision scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        scores : ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            Binary: positive values favour ``classes_[1]``. Multiclass: one column
            per class, in the order of ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "decision_function", X)
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            Labels from ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "predict", X)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __getstate__(self):
        # Marks a copy sent to another process while a PrivacyLedger is open, so
        # that a fit there, which the ledger could not see, is refused.
        return _ledger_guard_state(super().__getstate__())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# Docstring paragraphs shared by the estimators (one source for both, so they cannot
# drift apart); each class docstring is assembled from them below.
_GUARANTEE = """\
    The guarantee: the fitted model (every fitted attribute below) is
    ``(epsilon, delta)``-differentially private with respect to ``neighboring``:
    adding or removing one row (default) or replacing one row of ``(X, y)``. What
    must be chosen without looking at the data: these parameters, the preprocessing
    (e.g. scaling bounds), and the label set (pass ``classes``). Under add/remove
    the number of rows is private: every rule that needs a size uses the public
    size ``public_n_samples_`` (declared, or a noisy count charged to the budget).
    Multiclass models clip each example's whole gradient matrix
    (all classes and intercepts) jointly, so one Gaussian mechanism per step covers
    all classes and the budget is not split between them."""

_PARAMS_PRIVACY = """\
    epsilon : float, default=1.0
        Privacy-loss bound, > 0. Smaller is more private and noisier.
    delta : float, default=1e-8
        Probability of failure of the guarantee, in (0, 1); should be much smaller
        than ``1 / n_samples`` (a :class:`~sklearn_dpgd.exceptions.WeakPrivacyWarning`
        says so otherwise). 1e-8 is the value of the papers' experiments (Lee &
        Kifer, KDD 2018; Chen & Lee, Sec. V) and is meaningful up to 10^8 rows.
    schedule : NoiseSchedule, AdaptiveSchedule or None, default=None
        Shape of the per-step noise multipliers (see :mod:`sklearn_dpgd.schedules`);
        any :class:`~sklearn_dpgd.schedules.NoiseSchedule`. None means
        :class:`~sklearn_dpgd.schedules.UniformSchedule`, which was as good as or
        better than exponential decay at every epsilon of
        ``benchmarks/bench_adult.py``. An adaptive strategy
        (:class:`~sklearn_dpgd.schedules.AdaptiveStepSchedule`, DP-AGD;
        :class:`~sklearn_dpgd.schedules.LineSearchSchedule`, DP-BLSGD) instead
        chooses step sizes and per-step budgets during training from privatised
        feedback, under a privacy filter; ``learning_rate``, ``momentum``,
        ``average`` and ``batch_size`` do not apply to it. The resolved object is
        stored in ``schedule_``.
    max_iter : int or "auto", default="auto"
        Number of private gradient steps ``T``. Every step costs privacy, so all of
        them are taken: there is no early stopping on the private loss. "auto" uses
        :func:`~sklearn_dpgd.schedules.auto_max_iter`, a rule in public quantities
        only (epsilon, delta, the public size ``public_n_samples_``, n_features,
        number of classes, neighboring): few steps at small budgets, where each
        step's noise would dominate, and up to 1000 at large ones. With an
        adaptive schedule, an int caps the number of updates and "auto" lets the
        budget end the run."""

_PARAMS_OPTIMISER = """\
    momentum : float, default=0.9
        Heavy-ball coefficient in [0, 1) (0 is plain gradient descent). Equivalent to
        the moving-average momentum of Hong et al. (eq. 3, without its bias
        correction) with step size ``learning_rate / (1 - momentum)``. It speeds up
        the ill-conditioned problems of one-hot tabular data (the docs' Benchmarks
        page, "How the defaults were chosen").
    average : float, default=0.5
        Fraction of the last iterates whose mean is returned (suffix averaging;
        Rakhlin, Shamir & Sridharan, ICML 2012), in [0, 1]; 0 returns the last
        iterate. Averaging cancels part of the noise of the final steps.
    normalize_steps : bool or "auto", default="auto"
        Whether each heavy-ball step follows the noisy gradient divided by its L2
        norm (Frobenius, intercepts included), so that ``learning_rate`` is the
        length of the step in parameter space (normalised gradient descent; Hazan,
        Levy & Shalev-Shwartz, NeurIPS 2015, Alg. 1). Post-processing of the noisy
        gradient: it costs no privacy. "auto" is True for binary problems, where
        it was validated on holdouts of Adult's and Bank's training splits (the
        docs' Benchmarks page), and False for multiclass ones, which keep plain
        gradient steps. Schedules that prescribe
        their own step sizes (:class:`~sklearn_dpgd.schedules.PURSchedule`) always
        take plain gradient steps, and adaptive schedules and ``solver="snowball"``
        ignore it.
    batch_size : int or None, default=None
        Expected batch size of minibatch DP-SGD: each step sums a fresh Poisson
        sample, every row independently with probability
        ``q = batch_size / m`` (``m`` the public size ``public_n_samples_``), and
        divides by ``q m``. None is the
        full batch. Subsampled steps are accounted by ``accountant``, under
        add/remove-one neighbouring only.
    accountant : {"pld", "rdp"}, default="pld"
        The accountant of subsampled steps (full-batch steps always use the exact
        GDP closed form). One accountant does everything: the noise is calibrated
        to it, the privacy filter approves the whole plan (the noisy count of the
        public size included) with it before any row is read, and ``epsilon_`` is
        its value. "pld": the pessimistic privacy-loss distribution of exactly the
        steps that run (dp-accounting's ``PoissonSampledDpEvent`` of a
        ``GaussianDpEvent``, connect-the-dots discretisation; Doroshenko et al.,
        PETS 2022), an upper bound close to a finer grid's. "rdp": the Rényi DP
        of the sampled Gaussian (Mironov, Talwar & Zhang 2019), a looser bound,
        so more noise for the same promise. Both apply to a plan fixed in advance, i.e.
        with a declared ``public_n_samples``: when the size is estimated, the
        plan depends on the noisy count, and a Rényi filter at one order fixed
        from ``(epsilon, delta)`` before the count approves it instead (Feldman &
        Zrnic, NeurIPS 2021, Thm 3.1; the privacy page, "Accounting").
    clip_norm : float or "auto", default="auto"
        Per-example gradient clipping threshold ``C``: the Frobenius norm over all
        ``n_outputs * (n_features + 1)`` gradient coordinates. Both losses are
        1-Lipschitz in the margin, so with rows scaled to unit norm the binary
        gradient has norm at most ``sqrt(2)`` (``2`` for softmax). "auto", with
        normalised steps: :func:`~sklearn_dpgd.schedules.auto_clip_norm`, 0.5 at
        small budgets (most per-example gradients then count alike) rising to 1.0
        at large ones (where clipping's
        bias costs more than its noise saves, and miscalibrates
        ``predict_proba``); otherwise 1.0 (gradient steps, adaptive schedules,
        ``solver="snowball"``). The resolved value is ``clip_norm_``. Below 1.0
        the fitted probabilities are biased (user guide, "Calibration under
        DP"): pass 1.0 when calibrated ``predict_proba`` matters more than
        accuracy.
%(alpha)s
    fit_intercept : bool, default=True
        Whether to fit intercepts, trained as one more column of the clipped
        per-example gradient.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee. The clipped-gradient sum has
        sensitivity ``Delta = clip_norm`` under add/remove-one and
        ``2 * clip_norm`` under replace-one.
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by every rule that needs a size: the horizon, step size and
        clipping threshold of "auto", the sampling rate ``batch_size / m``, the
        divisor of the gradient sum, the Snowball-SGD plan. It need not equal the
        number of rows and is never compared with it (that comparison would itself
        read ``n``). None: under ``neighboring="add_remove"`` the size is
        estimated privately, by a Gaussian count charged to this fit's budget (1%
        of ``mu**2``; the training keeps 99.5% of its ``mu``); under
        ``"replace"`` the exact ``n_samples`` is public and used. The value used
        is ``public_n_samples_``.
    classes : array-like of shape (n_classes,), default=None
        The public label set. If None, it is read from ``y`` and a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` is raised: which labels
        occur is then not protected. When given, labels outside it raise, and a
        declared class may be absent from ``y``: even one-class ``y`` is trained
        on, and ``classes_`` is the declared set (with ``classes=None``,
        one-class ``y`` raises a ValueError).
    solver : {"gd", "snowball"}, default="gd"
        "gd": the private gradient descent described above. "snowball":
        Snowball-SGD (Feldman, Koren & Talwar, STOC 2020, Sec. 3, Thm 3.1 and 3.5;
        ``sklearn_dpgd/_snowball.py``): one pass over the rows in a random order,
        batches growing as ``B_t = ceil(2 sqrt(p) / (rho sqrt(T - t + 1)))``
        (``p`` parameters; the factor 2 is the replace-one sensitivity, which
        holds under add/remove too, as an added row that lands in a full batch
        pushes another out) planned on the public size, noise
        ``clip_norm / sqrt(p)`` per coordinate of each batch-mean gradient, a
        constant step ``min(2 radius / (clip_norm sqrt(2 T)), 2 / beta)``,
        projection onto the ball of radius ``radius``, and the last iterate
        released. Its privacy comes from amplification by iteration:
        ``(alpha, alpha rho^2 / 2)``-RDP, converted to ``(epsilon, delta)`` by
        the RDP conversion (not the exact GDP one of "gd"). It needs convex,
        Lipschitz and smooth per-example losses: each row ``[x_i, 1]`` is scaled
        to norm ``clip_norm / G_K`` (``G_K`` = 1 binary, ``sqrt(2)`` softmax,
        ``sqrt(K)`` one-vs-rest hinge), which keeps every gradient within
        ``clip_norm`` and bounds the smoothness ``beta``. ``schedule`` and
        ``batch_size`` must be None; ``max_iter``, ``learning_rate``,
        ``momentum``, ``average`` and ``accountant`` are not used (the horizon
        and step come from the public size and the budget).
    radius : float, default=10.0
        Radius of the ball (all coefficients and intercepts, Frobenius norm) onto
        which ``solver="snowball"`` projects; the paper's diameter is
        ``D = 2 radius``. Unused by ``solver="gd"``. 10 was chosen on a holdout of
        Adult's *training* split (among 1, 3, 10, 30), never its test split.
    random_state : int, RandomState instance or None, default=None
        Seeds the noise (and the order of the rows for ``solver="snowball"``).
        None draws 128 bits of fresh operating-system entropy for every fit (never
        NumPy's global state). An int or a ``RandomState`` makes the noise
        reproducible and therefore subtractable by anyone who knows the seed, and
        fits that share it share their noise: it is for debugging and tests only
        and raises a :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    secure_mode : bool, default=False
        Draw every noise value from the operating system's cryptographically
        secure generator with samplers that resist the floating-point attacks of
        Mironov (CCS 2012); ``random_state`` is then ignored. Same guarantee and
        accounting (see the privacy page, "secure_mode"); slower noise draws.
    verbose : int, default=0
        If > 0, print the noise multiplier and the norm of the noisy gradient at each
        step (privatised values only)."""

_ATTRIBUTES = """\
    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients of the decision function; one row for binary problems. Same
        dtype as the training ``X`` (float32 or float64).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts (zeros when ``fit_intercept=False``).
    classes_ : ndarray of shape (n_classes,)
        Class labels; for binary problems ``classes_[1]`` is the positive class.
    n_iter_ : int
        Number of parameter updates (private steps) taken.
    public_n_samples_ : int
        The public size every size-dependent rule used: ``public_n_samples``,
        ``n_samples`` under ``neighboring="replace"``, or the private (noisy,
        charged) estimate of ``n_samples``.
    clip_norm_ : float
        The clipping threshold used (``clip_norm`` with "auto" resolved).
    alpha_ : float
        The L2 penalty used (``alpha`` with "auto" resolved).
    calibration_ : "temperature" or None
        The calibration that ran (``calibration`` with "auto" resolved; always
        None for :class:`DPHuberSVM`, which has no probabilities).
    calibration_scale_ : float or None
        The factor ``a`` of the private temperature scaling, already folded into
        ``coef_`` and ``intercept_`` (they are ``a`` times the trained ones);
        None without calibration. A private output like ``coef_``.
    learning_rates_ : ndarray of shape (`n_iter_`,)
        Step size of each update: the plan's (data-independent schedules and
        Snowball-SGD) or the privately chosen one (adaptive schedules).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.
    schedule_ : NoiseSchedule, AdaptiveSchedule or None
        The schedule used (None for ``solver="snowball"``).
    noise_multipliers_ : ndarray of shape (n_gradients,)
        Noise std of each noisy gradient in units of the clipped-gradient
        sensitivity ``Delta`` (``n_gradients == n_iter_`` except for adaptive
        schedules, which may draw extra gradients: their per-step budgets).
    ledger_ : tuple of GaussianSteps, SnowballSteps, SparseVectorSteps or \
            NoisyMaxSteps
        What ran: (noise multiplier, sampling rate, count) run-length encoded; for
        adaptive schedules also the private selections; for ``solver="snowball"``
        one :class:`~sklearn_dpgd.accounting.SnowballSteps` (batch sizes, noise
        multipliers, steps). The fit can be re-audited from it alone with
        :func:`~sklearn_dpgd.accounting.ledger_epsilon`.
    mu_ : float or None
        GDP parameter spent, ``sqrt(sum_t noise_multipliers_[t] ** -2)``, for
        full-batch runs; None for subsampled, adaptive and Snowball runs (no
        closed form).
    epsilon_ : float
        Epsilon spent at ``delta_``; at most ``epsilon`` (equal up to ~1e-11 for
        ``solver="gd"``; for "snowball" a little below, as batch sizes are rounded
        up; for adaptive schedules, the guarantee of their privacy filter,
        ``epsilon``).
    delta_ : float
        The delta of the guarantee."""

_CAVEAT = """\
    Floating-point caveat: noise is drawn with NumPy's double-precision Gaussian
    sampler; like every floating-point implementation of the Gaussian mechanism it
    is open to the attacks of Mironov (CCS 2012) on the low-order bits.

    ``sample_weight`` is not supported: a weight above 1 would give one row more
    influence than ``clip_norm`` and break the guarantee."""


_ALPHA_AUTO = """\
    alpha : float or "auto", default="auto"
        L2 penalty ``alpha/2 ||coef||^2`` (intercepts are not penalised). Public,
        so its gradient is added without noise. "auto" is ``1 /
        public_n_samples_``: the objective ``mean loss + ||coef||^2 / (2 m)`` is
        then scikit-learn's ``LogisticRegression(C=1.0)`` objective with the
        public size ``m``, whose minimiser has finite coefficients even where the
        unpenalised one has none (a category seen with one label only, a
        separable subset). Without it, normalised steps with heavy-ball momentum
        keep moving at full length along such directions, where the gradient
        fades but the step does not, and the coefficients and the fitted
        probabilities grow over-confident (user guide, "Calibration under DP").
        The penalty depends on the public size only and its gradient is added
        without noise, so the same Gaussian steps run and the privacy cost is
        unchanged; private learning of L2-regularised objectives is the setting
        of Chaudhuri, Monteleoni & Sarwate (JMLR 2011) and Bassily, Smith &
        Thakurta (FOCS 2014). "auto" is 0 where an analysis sizes the steps from
        ``alpha`` itself: ``solver="snowball"`` and
        :class:`~sklearn_dpgd.schedules.PURSchedule` (which would switch to its
        strongly convex variant). The value used is ``alpha_``.
    calibration : {"auto", "temperature"} or None, default="auto"
        Private temperature scaling of the probabilities, the last stage of the
        fit. Per-example clipping caps the pull of misclassified rows more than
        that of well-classified ones, so the trained margins come out too large
        and the probabilities over-confident, the more so the larger the rows'
        norms over ``clip_norm`` (user guide, "Calibration under DP").
        "temperature" fits one factor ``a`` of the margins ``s`` of the training
        rows, the probabilities ``sigma(a s)`` (Guo, Pleiss, Sun & Weinberger,
        ICML 2017, Sec. 4.2), by 100 further full-batch noisy gradient steps on
        the one feature ``clip(s / 8, -1, 1)``, whose per-row gradient has norm at
        most 1 (the sensitivity, doubled under replace-one), and multiplies
        ``coef_`` and ``intercept_`` by ``a`` (kept in [0.05, 20]): predictions
        do not change. It costs 2% of the fit's GDP ``mu**2``: the whole fit,
        calibration included, is still ``(epsilon, delta)``-DP, and the
        training steps get the other 98% (minus the count's share). "auto" is
        "temperature" for binary full-batch fits (``batch_size=None``, a
        data-independent ``schedule``, ``solver="gd"``) with
        ``sqrt(0.02) * public_n_samples_ * mu >= 300`` (``mu = gdp_mu(epsilon,
        delta)``; below it the stage's own noise costs more log-loss than it
        saves), and None otherwise (multiclass, minibatch, adaptive and
        snowball fits are not recalibrated). "temperature" where it is not
        available raises a ValueError; None skips the stage and gives its
        budget to the training steps. What ran is ``calibration_``."""

_ALPHA_ZERO = """\
    alpha : float or "auto", default=0.0
        L2 penalty ``alpha/2 ||coef||^2`` (intercepts are not penalised). Public,
        so its gradient is added without noise. "auto" is ``1 /
        public_n_samples_`` as for :class:`DPLogisticRegression` (0 for
        ``solver="snowball"`` and a PURSchedule). The value used is ``alpha_``."""


def _assemble(doc, alpha_doc):
    return (
        doc.replace("%(guarantee)s", _GUARANTEE)
        .replace("%(params_privacy)s", _PARAMS_PRIVACY)
        .replace("%(params_optimiser)s", _PARAMS_OPTIMISER)
        .replace("%(alpha)s", alpha_doc)
        .replace("%(attributes)s", _ATTRIBUTES)
        .replace("%(caveat)s", _CAVEAT)
    )


class DPLogisticRegression(_BaseDPLinearClassifier):
    __doc__ = _assemble(
        """Logistic regression with differential privacy by noisy gradient descent.

    Trains ``T`` full-batch steps of private gradient descent: per-example
    gradients (intercepts included) are clipped to L2 norm ``clip_norm``, summed,
    and Gaussian noise of std ``z_t * Delta`` is added to the sum before it is
    divided by the public size ``m`` (``public_n_samples_``: under add/remove the
    exact ``n_samples`` is private) and the noiseless L2-penalty gradient is added
    (Hong, Wang & Zhou, FAccT 2022, Algorithm 1, with ``m`` for ``n``).
    Binary problems use the sigmoid loss ``log(1 + exp(-y m))``; more classes use the
    multinomial (softmax) loss, whose per-example gradient is
    ``(p_i - e_{y_i}) [x_i, 1]``. The noise multipliers ``z_t`` follow
    ``schedule``'s shape at the one scale that spends ``(epsilon, delta)`` exactly,
    by the closed-form composition of Gaussian differential privacy (Dong, Roth &
    Su 2022, Cor. 3.3 and 2.13), which is tighter than the zCDP accounting of the
    papers. Heavy-ball momentum and suffix averaging post-process the private
    gradients and cost nothing.

%(guarantee)s

    Parameters
    ----------
%(params_privacy)s
    learning_rate : float or "auto", default="auto"
        Step size ``eta`` of the heavy-ball update: with normalised steps
        (``normalize_steps``) the length of each step in parameter space, else the
        multiplier of the noisy gradient. "auto":
        :func:`~sklearn_dpgd.schedules.auto_learning_rate` with base 0.5 for
        normalised steps (a length of about 0.125 with ``max_iter="auto"``), and for
        gradient steps base ``2.0 / clip_norm_``, i.e. 2.0 spread over the automatic
        horizon so that ``eta * T`` (the noisy radius) is that of 2.0 over
        ``mu n / sqrt(d')`` steps (about 0.5 with ``max_iter="auto"``). The
        binary logistic loss is 1/4-smooth in the margin (softmax: 1/2), so with
        rows of norm at most 1 plus the intercept the objective is 1/2-smooth
        (softmax: 1) and heavy ball with ``momentum=0.9`` is stable for
        ``eta < 2 (1 + momentum) / L`` (7.6; 3.8) without noise.
%(params_optimiser)s

%(attributes)s

    See Also
    --------
    DPHuberSVM : The same engine with the Huber-smoothed hinge loss.
    sklearn.linear_model.LogisticRegression : The non-private model.

    Notes
    -----
    The defaults (uniform schedule, automatic horizon and step size,
    ``momentum=0.9``, ``average=0.5``, normalised steps and the automatic
    ``clip_norm`` for binary problems) were chosen on holdouts of Adult's and
    Bank's *training* splits, never their test splits, with the protocol of
    ``benchmarks/bench_adult.py`` (one-hot + min-max + unit-norm rows, delta = 1e-8;
    ``benchmarks/bench_accuracy.py --ablation`` prints the evidence); the docs'
    Benchmarks page gives the resulting test accuracies. The penalty
    ``alpha="auto"`` was not tuned: it is scikit-learn's default objective, added
    for calibrated probabilities (user guide, "Calibration under DP", with its
    cost in accuracy).

%(caveat)s

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler, Normalizer
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     MinMaxScaler(), Normalizer(),
    ...     DPLogisticRegression(
    ...         epsilon=1.0, delta=1e-5, classes=[0, 1], random_state=0
    ...     ),
    ... ).fit(X, y)
    >>> bool(clf[-1].epsilon_ <= 1.0)
    True
    """,
        _ALPHA_AUTO,
    )

    _loss = "logistic"
    _base_learning_rate = 2.0  # gradient steps (normalize_steps=False)
    _horizon_factor = 4  # see auto_max_iter
    _gradient_horizon_factor = 4

    _parameter_constraints = {
        **_BaseDPLinearClassifier._parameter_constraints,
        "calibration": [StrOptions({"auto", "temperature"}), None],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        schedule=None,
        max_iter="auto",
        learning_rate="auto",
        momentum=0.9,
        average=0.5,
        normalize_steps="auto",
        batch_size=None,
        accountant="pld",
        clip_norm="auto",
        alpha="auto",
        calibration="auto",
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        solver="gd",
        radius=10.0,
        random_state=None,
        secure_mode=False,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schedule = schedule
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.average = average
        self.normalize_steps = normalize_steps
        self.batch_size = batch_size
        self.accountant = accountant
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.calibration = calibration
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.classes = classes
        self.solver = solver
        self.radius = radius
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.verbose = verbose

    def _resolve_calibration(self, n_outputs, full_batch, signal):
        available = n_outputs == 1 and full_batch
        if self.calibration == "temperature" and not available:
            raise ValueError(
                "calibration='temperature' needs a binary problem and a full-batch fit "
                "with a data-independent schedule (batch_size=None, solver='gd'); "
                "use calibration='auto' or None here."
            )
        if self.calibration == "auto":
            return available and signal >= MIN_CALIBRATION_SIGNAL
        return available and self.calibration is not None

    def predict_proba(self, X):
        """Probability estimates: sigmoid (binary) or softmax (multiclass).

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        proba : ndarray or dask array of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "predict_proba", X)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            # expit(-s), not 1 - expit(s): no cancellation to 0 at large margins.
            return np.column_stack([expit(-scores), expit(scores)])
        return softmax(scores, axis=1)

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray or dask array of shape (n_samples, n_classes)
            Log-probabilities, columns in the order of ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "predict_log_proba", X)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)


class DPHuberSVM(_BaseDPLinearClassifier):
    __doc__ = _assemble(
        """Linear SVM (Huber-smoothed hinge) with differential privacy by noisy GD.

    The same private engine as :class:`DPLogisticRegression` with the
    Huber-smoothed hinge loss of Chen & Lee (Sec. V-C), for the signed margin
    ``z = y m``::

        l(z) = 1 - z                      if z < 1 - h
               (1 + h - z)^2 / (4 h)      if |1 - z| <= h
               0                          otherwise

    which is 1-Lipschitz and ``1/(2h)``-smooth (Chen & Lee, *Stochastic Adaptive Line
    Search for Differentially Private Optimization*, Sec. V-C). More than two classes
    are trained one-vs-rest with the per-example gradients of all classes clipped
    jointly, in one private mechanism per step.
    As scikit-learn's :class:`~sklearn.svm.LinearSVC`, it has no
    ``predict_proba``: the hinge loss gives no probability model.

%(guarantee)s

    Parameters
    ----------
%(params_privacy)s
    learning_rate : float or "auto", default="auto"
        Step size ``eta`` of the heavy-ball update: with normalised steps
        (``normalize_steps``) the length of each step in parameter space, else the
        multiplier of the noisy gradient. "auto", normalised steps (binary
        problems): :func:`~sklearn_dpgd.schedules.auto_learning_rate` with base
        0.5 over ``4 mu n / sqrt(d')`` steps, as for the logistic loss. "auto",
        gradient steps: base ``0.5 / clip_norm_``, which is that step itself over
        the horizon of ``mu n / sqrt(d')`` steps (spreading it over more, smaller
        gradient steps lost on Adult's holdout for the hinge). The loss
        is ``1/(2h)``-smooth in the margin, four times the logistic loss's curvature
        at ``h = 0.5``, so the base is a quarter of :class:`DPLogisticRegression`'s:
        the same ``eta * L`` (stable for ``eta < 2 (1 + momentum) h``).
    h : float, default=0.5
        Smoothing width of the hinge, > 0 (Chen & Lee, Sec. V-C, use 0.5).
%(params_optimiser)s

%(attributes)s

    See Also
    --------
    DPLogisticRegression : The same engine with the logistic loss.
    sklearn.svm.LinearSVC : The non-private linear SVM.

    Notes
    -----
    The defaults are those of :class:`DPLogisticRegression` with the step size
    scaled by the smoothness, checked on Adult with ``benchmarks/bench_adult.py``.

%(caveat)s

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler, Normalizer
    >>> from sklearn_dpgd import DPHuberSVM
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     MinMaxScaler(), Normalizer(),
    ...     DPHuberSVM(epsilon=1.0, delta=1e-5, classes=[0, 1], random_state=0),
    ... ).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """,
        _ALPHA_ZERO,
    )

    _loss = "huber_hinge"
    _base_learning_rate = 0.5  # gradient steps (normalize_steps=False)
    _horizon_factor = 4  # see auto_max_iter
    # With gradient steps the 4x rule lost on Adult's holdout for this loss.
    _gradient_horizon_factor = 1

    _parameter_constraints = {
        **_BaseDPLinearClassifier._parameter_constraints,
        "h": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        schedule=None,
        max_iter="auto",
        learning_rate="auto",
        h=0.5,
        momentum=0.9,
        average=0.5,
        normalize_steps="auto",
        batch_size=None,
        accountant="pld",
        clip_norm="auto",
        alpha=0.0,
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        solver="gd",
        radius=10.0,
        random_state=None,
        secure_mode=False,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schedule = schedule
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.average = average
        self.normalize_steps = normalize_steps
        self.batch_size = batch_size
        self.accountant = accountant
        self.h = h
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.classes = classes
        self.solver = solver
        self.radius = radius
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.verbose = verbose

    def _huber_width(self):
        return float(self.h)

    def _check_finite_params(self):
        super()._check_finite_params()
        if not np.isfinite(self.h):
            raise ValueError(f"h must be finite, got {self.h!r}.")
