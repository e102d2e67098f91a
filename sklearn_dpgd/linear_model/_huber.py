"""DPHuberSVM, re-exported by :mod:`sklearn_dpgd.linear_model`."""

from numbers import Real

import numpy as np

from .._sklearn_compat import Interval
from ._classifier import _BaseDPLinearClassifier
from ._docstrings import _ALPHA_ZERO, _assemble


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
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer, Normalizer
    >>> from sklearn_dpgd.preprocessing import DPStandardScaler
    >>> from sklearn_dpgd import DPHuberSVM
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     FunctionTransformer(np.log1p),  # private scaling, public range
    ...     DPStandardScaler(bounds=(0.0, 9.0), epsilon=0.1, random_state=0),
    ...     Normalizer(),
    ...     DPHuberSVM(epsilon=0.9, delta=1e-5, classes=[0, 1], random_state=0),
    ... ).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """,
        _ALPHA_ZERO,
    )

    _default_alpha = 0.0  # C may be set only with alpha at this default
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
        C=None,
        l1_ratio=0.0,
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        class_weight=None,
        max_sample_weight=1.0,
        solver="gd",
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
        self.h = h
        self.clip_norm = clip_norm
        self.alpha = alpha
        self.C = C
        self.l1_ratio = l1_ratio
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

    def _huber_width(self):
        return float(self.h)

    def _check_finite_params(self):
        super()._check_finite_params()
        if not np.isfinite(self.h):
            raise ValueError(f"h must be finite, got {self.h!r}.")
