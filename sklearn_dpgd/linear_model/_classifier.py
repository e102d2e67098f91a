"""The shared base of :class:`~sklearn_dpgd.DPLogisticRegression` and
:class:`~sklearn_dpgd.DPHuberSVM`: the engine of ``_base.py`` with labels, decision
scores and predicted classes."""

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._base import linear_scores
from .._engine._dask import is_dask_collection, map_rows
from .._validation import validate_data
from ._base import _BaseDPLinearModel


class _BaseDPLinearClassifier(ClassifierMixin, _BaseDPLinearModel):
    """Shared predict of the private linear classifiers (one loss per subclass)."""

    def decision_function(self, X):
        """Decision scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        scores : ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            Binary: positive values favour ``classes_[1]``. Multiclass: one column
            per class, in the order of ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "decision_function", X)
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        scores = np.asarray(linear_scores(X, self.coef_)) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix, pandas DataFrame, dask array} of shape \
                (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            Labels from ``classes_``.
            A lazy dask array, row-chunked as ``X``, for dask input.
        """
        if is_dask_collection(X):
            return map_rows(self, "predict", X)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
