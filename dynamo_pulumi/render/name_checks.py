"""After rendering: would the API server accept every object's name and labels?

The operator does not check these at admission; its child objects fail at the API server when it
creates them (an 80-character graph name gives Services of ~90 characters). This pure check runs
at the end of ``render_graph`` over every rendered object (and every generated DCD), and raises one
:class:`RenderedNameError` (a RenderError) listing each problem: the object, the field, the value,
the rule, and the graph or component name it comes from.

Checked: ``metadata.name`` by kind (Service: DNS-1035 label; Role/RoleBinding: path segment;
everything else: DNS-1123 subdomain), every label key and value under any ``metadata.labels``,
``matchLabels`` or Service ``spec.selector``, and every key under any ``metadata.annotations``
(``ValidateAnnotations``: a qualified name, any case). A problem with text the user wrote in a
label or annotation map of the graph is reported at that field. Parked ``pulumi.Output`` values (whose text is not
known yet) and non-strings are skipped. Pod hostname limits (LWS, Grove) are checked at admission
(:mod:`dynamo_pulumi.model.pcs_naming`, validation rule 17) and are not repeated here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.kube_names import (
    annotation_key_problems,
    dns1035_label_problems,
    dns1123_label_problems,
    dns1123_subdomain_problems,
    label_key_problems,
    label_value_problems,
    path_segment_problems,
)
from dynamo_pulumi.floor.placeholders import contains_output_token
from dynamo_pulumi.floor.records import field, record

NameRule = tuple[str, Callable[[str], list[str]]]

_SUBDOMAIN: NameRule = ("DNS-1123 subdomain", dns1123_subdomain_problems)
#: ``metadata.name`` rules stricter than the default DNS-1123 subdomain, by kind.
NAME_RULES: dict[str, NameRule] = {
    "Service": ("DNS-1035 label", dns1035_label_problems),
    "Namespace": ("DNS-1123 label", dns1123_label_problems),
    "Role": ("path segment name", path_segment_problems),
    "RoleBinding": ("path segment name", path_segment_problems),
    "ClusterRole": ("path segment name", path_segment_problems),
    "ClusterRoleBinding": ("path segment name", path_segment_problems),
}


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class NameSources:
    """Where rendered names come from: the graph's name and its components' (name, field path)."""

    graph_kind: str
    graph_name: str
    components: Sequence[tuple[str, str]] = ()
    #: Label and annotation keys the user wrote -> the map's path; label values -> ``map[key]``.
    written_keys: Mapping[str, str] = field(default_factory=dict)
    written_values: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, graph_kind: str, graph_name: str, components: Sequence[tuple[str, str]],
           document: Mapping[str, Any]) -> NameSources:
        """The sources of a graph whose wire form is ``document``: its names, and every key and
        value of its label and annotation maps (the first place each is written)."""
        keys: dict[str, str] = {}
        values: dict[str, str] = {}
        for parts, labels, _ in _label_maps(document):
            where = _spelled(parts)
            for key, value in labels.items():
                if isinstance(key, str):
                    keys.setdefault(key, where)
                    if isinstance(value, str):
                        values.setdefault(value, f"{where}[{key}]")
        return cls(graph_kind, graph_name, components, keys, values)

    def _found(self, value: str) -> list[tuple[str, str]]:
        """(field path, description) of every graph field whose text appears in ``value``."""
        lowered = value.lower()
        found = []
        if self.graph_name and self.graph_name.lower() in lowered:
            found.append(("metadata.name", f'the {self.graph_kind} name metadata.name "{self.graph_name}" '
                          f"({len(self.graph_name)} characters)"))
        found += [
            (path, f'component name {path} "{name}" ({len(name)} characters)')
            for name, path in self.components
            if name and name.lower() in lowered
        ]
        return found

    def source_path(self, value: str) -> str:
        """The graph field ``value`` is built from (``""`` when it is none of the names)."""
        found = self._found(value)
        return found[0][0] if found else ""

    def key_path(self, key: str) -> str:
        """The graph's name field a rendered key is built from, else the map the user wrote it in."""
        return self.source_path(key) or self.written_keys.get(key, "")

    def value_path(self, value: str) -> str:
        """The graph's name field a rendered value is built from, else the field the user wrote it in."""
        return self.source_path(value) or self.written_values.get(value, "")

    def hint(self, value: str, problem: str = "") -> str:
        """What to change in the graph so that ``value`` becomes valid, fitting the cause: a
        length problem is fixed by shortening, a character problem is not."""
        found = [text for _, text in self._found(value)]
        if not found:
            return "set it as written in the graph (its metadata, or a component's podTemplate metadata)"
        if "no more than" in problem:
            return "shorten " + " or ".join(found)
        return (
            "rename " + " or ".join(found) + " using only lower-case letters, digits and '-', starting "
            "with a letter and ending with a letter or digit"
        )


@record
class NameProblem:
    """One refused name or label: the line to print and the graph field it comes from."""

    text: str
    source_path: str = ""


class RenderedNameError(RenderError):
    """Rendered names or labels the API server would refuse, one :class:`NameProblem` each."""

    def __init__(self, problems: Sequence[NameProblem], where: str) -> None:
        self.problems = list(problems)
        super().__init__(
            f"{len(self.problems)} rendered name(s) or label(s) would be refused by the API server:\n"
            + "\n".join(f"* {p.text}" for p in self.problems),
            where,
        )


