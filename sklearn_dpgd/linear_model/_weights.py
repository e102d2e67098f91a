"""Sample and class weights of the private linear classifiers.

Each row's clipped gradient is multiplied by its weight ``w_i = s_i c_{y_i}``
(``sample_weight`` times the class weight) inside the kernels, so one row adds at
most ``w_max C`` to the gradient sum. The noise is calibrated to that bound, which
must be public and fixed before any data is read:

``w_max = max_sample_weight * max_k c_k``

* ``class_weight`` a dict: the weights are public (chosen without the data), and
  their largest value scales the sensitivity;
* ``class_weight="balanced"``: scikit-learn's ``n / (K n_k)`` from noisy class
  counts (:func:`noisy_class_counts`, charged to the fit), rescaled so that the
  largest class weight is exactly 1: ``c_k = min_j n~_j / n~_k``. ``n`` cancels, so
  no rule reads the private number of rows. Only the ratios of the weights matter
  for the model when the penalty is rescaled with them (:func:`balanced_weights`),
  and with the largest weight at 1 the sensitivity is that of an unweighted fit
  (any other common scale multiplies the signal and the noise alike).

The sensitivity of the weighted sum ``sum_i w_i clip(g_i, C)``: adding or removing
one row changes one term, of norm at most ``w_max C``; replacing one row changes one
term into another, by at most ``2 w_max C``. The oracle
(:class:`~sklearn_dpgd._engine._oracle.PrivateGradientOracle`, ``max_weight``)
scales the unweighted sensitivity by ``w_max``.
"""

import math

import numpy as np

from .._engine._dask import is_dask_collection
from .._public_size import count_noise_multiplier
from .._sklearn_compat import _check_sample_weight as _sklearn_check_sample_weight
from .._validation import without_private_values

__all__ = [
    "CLASS_COUNT_SHARE",
    "balanced_weights",
    "check_sample_weight",
    "check_weight_settings",
    "resolve_class_weights",
    "class_weight_vector",
    "noisy_class_counts",
    "row_weights",
]

# Share of the fit's squared GDP budget (mu**2) spent on the noisy class counts of
# class_weight="balanced": their GDP mu is sqrt(0.01) mu = mu / 10 (as the row count).
CLASS_COUNT_SHARE = 0.01

# L2 sensitivity of the vector of class counts: adding or removing a row moves one
# count by 1; replacing a row moves two counts by 1 each.
_COUNT_SENSITIVITY = {"add_remove": 1.0, "replace": math.sqrt(2.0)}


def check_sample_weight(sample_weight, X, max_sample_weight):
    """Validate ``sample_weight`` against its public bound.

    Parameters
    ----------
    sample_weight : array-like, dask array of shape (n_samples,) or None
    X : ndarray, CSR matrix or dask.array.Array of shape (n_samples, n_features)
        The validated training data (for the number of rows and the backend).
    max_sample_weight : float
        The public bound, > 0.

    Returns
    -------
    weights : ndarray of shape (n_samples,), float64, dask array or None
        A copy (the caller's array is never written to).

    Raises
    ------
    ValueError
        If the weights are not 1-D of length ``n_samples``, or one of them is
        negative, NaN, infinite or above ``max_sample_weight`` (no value of the
        private weights is named).
    """
    if sample_weight is None:
        return None
    if is_dask_collection(X):
        return _check_dask_sample_weight(sample_weight, X, max_sample_weight)
    # The bound first (scikit-learn's message for NaN would not name it), then
    # scikit-learn's checks of the shape (and of lists, Series, scalars); all-zero
    # weights are allowed: refusing them would read every row's weight, and such a
    # fit is private (it releases noise).
    values = np.asarray(sample_weight, dtype=np.float64)
    if values.size:
        _check_range(
            bool(np.all(np.isfinite(values))),
            float(np.nanmin(values)) if not np.all(np.isnan(values)) else 0.0,
            float(np.nanmax(values)) if not np.all(np.isnan(values)) else 0.0,
            max_sample_weight,
        )
    try:
        weights = _sklearn_check_sample_weight(
            sample_weight, X, dtype=np.float64, copy=True
        )
    except ValueError as exc:  # its shape error prints the number of rows
        message = without_private_values(exc)
        if message is None:
            raise
        raise ValueError(message) from None
    _check_range(
        bool(np.all(np.isfinite(weights))),
        float(weights.min()),
        float(weights.max()),
        max_sample_weight,
    )
    return weights


