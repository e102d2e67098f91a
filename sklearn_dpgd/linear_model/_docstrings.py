"""Docstring paragraphs shared by the linear models."""

# One source for both estimators, so they cannot drift apart; each class docstring
# is assembled from them by ``_assemble``.
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
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: each row's clipped gradient
        is multiplied by its class's weight (times its ``sample_weight``). A dict
        ``{label: weight}`` (labels of ``classes_``, missing ones weigh 1,
        weights finite and >= 0) is public: chosen without looking at the data.
        The noise is calibrated to the largest weight a row can have,
        ``w_max = max_sample_weight * max(class weights)`` (``max_sample_weight``
        counts only when ``fit`` is given ``sample_weight``): one row moves the
        weighted sum ``sum_i w_i clip(g_i, C)`` by at most ``w_max C`` when added or
        removed and ``2 w_max C`` when replaced, so the sensitivity ``Delta`` is
        ``w_max`` times the unweighted one and ``noise_multipliers_``, ``ledger_``
        and ``epsilon_`` are those of the unweighted fit (the noise std, ``z
        Delta``, grows by ``w_max``). "balanced": scikit-learn's ``n / (K n_k)``
        from noisy class counts, a Gaussian histogram (sensitivity 1 under
        add/remove, ``sqrt(2)`` under replace-one) charged to this fit at 1% of
        ``mu**2`` (recorded in ``ledger_`` after the row count) before anything
        else is read. Each noisy count is clamped below at its noise std (a count
        under its noise cannot be told from zero; the floor caps the weight
        ratios), and the weights are rescaled to ``min_j n~_j / n~_k`` so that
        the largest is 1: ``n`` cancels (under add/remove the exact ``n`` is
        private and is never read) and the sensitivity is that of an unweighted
        fit. A common factor of all weights would scale the signal and the noise
        alike; the L2 penalty is multiplied by ``K min_j n~_j / sum_j n~_j``, the
        factor the rescaled weights are below scikit-learn's, so the objective
        keeps the minimiser of ``LogisticRegression(class_weight="balanced")``
        (``alpha_`` is the penalty used). With ``batch_size`` the counts (a
        full-batch Gaussian mechanism) are composed with the subsampled steps in
        the fit's accountant. Weights of either kind need ``solver="gd"`` (with
        any ``schedule``: the adaptive selections' objective sums are weighted
        too, their sensitivity scaled by ``w_max``) or ``"snowball"`` (its step
        cap divided by ``w_max``; not "balanced"). ``predict_proba`` of a
        weighted fit estimates the weighted problem's probabilities, as in
        scikit-learn.
    max_sample_weight : float, default=1.0
        Public bound of the ``sample_weight`` passed to ``fit``, > 0 and finite:
        every weight must lie in ``[0, max_sample_weight]`` (a ValueError naming
        the bound otherwise, and for negative or non-finite weights). The
        sensitivity, and the noise std with it, are multiplied by it (and by the
        largest class weight); at the default 1.0 weights only lower a row's
        influence and the guarantee is that of the unweighted fit. Unused when
        ``fit`` gets no ``sample_weight``.
    solver : {"gd", "snowball", "newton", "frank_wolfe", "pgd", "auto"}, \
