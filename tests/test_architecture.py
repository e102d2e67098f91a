"""The package's import structure: no function-local imports of its own modules and
no import cycles among them; one subpackage per public module and the layers between
them; modules and `fit` methods within the size limits of the house style.

Both are read statically (``ast``) from the source of every module of the installed
package, so the tests see imports hidden inside functions that a runtime check would
miss. Lazy imports of optional third-party packages (pandas, matplotlib, dask) are
allowed: only the package's own modules are checked.
"""

import ast
import importlib
from pathlib import Path

import sklearn_dpgd

PACKAGE = "sklearn_dpgd"


def _modules(root, package):
    """Map each dotted module name of the package under ``root`` to its file."""
    modules = {}
    for path in sorted(Path(root).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join([package, *parts])] = path
    return modules


def _known(name, modules):
    """The module ``name`` names, or the nearest enclosing module of the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node, module, is_package, modules, package):
    """The package's own modules that an import statement imports."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level == 0:
            base = node.module
        else:
            base = module if is_package else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            base = f"{base}.{node.module}" if node.module else base
        # ``from X import n`` needs the submodule X.n if there is one, else X itself.
        names = [
            f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
            for a in node.names
        ]
    own = (n for n in names if n == package or n.startswith(package + "."))
    return {t for t in (_known(n, modules) for n in own) if t and t != module}


def _lazy_target(node, package, modules):
    """The package's module named by ``importlib.import_module("...")``, or None.

    The target is a string constant, or a module-level name bound to one.
    """
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
        and node.args
    ):
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        name = arg.value
    else:
        return "<unknown>"
    return _known(name, modules) if name.startswith(package + ".") else None


def package_imports(root, package=PACKAGE):
    """Every import of the package's own modules: ``(module, target, line, local)``.

    ``local`` is True for an import inside a function (or lambda), which runs only
    when the function is called.
    """
    modules = _modules(root, package)
    found = []
    for module, path in modules.items():
        is_package = path.name == "__init__.py"

        def visit(node, local, module=module, is_package=is_package):
            for child in ast.iter_child_nodes(node):
                inner = local or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
                )
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in sorted(
                        _targets(child, module, is_package, modules, package)
                    ):
                        found.append((module, target, child.lineno, local))
                target = _lazy_target(child, package, modules)
                if target is not None:
                    # A lazy import is an edge like any other for the layer and
                    # cycle checks; its place is checked by test_one_lazy_import.
                    found.append((module, target, child.lineno, False))
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def import_cycles(imports):
    """The import cycles (each a list of modules, first repeated last), one per
    strongly connected group of modules, counting function-local imports too."""
    graph = {}
    for module, target, _, _ in imports:
        graph.setdefault(module, set()).add(target)
        graph.setdefault(target, set())
    # Tarjan's strongly connected components, iteratively.
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(set(group))
    cycles = []
    for group in groups:
        # One concrete cycle through the group's first module, by breadth-first search.
        first = min(group)
        parents, frontier = {first: None}, [first]
        while frontier and first not in [t for n in frontier for t in graph[n]]:
            nxt = []
            for node in frontier:
                for target in sorted(graph[node] & group):
                    if target not in parents:
                        parents[target] = node
                        nxt.append(target)
            frontier = nxt
        last = next(n for n in frontier if first in graph[n])
        path = [last]
        while parents[path[-1]] is not None:
            path.append(parents[path[-1]])
        cycles.append([*reversed(path), first])
    return cycles


def _root():
    return Path(sklearn_dpgd.__file__).parent


def test_no_function_local_imports_of_the_package():
    local = [
        f"{module}:{line} imports {target}"
        for module, target, line, is_local in package_imports(_root())
        if is_local
    ]
    assert not local, "function-local imports of the package's modules:\n" + "\n".join(
        local
    )


def _lazy_imports(root, package=PACKAGE):
    modules = _modules(root, package)
    found = []
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            target = _lazy_target(node, package, modules)
            if target is not None:
                found.append((module, target))
    return found


def test_one_lazy_import():
    # The compiled kernels (and Numba with them) are imported when a fit first
    # needs them, through _engine._lazy only; every other import is a statement
    # at module level.
    assert _lazy_imports(_root()) == [
        ("sklearn_dpgd._engine._lazy", "sklearn_dpgd._engine._kernels")
    ]


