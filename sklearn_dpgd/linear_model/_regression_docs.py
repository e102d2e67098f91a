"""Docstring paragraphs of the private linear regressors (``_regression.py``)."""

_REGRESSION_GUARANTEE = """\
    The guarantee: the fitted model (every fitted attribute below) is
    ``(epsilon, delta)``-differentially private with respect to ``neighboring``:
    adding or removing one row ``(x_i, y_i)`` (default) or replacing one row.
    Sensitivity, derived under that relation: the per-example gradient
    ``l'(m_i - y_i) [x_i, 1]`` is unbounded for the squared loss (in ``y_i`` and
    in the margin ``m_i``), so, as for the classifiers, each one is clipped to L2
    norm ``clip_norm`` before the sum (the per-example clipping of Abadi et al.,
    CCS 2016, Sec. 3.1). Adding or removing a row adds or removes one term of norm
    at most ``clip_norm``: the sum's L2 sensitivity is ``Delta = clip_norm``;
    replacing a row swaps one such term for another: ``Delta = 2 clip_norm``
    (triangle inequality), times ``max_sample_weight`` for weighted fits. This
    holds whatever ``X`` and ``y`` are: it rests on the clipping alone, not on
    ``y_bounds``. Everything else in a step is public: the target map of
    ``y_bounds``, the penalty, and the divisor, the public size
    ``public_n_samples_`` (under add/remove the exact number of rows is private:
    it is declared, or estimated by a noisy count charged to the budget). The
    noise multipliers then spend ``(epsilon, delta)`` exactly by the closed-form
    composition of Gaussian differential privacy (Dong, Roth & Su 2022, Cor. 3.3
    and 2.13), or by the PLD accountant for ``batch_size``.

    The target: ``y`` is clipped to the public ``y_bounds = (low, high)`` and
    mapped to ``[-1, 1]`` by the public affine map ``(y - centre) / scale``
    (``centre`` the midpoint and ``scale`` the half-width with an intercept;
    ``centre = 0`` and ``scale = max(|low|, |high|)`` without). The fit runs on
    the scaled target and ``coef_`` and ``intercept_`` are mapped back (post-
    processing). So a target far from zero does not spend the clipping norm on
    its offset: at the zero start the residuals are at most 1, and the intercept
    starts at the middle of the range. Public target bounds, required and
    clipped to, are diffprivlib's ``bounds_y`` (Holohan et al. 2019), which
    centres the target by a private mean inside them; here the centre is the
    bounds' midpoint, which is public and costs nothing."""

_Y_BOUNDS = """\
    y_bounds : tuple of 2 floats or None, default=None
        The public range ``(low, high)`` of the target, ``low < high``, chosen
        without looking at the data (the target's definition, a codebook, a
        domain's limits). Required: None raises a ValueError in ``fit``. ``y`` is
        clipped to it (never checked against it: a refusal would tell whether
        some row lies outside) and it sets the scale of the fit (see above).
        Too wide a range costs utility (the scaled target is compressed towards
        0), too narrow a range biases predictions towards its inside; a
        target that surely fills under a tenth of it warns
        :class:`~sklearn_dpgd.exceptions.UtilityWarning`
        (``utility_diagnostics``).
"""

