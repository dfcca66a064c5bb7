"""``pulumi.Output`` values of any JSON type, and errors that say when an Output is the problem.

Parked Outputs are token strings (:mod:`.unknowns`). Inside pod templates a token may stand for
any type: the embedded schema check treats it as unknown. A typed model field is stricter: a
token where ``replicas`` needs an integer is a type error. :func:`load_with_outputs` answers such
errors by swapping the token for the Output's stand-in integer and loading again; an Output where
a model field needs a boolean, a list or an object cannot be stood in for, and is reported as a
value needed at preview time.

:func:`explain` rewrites errors for the user: no internal token is ever shown (each becomes
``<pulumi.Output at spec.path>``), and an error an Output causes says so and gives the fix (the
image tag behind ``runtimeVersionOverride``, a GPU count, a name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import FieldError, GraphValidationError, InputError, invalid
from dynamo_pulumi.floor.placeholders import OUTPUT_TOKEN_RE
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.loading.documents import LoadedObject, Source, load_graph_entry
from dynamo_pulumi.planning.unknowns import OutputTable

if TYPE_CHECKING:
    from dynamo_pulumi.planning.outputs import ComponentSummary
    from dynamo_pulumi.planning.plan import GraphPlan

PREVIEW_NOTE = "a pulumi.Output's value cannot be read at preview time"
_TYPE_ERROR = re.compile(r"in body must be of type (\w+)")
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
MAX_ROUNDS = 4
#: Integer fields whose value the rendering sizes things by (pods, ranks, host lists), so no
#: stand-in can take its place: a stand-in of about 10**9 would render 10**9 ranks.
_SIZING = re.compile(r"(^|\.)multinode\.nodeCount$")
_SIZING_DETAIL = (
    "the node count decides how many pods and ranks the rendering creates and their launch flags "
    "(mpirun -n, vLLM's multinode flags), and {note}; give a plain number"
)


def load_with_outputs(document: Source, table: OutputTable) -> LoadedObject:
    """:func:`~dynamo_pulumi.loading.documents.load_graph_entry`, with Outputs at integer model fields
    replaced by their stand-ins; other type errors an Output causes explained."""
    for _ in range(MAX_ROUNDS):
        try:
            return load_graph_entry(document)
        except GraphValidationError as exc:
            if not table or not isinstance(document, Mapping):
                raise
            fixed = _with_stand_ins(document, exc.errors, table)
            if fixed is None:
                raise explain(exc, table) from None
            document = fixed
    return load_graph_entry(document)


def _with_stand_ins(document: Mapping[str, Any], errors: list[FieldError], table: OutputTable) -> Any:
    """A copy of ``document`` with the stand-in integer of every Output that caused an integer
    type error, or None when no error was of that kind."""
    fixed: Any = None
    for error in errors:
        match = _TYPE_ERROR.search(error.detail)
        if match is None or match.group(1) != "integer" or _SIZING.search(error.path):
            continue  # a sizing field keeps its type error, which explain() words
        steps = _steps(error.path)
        ident = table.ident_of_token(_get(document, steps)) if steps else None
        if ident is None:
            continue
        fixed = fixed if fixed is not None else _copy(document)
        _set(fixed, steps, table.integer_for(ident))
    return fixed


def _steps(path: str) -> list[str | int]:
    return [int(index) if index else name for name, index in _STEP.findall(path)]


def _has(node: Any, step: str | int) -> bool:
    if isinstance(step, int):
        return isinstance(node, list) and 0 <= step < len(node)
    return isinstance(node, Mapping) and step in node


def _get(node: Any, steps: list[str | int]) -> Any:
    """The string at ``steps`` in ``node`` (None when there is none)."""
    for step in steps:
        if not _has(node, step):
            return None
        node = node[step]
    return node if isinstance(node, str) else None


def _set(node: Any, steps: list[str | int], value: Any) -> None:
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# --- messages ------------------------------------------------------------------------------------


def scrub(text: str, table: OutputTable) -> str:
    """``text`` with every parked token (and stand-in integer) named as the Output it is."""
    text = OUTPUT_TOKEN_RE.sub(lambda m: f"<{table.describe(m.group(1))}>", text)
    for value, ident in table.integers.items():
        text = re.sub(rf"\b{value}\b", f"<{table.describe(ident)}>", text)
    return text


def _scrub_value(value: Any, table: OutputTable) -> Any:
    if isinstance(value, str) and OUTPUT_TOKEN_RE.search(value):
        return scrub(value, table)
    if isinstance(value, int) and not isinstance(value, bool) and value in table.integers:
        return f"<{table.describe(table.integers[value])}>"
    return value


def _output_paths_under(prefix: str, table: OutputTable) -> list[str]:
    return sorted(p for p in table.paths.values() if p == prefix or p.startswith((f"{prefix}.", f"{prefix}[")))


def _within_an_output(path: str, table: OutputTable) -> bool:
    """``path`` is an Output's own path or inside it (a whole sub-object Output)."""
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in table.paths.values())


