"""Privacy of the private searches: split, refusals, seeds, accounting, public size.

Each test fails on the searches as they were before the coin split: a fixed-size
split (a permutation of ``n`` rows), estimators refused only after their
candidates had trained, 31-bit candidate seeds from the global NumPy state, and
sizes read from the exact ``n``.
"""

import copy
import math
import warnings

import numpy as np
import pytest
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.preprocessing import Normalizer

import sklearn_dpgd._solvers.snowball as snowball
import sklearn_dpgd.linear_model._base as linear_model
import sklearn_dpgd.model_selection._search as model_selection
import sklearn_dpgd.model_selection._search_base as search_base
from sklearn_dpgd import DPHuberSVM, DPLogisticRegression, PrivacyLeakWarning
from sklearn_dpgd._public_size import count_noise_multiplier
from sklearn_dpgd.accounting import (
    EpsilonDeltaRecord,
    GaussianSteps,
    PrivacyLedger,
    gdp_mu,
)
from sklearn_dpgd.model_selection import LinearScalingSearch, PrivateGridSearchCV
from sklearn_dpgd.schedules import AdaptiveStepSchedule

DELTA = 1e-6


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=600, n_features=5, n_informative=3, class_sep=1.5, random_state=1
    )
    return Normalizer().fit_transform(X), y


def _pgs(**params):
    defaults = dict(
        estimator=DPLogisticRegression(classes=[0, 1], max_iter=5),
        param_grid={"learning_rate": [0.5, 2.0]},
        epsilon=1.0,
        delta=DELTA,
    )
    return PrivateGridSearchCV(**{**defaults, **params})


def _lss(**params):
    defaults = dict(
        estimator=DPLogisticRegression(classes=[0, 1]),
        epsilon=1.0,
        delta=DELTA,
        n_candidates=2,
        max_iter_range=(2, 6),
    )
    return LinearScalingSearch(**{**defaults, **params})


@pytest.fixture
def fits(monkeypatch):
    """Every DPLogisticRegression fit: (estimator, X) after it ran."""
    calls = []
    fit = DPLogisticRegression.fit

    def spy(self, X, y, *args, **kwargs):
        state = {"random_state": copy.deepcopy(self.random_state)}
        state["secure_mode"] = self.secure_mode
        if self.secure_mode:  # the search's part is to pass it on
            self.set_params(secure_mode=False)
        out = fit(self, X, y, *args, **kwargs)
        calls.append((self, np.asarray(X), state))
        return out

    monkeypatch.setattr(DPLogisticRegression, "fit", spy)
    return calls


def _quiet(search, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y)


# --- (a) The split: one independent coin per row ------------------------------


@pytest.mark.parametrize("make", [_pgs, _lss])
def test_an_added_row_changes_exactly_one_part(data, make, fits):
    """D and D plus one row: the other rows keep their side (parallel composition)."""
    X, y = data
    # Row ids in the first column identify the rows a fit saw.
    X = np.column_stack([np.arange(X.shape[0]) / X.shape[0], X])
    sides = []
    for n in (X.shape[0] - 1, X.shape[0]):
        fits.clear()
        _quiet(make(random_state=3, public_n_samples=500), X[:n], y[:n])
        *candidates, refit = fits
        train = np.round(candidates[0][1][:, 0] * X.shape[0]).astype(int)
        assert all(np.array_equal(c[1], candidates[0][1]) for c in candidates)
        assert refit[1].shape[0] == n
        sides.append(set(train.tolist()))
    (train_d, train_d1), new = sides, X.shape[0] - 1
    val_d = set(range(new)) - train_d
    val_d1 = set(range(new + 1)) - train_d1
    # Exactly one part gains exactly the new row; the other is unchanged.
    assert (train_d1, val_d1) in [(train_d | {new}, val_d), (train_d, val_d | {new})]


# --- (b) Estimators whose fit is not a recorded GDP mechanism: refused first ----


class _NoOracle:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a candidate read the data")


def _no_snowball(*args, **kwargs):
    raise AssertionError("a candidate read the data")


