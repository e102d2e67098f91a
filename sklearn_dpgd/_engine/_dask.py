"""Dask data backend: row chunks stay in the memory of the Dask workers.

Private gradient descent on a generalised linear model needs, per step, one sum over
rows of clipped per-example gradients. That sum splits over row chunks: each worker runs
the kernel of :mod:`sklearn_dpgd._engine._kernels` on its chunks, the chunk sums are
added in chunk order on a worker, and only the ``(K, n_features + 1)`` total reaches the
client, where :class:`~sklearn_dpgd._engine._oracle.PrivateGradientOracle` charges the
filter, adds the Gaussian noise (from the estimator's generator) and divides, exactly as
for NumPy input. Every row lies in exactly one chunk, so the total has the sensitivity
of the NumPy sum and the guarantee is the NumPy path's: the privacy-critical sequence is
not duplicated here, only the sum is distributed.

What reaches the client: per step one clipped-gradient sum; at validation the chunk
lengths (``n_samples`` is public), one "all finite" flag, and the label information
the NumPy path also reads (the label set when ``classes`` is None, with a
:class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`; otherwise only labels outside
``classes``, which raise). Row indices of Poisson samples, row norms, labels and
rows never leave the workers. The workers, the scheduler and the client are trusted
as the single process of the NumPy path is: the guarantee covers what the fit
*publishes* (the fitted attributes), not the machines that compute it.

Poisson sampling on Dask uses a different random stream from the NumPy path: each
step the client draws one 128-bit seed per chunk from the oracle's generator, and the
worker holding the chunk draws one uniform per row from a generator seeded with it.
Each row is still included independently with probability ``q``, so the accounting
is unchanged; the samples (hence the coefficients) differ from a NumPy fit with the
same ``random_state``. Full-batch steps draw no sampling randomness on either path,
so those coefficients agree up to the order of floating-point additions.

Dask is an optional dependency (the ``dask`` extra): this module imports it only
inside the functions that receive dask arrays, so importing :mod:`sklearn_dpgd`
never imports Dask.
"""

import sys
import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from .._sklearn_compat import _check_feature_names, _check_n_features
from .._validation import encode_labels
from . import _newton_sums
from ._lazy import kernels
from ._secure import poisson_indices
from ._threads import serial_blas


def is_dask_collection(obj):
    """Whether ``obj`` is a Dask collection, without importing Dask.

    A Dask object can only exist once Dask is imported, so if it is not in
    ``sys.modules`` the answer is False.
    """
    dask = sys.modules.get("dask")
    return dask is not None and dask.is_dask_collection(obj)


def _require_dask_array(obj, name):
    import dask.array as da

    if not isinstance(obj, da.Array):
        hint = (
            " Convert a dask DataFrame or Series with .to_dask_array(lengths=True)."
            if is_dask_collection(obj)
            else ""
        )
        raise TypeError(
            f"{name} must be a dask.array.Array when the other of X and y is one "
            f"(both chunked by rows), got {type(obj).__name__}.{hint}"
        )
    if not isinstance(obj._meta, np.ndarray):
        raise TypeError(
            f"{name} must have NumPy chunks, got chunks of type "
            f"{type(obj._meta).__name__}."
        )


def _known_rows(arr):
    # Chunk lengths are public (they sum to n_samples); computing them on a persisted
    # array only reads block shapes.
    if any(np.isnan(c) for c in arr.chunks[0]):
        arr = arr.compute_chunk_sizes()
    return arr


def _check_dask_X(estimator, X):
    """Validate a dask X lazily: dtype, 2-D, full rows per chunk."""
    _require_dask_array(X, "X")
    if X.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {X.ndim}D dask array instead: reshape your data."
        )
    if X.dtype.kind == "c":
        raise ValueError("Complex data not supported.")
    if X.dtype not in (np.float32, np.float64):
        if X.dtype.kind not in "biufOUS":
            raise ValueError(f"X has dtype {X.dtype}; expected numbers.")
        # Strings that do not parse raise ValueError on the worker, before training.
        X = X.astype(np.float64)
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(np.ascontiguousarray, dtype=X.dtype)


def _unknown_labels(y_chunk, classes):
    return np.setdiff1d(y_chunk, classes)


def _encode_chunk(y_chunk, classes):
    return np.searchsorted(classes, y_chunk).astype(np.int64)


