"""Searches and private pipelines report the tight valid composition.

The reference is dp-accounting's PLD of the same mechanisms, pessimistic (an
upper bound) and optimistic (a lower bound) on a fine grid; RDP is the
cross-check that the reported epsilon never exceeds.
"""

import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from scipy.stats import norm
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    DEFAULT_ORDERS,
    EpsilonDeltaRecord,
    GaussianSteps,
    LedgerEntry,
    SnowballSteps,
    compress_ledger,
    gdp_mu,
    ledger_epsilon,
    poisson_amplified_rdp,
    pure_dp_rdp,
    rdp_epsilon,
    sparse_vector_rdp,
)
from sklearn_dpgd.accounting._compose import _LEDGER_PLD_STEP, _pld_compose
from sklearn_dpgd.exceptions import PrivacyLeakWarning
from sklearn_dpgd.model_selection import PrivateGridSearchCV
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPMinMaxScaler
from sklearn_dpgd.schedules import AdaptiveStepSchedule, LineSearchSchedule

DELTA = 1e-6
STEP = 1e-4


def _pld(pieces, pessimistic):
    """dp-accounting PLD of ``("gauss", mu)`` and ``("eps", (epsilon, delta))``."""
    total = None
    for kind, value in pieces:
        if kind == "gauss":
            pld = pld_lib.from_gaussian_mechanism(
                1.0 / value,
                value_discretization_interval=STEP,
                pessimistic_estimate=pessimistic,
                use_connect_dots=pessimistic,
            )
        else:
            # The dominating pair of an (epsilon, delta)-DP mechanism (Kairouz,
            # Oh & Viswanath 2015), its losses rounded up or down to the grid.
            eps, dlt = value
            rnd = math.ceil if pessimistic else math.floor
            pmf = {rnd(eps / STEP): (1 - dlt) / (1 + math.exp(-eps))}
            low = rnd(-eps / STEP)
            pmf[low] = pmf.get(low, 0.0) + (1 - dlt) / (1 + math.exp(eps))
            pld = pld_lib.PrivacyLossDistribution.create_from_rounded_probability(
                pmf, dlt, STEP, pessimistic_estimate=pessimistic
            )
        total = pld if total is None else total.compose(pld)
    return total


def _rdp(pieces, delta):
    orders = DEFAULT_ORDERS
    rdp = np.zeros(orders.size)
    for kind, value in pieces:
        assert kind == "gauss" or value[1] == 0.0  # RDP has no (epsilon, delta)
        rdp += (
            0.5 * orders * value**2
            if kind == "gauss"
            else pure_dp_rdp(orders, value[0])
        )
    return rdp_epsilon(rdp, orders, delta)


def _side_pieces(entries, part):
    mu_sq, pieces = 0.0, []
    for e in entries:
        if e.part not in (None, part):
            continue
        if isinstance(e.mechanism, EpsilonDeltaRecord):
            pieces.append(("eps", (e.mechanism.epsilon, e.mechanism.delta)))
        else:
            assert all(isinstance(r, GaussianSteps) for r in e.mechanism)
            assert all(r.sampling_rate == 1.0 for r in e.mechanism)
            mu_sq += sum(r.count / r.noise_multiplier**2 for r in e.mechanism)
    return [("gauss", math.sqrt(mu_sq))] + pieces


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=1500, n_features=5, n_informative=3, class_sep=1.5, random_state=0
    )
    return Normalizer().fit_transform(X), y


