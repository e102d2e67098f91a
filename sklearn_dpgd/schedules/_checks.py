"""Validation of the fields of schedule objects, shared by the schedule modules."""

import math
from numbers import Integral, Real


def _check_real(value, name, *, low=None, high=None, low_open=True, high_open=False):
    """Validate a real scalar field of a schedule; return it as float."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    value = float(value)
    bad = math.isnan(value) or math.isinf(value)
    if low is not None:
        bad |= value <= low if low_open else value < low
    if high is not None:
        bad |= value >= high if high_open else value > high
    if bad:
        lo = "" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "" if high is None else f"{high:g}" + (")" if high_open else "]")
        where = f" in {lo}, {hi}" if lo and hi else (f" > {low:g}" if lo else "")
        raise ValueError(f"{name} must be a finite number{where}, got {value!r}.")
    return value


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    if value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    return int(value)
