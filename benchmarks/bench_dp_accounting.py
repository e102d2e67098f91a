"""The package's subsampled-Gaussian RDP and step PLDs against dp-accounting's.

    python benchmarks/bench_dp_accounting.py

One minibatch plan of Adult at batch_size=256 (q = 256 / 32561): 1,000 Poisson
steps at 32 noise levels, the plan a PLD-calibrated fit runs. Prints the time of
the RDP curve at the 231 default orders and of one level's PLD, by the package
(sklearn_dpgd.accounting._subsampled_rdp, ._pld) and by dp-accounting
(RdpAccountant; from_gaussian_mechanism + self_compose), and how the RDP curves
differ. This is why the package keeps its own implementation and uses
dp-accounting for PLD composition, the PLD -> epsilon conversion and the tests'
cross-checks (doc/privacy.rst, "What dp-accounting is used for").
"""

import time

import dp_accounting
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    _pld,
    pld_grid_step,
    poisson_gaussian_rdp,
)

Q = 256 / 32561
Z = np.repeat(np.linspace(3.5, 2.5, 32), 1000 // 32 + 1)[:1000]


def _best_time(f, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return min(times), result


def _dp_accounting_rdp():
    acc = dp_accounting.rdp.RdpAccountant(orders=list(DEFAULT_ORDERS))
    levels, counts = np.unique(Z, return_counts=True)
    for z, count in zip(levels, counts, strict=True):
        event = dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(z))
        acc.compose(event, int(count))
    return np.asarray(acc._rdp)


def _dp_accounting_level(step):
    pld = pld_lib.from_gaussian_mechanism(
        3.0,
        value_discretization_interval=step,
        pessimistic_estimate=True,
        sampling_prob=Q,
        use_connect_dots=True,
    )
    return pld.self_compose(31)


def main():
    t_ours, ours = _best_time(lambda: poisson_gaussian_rdp(Z, Q, DEFAULT_ORDERS))
    t_theirs, theirs = _best_time(_dp_accounting_rdp, repeats=1)
    integer = DEFAULT_ORDERS == np.round(DEFAULT_ORDERS)
    rel = np.abs(ours[integer] - theirs[integer]) / theirs[integer]
    ratio = theirs[~integer] / ours[~integer]
    step = pld_grid_step(1.0, 1000)
    # One call: _level_pmfs caches its result.
    t_pld_ours, _ = _best_time(
        lambda: _pld._level_pmfs(3.0, Q, 31, step, 1e-15), repeats=1
    )
    t_pld_theirs, _ = _best_time(lambda: _dp_accounting_level(step), repeats=1)
    print(f"{'quantity':<52} {'package':>10} {'dp-acc.':>10}")
    print(
        f"{'RDP, 1000 steps, 32 levels, 231 orders (ms)':<52} "
        f"{t_ours * 1e3:>10.1f} {t_theirs * 1e3:>10.1f}"
    )
    print(
        f"{'PLD of one level, z=3, 31 steps (ms)':<52} "
        f"{t_pld_ours * 1e3:>10.1f} {t_pld_theirs * 1e3:>10.1f}"
    )
    print(f"RDP at integer orders: max relative difference {rel.max():.1e}")
    print(f"RDP at fractional orders: dp-accounting / package up to {ratio.max():.4f}")
    print(f"RDP curves bit-identical: {np.array_equal(ours, theirs)}")


if __name__ == "__main__":
    main()
