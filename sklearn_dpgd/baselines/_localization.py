"""Phased localization: one-pass SGD phases released with noise (see the class
docstring)."""

from numbers import Real

from sklearn.base import _fit_context

from .._base import set_fitted
from .._boundary import add_secure_support, check_fit_boundary
from .._engine._randomness import make_generator
from .._sklearn_compat import Interval, StrOptions
from .._solvers import localization
from .._solvers._erm import margin_smoothness
from ._base import _BaselineClassifier


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
    skipped. With ``sample_weight``, the step of a row of weight ``w_i`` (in
    ``[0, w_max]``, ``w_max = max_sample_weight``; without weights ``w_i = 1``
    and ``w_max = 1``) is ``eta_i w_i`` times its gradient: a gradient step on
    ``w_i l_i``.

    Assumptions and guarantee. Rows are clipped to ``||x_i|| <= data_norm`` and the
    intercept is one more coordinate fixed at 1, so each per-example loss is convex,
    ``L``-Lipschitz with ``L = G_K sqrt(data_norm^2 + fit_intercept)`` (``G_K`` as
    in :class:`OutputPerturbationClassifier`) and ``beta``-smooth with ``beta = c
    (data_norm^2 + fit_intercept)``, ``c`` the curvature of the loss in the margins
    (1/4 binary logistic, 1/2 softmax, 1 hinge with ``h = 0.5``); a weighted loss
    ``w_i l_i`` is ``w_max L``-Lipschitz and ``w_max beta``-smooth. With ``eta_1
    <= 2 / (w_max beta)`` every SGD step is non-expansive (Hardt, Recht & Singer,
    ICML 2016, Lemma 3.7), so changing the content of one slot of a phase (a row
    for another, or an empty slot for a row) moves that phase's average iterate by
    at most ``Delta_i = 2 w_max L eta_i`` (ibid., Thm 3.8: the two gradient steps
    at that slot differ by at most ``2 w_max L eta_i``, and later steps do not
    expand the gap).
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
        Step ``eta_1`` of the first phase, > 0 and at most ``2 / (w_max beta)``.
        "auto": ``eta_1 = min((D / L_w) min(1 / sqrt(n_1), mu_t / (2 sqrt(p))), 2 /
        (w_max beta))`` with ``L_w = w_max L``, ``p`` the number of parameters:
        the step of one-pass SGD balancing ``D^2 / (eta n_1)`` against ``eta
        L_w^2`` (Feldman, Koren & Talwar 2020, Sec. 4, with ``1 / sqrt(n)``),
        capped so that the first phase's noise ``sqrt(p) sigma_1`` is at most
        ``D``, and so that steps are contractions (``1 / w_max`` times the
        unweighted step: weights and bound scaled together give the same fit).
    fit_intercept : bool, default=True
        Whether to fit intercepts (updated and noised like the coefficients).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee (the sensitivity is ``2 w_max L
        eta_i`` under both, see above).
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
    max_sample_weight : float, default=1.0
        Public bound ``w_max`` of the ``sample_weight`` passed to ``fit``, > 0 and
        finite: every weight must lie in ``[0, max_sample_weight]`` (a ValueError
        naming the bound otherwise, and for negative or non-finite weights). The
        sensitivities, and the noise stds with them, are multiplied by it (the
        "auto" step divides by it); unused when ``fit`` gets no
        ``sample_weight``.
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
        ``Delta_i = 2 w_max L eta_i``.
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
        max_sample_weight=1.0,
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
        self.max_sample_weight = max_sample_weight
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
        sample_weight : array-like of shape (n_samples,), default=None
            Weight ``w_i`` of each row's SGD step, in ``[0, max_sample_weight]``;
            the sensitivities are multiplied by ``max_sample_weight`` (see the
            class docstring). None: every row weighs 1.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range (including ``learning_rate > 2 /
            (w_max beta)``) or ``X``/``y`` are invalid, or ``sample_weight`` has
            the wrong shape or a weight that is negative, not finite or above
            ``max_sample_weight``.
        """
        check_fit_boundary(self)  # a leak around this fit is named first
        self._check_finite(
            ("epsilon", "data_norm", "radius", "learning_rate", "max_sample_weight")
        )
        X, y_index, n_outputs, weights, w_max = self._validate_fit_data(
            X, y, sample_weight
        )
        row_sq = float(self.data_norm) ** 2 + float(bool(self.fit_intercept))
        beta = margin_smoothness(self.loss, n_outputs) * row_sq
        # A weighted step is a gradient step on w_i l_i, (w_max beta)-smooth.
        cap = 2.0 / (w_max * beta)
        if self.learning_rate != "auto" and float(self.learning_rate) > cap:
            bound = "2 / beta" if weights is None else "2 / (max_sample_weight beta)"
            raise ValueError(
                f"learning_rate={float(self.learning_rate):g} exceeds {bound} = "
                f"{cap:g}: the SGD steps would not be contractions and the "
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
            weights=weights,
            max_weight=w_max,
        )
        add_secure_support(set_fitted(self, result))
        charge.settle(result.ledger)
        return self