def test_search_reports_the_exact_composition_between_the_plds(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        search = PrivateGridSearchCV(
            DPLogisticRegression(classes=[0, 1], max_iter=5),
            {"learning_rate": [0.5, 2.0]},
            epsilon=1.0,
            delta=DELTA,
            random_state=0,
        ).fit(X, y)
    entries = search.ledger_.entries
    upper, lower, rdp = [], [], []
    for part in ("train", "validation"):
        pieces = _side_pieces(entries, part)
        upper.append(_pld(pieces, True).get_epsilon_for_delta(DELTA))
        lower.append(_pld(pieces, False).get_epsilon_for_delta(DELTA))
        rdp.append(_rdp(pieces, DELTA))
    # Parallel composition over the two sides: the worse side.
    assert max(lower) <= search.epsilon_ <= max(upper) <= 1.005 * search.epsilon_
    assert search.epsilon_ < max(rdp)  # RDP, the cross-check, is looser


def test_basic_pipeline_composes_the_fixed_guarantees_exactly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(
            DPMinMaxScaler(bounds_range=(-10, 10)),  # private bounds: pure DP
            DPLogisticRegression(classes=[0, 1]),  # full batch: GDP
            epsilon=1.0,
            delta=DELTA,
            budget_split={"dpminmaxscaler": 0.3, "dplogisticregression": 0.7},
        ).fit(X, y)
    assert pipe.accounting_ == "basic"
    (eps_s, delta_s), (eps_c, delta_c) = (
        pipe.budget_["dpminmaxscaler"],
        pipe.budget_["dplogisticregression"],
    )
    # The guarantees fixed before the fit: the classifier's mu-GDP and the
    # scaler's (epsilon, delta) share.
    pieces = [("gauss", gdp_mu(eps_c, delta_c)), ("eps", (eps_s, delta_s))]
    upper = _pld(pieces, True).get_epsilon_for_delta(pipe.delta_)
    lower = _pld(pieces, False).get_epsilon_for_delta(pipe.delta_)
    assert lower <= pipe.epsilon_ <= upper <= 1.005 * pipe.epsilon_
    # Tighter than the basic composition it replaces, and never below what ran.
    assert pipe.epsilon_ < 0.99 * (eps_s + eps_c)
    assert pipe.ledger_.epsilon(pipe.delta_) <= pipe.epsilon_
    # RDP of the same guarantees (the scaler is pure: delta 0) is looser.
    rdp = _rdp([pieces[0], ("eps", (eps_s, 0.0))], pipe.delta_)
    assert pipe.epsilon_ < rdp


def _pure_dp_gdp_mu(eps):
    return 2.0 * norm.ppf(math.exp(eps) / (1.0 + math.exp(eps)))


@pytest.mark.parametrize("eps", [0.01, 0.5, 2.0])
def test_tightest_gdp_mu_of_an_epsilon_dp_piece(eps):
    # An epsilon-DP mechanism's trade-off function can be randomized response's,
    # f(a) = max(0, 1 - e^eps a, e^-eps (1 - a)); G_mu <= f for all a needs
    # mu >= Phi^-1(1 - a) - Phi^-1(f(a)) everywhere, largest at the kink.
    kink = 1.0 / (1.0 + math.exp(eps))
    a = np.concatenate(
        [np.geomspace(1e-12, 0.5, 4000), 1 - np.geomspace(1e-12, 0.5, 4000), [kink]]
    )
    f = np.maximum(1 - math.exp(eps) * a, math.exp(-eps) * (1 - a))
    needed = norm.isf(a) - norm.ppf(f)
    assert needed.max() == pytest.approx(_pure_dp_gdp_mu(eps), rel=1e-9)
    assert a[np.argmax(needed)] == kink


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-5), (2.0, 1e-5), (0.5, 1e-8)])
def test_dp_agd_keeps_the_renyi_filter_which_admits_more_iterations(eps, delta):
    # The choice documented in doc/privacy.rst: a GDP filter (valid: Smith &
    # Thakurta 2022) would admit fewer nominal DP-AGD iterations than the Renyi
    # filter at its fixed order, because the selections' GDP bound (above) is
    # looser than their RDP bound.
    schedule = AdaptiveStepSchedule()
    context = SimpleNamespace(epsilon=eps, delta=delta)
    renyi = schedule.make_filter(context)
    gaussian, selection = schedule._nominal_iteration(context)
    n_renyi = renyi.remaining() / (renyi.cost(gaussian) + renyi.cost(selection))
    n_gdp = gdp_mu(eps, delta) ** 2 / (
        gaussian.noise_multiplier**-2 + _pure_dp_gdp_mu(selection.epsilon) ** 2
    )
    assert n_gdp < 0.96 * n_renyi


def test_line_search_filter_admits_far_more_nominal_iterations():
    # LineSearchSchedule's defaults (q = 0.1): the pure-DP bound of the searches
    # lets the same Renyi filter run many more nominal iterations than Chen &
    # Lee's amplified bound alone did.
    schedule = LineSearchSchedule()
    context = SimpleNamespace(epsilon=0.5, delta=1e-5, clip_norm=1.0)
    records = schedule._nominal_iteration(context)
    renyi = schedule.make_filter(context)
    now = renyi.remaining() / sum(renyi.cost(r) for r in records)
    order = renyi.order
    search = records[1]
    before = search.count * poisson_amplified_rdp(
        lambda o: sparse_vector_rdp(o, search.budget), search.sampling_rate, order
    )
    gradient = renyi.cost(records[0])
    assert now > 3 * renyi.remaining() / (gradient + before)