def _check_dask_sample_weight(sample_weight, X, max_sample_weight):
    import dask
    import dask.array as da

    if not is_dask_collection(sample_weight):
        sample_weight = da.from_array(np.asarray(sample_weight), chunks=X.chunks[0])
    if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
        raise ValueError(
            "sample_weight must have one weight per row of X (the number of rows "
            "is not shown: it is private data)."
        )
    weights = sample_weight.astype(np.float64).rechunk({0: X.chunks[0]}).persist()
    finite, low, high = dask.compute(
        da.isfinite(weights).all(), weights.min(), weights.max()
    )
    _check_range(bool(finite), float(low), float(high), max_sample_weight)
    return weights


def _check_range(finite, low, high, bound):
    if not (finite and low >= 0.0 and high <= bound):
        raise ValueError(
            f"sample_weight must hold finite weights in [0, max_sample_weight="
            f"{bound:g}]: a row's weight multiplies its clipped gradient, and the "
            "noise is calibrated to the public bound max_sample_weight. Raise "
            "max_sample_weight (the noise grows with it) or rescale the weights."
        )


def class_weight_vector(class_weight, classes):
    """Public class weights of a dict ``class_weight``, in the order of ``classes``.

    Parameters
    ----------
    class_weight : dict or None
        ``{label: weight}``; labels not in it get weight 1 (as in scikit-learn).
    classes : ndarray of shape (n_classes,)
        ``classes_``.

    Returns
    -------
    weights : ndarray of shape (n_classes,), float64, or None
        None when ``class_weight`` is None.

    Raises
    ------
    ValueError
        If a key is not in ``classes``, or a weight is negative or not finite, or
        every weight is 0.
    """
    if class_weight is None:
        return None
    labels = list(classes)
    unknown = [k for k in class_weight if k not in labels]
    if unknown:
        raise ValueError(
            f"class_weight has labels {unknown!r} not in classes_ {labels!r}."
        )
    weights = np.array(
        [float(class_weight.get(label, 1.0)) for label in labels], dtype=np.float64
    )
    if not np.all(np.isfinite(weights) & (weights >= 0.0)) or weights.max() == 0:
        raise ValueError(
            "class_weight values must be finite and >= 0, not all 0; got "
            f"{class_weight!r}."
        )
    return weights


def noisy_class_counts(y_index, n_classes, *, neighboring, noise_multiplier, rng):
    """The Gaussian mechanism on the vector of class counts.

    The caller must have charged ``GaussianSteps(noise_multiplier)`` to its ledger
    (and record it in its filter) before calling: the counts are a histogram of
    L2 sensitivity 1 under add/remove-one, ``sqrt(2)`` under replace-one.

    Parameters
    ----------
    y_index : ndarray or dask.array.Array of shape (n_samples,), int64
        Private class indices.
    n_classes : int
    neighboring : {"add_remove", "replace"}
    noise_multiplier : float
        Noise std in units of the sensitivity.
    rng : numpy.random.Generator or SecureGenerator

    Returns
    -------
    counts : ndarray of shape (n_classes,), float64
        Noisy, not clamped.

    Notes
    -----
    Dwork & Roth (2014), Thm A.1 (Gaussian mechanism) on a histogram.
    """
    if is_dask_collection(y_index):
        exact = np.asarray(
            y_index.map_blocks(
                np.bincount, minlength=n_classes, chunks=(n_classes,), dtype=np.int64
            )
            .reshape(-1, n_classes)
            .sum(axis=0)
            .compute(),
            dtype=np.float64,
        )
    else:
        exact = np.bincount(y_index, minlength=n_classes).astype(np.float64)
    sigma = noise_multiplier * _COUNT_SENSITIVITY[neighboring]
    return exact + sigma * rng.standard_normal(n_classes)


def balanced_weights(noisy_counts, *, noise_multiplier, neighboring):
    """Class weights of "balanced" from noisy counts, largest weight exactly 1.

    Parameters
    ----------
    noisy_counts : ndarray of shape (n_classes,)
        From :func:`noisy_class_counts`.
    noise_multiplier : float
    neighboring : {"add_remove", "replace"}

    Returns
    -------
    weights : ndarray of shape (n_classes,)
        ``min_j n~_j / n~_k``, each in (0, 1], the largest 1.
    penalty_factor : float
        ``K min_j n~_j / sum_j n~_j``: the common factor by which these weights
        are below scikit-learn's ``n / (K n_k)`` (with the clamped noisy total for
        ``n``). The L2 penalty is multiplied by it, so the objective's minimiser is
        that of ``LogisticRegression(class_weight="balanced")`` with the same
        ``C``.

    Notes
    -----
    Each noisy count is clamped below at the noise std ``sigma`` (and at 1): a
    count below its own noise level cannot be told from zero, and the floor bounds
    the largest weight ratio by ``max n~ / sigma``, so a class absent from the data
    (declared in ``classes``) cannot take almost all the weight. Post-processing of
    the noisy counts: no privacy cost.
    """
    sigma = noise_multiplier * _COUNT_SENSITIVITY[neighboring]
    counts = np.maximum(np.asarray(noisy_counts, dtype=np.float64), max(sigma, 1.0))
    smallest = counts.min()
    weights = smallest / counts
    return weights, float(counts.shape[0] * smallest / counts.sum())


