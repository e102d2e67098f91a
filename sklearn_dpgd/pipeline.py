"""One privacy budget for a whole pipeline, and a check of what a pipeline leaks.

:class:`PrivatePipeline` takes one total ``(epsilon, delta)`` and splits it among
the steps that read private data through a mechanism (the transformers of
:mod:`sklearn_dpgd.preprocessing` and the estimators of this package, also inside a
:class:`~sklearn.compose.ColumnTransformer`), fits clones of the steps with their
shares, and reports the composed spend ``epsilon_``. :func:`find_privacy_leaks`
lists the steps of any estimator that fit on data without a mechanism;
:class:`PrivatePipeline` warns about each of them.

**The split.** ``budget_split`` maps the path of every data-reading private step
(``"name"`` or ``"name__sub"``, as in ``get_params``) to its share; by default the
final step (the classifier) gets ``1 - preprocessing_share`` and the private
preprocessing steps share ``preprocessing_share`` (10%) equally; steps whose
statistics are all declared public (bounds, categories) read nothing and get
nothing. When every such step is a Gaussian mechanism (``_gdp_ledger_refusal``
is None), the shares are shares of ``mu^2`` of Gaussian differential privacy
(``mu^2`` adds up exactly under composition; Dong, Roth & Su, JRSS B 2022, Cor.
3.3); otherwise they are shares of ``epsilon`` and of ``delta`` (basic
composition, Dwork & Roth 2014, Thm 3.16). Either way the total is at most
``(epsilon, delta)``; the pipeline's own capped
:class:`~sklearn_dpgd.accounting.PrivacyLedger` refuses any step that would
exceed it. With GDP shares ``epsilon_`` is that ledger's exact composition; with
``epsilon`` shares (a step's plan may depend on an earlier step's release, so the
ledger's composition of what ran is not a valid bound) it is the exact
composition of the steps' guarantees, which are fixed in advance: the Gaussian
steps' ``mu``-GDP with the others' ``(epsilon_i, delta_i)`` (at most their sum).
"""

import contextvars
import math
import sys
import warnings
from copy import deepcopy
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.pipeline import Pipeline, _name_estimators
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._boundary import (
    _components,
    _is_private,
    add_secure_support,
    boundary_leaks,
    privacy_leaks,
    report_leaks,
    step_leak_message,
)
from ._engine._randomness import FIXED_SEED_MESSAGE, draw_seed, spawn_seeds
from ._engine._secure import GENERATORS_PER_FIT
from ._errors import NotFittedAttributesMixin
from ._sklearn_compat import Interval, StrOptions, _BaseComposition, _safe_set_output
from .accounting import (
    PrivacyLedger,
    _ledger_guard_state,
    fixed_shares_epsilon,
    gdp_epsilon,
    gdp_mu,
)
from .exceptions import PrivacyLeakWarning

__all__ = ["PrivatePipeline", "find_privacy_leaks", "make_private_pipeline"]

# Default share of the budget given to the private preprocessing steps together.
PREPROCESSING_SHARE = 0.1
# Each share (of epsilon, of delta, of mu^2) is scaled down by this (relative) so
# that float error in the calibrations and sums can never take the composed spend
# above the total.
_SPLIT_MARGIN = 1e-9

# Set by fit_transform for the fit it calls (and cleared there, before the steps
# run, so that nested pipelines do not see it): a list that receives the training
# output of the scikit-learn pipeline's fit_transform, which transforms X once
# instead of fit's pass followed by transform's second pass.
_TRAINING_OUTPUT = contextvars.ContextVar("_TRAINING_OUTPUT", default=None)


class Budget(NamedTuple):
    """A step's share ``(epsilon, delta)``: a tuple, shown to 4 significant digits.

    The values are the exact floats the step was given (compare them, sum them);
    only the repr is short.
    """

    epsilon: float
    delta: float

    def __repr__(self):
        return f"(epsilon={self.epsilon:.4g}, delta={self.delta:.4g})"


def _reads_data(est):
    hook = getattr(est, "_reads_data", None)
    return hook() if callable(hook) else True


