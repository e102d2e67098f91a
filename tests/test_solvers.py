"""The seam between estimators and solvers (sklearn_dpgd/_solvers/).

Solvers take arrays, plans and oracles and return a FitResult: none imports an
estimator module, takes an ``estimator`` argument or sets a fitted attribute (a
name ending in ``_``) on anything. Read statically (``ast``), so a solver that
mutated an estimator on a rare branch is caught without running it.
"""

import ast
from pathlib import Path

import pytest

import sklearn_dpgd._solvers as solvers

# _base holds FitResult (data), not an estimator: solvers may import it.
ESTIMATOR_MODULES = {"linear_model", "baselines", "_logistic", "_huber"}


def seam_violations(source, name="<module>"):
    """Every way ``source`` (a solver module) reaches into an estimator."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.ImportFrom):
            names = {(node.module or "").rsplit(".", 1)[-1]}
            names |= {alias.name for alias in node.names}
            found += [f"imports {n}" for n in sorted(names & ESTIMATOR_MODULES)]
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            found += [f"takes {a.arg}" for a in args if a.arg == "estimator"]
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if node.attr.endswith("_") and not node.attr.startswith("_"):
                found.append(f"sets {node.attr}")
    return found


@pytest.mark.parametrize(
    "path",
    sorted(Path(solvers.__file__).parent.glob("*.py")),
    ids=lambda p: p.name,
)
def test_no_solver_sees_an_estimator(path):
    assert seam_violations(path.read_text(encoding="utf-8"), path.name) == []


def test_the_seam_check_sees_an_estimator():
    # The shape of the former _snowball.fit_snowball(estimator, ...).
    source = (
        "from ..linear_model import DPLogisticRegression\n"
        "def fit(estimator, X):\n"
        "    estimator.coef_ = X\n"
    )
    assert seam_violations(source) == [
        "imports linear_model",
        "takes estimator",
        "sets coef_",
    ]