def test_ledger_composes_subsampled_steps_with_records_as_dp_accounting():
    # A ledger with (epsilon, delta) records composes its subsampled steps with
    # the fast PMFs; dp-accounting's own composition on the same grid agrees,
    # the tail truncation (at most 1e-3 delta) only adding.
    delta = 1e-6
    steps = (GaussianSteps(2.0, 0.05, 20), GaussianSteps(1.5, 0.05, 10))
    entries = [LedgerEntry(steps), LedgerEntry(EpsilonDeltaRecord(0.2, 1e-7))]
    got = _pld_compose(entries, delta)
    reference = pld_lib.from_privacy_parameters(
        common.DifferentialPrivacyParameters(0.2, 1e-7),
        value_discretization_interval=_LEDGER_PLD_STEP,
    )
    for r in steps:
        reference = reference.compose(
            pld_lib.from_gaussian_mechanism(
                r.noise_multiplier,
                sampling_prob=r.sampling_rate,
                value_discretization_interval=_LEDGER_PLD_STEP,
            ).self_compose(r.count)
        )
    expected = reference.get_epsilon_for_delta(delta)
    assert expected * (1 - 1e-8) <= got <= expected * (1 + 1e-4)


def test_ledger_compression_and_epsilon():
    led = compress_ledger([2.0, 2.0, 3.0, 3.0, 3.0], [1.0, 1.0, 1.0, 0.5, 0.5])
    assert led == (
        GaussianSteps(2.0, 1.0, 2),
        GaussianSteps(3.0, 1.0, 1),
        GaussianSteps(3.0, 0.5, 2),
    )
    full = compress_ledger([2.0] * 4)
    assert ledger_epsilon(full, 1e-6) == ledger_epsilon(full, 1e-6, accountant="gdp")
    with pytest.raises(ValueError, match="gdp"):
        ledger_epsilon(led, 1e-6, accountant="gdp")
    with pytest.raises(ValueError, match="empty"):
        ledger_epsilon((), 1e-6)
    with pytest.raises(ValueError, match="accountant"):
        ledger_epsilon(full, 1e-6, accountant="moments")
    with pytest.raises(ValueError, match="sampling_rate"):
        GaussianSteps(1.0, 1.5)
    with pytest.raises(ValueError, match="count"):
        GaussianSteps(1.0, 0.5, 0)


def test_ledger_epsilon_composes_snowball_in_rdp_only():
    plan = SnowballSteps((4,), (1.0,), (0.1,))
    # One step with B = 4, z = 1: rho = 1 / z, the RDP of a Gaussian step.
    assert plan.rho == pytest.approx(1.0)
    mixed = (plan, GaussianSteps(1.0))
    assert ledger_epsilon(mixed, 1e-6) == pytest.approx(
        ledger_epsilon((GaussianSteps(1.0, count=2),), 1e-6, accountant="rdp"), rel=1e-9
    )
    for accountant in ("gdp", "pld"):
        with pytest.raises(ValueError, match="RDP"):
            ledger_epsilon((plan,), 1e-6, accountant=accountant)
    with pytest.raises(ValueError, match="batch_sizes"):
        SnowballSteps((0,), (1.0,), (0.1,))


def test_mixed_ledger_groups_repeated_records_without_changing_the_sum():
    # ledger_epsilon evaluates each distinct record once per order and the Gaussian
    # steps in one vectorised call: the same RDP curve as summing record by record
    # and order by order, whatever the order of the records (a dropped multiplicity
    # or group changes it by far more than the tolerance).
    from sklearn_dpgd.accounting import NoisyMaxSteps, SparseVectorSteps
    from sklearn_dpgd.accounting._records import _record_rdp

    records = (
        [GaussianSteps(2.0, 1.0, 3)] * 2
        + [GaussianSteps(5.0, 0.1, 2)] * 5
        + [GaussianSteps(7.5, 0.1)] * 3
        + [SparseVectorSteps(0.01, "laplace", 0.1)] * 7
        + [SparseVectorSteps(0.02, "gaussian", 0.1, count=2)] * 2
        + [NoisyMaxSteps(0.05)] * 4
        + [SnowballSteps((4, 4), (1.0, 2.0), (0.1, 0.1))]
    )
    ledger = [records[i] for i in np.random.default_rng(0).permutation(len(records))]
    orders = DEFAULT_ORDERS[DEFAULT_ORDERS == np.round(DEFAULT_ORDERS)]
    one_by_one = np.array(
        [sum(float(_record_rdp(r, a)) for r in ledger) for a in orders]
    )
    expected = rdp_epsilon(one_by_one, orders, 1e-6)
    assert ledger_epsilon(ledger, 1e-6) == pytest.approx(expected, rel=1e-12)
    # Each distinct record counts with its multiplicity.
    assert ledger_epsilon(ledger[:-1], 1e-6) < ledger_epsilon(ledger, 1e-6)
    doubled = ledger + [SparseVectorSteps(0.01, "laplace", 0.1)] * 7
    assert ledger_epsilon(doubled, 1e-6) > ledger_epsilon(ledger, 1e-6)
