"""How often one deployment works the same graph: a static walk of the calls that carry ``platform``.

Not a test: starting at ``program.graph_program.deploy`` (or any ``module:function``), follow every call whose
arguments carry the platform (the parameter itself, a name bound to it, ``x.platform``) into the
function that receives it, under the name it receives it by, and print what the walk met:

* **stays**: call sites carrying the platform, each function body walked once (a function called
  from three places is three stays);
* **rooms**: distinct functions stayed in;
* **returns**: stays in a room already visited (stays - first visits), the work done again;
* **climbs**: in walk order, a stay in a higher layer (``tests/test_layering.py``) than the one
  before it: a later stage going back to an earlier one's work;
* how often chosen functions are entered (``default_graph``, ``graph_context``, ...), both as
  stays here and, with ``--run``, as calls while the embedded example is really planned.

Usage::

    .venv/bin/python bench/walk_platform.py [--root program.graph_program:deploy] [--run] [--list]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "dynamo_pulumi"
TRACKED = "platform"
#: Functions whose every entry the report counts.
WATCHED = ("defaulting.webhooks.default_graph", "defaulting.webhooks.default_component_deployment",
           "validation.admission_common.graph_context", "validation.admission_common.component_context",
           "render.render_graph", "verdict.deployability.judge")


def _layer_of() -> Callable[[str], int | None]:
    """The layer index of a module, from the one table that orders them (tests/test_layering.py)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_layering

    return test_layering.layer_of  # type: ignore[no-any-return]


@dataclass
class Function:
    module: str
    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    imports: dict[str, str]  # local name -> qualified target (module or module.attr)

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass
class Walk:
    stays: int = 0
    rooms: list[str] = field(default_factory=list)
    climbs: int = 0
    entered: Counter[str] = field(default_factory=Counter)
    order: list[tuple[str, str]] = field(default_factory=list)  # (caller, callee) in walk order


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports_in(nodes: list[ast.stmt] | ast.AST, module: str, is_package: bool) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in ast.walk(nodes) if isinstance(nodes, ast.AST) else [n for s in nodes for n in ast.walk(s)]:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                found[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.partition(".")[0]] = alias.name if alias.asname else alias.name.partition(".")[0]
    return found


#: module -> its module-level imports (to follow a name a package re-exports).
MODULE_IMPORTS: dict[str, dict[str, str]] = {}


def index() -> tuple[dict[str, Function], set[str]]:
    """Every module-level function and method of the package, by qualified name; the modules."""
    functions: dict[str, Function] = {}
    modules: set[str] = set()
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        module = _module_name(path)
        modules.add(module)
        tree = ast.parse(path.read_text())
        top = _imports_in([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.If))], module,
                          path.name == "__init__.py")
        MODULE_IMPORTS[module] = top
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                own = {**top, **_imports_in(node, module, path.name == "__init__.py")}
                functions[f"{module}.{node.name}"] = Function(module, node.name, node, own)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        own = {**top, **_imports_in(item, module, path.name == "__init__.py")}
                        functions[f"{module}.{node.name}.{item.name}"] = Function(module, f"{node.name}.{item.name}",
                                                                               item, own)
    return functions, modules


def _resolve(call: ast.Call, fn: Function, functions: dict[str, Function], modules: set[str]) -> str | None:
    """The package function a call names, when it can be told statically."""
    target = call.func
    if isinstance(target, ast.Name):
        local = f"{fn.module}.{target.id}"
        if local in functions:
            return local
        name = fn.imports.get(target.id, "")
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        base = fn.imports.get(target.value.id, "")
        name = f"{base}.{target.attr}" if base in modules else ""
    else:
        return None
    for _ in range(3):  # a name a package re-exports: follow its import (a few levels)
        if name in functions:
            return name
        module, _, attr = name.rpartition(".")
        name = MODULE_IMPORTS.get(module, {}).get(attr, "")
    return None


def _carries(expr: ast.AST, tracked: set[str]) -> bool:
    """``expr`` is (or holds) the platform: a tracked name, ``x or y`` of one, or ``x.platform``."""
    if isinstance(expr, ast.Name):
        return expr.id in tracked
    if isinstance(expr, ast.BoolOp):
        return any(_carries(v, tracked) for v in expr.values)
    if isinstance(expr, ast.Attribute):
        return expr.attr == TRACKED
    return False


