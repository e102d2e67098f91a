"""Output perturbation of the regularised minimiser (see the class docstring)."""

import math
from numbers import Real

from sklearn.base import _fit_context

from .._base import set_fitted
from .._boundary import add_secure_support, check_fit_boundary
from .._engine._randomness import make_generator
from .._sklearn_compat import Interval, StrOptions
from .._solvers import outpert
from ._base import _AUTO_RADIUS, _OUTPUT_FACTOR, _BaselineClassifier


class OutputPerturbationClassifier(_BaselineClassifier):
    """Linear classifier with differential privacy by output perturbation.

    Solves the L2-regularised empirical risk minimisation

        theta_hat = argmin (1/m) sum_i w_i l(theta; x_i, y_i) + alpha/2 ||theta||^2

    non-privately (L-BFGS-B, continued by gradient descent if needed, to gradient
    norm ``tol``) over rows clipped to ``||x_i|| <= data_norm``, and releases
    ``theta_hat + N(0, sigma^2 I)`` (Chaudhuri, Monteleoni & Sarwate, JMLR 2011,
    Alg. 1 and Thm 6; Lowy & Razaviyayn 2021, Alg. 6). ``theta`` holds the
    coefficients and the intercepts; both are penalised (the objective must be
    ``alpha``-strongly convex in every released coordinate). The divisor ``m`` is
    the public size ``public_n_samples_`` (see ``public_n_samples``), not the
    private number of rows ``n``. The weights ``w_i`` are the ``sample_weight``
    passed to ``fit``, in ``[0, w_max]`` with ``w_max = max_sample_weight``
    (``w_i = 1`` and ``w_max = 1`` without ``sample_weight``).

    Sensitivity: every per-example loss is ``L``-Lipschitz in ``theta`` with
    ``L = G_K sqrt(data_norm^2 + fit_intercept)`` (the intercept is one more
    coordinate fixed at 1, counted in the norm); ``G_K`` is 1 for binary problems,
    ``sqrt(2)`` for the multinomial logistic loss and ``sqrt(K)`` for the
    one-vs-rest Huber hinge with K classes (the multiclass scheme of
    :class:`~sklearn_dpgd.DPHuberSVM`). Because the divisor is the public ``m``,
    adding a row ``z`` of weight ``w_z`` to the data adds the single term
    ``w_z l_z / m`` to the objective and leaves the other rows' terms alone; that
    term is ``w_max L``-Lipschitz (``w_z <= w_max``), and summing the
    ``alpha``-strong-convexity inequalities of the two objectives at the two
    minimisers ``u`` and ``u'`` gives ``alpha ||u - u'||^2 <= w_z (l_z(u) -
    l_z(u')) / m <= w_max L ||u - u'|| / m``, so the exact minimiser moves by at
    most ``w_max L / (m alpha)`` when one row is added or removed and ``2 w_max L
    / (m alpha)`` when one is replaced (the added term is then ``(w_z l_z - w_y
    l_y) / m``, ``2 w_max L``-Lipschitz); Chaudhuri, Monteleoni & Sarwate (JMLR
    2011), Lemma 7 and Cor. 8, with ``w_max L`` for ``L``. The bound is attained
    up to the curvature: a row of weight ``w_max`` whose gradient has norm ``L``
    at the minimiser. (With the divisor ``n`` the added row would also reweight
    the ``n`` others, which moves the minimiser by up to ``2 w_max L / ((n + 1)
    alpha)``, twice as far.) The solver
    returns a point with ``||grad F|| <= tol``, within ``tol / alpha`` of the
    minimiser (strong convexity: ``||grad F(theta)|| >= alpha ||theta - w||``), so
    the released point has sensitivity::

        sensitivity_ = f w_max L / (m alpha) + 2 tol / alpha

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
        ``alpha = w_max L sqrt(f sqrt(p) / (m mu_t)) / R`` with ``p`` the number of
        released coordinates and ``R = 30``: the minimiser of the bound
        ``alpha R^2 / 2 + w_max L E||noise||`` on the excess regularised risk
        against a comparator of norm ``R`` (Chaudhuri et al. 2011, Sec. 4), in
        public quantities only. With ``w_max`` the penalty scales with the
        weights' bound, so weights and bound scaled together give the same fit.
        ``R = 30`` is the order of the norm of the non-private logistic solution
        on unit-norm tabular rows; it was chosen on a holdout of Adult's
        *training* split (among ``R`` in {0.1, ..., 300}), never its test split.
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
    max_sample_weight : float, default=1.0
        Public bound ``w_max`` of the ``sample_weight`` passed to ``fit``, > 0 and
        finite: every weight must lie in ``[0, max_sample_weight]`` (a ValueError
        naming the bound otherwise, and for negative or non-finite weights). The
        sensitivity, and the noise std with it, are multiplied by it; at the
        default 1.0 weights only lower a row's influence. Unused when ``fit``
        gets no ``sample_weight``.
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
        max_sample_weight=1.0,
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
        self.max_sample_weight = max_sample_weight
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
        sample_weight : array-like of shape (n_samples,), default=None
            Weight ``w_i`` of each row's loss, in ``[0, max_sample_weight]``;
            the sensitivity is multiplied by ``max_sample_weight`` (see the class
            docstring). None: every row weighs 1.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range, or ``X``/``y`` are invalid (as for
            :class:`~sklearn_dpgd.DPLogisticRegression`), or ``sample_weight`` has
            the wrong shape or a weight that is negative, not finite or above
            ``max_sample_weight``.
        RuntimeError
            If the solver fails in floating point to reach ``tol``.
        """
        check_fit_boundary(self)  # a leak around this fit is named first
        self._check_finite(("epsilon", "data_norm", "alpha", "max_sample_weight"))
        X, y_index, n_outputs, weights, w_max = self._validate_fit_data(
            X, y, sample_weight
        )
        lipschitz = self._lipschitz(n_outputs)
        factor = _OUTPUT_FACTOR[self.neighboring]
        # The whole cost is charged before the count or the solver reads the data.
        mu, z_count, count_seed, noise_seed, charge = self._start_fit()
        m = self._resolve_size(X.shape[0], z_count, count_seed)
        if self.alpha == "auto":
            dim = n_outputs * (X.shape[1] + int(self.fit_intercept))
            # The rule with w_max L for L: w_max times the unweighted penalty, so
            # the minimiser and the noise depend only on the ratios w_i / w_max.
            alpha = (
                w_max
                * lipschitz
                * math.sqrt(factor * math.sqrt(dim) / (m * mu))
                / _AUTO_RADIUS
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
            weights=weights,
            max_weight=w_max,
        )
        add_secure_support(set_fitted(self, result))
        charge.settle(result.ledger)
        return self