def row_weights(class_weights, sample_weight, y_index, max_sample_weight):
    """Per-row weights ``s_i c_{y_i}`` and their public bound ``w_max``.

    Parameters
    ----------
    class_weights : ndarray of shape (n_classes,) or None
        Resolved class weights (a dict's, or "balanced"'s, largest 1).
    sample_weight : ndarray or dask array of shape (n_samples,) or None
        Validated by :func:`check_sample_weight`.
    y_index : ndarray or dask array of shape (n_samples,), int64
    max_sample_weight : float
        The public bound of ``sample_weight``.

    Returns
    -------
    weights : ndarray or dask array of shape (n_samples,), float64, or None
        None when neither weight is given (the unweighted kernels run).
    max_weight : float
        ``w_max``: ``max_sample_weight`` (1 without ``sample_weight``: every row
        then weighs 1) times the largest class weight (1 without class weights).
        Public: it depends on the parameters only, never on the rows.
    """
    if class_weights is None and sample_weight is None:
        return None, 1.0
    max_weight = 1.0 if sample_weight is None else float(max_sample_weight)
    if class_weights is None:
        return sample_weight, max_weight
    max_weight *= float(class_weights.max())
    if is_dask_collection(y_index):
        by_class = y_index.map_blocks(_lookup, class_weights, dtype=np.float64)
    else:
        by_class = class_weights[y_index]
    if sample_weight is None:
        return by_class, max_weight
    return sample_weight * by_class, max_weight


def _lookup(y_chunk, class_weights):
    return class_weights[y_chunk]


def check_weight_settings(estimator, sample_weighted):
    """Refuse weights where their sensitivity is not implemented (public checks).

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier
    sample_weighted : bool
        Whether ``fit`` was given a ``sample_weight``.

    Raises
    ------
    ValueError
        If weights (sample or class) are used with ``solver="newton"``, or
        ``class_weight="balanced"`` with ``solver="snowball"``.
    """
    if not sample_weighted and estimator.class_weight is None:
        return
    if estimator.solver == "newton":
        raise ValueError(
            "sample_weight and class_weight need solver='gd' or 'snowball': "
            "solver='newton' bounds the sensitivity of unweighted Hessians."
        )
    if estimator.solver == "snowball" and estimator.class_weight == "balanced":
        raise ValueError(
            "class_weight='balanced' needs solver='gd': its noisy class counts "
            "would have to enter Snowball-SGD's amplification-by-iteration plan; "
            "pass a dict of public class weights."
        )


def resolve_class_weights(estimator, y_index, mu, rng):
    """The class weights of a fit, running the noisy counts of "balanced".

    The caller has charged its active ledgers with the fit's whole budget before
    (the counts' share of ``mu**2`` included) and records the counts in its filter
    (:func:`sklearn_dpgd._solvers.gd.training_filter`).

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier
        With ``classes_`` set.
    y_index : ndarray or dask array of shape (n_samples,), int64
    mu : float
        The fit's GDP budget.
    rng : numpy.random.Generator or SecureGenerator

    Returns
    -------
    class_weights : ndarray of shape (n_classes,) or None
    z_class : float or None
        Noise multiplier of the class counts ("balanced" only): the counts are
        ``sqrt(CLASS_COUNT_SHARE) mu``-GDP.
    penalty_factor : float
        Multiplies the L2 penalty (:func:`balanced_weights`; 1 otherwise).
    """
    if estimator.class_weight != "balanced":
        weights = class_weight_vector(estimator.class_weight, estimator.classes_)
        return weights, None, 1.0
    z_class = count_noise_multiplier(mu, CLASS_COUNT_SHARE)
    counts = noisy_class_counts(
        y_index,
        estimator.classes_.shape[0],
        neighboring=estimator.neighboring,
        noise_multiplier=z_class,
        rng=rng,
    )
    weights, penalty = balanced_weights(
        counts, noise_multiplier=z_class, neighboring=estimator.neighboring
    )
    return weights, z_class, penalty