def check_fit_data(estimator, X, y):
    """Validate dask ``(X, y)`` for ``fit`` without reading rows on the client.

    Persists ``X`` and ``y`` in the workers' memory (so they are read once), then
    computes, on the workers, whether ``X`` is finite and the label information the
    NumPy path reads, and label-encodes ``y`` on the workers. Sets
    ``n_features_in_`` (and removes ``feature_names_in_``) and ``classes_``.

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier
        The estimator being fitted (its ``classes``).
    X : dask.array.Array of shape (n_samples, n_features)
        Chunks along rows (columns are merged into one chunk); NumPy chunks.
    y : dask.array.Array of shape (n_samples,)
        Labels; rechunked to the row chunks of ``X`` if they differ.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features), float32 or float64
        Persisted, known chunk sizes, one column chunk, C-contiguous chunks.
    y_index : dask.array.Array of shape (n_samples,), int64
        Class indices into ``classes_``, with the row chunks of ``X``.

    Raises
    ------
    TypeError
        If only one of ``X`` and ``y`` is a dask array, or either has non-NumPy
        chunks.
    ValueError
        As :func:`sklearn.utils.validation.validate_data` and
        :func:`sklearn_dpgd._validation.encode_labels`
        for NumPy input: wrong dimensions, complex or non-numeric ``X``, NaN or
        inf in ``X``, fewer than 2 rows or no column, different lengths,
        continuous ``y``, one class only, labels outside ``classes``.
    """
    import dask
    import dask.array as da

    X, y = _checked_rows(estimator, X, y, stacklevel=5)
    if estimator.classes is None:
        # The label set, as np.unique(y) on the NumPy path (the caller warns).
        labels = da.unique(y)
    else:
        declared = np.asarray(estimator.classes)
        # Only labels outside `classes` come back (none unless fit will raise).
        parts = [
            dask.delayed(_unknown_labels)(chunk, np.unique(declared.ravel()))
            for chunk in y.to_delayed().ravel()
        ]
        labels = dask.delayed(np.unique)(dask.delayed(np.concatenate)(parts))
    finite, labels = dask.compute(da.isfinite(X).all(), labels)
    if not finite:
        raise ValueError("Input X contains NaN or infinity.")
    if estimator.classes is not None and labels.size == 0:
        # Every label is declared: the checks of encode_labels see the classes.
        labels = declared
    # Same checks, errors and PrivacyLeakWarning as for NumPy labels; the codes it
    # returns for this summary are not needed.
    encode_labels(estimator, labels, stacklevel=6)
    y_index = y.map_blocks(_encode_chunk, estimator.classes_, dtype=np.int64)
    return X, y_index


def _checked_rows(estimator, X, y, stacklevel):
    """Persisted, validated dask ``(X, y)`` with the same row chunks (no value read
    on the client); sets ``n_features_in_`` (and removes ``feature_names_in_``).
    ``stacklevel`` of the column-vector warning counts from this function."""
    import dask

    X = _check_dask_X(estimator, X)
    _require_dask_array(y, "y")
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please "
            "change the shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=stacklevel,
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"y should be a 1d array, got an array of {y.ndim} dimensions instead."
        )

    X, y = dask.persist(X, y)
    X, y = _known_rows(X), _known_rows(y)
    n_samples, n_features = X.shape
    if n_samples != y.shape[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples (the "
            "numbers are not shown: they are private data)."
        )
    if n_samples < 2:
        raise ValueError(
            f"Found array with {n_samples} sample(s) while a "
            f"minimum of 2 is required by {type(estimator).__name__}."
        )
    if n_features < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape=(, 0)) while a minimum of 1 "
            f"is required by {type(estimator).__name__} (the number of rows is not "
            "shown: it is private data)."
        )
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk({0: X.chunks[0]}).persist()
    _check_n_features(estimator, X, reset=True)
    _check_feature_names(estimator, X, reset=True)
    return X, y


def _scaled_target_chunk(y_chunk, low, high, centre, scale):
    return (np.clip(y_chunk.astype(np.float64), low, high) - centre) / scale


