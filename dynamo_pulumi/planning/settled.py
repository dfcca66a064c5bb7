"""A plan with the values of its ``pulumi.Output`` leaves put in, where they are known.

Planning parks every Output as a token string (or, at an integer model field, a stand-in integer
of about 10**9; :mod:`.unknowns`), because validation and rendering cannot await. What the plan
*shows* must never be a stand-in: a GPU count of ``1007318818`` or a diff of ``spec.replicas:
1007318817 => 3`` would mislead a CI cost check. Two situations:

* **The value is known** (under mocks every ``Output.from_input(2)`` is; in a real ``pulumi up``
  every Output is, once its resource exists): :func:`settle` replaces each token and stand-in
  by the value, in the rendered objects, the DCD documents and the graph model alike, so counts,
  diffs and the update verdict see the real number. The worker hash and the object names stay
  those the program registered (a deploy-time value never takes part in them).
* **The value is not known** at preview: in the rendered objects and DCD documents the token or
  stand-in becomes an :class:`~dynamo_pulumi.floor.placeholders.UnknownValue` (it reads ``(unknown)``
  and remembers its Output), so a count that depends on it is ``unknown``
  (:func:`dynamo_pulumi.planning.outputs.summarize` lists the Outputs it waits for) and a diffed
  value is ``(unknown)`` (:func:`shown`). The graph model keeps the placeholder there: it is the
  object admission judged, and the update verdict of ``diff`` judges it again.

:func:`record_known_values` is how the values become known: the Pulumi components register an
``apply`` per Output that writes its value into the plan's table when the engine resolves it (in
preview under mocks, before the program run ends; an unknown Output never calls it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.floor.placeholders import OUTPUT_TOKEN_RE, UnknownValue
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.planning.unknowns import OutputTable

if TYPE_CHECKING:
    from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, PlannedObject

#: How a value that is not known at preview is shown (the Pulumi CLI's spelling).
UNKNOWN_TEXT = "(unknown)"


def record_known_values(table: OutputTable) -> None:
    """Have every Output of ``table`` write its value into ``table.known`` once resolved.

    Only a Pulumi program holds Outputs, so calling ``.apply`` needs no import here; the engine
    waits for the applies before the program ends (mocks included)."""
    for ident, output in table.outputs.items():
        output.apply(functools.partial(_record, table.known, ident))


def _record(known: dict[str, Any], ident: str, value: Any) -> None:
    known[ident] = value


# --- substitution ---------------------------------------------------------------------------------


def _text(value: Any) -> str:
    """A known value inside a longer string, as ``Output.concat`` spells it."""
    return value if isinstance(value, str) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def _substitute_string(text: str, values: Mapping[str, Any], mark: bool) -> Any:
    whole = OUTPUT_TOKEN_RE.fullmatch(text)
    if whole is not None:
        ident = whole.group(1)
        return values[ident] if ident in values else UnknownValue(ident) if mark else text
    waiting = [i for i in OUTPUT_TOKEN_RE.findall(text) if i not in values]
    if waiting and mark:  # part of the text is unknown: so is the text, as Output.concat's would be
        return UnknownValue(waiting[0])
    return OUTPUT_TOKEN_RE.sub(lambda m: _text(values[m.group(1)]) if m.group(1) in values else m.group(0), text)


def substitute(value: Any, table: OutputTable, values: Mapping[str, Any], mark: bool = False) -> Any:
    """A copy of ``value`` with every token and stand-in integer of a known Output replaced by
    the Output's value (mapping keys included). Unknown ones are left as they are, or with
    ``mark`` made :class:`UnknownValue` (``(unknown)``, remembering the Output)."""
    if isinstance(value, UnknownValue):
        return value
    if isinstance(value, str):
        return _substitute_string(value, values, mark) if "__dynamo_pulumi_output_" in value else value
    if isinstance(value, int) and not isinstance(value, bool):
        ident = table.integers.get(value)
        if ident is None:
            return value
        return values[ident] if ident in values else UnknownValue(ident) if mark else value
    if isinstance(value, Mapping):
        return {substitute(k, table, values, mark): substitute(v, table, values, mark) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(item, table, values, mark) for item in value]
    return value


def _unknown_table(table: OutputTable, values: Mapping[str, Any]) -> OutputTable:
    """The Outputs of ``table`` whose values are still not known."""
    left = OutputTable()
    left.outputs = {i: o for i, o in table.outputs.items() if i not in values}
    left.paths = {i: p for i, p in table.paths.items() if i not in values}
    left.integers = {s: i for s, i in table.integers.items() if i not in values}
    return left


def _planned(obj: PlannedObject, table: OutputTable, values: Mapping[str, Any]) -> PlannedObject:
    return replace(obj, obj=substitute(obj.obj, table, values, mark=True))


def _component(component: ComponentPlan, table: OutputTable, values: Mapping[str, Any]) -> ComponentPlan:
    return replace(
        component,
        dcd=substitute(component.dcd, table, values, mark=True) if component.dcd is not None else None,
        objects=[_planned(o, table, values) for o in component.objects],
    )


def settle(plan: GraphPlan, values: Mapping[str, Any] | None = None, *, graph: bool = True) -> GraphPlan:
    """``plan`` with the known Outputs' values in place of their tokens and stand-ins.

    ``values`` (Output id -> value) defaults to what :func:`record_known_values` recorded. The
    result's ``outputs`` holds only the Outputs still unknown, so settling twice changes nothing.
    ``graph`` also settles the graph model (schema-checked again: a known ``replicas`` of -2 is
    the API server's error, at the field); the counts alone do not need it."""
    from dynamo_pulumi.planning.outputs import gpu_count_warnings

    table = plan.outputs
    values = {i: v for i, v in (table.known if values is None else values).items() if i in table.outputs}
    if not table:
        return plan
    settled = replace(
        plan,
        components=[_component(c, table, values) for c in plan.components],
        graph_objects=[_planned(o, table, values) for o in plan.graph_objects],
        outputs=_unknown_table(table, values),
    )
    stale = set(gpu_count_warnings(plan))
    warnings = [w for w in plan.warnings if w not in stale]
    settled.warnings = list(dict.fromkeys([*warnings, *gpu_count_warnings(settled)]))
    if graph and values:
        settled.graph = _settled_graph(plan, values)
    return settled


def _settled_graph(plan: GraphPlan, values: Mapping[str, Any]) -> Any:
    from dynamo_pulumi.api.parse import parse_object

    table = plan.outputs
    wire = substitute(plan.graph.to_wire(), table, values)
    try:
        return parse_object(wire)
    except GraphValidationError as exc:
        known = ", ".join(sorted(table.paths[i] for i in values))
        errors = [replace(e, fix=e.fix or f"the value comes from a pulumi.Output ({known})") for e in exc.errors]
        raise GraphValidationError(errors, exc.kind, exc.name, exc.warnings) from None


# --- showing what is still unknown ---------------------------------------------------------------


def shown(value: Any, *tables: OutputTable) -> Any:
    """``value`` as a user may see it: every token and every stand-in integer of ``tables`` (the
    Outputs still unknown) spelled ``(unknown)``."""
    if isinstance(value, UnknownValue):
        return UNKNOWN_TEXT
    if isinstance(value, str):
        return OUTPUT_TOKEN_RE.sub(UNKNOWN_TEXT, value) if OUTPUT_TOKEN_RE.search(value) else value
    if isinstance(value, int) and not isinstance(value, bool):
        return UNKNOWN_TEXT if any(value in t.integers for t in tables) else value
    if isinstance(value, Mapping):
        return {shown(k, *tables): shown(v, *tables) for k, v in value.items()}
    if isinstance(value, list):
        return [shown(item, *tables) for item in value]
    return value