def find_privacy_leaks(estimator):
    """The steps of an estimator that fit on data without a privacy mechanism.

    Walks every estimator inside ``estimator`` (pipeline steps, the transformers
    of a ``ColumnTransformer`` or ``FeatureUnion``, nested pipelines). A step
    leaks unless it is a mechanism of this package or a scikit-learn transformer
    that is safe as it is: row-wise or stateless (``Normalizer``, ``Binarizer``,
    ``PolynomialFeatures``, ``MissingIndicator(features="all")``, and a
    ``FunctionTransformer`` whose ``func`` is None, a NumPy ufunc or declared
    row-wise with :func:`sklearn_dpgd.preprocessing.row_wise`, without an inverse
    check), or fixed by public parameters (``OneHotEncoder`` with explicit
    ``categories``, no frequency filter, ``drop=None`` and ``handle_unknown`` in
    ``{"ignore", "infrequent_if_exist"}``; ``OrdinalEncoder`` with explicit
    ``categories`` and ``handle_unknown="use_encoded_value"``;
    ``SimpleImputer(strategy="constant", keep_empty_features=True)`` without
    ``add_indicator``). Any other ``FunctionTransformer`` may read every row
    (``scipy.stats.zscore`` standardises by the columns' statistics); an encoder
    that raises or warns about an undeclared value tells whether a private row
    holds one. A ``ColumnTransformer`` with ``sparse_threshold > 0`` and a
    transformer that may return a sparse matrix leaks the density of its output
    (``sparse_output_``).

    Parameters
    ----------
    estimator : estimator object
        E.g. a :class:`~sklearn.pipeline.Pipeline`; not fitted or fitted.

    Returns
    -------
    leaks : list of tuple (str, str, str)
        ``(path, class name, what its fit reads)``, in ``get_params`` order; the
        path of ``estimator`` itself is ``""``.
    """
    return privacy_leaks(estimator)


def _is_gaussian(est):
    """Whether a step declares that its fit is ``gdp_mu(epsilon, delta)``-GDP."""
    refusal = getattr(est, "_gdp_ledger_refusal", None)
    return callable(refusal) and refusal() is None


