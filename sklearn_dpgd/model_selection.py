"""Private hyperparameter selection: every fit and every comparison is paid for.

Tuning a private model on private data leaks twice: each candidate fit spends
budget, and choosing the best candidate by its score on private rows is itself a
release. :class:`PrivateGridSearchCV` and :class:`LinearScalingSearch` pay for
both, and report the whole procedure's spend as ``epsilon_``.

Both searches use one split of the rows drawn from ``random_state`` alone (never
from the data): candidates train on the *train* part, are compared on the
*validation* part, and the chosen configuration is refit on all rows. The
neighbouring relation is the estimator's (add/remove one row, or replace one row)
with every row keeping its part, so a row of the train part pays for the
candidate fits and the refit, a row of the validation part for the comparisons
and the refit, and the search is private at the larger of the two (parallel
composition; McSherry, SIGMOD 2009). The comparison is report-noisy-max of the
validation accuracy counts (the exponential mechanism of McSherry & Talwar, FOCS
2007, sampled with the Gumbel-max trick; Durfee & Rogers, NeurIPS 2019): each
count changes by at most one between neighbours, and under add/remove all counts
move in the same direction (a monotone utility), so Gumbel noise of scale
``1 / epsilon_select`` is ``epsilon_select``-DP (Dwork & Roth 2014, Thm 3.10 and
the remark after it; scale ``2 / epsilon_select`` under replace-one). Only the
chosen index is released, never the noisy scores.

This differs from the random-stopping method of Papernot & Steinke ("Hyperparameter
tuning with Renyi differential privacy", ICLR 2022), which trains each candidate
on all rows and pays a constant factor over one run: here the candidates see only
the train part, so their fits and the comparison are paid by disjoint rows.
"""

import functools
import math
from numbers import Integral, Real

import numpy as np
from scipy.optimize import brentq
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import _safe_indexing, check_random_state, indexable
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from .accounting import (
    _ACTIVE_LEDGERS,
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    PrivacyLedger,
    _charge_active_ledgers,
    _compose_entries,
    _ledger_guard_state,
    gdp_epsilon,
    gdp_mu,
)

__all__ = ["LinearScalingSearch", "PrivateGridSearchCV"]

# Parameters a search sets itself (budget) or that would break its accounting.
_RESERVED = ("epsilon", "delta", "batch_size", "neighboring")
# Relative slack below the target when calibrating the comparisons' epsilon, so
# that the reported spend, recomputed from the ledger, stays below the target.
_SELECTION_MARGIN = 1e-9


@functools.lru_cache(maxsize=256)
def _selection_epsilon(mu_refit, epsilon, delta):
    """Largest pure epsilon a comparison may spend next to a ``mu_refit``-GDP refit.

    The validation rows pay for the comparison and the refit: find ``e`` such
    that ``e``-DP composed with ``mu_refit``-GDP is ``(epsilon, delta)``-DP, by
    the exact composition of the ledger and Brent's method.
    """
    refit = LedgerEntry((GaussianSteps(1.0 / mu_refit),))
    target = epsilon * (1.0 - _SELECTION_MARGIN)

    def spent(e):
        return _compose_entries(
            [LedgerEntry(EpsilonDeltaRecord(e)), refit], delta, "auto"
        )

    if spent(1e-9) >= target:
        raise ValueError(
            "the refit alone spends the whole budget; lower refit_share so that "
            "the comparison of candidates can be paid for."
        )
    e = brentq(lambda e: spent(e) - target, 1e-9, epsilon, xtol=1e-9, rtol=1e-9)
    while spent(e) > target:
        e *= 1.0 - 1e-6
    return e


