"""Non-gradient-descent baselines: output perturbation and phased localization.

Both release a *non-private* solution plus Gaussian noise calibrated to how far that
solution can move when one row changes (its L2 sensitivity). Neither touches the
private gradient oracle: each is a single Gaussian mechanism per data subset, so the
non-private solver reads the data directly here, and only the noisy result leaves
``fit``.

Both clip every row to ``||x_i|| <= data_norm`` (a public parameter, never read from
the data) and append the intercept as one more coordinate fixed at 1, so each
per-example loss is ``L``-Lipschitz in the parameters with

    L = G_K * sqrt(data_norm^2 + fit_intercept)

where ``G_K`` bounds the norm of the loss's derivative in the K margins: 1 for the
binary losses (both are 1-Lipschitz in the margin), ``sqrt(2)`` for the multinomial
logistic loss (``||p - e_y|| <= sqrt(2)``) and ``sqrt(K)`` for the one-vs-rest Huber
hinge with K classes (each of its K margins moves the loss by at most 1).

Under add/remove-one neighbouring the exact number of rows ``n`` is private, so
every divisor, phase size and automatic parameter uses the *public size* ``m``
instead (:mod:`sklearn_dpgd._public_size`): a size the user declares, the exact
``n`` under replace-one, or a noisy count charged to the fit's budget. Every fit
charges the active :class:`~sklearn_dpgd.accounting.PrivacyLedger` before it runs
a private mechanism.

References
----------
Chaudhuri, K., Monteleoni, C., Sarwate, A. D. (2011). Differentially private
empirical risk minimization. JMLR 12, Alg. 1, Cor. 8 and Thm 6.
Lowy, A., Razaviyayn, M. (2021). Output perturbation for differentially private
convex optimization with improved population loss bounds, runtimes and applications
to private adversarial training. arXiv:2102.04704, Alg. 6 (the output-perturbation
baseline of Fay, Magnusson, Sjolund & Johansson, Adaptive hyperparameter selection
for differentially private gradient descent, TMLR 2023, Sec. 5).
Feldman, V., Koren, T., Talwar, K. (2020). Private stochastic convex optimization:
optimal rates in linear time. STOC, Sec. 4 (localization).
Dong, J., Roth, A., Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1),
Cor. 3.3 (composition of Gaussian mechanisms).
"""

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import set_fitted
from ._boundary import add_secure_support, charge_ledgers, check_fit_boundary
from ._engine._randomness import draw_seed, make_generator, spawn_seeds
from ._errors import NotFittedAttributesMixin, refuse_sample_weight
from ._public_size import SENSITIVITY_FACTOR, resolve_public_size
from ._sklearn_compat import Interval, StrOptions, available_if
from ._solvers import localization, outpert
from ._solvers._erm import gradient_bound, margin_smoothness, release_budget
from ._validation import validate_fit_data
from ._warnings import warn_once
from .accounting import (
    _ledger_guard_state,
)
from .exceptions import WeakPrivacyWarning

__all__ = ["OutputPerturbationClassifier", "PhasedLocalizationClassifier"]

# Sensitivity factor f of the regularised minimiser, public divisor m: L / (m alpha)
# (add/remove one row), 2 L / (m alpha) (replace one); see OutputPerturbationClassifier.
_OUTPUT_FACTOR = SENSITIVITY_FACTOR

# Comparator norm R of the automatic penalty (see OutputPerturbationClassifier).
_AUTO_RADIUS = 30.0