def test_no_import_cycles():
    cycles = import_cycles(package_imports(_root()))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checks_see_a_local_import_and_a_cycle(tmp_path):
    # The two tests above pass on the package; prove that they would not pass on a
    # package that has what they forbid.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("import math\n\n\ndef f():\n    from .b import g\n")
    (pkg / "b.py").write_text(
        "from pkg.sub import c\n\n\ndef g():\n    import pandas\n"
    )
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from .. import a, f\n")
    (pkg / "d.py").write_text("from . import b\n")
    imports = package_imports(pkg, "pkg")
    assert sorted(imports) == [
        ("pkg", "pkg.a", 1, False),
        ("pkg.a", "pkg.b", 5, True),
        ("pkg.b", "pkg.sub.c", 1, False),
        ("pkg.d", "pkg.b", 1, False),
        ("pkg.sub.c", "pkg", 1, False),
        ("pkg.sub.c", "pkg.a", 1, False),
    ]
    assert import_cycles(imports) == [["pkg", "pkg.a", "pkg.b", "pkg.sub.c", "pkg"]]
    acyclic = [i for i in imports if i[:2] != ("pkg.a", "pkg.b")]
    assert import_cycles(acyclic) == []


# The layout (as scikit-learn's: a subpackage per public module, its private helpers
# inside it). The package root holds only the public single-module rooms and a few
# small cross-cutting modules; every other module lives in a subpackage.
ROOT_MODULES = {
    "sklearn_dpgd",
    "sklearn_dpgd.__main__",
    # public single modules
    "sklearn_dpgd.audit",
    "sklearn_dpgd.exceptions",
    "sklearn_dpgd.pipeline",
    # cross-cutting helpers used by every layer
    "sklearn_dpgd._base",
    "sklearn_dpgd._boundary",
    "sklearn_dpgd._boundary_table",
    "sklearn_dpgd._errors",
    "sklearn_dpgd._public_size",
    "sklearn_dpgd._sklearn_compat",
    "sklearn_dpgd._validation",
    "sklearn_dpgd._warnings",
}
SUBPACKAGES = {
    "accounting",
    "_engine",
    "_solvers",
    "schedules",
    "linear_model",
    "baselines",
    "preprocessing",
    "model_selection",
    "datasets",
}
# A room is a subpackage or a root module. Each room may import rooms of its own or
# a lower layer only: the engine never reads a schedule or an estimator, schedules
# never read an estimator (the "auto" rules live in schedules/, below the
# estimators that read them), and nothing imports the package's __init__ but
# __main__.
LAYERS = {
    0: {"exceptions", "_base", "_boundary_table", "_public_size", "_sklearn_compat"}
    | {"_validation", "_warnings"},
    1: {"accounting"},
    # _boundary: the check every private fit makes of the scikit-learn constructs
    # around it (reads the ledgers' strict flag); _errors: the estimators' shared
    # mixin, whose clone runs that check.
    2: {"_engine", "_boundary", "_errors"},
    3: {"_solvers"},
    4: {"schedules"},
    5: {"linear_model", "preprocessing", "pipeline", "baselines"},
    6: {"model_selection", "audit", "datasets"},
    7: {"sklearn_dpgd"},
    8: {"__main__"},
}


