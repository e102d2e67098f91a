"""No error message prints a value of the data (privacy rules: no private values
in error messages).

NumPy's "could not convert string to float: '<value>'" and scikit-learn's 1-D
and complex-array errors print the offending values; every estimator and
transformer of the package raises them again without the values
(:func:`sklearn_dpgd._validation.validate_data`).
"""

import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_dpgd import (
    DPHuberRegressor,
    DPHuberSVM,
    DPLinearRegression,
    DPLogisticRegression,
)
from sklearn_dpgd.baselines import OutputPerturbationClassifier
from sklearn_dpgd.preprocessing import (
    DPMinMaxScaler,
    DPSimpleImputer,
    DPStandardScaler,
)

SECRET = "secret-7731"
SECRET_NUMBER = 0.9137731


def _classifiers():
    return [
        DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=5),
        DPHuberSVM(epsilon=1.0, classes=[0, 1], max_iter=5),
        OutputPerturbationClassifier(epsilon=1.0, classes=[0, 1]),
    ]


def _regressors():
    return [
        DPLinearRegression(epsilon=1.0, y_bounds=(0, 1), max_iter=5),
        DPHuberRegressor(epsilon=1.0, y_bounds=(0, 1), max_iter=5),
    ]


def _transformers():
    return [
        DPStandardScaler(epsilon=1.0, bounds=(0, 1)),
        DPMinMaxScaler(epsilon=1.0, bounds=(0, 1)),
        DPSimpleImputer(strategy="constant"),
    ]


def _bad_inputs():
    string = np.array([[0.5, 0.2], [0.1, SECRET]] + [[0.3, 0.4]] * 6, dtype=object)
    frame = pd.DataFrame({"a": [0.5] * 8, "b": [SECRET] + ["0.2"] * 7})
    one_d = np.full(8, SECRET_NUMBER)
    complex_ = np.full((8, 2), SECRET_NUMBER + 1j)
    return {"string": string, "frame": frame, "1-D": one_d, "complex": complex_}


def _message_of(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            call()
    # What a user sees: the message and the whole printed traceback.
    return "".join(traceback.format_exception(info.value))


def _assert_no_value(text):
    assert SECRET not in text
    assert "9137731" not in text
    assert "not shown" in text


@pytest.mark.parametrize("kind", ["string", "frame", "1-D", "complex"])
@pytest.mark.parametrize(
    "estimator", _classifiers() + _regressors() + _transformers(), ids=repr
)
def test_fit_errors_print_no_value(estimator, kind):
    X = _bad_inputs()[kind]
    y = np.array([0, 1] * 4)
    _assert_no_value(_message_of(lambda: estimator.fit(X, y)))


@pytest.mark.parametrize("kind", ["string", "1-D", "complex"])
@pytest.mark.parametrize(
    "estimator", _classifiers() + _regressors() + _transformers(), ids=repr
)
def test_predict_and_transform_errors_print_no_value(estimator, kind):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 2))
    y = np.arange(40) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    method = getattr(estimator, "predict", None) or estimator.transform
    _assert_no_value(_message_of(lambda: method(_bad_inputs()[kind])))


def test_the_message_keeps_scikit_learns_advice():
    # The estimator checks match on these phrases; users search for them.
    est = DPLogisticRegression(epsilon=1.0, classes=[0, 1])
    one_d = _message_of(lambda: est.fit(np.full(8, 0.5), [0, 1] * 4))
    assert "Expected 2D array, got 1D array instead" in one_d
    assert "Reshape your data" in one_d
    complex_ = _message_of(lambda: est.fit(np.full((8, 2), 1j), [0, 1] * 4))
    assert "Complex data not supported" in complex_
    string = _message_of(lambda: est.fit(_bad_inputs()["string"], [0, 1] * 4))
    assert "DPTableVectorizer" in string


def test_errors_without_values_pass_unchanged():
    est = DPLogisticRegression(epsilon=1.0, classes=[0, 1])
    X = np.array([[np.nan, 1.0]] * 8)
    text = _message_of(lambda: est.fit(X, [0, 1] * 4))
    assert "NaN" in text
    assert "not shown" not in text


N_ROWS = 137  # a number no message may print: the row count is private


def _size_cases():
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(N_ROWS, 3)), np.arange(N_ROWS) % 2
    clf = DPLogisticRegression(epsilon=1.0, classes=[0, 1], max_iter=5)
    reg = DPLinearRegression(epsilon=1.0, y_bounds=(0, 1), max_iter=5)
    return {
        "inconsistent": lambda: clf.fit(X, y[:-1]),
        "2-D y": lambda: clf.fit(X, np.c_[y, y]),
        "2-D y, regressor": lambda: reg.fit(X, np.c_[y, y]),
        "no feature": lambda: clf.fit(X[:, :0], y),
        "weights": lambda: clf.fit(X, y, sample_weight=np.ones(N_ROWS - 1)),
    }


def _shown_messages(call):
    """The messages of the error and of every error a traceback would show with
    it (line numbers of the traceback could hold any number)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            call()
    exc, texts = info.value, []
    while exc is not None:
        texts.append(str(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return "\n".join(texts)


@pytest.mark.parametrize("case", list(_size_cases()))
def test_shape_errors_print_no_row_count(case):
    text = _shown_messages(_size_cases()[case])
    assert str(N_ROWS) not in text
    assert "not shown" in text
