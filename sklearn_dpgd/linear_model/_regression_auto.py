"""``solver="auto"`` of DPLinearRegression and DPHuberRegressor: "pgd" or "gd".

"pgd" scales every row to feature norm 1 before anything else (the Gram's
sensitivity needs the bound), so on longer rows it fits another model than "gd",
which clips only the gradients; and no public quantity can see a row's norm. The
regressors' rule therefore adds one private release to the classifier's public
rule (:func:`~sklearn_dpgd.linear_model._pgd.auto_solver`): a noisy count of the
rows longer than 1, on a fixed public share of the fit's budget.

The rule, in one place (:func:`auto_regression_solver`), one row per solver:

* **"pgd"** when "pgd" is possible on public settings
  (:func:`~sklearn_dpgd.linear_model._pgd.pgd_possible`: no ``max_iter``,
  ``schedule``, ``batch_size`` or weights, dense or Dask input, at most 512
  features), the released size ``m`` makes the long-row count decisive
  (``mu m >= LONG_ROW_MIN_SIGNAL``) and the budget is large for the width
  (:func:`width_unit` at least :data:`MIN_WIDTH_UNIT`), and the noisy count of
  the rows of norm above ``1 + LONG_ROW_TOLERANCE`` is at most
  :data:`MAX_LONG_ROW_FRACTION` of ``m``;
* **"gd"** otherwise. When the count ran and said "gd", gradient descent trains
  on what the count left (``mu_train^2`` less :data:`LONG_ROW_SHARE` of
  ``mu^2``); without the count (a public condition fails, or a public setting
  rules "pgd" out) the fit is ``solver="gd"``'s, bit for bit.

Privacy of the long-row count. It is the Gaussian mechanism on
``c(D) = #{i : ||x_i|| > 1 + tol}``. Adding or removing a row changes ``c`` by 0
or 1; replacing a row by another changes it by -1, 0 or +1 (the old row leaves
the count or not, the new one enters it or not, and only one row is changed):
the sensitivity is 1 under both neighbouring relations, unlike a sum of per-row
terms, whose replace-one sensitivity is twice its add/remove one. Its noise
multiplier is ``z = 1 / (sqrt(LONG_ROW_SHARE) mu)``, fixed by public quantities
before any row is read; the whole fit (count included) is charged to the open
ledgers before that (:func:`~sklearn_dpgd.linear_model._open.open_fit`). Gaussian
mechanisms of sensitivity 1 compose exactly into one (their privacy-loss
distributions are normal: Dong, Roth & Su, JRSS B 2022, Cor. 3.3), so the
fit's filter records the released size's count (if any) and this count as one
Gaussian step of ``(z_count^-2 + z^-2)^(-1/2)``, and the solver spends the rest:
``mu^2 = z_count^-2 + z^-2 + mu_train^2``. Which solver runs depends on a
released value, so the fit reports the filter's cap, as any plan chosen after a
noisy count (GDP's fully adaptive composition; Smith & Thakurta 2022).
"""

import math
from dataclasses import replace

from .._public_size import SENSITIVITY_FACTOR
from ._open import open_fit
from ._pgd import pgd_possible
from ._utility import _computed, _row_norms

__all__ = [
    "LONG_ROW_MIN_SIGNAL",
    "LONG_ROW_SHARE",
    "LONG_ROW_TOLERANCE",
    "MAX_LONG_ROW_FRACTION",
    "MIN_WIDTH_UNIT",
    "auto_regression_solver",
    "long_row_noise_multiplier",
    "noisy_long_row_count",
    "resolve_regression_auto",
    "width_unit",
]

#: Share of the fit's ``mu^2`` spent on the long-row count (the training keeps
#: ``sqrt(0.98)``, 99% of its ``mu``).
LONG_ROW_SHARE = 0.02

#: A row is "long" when its feature norm exceeds ``1 + LONG_ROW_TOLERANCE``.
#: ``Normalizer``'s rows have norm 1 up to rounding: within 1e-15 in float64,
#: but up to 1.2e-7 in float32 (half of such rows were above ``1 + 1e-9``),
#: and "pgd" scaling a row of norm ``1 + 1e-6`` to 1 changes it by 1e-6.
LONG_ROW_TOLERANCE = 1e-6

