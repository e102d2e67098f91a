"""Pickles of fitted objects survive the package's layout changes.

``tests/data/fits_before_layout.pkl.gz`` was written by
``benchmarks/fit_fingerprint.py --pickle`` on the flat layout (every module at the
package root), before the move to one subpackage per public module. Each entry is
``(name, fitted object, first 20 input rows, [(output name, array), ...])``: the
predictions (and probabilities or transforms) the object made on those rows then.
"""

import gzip
import io
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

if int(np.__version__.split(".")[0]) < 2:
    # The fixture was written with numpy 2, whose pickles name numpy._core: numpy 1
    # cannot read them (whatever package pickled the arrays).
    pytest.skip("numpy 1 cannot read numpy 2's pickles", allow_module_level=True)

FIXTURE = Path(__file__).parent / "data" / "fits_before_layout.pkl.gz"


def _load():
    with warnings.catch_warnings():
        # scikit-learn warns when a pickle comes from another of its versions.
        warnings.simplefilter("ignore")
        with gzip.open(FIXTURE, "rb") as f:
            return pickle.load(f)


FITS = _load()


def _outputs(obj, rows):
    found = []
    if hasattr(obj, "predict"):
        found.append(("predict", np.asarray(obj.predict(rows), dtype=float)))
    if hasattr(obj, "predict_proba"):
        found.append(("predict_proba", np.asarray(obj.predict_proba(rows))))
    if hasattr(obj, "transform"):
        t = obj.transform(rows)
        found.append(("transform", np.asarray(sp.csr_matrix(t).toarray(), dtype=float)))
    return found


def test_the_fixture_covers_every_kind_of_fit():
    kinds = {type(obj).__name__ for _, obj, _, _ in FITS}
    assert {
        "DPLogisticRegression",
        "DPHuberSVM",
        "OutputPerturbationClassifier",
        "PhasedLocalizationClassifier",
        "PrivateGridSearchCV",
        "LinearScalingSearch",
        "PrivatePipeline",
        "DPMinMaxScaler",
        "DPStandardScaler",
        "DPSimpleImputer",
        "DPOneHotEncoder",
    } <= kinds
    assert len(FITS) == 30


@pytest.mark.parametrize("entry", FITS, ids=[e[0] for e in FITS])
def test_an_old_pickle_loads_and_predicts_the_same(entry):
    name, obj, rows, expected = entry
    # The fixture kept the last two arrays of each fit: its outputs on the rows, or
    # a fitted attribute and the one output.
    outputs = ("predict", "predict_proba", "transform")
    expected = [(k, a) for k, a in expected if k in outputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = [(k, a) for k, a in _outputs(obj, rows) if k in dict(expected)]
    assert [k for k, _ in got] == [k for k, _ in expected]
    for (kind, a), (_, b) in zip(got, expected, strict=True):
        if kind == "predict":
            np.testing.assert_array_equal(a, b)
        else:
            # Probabilities and transforms are sums whose float order may differ
            # between numpy, BLAS and CPU builds (2.8e-17 seen on a fresh install).
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("entry", FITS, ids=[e[0] for e in FITS])
def test_an_old_pickle_shows_its_parameters_and_clones(entry):
    # Parameters added since the pickle was written (C, max_sample_weight, cv,
    # n_jobs) take their defaults: repr and get_params do not crash.
    _, obj, _, _ = entry
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert type(obj).__name__ in repr(obj)
        params = obj.get_params()
        twin = clone(obj)
    assert set(twin.get_params()) == set(params)


@pytest.mark.parametrize("entry", FITS, ids=[e[0] for e in FITS])
def test_a_new_pickle_names_only_public_modules(entry):
    _, obj, _, _ = entry
    found = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            if module.startswith("sklearn_dpgd"):
                found.add(module)
            return super().find_class(module, name)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Recorder(io.BytesIO(pickle.dumps(obj))).load()
    public = {
        "sklearn_dpgd.linear_model",
        "sklearn_dpgd.baselines",
        "sklearn_dpgd.model_selection",
        "sklearn_dpgd.pipeline",
        "sklearn_dpgd.preprocessing",
        "sklearn_dpgd.schedules",
    }
    # The ledger's records are named in accounting's own (unmoved) modules.
    assert found, "the pickle names no class of the package"
    assert all(m in public or m.startswith("sklearn_dpgd.accounting.") for m in found)