class PrivatePipeline(NotFittedAttributesMixin, MetaEstimatorMixin, _BaseComposition):
    """A pipeline fitted on one total privacy budget, split among its steps.

    ``fit`` clones the steps (the parameters given are never changed), sets the
    ``epsilon``, ``delta``, ``neighboring``, ``random_state`` and ``secure_mode``
    of every private step that reads data (and ``public_n_samples`` where it has
    one) to its share (see the module docstring), fits them as a
    :class:`~sklearn.pipeline.Pipeline` inside its own capped
    :class:`~sklearn_dpgd.accounting.PrivacyLedger`, and warns
    :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` for every step that fits
    without a mechanism (:func:`find_privacy_leaks`). Every step also records
    into the ledgers open around the fit, whose caps it respects.

    Parameters
    ----------
    steps : list of (str, estimator)
        As :class:`~sklearn.pipeline.Pipeline`'s.
    epsilon : float, default=1.0
        Total budget, > 0.
    delta : float, default=1e-8
        Total delta, in (0, 1).
    preprocessing_share : float, default=0.1
        Share of the budget of the private preprocessing steps together, in (0,
        1) (all of it when the final step is a transformer or reads no data).
    budget_split : dict of str to float or None, default=None
        Share of every data-reading private step by path (e.g. ``{"prep__num":
        0.05, "clf": 0.95}``), positive, summing to 1; overrides the default.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Set on every private step.
    public_n_samples : int or None, default=None
        A declared public number of rows, given to the steps that take one.
    random_state : None, int or RandomState, default=None
        None: every step draws fresh OS entropy; an int seeds every step (warns
        once).
    secure_mode : bool, default=False
        Passed to every private step.

    Attributes
    ----------
    pipeline_ : sklearn.pipeline.Pipeline
        The fitted clones.
    budget_ : dict of str to Budget
        ``(epsilon, delta)`` given to every data-reading private step, as a
        ``Budget`` named tuple (exact floats, a repr to 4 significant digits).
        Each is the step's own guarantee in epsilon; with "gdp" accounting they
        compose to the total by Gaussian differential privacy, not by a sum
        (e.g. 0.43 and 0.89 for a total of 1.0: ``mu^2`` adds up, epsilon does
        not), so their sum exceeds ``epsilon``. ``budget_shares_`` gives the
        shares that do add up to 1.
    budget_shares_ : dict of str to float
        Share of the total of every data-reading private step, summing to 1:
        of ``mu^2`` with "gdp" accounting, of ``epsilon`` (and ``delta``) with
        "basic" (``budget_split``, or the default split).
    accounting_ : {"gdp", "basic"}
        How the budget was split.
    ledger_ : PrivacyLedger
        What the steps ran.
    epsilon_, delta_ : float
        Total spent, at most ``(epsilon, delta)``. "gdp": ``ledger_.epsilon(delta)``,
        the exact GDP composition of what ran. "basic": the exact composition of
        the steps' guarantees fixed in advance (Gaussian steps as ``mu``-GDP,
        the others as ``(epsilon_i, delta_i)``-DP; Dong, Roth & Su 2022, Thm
        3.2; Kairouz, Oh & Viswanath 2015, Thm 3.4), at most the sum of the
        shares' epsilons.
    classes_ : ndarray
        Of the final step, when it has them.

    Raises
    ------
    ValueError
        In ``fit``: if ``budget_split`` does not name every data-reading
        private step with a positive share, or its shares do not sum to 1.
    BudgetExhaustedError
        If an open ledger's cap would be exceeded (nothing is read).

    Notes
    -----
    As in :class:`~sklearn.pipeline.Pipeline`, ``pipe[i]``, ``pipe["name"]``,
    ``pipe.steps`` and ``pipe.named_steps`` are the fitted steps after ``fit``
    (fitted clones of the steps given, which are not changed), and ``pipe[:k]``
    the sub-pipeline.

    Inside :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV` the pipeline
    is one candidate estimator: each candidate refits the whole pipeline, its
    preprocessing included, on the train part, and the refit on all rows, so the
    preprocessing is paid per candidate (like the classifier). It is accepted
    there when every data-reading step is a Gaussian mechanism and no step leaks.
    To pay for the preprocessing once, fit it alone first and search the
    classifier on its output inside one ``PrivacyLedger`` (sequential
    composition of the two).
    """

    _parameter_constraints = {
        "steps": [list],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "preprocessing_share": [Interval(Real, 0, 1, closed="neither")],
        "budget_split": [dict, None],
        "neighboring": [StrOptions({"add_remove", "replace"})],
        "public_n_samples": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
        "secure_mode": ["boolean"],
    }

    def __init__(
        self,
        steps,
        *,
        epsilon=1.0,
        delta=1e-8,
        preprocessing_share=PREPROCESSING_SHARE,
        budget_split=None,
        neighboring="add_remove",
        public_n_samples=None,
        random_state=None,
        secure_mode=False,
    ):
        self.steps = steps
        self.epsilon = epsilon
        self.delta = delta
        self.preprocessing_share = preprocessing_share
        self.budget_split = budget_split
        self.neighboring = neighboring
        self.public_n_samples = public_n_samples
        self.random_state = random_state
        self.secure_mode = secure_mode

    def get_params(self, deep=True):
        """Parameters, with the steps' own as ``<step>__<param>`` when deep.

        Parameters
        ----------
        deep : bool, default=True
            Include the parameters of the steps.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        return self._get_params("steps", deep=deep)

    def set_params(self, **params):
        """Set parameters, also of the steps (``<step>__<param>``).

        Parameters
        ----------
        **params : dict
            Parameter names mapped to their new values.

        Returns
        -------
        self : PrivatePipeline
            This pipeline.
        """
        self._set_params("steps", **params)
        return self

    def __getstate__(self):
        return _ledger_guard_state(super().__getstate__())

    def __len__(self):
        """The number of steps."""
        return len(self.steps)

    def __getitem__(self, ind):
        """A step, or a sub-pipeline, as :class:`~sklearn.pipeline.Pipeline`'s.

        Parameters
        ----------
        ind : int, str or slice
            An int or a step's name gives the step (fitted after ``fit``: the
            steps are then the fitted clones, as in ``Pipeline``); a slice gives
            the sub-pipeline: of a fitted pipeline, the
            :class:`~sklearn.pipeline.Pipeline` of its fitted steps (it can
            ``transform``, reading no more data); before ``fit``, a
            ``PrivatePipeline`` of the steps with the same budget (a
            ``budget_split`` is kept only for the whole pipeline).

        Returns
        -------
        estimator or Pipeline or PrivatePipeline
            The step or the sub-pipeline.

        Raises
        ------
        ValueError
            For a slice with a step other than 1.
        IndexError, KeyError
            For an index or a name that is not a step.
        """
        if isinstance(ind, slice):
            if ind.step not in (None, 1):
                raise ValueError("PrivatePipeline slicing only supports a step of 1")
            if hasattr(self, "pipeline_"):
                return self.pipeline_[ind]
            params = self.get_params(deep=False)
            params["steps"] = self.steps[ind]
            if len(params["steps"]) != len(self.steps):
                params["budget_split"] = None
            return type(self)(**params)
        if isinstance(ind, str):
            return self.named_steps[ind]
        return self.steps[ind][1]

    def __repr__(self, N_CHAR_MAX=700):
        # Arrays of the steps (e.g. a scaler's 30 x 2 public bounds) summarised
        # as numpy does for long arrays: the first and last rows.
        with np.printoptions(threshold=8, edgeitems=2):
            return super().__repr__(N_CHAR_MAX=N_CHAR_MAX)

    def _pipeline(self):
        return Pipeline(
            [
                (name, clone(est) if hasattr(est, "get_params") else est)
                for name, est in self.steps
            ]
        )

    def _readers(self, pipe):
        components = _components(pipe)[1:]
        # A nested PrivatePipeline splits its own share among its steps.
        nested = [p + "__" for p, est in components if isinstance(est, PrivatePipeline)]
        return [
            (path, est)
            for path, est in components
            if _is_private(est)
            and _reads_data(est)
            and not any(path.startswith(n) for n in nested)
        ]

    def set_output(self, *, transform=None):
        """Set the output container of every step's ``transform``.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None, default=None
            As :meth:`sklearn.pipeline.Pipeline.set_output`; None leaves it.

        Returns
        -------
        self : PrivatePipeline
            This pipeline.
        """
        for _, step in self.steps:
            _safe_set_output(step, transform=transform)
        return self

    def _shares(self, readers):
        paths = [p for p, _ in readers]
        if self.budget_split is not None:
            split = {str(k): float(v) for k, v in self.budget_split.items()}
            if set(split) != set(paths) or min(split.values(), default=1) <= 0:
                raise ValueError(
                    f"budget_split must give a positive share to exactly the "
                    f"data-reading private steps {paths}, got {sorted(split)}."
                )
            if abs(sum(split.values()) - 1.0) > 1e-9:
                raise ValueError("budget_split's shares must sum to 1.")
            return split
        final, final_est = self.steps[-1]
        # A final transformer is preprocessing too: the model is a final step
        # that predicts without transforming.
        model = [
            p
            for p in paths
            if not hasattr(final_est, "transform")
            and (p == final or p.startswith(final + "__"))
        ]
        prep = [p for p in paths if p not in model]
        prep_total = (
            1.0 if not model else (float(self.preprocessing_share) if prep else 0.0)
        )
        shares = {p: prep_total / len(prep) for p in prep}
        shares.update({p: (1.0 - prep_total) / len(model) for p in model})
        return shares

    def _plan(self, readers):
        """``(accounting, {path: (epsilon, delta)})`` from public quantities."""
        shares = self._shares(readers)
        eps, delta = float(self.epsilon), float(self.delta)
        gaussian = all(_is_gaussian(est) for _, est in readers)
        keep = 1.0 - _SPLIT_MARGIN
        if gaussian:
            mu = gdp_mu(eps, delta)
            budget = {
                p: Budget(gdp_epsilon(np.sqrt(s) * mu * keep, delta), delta)
                for p, s in shares.items()
            }
            return "gdp", budget
        # delta's shares keep the same margin: summed in float, 0.1 and 0.9 of
        # 1e-8 give more than 1e-8.
        return "basic", {
            p: Budget(s * eps * keep, s * delta * keep) for p, s in shares.items()
        }

    def _gdp_ledger_refusal(self):
        """Why the fit is not recorded as full-batch Gaussian steps; None if it is.

        Used by :class:`~sklearn_dpgd.model_selection.PrivateGridSearchCV`.
        """
        pipe = self._pipeline()
        leaks = find_privacy_leaks(pipe)
        if leaks:
            return f"step {leaks[0][0]!r} fits without a privacy mechanism"
        readers = self._readers(pipe)
        if not readers:
            return "no step reads data through a Gaussian mechanism"
        accounting, _ = self._plan(readers)
        if accounting != "gdp":
            return "a step is not a Gaussian mechanism"
        return None

    def _configure(self, pipe, budget, seeds, fixed):
        for (path, est), seed in zip(self._readers(pipe), seeds, strict=True):
            eps, delta = budget[path]
            names = est.get_params(deep=False)
            params = {
                "epsilon": eps,
                "delta": delta,
                "neighboring": self.neighboring,
                "random_state": (
                    np.random.RandomState(np.random.MT19937(seed)) if fixed else None
                ),
                "secure_mode": bool(self.secure_mode),
            }
            if self.public_n_samples is not None and "public_n_samples" in names:
                params["public_n_samples"] = int(self.public_n_samples)
            pipe.set_params(
                **{f"{path}__{k}": v for k, v in params.items() if k in names}
            )

    def fit(self, X, y=None, **fit_params):
        """Split the budget, fit clones of the steps, report the total spend.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The private training data (e.g. a raw DataFrame).
        y : array-like of shape (n_samples,) or None
            The private labels (None for transformer-only pipelines).
        **fit_params : dict
            Passed to :meth:`sklearn.pipeline.Pipeline.fit`.

        Returns
        -------
        self : PrivatePipeline
            The fitted pipeline.

        Warns
        -----
        PrivacyLeakWarning
            For every step that fits without a privacy mechanism (naming the
            step and what it reads), and once if ``random_state`` fixes the noise.
        """
        self._validate_params()
        output = _TRAINING_OUTPUT.get()
        if output is not None:
            _TRAINING_OUTPUT.set(None)
        pipe = self._pipeline()
        # Every step, and the scikit-learn constructs fitting this pipeline, before
        # any step reads data: a warning once per process per leak (a search fits
        # many clones), or in strict mode an error before anything is fitted.
        leaks = [
            (("step", path, name, reads), name, step_leak_message(path, name, reads))
            for path, name, reads in find_privacy_leaks(pipe)
        ]
        report_leaks(leaks + boundary_leaks(sys._getframe(1), self), self)
        readers = self._readers(pipe)
        self.accounting_, self.budget_ = self._plan(readers)
        gaussian = {path: _is_gaussian(est) for path, est in readers}
        random_state = None if self.secure_mode else self.random_state
        root = draw_seed(random_state, owner=type(self).__name__)
        fixed = random_state is not None
        self._configure(pipe, self.budget_, spawn_seeds(root, len(readers)), fixed)
        ledger = PrivacyLedger(float(self.epsilon), float(self.delta))
        ledger._internal = True  # the pipeline's own: numbers no fixed seeds
        with warnings.catch_warnings():
            # The pipeline warned once for its fixed seed; not once per step.
            warnings.filterwarnings(
                "ignore", message=FIXED_SEED_MESSAGE, category=PrivacyLeakWarning
            )
            with ledger:
                if output is None:
                    pipe.fit(X, y, **fit_params)
                else:
                    output.append(pipe.fit_transform(X, y, **fit_params))
        self.pipeline_ = pipe
        # As Pipeline: after fit, steps (and so self[i], named_steps) are the
        # fitted steps. They are clones: the estimators passed in are unchanged.
        self.steps = list(pipe.steps)
        self.budget_shares_ = {
            path: float(share) for path, share in self._shares(readers).items()
        }
        self.ledger_ = ledger
        if self.accounting_ == "gdp":
            # Gaussian steps with GDP shares fixed in advance compose exactly,
            # adaptively too (Dong, Roth & Su 2022, Thm 3.2).
            self.delta_ = float(self.delta)
            self.epsilon_ = ledger.epsilon(self.delta_)
        else:
            # A step's plan may depend on an earlier step's release (the columns
            # a private encoder keeps set the classifier's dimension), so the
            # ledger's composition of what ran, as if it had been fixed, is not a
            # valid bound. What is fixed in advance is each step's guarantee: the
            # exact composition of those (fixed_shares_epsilon) is.
            self.delta_ = math.fsum(d for _, d in self.budget_.values())
            self.epsilon_ = fixed_shares_epsilon(self.budget_, gaussian, self.delta_)
            add_secure_support(self, GENERATORS_PER_FIT * len(readers))
        first = pipe.steps[0][1]
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(first, attr):
                setattr(self, attr, getattr(first, attr))
        return self

    def _final_has(attr):
        def check(self):
            final = self.steps[-1][1]
            return final not in (None, "passthrough") and hasattr(final, attr)

        return check

    @property
    def classes_(self):
        """Class labels of the fitted final step."""
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.steps[-1][1].classes_

    @property
    def named_steps(self):
        """The steps by name: fitted after ``fit`` (as ``steps``), as given before."""
        if hasattr(self, "pipeline_"):
            return self.pipeline_.named_steps
        return dict(self.steps)

    @available_if(_final_has("predict"))
    def predict(self, X, **params):
        """Predict with the fitted pipeline.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to pass through the fitted steps.
        **params : dict
            Passed to the final step's method.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The final step's output.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.predict(X, **params)

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X, **params):
        """Class probabilities of the fitted pipeline.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to pass through the fitted steps.
        **params : dict
            Passed to the final step's method.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The final step's output.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.predict_proba(X, **params)

    @available_if(_final_has("decision_function"))
    def decision_function(self, X, **params):
        """Decision function of the fitted pipeline.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to pass through the fitted steps.
        **params : dict
            Passed to the final step's method.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The final step's output.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.decision_function(X, **params)

    @available_if(_final_has("score"))
    def score(self, X, y=None, **params):
        """Score of the fitted pipeline (the final step's ``score``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Test data.
        y : array-like of shape (n_samples,) or None, default=None
            True labels.
        **params : dict
            Passed to the final step's ``score``.

        Returns
        -------
        score : float
            E.g. the accuracy of a classifier.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.score(X, y, **params)

    @available_if(_final_has("transform"))
    def transform(self, X, **params):
        """Transform with the fitted pipeline.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to pass through the fitted steps.
        **params : dict
            Passed to the final step's method.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_output_features)
            The final step's output.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.transform(X, **params)

    @available_if(_final_has("transform"))
    def fit_transform(self, X, y=None, **fit_params):
        """Fit (see :meth:`fit`), then transform ``X`` with the fitted pipeline.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to fit and transform.
        y : array-like of shape (n_samples,) or None, default=None
            The private labels.
        **fit_params : dict
            Passed to :meth:`fit`.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_output_features)
            The final step's output: the scikit-learn pipeline's
            ``fit_transform``, which transforms ``X`` once (the same values as
            ``fit(X, y).transform(X)`` for steps whose ``fit_transform`` is
            ``fit`` then ``transform``).
        """
        output = []
        token = _TRAINING_OUTPUT.set(output)
        try:
            self.fit(X, y, **fit_params)
        finally:
            _TRAINING_OUTPUT.reset(token)
        return output[0]

    def get_feature_names_out(self, input_features=None):
        """Output feature names of the fitted pipeline.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            As :meth:`sklearn.pipeline.Pipeline.get_feature_names_out`.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column.
        """
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.get_feature_names_out(input_features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        final = self.steps[-1][1] if self.steps else None
        if final is not None and final != "passthrough":
            last = get_tags(final)
            tags.estimator_type = last.estimator_type
            tags.classifier_tags = deepcopy(last.classifier_tags)
            tags.regressor_tags = deepcopy(last.regressor_tags)
            tags.transformer_tags = deepcopy(last.transformer_tags)
        first = self.steps[0][1] if self.steps else None
        if first is not None and first != "passthrough":
            tags.input_tags = deepcopy(get_tags(first).input_tags)
        return tags


def make_private_pipeline(
    *steps,
    epsilon=1.0,
    delta=1e-8,
    preprocessing_share=PREPROCESSING_SHARE,
    budget_split=None,
    neighboring="add_remove",
    public_n_samples=None,
    random_state=None,
    secure_mode=False,
):
    """A :class:`PrivatePipeline` of ``steps`` named as ``make_pipeline`` names them.

    Parameters
    ----------
    *steps : estimators
        The steps, named after their lower-cased class names.
    epsilon : float, default=1.0
        Total budget, > 0.
    delta : float, default=1e-8
        Total delta, in (0, 1).
    preprocessing_share : float, default=0.1
        As :class:`PrivatePipeline`'s.
    budget_split : dict of str to float or None, default=None
        As :class:`PrivatePipeline`'s.
    neighboring : {"add_remove", "replace"}, default="add_remove"
        Set on every private step.
    public_n_samples : int or None, default=None
        A declared public number of rows.
    random_state : None, int or RandomState, default=None
        As :class:`PrivatePipeline`'s.
    secure_mode : bool, default=False
        Passed to every private step.

    Returns
    -------
    pipeline : PrivatePipeline
        Unfitted.
    """
    return PrivatePipeline(
        _name_estimators(steps),
        epsilon=epsilon,
        delta=delta,
        preprocessing_share=preprocessing_share,
        budget_split=budget_split,
        neighboring=neighboring,
        public_n_samples=public_n_samples,
        random_state=random_state,
        secure_mode=secure_mode,
    )
