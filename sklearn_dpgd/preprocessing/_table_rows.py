"""The row-wise functions of :class:`DPTableVectorizer`'s columns.

Each output row is a function of its own row and of public constants (the
declared ranges and instants): they read nothing private and spend no budget.
"""

import math

import numpy as np

from .._validation import as_float64
from ._base import row_wise


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is installed in CI
        raise ImportError(
            "DPTableVectorizer and schema_from_dtypes need pandas (pip install pandas)."
        ) from exc
    return pd


@row_wise
def _shifted_log1p(X, lower, upper, log):
    """Clip each column to ``[lower, upper]``; ``log1p(x - lower)`` where ``log``.

    Row-wise: every output row is a function of its own row and of the public
    constants. NaN stays NaN (a later imputer fills it). A value that is not a
    number is refused without being printed.
    """
    Z = np.clip(as_float64(X), lower, upper)
    log = np.asarray(log, dtype=bool)
    if log.any():  # log1p of the listed columns only (indicators need none)
        Z[:, log] = np.log1p(Z[:, log] - lower[log])
    return Z


@row_wise
def _booleans(X):
    """Each boolean as 0/1; a missing one (NA of a nullable boolean) as 0.5.

    Row-wise: 0.5 is a public constant, as for a missing instant.
    """
    frame = _pandas().DataFrame(X)
    return frame.astype("Float64").fillna(0.5).to_numpy(dtype=np.float64)


def _transformed_range(lo, hi, log):
    """The range of a column after :func:`_shifted_log1p`."""
    return (0.0, math.log1p(hi - lo)) if log else (float(lo), float(hi))


@row_wise
def _datetime_parts(X, lower, upper, parts):
    """The ``parts`` of each instant, each in [0, 1].

    ``"time"`` within ``[lower, upper]`` (public instants in nanoseconds since
    the epoch), ``"month"``, ``"weekday"``, ``"hour"``; a missing instant (NaT)
    gives 0.5 for every part. A column of another dtype is refused by its name
    and dtype (no value is printed).
    """
    pd = _pandas()
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
    blocks = []
    for j in range(frame.shape[1]):
        column = frame.iloc[:, j]
        if not pd.api.types.is_datetime64_any_dtype(column.dtype):
            raise ValueError(
                f"Column {frame.columns[j]!r} was fitted as a datetime column but "
                f"has dtype {column.dtype}: convert it (pd.to_datetime) first."
            ) from None
        if column.dt.tz is not None:
            column = column.dt.tz_localize(None)
        missing = column.isna().to_numpy()
        # Clipped to the public instants first (the time is clipped anyway), so
        # that an instant outside nanosecond range is not refused with its value.
        inside = column.clip(pd.Timestamp(lower[j]), pd.Timestamp(upper[j]))
        ns = inside.astype("datetime64[ns]").astype("int64").to_numpy(dtype=float)
        t = column.dt
        time = np.clip((ns - lower[j]) / (upper[j] - lower[j]), 0.0, 1.0)
        every = {
            "time": time,
            "month": (t.month.to_numpy(dtype=float) - 1.0) / 11.0,
            "weekday": t.day_of_week.to_numpy(dtype=float) / 6.0,
            "hour": t.hour.to_numpy(dtype=float) / 23.0,
        }
        block = np.column_stack([every[p] for p in parts])
        block[missing] = 0.5
        blocks.append(block)
    return np.hstack(blocks)


def _datetime_names(transformer, input_features):
    return np.asarray(
        [f"{c}_{p}" for c in input_features for p in transformer.kw_args["parts"]],
        dtype=object,
    )
