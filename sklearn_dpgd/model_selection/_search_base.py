"""The machinery shared by the private searches of :mod:`sklearn_dpgd.model_selection`.

The coin split of the rows, the seeds, the budget plan, the candidate fits
recorded in the search's own ledger, the comparison and the refit. The privacy
argument is in the docstring of :mod:`sklearn_dpgd.model_selection`.
"""

import inspect
import math
import threading
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    clone,
    is_regressor,
)
from sklearn.pipeline import Pipeline
from sklearn.utils import RegressorTags, _safe_indexing, indexable
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import (
    _num_features,
    _num_samples,
    check_is_fitted,
)

from .._boundary import charge_ledgers
from .._engine._randomness import (
    FIXED_SEED_MESSAGE,
    draw_seed,
    make_generator,
    spawn_seeds,
)
from .._engine._secure import support_tv
from .._errors import NotFittedAttributesMixin
from .._public_size import resolve_public_size, split_count_budget
from .._sklearn_compat import HasMethods, Interval
from .._validation import check_array
from ..accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    PrivacyLedger,
    _ledger_guard_state,
    gdp_mu,
    recording_only,
)
from ..exceptions import PrivacyLeakWarning, UtilityWarning
from ..linear_model._base import _BaseDPLinearModel
from ..linear_model._weights import check_sample_weight
from ..pipeline import PrivatePipeline, find_privacy_leaks
from ._grids import grid_estimator
from ._selection import _selection_epsilon, report_noisy_max, validation_score

# Parameters every candidate estimator must have: the search sets them.
_SET_BY_SEARCH = ("epsilon", "delta", "public_n_samples", "random_state", "secure_mode")
# Relative tolerance on a fit's recorded GDP mu against the planned one (the
# estimators calibrate to ~1e-11).
_MU_TOLERANCE = 1e-8


def _gdp_refusal(estimator):
    """Why a fit of ``estimator`` is not a recorded GDP mechanism; None if it is.

    Parameters
    ----------
    estimator : estimator object
        With its final parameters (those of one candidate).

    Returns
    -------
    reason : str or None
        None when a fit charges the active ledger with full-batch Gaussian steps
        only (see "Which estimators a search accepts" in the module docstring).
    """
    hook = getattr(estimator, "_gdp_ledger_refusal", None)
    if callable(hook):
        return hook()
    return (
        "it does not declare that its fit charges the active PrivacyLedger with "
        "full-batch Gaussian steps (no _gdp_ledger_refusal method)"
    )


def _gd_for_auto(estimator):
    """``estimator`` (or its pipeline's steps) with ``solver="auto"`` set to "gd":
    a search's budget split, grids and spend checks are those of "gd"."""
    owners = {f"{k}__": v for k, v in estimator.get_params(deep=True).items()}
    auto = {
        f"{path}solver": "gd"
        for path, owner in {"": estimator, **owners}.items()
        if isinstance(owner, _BaseDPLinearModel) and owner.solver == "auto"
    }
    return estimator.set_params(**auto) if auto else estimator


def _weight_bound(estimator):
    """``max_sample_weight`` of ``estimator`` (a pipeline's final step), or None."""
    return grid_estimator(estimator).get_params(deep=False).get("max_sample_weight")


def _weight_kwargs(estimator, weights):
    """The ``fit`` keyword that passes ``weights`` to ``estimator``."""
    if weights is None:
        return {}
    if isinstance(estimator, PrivatePipeline):
        return {f"{estimator.steps[-1][0]}__sample_weight": weights}
    return {"sample_weight": weights}


def _fit_one(template, params, X, y, weights, collect_utility=False):
    """One candidate fit, wherever joblib runs it: ``(fitted, recorded entries,
    UtilityWarning messages)``.

    A fresh scratch ledger is the only ledger its mechanisms record into, in this
    thread or worker process (``recording_only`` also satisfies the guard against
    fits of estimators shipped to another process); the caller charges its own
    ledger with the returned entries. The user's open ledgers were charged for
    the whole search before any data was read. With ``collect_utility``, the
    fit's :class:`~sklearn_dpgd.exceptions.UtilityWarning` s are returned as
    texts instead of shown (the search shows one summary), in a main thread (of
    this process or of a worker process); other warnings are shown as the fit
    raised them.
    """
    est = _gd_for_auto(clone(template).set_params(**params))
    scratch = PrivacyLedger()
    scratch._internal = True  # the search's own: numbers no fixed seeds
    # Recording swaps the process-wide warnings.showwarning, which two threads
    # entering and leaving catch_warnings out of order could leave swapped for
    # good (every later warning lost): fits in worker threads (a ledger's
    # threading backend) show their UtilityWarnings themselves.
    record = collect_utility and threading.current_thread() is threading.main_thread()
    with (
        recording_only(scratch),
        warnings.catch_warnings(record=record) as caught,
    ):
        # The search warned once for its fixed seed; not once per fit.
        warnings.filterwarnings(
            "ignore", message=FIXED_SEED_MESSAGE, category=PrivacyLeakWarning
        )
        est.fit(X, y, **_weight_kwargs(est, weights))
    utility = []
    for w in caught or ():
        if issubclass(w.category, UtilityWarning):
            utility.append(str(w.message))
        else:
            warnings.warn_explicit(
                w.message, w.category, w.filename, w.lineno, source=w.source
            )
    return est, scratch.entries, utility