def check_regression_fit_data(estimator, X, y, *, bounds, centre, scale):
    """Validate dask ``(X, y)`` of a regressor; return ``X`` and the scaled target.

    As :func:`check_fit_data`, with a real target: it is checked numeric and
    finite on the workers (one boolean comes back, as for ``X``), then clipped to
    the public ``bounds`` and mapped by ``(y - centre) / scale`` chunk by chunk.

    Parameters
    ----------
    estimator : _BaseDPLinearRegressor
    X : dask.array.Array of shape (n_samples, n_features)
    y : dask.array.Array of shape (n_samples,)
    bounds : tuple of 2 floats
        The public ``y_bounds``.
    centre, scale : float
        The public affine map of the target.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features), float32 or float64
    y_scaled : dask.array.Array of shape (n_samples,), float64
        In ``[-1, 1]``, with the row chunks of ``X``.

    Raises
    ------
    TypeError
        As :func:`check_fit_data`.
    ValueError
        As :func:`check_fit_data` for ``X``; if ``y`` is not numeric or holds NaN
        or infinity (the message names no value).
    """
    import dask
    import dask.array as da

    # Its caller is the regressor's validation, one frame below fit.
    X, y = _checked_rows(estimator, X, y, stacklevel=6)
    if y.dtype.kind not in "biuf":
        raise ValueError(f"y has dtype {y.dtype}; a regressor needs numbers.")
    finite_X, finite_y = dask.compute(da.isfinite(X).all(), da.isfinite(y).all())
    if not finite_X:
        raise ValueError("Input X contains NaN or infinity.")
    if not finite_y:
        raise ValueError("Input y contains NaN or infinity.")
    low, high = bounds
    y_scaled = y.map_blocks(
        _scaled_target_chunk, low, high, centre, scale, dtype=np.float64
    )
    return X, y_scaled


def _chunk_row_norms(X_chunk, fit_intercept):
    return kernels().row_norms(X_chunk, fit_intercept)


def _chunk_sample(n, q, seed, all_rows):
    """Rows of a chunk for one query: per-row Bernoulli(q) from this step's seed for
    this chunk (the rows drawn stay on the worker), or ``all_rows`` when q = 1."""
    if q < 1.0:
        return poisson_indices(np.random.default_rng(seed), n, q)
    return all_rows


def _chunk_clipped_sum(X_chunk, y_chunk, norms, weights, W, b, kernel_args, q, seed):
    """Runs on the worker holding the chunk; returns only the clipped sum."""
    rows = _chunk_sample(X_chunk.shape[0], q, seed, None)
    return kernels().clipped_gradient_sum(
        X_chunk, y_chunk, W, b, norms, rows, *kernel_args, weights
    )


def _chunk_objective(
    X_chunk, y_chunk, weights, W, b, D, db, etas, objective_args, q, seed
):
    """Runs on the worker holding the chunk; returns only the objective sums."""
    n = X_chunk.shape[0]
    rows = _chunk_sample(n, q, seed, np.arange(n, dtype=np.int64))
    return kernels().clipped_objective_along(
        X_chunk, y_chunk, W, b, D, db, etas, rows, *objective_args, weights
    )


def _sum_in_order(*parts):
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return total