default=%(solver_default)s
        "gd": the private gradient descent described above. "frank_wolfe"
        (``l1_ratio=1`` only): private Frank-Wolfe on the L1 ball of radius
        ``200 sqrt(C)`` (``C=None``: 1) over the coefficients and intercepts
        (Talwar, Thakurta & Zhang, NeurIPS 2015, Algorithm 1): ``max_iter``
        ("auto": 50) iterations, each choosing a vertex ``+-r e_j`` and a step
        size by the exponential mechanism, so at most ``max_iter`` non-zero
        coefficients; accounted as ``2 max_iter`` bounded-range selections in
        RDP, and no step reads the number of rows (user guide, "Coming from
        scikit-learn"). It refuses ``alpha`` (set ``C``), weights, ``schedule``,
        ``batch_size`` and dask input; no "auto" rule picks it. "auto" (the
        default of :class:`DPLogisticRegression`): one rule over public and
        released quantities (``sklearn_dpgd.linear_model._pgd.auto_solver``)
        runs "pgd" when ``mu m / (s sqrt(n_features + 1)) >= 700`` at the public
        size ``m`` (``mu`` the GDP budget, ``s`` 2 under replace-one; e.g. Adult
        at epsilon 1.6), the problem is binary logistic
        (:class:`DPLogisticRegression`) without ``l1_ratio``, ``schedule``,
        ``batch_size``, weights or ``calibration="temperature"``,
        ``max_iter="auto"``, and ``X`` is dense (or
        a dask array) of at most 512 features; "gd" otherwise (user guide,
        "Performance"). On nine held-back tables "pgd" was within 0.21 point
        of "gd" at epsilon 1 and 4, but on one (diamonds, correlated columns)
        1.4 points behind just above the threshold (epsilon 0.4): pass
        ``solver="gd"`` when the last points matter more than time. ``m`` is
        ``public_n_samples``, the row count under replace-one, or under
        add/remove-one the noisy count of the rows that
        "gd" and "pgd" both release first, at the same share of the budget: the
        fit counts once, the rule reads the released count, and the solver it
        picks uses it. The private searches run "auto" as "gd" (their grids and
        budget split are those of "gd"). The solver run is ``solver_``. "pgd"
        (:class:`DPLogisticRegression`, binary, or multinomial on request):
        private preconditioned gradient descent over rows scaled to feature
        norm at most 1: one noisy Gram matrix, then ``max_iter`` ("auto": 20
        binary, 40 multinomial) noisy gradients, each row's clipped to
        ``clip_norm`` ("auto": the rule of "gd"), each followed by the step
        ``(G~ / 4 + D)^{-1} g~`` (Böhning's curvature bound of the logistic
        loss, Böhning & Lindsay 1988; for ``K`` classes
        ``(1/2)(I - 11^T/K)`` times the Gram), the mean of the iterates from the
        sixth on released; GDP-accounted, ``max_iter + 1`` passes over ``X``;
        no temperature scaling (``calibration_`` is None). It refuses what
        "newton" refuses and ``calibration="temperature"``. "newton"
        (:class:`DPLogisticRegression`, binary or multinomial): ``max_iter``
        ("auto": 8) private damped Newton iterations, each a noisy gradient and a
        noisy direction ``(H / m + D)^{-1} g`` (the double-noise mechanism of
        Ganesh, Haghifam, Steinke & Thakurta, NeurIPS 2023, Algorithm 3), over
        rows clipped to feature norm ``clip_norm`` ("auto": 1), GDP-accounted;
        less accurate than "gd" on every benchmark data set (user guide,
        "Private Newton"), so not the default. It refuses weights,
        ``schedule``, ``batch_size``, ``l1_ratio > 0``, more than 512
        features and multinomial Hessians of more than 1,024 rows (``K
        (n_features + 1)``); ``learning_rate``, ``momentum``, ``average``,
        ``normalize_steps`` and ``accountant`` are not used. "snowball":
        Snowball-SGD (Feldman, Koren & Talwar, STOC 2020, Sec. 3, Thm 3.1 and 3.5;
        ``sklearn_dpgd/_solvers/snowball.py``): one pass over the rows in a
        random order, batches growing as
        ``B_t = ceil(2 sqrt(p) / (rho sqrt(T - t + 1)))``
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
        Mironov (CCS 2012); ``random_state`` is then ignored. Same epsilon;
        ``delta_`` gains the bounded samplers' ~1e-25 (see the privacy page,
        "secure_mode"); slower noise draws.
    verbose : int, default=0
        1: print a line per tenth of the steps (of the budget spent, for adaptive
        schedules) with the noise multiplier and the norm of the noisy gradient
        (privatised values only); 2 or more: a line per step.
    utility_diagnostics : bool, default=True
        Spend ``DIAGNOSTICS_SHARE`` (10%) of the fit's ``mu^2`` (GDP) on two
        noisy counts that warn :class:`~sklearn_dpgd.exceptions.UtilityWarning`
        when the fit is likely useless: after training, the classes the model
        predicts on the training rows, if one class takes all but 2% of them
        (no verdict when the counts' noise exceeds a tenth of the public
        size), and the right predictions less each class's rows, if the
        model is surely less than 5 points more accurate than the majority
        class there; before it, the rows of norm above ``100 max(1, clip_norm)``,
        named as the cause if most rows. Both are charged to the fit's filter
        before they read a row and recorded in ``ledger_``; the training keeps
        ``sqrt(0.9)`` of its ``mu`` and ``epsilon_`` is unchanged. False gives
        their share to the training. They run on full-batch fits with a
        data-independent schedule (Dask input included; not with
        ``batch_size`` or ``solver="snowball"``). Full-batch adaptive schedules
        run the check of the predictions only, on what their privacy filter
        left when training stopped (their training is unchanged), and skip it
        when that affords no better than 17 times the usual noise. A free
        check from public quantities (``mu m / d'`` below a measured threshold) warns
        either way (user guide, "Getting good accuracy")."""

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
    solver_ : str
        The solver run: ``solver``, or what ``solver="auto"`` chose.
    preconditioner_damping_ : float
        ``solver="pgd"`` only: the public damping ``lambda`` of its
        preconditioner (set by the noise of the Gram release).
    public_n_samples_ : int
        The public size every size-dependent rule used: ``public_n_samples``,
        ``n_samples`` under ``neighboring="replace"``, or the private (noisy,
        charged) estimate of ``n_samples``; None for ``solver="frank_wolfe"``,
        which uses no size.
    clip_norm_ : float
        The clipping threshold used (``clip_norm`` with "auto" resolved).
    alpha_ : float
        The penalty's strength used: ``alpha`` with "auto" resolved, or ``1 / (C
        m)``; times the factor of ``class_weight="balanced"``. Its L2 part is
        ``(1 - l1_ratio) alpha_``, its L1 part ``l1_ratio alpha_``. None for
        ``solver="frank_wolfe"``, which constrains instead (``l1_radius_``).
    l1_radius_ : float
        ``solver="frank_wolfe"`` only: the radius of its L1 ball, ``200
        sqrt(C)``; ``|intercept_| + ||coef_||_1 <= l1_radius_``.
    calibration_ : "temperature" or None
        The calibration that ran (``calibration`` with "auto" resolved; always
        None for :class:`DPHuberSVM`, which has no probabilities).
    calibration_scale_ : float or None
        The factor ``a`` of the private temperature scaling, already folded into
        ``coef_`` and ``intercept_`` (they are ``a`` times the trained ones);
        None without calibration. A private output like ``coef_``.
    learning_rates_ : ndarray of shape (`n_iter_`,)
        Step size of each update: the plan's (data-independent schedules and
        Snowball-SGD) or the privately chosen one (adaptive schedules and
        ``solver="frank_wolfe"``).
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
        up; for adaptive schedules, and for a plan chosen after a noisy count of
        the rows (no ``public_n_samples`` under add/remove), the guarantee of the
        fit's privacy filter, ``epsilon``, even where the plan's steps spend less,
        as a ``PURSchedule``'s may: the plan read a private estimate).
    delta_ : float
        The delta of the guarantee."""

_CAVEAT = """\
    Floating-point caveat: noise is drawn with NumPy's double-precision Gaussian
    sampler; like every floating-point implementation of the Gaussian mechanism it
    is open to the attacks of Mironov (CCS 2012) on the low-order bits.

    ``sample_weight`` is bounded by the public ``max_sample_weight``: the noise
    is calibrated to the largest weight a row may have, so a weight above it
    would give one row more influence than the noise covers."""


# The C and l1_ratio parameters, the same in both estimators' penalty paragraphs.
_C_L1_RATIO = """\
    C : float or None, default=None
        Inverse penalty strength as in scikit-learn's
        :class:`~sklearn.linear_model.LogisticRegression` (1.8+, where ``C`` and
        ``l1_ratio`` replace ``penalty``): the objective ``C sum loss + (1 -
        l1_ratio) ||coef||^2 / 2 + l1_ratio ||coef||_1``, divided by ``C m``, is
        minimised, i.e. ``alpha = 1 / (C * public_n_samples_)`` (the public size
        ``m``, never the private ``n``); ``np.inf`` is no penalty. None (the
        default) uses ``alpha``. ``C`` and an ``alpha`` other than its default
        raise a ValueError naming both (one penalty, two spellings). Not
        supported by ``solver="snowball"`` (set ``alpha``).
    l1_ratio : float, default=0.0
        Elastic-net mixing in ``[0, 1]``, as in scikit-learn: the penalty is
        ``alpha ((1 - l1_ratio) ||coef||^2 / 2 + l1_ratio ||coef||_1)``; 0 is the
        L2 penalty, 1 the L1 (lasso) penalty. The L1 part, not differentiable, is
        applied by a proximal step (soft-thresholding of the coefficients, not the
        intercepts) after each noisy step: the proximal private gradient method
        (Wang, Ye & Xu, NeurIPS 2017, for a loss plus a simple non-smooth
        regulariser), with the momentum of the inertial proximal method iPiano
        (Ochs, Chen, Brox & Pock, 2014). It reads only the privatised iterate, so
        it is post-processing: the same noisy steps run, and ``ledger_`` and
        ``epsilon_`` are those of the same fit with ``l1_ratio=0``. The released
        average of the last iterates is soft-thresholded once more with the last
        step's threshold, so coefficients the proximal steps hold at zero are
        exactly zero in ``coef_``. Needs ``solver="gd"`` and a data-independent
        ``schedule``."""


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
%(c_l1_ratio)s
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
        "temperature" for full-batch fits (``batch_size=None``, a
        data-independent ``schedule``, ``solver="gd"`` or "newton") with
        ``sqrt(0.02) * public_n_samples_ * mu >= 300`` (``mu = gdp_mu(epsilon,
        delta)``; below it the stage's own noise costs more log-loss than it
        saves), and None otherwise (minibatch, adaptive and snowball fits are not
        recalibrated). A multinomial fit gets one shared temperature of its
        scores, ``softmax(a s)``, fitted the same way on ``clip(s / 8, -1, 1)``;
        its per-row gradient is bounded by 2, so "auto" asks for twice the
        signal (``sqrt(0.02) * public_n_samples_ * mu / 2 >= 300``).
        "temperature" where it is not available raises a ValueError; None skips
        the stage and gives its budget to the training steps. What ran is
        ``calibration_``.""".replace("%(c_l1_ratio)s\n", _C_L1_RATIO + "\n")

_ALPHA_ZERO = """\
    alpha : float or "auto", default=0.0
        L2 penalty ``alpha/2 ||coef||^2`` (intercepts are not penalised). Public,
        so its gradient is added without noise. "auto" is ``1 /
        public_n_samples_`` as for :class:`DPLogisticRegression` (0 for
        ``solver="snowball"`` and a PURSchedule). The value used is ``alpha_``.
%(c_l1_ratio)s
""".replace("%(c_l1_ratio)s\n", _C_L1_RATIO)


def _assemble(doc, alpha_doc, solver_default='"gd"'):
    return (
        doc.replace("%(guarantee)s", _GUARANTEE)
        .replace("%(params_privacy)s", _PARAMS_PRIVACY)
        .replace("%(params_optimiser)s", _PARAMS_OPTIMISER)
        .replace("%(alpha)s", alpha_doc)
        .replace("%(attributes)s", _ATTRIBUTES)
        .replace("%(caveat)s", _CAVEAT)
        .replace("%(solver_default)s", solver_default)
    )