def _resolve_penalty_spelling(template, params):
    """``params`` with the other spelling of the penalty reset where a grid sets one.

    ``C`` and ``alpha`` are two spellings of one L2 penalty, and an estimator
    refuses both set. A candidate that sets ``C`` (``<step>__C`` in a pipeline)
    of an estimator whose ``alpha`` was set (e.g. by a recipe of
    :mod:`sklearn_dpgd.datasets`) tunes the penalty: its ``alpha`` goes back to
    the default, and a candidate's ``alpha`` resets a set ``C`` to None, as
    scikit-learn's ``LogisticRegression(C=...)`` replaces the penalty.
    """
    resolved = dict(params)
    deep = template.get_params(deep=True)
    for key, value in params.items():
        prefix, _, name = key.rpartition("__")
        prefix = f"{prefix}__" if prefix else ""
        owner = deep.get(prefix[:-2]) if prefix else template
        if owner is None or not hasattr(owner, "_default_alpha"):
            continue
        if name == "C" and value is not None and f"{prefix}alpha" not in params:
            if deep.get(f"{prefix}alpha") != owner._default_alpha:
                resolved[f"{prefix}alpha"] = owner._default_alpha
        elif name == "alpha" and f"{prefix}C" not in params:
            if deep.get(f"{prefix}C") is not None:
                resolved[f"{prefix}C"] = None
    return resolved


def _coin_split(n_rows, validation_fraction, seed):
    """Row indices of the train and validation parts: one coin per row.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    validation_fraction : float
        Probability that a row goes to the validation part, in (0, 1).
    seed : numpy.random.SeedSequence
        The split's seed (never derived from the data).

    Returns
    -------
    train, validation : ndarray of int
        Sorted, disjoint, covering ``range(n_rows)``.

    Notes
    -----
    Row ``i``'s side is the ``i``-th uniform of a PCG64 stream, which numpy draws
    one after the other: it does not depend on ``n_rows`` or on any other row, so
    appending a row to the data changes exactly one part, by that row (see the
    module docstring for the privacy argument).
    """
    coins = np.random.Generator(np.random.PCG64(seed)).random(n_rows)
    validation = coins < validation_fraction
    return np.flatnonzero(~validation), np.flatnonzero(validation)


def _recorded_mu(entries, source):
    """GDP mu of a fit's ledger entries; raise if they are not Gaussian steps."""
    steps = [r for e in entries if isinstance(e.mechanism, tuple) for r in e.mechanism]
    # Every entry must be a tuple of steps, checked before anything reads it as one
    # (an (epsilon, delta) record has no len()).
    if (
        not entries
        or len(entries) != sum(isinstance(e.mechanism, tuple) for e in entries)
        or any(r.sampling_rate != 1.0 for r in steps)
    ):
        raise RuntimeError(
            f"{source} did not record full-batch Gaussian steps in the active "
            "PrivacyLedger although it declared so; the search releases nothing."
        )
    return math.sqrt(math.fsum(r.count / r.noise_multiplier**2 for r in steps))


