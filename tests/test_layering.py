"""The layer order of the package: a module imports only from its own layer or a lower one.

Pure core at the bottom (load, judge, render, plan, readiness rules), thin edges on top (the
``kubernetes`` client in ``cluster/``, the Pulumi components in ``resources/``, the provider
plugin, the program and mocks, the CLI). Every import counts: at module level, inside a function
(a late import is still a dependency) and under ``if TYPE_CHECKING:`` (a type a lower module
names from a higher one is a dependency the lower one should not have). A module's layer is the
folder it sits in; ``LAYERS`` below is the one place the folders' order is written down, and
``docs/ARCHITECTURE.md`` draws it. A new module goes into a layer's folder (the root keeps only
the public faces of ``ROOT_FACES``), or :func:`test_every_module_has_a_layer` fails.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "dynamo_pulumi"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: Lowest first: each layer is the folder of that name under the package, with everything in it.
LAYERS: tuple[str, ...] = (
    "floor", "api", "model", "defaulting", "validation", "loading", "render", "verdict", "planning",
    "diff", "readiness",
    # --- edges ---
    "cluster", "resources", "plugin", "program", "cli",
)
#: The public faces left at the package root, and the layer each belongs to.
ROOT_FACES: dict[str, str] = {
    "": "floor",  # the package itself (its __init__ imports nothing)
    "errors": "floor",  # dynamo_pulumi.errors: the exceptions every layer raises
    "platform": "model",  # dynamo_pulumi.platform: the operator's platform settings
    "mocks": "program",  # dynamo_pulumi.mocks: Pulumi mocks for users' unit tests
    "user_program": "program",  # dynamo_pulumi.user_program: the helpers a user's program calls
    "__main__": "cli",  # python -m dynamo_pulumi
}
#: Folders under the package that hold no modules.
NOT_LAYERS = ("data",)
#: The first edge: every layer below it is the pure core.
FIRST_EDGE = LAYERS.index("cluster")
#: Libraries only an edge loads at import time (a core module may import them inside a function
#: that only a Pulumi program or a cluster call reaches, or under ``TYPE_CHECKING``).
EDGE_LIBRARIES = ("pulumi", "pulumi_kubernetes", "kubernetes")


def layer_of(module: str) -> int | None:
    """The layer index of a module (``dynamo_pulumi.x.y``): the folder it sits in, or its entry
    in ROOT_FACES at the root; None for a module neither places."""
    if module != PACKAGE and not module.startswith(f"{PACKAGE}."):
        return None
    parts = module.split(".")[1:]
    if len(parts) <= 1:
        face = ROOT_FACES.get(parts[0] if parts else "")
        if face is not None:
            return LAYERS.index(face)
        if not parts or not (ROOT / parts[0]).is_dir():
            return None
    folder = parts[0]
    return LAYERS.index(folder) if folder in LAYERS and (ROOT / folder).is_dir() else None


def all_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = all_modules()


@dataclass(frozen=True)
class Import:
    target: str  # the dynamo_pulumi module imported (or the external top-level package)
    line: int
    module_level: bool  # executed when the importing module is imported


def _resolve(name: str) -> str:
    """The module ``name`` lives in: ``pkg.mod.Name`` -> ``pkg.mod``."""
    while name and name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, module_level: bool):
    """Every import statement under ``node``, with whether it runs at import time."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, module_level
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(child, False)
        elif isinstance(child, ast.If) and _type_checking(child.test):
            for stmt in child.body:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), False)
            for stmt in child.orelse:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), module_level)
        else:
            yield from _walk(child, module_level)


def imports_of(module: str, source: str) -> list[Import]:
    """All imports in ``source`` (the text of ``module``): ours resolved to modules, others to
    their top-level package."""
    is_package = MODULES.get(module, Path()).name == "__init__.py"
    found: list[Import] = []
    for node, module_level in _walk(ast.parse(source), True):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            names = [f"{stem}.{alias.name}" for alias in node.names] if stem.startswith(PACKAGE) else [stem]
        for name in names:
            ours = name == PACKAGE or name.startswith(f"{PACKAGE}.")
            target = _resolve(name) if ours else name.partition(".")[0]
            found.append(Import(target, node.lineno, module_level))
    return found


def upward_imports(module: str, source: str) -> list[str]:
    """``file:line: A (layer) imports B (higher layer)`` for every import against the order."""
    own = layer_of(module)
    problems = []
    for imp in imports_of(module, source):
        if not imp.target.startswith(PACKAGE) or imp.target == module:
            continue
        theirs = layer_of(imp.target)
        if own is not None and theirs is not None and theirs > own:
            problems.append(
                f"{module}:{imp.line}: {module} ({LAYERS[own]}) imports {imp.target} ({LAYERS[theirs]})"
            )
    return list(dict.fromkeys(problems))  # one line per import, however many names it takes


def edge_libraries_at_import(module: str, source: str) -> list[str]:
    return [
        f"{module}:{imp.line}: imports {imp.target} at module level"
        for imp in imports_of(module, source)
        if imp.module_level and imp.target in EDGE_LIBRARIES
    ]


def _core_modules() -> list[str]:
    return [m for m in MODULES if (layer_of(m) or 0) < FIRST_EDGE]


# --- the package as it is ---------------------------------------------------------------------


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in MODULES if layer_of(m) is None)
    assert not missing, f"move these modules into a layer's folder (tests/test_layering.py LAYERS): {missing}"


