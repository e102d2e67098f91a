"""The one-pass preprocessing (issue 42 item 6) releases exactly what it did.

Each faster path is compared with the definition it replaces, value for value
(and noise draw for noise draw on fixed seeds): the quantile draws from one sort,
the category codes computed once per distinct value or from pandas codes, the
missing-value test's shortcuts, and ``fit_transform`` in one pass.
"""

import decimal
import fractions
import math
import numbers
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.pipeline import make_private_pipeline
from sklearn_dpgd.preprocessing import DPOneHotEncoder, DPTableVectorizer
from sklearn_dpgd.preprocessing._encoders import _category_codes
from sklearn_dpgd.preprocessing._histogram import (
    _category_key,
    _is_missing,
    _key_counts,
)
from sklearn_dpgd.preprocessing._quantiles import _dp_quantile, _dp_quantiles


def _is_missing_definition(value):
    return value is None or (isinstance(value, numbers.Real) and math.isnan(value))


class _Float(float):
    pass


MIXED = [
    "a",
    "b",
    "",
    1,
    1.0,
    True,
    False,
    0,
    -0.0,
    0.0,
    2,
    None,
    math.nan,
    float("nan"),
    np.nan,
    np.float64("nan"),
    np.float32("nan"),
    np.float64(2.0),
    np.int64(1),
    _Float("nan"),
    _Float(1.0),
    decimal.Decimal("NaN"),
    decimal.Decimal("1"),
    fractions.Fraction(1, 2),
    pd.NA,
    pd.NaT,
    (1, "a"),
]


@pytest.mark.parametrize("value", MIXED, ids=repr)
def test_is_missing_shortcuts_agree_with_its_definition(value):
    assert _is_missing(value) == _is_missing_definition(value)


@pytest.mark.parametrize("declared", [["a", 1, 0.0, 2, None], [True, "b", math.nan]])
def test_category_codes_equal_the_per_row_lookup(declared):
    column = np.array(MIXED * 3, dtype=object)
    index = {c: i for i, c in enumerate(declared)}
    k = len(declared)
    expected = [k if _is_missing_definition(v) else index.get(v, k) for v in column]
    np.testing.assert_array_equal(_category_codes(column, declared), expected)


@pytest.mark.parametrize(
    "values",
    [
        ["a", "b", "a", None, math.nan, np.nan, "", "b"],  # text: counted by value
        ["a", np.str_("a"), "a", None],  # equal, another type: another bin
        ["a", 1.0, "1.0", math.nan, 1.0],  # a number: keyed cell by cell
        ["0", 0.0, -0.0, 0, False, None],
        MIXED,
    ],
)
def test_key_counts_equal_the_per_cell_count(values):
    column = np.array(values * 5, dtype=object)
    expected = Counter(_category_key(v) for v in column if not _is_missing(v))
    counts = _key_counts(column)
    assert counts == expected
    # The same bins in the same order of first appearance, with the same values.
    assert [(k[0], k[1]) for k in counts] == [(k[0], k[1]) for k in expected]


def test_categorical_frame_transform_equals_object_array_transform():
    rng = np.random.default_rng(0)
    values = np.array(["x", "y", "z", "w", None], dtype=object)[rng.integers(0, 5, 300)]
    codebook = pd.CategoricalDtype(["w", "x", "y", "z", "v"])
    frame = pd.DataFrame(
        {"a": pd.Series(values).astype(codebook), "b": pd.Series(values[::-1])}
    )
    frame["b"] = frame["b"].astype("category")  # categories from the data
    encoder = DPOneHotEncoder([["x", "y", "unseen"], ["z", "w"]]).fit(frame)
    as_objects = frame.astype(object)  # the general path: object columns
    fast = encoder.transform(frame)
    slow = encoder.transform(as_objects)
    np.testing.assert_array_equal(fast, slow)
    assert fast[:, 3].sum() == np.sum(~np.isin(values, ["x", "y"]))  # a's other
    # The fast path checks the columns as the general one does.
    with pytest.raises(ValueError, match="feature names"):
        encoder.transform(frame.rename(columns={"a": "c"}))


def test_quantiles_from_one_sort_are_the_same_draws():
    x = np.random.default_rng(3).lognormal(size=500)
    one = np.random.default_rng(7)
    two = np.random.default_rng(7)
    together = _dp_quantiles(x, -1.0, 30.0, (0.01, 0.5, 0.99), 0.3, one)
    apart = [_dp_quantile(x, -1.0, 30.0, q, 0.3, two) for q in (0.01, 0.5, 0.99)]
    assert together == apart
    assert one.random() == two.random()  # the same number of draws


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(17, 90, n),
            "income": rng.lognormal(8, 2, n),
            "job": pd.Series(rng.choice(["a", "b", "c", None], n)).astype("category"),
            "city": rng.choice(["p", "q"], n),
        }
    )


def _vectorizer():
    return DPTableVectorizer(
        categories={"job": ["a", "b", "c"], "city": "private"},
        bounds={"age": (17, 100), "income": (0, 1e6)},
        missing=["income"],
        epsilon=2.0,
        delta=1e-5,
        random_state=0,
    )


def _count_encoder_passes(monkeypatch):
    calls = []
    transform = DPOneHotEncoder.transform

    def counted(self, X):
        calls.append(len(X))
        return transform(self, X)

    monkeypatch.setattr(DPOneHotEncoder, "transform", counted)
    return calls


def test_fit_transform_is_fit_then_transform(monkeypatch):
    X = _table()
    X.loc[::7, "income"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixed seed's warning
        twice = _vectorizer().fit(X)
        expected = twice.transform(X)
        calls = _count_encoder_passes(monkeypatch)
        once = _vectorizer()
        Z = once.fit_transform(X)
    # One pass of each of the two encoders over the rows, not fit's and then
    # transform's.
    assert calls == [400, 400]
    np.testing.assert_array_equal(Z, expected)
    np.testing.assert_array_equal(Z, once.transform(X))
    assert (once.epsilon_, once.delta_) == (twice.epsilon_, twice.delta_)
    assert len(once.ledger_) == len(twice.ledger_) > 0


def test_pipeline_fits_its_vectorizer_in_one_pass(monkeypatch):
    X, y = _table(seed=1), np.arange(400) % 2

    def fitted():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make_private_pipeline(
                _vectorizer(),
                DPLogisticRegression(classes=[0, 1]),
                epsilon=3.0,
                random_state=1,
            )
            return model.fit(X, y)

    before = fitted()
    calls = _count_encoder_passes(monkeypatch)
    after = fitted()
    assert calls == [400, 400]
    np.testing.assert_array_equal(
        after.named_steps["dplogisticregression"].coef_,
        before.named_steps["dplogisticregression"].coef_,
    )
    # The nested pipeline's fit did not keep the outer fit_transform's output.
    assert after.epsilon_ == before.epsilon_ <= 3.0