_REGRESSION_PARAMS = """\
    learning_rate : float or "auto", default="auto"
        Step size ``eta`` of the heavy-ball update: with normalised steps
        (``normalize_steps``) the length of each step in parameter space (of the
        scaled target's model), else the multiplier of the noisy gradient.
        "auto": :func:`~sklearn_dpgd.schedules.auto_learning_rate` with base
        ``0.5 / clip_norm_`` for gradient steps (the default), that of
        :class:`DPHuberSVM`, whose loss has the same smoothness in the margin
        (1), and base 0.5 for normalised steps.
    momentum : float, default=0.9
        Heavy-ball coefficient in [0, 1) (0 is plain gradient descent).
    average : float, default=0.5
        Fraction of the last iterates whose mean is returned (suffix averaging;
        Rakhlin, Shamir & Sridharan, ICML 2012), in [0, 1]; 0 returns the last
        iterate.
    normalize_steps : bool or "auto", default="auto"
        Whether each step follows the noisy gradient divided by its L2 norm
        (post-processing: it costs no privacy). "auto" is False: plain gradient
        steps over the horizon ``mu m / sqrt(n_features + 1)`` of "auto"
        ``max_iter``, which beat normalised steps at small budgets on a holdout
        of Adult's training split (``benchmarks/bench_regression.py``; a
        normalised step keeps its length where the gradient of the squared loss
        fades, so the iterate does not settle).
    batch_size : int or None, default=None
        Expected batch size of minibatch DP-SGD: each step sums a fresh Poisson
        sample, every row with probability ``q = batch_size / m``, and divides
        by ``q m``. None is the full batch. Subsampled steps are accounted by
        ``accountant``, under add/remove-one neighbouring only.
    accountant : {"pld", "rdp"}, default="pld"
        The accountant of subsampled steps (full-batch steps always use the exact
        GDP closed form), as for :class:`DPLogisticRegression`.
    clip_norm : float or "auto", default="auto"
        Per-example gradient clipping threshold ``C`` (over the ``n_features +
        1`` coordinates, intercept included). "auto": 1.0 with gradient steps
        (the default), :func:`~sklearn_dpgd.schedules.auto_clip_norm` with
        normalised steps, as for the binary classifiers. With rows of norm at
        most 1 and the scaled target, a residual of at most ``C / sqrt(2)`` is
        never clipped. The resolved value is ``clip_norm_``.
    alpha : float, default=0.0
        L2 penalty of :class:`~sklearn.linear_model.Ridge`: the objective is
        ``sum_i (y_i - x_i . w - b)^2 + alpha ||w||^2`` (intercept not
        penalised), i.e. the mean loss plus ``(alpha / m) ||w||^2 / 2`` with the
        public size ``m``, never the private ``n``. The target's scale
        multiplies both terms alike, so ``alpha`` has Ridge's meaning in the
        target's units. Public: its gradient is added without noise. 0 is
        :class:`~sklearn.linear_model.LinearRegression`'s objective.
    fit_intercept : bool, default=True
        Whether to fit an intercept, trained as one more column of the clipped
        per-example gradient. False: ``intercept_ = 0`` and the target is only
        scaled (see ``y_bounds``).
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Neighbouring relation of the guarantee: sensitivity ``clip_norm``
        (add/remove one row) or ``2 * clip_norm`` (replace one row).
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by every rule that needs a size (horizon, step size,
        clipping threshold of "auto", ``batch_size / m``, the divisor of the
        sum, the penalty ``alpha / m``). None: under add/remove it is estimated
        by a Gaussian count charged to this fit (1% of ``mu**2``); under
        "replace" the exact ``n_samples`` is public. The value used is
        ``public_n_samples_``.
    max_sample_weight : float, default=1.0
        Public bound of the ``sample_weight`` passed to ``fit``, > 0 and finite;
        the sensitivity, and the noise std, are multiplied by it.
    random_state : int, RandomState instance or None, default=None
        Seeds the noise. None draws fresh operating-system entropy for every
        fit; an int makes the noise reproducible and subtractable (debugging and
        tests only; a :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` says
        so).
    secure_mode : bool, default=False
        Draw every noise value from the operating system's cryptographically
        secure generator with samplers that resist the floating-point attacks of
        Mironov (CCS 2012); ``random_state`` is then ignored.
    verbose : int, default=0
        1: a line per tenth of the steps (privatised values only); 2 or more: a
        line per step.
    utility_diagnostics : bool, default=True
        Spend 10% of the fit's ``mu^2`` (GDP, taken from the training's share:
        ``epsilon_`` is unchanged) on noisy counts of the training rows after
        training, charged before they read a row and recorded last in
        ``ledger_``; they warn :class:`~sklearn_dpgd.exceptions.UtilityWarning`
        when surely under 30% of the rows lie farther than a tenth of the
        half-width of ``y_bounds`` from the target's mean (the bounds are far
        too wide), or the model fits surely under 45% of them better than the
        mean. Full-batch fits only (adaptive schedules run
        it on what their filter left). False gives its share to the
        training.
    solver : {"auto", "gd", "pgd"}, default="auto"
        "auto": "pgd" where it is possible and the rows are within norm 1,
        "gd" elsewhere, by a public rule and one private count (user guide,
        "Regression"). When a public setting rules "pgd" out (``max_iter`` set,
        ``schedule``, ``batch_size``, ``sample_weight``, sparse input, more than
        512 features), ``mu m`` is below 1,414 (``mu`` the fit's GDP budget,
        ``m`` the public size; Adult's 32,561 rows from epsilon 0.17 at delta
        1e-6) or ``mu m / (s w^1.5)`` below 1 (``w`` the columns plus the
        intercept, ``s`` 2 under replace-one, else 1: "pgd" lost up to 0.1
        R^2 to "gd" below it on 400 columns), the fit is "gd"'s, bit for
        bit. Otherwise a noisy count of the rows of norm above 1 (Gaussian,
        sensitivity 1 under both neighbouring relations, on 2% of ``mu^2``,
        charged before any row is read) picks
        "pgd" if at most 1% of ``m`` and "gd" otherwise, which then trains on
        the remaining 98% of ``mu^2``. ``solver_`` says which ran. On the
        tables of ``benchmarks/bench_regression_auto.py`` (one thread each, 8
        seeds) "auto" was within 0.001 R^2 of "gd" or ahead in every cell, at
        0.2-7 times :class:`~sklearn.linear_model.LinearRegression`'s time
        where "pgd" ran, against 8-58 times for "gd".
        "gd": the private gradient descent described above. "pgd": private
        preconditioned gradient descent over rows scaled to feature norm at
        most 1. The model is then that of the scaled rows, so put rows within
        norm 1 first (``Normalizer``, as in the examples): without it, on
        diabetes min-max scaled (median row norm 1.6) "pgd" lost 0.18-0.25 R^2
        to "gd", and 0.018 on a table of row norms about 1.1. One noisy Gram
        matrix ``G~`` of the rows (a tenth of the training's ``mu^2``), then
        ``max_iter`` ("auto": 40) noisy gradients, each row's clipped to
        ``clip_norm`` ("auto": 0.5 in the scaled target's units), each
        followed by the step ``(G~ + D)^{-1} g~``: the Hessian of the squared
        loss is the Gram itself, and bounds the Huber loss's (Böhning & Lindsay
        1988's curvature-bound step; the preconditioner of Ganesh, Haghifam,
        Steinke & Thakurta, NeurIPS 2023, released once), damped by ``D``, a
        public term set by the Gram's noise, plus the penalty. The mean of the
        iterates from the sixth on is released; Gaussian releases composed
        exactly in GDP (Dong, Roth & Su 2022, Cor. 3.3); 41 passes over ``X``
        instead of up to 1,000. On the benchmarks of
        ``benchmarks/bench_regression_solver.py`` its R^2 was at least that of
        "gd" minus 0.002 in every cell, at 0.9-2.5 times
        :class:`~sklearn.linear_model.LinearRegression`'s time on tables of
        24,000 rows or more, 5.5-6 times on 309 rows (one thread each; user
        guide, "Regression"). It refuses ``sample_weight``, ``schedule``,
        ``batch_size`` and more than 512 features; ``learning_rate``,
        ``momentum``, ``average``, ``normalize_steps`` and ``accountant`` are not
        used. The private searches refuse it (their budget split assumes
        "gd"'s steps) and run "auto" as "gd"."""