#: "pgd" runs when the noisy count of long rows is at most this share of the
#: released size ``m``. Measured (``benchmarks/bench_regression_auto.py
#: --long-rows``: 24,000 unit rows x 20, epsilon 1, 4 seeds, a share of the rows
#: multiplied by 2 or 4): "pgd" minus "gd" R^2 was +0.0003 / +0.0001 with 1% of
#: the rows long, -0.0002 / -0.0003 with 2%, -0.004 / -0.010 with 5%.
MAX_LONG_ROW_FRACTION = 0.01

#: The count decides only when ``mu m`` is at least this: then its noise std
#: ``z = 1 / (sqrt(LONG_ROW_SHARE) mu)`` is at most half of
#: ``MAX_LONG_ROW_FRACTION m``, so a table with no long row runs "pgd", and a
#: table with twice the tolerated share of them runs "gd", each with
#: probability at least 97.7% (two noise stds): ``2 / (0.01 sqrt(0.02))``,
#: about 1,414 (Adult's 32,561 rows from epsilon 0.17 at delta 1e-6).
LONG_ROW_MIN_SIGNAL = 2.0 / (MAX_LONG_ROW_FRACTION * math.sqrt(LONG_ROW_SHARE))


#: Smallest :func:`width_unit` at which "pgd" may run. "pgd" damps its
#: preconditioner by ``2 sqrt(w) sigma_G`` (``sigma_G``, the Gram's noise std,
#: ``s / (mu m)`` up to constants), while the Gram of unit rows has eigenvalues
#: about ``1 / w``: below ratio ``mu m / (s w^1.5)`` of order 1 the damping
#: dominates and 40 steps stop short. Measured (``benchmarks/
#: bench_regression_auto.py --wide``: isotropic synthetic tables, unit rows,
#: 80/20 holdouts, 2 seeds, add/remove-one with a declared size), "pgd" minus
#: "gd" R^2 at ``w = 401`` (16,000 rows): -0.021 at ratio 0.5, -0.0001 at 1,
#: +0.009 at 2 (-0.096 at 0.4 on 4,000 rows); at ``w = 101`` and 201, +0.009
#: to +0.33 from ratio 0.5, where this floor gives up the gain for "gd"'s
#: accuracy; at ``w = 301`` (not tuned on), -0.004 at 0.7, -0.001 at 1, +0.008
#: at 1.5. It binds only above about 126 columns (below, ``w^1.5 <
#: LONG_ROW_MIN_SIGNAL``).
MIN_WIDTH_UNIT = 1.0


def width_unit(mu, n_samples, n_features, fit_intercept, neighboring):
    """The budget for the width, ``mu m / (s w^1.5)`` (public quantities only).

    Parameters
    ----------
    mu : float
        The fit's GDP budget.
    n_samples : int
        The public size ``m``.
    n_features : int
    fit_intercept : bool
    neighboring : {"add_remove", "replace"}
        ``s`` is 1 under add/remove-one and 2 under replace-one (the Gram's
        sensitivity doubles, and so does "pgd"'s damping).

    Returns
    -------
    unit : float
        With ``w = n_features + fit_intercept``.
    """
    width = n_features + int(bool(fit_intercept))
    return mu * n_samples / (SENSITIVITY_FACTOR[neighboring] * width**1.5)


def long_row_noise_multiplier(mu):
    """Noise multiplier of the long-row count of a fit of GDP budget ``mu``.

    Parameters
    ----------
    mu : float
        The fit's GDP budget, > 0.

    Returns
    -------
    z : float
        ``1 / (sqrt(LONG_ROW_SHARE) mu)``: the count is
        ``sqrt(LONG_ROW_SHARE) mu``-GDP (sensitivity 1 under both relations).
    """
    return 1.0 / (math.sqrt(LONG_ROW_SHARE) * mu)