def _tracked_names(fn: Function, param: str) -> set[str]:
    """The parameter, and every local name bound to the platform in the body."""
    tracked = {param}
    changed = True
    while changed:
        changed = False
        for node in ast.walk(fn.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                bound = _carries(value, tracked) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and TRACKED in value.func.id
                    and any(_carries(a, tracked) for a in value.args)
                )
                if bound and node.targets[0].id not in tracked:
                    tracked.add(node.targets[0].id)
                    changed = True
    return tracked


def _parameter(callee: Function, call: ast.Call, tracked: set[str]) -> str | None:
    """The callee parameter the platform arrives in."""
    args = callee.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    for i, value in enumerate(call.args):
        if _carries(value, tracked) and i < len(positional):
            return positional[i]
    for keyword in call.keywords:
        if keyword.arg and _carries(keyword.value, tracked):
            return keyword.arg
    return None


def walk(root: str, functions: dict[str, Function], modules: set[str], param: str = TRACKED) -> Walk:
    layer_of = _layer_of()
    result = Walk()
    visited: set[str] = set()
    last_layer: int | None = None

    def visit(qualname: str, tracked_param: str) -> None:
        nonlocal last_layer
        fn = functions[qualname]
        tracked = _tracked_names(fn, tracked_param)
        calls = sorted((n for n in ast.walk(fn.node) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            if not (any(_carries(a, tracked) for a in call.args) or any(_carries(k.value, tracked) for k in call.keywords)):
                continue
            callee = _resolve(call, fn, functions, modules)
            if callee is None:
                continue
            received = _parameter(functions[callee], call, tracked)
            if received is None:
                continue
            result.stays += 1
            result.entered[callee] += 1
            result.order.append((qualname, callee))
            layer = layer_of(functions[callee].module)
            if last_layer is not None and layer is not None and layer > last_layer:
                result.climbs += 1
            last_layer = layer
            if callee not in visited:
                visited.add(callee)
                result.rooms.append(callee)
                visit(callee, received)
                last_layer = layer_of(functions[qualname].module)

    visited.add(root)
    result.rooms.append(root)
    visit(root, param)
    return result


def _run_counts() -> Counter[str]:
    """How often the watched functions are entered while the embedded example is planned."""
    import importlib

    sys.path.insert(0, str(ROOT))
    counts: Counter[str] = Counter()
    for name in WATCHED:
        module_name, _, attr = f"{PACKAGE}.{name}".rpartition(".")
        module = importlib.import_module(module_name)
        original = getattr(module, attr)

        def counted(*args: object, __original: object = original, __name: str = name, **kwargs: object) -> object:
            counts[__name] += 1
            return __original(*args, **kwargs)  # type: ignore[operator]

        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith(PACKAGE) and getattr(mod, attr, None) is original:
                setattr(mod, attr, counted)
    from dynamo_pulumi.program.graph_program import plan

    plan()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="program.graph_program:deploy", help="module:function to start from")
    parser.add_argument("--param", default=TRACKED, help="the parameter that carries the platform")
    parser.add_argument("--run", action="store_true", help="also count real calls while planning the example")
    parser.add_argument("--list", action="store_true", help="print every stay in walk order")
    args = parser.parse_args()
    functions, modules = index()
    module, _, name = args.root.partition(":")
    result = walk(f"{PACKAGE}.{module}.{name}", functions, modules, args.param)
    first_visits = len(result.rooms) - 1
    print(f"walk of {args.param!r} from {module}.{name}: {result.stays} stays in {len(result.rooms)} rooms, "
          f"{result.climbs} climbs back up, {result.stays - first_visits} returns")
    for watched in WATCHED:
        print(f"  {watched}: entered {result.entered.get(f'{PACKAGE}.{watched}', 0)} times (static)")
    if args.run:
        for watched, count in _run_counts().items():
            print(f"  {watched}: {count} calls planning the embedded example")
    if args.list:
        for caller, callee in result.order:
            print(f"    {caller.removeprefix(PACKAGE + '.')} -> {callee.removeprefix(PACKAGE + '.')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
