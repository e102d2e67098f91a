"""DPLogisticRegression, re-exported by :mod:`sklearn_dpgd.linear_model`."""

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax

from .._engine._dask import is_dask_collection, map_rows
from .._engine._oracle import SharedTemperatureOracle
from .._sklearn_compat import StrOptions
from ._calibration import MIN_CALIBRATION_SIGNAL
from ._classifier import _BaseDPLinearClassifier
from ._docstrings import _ALPHA_AUTO, _assemble


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
    gradients and cost nothing. This is ``solver="gd"``; the default
    ``solver="auto"`` runs it unless the budget per feature at the public size is
    large (e.g. Adult at epsilon 1.6), where a binary fit runs private
    preconditioned gradient descent (``solver="pgd"``, 21 passes instead of about
    1,000) at a small cost in accuracy; ``solver_`` says which ran (user guide,
    "Performance").

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
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer, Normalizer
    >>> from sklearn_dpgd.preprocessing import DPStandardScaler
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     FunctionTransformer(np.log1p),  # private scaling, public range
    ...     DPStandardScaler(bounds=(0.0, 9.0), epsilon=0.1, random_state=0),
    ...     Normalizer(),
    ...     DPLogisticRegression(
    ...         epsilon=0.9, delta=1e-5, classes=[0, 1], random_state=0
    ...     ),
    ... ).fit(X, y)
    >>> round(clf[1].epsilon_ + clf[-1].epsilon_, 6)  # scaler + classifier
    1.0
    """,
        _ALPHA_AUTO,
        solver_default='"auto"',
    )

    _default_alpha = "auto"  # C may be set only with alpha at this default
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
        C=None,
        l1_ratio=0.0,
        calibration="auto",
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        class_weight=None,
        max_sample_weight=1.0,
        solver="auto",
        radius=10.0,
        random_state=None,
        secure_mode=False,
        verbose=0,
        utility_diagnostics=True,
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
        self.C = C
        self.l1_ratio = l1_ratio
        self.calibration = calibration
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.classes = classes
        self.class_weight = class_weight
        self.max_sample_weight = max_sample_weight
        self.solver = solver
        self.radius = radius
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.verbose = verbose
        self.utility_diagnostics = utility_diagnostics

    def _resolve_calibration(self, n_outputs, full_batch, signal):
        available = full_batch
        if self.calibration == "temperature" and not available:
            raise ValueError(
                "calibration='temperature' needs a full-batch fit with a "
                "data-independent schedule (batch_size=None, solver='gd' or "
                "'newton'); use calibration='auto' or None here."
            )
        if self.calibration == "auto":
            # A multinomial row's temperature gradient is bounded by 2, not 1:
            # the same share of the budget buys half the signal.
            if n_outputs > 1:
                signal /= SharedTemperatureOracle.ROW_BOUND
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