#: Subtrees that never hold a label map (a Container has no metadata, selector or affinity; env,
#: args and command are lists of text). Skipping them keeps the walk off the bulk of a pod spec.
_NO_LABELS = frozenset({"containers", "initContainers", "ephemeralContainers", "env", "args", "command"})


def _label_maps(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], dict[Any, Any], bool]]:
    """(path parts, map, is annotations) of every label map in ``node`` (metadata.labels and
    matchLabels) and every metadata.annotations.

    The path is kept as parts and spelled only for a problem (:func:`_spelled`)."""
    if type(node) is dict:
        for key, child in node.items():
            kind = type(child)
            if kind is not dict and kind is not list:
                continue
            if key == "metadata":
                if kind is dict:
                    for name, is_annotations in (("labels", False), ("annotations", True)):
                        found = child.get(name)
                        if type(found) is dict:
                            yield (*path, key, name), found, is_annotations
                continue
            if key == "matchLabels" and kind is dict:
                yield (*path, key), child, False
            if key not in _NO_LABELS:
                yield from _label_maps(child, (*path, key))
    elif type(node) is list:
        for i, child in enumerate(node):
            if type(child) is dict or type(child) is list:
                yield from _label_maps(child, (*path, i))


def _spelled(parts: tuple[Any, ...]) -> str:
    text = ""
    for part in parts:
        text = f"{text}[{part}]" if isinstance(part, int) else (f"{text}.{part}" if text else str(part))
    return text


# The same keys, values and names recur in every object of every render: each is checked once.
# Text holding a parked Output is not known yet and has no problems.
@lru_cache(maxsize=8192)
def _key_problems(key: str) -> tuple[str, ...]:
    return () if contains_output_token(key) else tuple(label_key_problems(key))


@lru_cache(maxsize=8192)
def _annotation_key_problems(key: str) -> tuple[str, ...]:
    return () if contains_output_token(key) else tuple(annotation_key_problems(key))


@lru_cache(maxsize=8192)
def _value_problems(value: str) -> tuple[str, ...]:
    return () if contains_output_token(value) else tuple(label_value_problems(value))


@lru_cache(maxsize=8192)
def _name_problems(kind: str, name: str) -> tuple[str, tuple[str, ...]]:
    rule, check = NAME_RULES.get(kind, _SUBDOMAIN)
    return rule, (() if contains_output_token(name) else tuple(check(name)))


def object_problems(obj: dict[str, Any], sources: NameSources) -> list[str]:
    """Every name and label problem of one rendered object, one line each."""
    return [p.text for p in _object_problems(obj, sources)]


def _object_problems(obj: dict[str, Any], sources: NameSources) -> list[NameProblem]:
    """Every problem of one object with the graph field it comes from (non-strings and parked
    Outputs are skipped)."""
    kind = str(obj.get("kind", ""))
    metadata = obj.get("metadata") or {}
    name = metadata.get("name")
    what = f'{kind} "{name}"'
    problems: list[NameProblem] = []
    if isinstance(name, str):
        rule, found = _name_problems(kind, name)
        problems += [
            NameProblem(
                f"{what}: metadata.name {name!r} ({len(name)} characters): {msg} [{rule}]; {sources.hint(name, msg)}",
                sources.source_path(name),
            )
            for msg in found
        ]
    maps = list(_label_maps(obj))
    if kind == "Service" and isinstance((obj.get("spec") or {}).get("selector"), dict):
        maps.append((("spec", "selector"), obj["spec"]["selector"], False))
    seen: set[tuple[str, str]] = set()
    for parts, labels, is_annotations in maps:
        for key, value in labels.items():
            if is_annotations:
                key_problems = _annotation_key_problems(key) if isinstance(key, str) else ()
            else:
                key_problems = _key_problems(key) if isinstance(key, str) else ()
            what_key = "annotation key" if is_annotations else "label key"
            if key_problems and (key, what_key) not in seen:
                seen.add((key, what_key))
                problems += [
                    NameProblem(
                        f"{what}: {_spelled(parts)} key {key!r}: {msg} [{what_key}]; {sources.hint(key, msg)}",
                        sources.key_path(key),
                    )
                    for msg in key_problems
                ]
            if is_annotations:
                continue
            value_problems = _value_problems(value) if isinstance(value, str) else ()
            if value_problems and (key, value) not in seen:
                seen.add((key, value))
                problems += [
                    NameProblem(
                        f"{what}: {_spelled(parts)}[{key}] value {value!r} ({len(value)} characters): {msg} "
                        f"[label value]; {sources.hint(value, msg)}",
                        sources.value_path(value),
                    )
                    for msg in value_problems
                ]
    return problems


def check_rendered_names(objects: Sequence[dict[str, Any]], sources: NameSources) -> None:
    """Raise one RenderedNameError listing every name or label the API server would refuse."""
    problems = [p for obj in objects for p in _object_problems(obj, sources)]
    if problems:
        raise RenderedNameError(problems, f"{sources.graph_kind} {sources.graph_name!r}")


__all__ = ["NAME_RULES", "NameProblem", "NameSources", "RenderedNameError", "check_rendered_names", "object_problems"]
