"""DPLinearRegression and DPHuberRegressor, re-exported by
:mod:`sklearn_dpgd.linear_model`.

Regression runs on the classifiers' engine (``_base.py``): the same oracle, kernels,
schedules, accounting and ledger. Only the loss differs, a scalar function of the
residual ``m - y`` of the margin ``m = x . w + b`` (``_engine/_losses.py``), and the
target, which is mapped to ``[-1, 1]`` by the public affine map of ``y_bounds``
before the fit and back after it (post-processing of public constants).
"""

from dataclasses import replace
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import RegressorMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from .._base import linear_scores, set_fitted
from .._boundary import add_secure_support, check_fit_boundary
from .._engine._dask import check_regression_fit_data, is_dask_collection, map_rows
from .._engine._randomness import draw_seed
from .._sklearn_compat import Interval, StrOptions
from .._validation import validate_data
from .._warnings import warn_once
from ..schedules import AdaptiveSchedule
from ._base import _BaseDPLinearModel
from ._docstrings import _PARAMS_PRIVACY
from ._pgd import solve_pgd
from ._regression_auto import resolve_regression_auto
from ._regression_docs import (
    _FIT_DOC,
    _REGRESSION_ATTRIBUTES,
    _REGRESSION_GUARANTEE,
    _REGRESSION_PARAMS,
    _Y_BOUNDS,
)
from ._weights import check_sample_weight

#: scikit-learn's ``HuberRegressor`` default ``epsilon`` (its threshold).
SKLEARN_HUBER_EPSILON = 1.35
# The parameters of the classifiers that have no meaning for a real target:
# labels, class weights, the Snowball solver's ball, and the penalty's
# LogisticRegression spellings (the regressors take Ridge's ``alpha``; their
# ``solver`` has its own options below).
_CLASSIFIER_ONLY = ("C", "l1_ratio", "classes", "class_weight", "radius")

#: The regressors' solvers: noisy gradient descent, private preconditioned
#: gradient descent (``_pgd.py``), and the default rule between them
#: (``_regression_auto.py``).
_REGRESSION_SOLVERS = {"gd", "pgd", "auto"}


def target_map(y_bounds, fit_intercept):
    """The public affine map ``y -> (clip(y, low, high) - centre) / scale``.

    Parameters
    ----------
    y_bounds : tuple of 2 floats
        ``(low, high)``, validated finite with ``low < high``.
    fit_intercept : bool
        With an intercept the target is centred on the midpoint of the bounds and
        scaled by their half-width, so the scaled target lies in ``[-1, 1]`` and
        the start at zero predicts the middle of the range. Without one the model
        has no offset to absorb a centre: ``centre = 0`` and ``scale =
        max(|low|, |high|)``, which still maps the target into ``[-1, 1]``.

    Returns
    -------
    centre, scale : float
        Public constants (functions of the parameters only).
    """
    low, high = y_bounds
    if fit_intercept:
        return 0.5 * (low + high), 0.5 * (high - low)
    return 0.0, max(abs(low), abs(high))


