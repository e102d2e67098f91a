"""What the two baselines share: validation, budget, public size, labels and
prediction (the privacy argument is in :mod:`sklearn_dpgd.baselines`)."""

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._boundary import charge_ledgers
from .._engine._randomness import draw_seed, make_generator, spawn_seeds
from .._errors import NotFittedAttributesMixin
from .._public_size import SENSITIVITY_FACTOR, resolve_public_size
from .._sklearn_compat import Interval, StrOptions, available_if
from .._solvers._erm import gradient_bound, release_budget
from .._validation import validate_data, validate_fit_data
from .._warnings import warn_once
from ..accounting import (
    _ledger_guard_state,
)
from ..exceptions import WeakPrivacyWarning
from ..linear_model._weights import check_sample_weight

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
        "max_sample_weight": [Interval(Real, 0, None, closed="neither")],
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

    def _validate_fit_data(self, X, y, sample_weight):
        """``(X, y_index, n_outputs, weights, w_max)`` of a fit.

        ``weights`` is None without ``sample_weight``; ``w_max`` is the public
        bound of one row's weight: ``max_sample_weight`` with ``sample_weight``,
        1 without (every row then weighs 1). It depends on the parameters and on
        whether weights were passed, never on their values.
        """
        X, y_index = validate_fit_data(self, X, y)
        n_outputs = 1 if self.classes_.shape[0] == 2 else self.classes_.shape[0]
        weights = check_sample_weight(sample_weight, X, self.max_sample_weight)
        w_max = 1.0 if weights is None else float(self.max_sample_weight)
        return X, y_index, n_outputs, weights, w_max

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