class _UnrecordedClassifier(ClassifierMixin, BaseEstimator):
    """Has the parameters a search sets, records nothing in any ledger."""

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        public_n_samples=None,
        random_state=None,
        secure_mode=False,
        learning_rate=1.0,
        max_iter=1,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.public_n_samples = public_n_samples
        self.random_state = random_state
        self.secure_mode = secure_mode
        self.learning_rate = learning_rate
        self.max_iter = max_iter

    def fit(self, X, y):
        raise AssertionError("a candidate read the data")

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize("make", [_pgs, _lss])
@pytest.mark.parametrize(
    "params, match",
    [
        (
            {"estimator": DPLogisticRegression(classes=[0, 1], solver="snowball")},
            "solver='snowball'",
        ),
        (
            {
                "estimator": DPLogisticRegression(
                    classes=[0, 1], schedule=AdaptiveStepSchedule()
                )
            },
            "AdaptiveStepSchedule",
        ),
        ({"estimator": DPHuberSVM(classes=[0, 1], batch_size=50)}, "batch_size"),
        ({"estimator": _UnrecordedClassifier()}, "_gdp_ledger_refusal"),
    ],
)
def test_non_gdp_estimators_are_refused_before_any_fit(
    data, make, params, match, monkeypatch
):
    X, y = data
    monkeypatch.setattr(linear_model, "PrivateGradientOracle", _NoOracle)
    monkeypatch.setattr(snowball, "fit_snowball", _no_snowball)
    ledger = PrivacyLedger()
    with ledger, pytest.raises(ValueError, match=match) as error:
        make(**params).fit(X, y)
    assert "cannot be tuned" in str(error.value)
    assert len(ledger) == 0