class _BaselineClassifier(NotFittedAttributesMixin, ClassifierMixin, BaseEstimator):
    """Validation, budget, public size, labels and prediction of the baselines."""

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "loss": [StrOptions({"logistic", "huber_hinge"})],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "classes": ["array-like", None],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
    }

    def _gdp_ledger_refusal(self):
        """None: each fit is recorded as full-batch Gaussian mechanisms (the count
        and the release), which the private searches compose in closed form."""
        return None

    def _check_finite(self, names):
        for name in names:
            value = getattr(self, name)
            if isinstance(value, Real) and not np.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}.")

    def _validate_fit_data(self, X, y):
        X, y_index = validate_fit_data(self, X, y)
        n_outputs = 1 if self.classes_.shape[0] == 2 else self.classes_.shape[0]
        return X, y_index, n_outputs

    def _resolve_size(self, n_rows, count_multiplier, seed):
        """The public size ``m`` (running the charged count if needed).

        The weak-delta warning compares ``delta`` with the public size, never with
        ``n_rows`` (whether it fires would otherwise reveal ``n``).
        """
        size = resolve_public_size(
            n_rows,
            neighboring=self.neighboring,
            public_n_samples=self.public_n_samples,
            noise_multiplier=count_multiplier,
            rng=make_generator(seed, self.secure_mode),
        )
        m = size.n_samples
        if self.delta >= 1.0 / m:
            warn_once(
                f"delta={self.delta:g} >= 1/m={1.0 / m:.3g} (m the public size, "
                "public_n_samples_): a mechanism that publishes a random row meets "
                "this delta, so the guarantee is too weak to protect individuals. Use "
                "delta << 1/m.",
                WeakPrivacyWarning,
                stacklevel=3,
                # The quoted size is per fit (a noisy count): once per delta.
                key=("weak delta", self.delta),
            )
        return m

    def _start_fit(self):
        """Seeds, budget split and ledger charge of a fit, before any private step.

        Returns ``(mu_train, count_multiplier, count_seed, noise_seed, charge)``.
        """
        # secure_mode ignores random_state (its noise is not seeded): no warning.
        random_state = None if self.secure_mode else self.random_state
        seed = draw_seed(random_state, owner=type(self).__name__)
        count_seed, noise_seed = spawn_seeds(seed, 2)
        mu_train, z_count, planned = release_budget(
            self.epsilon, self.delta, self.neighboring, self.public_n_samples
        )
        charge = charge_ledgers(self, planned, neighboring=self.neighboring)
        return mu_train, z_count, count_seed, noise_seed, charge

    def _lipschitz(self, n_outputs):
        """``L``: per-example gradient bound in all parameters (intercept included)."""
        row = math.sqrt(float(self.data_norm) ** 2 + float(bool(self.fit_intercept)))
        return gradient_bound(self.loss, n_outputs) * row

    def __getstate__(self):
        # Marks a copy sent to another process while a PrivacyLedger is open, so
        # that a fit there, which the ledger could not see, is refused.
        return _ledger_guard_state(super().__getstate__())

    def decision_function(self, X):
        """Decision scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: positive values favour ``classes_[1]``. Multiclass: one column
            per class, in the order of ``classes_``.
        """
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
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_proba(self):
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probability estimates (``loss="logistic"`` only): sigmoid or softmax.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return softmax(scores, axis=1)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba` (``loss="logistic"`` only).

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probabilities, columns in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # Privacy reason: scikit-learn's checks fit 30-300 rows at the default
        # epsilon=1, where the output noise (sensitivity O(1 / (n alpha))) is
        # meant to dominate; their training-accuracy threshold (0.83) does not
        # apply to a private release from so few rows.
        tags.classifier_tags.poor_score = True
        return tags


class OutputPerturbationClassifier(_BaselineClassifier):
    """Linear classifier with differential privacy by output perturbation.

    Solves the L2-regularised empirical risk minimisation

        theta_hat = argmin (1/m) sum_i l(theta; x_i, y_i) + alpha/2 ||theta||^2

    non-privately (L-BFGS-B, continued by gradient descent if needed, to gradient
    norm ``tol``) over rows clipped to ``||x_i|| <= data_norm``, and releases
    ``theta_hat + N(0, sigma^2 I)`` (Chaudhuri, Monteleoni & Sarwate, JMLR 2011,
    Alg. 1 and Thm 6; Lowy & Razaviyayn 2021, Alg. 6). ``theta`` holds the
    coefficients and the intercepts; both are penalised (the objective must be
    ``alpha``-strongly convex in every released coordinate). The divisor ``m`` is
    the public size ``public_n_samples_`` (see ``public_n_samples``), not the
    private number of rows ``n``.

    Sensitivity: every per-example loss is ``L``-Lipschitz in ``theta`` with
    ``L = G_K sqrt(data_norm^2 + fit_intercept)`` (the intercept is one more
    coordinate fixed at 1, counted in the norm); ``G_K`` is 1 for binary problems,
    ``sqrt(2)`` for the multinomial logistic loss and ``sqrt(K)`` for the
    one-vs-rest Huber hinge with K classes (the multiclass scheme of
    :class:`~sklearn_dpgd.DPHuberSVM`). Because the divisor is the public ``m``,
    adding a row ``z`` to the data adds the single term ``l_z / m`` to the
    objective and leaves the other rows' weights alone; summing the
    ``alpha``-strong-convexity inequalities of the two objectives at the two
    minimisers ``w`` and ``w'`` gives ``alpha ||w - w'||^2 <= (l_z(w) - l_z(w')) / m
    <= L ||w - w'|| / m``, so the exact minimiser moves by at most
    ``L / (m alpha)`` when one row is added or removed and ``2 L / (m alpha)`` when
    one is replaced (the added term is then ``(l_z - l_y) / m``, ``2L``-Lipschitz);
    Chaudhuri, Monteleoni & Sarwate (JMLR 2011), Lemma 7 and Cor. 8. (With the
    divisor ``n`` the added row would also reweight the ``n`` others, which moves
    the minimiser by up to ``2 L / ((n + 1) alpha)``, twice as far.) The solver
    returns a point with ``||grad F|| <= tol``, within ``tol / alpha`` of the
    minimiser (strong convexity: ``||grad F(theta)|| >= alpha ||theta - w||``), so
    the released point has sensitivity::

        sensitivity_ = f L / (m alpha) + 2 tol / alpha

    with ``f = 1`` under add/remove-one and ``f = 2`` under replace-one, and
    ``sigma = sensitivity_ / mu_t``: one Gaussian mechanism, ``mu_t``-GDP. Here
    ``mu = gdp_mu(epsilon, delta)`` and ``mu_t = mu`` if ``m`` is public; if it is
    a private count, the count is ``mu_c``-GDP with ``mu_c^2 = 0.01 mu^2`` and
    ``mu_t = sqrt(mu^2 - mu_c^2)``. The two compose to ``mu``-GDP (Dong, Roth &
    Su, JRSS B 2022, Cor. 3.3), hence exactly ``(epsilon, delta)``-DP by the
    analytic Gaussian mechanism (Balle & Wang, ICML 2018).

    The tolerance check does not leak: the release never depends on it. A point
    meeting it always exists and is always found (gradient descent from the
    L-BFGS-B point provably reaches it in a number of steps known in advance);
    only a floating-point failure, which cannot occur in exact arithmetic, raises
    ``RuntimeError`` instead of releasing. The number of solver iterations is
    data-dependent and therefore not exposed (no ``n_iter_``).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound, > 0.
    delta : float, default=1e-8
        In (0, 1); should be much smaller than ``1 / n_samples``.
    loss : {"logistic", "huber_hinge"}, default="logistic"
        Logistic (multinomial for more than two classes) or Huber-smoothed hinge
        with width ``h = 0.5`` (one-vs-rest for more than two classes).
    data_norm : float, default=1.0
        Public bound on the row norms: each row of ``X`` is scaled to
        ``||x_i|| <= data_norm`` before solving (rows are clipped; the bound is never
        read from the data). With unit-norm rows (e.g. a
        :class:`~sklearn.preprocessing.Normalizer`) nothing changes.
    alpha : float or "auto", default="auto"
        L2 penalty, > 0 (needed: the sensitivity is ``O(1 / alpha)``). "auto" uses
        ``alpha = L sqrt(f sqrt(p) / (m mu_t)) / R`` with ``p`` the number of released
        coordinates and ``R = 30``: the minimiser of the bound
        ``alpha R^2 / 2 + L E||noise||`` on the excess regularised risk against a
        comparator of norm ``R`` (Chaudhuri et al. 2011, Sec. 4), in public
        quantities only. ``R = 30`` is the order of the norm of the non-private
        logistic solution on unit-norm tabular rows; it was chosen on a holdout of
        Adult's *training* split (among ``R`` in {0.1, ..., 300}), never its test
        split.
    fit_intercept : bool, default=True
        Whether to fit intercepts (penalised and noised like the coefficients).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee (``f = 1`` or ``2`` above).
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by every rule that needs a size: the divisor ``m`` of the
        objective (hence the sensitivity) and ``alpha="auto"``. It need not equal
        the number of rows and is never compared with it (that comparison would
        itself read ``n``). None: under ``neighboring="add_remove"`` the size is
        estimated privately, by a Gaussian count charged to this fit's budget (1%
        of ``mu**2``; the training keeps 99.5% of its ``mu``); under
        ``"replace"`` the exact ``n_samples`` is public and used. The value used
        is ``public_n_samples_``.
    classes : array-like of shape (n_classes,), default=None
        The public label set. If None, it is read from ``y`` and a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` is raised (and
        one-class ``y`` raises a ValueError); when given, ``y`` may lack some of
        the classes, even all but one, and ``classes_`` is the declared set.
    tol : float, default=1e-8
        Gradient-norm tolerance ``g_tol`` of the solver, in [1e-12, 1); it adds
        ``2 tol / alpha`` to the sensitivity.
    random_state : int, RandomState instance or None, default=None
        Seeds the noise (and the noisy count). None draws 128 bits of fresh
        operating-system entropy for every fit (never NumPy's global state). An int
        or a ``RandomState`` makes the noise reproducible and therefore
        subtractable by anyone who knows the seed, and fits that share it share
        their noise: it is for debugging and tests only and raises a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    secure_mode : bool, default=False
        Draw every noise value from the operating system's cryptographically
        secure generator with samplers that resist the floating-point attacks of
        Mironov (CCS 2012); ``random_state`` is then ignored. Same epsilon;
        ``delta_`` gains ~1e-25 (privacy page, "secure_mode"); slower draws.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Noisy coefficients (dtype of the training ``X``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Noisy intercepts (zeros when ``fit_intercept=False``).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.
    public_n_samples_ : int
        ``m``: the public size used (``public_n_samples``, ``n_samples`` under
        ``neighboring="replace"``, or the private, noisy and charged, count).
    alpha_ : float
        The L2 penalty used.
    sensitivity_ : float
        L2 sensitivity of the released point (formula above; public).
    noise_scale_ : float
        ``sigma``: std of the Gaussian noise on each released coordinate.
    mu_ : float
        GDP parameter spent by the whole fit: ``sensitivity_ / noise_scale_``,
        composed with the count's ``mu_c`` when the size was estimated.
    epsilon_ : float
        Epsilon spent at ``delta_``.
    delta_ : float
        The delta of the guarantee.
    ledger_ : tuple of GaussianSteps
        One entry per Gaussian mechanism, for
        :func:`~sklearn_dpgd.accounting.ledger_epsilon`: the count (noise
        multiplier ``1 / mu_c``) when the size was estimated, then the release
        (noise multiplier ``noise_scale_ / sensitivity_``).

    See Also
    --------
    PhasedLocalizationClassifier : Output perturbation of one-pass SGD on halving
        data subsets.
    DPLogisticRegression : Private gradient descent.

    Notes
    -----
    Raises ``RuntimeError`` from ``fit`` if the solver fails in floating point to
    reach ``tol`` (then nothing is released).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer, Normalizer
    >>> from sklearn_dpgd import OutputPerturbationClassifier, preprocessing
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     FunctionTransformer(np.log1p),
    ...     preprocessing.DPStandardScaler((0, 9), epsilon=0.1),
    ...     Normalizer(), OutputPerturbationClassifier(
    ...         epsilon=0.9, delta=1e-5, classes=[0, 1], public_n_samples=500
    ...     ),
    ... ).fit(X, y)
    >>> round(clf[1].epsilon_ + clf[-1].epsilon_, 6)  # scaler + classifier
    1.0
    """

    _parameter_constraints = {
        **_BaselineClassifier._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "tol": [Interval(Real, 1e-12, 1, closed="left")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        loss="logistic",
        data_norm=1.0,
        alpha="auto",
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        tol=1e-8,
        random_state=None,
        secure_mode=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.data_norm = data_norm
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.classes = classes
        self.tol = tol
        self.random_state = random_state
        self.secure_mode = secure_mode

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Solve the regularised problem and release it with Gaussian noise.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)
            Training data; rows are clipped to norm ``data_norm``.
        y : array-like of shape (n_samples,)
            Target labels.
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
            If a parameter is out of range, or ``X``/``y`` are invalid (as for
            :class:`~sklearn_dpgd.DPLogisticRegression`), or ``sample_weight`` is
            not None (weights break the sensitivity).
        RuntimeError
            If the solver fails in floating point to reach ``tol``.
        """
        check_fit_boundary(self)  # a leak around this fit is named first
        refuse_sample_weight(sample_weight, type(self).__name__)
        self._check_finite(("epsilon", "data_norm", "alpha"))
        X, y_index, n_outputs = self._validate_fit_data(X, y)
        lipschitz = self._lipschitz(n_outputs)
        factor = _OUTPUT_FACTOR[self.neighboring]
        # The whole cost is charged before the count or the solver reads the data.
        mu, z_count, count_seed, noise_seed, charge = self._start_fit()
        m = self._resolve_size(X.shape[0], z_count, count_seed)
        if self.alpha == "auto":
            dim = n_outputs * (X.shape[1] + int(self.fit_intercept))
            alpha = (
                lipschitz * math.sqrt(factor * math.sqrt(dim) / (m * mu)) / _AUTO_RADIUS
            )
        else:
            alpha = float(self.alpha)
        result = outpert.solve(
            X,
            y_index,
            n_outputs,
            loss=self.loss,
            data_norm=self.data_norm,
            fit_intercept=bool(self.fit_intercept),
            lipschitz=lipschitz,
            factor=factor,
            alpha=alpha,
            tol=float(self.tol),
            mu=mu,
            count_multiplier=z_count,
            public_n_samples=m,
            rng=make_generator(noise_seed, self.secure_mode),
            delta=self.delta,
        )
        add_secure_support(set_fitted(self, result))
        charge.settle(result.ledger)
        return self


class PhasedLocalizationClassifier(_BaselineClassifier):
    """Linear classifier with differential privacy by phased output perturbation.

    The localization algorithm of Feldman, Koren & Talwar (STOC 2020, Sec. 4,
    Alg. 3): ``k = ceil(log2 m)`` phases, phase ``i`` owning ``n_i = floor(m / 2^i)``
    slots, where ``m`` is the public size ``public_n_samples_`` (see
    ``public_n_samples``), never the private number of rows ``n``. The rows are
    placed into the ``S = sum_i n_i`` slots by a uniformly random injection: if
    ``n >= S``, ``S`` distinct rows drawn uniformly at random in a random order fill
    them (the other rows are unused); if ``n < S``, the rows go to distinct random
    slots and the others stay empty. Phase ``i`` runs one pass of (non-private) SGD
    with step ``eta_i = learning_rate / 4^(i-1)`` over its slots (an empty slot is
    a zero step), started at the previous phase's output, and releases the average
    of its ``n_i`` iterates plus Gaussian noise of std ``sigma_i = Delta_i /
    mu_t``. The model is the last phase's output. Phases whose ``n_i`` is 0 are
    skipped.

    Assumptions and guarantee. Rows are clipped to ``||x_i|| <= data_norm`` and the
    intercept is one more coordinate fixed at 1, so each per-example loss is convex,
    ``L``-Lipschitz with ``L = G_K sqrt(data_norm^2 + fit_intercept)`` (``G_K`` as
    in :class:`OutputPerturbationClassifier`) and ``beta``-smooth with ``beta = c
    (data_norm^2 + fit_intercept)``, ``c`` the curvature of the loss in the margins
    (1/4 binary logistic, 1/2 softmax, 1 hinge with ``h = 0.5``). With
    ``eta_1 <= 2 / beta`` every SGD step is non-expansive (Hardt, Recht & Singer,
    ICML 2016, Lemma 3.7), so changing the content of one slot of a phase (a row
    for another, or an empty slot for a row) moves that phase's average iterate by
    at most ``Delta_i = 2 L eta_i`` (ibid., Thm 3.8: the two gradient steps at that
    slot differ by at most ``2 L eta_i``, and later steps do not expand the gap).
    Neighbours change exactly one slot: under replace-one, the replaced row's slot;
    under add/remove-one, the slots are fixed by ``m``, so an added row can only
    take a slot from another row or an empty slot. Formally, the random injections
    of ``D`` and of ``D`` plus a row ``z`` can be coupled so that the two
    assignments differ in one slot at most (put ``z`` into a uniformly random slot
    with probability ``S / (n + 1)`` if ``n >= S``, into a uniformly random empty
    slot otherwise; both marginals are then uniform). For a pair of assignments
    differing in a slot of phase ``j``, the earlier phases are identically
    distributed, phase ``j`` is one Gaussian mechanism of sensitivity ``Delta_j``
    and noise ``Delta_j / mu_t`` (``mu_t``-GDP), and the later phases are
    post-processing; by the joint convexity of the hockey-stick divergence the
    mixture over the coupling keeps the ``mu_t``-GDP privacy profile. The phases
    thus compose in parallel (the maximum over phases, not the sum). Here ``mu =
    gdp_mu(epsilon, delta)`` and ``mu_t = mu`` if ``m`` is public; if it is a
    private count, the count is ``mu_c``-GDP with ``mu_c^2 = 0.01 mu^2`` and ``mu_t
    = sqrt(mu^2 - mu_c^2)``; the whole fit is ``mu``-GDP (Dong, Roth & Su, JRSS B
    2022, Cor. 3.3), hence exactly ``(epsilon, delta)``-DP by the analytic Gaussian
    mechanism. The bounded domain of the paper's utility analysis (diameter ``D =
    2 radius``) enters only the automatic step size; the privacy guarantee needs no
    projection.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound, > 0.
    delta : float, default=1e-8
        In (0, 1); should be much smaller than ``1 / n_samples``.
    loss : {"logistic", "huber_hinge"}, default="logistic"
        Logistic (multinomial for more than two classes) or Huber-smoothed hinge
        with ``h = 0.5`` (one-vs-rest for more than two classes).
    data_norm : float, default=1.0
        Public bound on the row norms; rows are scaled to ``||x_i|| <= data_norm``.
    radius : float, default=3.0
        ``D / 2``: the assumed bound on the norm of a good solution (all
        coefficients and intercepts), used by the automatic step size only. 3 was
        chosen on a holdout of Adult's *training* split (among 3, 10, 30; mean
        holdout accuracy over epsilon in {0.1, 0.4, 1.6}), never its test split.
    learning_rate : float or "auto", default="auto"
        Step ``eta_1`` of the first phase, > 0 and at most ``2 / beta``. "auto":
        ``eta_1 = min((D / L) min(1 / sqrt(n_1), mu_t / (2 sqrt(p))), 2 / beta)``,
        ``p`` the number of parameters: the step of one-pass SGD balancing
        ``D^2 / (eta n_1)`` against ``eta L^2`` (Feldman, Koren & Talwar 2020,
        Sec. 4, with ``1 / sqrt(n)``), capped so that the first phase's noise
        ``sqrt(p) sigma_1`` is at most ``D``, and so that steps are contractions.
    fit_intercept : bool, default=True
        Whether to fit intercepts (updated and noised like the coefficients).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee (the sensitivity is ``2 L eta_i``
        under both, see above).
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by every rule that needs a size: the phase sizes, the
        averaging divisors and ``learning_rate="auto"``. It need not equal the
        number of rows and is never compared with it (that comparison would itself
        read ``n``). None: under ``neighboring="add_remove"`` the size is estimated
        privately, by a Gaussian count charged to this fit's budget (1% of
        ``mu**2``; the training keeps 99.5% of its ``mu``); under ``"replace"`` the
        exact ``n_samples`` is public and used. The value used is
        ``public_n_samples_``.
    classes : array-like of shape (n_classes,), default=None
        The public label set. If None, it is read from ``y`` and a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` is raised (and
        one-class ``y`` raises a ValueError); when given, ``y`` may lack some of
        the classes, even all but one, and ``classes_`` is the declared set.
    random_state : int, RandomState instance or None, default=None
        Seeds the placement of the rows, the noise and the noisy count. None draws
        128 bits of fresh operating-system entropy for every fit (never NumPy's
        global state). An int or a ``RandomState`` makes the noise reproducible and
        therefore subtractable by anyone who knows the seed, and fits that share it
        share their noise: it is for debugging and tests only and raises a
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    secure_mode : bool, default=False
        Draw every noise value (and the placement of the rows) from the operating
        system's cryptographically secure generator with samplers that resist the
        floating-point attacks of Mironov (CCS 2012); ``random_state`` is then
        ignored. Same epsilon; ``delta_`` gains the bounded samplers' ~1e-25
        (privacy page, "secure_mode"); slower noise draws.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Noisy coefficients (dtype of the training ``X``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Noisy intercepts (zeros when ``fit_intercept=False``).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.
    public_n_samples_ : int
        ``m``: the public size used (``public_n_samples``, ``n_samples`` under
        ``neighboring="replace"``, or the private, noisy and charged, count).
    phase_sizes_ : ndarray of shape (n_phases,)
        ``n_i``, slots of each phase (a function of ``m`` only).
    learning_rates_ : ndarray of shape (n_phases,)
        ``eta_i`` of each phase.
    sensitivities_ : ndarray of shape (n_phases,)
        ``Delta_i = 2 L eta_i``.
    noise_scales_ : ndarray of shape (n_phases,)
        ``sigma_i = Delta_i / mu_t``: noise std on each coordinate of phase ``i``.
    mu_ : float
        GDP parameter of the whole fit: the maximum over phases of
        ``sensitivities_ / noise_scales_``, composed with the count's ``mu_c`` when
        the size was estimated.
    epsilon_ : float
        Epsilon spent at ``delta_``.
    delta_ : float
        The delta of the guarantee.
    ledger_ : tuple of GaussianSteps
        One entry per Gaussian mechanism, for
        :func:`~sklearn_dpgd.accounting.ledger_epsilon`: the count (noise
        multiplier ``1 / mu_c``) when the size was estimated, then the phases
        (parallel composition: one entry, the smallest of
        ``noise_scales_ / sensitivities_``).

    Raises
    ------
    ValueError
        From ``fit``, if ``learning_rate`` exceeds ``2 / beta``.

    See Also
    --------
    OutputPerturbationClassifier : One regularised solve, one noise draw.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer, Normalizer
    >>> from sklearn_dpgd import PhasedLocalizationClassifier, preprocessing
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     FunctionTransformer(np.log1p),
    ...     preprocessing.DPStandardScaler((0, 9), epsilon=0.1),
    ...     Normalizer(), PhasedLocalizationClassifier(
    ...         epsilon=0.9, delta=1e-5, classes=[0, 1], public_n_samples=500
    ...     ),
    ... ).fit(X, y)
    >>> clf[-1].phase_sizes_[:3].tolist()
    [250, 125, 62]
    """

    _parameter_constraints = {
        **_BaselineClassifier._parameter_constraints,
        "radius": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-8,
        loss="logistic",
        data_norm=1.0,
        radius=3.0,
        learning_rate="auto",
        fit_intercept=True,
        neighboring="add_remove",
        public_n_samples=None,
        classes=None,
        random_state=None,
        secure_mode=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.data_norm = data_norm
        self.radius = radius
        self.learning_rate = learning_rate
        self.fit_intercept = fit_intercept
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.classes = classes
        self.random_state = random_state
        self.secure_mode = secure_mode

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run the phases and release the last one's noisy output.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame} of shape \
                (n_samples, n_features)
            Training data; rows are clipped to norm ``data_norm``.
        y : array-like of shape (n_samples,)
            Target labels.
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
            If a parameter is out of range (including ``learning_rate > 2 / beta``)
            or ``X``/``y`` are invalid, or ``sample_weight`` is not None (weights
            break the sensitivity).
        """
        check_fit_boundary(self)  # a leak around this fit is named first
        refuse_sample_weight(sample_weight, type(self).__name__)
        self._check_finite(("epsilon", "data_norm", "radius", "learning_rate"))
        X, y_index, n_outputs = self._validate_fit_data(X, y)
        row_sq = float(self.data_norm) ** 2 + float(bool(self.fit_intercept))
        beta = margin_smoothness(self.loss, n_outputs) * row_sq
        if self.learning_rate != "auto" and float(self.learning_rate) > 2.0 / beta:
            raise ValueError(
                f"learning_rate={float(self.learning_rate):g} exceeds 2 / beta = "
                f"{2.0 / beta:g}: the SGD steps would not be contractions and the "
                "sensitivity bound would not hold."
            )
        # The whole cost is charged before the count or the phases read the data.
        mu, z_count, count_seed, noise_seed, charge = self._start_fit()
        m = self._resolve_size(X.shape[0], z_count, count_seed)
        result = localization.solve(
            X,
            y_index,
            n_outputs,
            loss=self.loss,
            data_norm=self.data_norm,
            fit_intercept=bool(self.fit_intercept),
            lipschitz=self._lipschitz(n_outputs),
            beta=beta,
            radius=self.radius,
            learning_rate=self.learning_rate,
            mu=mu,
            count_multiplier=z_count,
            public_n_samples=m,
            rng=make_generator(noise_seed, self.secure_mode),
            delta=self.delta,
        )
        add_secure_support(set_fitted(self, result))
        charge.settle(result.ledger)
        return self