_REGRESSION_ATTRIBUTES = """\
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients in the target's units. Same dtype as the training ``X``.
    intercept_ : float
        Intercept in the target's units (0.0 when ``fit_intercept=False``).
    y_bounds_ : tuple of 2 floats
        The target bounds used (``y_bounds``, validated).
    solver_ : {"gd", "pgd"}
        The solver run (``solver``, with "auto" resolved).
    preconditioner_damping_ : float
        ``solver="pgd"`` only: the public damping ``lambda`` of its
        preconditioner (set by the noise of the Gram release).
    n_iter_ : int
        Number of parameter updates (private steps) taken.
    public_n_samples_ : int
        The public size every size-dependent rule used.
    clip_norm_ : float
        The clipping threshold used (``clip_norm`` with "auto" resolved).
    alpha_ : float
        The penalty strength of the mean objective, ``alpha / public_n_samples_``.
    calibration_ : None
        Always None (the classifiers' probability calibration does not apply).
    calibration_scale_ : None
        Always None.
    learning_rates_ : ndarray of shape (`n_iter_`,) or None
        Step size of each update; None for ``solver="pgd"`` (its steps are
        preconditioned, of no scalar size).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.
    schedule_ : NoiseSchedule, AdaptiveSchedule or None
        The schedule used (None for ``solver="pgd"``).
    noise_multipliers_ : ndarray of shape (n_gradients,)
        Noise std of each noisy gradient in units of the sensitivity ``Delta``
        (``solver="pgd"``: the Gram release's first, then each gradient's).
    ledger_ : tuple of GaussianSteps, SparseVectorSteps or NoisyMaxSteps
        What ran; the fit can be re-audited from it alone with
        :func:`~sklearn_dpgd.accounting.ledger_epsilon`.
    mu_ : float or None
        GDP parameter spent, for full-batch runs; None for subsampled and
        adaptive runs.
    epsilon_ : float
        Epsilon spent at ``delta_``; at most ``epsilon``.
    delta_ : float
        The delta of the guarantee."""