def test_a_grid_that_switches_to_snowball_is_refused_before_any_fit(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(linear_model, "PrivateGradientOracle", _NoOracle)
    monkeypatch.setattr(snowball, "fit_snowball", _no_snowball)
    with pytest.raises(ValueError, match="solver='snowball'"):
        _pgs(param_grid={"solver": ["gd", "snowball"]}).fit(*data)


class _DeclaredButUnrecorded(DPLogisticRegression):
    """Declares a GDP fit, then records nothing: caught after the fit."""

    def _gdp_ledger_refusal(self):
        return None

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        return self


def test_a_fit_that_records_less_than_it_declared_releases_nothing(data):
    X, y = data
    search = _pgs(estimator=_DeclaredButUnrecorded(classes=[0, 1]))
    with pytest.raises(RuntimeError, match="did not record"):
        search.fit(X, y)
    assert not hasattr(search, "best_estimator_")


# --- (c) Seeds: fresh entropy by default, spawned 128-bit seeds, one warning ------


def test_default_searches_never_share_noise(data, fits):
    X, y = data
    splits = []
    for _ in range(2):
        fits.clear()
        np.random.seed(0)  # noqa: NPY002 (must not make the searches reproducible)
        _pgs().fit(X, y)
        splits.append(fits[0][1])
    # The split comes from fresh OS entropy, never NumPy's global state (the
    # fits' own noise is the estimators' rule).
    assert not np.array_equal(*splits)


def test_default_search_gives_every_fit_fresh_entropy(data, fits):
    _pgs().fit(*data)
    assert [state["random_state"] for _, _, state in fits] == [None] * 3


@pytest.mark.parametrize("make", [_pgs, _lss])
def test_a_fixed_seed_warns_once_and_spawns_distinct_128_bit_seeds(data, make, fits):
    X, y = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make(random_state=5).fit(X, y)
    fixed = [
        w
        for w in caught
        if issubclass(w.category, PrivacyLeakWarning)
        and "fixes the noise" in str(w.message)
    ]
    assert len(fixed) == 1
    assert type(make()).__name__ in str(fixed[0].message)
    states = [state["random_state"] for _, _, state in fits]
    assert len(states) == (3 if make is _pgs else 5)
    assert all(isinstance(s, np.random.RandomState) for s in states)
    # What each fit's draw_seed reads from its RandomState: 4 x 32 = 128 bits,
    # distinct between the fits.
    words = [tuple(s.randint(0, 2**32, size=4, dtype=np.uint64)) for s in states]
    assert len(set(words)) == len(words)


def test_secure_mode_is_passed_on_and_draws_the_search_noise(data, fits, monkeypatch):
    modes = []
    make_generator = model_selection.make_generator

    def recording(seed, secure_mode=False):
        modes.append(secure_mode)
        return make_generator(seed, False)

    # The count's generator is made in _search_base, the comparison's here.
    monkeypatch.setattr(search_base, "make_generator", recording)
    monkeypatch.setattr(model_selection, "make_generator", recording)
    _pgs(secure_mode=True, random_state=4).fit(*data)
    assert [state["secure_mode"] for _, _, state in fits] == [True] * 3
    # random_state is ignored: every fit draws fresh entropy.
    assert [state["random_state"] for _, _, state in fits] == [None] * 3
    assert len(modes) == 2 and all(modes)  # the count and the comparison


# --- (d) epsilon_ is an upper bound of what ran, re-audited independently --------


def _pld_gaussian(mechanisms):
    """dp-accounting PLD of Gaussian steps, each composed on its own."""
    pld = None
    for r in mechanisms:
        step = pld_lib.from_gaussian_mechanism(r.noise_multiplier).self_compose(r.count)
        pld = step if pld is None else pld.compose(step)
    return pld


@pytest.mark.parametrize("neighboring", ["add_remove", "replace"])
def test_epsilon_bounds_every_mechanism_that_ran(data, neighboring, fits, monkeypatch):
    X, y = data
    scales = []
    make_generator = model_selection.make_generator

    def recording(seed, secure_mode=False):
        rng = make_generator(seed, secure_mode)

        class _Recorder:
            def __getattr__(self, name):
                return getattr(rng, name)

            def gumbel(self, *, scale, size):
                scales.append(scale)
                return rng.gumbel(scale=scale, size=size)

        return _Recorder()

    monkeypatch.setattr(search_base, "make_generator", recording)
    monkeypatch.setattr(model_selection, "make_generator", recording)
    epsilon = 1.0
    estimator = DPLogisticRegression(
        classes=[0, 1], max_iter=5, neighboring=neighboring
    )
    search = _pgs(estimator=estimator, epsilon=epsilon).fit(X, y)
    entries = search.ledger_.entries
    *candidates, refit = [est for est, _, _ in fits]
    mu = gdp_mu(epsilon, DELTA)
    count = []
    if neighboring == "add_remove":
        # The size was counted privately, and the count charged first.
        count = [GaussianSteps(count_noise_multiplier(mu))]
        assert entries[0].mechanism == tuple(count) and entries[0].part is None
        entries = entries[1:]
    else:
        assert search.public_n_samples_ == X.shape[0]
    # The ledger holds what the fits ran, with the part they read.
    assert [e.mechanism for e in entries[:2]] == [c.ledger_ for c in candidates]
    assert [e.part for e in entries] == ["train", "train", "validation", None]
    assert entries[3].mechanism == refit.ledger_
    select = entries[2].mechanism
    assert isinstance(select, EpsilonDeltaRecord) and select.delta == 0.0
    # Report-noisy-max: scale 1/eps for monotone counts (add/remove), else 2/eps.
    factor = 1.0 if neighboring == "add_remove" else 2.0
    assert scales == [pytest.approx(factor / select.epsilon, rel=1e-12)]
    # Train row: count, candidates, refit. Validation row: count, refit, argmax.
    all_rows = count + list(refit.ledger_)
    train = _pld_gaussian(
        all_rows + [r for c in candidates for r in c.ledger_]
    ).get_epsilon_for_delta(DELTA)
    validation = (
        _pld_gaussian(all_rows)
        .compose(
            pld_lib.from_privacy_parameters(
                common.DifferentialPrivacyParameters(select.epsilon, 0.0)
            )
        )
        .get_epsilon_for_delta(DELTA)
    )
    # The PLDs are pessimistic (discretised): within 1% above the exact value.
    assert max(train, validation) * (1 - 1e-2) <= search.epsilon_ <= epsilon
    assert math.isclose(search.epsilon_, epsilon, rel_tol=1e-6)


# --- (e) With a declared size nothing but the noisy model tells n from n + 1 -----


def _public_attributes(search):
    entries = [(e.mechanism, e.part, e.source) for e in search.ledger_.entries]
    best = search.best_estimator_
    fitted = {
        k: v
        for k, v in vars(best).items()
        if k.endswith("_") and k not in ("coef_", "intercept_")
    }
    results = {k: v for k, v in search.cv_results_.items() if k != "selected"}
    return (
        entries,
        search.epsilon_,
        search.delta_,
        search.selection_epsilon_,
        search.public_n_samples_,
        repr(results),
        repr(sorted(fitted.items())),
    )


@pytest.mark.parametrize(
    "estimator",
    [
        DPLogisticRegression(
            classes=[0, 1], max_iter=8, learning_rate=1.0, clip_norm=1.0
        ),
        DPLogisticRegression(classes=[0, 1]),  # every size rule on "auto"
    ],
    ids=["fixed", "auto"],
)
def test_declared_size_makes_attributes_independent_of_n(data, estimator):
    X, y = data
    searches = [
        _quiet(
            _pgs(
                estimator=estimator,
                param_grid={"momentum": [0.0, 0.5]},
                public_n_samples=550,
                random_state=2,
            ),
            X[:n],
            y[:n],
        )
        for n in (X.shape[0] - 1, X.shape[0])
    ]
    assert searches[0].best_estimator_.public_n_samples_ == 550
    assert _public_attributes(searches[0]) == _public_attributes(searches[1])