class _BaseDPLinearRegressor(RegressorMixin, _BaseDPLinearModel):
    """Shared fit/predict of the private linear regressors (one loss per subclass)."""

    _default_alpha = 0.0
    # ``solver`` is "auto" (the default), "gd" or "pgd" (_REGRESSION_SOLVERS).
    # Snowball-SGD's plan assumes a Lipschitz loss and a classification margin,
    # so it is not offered. The class default is what a regressor pickled before
    # the parameter existed reads (its __dict__ has no "solver"): it was fitted
    # by "gd", and get_params, clone and refits keep "gd".
    solver = "gd"
    # The squared loss is 1-smooth in the margin, as the Huber hinge at h = 0.5:
    # DPHuberSVM's gradient-step base (0.5), the same eta * L. "auto" takes
    # gradient steps over DPHuberSVM's horizon of mu m / sqrt(d') steps: on a
    # holdout of Adult's training split (hours-per-week, benchmarks/
    # bench_regression.py) normalised steps lost at small budgets and the 4x
    # horizon gained nothing (user guide, "Regression").
    _base_learning_rate = 0.5
    _horizon_factor = 4
    _gradient_horizon_factor = 1

    _parameter_constraints = {
        **{
            name: rule
            for name, rule in _BaseDPLinearModel._parameter_constraints.items()
            if name not in _CLASSIFIER_ONLY
        },
        # Ridge's alpha: a number (the classifiers' "auto" is LogisticRegression's).
        "alpha": [Interval(Real, 0, None, closed="left")],
        "y_bounds": ["array-like", None],
        "solver": [StrOptions(_REGRESSION_SOLVERS)],
    }

    def _resolve_normalize_steps(self, n_outputs):
        if self.normalize_steps != "auto":
            return bool(self.normalize_steps)
        return False

    def _check_finite_params(self):
        for name in ("epsilon", "clip_norm", "learning_rate", "alpha", "momentum"):
            value = getattr(self, name)
            if not (isinstance(value, str) or np.isfinite(value)):
                raise ValueError(f"{name} must be finite, got {value!r}.")
        if not np.isfinite(self.max_sample_weight):
            raise ValueError(
                f"max_sample_weight must be finite, got {self.max_sample_weight!r}."
            )

    def _target_bounds(self):
        """``(low, high)`` of the public ``y_bounds``; ValueError if unusable."""
        if self.y_bounds is None:
            raise ValueError(
                "y_bounds is required: pass the public range (low, high) of the "
                "target, chosen without looking at the data (e.g. from its "
                "definition or a codebook). The target is clipped to it, and it "
                "scales the fit; reading it from y would not be private."
            )
        bounds = np.asarray(self.y_bounds, dtype=float).ravel()
        if bounds.shape != (2,) or not np.all(np.isfinite(bounds)):
            raise ValueError(
                f"y_bounds must be two finite numbers (low, high), got "
                f"{self.y_bounds!r}."
            )
        if not bounds[0] < bounds[1]:
            raise ValueError(f"y_bounds must have low < high, got {self.y_bounds!r}.")
        return float(bounds[0]), float(bounds[1])

    def _resolve_alpha(self, schedule, public_size):
        # Ridge's objective ||y - X w - b||^2 + alpha ||w||^2, divided by 2 m, is
        # mean(r^2 / 2) + (alpha / m) ||w||^2 / 2: the engine's strength is
        # alpha / m (the public size). The target's scale multiplies both terms
        # alike, so the scaled fit has the same alpha.
        return float(self.alpha) / public_size

    def _l1_strength(self, schedule, public_size):
        return 0.0

    def _class_weights(self, y_index, mu, rng):
        return None, None, 1.0

    def _loss_constants(self, n_outputs):
        # Margin smoothness 1 for both losses; at the start (zero model) the loss
        # of a scaled target |y| <= 1 is at most 1/2 (squared) or h - h^2 / 2
        # (Huber, h < 1).
        h = self._huber_width()
        if self._loss == "squared" or h >= 1.0:
            return 1.0, 0.5
        return 1.0, h - 0.5 * h * h

    def _scaled_start(self, coef_init, intercept_init, n_features, centre, scale):
        """The public start mapped to the scaled target's units (or None)."""
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=float) / scale
        if intercept_init is not None:
            intercept_init = (np.asarray(intercept_init, dtype=float) - centre) / scale
        return self._initial_point(coef_init, intercept_init, 1, n_features)

    def _validate_regression_data(self, X, y, bounds, centre, scale):
        """``(X, scaled target)``: in memory, or dask arrays left on the workers."""
        if is_dask_collection(X) or is_dask_collection(y):
            return check_regression_fit_data(
                self, X, y, bounds=bounds, centre=centre, scale=scale
            )
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            ensure_min_samples=2,
            y_numeric=True,
        )
        if sp.issparse(X) and not X.has_canonical_format:
            X = X.copy()  # duplicates would make the row norms wrong
            X.sum_duplicates()
        if y.ndim != 1:
            raise ValueError(
                f"{type(self).__name__} fits one target: y must be 1-D, got "
                f"{y.ndim} dimensions."
            )
        # Clipping to the public bounds, never a check against them (a refusal
        # would tell whether some row is outside): the scaled target is in
        # [-1, 1]. Privacy does not rest on it (the per-example gradient is
        # clipped whatever y is); it keeps outliers from spending the clipping norm.
        low, high = bounds
        return X, (np.clip(np.asarray(y, dtype=np.float64), low, high) - centre) / scale

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        # First: a leak around this fit is named before any other error.
        check_fit_boundary(self)
        self._check_finite_params()
        low, high = self._target_bounds()
        centre, scale = target_map((low, high), self.fit_intercept)
        X, y_scaled = self._validate_regression_data(X, y, (low, high), centre, scale)
        initial = self._scaled_start(
            coef_init, intercept_init, X.shape[1], centre, scale
        )
        sample_weight = check_sample_weight(sample_weight, X, self.max_sample_weight)
        if sample_weight is not None and isinstance(self.schedule, AdaptiveSchedule):
            raise ValueError(
                "sample_weight needs a data-independent schedule: the adaptive "
                "schedules' private step-size selections assume unweighted rows."
            )
        random_state = None if self.secure_mode else self.random_state
        seed = draw_seed(random_state, owner=type(self).__name__)
        solver, opened = self.solver, {}
        if solver == "auto":  # public rule + a private long-row count
            solver, opened = resolve_regression_auto(self, X, sample_weight, seed)
        solve = solve_pgd if solver == "pgd" else type(self)._solve_gd
        result = solve(self, X, y_scaled, 1, initial, seed, sample_weight, **opened)
        result = replace(result, outputs={**result.outputs, "solver_": solver})
        # Back to the target's units: post-processing by public constants.
        coef = (scale * np.asarray(result.coef, dtype=float)[0]).astype(X.dtype)
        intercept = centre + scale * float(np.asarray(result.intercept)[0])
        if not self.fit_intercept:
            intercept = 0.0
        add_secure_support(
            set_fitted(self, replace(result, coef=coef, intercept=intercept))
        )
        self.y_bounds_ = (low, high)
        return self

    fit.__doc__ = _FIT_DOC

    def predict(self, X):
        """Predict the target: ``X @ coef_ + intercept_``, clipped to ``y_bounds_``.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            Predictions in the target's units, clipped to the public target
            range ``y_bounds_`` (post-processing: the target lies in it, so a
            prediction outside is never closer; it bounds the error of a fit
            whose noise dominates, e.g. at a small budget on few rows).
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "predict", X)
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        scores = np.asarray(linear_scores(X, self.coef_[None, :]))[:, 0]
        return np.clip(scores + self.intercept_, *self.y_bounds_)


def _regressor_doc(summary, loss_params, see_also, examples):
    return (
        summary
        + "\n\n"
        + _REGRESSION_GUARANTEE
        + "\n\n    Parameters\n    ----------\n"
        + _PARAMS_PRIVACY
        + "\n"
        + _Y_BOUNDS
        + loss_params
        + _REGRESSION_PARAMS
        + "\n\n"
        + _REGRESSION_ATTRIBUTES
        + "\n\n    See Also\n    --------\n"
        + see_also
        + "\n\n    Examples\n    --------\n"
        + examples
    )


class DPLinearRegression(_BaseDPLinearRegressor):
    __doc__ = _regressor_doc(
        """Least-squares linear regression with differential privacy by noisy GD.

    Minimises ``mean((x . w + b - y)^2 / 2) + alpha / (2 m) ||w||^2`` (``m`` the
    public size ``public_n_samples_``) by the private gradient descent of
    :class:`DPLogisticRegression` (Hong, Wang & Zhou, FAccT 2022, Algorithm 1, with
    ``m`` for ``n``): the per-example gradient ``(m_i - y_i) [x_i, 1]`` of the
    squared loss is clipped to L2 norm ``clip_norm``, the clipped gradients are
    summed, and Gaussian noise of std ``z_t * Delta`` is added before the sum is
    divided by ``m``. With ``alpha > 0`` this is :class:`~sklearn.linear_model.Ridge`'s
    objective (``alpha`` is Ridge's, on the public size); ``alpha=0`` is
    :class:`~sklearn.linear_model.LinearRegression`'s.""",
        "",
        """    DPHuberRegressor : The same engine with the Huber loss.
    DPLogisticRegression : The same engine for classification.
    sklearn.linear_model.LinearRegression : The non-private model.
    sklearn.linear_model.Ridge : The non-private model with ``alpha``.""",
        """    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler, Normalizer
    >>> from sklearn_dpgd import DPLinearRegression
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = make_pipeline(
    ...     MinMaxScaler(), Normalizer(),
    ...     DPLinearRegression(
    ...         epsilon=1.0, delta=1e-6, y_bounds=(25, 346), random_state=0
    ...     ),
    ... ).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """,
    )

    _loss = "squared"

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        schedule=None,
        max_iter="auto",
        y_bounds=None,
        learning_rate="auto",
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
        max_sample_weight=1.0,
        random_state=None,
        secure_mode=False,
        verbose=0,
        utility_diagnostics=True,
        solver="auto",
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schedule = schedule
        self.max_iter = max_iter
        self.y_bounds = y_bounds
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.average = average
        self.normalize_steps = normalize_steps
        self.batch_size = batch_size
        self.accountant = accountant
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.max_sample_weight = max_sample_weight
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.verbose = verbose
        self.utility_diagnostics = utility_diagnostics
        self.solver = solver

    def _huber_width(self):
        return 0.5  # unused by the squared loss (a number for the kernels)


