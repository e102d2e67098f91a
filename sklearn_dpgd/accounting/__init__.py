"""Privacy accounting: GDP, RDP and PLD accountants, records, filters and ledgers.

Nothing in this package reads data. A full-batch private gradient step that adds
``N(0, sigma_t^2 I)`` to a clipped-gradient sum of L2 sensitivity ``Delta`` is a
Gaussian mechanism with noise multiplier ``z_t = sigma_t / Delta``; it is
``mu_t``-GDP with ``mu_t = 1 / z_t`` (Dong, Roth & Su 2022, Thm 2.7), and ``T`` such
steps, even adaptively chosen ones, are ``mu``-GDP with ``mu^2 = sum_t mu_t^2`` (ibid.,
Cor. 3.3). A ``mu``-GDP mechanism is ``(epsilon, delta(epsilon))``-DP for every
``epsilon >= 0`` with the exact trade-off of the analytic Gaussian mechanism
(Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13)::

    delta(epsilon) = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2).

Calibrating a run to a target ``(epsilon, delta)`` is therefore one root-find for
``mu`` and one rescaling of the schedule's shape (Dong, Roth & Su, JRSS-B 2022,
Cor. 3.3 and 2.13). This is exact, unlike the zCDP conversion
``epsilon = rho + 2 sqrt(rho log(1/delta))`` (Bun & Steinke 2016, Prop. 1.3) used by
Hong et al. (FAccT 2022, Sec. 3), which :func:`zcdp_epsilon` provides for comparison.

The package is laid out one idea per module; everything public is imported from
here:

* ``_gdp``: GDP closed forms, conversions and calibration (:func:`gdp_epsilon`,
  :func:`calibrate_noise_multipliers`, ...).
* ``_rdp``: Rényi orders, the RDP-to-DP conversion, the RDP of pure-DP and
  sparse-vector mechanisms and its amplification by Poisson subsampling.
* ``_subsampled_rdp``: the RDP of Poisson-subsampled Gaussian steps.
* ``_pld``: vectorised privacy-loss distributions of subsampled Gaussian steps.
* ``_subsampled``: epsilon and noise calibration of subsampled runs, by RDP or PLD.
* ``_records``: the frozen records of what ran (:class:`GaussianSteps`, ...).
* ``_compose``: composition of records into one epsilon (:func:`ledger_epsilon`).
* ``_filters``: the privacy filters, one ``charge(record)`` protocol;
  ``_amplified_filter``: the filter of Snowball-SGD (amplification by iteration).
* ``_ledger``: :class:`PrivacyLedger` and the ledgers a fit records into.
* ``_joblib``: the joblib threading backend that carries the active ledgers into
  its worker threads.

What dp-accounting is used for: the package computes the subsampled-Gaussian RDP
(``_subsampled_rdp``) and the per-step privacy-loss mass functions (``_pld``)
itself, vectorised; dp-accounting's ``PrivacyLossDistribution`` composes those mass
functions with one another and with the PLDs of ``(epsilon, delta)`` records and
Gaussian mechanisms, and converts a PLD to epsilon (``_pld``, ``_compose``). The
tests use dp-accounting as the independent accountant every result is checked
against.

References
----------
Dong, J., Roth, A., Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
Balle, B., Wang, Y.-X. (2018). Improving the Gaussian mechanism for differential
privacy: analytical calibration and optimal denoising. ICML.
Bun, M., Steinke, T. (2016). Concentrated differential privacy: simplifications,
extensions, and lower bounds. TCC.
Smith, J., Thakurta, A. (2022). Fully adaptive composition for Gaussian differential
privacy. arXiv:2210.17520.
"""

import warnings

from ._amplified_filter import AmplifiedIterationFilter
from ._compose import _compose_entries as _compose_entries
from ._compose import _exact_compose as _exact_compose
from ._compose import fixed_shares_epsilon as fixed_shares_epsilon
from ._compose import ledger_epsilon
from ._filters import (
    FixedOrderRenyiFilter,
    GaussianPrivacyFilter,
    PlannedStepsRdpFilter,
    PldPrivacyFilter,
    best_filter_order,
)
from ._gdp import (
    calibrate_noise_multipliers,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_from_noise_multipliers,
    gdp_to_zcdp,
    zcdp_epsilon,
)
from ._ledger import (
    PrivacyLedger,
    active_ledgers,
    recording_only,
)
from ._ledger import (
    _charge_active_ledgers as _charge_active_ledgers,
)
from ._ledger import (
    _copy_ledger_guard as _copy_ledger_guard,
)
from ._ledger import (
    _ledger_guard_state as _ledger_guard_state,
)
from ._ledger import (
    _record_leak as _record_leak,
)
from ._ledger import (
    _seed_position as _seed_position,
)
from ._ledger import (
    _strict_mode as _strict_mode,
)
from ._rdp import (
    DEFAULT_ORDERS as DEFAULT_ORDERS,
)
from ._rdp import (
    bounded_range_rdp,
    poisson_amplified_rdp,
    pure_dp_rdp,
    sparse_vector_rdp,
)
from ._rdp import (
    rdp_epsilon as rdp_epsilon,
)
from ._records import (
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    NoisyMaxSteps,
    SnowballSteps,
    SparseVectorSteps,
    compress_ledger,
)
from ._records import (
    _record_rdp as _record_rdp,
)
from ._records import (
    _records_rdp as _records_rdp,
)
from ._subsampled import (
    calibrate_poisson_noise_multipliers as calibrate_poisson_noise_multipliers,
)
from ._subsampled import (
    pld_epsilon as pld_epsilon,
)
from ._subsampled import (
    pld_grid_step as pld_grid_step,
)
from ._subsampled import (
    pld_plan_levels as pld_plan_levels,
)
from ._subsampled import (
    poisson_gaussian_epsilon as poisson_gaussian_epsilon,
)
from ._subsampled import (
    scale_to_budget as scale_to_budget,
)
from ._subsampled_rdp import poisson_gaussian_rdp as poisson_gaussian_rdp

__all__ = [
    "AmplifiedIterationFilter",
    "EpsilonDeltaRecord",
    "GaussianPrivacyFilter",
    "GaussianSteps",
    "LedgerEntry",
    "NoisyMaxSteps",
    "PrivacyLedger",
    "PldPrivacyFilter",
    "PlannedStepsRdpFilter",
    "FixedOrderRenyiFilter",
    "SnowballSteps",
    "SparseVectorSteps",
    "active_ledgers",
    "best_filter_order",
    "poisson_amplified_rdp",
    "bounded_range_rdp",
    "pure_dp_rdp",
    "sparse_vector_rdp",
    "compress_ledger",
    "ledger_epsilon",
    "recording_only",
    "calibrate_noise_multipliers",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_mu_from_noise_multipliers",
    "gdp_to_zcdp",
    "zcdp_epsilon",
]

# Old names of two filters, kept for one release: importing them warns.
_DEPRECATED = {
    "RdpPrivacyFilter": PlannedStepsRdpFilter,
    "RenyiPrivacyFilter": FixedOrderRenyiFilter,
}


def __getattr__(name):
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(
            f"sklearn_dpgd.accounting.{name} is deprecated and will be removed in "
            f"the next release; use {new.__name__} (the same class).",
            FutureWarning,
            stacklevel=2,
        )
        return new
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