class DaskRows:
    """Data backend of the oracle for row-chunked dask arrays.

    The chunks of ``X`` and ``y`` and their row norms (computed once, on the
    workers) are persisted in the workers' memory for the whole fit.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        From :func:`check_fit_data`: known row chunks, one column chunk.
    y : dask.array.Array of shape (n_samples,), int64
        Class indices, with the row chunks of ``X``.
    fit_intercept : bool
        Whether the row norms include the intercept's constant 1.
    sample_weight : dask.array.Array of shape (n_samples,), float64, or None
        Per-row weights (validated by the estimator), rechunked to the row chunks
        of ``X``; None: unweighted.
    """

    def __init__(self, X, y, *, fit_intercept, sample_weight=None):
        import dask

        norms = X.map_blocks(
            _chunk_row_norms, fit_intercept, drop_axis=1, dtype=np.float64
        )
        collections = (X, y, norms)
        if sample_weight is not None:
            collections += (sample_weight.rechunk({0: X.chunks[0]}),)
        # Holding the persisted collections keeps their chunks in worker memory.
        self._persisted = dask.persist(*collections)
        self._chunks = list(
            zip(*(a.to_delayed().ravel() for a in self._persisted), strict=True)
        )
        if sample_weight is None:  # the kernels' None: no weight array is read
            self._chunks = [(*chunk, None) for chunk in self._chunks]
        self.n_samples, self.n_features = X.shape

    @property
    def n_chunks(self):
        """Number of row chunks (each sampled with its own seed)."""
        return len(self._chunks)

    def clipped_sum(self, W, b, kernel_args, sampling_rate, rng):
        """Clipped-gradient sum over all rows or a Poisson sample (no noise).

        Parameters
        ----------
        W : ndarray of shape (K, n_features), float64
        b : ndarray of shape (K,), float64
        kernel_args : tuple
            ``(fit_intercept, clip_norm, loss, h)`` of the kernel.
        sampling_rate : float
            ``q``; below 1, one 128-bit seed per chunk is drawn from ``rng`` and each
            worker keeps each of its rows with probability ``q``. At 1 nothing is
            drawn.
        rng : numpy.random.Generator
            The oracle's generator (shared with the noise).

        Returns
        -------
        grad_sum : ndarray of shape (K, n_features + 1), float64
            The only data-dependent value that reaches the client.
        """
        seeds = self._seeds(sampling_rate, rng)
        return self._reduce(
            _chunk_clipped_sum,
            lambda X_chunk, y_chunk, norms, weights: (X_chunk, y_chunk, norms, weights),
            (W, b, kernel_args, sampling_rate),
            seeds,
        )

    def objective_along(self, W, b, D, db, etas, objective_args, sampling_rate, rng):
        """Clipped objective sums at ``theta - eta D`` for each eta (no noise).

        Parameters
        ----------
        W, D : ndarray of shape (K, n_features), float64
        b, db : ndarray of shape (K,), float64
        etas : ndarray of shape (n_etas,), float64
        objective_args : tuple
            ``(fit_intercept, objective_clip, loss, h)`` of the kernel.
        sampling_rate : float
            ``q`` of a fresh Poisson sample, drawn per chunk as in
            :meth:`clipped_sum`.
        rng : numpy.random.Generator

        Returns
        -------
        sums : ndarray of shape (n_etas,), float64
            The only data-dependent value that reaches the client.
        """
        seeds = self._seeds(sampling_rate, rng)
        return self._reduce(
            _chunk_objective,
            lambda X_chunk, y_chunk, norms, weights: (X_chunk, y_chunk, weights),
            (W, b, D, db, etas, objective_args, sampling_rate),
            seeds,
        )

    def _seeds(self, sampling_rate, rng):
        if sampling_rate < 1.0:
            # 128 bits per chunk and step (two 64-bit words of one SeedSequence).
            words = rng.integers(
                0, 2**64 - 1, size=(self.n_chunks, 2), dtype=np.uint64, endpoint=True
            )
            return [[int(w) for w in pair] for pair in words]
        return [None] * self.n_chunks

    def _reduce(self, chunk_fn, chunk_data, args, seeds):
        import dask

        task = dask.delayed(chunk_fn)
        args = tuple(dask.delayed(a) if isinstance(a, np.ndarray) else a for a in args)
        parts = [
            task(*chunk_data(*chunk), *args, seed)
            for chunk, seed in zip(self._chunks, seeds, strict=True)
        ]
        # Added on a worker in chunk order: the bits of the result do not depend on
        # scheduling, and only the total reaches the client.
        (total,) = dask.compute(dask.delayed(_sum_in_order)(*parts))
        return np.array(total, dtype=np.float64)


def _newton_chunk_gradient(
    X_chunk, y_chunk, row_clip, theta, args, clip=None, loss=("logistic", 0.0)
):
    """Runs on the worker holding the chunk; returns only the gradient sum."""
    with serial_blas():
        squared = _newton_sums.squared_norms(X_chunk)  # once per chunk and step
        scale = _newton_sums.row_scales(X_chunk, row_clip, squared)
        norms = (
            None
            if clip is None
            else _newton_sums.clipped_norms(X_chunk, scale, args[0], squared)
        )
        return _newton_sums.gradient_sum(
            X_chunk, y_chunk, scale, theta, *args, clip, *loss, norms
        )


def _newton_chunk_hessian(X_chunk, y_chunk, row_clip, theta, args, chunk_rows):
    """Runs on the worker holding the chunk; returns only the Hessian sum."""
    with serial_blas():
        scale = _newton_sums.row_scales(X_chunk, row_clip)
        return _newton_sums.hessian_sum(X_chunk, scale, theta, *args, chunk_rows)


def _newton_chunk_gram(X_chunk, y_chunk, row_clip, fit_intercept, chunk_rows):
    """Runs on the worker holding the chunk; returns only the Gram sum."""
    with serial_blas():
        scale = _newton_sums.row_scales(X_chunk, row_clip)
        return _newton_sums.gram_sum(X_chunk, scale, fit_intercept, chunk_rows)