def noisy_long_row_count(X, noise_multiplier, rng):
    """The Gaussian mechanism on the number of rows of norm above 1.

    The caller must have charged the release (``GaussianSteps(noise_multiplier)``,
    sensitivity 1 under add/remove-one and replace-one: see the module's
    docstring) to the fit's ledgers before calling it.

    Parameters
    ----------
    X : ndarray, CSR matrix or dask array of shape (n_samples, n_features)
        The private rows (one pass over them; a Dask array is counted chunk by
        chunk where it lives).
    noise_multiplier : float
        Noise std of the count, > 0.
    rng : numpy.random.Generator or SecureGenerator
        The fit's noise source.

    Returns
    -------
    noisy_count : float
        ``#{i : ||x_i|| > 1 + LONG_ROW_TOLERANCE} + N(0, noise_multiplier^2)``:
        a released value.
    """
    count = int(_computed((_row_norms(X) > 1.0 + LONG_ROW_TOLERANCE).sum()))
    return count + noise_multiplier * float(rng.standard_normal())


def auto_regression_solver(mu, n_samples, noisy_long_rows, unit=math.inf):
    """The regressors' rule over public and released values: "pgd" or "gd".

    Parameters
    ----------
    mu : float
        The fit's GDP budget (public).
    n_samples : int
        The released size ``m`` (``public_n_samples``, the row count under
        replace-one, or the noisy count).
    noisy_long_rows : float or None
        The released long-row count, or None when it did not run.
    unit : float, default=inf
        :func:`width_unit` of the fit (public).

    Returns
    -------
    solver : {"pgd", "gd"}
    """
    if noisy_long_rows is None or not _count_decides(mu, n_samples, unit):
        return "gd"
    if noisy_long_rows <= MAX_LONG_ROW_FRACTION * n_samples:
        return "pgd"
    return "gd"


def _count_decides(mu, n_samples, unit):
    """The public conditions under which the long-row count runs."""
    return mu * n_samples >= LONG_ROW_MIN_SIGNAL and unit >= MIN_WIDTH_UNIT


def resolve_regression_auto(estimator, X, sample_weight, seed):
    """``solver="auto"`` in a regressor's fit: ``(solver, solve's keywords)``.

    When :func:`~sklearn_dpgd.linear_model._pgd.pgd_possible`, the fit is
    opened (the whole budget charged to the open ledgers, then the size
    released); when ``mu m`` is at least :data:`LONG_ROW_MIN_SIGNAL` and
    :func:`width_unit` at least :data:`MIN_WIDTH_UNIT`, the long-row count
    runs on :data:`LONG_ROW_SHARE` of ``mu^2`` and
    :func:`auto_regression_solver` reads it. The opened fit is handed to the
    solver (``{"opened": ...}``) with the count folded into its first record
    and its share taken off the training's budget.

    Parameters
    ----------
    estimator : DPLinearRegression or DPHuberRegressor
    X : ndarray, sparse matrix or dask array of shape (n_samples, n_features)
    sample_weight : ndarray or None
    seed : int or None

    Returns
    -------
    solver : {"pgd", "gd"}
    kwargs : dict

    Raises
    ------
    BudgetExhaustedError
        If an open ledger's cap refuses the fit's charge (before any row is read).
    """
    if not pgd_possible(estimator, X, 1, sample_weight):
        return "gd", {}
    opened = open_fit(estimator, X, seed)
    unit = width_unit(
        opened.mu, opened.n_samples, X.shape[1], estimator.fit_intercept,
        estimator.neighboring,
    )  # fmt: skip
    if not _count_decides(opened.mu, opened.n_samples, unit):
        return "gd", {"opened": opened}  # "gd" whatever the count: not run
    z_long = long_row_noise_multiplier(opened.mu)
    noisy = noisy_long_row_count(X, z_long, opened.rng)
    # Two sensitivity-1 Gaussian releases before the solver: one record of
    # their exact composition, so both solvers charge their filter once.
    z_before = (
        z_long
        if opened.z_count is None
        else 1.0 / math.hypot(1.0 / opened.z_count, 1.0 / z_long)
    )
    opened = replace(
        opened,
        z_count=z_before,
        mu_train=math.sqrt(opened.mu_train**2 - z_long**-2),
    )
    solver = auto_regression_solver(opened.mu, opened.n_samples, noisy, unit)
    if estimator.verbose:
        print(f"solver='auto': noisy count of rows of norm > 1 {noisy:.4g}: {solver}")
    return solver, {"opened": opened}