def test_the_folders_are_the_layers() -> None:
    """Every folder of the package is a layer (or data), every layer a folder, and nothing but
    the public faces is loose at the root."""
    folders = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    assert folders == sorted([*LAYERS, *NOT_LAYERS])
    loose = sorted(p.stem for p in ROOT.glob("*.py") if p.stem != "__init__")
    assert loose == sorted(face for face in ROOT_FACES if face)


def test_no_module_imports_from_a_higher_layer() -> None:
    problems = [p for m, path in MODULES.items() for p in upward_imports(m, path.read_text())]
    assert not problems, "imports against the layer order:\n" + "\n".join(problems)


def test_only_the_edges_import_the_pulumi_components() -> None:
    importers = sorted(
        m
        for m, path in MODULES.items()
        if not m.startswith(f"{PACKAGE}.resources")
        and any(i.target.startswith(f"{PACKAGE}.resources") for i in imports_of(m, path.read_text()))
    )
    edges = {f"{PACKAGE}.{name}" for name in ("mocks", "user_program")}
    edge_folders = tuple(f"{PACKAGE}.{name}." for name in ("program", "cli", "plugin"))
    allowed = [m for m in importers if m in edges or m.startswith(edge_folders)]
    assert importers == allowed


def test_the_core_loads_neither_pulumi_nor_the_kubernetes_client_at_import_time() -> None:
    problems = [p for m in _core_modules() for p in edge_libraries_at_import(m, MODULES[m].read_text())]
    assert not problems, "\n".join(problems)


def test_importing_the_whole_core_leaves_pulumi_and_kubernetes_unloaded() -> None:
    """Transitively too: a fresh interpreter imports every core module and finds neither."""
    code = (
        "import importlib, sys\n"
        f"for name in {_core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in {EDGE_LIBRARIES!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_planning_sits_below_both_edges_and_above_the_verdict() -> None:
    planning = layer_of(f"{PACKAGE}.planning.plan")
    assert planning is not None
    assert layer_of(f"{PACKAGE}.verdict") < planning < FIRST_EDGE  # type: ignore[operator]
    assert planning < layer_of(f"{PACKAGE}.resources.components") < layer_of(f"{PACKAGE}.plugin.server")  # type: ignore[operator]


# --- the checker can fail ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "source"),
    [
        pytest.param("dynamo_pulumi.floor.expansion", "from dynamo_pulumi.planning.plan import GraphPlan\n", id="module-level"),
        pytest.param(
            "dynamo_pulumi.validation.graph",
            "def f():\n    from dynamo_pulumi.render import render_graph\n",
            id="inside-a-function",
        ),
        pytest.param(
            "dynamo_pulumi.planning.plan",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dynamo_pulumi.resources.components import X\n",
            id="type-checking",
        ),
        pytest.param("dynamo_pulumi.readiness.targets", "import dynamo_pulumi.cluster.api\n", id="plain-import"),
        pytest.param("dynamo_pulumi.render.graph", "from ..resources import plan\n", id="relative"),
        pytest.param("dynamo_pulumi.cluster.waiter", "from dynamo_pulumi import program\n", id="from-package"),
    ],
)
def test_an_import_from_a_higher_layer_is_reported(module: str, source: str) -> None:
    (problem,) = upward_imports(module, source)
    assert problem.startswith(f"{module}:")


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("dynamo_pulumi.planning.plan", "from dynamo_pulumi.verdict.deployability import check_deployable\n"),
        ("dynamo_pulumi.render.graph", "from dynamo_pulumi.defaulting.pathway import Pathway\n"),
        ("dynamo_pulumi.resources.components", "from dynamo_pulumi.planning.plan import plan_graph\n"),
        ("dynamo_pulumi.verdict.deployability", "from dynamo_pulumi.verdict.deployability import Verdict\n"),
    ],
)
def test_an_import_from_the_same_or_a_lower_layer_passes(module: str, source: str) -> None:
    assert upward_imports(module, source) == []


@pytest.mark.parametrize(
    ("source", "reported"),
    [
        ("import pulumi\n", True),
        ("import pulumi_kubernetes as k8s\n", True),
        ("from kubernetes import client\n", True),
        ("try:\n    import pulumi\nexcept ImportError:\n    pass\n", True),
        ("def f():\n    import pulumi\n", False),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pulumi\n", False),
        ("import typing\nif typing.TYPE_CHECKING:\n    import pulumi\n", False),
    ],
)
def test_an_edge_library_at_import_time_is_reported(source: str, reported: bool) -> None:
    assert bool(edge_libraries_at_import("dynamo_pulumi.planning.unknowns", source)) is reported


def test_a_module_the_table_does_not_place_has_no_layer() -> None:
    assert layer_of("dynamo_pulumi.somewhere_new") is None
    assert layer_of("dynamo_pulumi.defaulting.pathway") == LAYERS.index("defaulting")
    assert layer_of("dynamo_pulumi.render.pod.merge") == LAYERS.index("render")
    assert layer_of("dynamo_pulumi") == LAYERS.index("floor")
    assert layer_of("dynamo_pulumi.platform") == LAYERS.index("model")
    assert layer_of("dynamo_pulumi.program") == LAYERS.index("program")
    assert layer_of("dynamo_pulumi.program.cloud_mocks") == LAYERS.index("program")