class DPHuberRegressor(_BaseDPLinearRegressor):
    __doc__ = _regressor_doc(
        """Huber-loss linear regression with differential privacy by noisy GD.

    The engine of :class:`DPLinearRegression` with Huber's loss of the residual
    ``r = x . w + b - y`` (Huber, Ann. Math. Statist. 1964, eq. 5), in the units
    of the scaled target ``(y - centre) / scale`` (see ``y_bounds``)::

        l(r) = r^2 / 2                 if |r| <= threshold
               threshold |r| - threshold^2 / 2   otherwise

    whose derivative is ``r`` clipped to ``[-threshold, threshold]``: rows with
    large residuals pull with a bounded force, so outliers move the fit less
    (before, and independently of, the per-example clipping that bounds the
    sensitivity). Unlike :class:`~sklearn.linear_model.HuberRegressor`, the
    threshold is fixed, not relative to a jointly estimated scale: estimating the
    scale would be one more private query.""",
        """    threshold : float, default=0.25
        Huber's threshold, > 0, in units of the scaled target (``scale`` of
        ``y_bounds``, half their width with an intercept). It is scikit-learn's
        ``HuberRegressor(epsilon=...)`` times a scale fixed in advance: here
        ``epsilon`` is the privacy budget, hence the other name (a fit with
        ``epsilon=1.35``, scikit-learn's Huber default, and the default
        threshold warns that it spent 1.35 as the budget). Residuals
        beyond it count linearly. 0.25 was not tuned; large values (>= 2:
        the scaled target spans [-1, 1]) give
        :class:`DPLinearRegression`'s fit.
""",
        """    DPLinearRegression : The same engine with the squared loss.
    sklearn.linear_model.HuberRegressor : The non-private model.""",
        """    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler, Normalizer
    >>> from sklearn_dpgd import DPHuberRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = make_pipeline(
    ...     MinMaxScaler(), Normalizer(),
    ...     DPHuberRegressor(
    ...         epsilon=1.0, delta=1e-6, y_bounds=(25, 346), random_state=0
    ...     ),
    ... ).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """,
    )

    _loss = "huber"

    _parameter_constraints = {
        **_BaseDPLinearRegressor._parameter_constraints,
        "threshold": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        schedule=None,
        max_iter="auto",
        y_bounds=None,
        threshold=0.25,
        learning_rate="auto",
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
        max_sample_weight=1.0,
        random_state=None,
        secure_mode=False,
        verbose=0,
        utility_diagnostics=True,
        solver="auto",
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schedule = schedule
        self.max_iter = max_iter
        self.y_bounds = y_bounds
        self.threshold = threshold
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.average = average
        self.normalize_steps = normalize_steps
        self.batch_size = batch_size
        self.accountant = accountant
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.max_sample_weight = max_sample_weight
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.verbose = verbose
        self.utility_diagnostics = utility_diagnostics
        self.solver = solver

    def _huber_width(self):
        return float(self.threshold)

    def _check_finite_params(self):
        super()._check_finite_params()
        if not np.isfinite(self.threshold):
            raise ValueError(f"threshold must be finite, got {self.threshold!r}.")
        # scikit-learn's HuberRegressor(epsilon=1.35) habit: here that would be
        # the privacy budget. Its default value with the default threshold is
        # the habit's signature (a budget of exactly 1.35 chosen on purpose is
        # rare); any other budget stays silent.
        if self.epsilon == SKLEARN_HUBER_EPSILON and self.threshold == 0.25:
            warn_once(
                f"epsilon={SKLEARN_HUBER_EPSILON} is scikit-learn's HuberRegressor "
                "default, but here epsilon is the privacy budget (1.35 was spent "
                "as such). Huber's threshold is threshold= (default 0.25, in "
                "units of the scaled target). If 1.35 is the budget you meant, filter "
                "this warning.",
                UserWarning,
                stacklevel=4,
                key="huber epsilon",
            )
