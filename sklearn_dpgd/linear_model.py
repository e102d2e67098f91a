"""Differentially private linear classifiers trained by noisy gradient descent."""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _losses
from ._oracle import PrivateGradientOracle
from ._solver import noisy_gradient_descent
from .accounting import (
    GaussianPrivacyFilter,
    calibrate_noise_multipliers,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
)
from .exceptions import PrivacyLeakWarning, WeakPrivacyWarning
from .schedules import UniformSchedule, auto_max_iter

__all__ = ["DPLogisticRegression"]

# The L2 sensitivity of a sum of per-example vectors clipped to norm C is C when
# neighbours differ by adding or removing one row, and 2C when one row is replaced
# (../shared/algorithms.md, Notation).
_SENSITIVITY_FACTOR = {"add_remove": 1.0, "replace": 2.0}


class _BaseDPLinearClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the private linear classifiers (one loss per subclass)."""

    _loss = None  # key of _losses.LOSS_CODES, set by subclasses

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "schedule": [HasMethods(["noise_multipliers"]), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "average": [Interval(Real, 0, 1, closed="both")],
        "clip_norm": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "classes": ["array-like", None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def _huber_width(self):
        return 0.5

    def _resolve_schedule(self):
        return UniformSchedule() if self.schedule is None else self.schedule

    def _resolve_max_iter(self, n_samples, n_features):
        if self.max_iter != "auto":
            return int(self.max_iter)
        return auto_max_iter(
            self.epsilon,
            self.delta,
            n_samples,
            n_features,
            neighboring=self.neighboring,
            fit_intercept=self.fit_intercept,
        )

    def _check_finite_params(self):
        # Interval constraints let NaN and inf through for unbounded sides.
        for name in ("epsilon", "learning_rate", "clip_norm", "alpha", "momentum"):
            value = getattr(self, name)
            if not np.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}.")

    def _encode_labels(self, y):
        """Set ``classes_`` and return labels as float64 in {-1, +1}."""
        check_classification_targets(y)
        if self.classes is None:
            warnings.warn(
                "classes=None: the set of labels is read from y, so which labels are "
                "present in the private data is not protected. Pass the public label "
                "set as `classes` to avoid this.",
                PrivacyLeakWarning,
                stacklevel=3,
            )
            classes = np.unique(y)
        else:
            classes = np.unique(np.asarray(self.classes))
            if classes.shape[0] != np.asarray(self.classes).ravel().shape[0]:
                raise ValueError("classes must not contain duplicates.")
            unknown = np.setdiff1d(np.unique(y), classes)
            if unknown.size:
                raise ValueError(
                    f"y contains labels {unknown.tolist()} that are not in classes="
                    f"{classes.tolist()}."
                )
        if classes.shape[0] < 2:
            raise ValueError(
                "This solver needs samples of at least 2 classes in the data, but the "
                f"data contains only one class: {classes[0]!r}."
                if self.classes is None
                else f"classes must name at least 2 classes, got {classes.tolist()}."
            )
        if classes.shape[0] > 2:
            raise ValueError(
                "Only binary classification is supported. The type of the target is "
                f"multiclass ({classes.shape[0]} classes); multiclass training is not "
                f"implemented in {type(self).__name__} yet."
            )
        self.classes_ = classes
        return np.where(y == classes[1], 1.0, -1.0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the model with ``(epsilon, delta)``-differential privacy.

        Parameters
        ----------
        X : {array-like, pandas DataFrame} of shape (n_samples, n_features)
            Training data; finite values. Rows need no bound: per-example gradients
            are clipped.
        y : array-like of shape (n_samples,)
            Target labels.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range, ``X`` or ``y`` contain NaN or inf, ``y``
            has fewer than 2 classes (or more than 2), or ``y`` has labels outside
            ``classes``.
        TypeError
            If ``X`` is sparse (not supported yet) or a parameter has a wrong type.

        Warns
        -----
        PrivacyLeakWarning
            If ``classes`` is None (the label set is read from the data).
        WeakPrivacyWarning
            If ``delta >= 1 / n_samples``.
        """
        self._check_finite_params()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        y_signed = self._encode_labels(y)
        n_samples = X.shape[0]
        if self.delta >= 1.0 / n_samples:
            warnings.warn(
                f"delta={self.delta:g} >= 1/n_samples={1.0 / n_samples:.3g}: a "
                "mechanism that publishes a random row meets this delta, so the "
                "guarantee is too weak to protect individuals. Use delta << 1/n.",
                WeakPrivacyWarning,
                stacklevel=2,
            )

        self.schedule_ = self._resolve_schedule()
        n_steps = self._resolve_max_iter(n_samples, X.shape[1])
        profile = np.asarray(self.schedule_.noise_multipliers(n_steps), dtype=float)
        if profile.shape != (n_steps,):
            raise ValueError(
                f"schedule.noise_multipliers({n_steps}) returned shape "
                f"{profile.shape}, expected ({n_steps},)."
            )
        noise_multipliers = calibrate_noise_multipliers(
            profile, self.epsilon, self.delta
        )
        learning_rates = np.full(n_steps, float(self.learning_rate))

        privacy_filter = GaussianPrivacyFilter(gdp_mu(self.epsilon, self.delta))
        seed = check_random_state(self.random_state).randint(
            0, 2**32, size=4, dtype=np.uint64
        )
        oracle = PrivateGradientOracle(
            X,
            y_signed,
            loss=_losses.LOSS_CODES[self._loss],
            huber_width=self._huber_width(),
            clip_norm=float(self.clip_norm),
            sensitivity=_SENSITIVITY_FACTOR[self.neighboring] * self.clip_norm,
            fit_intercept=bool(self.fit_intercept),
            privacy_filter=privacy_filter,
            rng=np.random.default_rng(seed),
        )
        coef, intercept, n_iter = noisy_gradient_descent(
            oracle,
            noise_multipliers=noise_multipliers,
            learning_rates=learning_rates,
            alpha=float(self.alpha),
            momentum=float(self.momentum),
            average=float(self.average),
            verbose=self.verbose,
        )

        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([intercept if self.fit_intercept else 0.0])
        self.n_iter_ = n_iter
        self.noise_multipliers_ = privacy_filter.noise_multipliers
        self.mu_ = gdp_mu_from_noise_multipliers(self.noise_multipliers_)
        self.delta_ = float(self.delta)
        self.epsilon_ = gdp_epsilon(self.mu_, self.delta_)
        return self

    def decision_function(self, X):
        """Signed distance to the separating hyperplane, ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, pandas DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive values favour ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, pandas DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.classifier_tags.multi_class = False
        return tags


class DPLogisticRegression(_BaseDPLinearClassifier):
    """Logistic regression with differential privacy by noisy gradient descent.

    Trains ``T`` full-batch steps of private gradient descent: per-example
    gradients (intercept included) are clipped to L2 norm ``clip_norm``, summed, and
    Gaussian noise of std ``z_t * Delta`` is added to the sum before it is divided by
    ``n_samples`` and the noiseless L2-penalty gradient is added (Hong, Wang & Zhou,
    FAccT 2022, Algorithm 1; ``../shared/algorithms.md``, Notation). The noise
    multipliers ``z_t`` follow ``schedule``'s shape at the one scale that spends
    ``(epsilon, delta)`` exactly, by the closed-form composition of Gaussian
    differential privacy (Dong, Roth & Su 2022, Cor. 3.3 and 2.13), which is tighter
    than the zCDP accounting of the papers. Heavy-ball momentum and suffix averaging
    post-process the private gradients and cost nothing.

    The guarantee: the fitted model (every fitted attribute below) is
    ``(epsilon, delta)``-differentially private with respect to ``neighboring``:
    adding or removing one row (default) or replacing one row of ``(X, y)``. What
    must be chosen without looking at the data: these parameters, the preprocessing
    (e.g. scaling bounds), and the label set (pass ``classes``). ``n_samples`` is
    treated as public.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound, > 0. Smaller is more private and noisier.
    delta : float, default=1e-8
        Probability of failure of the guarantee, in (0, 1); should be much smaller
        than ``1 / n_samples`` (a :class:`~sklearn_dpgd.exceptions.WeakPrivacyWarning`
        says so otherwise). 1e-8 is the value of the papers' experiments (Lee &
        Kifer, KDD 2018; Chen & Lee, Sec. V) and is meaningful up to 10^8 rows.
    schedule : NoiseSchedule or None, default=None
        Shape of the per-step noise multipliers (see :mod:`sklearn_dpgd.schedules`).
        None means :class:`~sklearn_dpgd.schedules.UniformSchedule`, which was as good
        as or better than exponential decay at every epsilon of
        ``benchmarks/bench_adult.py``. The resolved object is stored in ``schedule_``.
    max_iter : int or "auto", default="auto"
        Number of private gradient steps ``T``. Every step costs privacy, so all of
        them are taken: there is no early stopping on the private loss. "auto" uses
        :func:`~sklearn_dpgd.schedules.auto_max_iter`, a rule in public quantities
        only (epsilon, delta, n_samples, n_features, neighboring): few steps at small
        budgets, where each step's noise would dominate, and up to 1000 at large ones.
    learning_rate : float, default=2.0
        Step size ``eta`` of the heavy-ball update. The logistic loss is
        1/4-smooth in the margin, so with rows of norm at most 1 plus the intercept
        the objective is 1/2-smooth and heavy ball with ``momentum=0.9`` is stable for
        ``eta < 2 (1 + momentum) / (1/2) = 7.6`` without noise.
    momentum : float, default=0.9
        Heavy-ball coefficient in [0, 1) (0 is plain gradient descent). Equivalent to
        the moving-average momentum of Hong et al. (eq. 3) with step size
        ``learning_rate / (1 - momentum)``. It speeds up the ill-conditioned problems
        of one-hot tabular data: on Adult, 100 noiseless steps reach 0.832 holdout
        accuracy with it and 0.819 without.
    average : float, default=0.5
        Fraction of the last iterates whose mean is returned (suffix averaging;
        Rakhlin, Shamir & Sridharan, ICML 2012), in [0, 1]; 0 returns the last
        iterate. Averaging cancels part of the noise of the final steps.
    clip_norm : float, default=1.0
        Per-example gradient clipping threshold ``C``, in the units of the gradient
        (L2 norm over ``n_features + 1`` coordinates). With rows scaled to unit norm
        the logistic gradient has norm at most ``sqrt(2)``.
    alpha : float, default=0.0
        L2 penalty ``alpha/2 ||coef||^2`` (the intercept is not penalised). Public,
        so its gradient is added without noise.
    fit_intercept : bool, default=True
        Whether to fit an intercept, trained as one more coordinate of the clipped
        per-example gradient.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee. The clipped-gradient sum has
        sensitivity ``Delta = clip_norm`` under add/remove-one and
        ``2 * clip_norm`` under replace-one.
    classes : array-like of shape (n_classes,), default=None
        The public label set. If None, it is read from ``y`` and a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` is raised: which labels
        occur is then not protected. When given, a declared class may be absent from
        ``y``.
    random_state : int, RandomState instance or None, default=None
        Seeds the noise. Pass an int for reproducible fits.
    verbose : int, default=0
        If > 0, print the noise multiplier and the norm of the noisy gradient at each
        step (privatised values only).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Coefficients of the decision function.
    intercept_ : ndarray of shape (1,)
        Intercept (0.0 when ``fit_intercept=False``).
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    n_iter_ : int
        Number of private steps taken.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.
    schedule_ : NoiseSchedule
        The schedule used.
    noise_multipliers_ : ndarray of shape (n_iter_,)
        Noise std of each step in units of the clipped-gradient sensitivity
        ``Delta``; the run can be re-audited from this alone (``mu_`` below).
    mu_ : float
        GDP parameter spent, ``sqrt(sum_t noise_multipliers_[t] ** -2)``.
    epsilon_ : float
        Epsilon spent at ``delta_``; at most ``epsilon`` (equal up to ~1e-11).
    delta_ : float
        The delta of the guarantee.

    See Also
    --------
    sklearn.linear_model.LogisticRegression : The non-private model.

    Notes
    -----
    The defaults (uniform schedule, automatic horizon, ``learning_rate=2.0``,
    ``momentum=0.9``, ``average=0.5``, ``clip_norm=1.0``) were chosen on a holdout of
    Adult's *training* split, never its test split, with the protocol of
    ``benchmarks/bench_adult.py`` (one-hot + min-max + unit-norm rows, delta = 1e-8);
    the README gives the resulting test accuracies.

    Floating-point caveat: noise is drawn with NumPy's double-precision Gaussian
    sampler; like every floating-point implementation of the Gaussian mechanism it
    is open to the attacks of Mironov (CCS 2012) on the low-order bits.

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
    """

    _loss = "logistic"

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        schedule=None,
        max_iter="auto",
        learning_rate=2.0,
        momentum=0.9,
        average=0.5,
        clip_norm=1.0,
        alpha=0.0,
        fit_intercept=True,
        neighboring="add_remove",
        classes=None,
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schedule = schedule
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.average = average
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.classes = classes
        self.random_state = random_state
        self.verbose = verbose

    def predict_proba(self, X):
        """Probability estimates ``sigmoid(decision_function(X))``.

        Parameters
        ----------
        X : {array-like, pandas DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : {array-like, pandas DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
        """
        s = self.decision_function(X)
        return np.column_stack([log_expit(-s), log_expit(s)])