def room(module, package=PACKAGE):
    """The subpackage (or root module) ``module`` belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def room_imports(imports):
    """``{(room, room)}`` of the imports between distinct rooms."""
    return {(room(m), room(t)) for m, t, _, _ in imports if room(m) != room(t)}


def layer_violations(imports, layers=LAYERS):
    """Imports from a room to a room of a higher layer (or of no layer)."""
    level = {r: k for k, rooms in layers.items() for r in rooms}
    return sorted(
        f"{a} (layer {level.get(a)}) imports {b} (layer {level.get(b)})"
        for a, b in room_imports(imports)
        if a not in level or b not in level or level[b] > level[a]
    )


def test_the_root_holds_only_public_modules_and_cross_cutting_helpers():
    modules = _modules(_root(), PACKAGE)
    root = {m for m in modules if m.count(".") <= 1 and room(m) not in SUBPACKAGES}
    assert root == ROOT_MODULES
    subpackages = {p.name for p in _root().iterdir() if (p / "__init__.py").is_file()}
    assert subpackages == SUBPACKAGES


def test_rooms_import_only_their_own_or_lower_layers():
    imports = package_imports(_root())
    assert not layer_violations(imports)
    rooms = {room(m) for m, *_ in imports} | {room(t) for _, t, *_ in imports}
    assert rooms <= {r for rs in LAYERS.values() for r in rs}
    # No cycle between rooms either (a cycle inside one room is caught above).
    edges = [(a, b, 0, False) for a, b in room_imports(imports)]
    assert import_cycles(edges) == []


def test_public_classes_name_their_public_module():
    # Pickles and reprs name sklearn_dpgd.linear_model, not linear_model._logistic.
    for name in [
        "linear_model",
        "baselines",
        "schedules",
        "preprocessing",
        "model_selection",
    ]:
        module = importlib.import_module(f"{PACKAGE}.{name}")
        for public in module.__all__:
            assert getattr(module, public).__module__ == module.__name__, public


def test_the_layout_checks_see_a_flat_module_and_an_upward_import():
    flat = [("sklearn_dpgd._oracle", "sklearn_dpgd.accounting", 1, False)]
    assert room("sklearn_dpgd._oracle") not in SUBPACKAGES | {
        room(m) for m in ROOT_MODULES
    }
    assert layer_violations(flat) == [
        "_oracle (layer None) imports accounting (layer 1)"
    ]
    upward = [("sklearn_dpgd._engine._oracle", "sklearn_dpgd.schedules._noise", 3, 0)]
    assert layer_violations(upward) == ["_engine (layer 2) imports schedules (layer 4)"]


# The size limits of the house style (doc: "modules under ~800 lines, each fit
# under ~60 lines"). Allow-listed entries are over today and are being split; each
# one removed from a list below makes the test enforce the limit on it.
MAX_MODULE_LINES = 800
MAX_FIT_LINES = 60
MODULES_OVER = set()
FITS_OVER = set()


def module_lines(root, package=PACKAGE):
    """``{module: number of lines}`` of every module of the package."""
    return {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in _modules(root, package).items()
    }


def fit_lines(root, package=PACKAGE):
    """``{"module:Class": lines}`` of every ``fit`` method defined in the package,
    counted from its first statement after the docstring to its end."""
    found = {}
    for module, path in _modules(root, package).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if not (isinstance(item, ast.FunctionDef) and item.name == "fit"):
                    continue
                body = item.body
                if ast.get_docstring(item) is not None:
                    body = body[1:]
                lines = body[-1].end_lineno - body[0].lineno + 1 if body else 0
                found[f"{module}:{node.name}"] = lines
    return found


def test_modules_are_under_the_line_limit():
    over = {
        m: n
        for m, n in module_lines(_root()).items()
        if n > MAX_MODULE_LINES and m not in MODULES_OVER
    }
    assert not over, f"modules over {MAX_MODULE_LINES} lines: {over}"


def test_fit_methods_are_under_the_line_limit():
    found = fit_lines(_root())
    over = {f: n for f, n in found.items() if n > MAX_FIT_LINES and f not in FITS_OVER}
    assert not over, f"fit methods over {MAX_FIT_LINES} lines: {over}"


def test_the_allow_lists_name_only_what_is_over():
    # An entry that is no longer over the limit must leave its list.
    lines, fits = module_lines(_root()), fit_lines(_root())
    assert all(lines.get(m, 0) > MAX_MODULE_LINES for m in MODULES_OVER)
    assert all(fits.get(f, 0) > MAX_FIT_LINES for f in FITS_OVER)


def test_the_size_checks_see_a_long_module_and_a_long_fit(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    body = "\n".join(f"        x{i} = {i}" for i in range(61))
    (pkg / "est.py").write_text(
        f'class E:\n    def fit(self):\n        """Doc."""\n{body}\n' + "\n" * 800
    )
    assert module_lines(pkg, "pkg")["pkg.est"] > MAX_MODULE_LINES
    assert fit_lines(pkg, "pkg") == {"pkg.est:E": 61}