class _SearchSeeds:
    """The seeds of one search, all spawned from one root seed.

    The root is :func:`~sklearn_dpgd._engine._randomness.draw_seed` of the search's
    ``random_state`` (ignored, like the estimators do, under ``secure_mode``);
    each mechanism gets its own spawned child, with 128 bits of entropy.
    """

    def __init__(self, search):
        random_state = None if search.secure_mode else search.random_state
        root = draw_seed(random_state, owner=type(search).__name__)
        self._fixed = random_state is not None
        (
            self.split,
            self.count,
            self.selection,
            self.sampling,
            self.refit,
            self._candidates,
        ) = spawn_seeds(root, 6)

    def candidates(self, k):
        """``k`` new candidate seeds (distinct at every call)."""
        return spawn_seeds(self._candidates, k)

    def random_state(self, seed):
        """The ``random_state`` a fit gets for its spawned ``seed``.

        None (the fit draws fresh entropy itself) unless the search's seed is
        fixed; then a ``RandomState`` on the spawned seed, from which the fit's
        ``draw_seed`` reads 128 bits.
        """
        if not self._fixed:
            return None
        return np.random.RandomState(np.random.MT19937(seed))


class _BasePrivateSearch(
    NotFittedAttributesMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Split, private candidate fits, report-noisy-max, refit: shared machinery."""

    # Whether a regressor may be tuned (its candidates from an explicit grid).
    _tunes_regressors = False

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
        "n_jobs": [Integral, None],
    }

    @property
    def best_score_(self):
        """Not available: the candidates' validation scores are private.

        The comparison releases only the chosen index (report-noisy-max); a
        score on the private validation part, noisy or exact, would be another
        release. Score ``best_estimator_`` on a test set you do not release.

        Raises
        ------
        AttributeError
            Always, with this explanation.
        """
        raise AttributeError(
            f"{type(self).__name__} has no best_score_: the candidates' scores on "
            "the private validation rows are private (the comparison releases only "
            "the chosen index, best_index_). Score best_estimator_ on a test set "
            "you do not release."
        )

    def _tuned(self):
        """The estimator the search fits: ``estimator``, or for a plain
        scikit-learn ``Pipeline`` whose steps are all private or row-wise, the
        :class:`~sklearn_dpgd.pipeline.PrivatePipeline` of its steps (the
        default budget split of :func:`~sklearn_dpgd.pipeline.make_private_pipeline`).

        Raises
        ------
        ValueError
            For a ``Pipeline`` with a step that reads the data without a privacy
            mechanism, naming it.
        """
        estimator = self.estimator
        if type(estimator) is not Pipeline:
            return estimator
        leaks = find_privacy_leaks(estimator)
        if leaks:
            path, name, reads = leaks[0]
            raise ValueError(
                f"estimator: step {path!r} ({name}) of the Pipeline fits without a "
                f"privacy mechanism (it reads {reads}), which no search can pay "
                "for. Build the pipeline with sklearn_dpgd.pipeline."
                "make_private_pipeline and private steps from "
                "sklearn_dpgd.preprocessing (e.g. DPStandardScaler), or row-wise "
                "ones (Normalizer)."
            )
        return PrivatePipeline(list(estimator.steps))

    def _warn_replaced_budget(self):
        """Say so when the search's ``epsilon`` replaces one the estimator set.

        Warns :class:`UserWarning` (at the caller of ``fit``) if the estimator's
        ``epsilon`` is not its default and differs from the search's: every fit of
        the search gets a share of the search's total, the estimator's is unused.
        """
        tuned = self._tuned()
        own = tuned.get_params(deep=False).get("epsilon")
        default = inspect.signature(type(tuned).__init__).parameters.get("epsilon")
        if default is None or own is None or own == default.default:
            return
        if own == self.epsilon:
            return
        warnings.warn(
            f"{type(self).__name__}: the search's epsilon={self.epsilon} replaces "
            f"{type(tuned).__name__}'s epsilon={own}. A private search spends one "
            "total budget on its candidate fits, the comparison and the refit "
            "(best_estimator_ gets the refit's share); set the total on the "
            "search, or leave the estimator's epsilon at its default.",
            UserWarning,
            stacklevel=3,
        )

    def _check_estimator(self, candidates):
        """Refuse, before any data is read, what the accounting cannot cover.

        Returns the neighbouring relation of the estimator.
        """
        name = type(self._tuned()).__name__
        params = self._tuned().get_params(deep=False)
        missing = [
            p for p in (*_SET_BY_SEARCH, *self._needed_params) if p not in params
        ]
        if missing:
            raise TypeError(
                "estimator must be a private estimator of this package with "
                f"parameters {missing} (e.g. DPLogisticRegression); got {name}."
            )
        if is_regressor(self._tuned()) and not self._tunes_regressors:
            # Its candidates come from the classifiers' "auto" rules and radii.
            raise TypeError(
                f"{type(self).__name__} tunes classifiers only; tune a regressor "
                f"({name}) with PrivateGridSearchCV and an explicit param_grid."
            )
        if not np.isfinite(self.epsilon):
            raise ValueError(f"epsilon must be finite, got {self.epsilon!r}.")
        for candidate in candidates:
            reason = _gdp_refusal(clone(self._tuned()).set_params(**candidate))
            if reason is not None:
                where = f" with {candidate}" if candidate else ""
                raise ValueError(
                    f"estimator {name}{where} cannot be tuned by "
                    f"{type(self).__name__}: {reason}. The search must know every "
                    "candidate's spend as a Gaussian mechanism before it reads data."
                )
        return params.get("neighboring", "add_remove")

    def _check_sample_weight(self, sample_weight, X, candidates):
        """Validated ``sample_weight`` for the candidates' fits, or None.

        Run before anything is charged or read (like an estimator's own check):
        every candidate must take weights (``max_sample_weight``; for a pipeline,
        its final step) with one public bound, and every weight must lie in it.

        Raises
        ------
        ValueError
            If a candidate takes no weights, the candidates' bounds differ, or a
            weight is outside ``[0, max_sample_weight]``.
        """
        if sample_weight is None:
            return None
        bounds = {
            _weight_bound(clone(self._tuned()).set_params(**c)) for c in candidates
        }
        if None in bounds:
            raise ValueError(
                f"sample_weight: {type(self._tuned()).__name__} (or its final step) "
                "takes no sample_weight with a public bound max_sample_weight, so "
                f"{type(self).__name__} cannot pass the weights to its fits; pass "
                "sample_weight=None."
            )
        if len(bounds) > 1:
            raise ValueError(
                f"sample_weight: the candidates' max_sample_weight differ "
                f"({sorted(bounds)}); the weights need one public bound for every "
                "fit. Keep max_sample_weight out of param_grid."
            )
        return check_sample_weight(sample_weight, X, bounds.pop())

    def _plan(self, fixed_share, neighboring):
        """The budget, from public quantities only.

        Returns ``(mu, mu_available, mu_fixed, count_noise, eps_select)``: the GDP
        ``mu`` of the whole search; the part of it left for the fits after the
        size count (``mu_available^2 = mu^2 - mu_count^2``); the refit's (or
        final fit's) ``mu_fixed = sqrt(fixed_share) mu_available``; the count's
        noise multiplier (None when no count runs); and the pure epsilon of the
        comparisons, which a validation row pays next to the count and the refit.
        A train row pays ``mu^2`` exactly: the count, the candidates and the refit.
        """
        epsilon, delta = float(self.epsilon), float(self.delta)
        mu = gdp_mu(epsilon, delta)
        count_noise, mu_available = split_count_budget(
            mu, neighboring, self.public_n_samples
        )
        mu_sq_count = 0.0 if count_noise is None else count_noise**-2
        mu_fixed = math.sqrt(fixed_share) * mu_available
        eps_select = _selection_epsilon(
            math.sqrt(mu_fixed**2 + mu_sq_count), epsilon, delta
        )
        return mu, mu_available, mu_fixed, count_noise, eps_select

    def _start(self, X, y, neighboring, count_noise, weights=None):
        """Charge open ledgers, seed, resolve the public size, split the rows.

        The parts are ``(X_tr, y_tr, X_val, y_val, w_tr)``, ``w_tr`` the train
        part's weights (None without ``weights``): the validation part's weights
        are never read (the comparison counts unweighted correct predictions).
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None."
            )
        p = float(self.validation_fraction)
        if self.public_n_samples is not None:
            self._check_part_sizes(int(self.public_n_samples), declared=True)
        X, y = indexable(X, y)
        charge = charge_ledgers(
            self,
            EpsilonDeltaRecord(float(self.epsilon), float(self.delta)),
            neighboring=neighboring,
        )
        self.ledger_ = PrivacyLedger()
        seeds = _SearchSeeds(self)
        if count_noise is not None:
            # Charged before the rows are counted: a count has sensitivity 1
            # under add/remove (Dwork & Roth 2014, Thm A.1).
            self.ledger_.charge(
                (GaussianSteps(count_noise),),
                neighboring=neighboring,
                source="public size (noisy count)",
                support=self._own_support(),
            )
        n_rows = _num_samples(X)
        size = resolve_public_size(
            n_rows,
            neighboring=neighboring,
            public_n_samples=self.public_n_samples,
            noise_multiplier=1.0 if count_noise is None else count_noise,
            rng=make_generator(seeds.count, self.secure_mode),
        )
        self.public_n_samples_ = size.n_samples
        if size.source == "replace":
            # An exact public size that leaves a part empty is a user error; a
            # noisy count only feeds the rules (its noise can exceed a tiny n).
            self._check_part_sizes(size.n_samples, declared=False)
        train, val = _coin_split(n_rows, p, seeds.split)
        if train.shape[0] < 2:
            # Only the fact is told, never the size of a part.
            raise ValueError(
                "the random split left at most one sample in the train part; "
                "lower validation_fraction or use more rows."
            )
        parts = (
            _safe_indexing(X, train),
            _safe_indexing(y, train),
            _safe_indexing(X, val),
            _safe_indexing(y, val),
            None if weights is None else weights[train],
        )
        return X, y, charge, seeds, parts

    def _public_shape(self, X, y):
        """``(n_features, n_classes)`` of the default grids: public quantities.

        The number of classes is the estimator's declared ``classes``. With
        ``classes=None`` the grid assumes two: shaping it by the labels present in
        ``y`` would release their number through the candidates' settings, beyond
        the candidate fits' own (warned) reading of the label set.
        """
        classes = grid_estimator(self._tuned()).get_params(deep=False).get("classes")
        if classes is None:
            classes = (0, 1)
        n_features = _num_features(X)
        if n_features < 1:
            # The error a candidate's fit would raise (it is what the estimator
            # itself tells about such data), before any rule reads the shape.
            check_array(
                X,
                accept_sparse=True,
                dtype=None,
                ensure_all_finite=False,
                estimator=self._tuned(),
            )
        return n_features, max(2, len(classes))

    def _train_public_size(self):
        """Expected size of the train part at the public size: the candidates'."""
        return max(
            2, round((1.0 - float(self.validation_fraction)) * self.public_n_samples_)
        )

    def _check_part_sizes(self, m, *, declared):
        """Both parts must be usable at the exact public size ``m`` (not ``n``)."""
        p = float(self.validation_fraction)
        if p * m < 1.0 or (1.0 - p) * m < 2.0:
            # Under replace-one m is n: public, yet not echoed either.
            size = f"public_n_samples={m}" if declared else "n_samples"
            raise ValueError(
                f"validation_fraction={self.validation_fraction} leaves an empty "
                f"part at {size}: the expected parts need >= 1 validation and >= 2 "
                "train rows."
            )

    def _private_fit(
        self, params, X, y, epsilon, seeds, seed, part, public_n_samples, weights=None
    ):
        """One candidate fit at ``(epsilon, delta)``, recorded in ``ledger_``.

        ``weights`` (validated against the candidates' one bound) go to the fit's
        ``sample_weight``, or to its final step's for a pipeline (scikit-learn's
        ``step__sample_weight``): the estimator scales its own sensitivity by
        ``max_sample_weight``, so the fit records the same Gaussian steps.
        """
        full = self._fit_params(params, epsilon, seeds, seed, public_n_samples)
        est, entries, _ = _fit_one(self._tuned(), full, X, y, weights)
        return self._record(est, entries, epsilon, part)

    def _fit_params(self, params, epsilon, seeds, seed, public_n_samples):
        """A candidate's parameters, with the search's budget, seed and size (and
        the penalty's other spelling reset where the candidate sets one)."""
        return dict(
            _resolve_penalty_spelling(self._tuned(), params),
            epsilon=epsilon,
            delta=float(self.delta),
            random_state=seeds.random_state(seed),
            secure_mode=bool(self.secure_mode),
            public_n_samples=int(public_n_samples),
        )

    def _record(self, est, entries, epsilon, part):
        """Check a fit's recorded spend against its budget; copy it to ``ledger_``."""
        mu = _recorded_mu(entries, type(est).__name__)
        planned = gdp_mu(epsilon, float(self.delta))
        if mu > planned * (1.0 + _MU_TOLERANCE):
            raise RuntimeError(
                f"{type(est).__name__} spent more than the budget the search gave "
                "it; the search releases nothing."
            )
        # Two-sided: a fit that records less than planned ran a mechanism its
        # ledger does not show (or skipped one the plan counts), so the records
        # cannot be the audit of what read the data.
        if mu < planned * (1.0 - _MU_TOLERANCE):
            raise RuntimeError(
                f"{type(est).__name__} recorded less than the budget the search gave "
                "it: its ledger does not account for the fit the search planned; "
                "the search releases nothing."
            )
        for entry in entries:
            self.ledger_.charge(
                entry.mechanism,
                neighboring=entry.neighboring,
                source=entry.source,
                part=part,
                support=entry.support,
            )
        return est

    def _own_support(self):
        """Support bound of one of the search's own generators (secure_mode)."""
        return support_tv(1) if self.secure_mode else 0.0

    def _fit_candidates(
        self, candidates, X_tr, y_tr, epsilon, seeds, train_size, w_tr=None, notes=None
    ):
        """Fit every candidate on the train part, each on a new spawned seed.

        ``n_jobs`` candidates at a time (joblib; the seeds are drawn here, so
        the fits and the ledger are those of ``n_jobs=1``); each fit's entries
        are checked and copied into ``ledger_`` in the candidates' order. The
        fits' UtilityWarnings are shown as one summary, or appended to ``notes``.
        """
        template = self._tuned()
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(
                template,
                self._fit_params(c, epsilon, seeds, s, train_size),
                X_tr,
                y_tr,
                w_tr,
                collect_utility=True,
            )
            for c, s in zip(candidates, seeds.candidates(len(candidates)), strict=True)
        )
        if notes is None:
            self._warn_candidate_utility([n for _, _, n in fitted], epsilon)
        else:  # the caller shows one summary for all its calls
            notes.extend(n for _, _, n in fitted)
        return [
            self._record(est, entries, epsilon, "train") for est, entries, _ in fitted
        ]

    def _warn_candidate_utility(self, notes, epsilon, stacklevel=4):
        """One :class:`UtilityWarning` for the candidates' fits, not one per fit.

        A candidate gets a share of the budget the user never chose for a fit,
        and the comparison exists to pass over the useless ones; the refit, at
        the refit's budget, runs (and shows) its own checks.
        """
        flagged = [n for n in notes if n]
        if not flagged:
            return
        first = flagged[0][0]
        warnings.warn(
            f"{type(self).__name__}: {len(flagged)} of {len(notes)} candidate fits "
            f"(each at epsilon={epsilon:.3g}, its share of the search's "
            f"epsilon={self.epsilon}) warned that they are likely useless, e.g. "
            f'"{first}" The comparison passes over such candidates; the refit of '
            "the winner at the refit's budget runs its own checks, and warns if "
            "it is useless too.",
            UtilityWarning,
            stacklevel=stacklevel,
        )

    def _private_selection(self, models, X_val, y_val, epsilon, neighboring, rng):
        """Charge ``ledger_`` for one comparison, then run it: the winner's index.

        The pure ``epsilon`` is recorded (on the validation part) before the
        validation rows are read.
        """
        self.ledger_.charge(
            EpsilonDeltaRecord(epsilon),
            neighboring=neighboring,
            source="report-noisy-max",
            part="validation",
            support=self._own_support(),
        )
        return self._report_noisy_max(models, X_val, y_val, epsilon, neighboring, rng)

    def _report_noisy_max(self, models, X_val, y_val, epsilon, neighboring, rng):
        """Index of the candidate with the highest Gumbel-noised validation score."""
        y_val = np.asarray(y_val)
        if y_val.shape[0] == 0:
            # An empty validation part: every count is 0 (predict refuses 0 rows).
            counts = np.zeros(len(models))
        else:
            regression = is_regressor(self._tuned())
            counts = np.array(
                [
                    validation_score(m, X_val, y_val, regression=regression)
                    for m in models
                ]
            )
        return report_noisy_max(counts, epsilon, neighboring, rng)

    def _finish(self, charge, X, y, params, epsilon_refit, seeds, weights=None):
        self.best_params_ = params
        self.best_estimator_ = self._private_fit(
            params,
            X,
            y,
            epsilon_refit,
            seeds,
            seeds.refit,
            None,
            self.public_n_samples_,
            weights,
        )
        self.delta_ = float(self.delta)
        self.epsilon_ = self.ledger_.epsilon(self.delta_)
        charge.settle(EpsilonDeltaRecord(self.epsilon_, self.delta_))
        if not is_regressor(self.best_estimator_):
            self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_

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

    def score(self, X, y, sample_weight=None):
        """The refit best estimator's score: accuracy, or R^2 for a regressor.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            True labels or targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights of the score.

        Returns
        -------
        score : float
            Not private: score on data you do not release (it reads ``y``).
        """
        return self.best_estimator_.score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        if is_regressor(self._tuned()):
            tags.estimator_type = "regressor"
            tags.classifier_tags = None
            tags.regressor_tags = RegressorTags()
        return tags
