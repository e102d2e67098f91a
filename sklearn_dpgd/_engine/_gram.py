"""The L2 sensitivity of ``solver="pgd"``'s Gram release (public numbers only)."""

import numpy as np

__all__ = ["gram_sensitivity"]


def gram_sensitivity(row_clip, fit_intercept, sensitivity_factor):
    """L2 sensitivity of the upper triangle (diagonal included) of the Gram sum
    ``sum_i x~_i x~_i^T`` of the clipped rows ``x~_i = [u_i, 1]``, ``||u_i|| <=
    c`` (``c = row_clip``).

    Add/remove-one: one row adds ``upper(x~ x~^T)``, whose squared norm is
    ``sum_{j<=k} u_j^2 u_k^2 + ||u||^2 + 1 = (||u||^4 + sum_j u_j^4) / 2 +
    ||u||^2 + 1 <= c^4 + c^2 + 1`` (without an intercept, ``c^4``), attained by
    ``u = c e_1``. Replace-one: removing a row then adding one, at most twice
    that (the triangle inequality; ``sensitivity_factor = 2``), which is valid
    but not attained (two positive semi-definite terms cannot cancel).

    Parameters
    ----------
    row_clip : float
        ``c > 0``.
    fit_intercept : bool
    sensitivity_factor : float
        1 (add/remove one row) or 2 (replace one row).

    Returns
    -------
    sensitivity : float
    """
    c2 = float(row_clip) ** 2
    return float(sensitivity_factor) * np.sqrt(c2**2 + float(fit_intercept) * (c2 + 1))