class DaskNewtonRows:
    """The sums of ``solver="newton"`` over row-chunked dask arrays.

    Each worker sums the gradient (or the Hessian) of its chunks' clipped rows
    (:mod:`sklearn_dpgd._engine._newton_sums`); the chunk sums are added in chunk
    order on a worker and only the total (``K (n_features + 1)`` or ``(K w)^2``
    numbers) reaches the client, where
    :class:`~sklearn_dpgd._engine._oracle.PrivateNewtonOracle` charges the filter
    and adds the noise. Row clipping is per row, so it is the same whatever the
    chunks.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        From :func:`check_fit_data`: known row chunks, one column chunk.
    y : dask.array.Array of shape (n_samples,), int64 or float64
        Class indices (0/1 for binary problems), or a regressor's target scaled
        into ``[-1, 1]``, with the row chunks of ``X``.
    row_clip : float
    fit_intercept : bool
    n_outputs : int
    chunk_rows : int
        Rows per block of each chunk's Hessian sum.
    """

    def __init__(self, X, y, *, row_clip, fit_intercept, n_outputs, chunk_rows):
        import dask

        self._persisted = dask.persist(X, y)
        self._chunks = list(
            zip(*(a.to_delayed().ravel() for a in self._persisted), strict=True)
        )
        self._row_clip = float(row_clip)
        self._args = (bool(fit_intercept), int(n_outputs))
        self._chunk_rows = int(chunk_rows)
        self.n_features = X.shape[1]

    def _reduce(self, chunk_fn, *args):
        import dask

        task = dask.delayed(chunk_fn)
        args = tuple(dask.delayed(a) if isinstance(a, np.ndarray) else a for a in args)
        parts = [task(X_c, y_c, self._row_clip, *args) for X_c, y_c in self._chunks]
        (total,) = dask.compute(dask.delayed(_sum_in_order)(*parts))
        return np.array(total, dtype=np.float64)

    def gradient_sum(self, theta, gradient_clip=None, loss=("logistic", 0.0)):
        """:func:`~sklearn_dpgd._engine._newton_sums.gradient_sum` over all chunks."""
        return self._reduce(
            _newton_chunk_gradient, np.asarray(theta), self._args, gradient_clip, loss
        )

    def hessian_sum(self, theta):
        """:func:`~sklearn_dpgd._engine._newton_sums.hessian_sum` over all chunks."""
        return self._reduce(
            _newton_chunk_hessian, np.asarray(theta), self._args, self._chunk_rows
        )

    def gram_sum(self):
        """:func:`~sklearn_dpgd._engine._newton_sums.gram_sum` over all chunks."""
        return self._reduce(_newton_chunk_gram, self._args[0], self._chunk_rows)


def _apply(X_chunk, estimator, method, empty):
    if X_chunk.shape[0] == 0:
        return empty
    with warnings.catch_warnings():
        # Checked once on the client; chunks never carry feature names.
        warnings.filterwarnings(
            "ignore",
            message="X does not have valid feature names",
            category=UserWarning,
        )
        return getattr(estimator, method)(X_chunk)


def map_rows(estimator, method, X):
    """Apply a prediction method of a fitted estimator to each row chunk of ``X``.

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier
        Fitted estimator; it is sent to the workers (its fitted attributes are the
        private output, already public).
    method : str
        "decision_function", "predict", "predict_proba" or "predict_log_proba".
    X : dask.array.Array of shape (n_samples, n_features)

    Returns
    -------
    out : dask.array.Array of shape (n_samples,) or (n_samples, k)
        Lazy; the NumPy method's result for each chunk, stacked by rows.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    TypeError
        If ``X`` is another Dask collection or has non-NumPy chunks.
    ValueError
        If ``X`` is not 2-D, is complex, or has a different number of features
        from the training data.
    """
    check_is_fitted(estimator)
    X = _check_dask_X(estimator, X)
    _check_n_features(estimator, X, reset=False)
    # One public row (zeros) on the client gives the output's shape and dtype, and
    # the feature-name warning once, as a NumPy array without column names would.
    probe = getattr(estimator, method)(np.zeros((1, X.shape[1]), dtype=X.dtype))
    empty = np.empty((0, *probe.shape[1:]), dtype=probe.dtype)
    if probe.ndim == 1:
        return X.map_blocks(
            _apply, estimator, method, empty, drop_axis=1, dtype=probe.dtype
        )
    return X.map_blocks(
        _apply,
        estimator,
        method,
        empty,
        chunks=(X.chunks[0], (probe.shape[1],)),
        dtype=probe.dtype,
    )
