"""No error of the table vectorizer or of the recipes prints a value of the data
(privacy rules: no private values in error messages).

Their row-wise functions convert the columns themselves (``_shifted_log1p``,
``_datetime_parts``, the breast-cancer recipe's ``_as_array``), outside the
estimators' validation: these cases check that they refuse bad values without
printing them, in the message and in the whole printed traceback.
"""

import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_dpgd.datasets import private_pipeline
from sklearn_dpgd.preprocessing import DPTableVectorizer

SECRET = "secret-77"


def _printed(call):
    """The message and the whole printed traceback of the ValueError of ``call``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            call()
    return "".join(traceback.format_exception(info.value))


def test_breast_cancer_recipe_refuses_a_string_without_printing_it():
    rng = np.random.default_rng(0)
    X = rng.uniform(0.1, 1.0, size=(40, 30)).astype(object)
    X[3, 4] = SECRET
    model = private_pipeline("breast_cancer", epsilon=1.0, random_state=0)
    text = _printed(lambda: model.fit(X, np.arange(40) % 2))
    assert SECRET not in text
    assert "not shown" in text


def test_numeric_transform_refuses_a_string_without_printing_it():
    vectorizer = DPTableVectorizer(bounds={"a": (0, 5)}, exact_bounds=["a"])
    vectorizer.fit(pd.DataFrame({"a": [1.0, 2.0, 3.0]}))
    X = pd.DataFrame({"a": np.array([1.0, SECRET, 3.0], dtype=object)})
    text = _printed(lambda: vectorizer.transform(X))
    assert SECRET not in text
    assert "not shown" in text


def _datetime_vectorizer():
    return DPTableVectorizer(
        bounds={"d": ("2000-01-01", "2030-01-01")},
        datetime_parts=["time", "month"],
        norm=None,
    )


def test_an_instant_outside_nanosecond_range_is_clipped_not_printed():
    # Year 2999 fits in datetime64[us] but not in nanoseconds since the epoch.
    d = np.array(["2001-01-01", "2999-03-14T15:09:26"], dtype="datetime64[us]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = _datetime_vectorizer().fit_transform(pd.DataFrame({"d": d}))
    assert Z[1, 0] == 1.0  # the end of the declared range, as any later instant
    assert Z[1, 1] == pytest.approx(2 / 11)  # March


def test_a_datetime_column_of_another_dtype_is_refused_by_name_and_dtype():
    vectorizer = _datetime_vectorizer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vectorizer.fit(pd.DataFrame({"d": pd.to_datetime(["2001-01-01"] * 3)}))
    X = pd.DataFrame({"d": np.array(["2001-01-01", SECRET], dtype=object)})
    text = _printed(lambda: vectorizer.transform(X))
    assert SECRET not in text
    assert "'d'" in text
    assert "dtype" in text