_FIT_DOC = """Train the model with ``(epsilon, delta)``-differential privacy.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
(n_samples, n_features)
            Training data; finite values, float32 kept as float32, sparse input
            as CSR. Rows need no bound: per-example gradients are clipped. A
            row-chunked ``dask.array.Array`` (with a dask ``y``) is trained on
            where its chunks live, with the same guarantee.
        y : array-like or dask array of shape (n_samples,)
            Real target; clipped to ``y_bounds``.
        coef_init : array-like of shape (n_features,), default=None
            Public starting point of the coefficients, in the target's units; it
            must not be computed from the private data (unless it is a private
            release whose budget you count). None starts from zero.
        intercept_init : array-like of shape (1,), default=None
            Public starting point of the intercept, in the target's units. None
            starts at the centre of ``y_bounds``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row, in ``[0, max_sample_weight]``: its clipped
            gradient is multiplied by it, and the noise is calibrated to the
            public bound. Not supported with adaptive schedules. With dask
            ``X``, a dask array (or an array, chunked like ``X``).

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range; ``y_bounds`` is None, not two finite
            numbers or not increasing; ``X`` is empty, has fewer than 2 rows or
            holds NaN, inf or strings; ``y`` is not 1-D, not numeric or not
            finite; the
            lengths differ; ``coef_init`` or ``intercept_init`` has the wrong
            shape; ``sample_weight`` is out of its bound or given with an
            adaptive schedule.
        TypeError
            If a parameter has a wrong type, or only one of ``X`` and ``y`` is
            a dask array.

        Warns
        -----
        PrivacyLeakWarning
            If ``random_state`` fixes the noise (not None, without
            ``secure_mode``).
        WeakPrivacyWarning
            If ``delta >= 1 / public_n_samples_``.
        """
