"""Numpydoc validation of the public API, so docstrings cannot drift from signatures.

Like scikit-learn's ``test_docstrings.py`` and skglm's ``test_docstring_parameters.py``:
every public class, function and method is checked with
:func:`numpydoc.validate.validate`, which reads the *runtime* ``__doc__`` (the
estimators' class docstrings are assembled at import time from the shared fragments
of ``linear_model._assemble``). Skipped without numpydoc (the ``doc`` extra), so the
default suite runs without it.
"""

import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

MODULES = [
    "sklearn_dpgd.linear_model",
    "sklearn_dpgd.baselines",
    "sklearn_dpgd.schedules",
    "sklearn_dpgd.accounting",
    "sklearn_dpgd.exceptions",
    "sklearn_dpgd.datasets",
    "sklearn_dpgd.model_selection",
    "sklearn_dpgd.audit",
    "sklearn_dpgd.preprocessing",
    "sklearn_dpgd.pipeline",
]

# The codes enforced: documented parameters match the signature (names, order,
# types and descriptions present), return values documented, a one-line
# capitalised summary, and basic layout. Not enforced: extended summary (ES01), See
# Also (SA01), Examples (EX01), "type only" on the first Returns line (RT02: the
# scikit-learn style ``self : object`` names the value), and punctuation-only rules.
ENFORCED = {
    "GL03",  # double line break
    "GL05",  # tabs
    "GL06",  # unknown section
    "GL07",  # sections in the wrong order
    "GL08",  # no docstring
    "GL09",  # deprecation warning placement
    "GL10",  # reST directive syntax
    "PR01",  # parameter of the signature not documented
    "PR02",  # documented parameter not in the signature
    "PR03",  # parameters in the wrong order
    "PR04",  # parameter without a type
    "PR05",  # type ending with a period
    "PR06",  # type spelled "integer", "boolean", "string"
    "PR07",  # parameter without a description
    "PR08",  # description not starting with a capital letter
    "PR10",  # "a: int" instead of "a : int"
    "RT01",  # no Returns section
    "RT03",  # return value without a description
    "SS01",  # no summary
    "SS02",  # summary not starting with a capital letter
    "SS03",  # summary not ending with a period
    "SS04",  # summary with heading whitespace
    "SS06",  # summary longer than one line
    "YD01",  # no Yields section
}

# Known, deliberate exceptions: {qualified name: {codes}}.
# Per-object exceptions to ENFORCED, each with its reason; none are needed now.
ALLOWED = {}


def _public_names():
    names = []
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # datasets needs pandas (the "datasets" extra)
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            qualname = f"{module_name}.{name}"
            names.append(qualname)
            if not inspect.isclass(obj) or issubclass(obj, BaseException):
                continue
            for attr in sorted(dir(obj)):
                if attr.startswith("_"):
                    continue
                # Methods and properties defined in this package (not those
                # inherited from scikit-learn or from object).
                owner = next(
                    (klass for klass in obj.__mro__ if attr in vars(klass)), None
                )
                if owner is None or not owner.__module__.startswith("sklearn_dpgd"):
                    continue
                member = vars(owner)[attr]
                if not (callable(member) or isinstance(member, property)):
                    continue  # dataclass fields: documented in Parameters
                if getattr(member, "__doc__", None) is None and any(
                    getattr(vars(base).get(attr), "__doc__", None)
                    for base in obj.__mro__[obj.__mro__.index(owner) + 1 :]
                ):
                    continue  # an override that inherits its base's docstring
                names.append(f"{qualname}.{attr}")
    return names


PUBLIC_NAMES = _public_names()


def test_public_api_is_collected():
    assert "sklearn_dpgd.linear_model.DPLogisticRegression" in PUBLIC_NAMES
    assert "sklearn_dpgd.linear_model.DPLogisticRegression.fit" in PUBLIC_NAMES
    assert "sklearn_dpgd.schedules.NoiseSchedule.plan" in PUBLIC_NAMES
    assert "sklearn_dpgd.accounting.ledger_epsilon" in PUBLIC_NAMES


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_docstring(name):
    result = numpydoc_validate.validate(name)
    allowed = ALLOWED.get(name, set())
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code in ENFORCED and code not in allowed
    ]
    assert not errors, f"{name}:\n" + "\n".join(errors)