def _explain_one(error: FieldError, table: OutputTable) -> FieldError:
    mentions = bool(OUTPUT_TOKEN_RE.search(f"{error.detail} {error.value}")) or (
        isinstance(error.value, int) and error.value in table.integers
    )
    error = replace(
        error, detail=scrub(error.detail, table), value=_scrub_value(error.value, table), fix=scrub(error.fix, table)
    )
    if error.path.endswith(".runtimeVersionOverride"):
        component = error.path.removesuffix(".runtimeVersionOverride")
        images = [p for p in _output_paths_under(component, table) if p.endswith(".image")]
        if images:
            return replace(
                error,  # the operator's words stay; the fix says what an Output image needs
                fix=f"the image {images[0]} is a pulumi.Output, and {PREVIEW_NOTE}, so its tag cannot tell "
                f'the runtime version; set {error.path} to the Dynamo runtime version of that image (for example "1.3.1")',
            )
    type_error = _TYPE_ERROR.search(error.detail)
    if type_error and error.path in table.paths.values() and _SIZING.search(error.path):
        return invalid(error.path, "<pulumi.Output>", _SIZING_DETAIL.format(note=PREVIEW_NOTE))
    if type_error and error.path in table.paths.values():
        return invalid(
            error.path,
            "<pulumi.Output>",
            f"this field is read while validating and needs a plain {type_error.group(1)}; {PREVIEW_NOTE}",
        )
    read = _output_read_by_rule(error, table)
    if read is not None:  # a rule of the parent object compared the stand-in (minAvailable <= replicas)
        return invalid(read, "<pulumi.Output>",
                       f"this field is read while validating ({error.detail}) and needs a plain value; {PREVIEW_NOTE}")
    if mentions or _within_an_output(error.path, table):
        advice = f"{PREVIEW_NOTE}; give a plain value here"
        return replace(error, fix=f"{error.fix}; {advice}" if error.fix else advice)
    return error


def _output_read_by_rule(error: FieldError, table: OutputTable) -> str | None:
    """The path of an Output under ``error.path`` whose field the error's rule names (a CEL rule
    of the component that compares ``minAvailable`` with ``replicas``), else None: the rule read
    the stand-in, not the value, so its verdict says nothing about the user's value."""
    for path in _output_paths_under(error.path, table):
        if path == error.path:
            continue
        field = _STEP.findall(path)[-1][0]
        if field and re.search(rf"\b{re.escape(field)}\b", error.detail):
            return path
    return None


def explain(exc: GraphValidationError, table: OutputTable) -> GraphValidationError:
    """The same error with every field error an Output causes explained, and no token shown."""
    if not table:
        return exc
    errors = [_explain_one(e, table) for e in exc.errors]
    return GraphValidationError(errors, exc.kind, scrub(exc.name, table), [scrub(w, table) for w in exc.warnings])


def refuse_output_names(names: list[str], table: OutputTable) -> None:
    """Pulumi resource names must be known while the program runs: a name built from an Output
    (``metadata.name``, a namespace, a component name) is refused, naming the Output."""
    unknown = sorted({scrub(n, table) for n in names if OUTPUT_TOKEN_RE.search(n)})
    if unknown:
        raise InputError(
            "object names (and the Pulumi resource names made from them) are needed while the program "
            f"runs, and {PREVIEW_NOTE}; give plain values for the names built from: "
            + ", ".join(unknown[:5])
        )


def crashed(exc: Exception, table: OutputTable) -> InputError:
    """Rendering failed on an Output where it needs a concrete value (a list it merges, ...)."""
    paths = ", ".join(sorted(table.paths.values()))
    return InputError(
        f"the operator's rendering needs the value of a pulumi.Output here, and {PREVIEW_NOTE}; "
        f"give plain values instead of the Outputs at: {paths} ({type(exc).__name__}: {scrub(str(exc), table)})"
    )


# --- summaries -----------------------------------------------------------------------------------


def component_counts(plan: GraphPlan, summary: ComponentSummary) -> tuple[Any, Any]:
    """A component's replica and GPU counts for its outputs: plain integers, or, where a count
    waits for Output values (a replica count, a GPU quantity), an Output that counts again once
    they are known, over the plan with the values put in (:func:`.settled.settle`), so no
    stand-in ever reaches an output."""
    return (_recounted(plan, summary.component, summary.unknown_replicas, "replicas", summary.replicas),
            _recounted(plan, summary.component, summary.unknown_gpus, "gpus", summary.gpus))


def _recounted(plan: GraphPlan, component: str, idents: tuple[str, ...], field: str, plain: int) -> Any:
    if not idents:
        return plain
    import pulumi  # late: only a program holds Outputs

    from dynamo_pulumi.planning.outputs import summarize_component
    from dynamo_pulumi.planning.settled import settle

    def count(values: list[Any]) -> int:
        known = dict(zip(idents, values, strict=True))
        try:  # the graph too: a standalone DCD's replicas are read off its model
            settled = settle(plan, known)
        except GraphValidationError:  # a value the schema refuses: the API server says so at deploy
            settled = settle(plan, known, graph=False)
        found = settled.component(component)
        assert found is not None  # settling keeps every component
        return int(getattr(summarize_component(found, settled), field))

    return pulumi.Output.all(*(plan.outputs.outputs[i] for i in idents)).apply(count)


def total_of(counts: list[Any]) -> Any:
    """The sum of counts of which some may be Outputs."""
    if all(isinstance(c, int) for c in counts):
        return sum(counts)
    import pulumi

    return pulumi.Output.all(*counts).apply(lambda values: sum(int(v or 0) for v in values))
