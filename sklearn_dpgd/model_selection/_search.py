"""The private searches, re-exported by :mod:`sklearn_dpgd.model_selection`."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from .._engine._randomness import make_generator
from .._sklearn_compat import Interval
from ..accounting import gdp_epsilon
from ..pipeline import PrivatePipeline
from ._grids import (
    DEFAULT_RADIUS_FACTORS,
    _check_default_grid_estimator,
    default_grids,
    grid_cv_results,
    grid_estimator,
)
from ._search_base import _BasePrivateSearch

# Parameters a search sets itself (budget, size, randomness) or that would break
# its accounting.
_RESERVED = (
    "epsilon",
    "delta",
    "batch_size",
    "neighboring",
    "public_n_samples",
    "random_state",
    "secure_mode",
)


_SEARCH_ATTRIBUTES = """\
    best_params_ : dict
        The parameters ``best_estimator_`` was refit with:
        ``cv_results_["params"][best_index_]``, or, for a search whose candidates
        are resolved again for the refit (the default grid of
        :class:`PrivateGridSearchCV`), ``cv_results_["refit_params"][best_index_]``.
    best_estimator_ : estimator
        The chosen configuration refit on all rows with the refit's share of the
        budget.
    epsilon_ : float
        The whole search's spend at ``delta_`` (candidate fits, comparisons and
        refit, composed exactly by ``ledger_``); at most ``epsilon``.
    delta_ : float
        The delta of the guarantee.
    ledger_ : PrivacyLedger
        Every mechanism the search ran (the size count, if any, the candidate
        fits, the comparisons and the refit), each tagged with the part of the
        rows it read ("train", "validation", or None for all rows); ``epsilon_``
        is ``ledger_.epsilon(delta_)``.
    public_n_samples_ : int
        The public size ``m`` of the search: ``public_n_samples``, ``n_samples``
        under ``neighboring="replace"``, or the noisy (charged) count. The
        candidates used ``round((1 - validation_fraction) m)``, the refit ``m``.
    classes_ : ndarray of shape (n_classes,)
        Class labels of ``best_estimator_`` (classifiers only).
    n_features_in_ : int
        Number of features seen during fit."""


class PrivateGridSearchCV(_BasePrivateSearch):
    __doc__ = """Grid search whose fits *and* whose choice of the winner are private.

    Every candidate of ``param_grid`` is trained on the train part of a public
    random split with an equal share of the budget, the winner is chosen by
    report-noisy-max of the validation accuracy counts (exponential mechanism,
    pure DP; for a regressor, of the sum of the per-row scores
    ``1 - ((p_i - y_i) / (high - low))^2`` clipped to its ``y_bounds``, each in
    [0, 1], so the same sensitivity 1; ``_selection.validation_score``), and
    refit on all rows with the refit's share. The procedure as a
    whole is ``(epsilon, delta)``-DP under the estimator's neighbouring relation
    (see :mod:`sklearn_dpgd.model_selection`): with ``mu`` the GDP parameter of
    ``(epsilon, delta)``, the refit gets ``mu_r^2 = refit_share * mu^2``, each of
    the ``k`` candidates ``(1 - refit_share) mu^2 / k`` (so a train row pays
    exactly ``mu``; Dong, Roth & Su 2022, Cor. 3.3), and the comparison the
    largest pure ``epsilon_select`` that, composed with the refit, still meets
    ``(epsilon, delta)`` for a validation row (dp-accounting's PLD).

    Unlike :class:`~sklearn.model_selection.GridSearchCV`, no score of a candidate
    is exposed: ``cv_results_`` holds the candidates and which one won.

    Parameters
    ----------
    estimator : estimator object
        A private estimator whose fit is a recorded full-batch Gaussian mechanism
        (see :mod:`sklearn_dpgd.model_selection`), e.g.
        :class:`~sklearn_dpgd.DPLogisticRegression` with ``solver="gd"`` or
        the default ``"auto"`` (which the search runs as "gd"), a
        non-adaptive schedule and ``batch_size=None``; its ``epsilon``,
        ``delta``, ``public_n_samples``, ``random_state`` and ``secure_mode`` are
        set by the search. Preprocessing must not be fitted on the private data
        (pass fixed bounds). A plain scikit-learn ``Pipeline`` whose steps are
        all private or row-wise is tuned as the
        :class:`~sklearn_dpgd.pipeline.PrivatePipeline` of its steps (the budget
        split of :func:`~sklearn_dpgd.pipeline.make_private_pipeline`;
        ``best_estimator_`` is then that ``PrivatePipeline``); one with a step
        that reads the data without a mechanism is refused, naming the step.
    param_grid : dict, list of dicts or None, default=None
        As in scikit-learn's ``GridSearchCV``; must not name ``epsilon``,
        ``delta``, ``batch_size``, ``neighboring``, ``public_n_samples``,
        ``random_state`` or ``secure_mode``. None: the default grid, for the
        linear classifiers of this package (regressors need a grid) with
        ``learning_rate="auto"``, ``max_iter="auto"``, ``schedule=None`` and
        ``solver="gd"`` or ``"auto"``: the automatic horizon with 1, 4 and 16
        times the automatic step (``DEFAULT_RADIUS_FACTORS`` of the default noisy radius
        ``learning_rate * max_iter``; factor 1 *is* the untuned default), the
        longest walk without the L2 penalty (``DEFAULT_ALPHAS``: ``alpha=0``
        where the estimator's ``alpha`` is "auto"), built by
        :func:`default_candidates` from public quantities only. The winning
        factor ``f`` is refit as ``1 + (f - 1) mu_c / mu_r`` (``mu_c``, ``mu_r``:
        the GDP budgets of a candidate and of the refit), carrying it to the
        refit's budget under the linear rule of Panda et al. (ICML 2024, Sec.
        2.2): a factor chosen with a small budget overshoots otherwise. For a
        ``Pipeline`` or ``PrivatePipeline`` whose final step is such a
        classifier, the grid of that step (keys ``<step>__learning_rate``, ...)
        at its share of each budget: the untuned default is fitted first, and the
        width of the rows its fitted final step saw (a function of the private
        preprocessing's release, no extra cost) shapes the other candidates.
    epsilon : float, default=1.0
        Total privacy budget of the whole search, > 0.
    delta : float, default=1e-8
        In (0, 1); much smaller than ``1 / n_samples``.
    refit_share : float, default=0.85
        Fraction of ``mu^2`` given to the refit, in (0, 1); the candidates
        share the rest equally. 0.85 was the better of 0.6, 0.75, 0.85 and 0.9
        with the default grid on ``benchmarks/bench_tuning_new_data.py`` (four
        data sets, total epsilon 1 and 2): a search only pays off if the refit
        keeps most of the budget.
    validation_fraction : float, default=0.2
        Probability that a row goes to the validation part, in (0, 1): each row's
        side is an independent coin (see :mod:`sklearn_dpgd.model_selection`),
        so the parts have random sizes.
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by the search and, as the expected part sizes, by every
        candidate and the refit (their ``public_n_samples`` is set by the
        search). None: under ``neighboring="add_remove"`` it is estimated by a
        Gaussian count charged to the search's budget (1% of ``mu**2``); under
        ``"replace"`` the exact ``n_samples`` is public and used.
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the candidates' noise, the comparison and the refit.
        None draws 128 bits of fresh operating-system entropy (and every fit
        draws its own). An int or a ``RandomState`` makes the whole search
        reproducible and its noise subtractable by anyone who knows the seed:
        for debugging and tests only; it raises one
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    secure_mode : bool, default=False
        Draw the search's noise (the count, the comparison) from the operating
        system's cryptographically secure generator, and set ``secure_mode=True``
        on every candidate and the refit; ``random_state`` is then ignored.
    cv : None, default=None
        Accepted for scikit-learn's spelling and refused for any other value:
        the search does not cross-validate (k folds would make each candidate
        read every row k times: k times the cost, or k times the noise). It makes
        one random disjoint split, ``validation_fraction``, where each row pays
        for one side only.
    n_jobs : int or None, default=None
        Candidates fitted at a time (joblib; None is 1, -1 every core). The
        seeds are drawn before, so the fits, ``ledger_`` and the result equal
        ``n_jobs=1``'s. Each fit records into a scratch ledger in its thread or
        worker process and sends the entries back; the search copies them into
        ``ledger_`` after checking each against its budget (the user's open
        ledgers were charged for the whole search up front). Warnings of fits in
        worker processes stay in those processes.

    Attributes
    ----------
%(attributes)s
    best_index_ : int
        Index of the chosen candidate in ``cv_results_["params"]``.
    cv_results_ : dict of ndarrays
        ``"params"`` (list of dicts), ``"param_<name>"`` per grid parameter,
        ``"selected"`` (bool) and ``"candidate_epsilon"`` (each candidate fit's
        epsilon); with the default grid also ``"param_radius_factor"`` and
        ``"refit_radius_factor"`` (the factor each candidate would be refit
        with) and ``"refit_params"`` (the parameters each candidate would be
        refit with, at the refit's budget and size: ``best_params_`` is
        ``cv_results_["refit_params"][best_index_]``). No scores, ranks or fit
        times: each is a function of private rows (only the chosen index is
        released, through the private comparison), so there is no
        ``best_score_`` either; score ``best_estimator_`` on a test set you do
        not release.
    selection_epsilon_ : float
        Pure epsilon of the report-noisy-max comparison.

    Raises
    ------
    ValueError
        If ``cv`` is not None; if ``estimator`` is a ``Pipeline`` with a step
        that fits without a privacy mechanism; if ``param_grid`` names a reserved
        parameter, or is None for an
        estimator that does not use the "auto" rules; if a candidate's fit is not
        a recorded full-batch Gaussian mechanism (``solver="snowball"``, an
        adaptive schedule, ``batch_size``; see
        :mod:`sklearn_dpgd.model_selection`), raised before any data is read; or
        if a part of the split would be empty.
    TypeError
        If ``estimator`` is not a private estimator of this package (with
        ``param_grid=None``: not one of its linear models).

    See Also
    --------
    LinearScalingSearch : Tunes (learning rate, steps) by private extrapolation.
    default_candidates : The default grid at one budget and public shape.
    sklearn_dpgd.accounting.PrivacyLedger : Shows the spend of a plain
        ``GridSearchCV`` over private fits.

    Notes
    -----
    The whole search is charged to the open
    :class:`~sklearn_dpgd.accounting.PrivacyLedger` s as one
    ``(epsilon_, delta_)`` record. With a size count (add/remove, no
    ``public_n_samples``), ``mu^2`` above is what is left after the count's 1%.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.model_selection import PrivateGridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> search = PrivateGridSearchCV(
    ...     DPLogisticRegression(classes=[0, 1], max_iter=20),
    ...     {"learning_rate": [0.5, 2.0]}, epsilon=1.0, delta=1e-6, random_state=0,
    ... ).fit(X, y)
    >>> bool(search.epsilon_ <= 1.0)
    True

    Without a grid, the default one (the untuned default and 4 and 16 times its
    noisy radius):

    >>> search = PrivateGridSearchCV(
    ...     DPLogisticRegression(classes=[0, 1]), epsilon=1.0, delta=1e-6,
    ...     random_state=0,
    ... ).fit(X, y)
    >>> [float(f) for f in search.cv_results_["param_radius_factor"]]
    [1.0, 4.0, 16.0]
    """.replace("%(attributes)s", _SEARCH_ATTRIBUTES)

    _needed_params = ()

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_grid": [dict, list, None],
        "refit_share": [Interval(Real, 0, 1, closed="neither")],
        "cv": "no_validation",
    }

    _tunes_regressors = True

    def __init__(
        self,
        estimator,
        param_grid=None,
        *,
        epsilon=1.0,
        delta=1e-8,
        refit_share=0.85,
        validation_fraction=0.2,
        public_n_samples=None,
        random_state=None,
        secure_mode=False,
        cv=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.param_grid = param_grid
        self.cv = cv
        self.epsilon = epsilon
        self.delta = delta
        self.refit_share = refit_share
        self.validation_fraction = validation_fraction
        self.public_n_samples = public_n_samples
        self.random_state = random_state
        self.secure_mode = secure_mode

    def fit(self, X, y, sample_weight=None):
        """Run the private search and refit the winner on all rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, as the estimator takes it.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, passed (split with the rows) to every candidate's
            and the refit's ``fit`` (to the final step's for a pipeline), as
            scikit-learn's ``GridSearchCV`` routes fit parameters. They must lie
            in ``[0, max_sample_weight]``, the estimator's public bound, the same
            for every candidate; each fit scales its sensitivity by it, so a
            weighted fit is charged the same budget. The comparison ignores them:
            it counts unweighted correct predictions on the validation rows (as
            scikit-learn's default scorer, without metadata routing).

        Returns
        -------
        self : object
            The fitted search.

        Raises
        ------
        ValueError
            If a parameter is invalid or a candidate is not a recorded Gaussian
            mechanism (see the class docstring), or ``sample_weight`` is given and
            a candidate takes no weights, the candidates' ``max_sample_weight``
            differ, or a weight is outside ``[0, max_sample_weight]``; nothing is
            charged or read then.
        TypeError
            If ``estimator`` is not a private estimator of this package.
        BudgetExhaustedError
            If an open capped ledger cannot pay for the whole search (nothing is
            read then).

        Warns
        -----
        PrivacyLeakWarning
            Once, if ``random_state`` is not None (and ``secure_mode`` is False).
        UserWarning
            If the estimator's ``epsilon`` was set and differs from the search's,
            which replaces it.
        UtilityWarning
            Once for all candidate fits that warned one (they are shown as one
            summary, not one per fit), and the refit's own.
        """
        self._validate_params()
        if self.cv is not None:
            raise ValueError(
                f"cv={self.cv!r}: {type(self).__name__} does not cross-validate. "
                "With k folds every row would be scored in one fold and trained on "
                "in k - 1, so each candidate's k fits and k comparisons would all "
                "read it: k times the candidates' cost, or k times the noise for the "
                "same budget. The search makes one random disjoint split instead "
                "(validation_fraction of the rows by independent coins), where a row "
                "pays for one side only (parallel composition). Leave cv=None and "
                "set validation_fraction."
            )
        default_grid, candidates = self._planned_candidates()
        neighboring = self._check_estimator(candidates)
        self._warn_replaced_budget()
        weights = self._check_sample_weight(sample_weight, X, candidates)
        k = len(candidates)
        mu, mu_available, mu_refit, count_noise, eps_select = self._plan(
            float(self.refit_share), neighboring
        )
        delta = float(self.delta)
        mu_candidate = math.sqrt((mu_available**2 - mu_refit**2) / k)
        eps_candidate = gdp_epsilon(mu_candidate, delta)
        eps_refit = gdp_epsilon(mu_refit, delta)

        X, y, charge, seeds, (X_tr, y_tr, X_val, y_val, w_tr) = self._start(
            X, y, neighboring, count_noise, weights
        )
        budgets = (eps_candidate, mu_candidate, eps_refit, mu_refit)
        models, candidates, refit_factors, refit_grid = self._fit_grid(
            default_grid, candidates, budgets, X, y, (X_tr, y_tr, w_tr), seeds
        )
        best = self._private_selection(
            models,
            X_val,
            y_val,
            eps_select,
            neighboring,
            make_generator(seeds.selection, self.secure_mode),
        )
        self.best_index_ = best
        self.selection_epsilon_ = eps_select
        self.cv_results_ = grid_cv_results(
            candidates, best, eps_candidate, refit_factors, refit_grid
        )
        params = refit_grid[best] if default_grid else candidates[best]
        self._finish(charge, X, y, params, eps_refit, seeds, weights)
        return self

    def _fit_grid(self, default_grid, candidates, budgets, X, y, train, seeds):
        """Resolve the default grid (if any) and fit the candidates on ``train``.

        Returns ``(models, candidates, refit_factors, refit_grid)``; the last
        two are None for an explicit grid.
        """
        X_tr, y_tr, w_tr = train
        eps_candidate = budgets[0]
        size = self._train_public_size()
        refit_factors = refit_grid = None
        notes, first = [], []
        if default_grid and isinstance(self._tuned(), PrivatePipeline):
            # The width of the final step's rows is set by the preprocessing: the
            # untuned default (factor 1, the "auto" rules) is fitted first, and
            # its (private) fitted final step tells it.
            first = self._fit_candidates(
                [{}], X_tr, y_tr, eps_candidate, seeds, size, w_tr, notes
            )
            width = first[0].steps[-1][1].n_features_in_
            candidates, refit_factors, refit_grid = self._default_grids(
                X, y, budgets, size, width
            )
        elif default_grid:
            candidates, refit_factors, refit_grid = self._default_grids(
                X, y, budgets, size
            )
        rest = candidates[len(first) :]
        models = first + self._fit_candidates(
            rest, X_tr, y_tr, eps_candidate, seeds, size, w_tr, notes
        )
        self._warn_candidate_utility(notes, eps_candidate, stacklevel=5)
        return models, candidates, refit_factors, refit_grid

    def _planned_candidates(self):
        """``(default_grid, candidates)`` checked before any data is read.

        With the default grid the candidates are placeholders, resolved later
        from public quantities only: the factors change the step and the
        horizon, not how a fit is accounted.
        """
        default_grid = self.param_grid is None
        if default_grid:
            _check_default_grid_estimator(
                grid_estimator(self._tuned()), type(self).__name__
            )
            candidates = [{} for _ in DEFAULT_RADIUS_FACTORS]
        else:
            candidates = list(ParameterGrid(self.param_grid))
        reserved = sorted({k for c in candidates for k in c} & set(_RESERVED))
        if reserved:
            raise ValueError(
                f"param_grid must not set {reserved}: the search sets the budget "
                "and one neighbouring relation for all fits."
            )
        if not candidates:
            raise ValueError("param_grid must hold at least one candidate.")
        return default_grid, candidates

    def _default_grids(self, X, y, budgets, train_size, width=None):
        """The default grid's candidates, refit factors and refit parameters.

        ``budgets``: ``(epsilon, mu)`` of a candidate, then of the refit; only
        public quantities are read (see :meth:`_public_shape`), and for a
        pipeline the ``width`` of its final step's rows (a private release).
        """
        n_features, n_classes = self._public_shape(X, y)
        estimator = self.estimator if width is None else clone(self._tuned())
        return default_grids(
            estimator,
            budgets,
            float(self.delta),
            (train_size, self.public_n_samples_),
            n_features if width is None else width,
            n_classes,
        )


class LinearScalingSearch(_BasePrivateSearch):
    __doc__ = """Tune (learning rate, steps) by private extrapolation of the radius.

    The rule of Panda et al. ("A new linear scaling rule for private adaptive
    hyperparameter optimization", ICML 2024, Sec. 2.1-2.2 and eq. (1)):
    for noisy gradient descent the excess risk is governed by the *noisy radius*
    ``r = learning_rate * max_iter``, and the best radius grows about linearly in
    the budget of the run. Two cheap private random searches, at candidate
    budgets ``epsilon_1 < epsilon_2``, each sample ``n_candidates`` pairs
    (learning rate, steps) log-uniformly from the given ranges and pick the best by
    report-noisy-max on the validation part; their winners give
    ``r_1, r_2``. The line ``r(e) = m e + b`` through ``(epsilon_1, r_1)`` and
    ``(epsilon_2, r_2)`` (the first-order Taylor approximation of Sec. 2.2) is read
    at the final fit's epsilon, with the slope clipped at 0 (a deviation: the
    best radius does not shrink with more budget, so a negative slope is noise of
    the private winners), clipped to the radii the ranges allow, and split
    into steps ``max_iter = round(r / learning_rate)`` at the learning rate of the
    second search's winner (clipped to ``max_iter_range``; the learning rate is
    then ``r / max_iter``). The final fit runs on all rows.

    Assumptions (Sec. 1.1 of the paper): a strongly convex, smooth, Lipschitz loss
    (here made Lipschitz by clipping), with all other hyperparameters fixed; the
    line is a heuristic outside that setting. Budget: with ``mu`` the GDP
    parameter of ``(epsilon, delta)``, search ``i`` gets ``search_fractions[i]``
    of ``mu^2`` split equally among its candidates (so ``epsilon_i`` is each
    candidate fit's epsilon), the final fit the rest; both comparisons share a
    pure epsilon found as in :class:`PrivateGridSearchCV`. The paper composes its
    searches with RDP (Thm 2.3); here every fit is a full-batch Gaussian
    mechanism and composes exactly in GDP.

    Step by step against the paper:

    - *Reduction* (Sec. 2.1, eq. (1)): the radius bound
      ``E||w_T - w_Tb|| <= (T eta) sqrt(d) / (1 - c)`` makes ``r = eta T`` the one
      quantity to tune; as in the paper, all other hyperparameters stay fixed.
    - *Candidates*: random search over ``(eta, T)`` in one fixed space at both
      budgets, as the paper's; here log-uniform over ``learning_rate_range`` x
      ``max_iter_range``. Centring the space on the automatic rules at each
      run's budget was tried and dropped: it builds in the budget scaling that
      the line is there to estimate, and it lost on three of the four data sets
      of ``benchmarks/bench_tuning_new_data.py``.
    - *Budget split*: the paper evaluates its two points at fixed run budgets
      (``epsilon_1 = 0.1``, ``epsilon_2 = 0.2``, Sec. 2.2) and gives the final
      run what its composition leaves (Thm 2.3). Fixed run budgets cannot fit
      every total budget, so here they are fractions of ``mu^2``
      (``search_fractions``, split among the candidates): ``epsilon_1`` and
      ``epsilon_2`` are the candidates' epsilons, and the final run gets the
      rest.
    - *Line* (Sec. 2.2): ``r(epsilon_f) = m epsilon_f + b`` through the two
      winners, the first-order Taylor polynomial, as in the paper; deviation:
      the slope is clipped at 0.
    - *Decomposition* (Sec. 2.2): the paper samples ``(eta, T)`` until their
      product is close to ``r``; here ``eta`` of the second winner and
      ``T = r / eta`` (deterministic, the same product up to the clipping).
    - *Selection* (Sec. 1.2): the paper picks the candidate with the lowest
      validation loss; here report-noisy-max of the validation accuracy counts
      (sensitivity 1, monotone under add/remove: pure DP), as the loss is not
      bounded.

    Parameters
    ----------
    estimator : estimator object
        A private estimator with ``learning_rate`` and ``max_iter`` whose fit is a
        recorded full-batch Gaussian mechanism (see
        :mod:`sklearn_dpgd.model_selection`; a schedule without its own horizon).
    epsilon : float, default=1.0
        Total privacy budget, > 0.
    delta : float, default=1e-8
        In (0, 1).
    n_candidates : int, default=6
        Random candidates per search, >= 1.
    search_fractions : tuple of two floats, default=(0.1, 0.2)
        Fractions of ``mu^2`` of the two searches, each > 0, increasing, summing
        to less than 1 (the paper's ``epsilon_1 = 0.1``, ``epsilon_2 = 0.2``).
    learning_rate_range : tuple of two floats, default=(0.1, 10.0)
        Bounds of the log-uniform learning rates, 0 < low < high.
    max_iter_range : tuple of two ints, default=(5, 1000)
        Bounds of the log-uniform numbers of steps, 1 <= low < high.
    validation_fraction : float, default=0.2
        Probability that a row goes to the validation part, in (0, 1): each row's
        side is an independent coin (see :mod:`sklearn_dpgd.model_selection`),
        so the parts have random sizes.
    public_n_samples : int or None, default=None
        A number of rows declared public (>= 2), used instead of the private
        ``n_samples`` by the search and, as the expected part sizes, by every
        candidate and the refit (their ``public_n_samples`` is set by the
        search). None: under ``neighboring="add_remove"`` it is estimated by a
        Gaussian count charged to the search's budget (1% of ``mu**2``); under
        ``"replace"`` the exact ``n_samples`` is public and used.
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the candidates, the noise and the comparisons.
        None draws 128 bits of fresh operating-system entropy (and every fit
        draws its own). An int or a ``RandomState`` makes the whole search
        reproducible and its noise subtractable by anyone who knows the seed:
        for debugging and tests only; it raises one
        :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    secure_mode : bool, default=False
        Draw the search's noise (the count, the comparison) from the operating
        system's cryptographically secure generator, and set ``secure_mode=True``
        on every candidate and the refit; ``random_state`` is then ignored.
    n_jobs : int or None, default=None
        Candidates fitted at a time (joblib; None is 1, -1 every core). The
        seeds are drawn before, so the fits, ``ledger_`` and the result equal
        ``n_jobs=1``'s. Each fit records into a scratch ledger in its thread or
        worker process and sends the entries back; the search copies them into
        ``ledger_`` after checking each against its budget (the user's open
        ledgers were charged for the whole search up front). Warnings of fits in
        worker processes stay in those processes.

    Attributes
    ----------
%(attributes)s
    radius_points_ : ndarray of shape (2, 2)
        Rows ``(epsilon_i, r_i)``: each search's candidate epsilon and the radius
        of its private winner.
    slope_ : float
        Slope ``m`` of the line (after clipping at 0), in radius per unit of
        epsilon.
    radius_ : float
        The extrapolated radius used for the final fit (after clipping).
    selection_epsilon_ : float
        Pure epsilon of both comparisons together.

    Raises
    ------
    ValueError
        If a range or ``search_fractions`` is invalid, or the estimator's fit is
        not a recorded full-batch Gaussian mechanism (``solver="snowball"``, an
        adaptive schedule, ``batch_size``), raised before any data is read.
    TypeError
        If ``estimator`` lacks ``learning_rate``, ``max_iter``, ``epsilon``,
        ``delta``, ``public_n_samples``, ``random_state`` or ``secure_mode``.

    See Also
    --------
    PrivateGridSearchCV : Private selection over an explicit grid.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_dpgd import DPLogisticRegression
    >>> from sklearn_dpgd.model_selection import LinearScalingSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> search = LinearScalingSearch(
    ...     DPLogisticRegression(classes=[0, 1]), epsilon=1.0, delta=1e-6,
    ...     n_candidates=3, max_iter_range=(5, 50), random_state=0,
    ... ).fit(X, y)
    >>> sorted(search.best_params_)
    ['learning_rate', 'max_iter']
    """.replace("%(attributes)s", _SEARCH_ATTRIBUTES)

    _needed_params = ("learning_rate", "max_iter")

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "search_fractions": [tuple, list],
        "learning_rate_range": [tuple, list],
        "max_iter_range": [tuple, list],
    }

    def __init__(
        self,
        estimator,
        *,
        epsilon=1.0,
        delta=1e-8,
        n_candidates=6,
        search_fractions=(0.1, 0.2),
        learning_rate_range=(0.1, 10.0),
        max_iter_range=(5, 1000),
        validation_fraction=0.2,
        public_n_samples=None,
        random_state=None,
        secure_mode=False,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates = n_candidates
        self.search_fractions = search_fractions
        self.learning_rate_range = learning_rate_range
        self.max_iter_range = max_iter_range
        self.validation_fraction = validation_fraction
        self.public_n_samples = public_n_samples
        self.random_state = random_state
        self.secure_mode = secure_mode

    def _check_ranges(self):
        fractions = tuple(float(f) for f in self.search_fractions)
        if (
            len(fractions) != 2
            or not 0 < fractions[0] < fractions[1]
            or not sum(fractions) < 1
        ):
            raise ValueError(
                "search_fractions must be two increasing fractions > 0 summing to "
                f"less than 1, got {self.search_fractions!r}."
            )
        lr = tuple(float(v) for v in self.learning_rate_range)
        if len(lr) != 2 or not 0 < lr[0] < lr[1] or not math.isfinite(lr[1]):
            raise ValueError(
                "learning_rate_range must be (low, high) with 0 < low < high, got "
                f"{self.learning_rate_range!r}."
            )
        it = tuple(self.max_iter_range)
        if (
            len(it) != 2
            or not all(isinstance(v, Integral) and not isinstance(v, bool) for v in it)
            or not 1 <= it[0] < it[1]
        ):
            raise ValueError(
                "max_iter_range must be two integers (low, high) with 1 <= low < "
                f"high, got {self.max_iter_range!r}."
            )
        return fractions, lr, (int(it[0]), int(it[1]))

    def fit(self, X, y, sample_weight=None):
        """Run both private searches, extrapolate the radius, fit on all rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, as the estimator takes it.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, passed (split with the rows) to every candidate's
            and the refit's ``fit`` (to the final step's for a pipeline), as
            scikit-learn's ``GridSearchCV`` routes fit parameters. They must lie
            in ``[0, max_sample_weight]``, the estimator's public bound, the same
            for every candidate; each fit scales its sensitivity by it, so a
            weighted fit is charged the same budget. The comparison ignores them:
            it counts unweighted correct predictions on the validation rows (as
            scikit-learn's default scorer, without metadata routing).

        Returns
        -------
        self : object
            The fitted search.

        Raises
        ------
        ValueError
            If a parameter is invalid (see the class docstring), or
            ``sample_weight`` is given and the estimator takes no weights or a
            weight is outside ``[0, max_sample_weight]`` (before any charge).
        TypeError
            If ``estimator`` lacks a needed parameter.
        BudgetExhaustedError
            If an open capped ledger cannot pay for the whole search.

        Warns
        -----
        PrivacyLeakWarning
            Once, if ``random_state`` is not None (and ``secure_mode`` is False).
        """
        self._validate_params()
        fractions, lr_range, it_range = self._check_ranges()
        m = int(self.n_candidates)
        delta = float(self.delta)
        # Only learning_rate and max_iter vary, which do not change how a fit is
        # accounted: the estimator as given is checked.
        neighboring = self._check_estimator([{}])
        self._warn_replaced_budget()
        weights = self._check_sample_weight(sample_weight, X, [{}])
        mu, mu_available, mu_final, count_noise, eps_select = self._plan(
            1.0 - sum(fractions), neighboring
        )
        eps_candidates = [
            gdp_epsilon(math.sqrt(f / m) * mu_available, delta) for f in fractions
        ]
        eps_final = gdp_epsilon(mu_final, delta)

        X, y, charge, seeds, (X_tr, y_tr, X_val, y_val, w_tr) = self._start(
            X, y, neighboring, count_noise, weights
        )
        train_size = self._train_public_size()
        # The candidates are public choices: drawn from their own seed, not noise.
        sampler = np.random.default_rng(seeds.sampling)
        selection_rng = make_generator(seeds.selection, self.secure_mode)
        winners = []
        for eps_c in eps_candidates:
            candidates = self._sample_candidates(sampler, m, lr_range, it_range)
            models = self._fit_candidates(
                candidates, X_tr, y_tr, eps_c, seeds, train_size, w_tr
            )
            # Each comparison spends half of the comparisons' pure epsilon (basic
            # composition: eps_select / 2 twice is eps_select).
            best = self._private_selection(
                models, X_val, y_val, eps_select / 2, neighboring, selection_rng
            )
            winners.append(candidates[best])
        params = self._extrapolate(
            winners, eps_candidates, eps_final, lr_range, it_range
        )
        self.selection_epsilon_ = eps_select
        self._finish(charge, X, y, params, eps_final, seeds, weights)
        return self

    @staticmethod
    def _sample_candidates(sampler, m, lr_range, it_range):
        """``m`` pairs (learning rate, steps), log-uniform in the ranges."""
        log_lr = np.log(lr_range)
        log_it = np.log([it_range[0], it_range[1] + 1])
        lrs = np.exp(sampler.uniform(*log_lr, size=m))
        its = np.clip(np.floor(np.exp(sampler.uniform(*log_it, size=m))), *it_range)
        return [
            {"learning_rate": float(a), "max_iter": int(t)}
            for a, t in zip(lrs, its, strict=True)
        ]

    def _extrapolate(self, winners, eps_candidates, eps_final, lr_range, it_range):
        """The final fit's parameters from the line through the two winners.

        Sets ``radius_points_``, ``slope_`` and ``radius_``; reads public values
        (the private winners) only.
        """
        radii = [w["learning_rate"] * w["max_iter"] for w in winners]
        slope = (radii[1] - radii[0]) / (eps_candidates[1] - eps_candidates[0])
        # The optimal radius does not shrink as the budget grows (Sec. 2.1: less
        # noise allows a longer walk); a negative slope is noise of the two
        # private winners, and extrapolating it far would be catastrophic.
        slope = max(slope, 0.0)
        radius = radii[1] + slope * (eps_final - eps_candidates[1])
        radius = float(
            np.clip(radius, lr_range[0] * it_range[0], lr_range[1] * it_range[1])
        )
        learning_rate = winners[1]["learning_rate"]
        max_iter = int(np.clip(round(radius / learning_rate), *it_range))
        learning_rate = float(np.clip(radius / max_iter, *lr_range))
        self.radius_points_ = np.column_stack([eps_candidates, radii])
        self.slope_ = slope
        self.radius_ = radius
        return {"learning_rate": learning_rate, "max_iter": max_iter}