class _BasePrivateSearch(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Split, private candidate fits, report-noisy-max, refit: shared machinery."""

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    def _check_estimator(self, extra=()):
        params = self.estimator.get_params(deep=False)
        missing = [p for p in ("epsilon", "delta", *extra) if p not in params]
        if missing:
            raise TypeError(
                "estimator must be a private estimator of this package with "
                f"parameters {missing} (e.g. DPLogisticRegression); got "
                f"{type(self.estimator).__name__}."
            )
        if params.get("batch_size") is not None:
            raise ValueError(
                "estimator.batch_size must be None: the search splits its budget "
                "by the exact closed form of full-batch Gaussian steps."
            )
        if not np.isfinite(self.epsilon):
            raise ValueError(f"epsilon must be finite, got {self.epsilon!r}.")
        return params.get("neighboring", "add_remove")

    def _split(self, n_samples, rng):
        """Indices of the train and validation parts: public, from ``rng`` only."""
        n_val = int(round(self.validation_fraction * n_samples))
        if not 1 <= n_val <= n_samples - 2:
            raise ValueError(
                f"validation_fraction={self.validation_fraction} leaves an empty "
                f"part of n_samples={n_samples} rows."
            )
        perm = rng.permutation(n_samples)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])

    def _private_fit(self, params, X, y, epsilon, seed, part, ledger):
        """One candidate fit at ``(epsilon, delta)``, recorded in ``ledger``."""
        est = clone(self.estimator).set_params(
            **params, epsilon=epsilon, delta=float(self.delta), random_state=seed
        )
        scratch = PrivacyLedger()
        # Record into the search's own ledger only: the user's open ledgers were
        # charged for the whole search up front.
        token = _ACTIVE_LEDGERS.set((scratch,))
        try:
            est.fit(X, y)
        finally:
            _ACTIVE_LEDGERS.reset(token)
        for entry in scratch.entries:
            ledger.charge(
                entry.mechanism,
                neighboring=entry.neighboring,
                source=entry.source,
                part=part,
            )
        return est

    def _report_noisy_max(self, models, X_val, y_val, epsilon, neighboring, rng):
        """Index of the candidate with the highest Gumbel-noised correct count."""
        y_val = np.asarray(y_val)
        counts = np.array([np.sum(m.predict(X_val) == y_val) for m in models], float)
        scale = (1.0 if neighboring == "add_remove" else 2.0) / epsilon
        return int(np.argmax(counts + rng.gumbel(scale=scale, size=counts.shape[0])))

    def _start(self, X, y):
        """Validate, charge open ledgers for the whole search, split the rows."""
        neighboring = self._check_estimator(self._needed_params)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None."
            )
        X, y = indexable(X, y)
        charge = _charge_active_ledgers(
            self,
            EpsilonDeltaRecord(float(self.epsilon), float(self.delta)),
            neighboring=neighboring,
        )
        rng = check_random_state(self.random_state)
        n_samples = _num_samples(X)
        train, val = self._split(n_samples, rng)
        parts = (
            _safe_indexing(X, train),
            _safe_indexing(y, train),
            _safe_indexing(X, val),
            _safe_indexing(y, val),
        )
        return X, y, neighboring, charge, rng, parts

    def _finish(self, charge, X, y, params, epsilon_refit, rng):
        seed = int(rng.randint(2**31 - 1))
        self.best_params_ = params
        self.best_estimator_ = self._private_fit(
            params, X, y, epsilon_refit, seed, None, self.ledger_
        )
        self.delta_ = float(self.delta)
        self.epsilon_ = self.ledger_.epsilon(self.delta_)
        charge.settle(EpsilonDeltaRecord(self.epsilon_, self.delta_))
        self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_

    def _budget(self, refit_share):
        """(mu of the whole search, mu of the refit, pure epsilon of comparisons)."""
        mu = gdp_mu(float(self.epsilon), float(self.delta))
        mu_refit = math.sqrt(refit_share) * mu
        return (
            mu,
            mu_refit,
            _selection_epsilon(mu_refit, float(self.epsilon), float(self.delta)),
        )

    def predict(self, X):
        """Predict with the refit best estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        """Decision scores of the refit best estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            As ``best_estimator_.decision_function``.
        """
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def _has_proba(self):
        return hasattr(self.estimator, "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities of the refit best estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def __getstate__(self):
        return _ledger_guard_state(super().__getstate__())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_SEARCH_ATTRIBUTES = """\
    best_params_ : dict
        The chosen parameters.
    best_estimator_ : estimator
        The chosen configuration refit on all rows with the refit's share of the
        budget.
    epsilon_ : float
        The whole search's spend at ``delta_`` (candidate fits, comparisons and
        refit, composed exactly by ``ledger_``); at most ``epsilon``.
    delta_ : float
        The delta of the guarantee.
    ledger_ : PrivacyLedger
        Every mechanism the search ran, each tagged with the part of the rows it
        read ("train", "validation", or None for all rows); ``epsilon_`` is
        ``ledger_.epsilon(delta_)``.
    classes_ : ndarray of shape (n_classes,)
        Class labels of ``best_estimator_``.
    n_features_in_ : int
        Number of features seen during fit."""


class PrivateGridSearchCV(_BasePrivateSearch):
    __doc__ = """Grid search whose fits *and* whose choice of the winner are private.

    Every candidate of ``param_grid`` is trained on the train part of a public
    random split with an equal share of the budget, the winner is chosen by
    report-noisy-max of the validation accuracy counts (exponential mechanism,
    pure DP), and refit on all rows with the refit's share. The procedure as a
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
        A private estimator of this package (full batch, ``batch_size=None``),
        e.g. :class:`~sklearn_dpgd.DPLogisticRegression`; its ``epsilon``,
        ``delta`` and ``random_state`` are set by the search. Preprocessing must
        not be fitted on the private data (pass fixed bounds).
    param_grid : dict or list of dicts
        As in scikit-learn's ``GridSearchCV``; must not name ``epsilon``,
        ``delta``, ``batch_size`` or ``neighboring``.
    epsilon : float, default=1.0
        Total privacy budget of the whole search, > 0.
    delta : float, default=1e-8
        In (0, 1); much smaller than ``1 / n_samples``.
    refit_share : float, default=0.6
        Fraction of ``mu^2`` given to the refit, in (0, 1).
    validation_fraction : float, default=0.2
        Fraction of the rows in the validation part, in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the candidates' noise, the comparison and the refit.

    Attributes
    ----------
%(attributes)s
    best_index_ : int
        Index of the chosen candidate in ``cv_results_["params"]``.
    cv_results_ : dict of ndarrays
        ``"params"`` (list of dicts), ``"param_<name>"`` per grid parameter,
        ``"selected"`` (bool) and ``"candidate_epsilon"`` (each candidate fit's
        epsilon). No scores: they are private.
    selection_epsilon_ : float
        Pure epsilon of the report-noisy-max comparison.

    Raises
    ------
    ValueError
        If ``param_grid`` names a reserved parameter, the estimator uses
        minibatches, or a part of the split would be empty.
    TypeError
        If ``estimator`` is not a private estimator of this package.

    See Also
    --------
    LinearScalingSearch : Tunes (learning rate, steps) by private extrapolation.
    sklearn_dpgd.accounting.PrivacyLedger : Shows the spend of a plain
        ``GridSearchCV`` over private fits.

    Notes
    -----
    The whole search is charged to the open
    :class:`~sklearn_dpgd.accounting.PrivacyLedger` s as one
    ``(epsilon_, delta_)`` record.

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
    """.replace("%(attributes)s", _SEARCH_ATTRIBUTES)

    _needed_params = ()

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_grid": [dict, list],
        "refit_share": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        epsilon=1.0,
        delta=1e-8,
        refit_share=0.6,
        validation_fraction=0.2,
        random_state=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.refit_share = refit_share
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def fit(self, X, y):
        """Run the private search and refit the winner on all rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, as the estimator takes it.
        y : array-like of shape (n_samples,)
            Target labels.

        Returns
        -------
        self : object
            The fitted search.

        Raises
        ------
        ValueError
            If a parameter is invalid (see the class docstring).
        TypeError
            If ``estimator`` is not a private estimator of this package.
        BudgetExhaustedError
            If an open capped ledger cannot pay for the whole search (nothing is
            read then).
        """
        self._validate_params()
        candidates = list(ParameterGrid(self.param_grid))
        reserved = sorted({k for c in candidates for k in c} & set(_RESERVED))
        if reserved:
            raise ValueError(
                f"param_grid must not set {reserved}: the search sets the budget "
                "and one neighbouring relation for all fits."
            )
        k = len(candidates)
        mu, mu_refit, eps_select = self._budget(float(self.refit_share))
        delta = float(self.delta)
        eps_candidate = gdp_epsilon(math.sqrt((mu * mu - mu_refit**2) / k), delta)
        eps_refit = gdp_epsilon(mu_refit, delta)

        X, y, neighboring, charge, rng, (X_tr, y_tr, X_val, y_val) = self._start(X, y)
        self.ledger_ = PrivacyLedger()
        seeds = rng.randint(2**31 - 1, size=k)
        models = [
            self._private_fit(
                c, X_tr, y_tr, eps_candidate, int(s), "train", self.ledger_
            )
            for c, s in zip(candidates, seeds, strict=True)
        ]
        self.ledger_.charge(
            EpsilonDeltaRecord(eps_select),
            neighboring=neighboring,
            source="report-noisy-max",
            part="validation",
        )
        best = self._report_noisy_max(
            models, X_val, y_val, eps_select, neighboring, rng
        )
        self.best_index_ = best
        self.selection_epsilon_ = eps_select
        results = {"params": candidates}
        for name in sorted({n for c in candidates for n in c}):
            results[f"param_{name}"] = np.ma.masked_array(
                [c.get(name) for c in candidates],
                mask=[name not in c for c in candidates],
                dtype=object,
            )
        results["selected"] = np.arange(k) == best
        results["candidate_epsilon"] = np.full(k, eps_candidate)
        self.cv_results_ = results
        self._finish(charge, X, y, candidates[best], eps_refit, rng)
        return self


class LinearScalingSearch(_BasePrivateSearch):
    __doc__ = """Tune (learning rate, steps) by private extrapolation of the radius.

    The rule of Panda et al. ("A new linear scaling rule for private adaptive
    hyperparameter optimization", ICML 2024; seed 001, Sec. 2.1-2.2 and eq. (1)):
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

    Parameters
    ----------
    estimator : estimator object
        A private estimator of this package with ``learning_rate`` and
        ``max_iter`` (full batch; a schedule without its own horizon).
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
        Fraction of the rows in the validation part, in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the candidates, the noise and the comparisons.

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
        If a range or ``search_fractions`` is invalid, or the estimator uses
        minibatches.
    TypeError
        If ``estimator`` lacks ``learning_rate``, ``max_iter``, ``epsilon`` or
        ``delta``.

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
        random_state=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates = n_candidates
        self.search_fractions = search_fractions
        self.learning_rate_range = learning_rate_range
        self.max_iter_range = max_iter_range
        self.validation_fraction = validation_fraction
        self.random_state = random_state

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

    def fit(self, X, y):
        """Run both private searches, extrapolate the radius, fit on all rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, as the estimator takes it.
        y : array-like of shape (n_samples,)
            Target labels.

        Returns
        -------
        self : object
            The fitted search.

        Raises
        ------
        ValueError
            If a parameter is invalid (see the class docstring).
        TypeError
            If ``estimator`` lacks a needed parameter.
        BudgetExhaustedError
            If an open capped ledger cannot pay for the whole search.
        """
        self._validate_params()
        fractions, lr_range, it_range = self._check_ranges()
        m = int(self.n_candidates)
        delta = float(self.delta)
        mu, mu_final, eps_select = self._budget(1.0 - sum(fractions))
        eps_candidates = [gdp_epsilon(math.sqrt(f / m) * mu, delta) for f in fractions]
        eps_final = gdp_epsilon(mu_final, delta)

        X, y, neighboring, charge, rng, (X_tr, y_tr, X_val, y_val) = self._start(X, y)
        self.ledger_ = PrivacyLedger()
        log_lr = np.log(lr_range)
        log_it = np.log([it_range[0], it_range[1] + 1])
        winners = []
        for eps_c in eps_candidates:
            lrs = np.exp(rng.uniform(*log_lr, size=m))
            its = np.clip(np.floor(np.exp(rng.uniform(*log_it, size=m))), *it_range)
            candidates = [
                {"learning_rate": float(a), "max_iter": int(t)}
                for a, t in zip(lrs, its, strict=True)
            ]
            seeds = rng.randint(2**31 - 1, size=m)
            models = [
                self._private_fit(c, X_tr, y_tr, eps_c, int(s), "train", self.ledger_)
                for c, s in zip(candidates, seeds, strict=True)
            ]
            # Each comparison spends half of the comparisons' pure epsilon (basic
            # composition: eps_select / 2 twice is eps_select).
            self.ledger_.charge(
                EpsilonDeltaRecord(eps_select / 2),
                neighboring=neighboring,
                source="report-noisy-max",
                part="validation",
            )
            best = self._report_noisy_max(
                models, X_val, y_val, eps_select / 2, neighboring, rng
            )
            winners.append(candidates[best])
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
        self.selection_epsilon_ = eps_select
        self._finish(
            charge,
            X,
            y,
            {"learning_rate": learning_rate, "max_iter": max_iter},
            eps_final,
            rng,
        )
        return self
