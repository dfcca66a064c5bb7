"""YAML as ``kubectl`` decodes it, with the line and column of every field kept.

Editors and CI annotations need ``file:line:col`` on each admission error, which kubectl never
gives. While the documents are constructed, every mapping key and sequence item records where
it starts; :meth:`DocumentPositions.position_of` then answers for a field path
(``spec.components[1].replicas``, ``spec.services[Worker].replicas``) with the position of the
field, or of its nearest parent that exists in the file.

libyaml's C parser is used when PyYAML was built with it (a 10 MB graph loads in seconds rather
than tens of seconds); construction stays in Python, so the rules below hold for both parsers:
timestamps stay strings, scalar keys become JSON object keys as sigs.k8s.io/yaml makes them, and
a duplicate key is an error. A YAML syntax error names the file, line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from dynamo_pulumi.errors import InputError, SourcePosition
from dynamo_pulumi.floor.records import field, record

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: True when libyaml's C parser is in use.
C_PARSER = _BaseLoader is not yaml.SafeLoader

#: One path segment: a field name, or the content of ``[...]`` (an index or a map key).
_SEGMENT = re.compile(r"\[([^\]]*)\]|([^.\[]+)")

Mark = tuple[int, int]  # 1-based line and column


@record(frozen=False)
class _Container:
    """Where a mapping or sequence starts and where each of its keys or items starts."""

    value: Any  # kept so that the id() this table is keyed by stays valid
    mark: Mark
    children: dict[Any, Mark] = field(default_factory=dict)


def _mark(node: yaml.Node) -> Mark:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


class _KubeYamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The loader; ``containers`` collects positions for the document being constructed.

    Even with the C parser, resolving a plain scalar's tag and constructing it run in Python
    once per scalar; both are memoised or short-cut here (a large graph repeats the same keys
    and values thousands of times), without changing what any scalar becomes."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.containers: dict[int, _Container] = {}
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = self._plain_tags[value] = super().resolve(kind, value, implicit)
            return tag
        return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]

    def construct_value(self, node: yaml.Node) -> Any:
        """A node's value; scalars skip the alias bookkeeping (a scalar is immutable, so
        constructing an aliased one twice gives an equal value)."""
        if isinstance(node, yaml.ScalarNode):
            constructor = self.yaml_constructors.get(node.tag)
            if constructor is not None:
                return constructor(self, node)
        return self.construct_object(node, deep=True)


def _json_key(key: Any) -> Any:
    """A scalar mapping key as sigs.k8s.io/yaml turns it into a JSON object key."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return format(key, "g")
    return key


def _construct_mapping(loader: _KubeYamlLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    marks: dict[Any, Mark] = {}
    for key_node, value_node in node.value:
        key = _json_key(loader.construct_value(key_node))
        if key in result:
            raise yaml.constructor.ConstructorError(
                None, None, f'mapping key "{key}" already defined', key_node.start_mark
            )
        result[key] = loader.construct_value(value_node)
        marks[key] = _mark(key_node)
    loader.containers[id(result)] = _Container(result, _mark(node), marks)
    return result


def _construct_sequence(loader: _KubeYamlLoader, node: yaml.SequenceNode) -> list[Any]:
    result = [loader.construct_value(item) for item in node.value]
    marks = {i: _mark(item) for i, item in enumerate(node.value)}
    loader.containers[id(result)] = _Container(result, _mark(node), marks)
    return result


_KubeYamlLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_KubeYamlLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_KubeYamlLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", yaml.constructor.SafeConstructor.construct_yaml_str
)


def path_segments(path: str) -> Iterator[str]:
    """``spec.components[1].name`` -> ``spec``, ``components``, ``1``, ``name`` (bracketed keys
    may contain dots: ``labels[nvidia.com/x]``)."""
    for match in _SEGMENT.finditer(path):
        yield match.group(1) if match.group(1) is not None else match.group(2)


@record
class DocumentPositions:
    """Positions of one document of one file."""

    file: str
    root: Any
    containers: dict[int, _Container] = field(repr=False)
    start: Mark = (1, 1)

    def resolve(self, path: str) -> tuple[Mark, int]:
        """The position of ``path`` (or its nearest existing parent) and how many segments of
        it were found."""
        value, found = self.root, 0
        entry = self.containers.get(id(value))
        mark = entry.mark if entry else self.start
        for segment in path_segments(path):
            if entry is None:
                break
            key: Any = segment
            if isinstance(value, list):
                if not segment.isdigit() or int(segment) >= len(value):
                    break
                key = int(segment)
            elif not isinstance(value, dict) or segment not in value:
                break
            mark, value, found = entry.children[key], value[key], found + 1
            entry = self.containers.get(id(value))
        return mark, found

    def position_of(self, *paths: str) -> SourcePosition:
        """The best position among candidate spellings of one field (the one found deepest)."""
        best: tuple[Mark, int] | None = None
        for path in paths:
            candidate = self.resolve(path)
            if best is None or candidate[1] > best[1]:
                best = candidate
        (line, column), _ = best if best is not None else (self.start, 0)
        return SourcePosition(self.file, line, column)


@record
class YamlDocument:
    """One non-empty document and the positions of its fields."""

    value: Any
    positions: DocumentPositions


class YamlSyntaxError(InputError):
    """Text that is not YAML; ``position`` is where the parser gave up (when it said)."""

    def __init__(self, message: str, name: str, position: SourcePosition | None) -> None:
        super().__init__(message, str(position) if position else name)
        self.position = position


def _syntax_error(exc: yaml.YAMLError, name: str) -> YamlSyntaxError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {context}: {problem}" if context else f"invalid YAML: {problem}"
    position = SourcePosition(name, mark.line + 1, mark.column + 1) if mark is not None else None
    return YamlSyntaxError(message, name, position)


#: go-yaml's aliasing bound (``allowedAliasRatio``): below 400,000 decoded nodes up to 99% of them
#: may come from aliases, above 4,000,000 only 10%, linear in between; the check applies once more
#: than 100 aliased and 1,000 decoded nodes exist.
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


def allowed_alias_ratio(decoded: int) -> float:
    """go-yaml's ``allowedAliasRatio``."""
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def excessive_aliasing(aliased: int, decoded: int) -> bool:
    return aliased > 100 and decoded > 1000 and aliased / decoded > allowed_alias_ratio(decoded)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def check_aliasing(root: yaml.Node, name: str) -> None:
    """Refuse a document whose aliases expand it beyond go-yaml's bound ("document contains
    excessive aliasing"), before anything walks the expanded tree: a billion-laughs document is a
    few hundred bytes that every later step would expand exponentially.

    The composed node graph shares an anchored node between its uses, so each node's expanded size
    is computed once; counts follow go-yaml's decoder (every node decoded, keys included; every node
    decoded under an alias counts as aliased), checked after each alias as the decoder checks while
    expanding it."""
    sizes: dict[int, int] = {}
    seen: set[int] = set()
    decoded = aliased = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            grown = _expanded_size(node, sizes, name)
            decoded, aliased = decoded + grown, aliased + grown
            if excessive_aliasing(aliased, decoded):
                raise _syntax_error_at(node, name, "document contains excessive aliasing")
            continue
        seen.add(id(node))
        decoded += 1
        stack.extend(reversed(_children(node)))


def _expanded_size(root: yaml.Node, sizes: dict[int, int], name: str) -> int:
    """Nodes in ``root`` with every alias expanded (memoised per node, iterative: no recursion
    limit for deep documents). An anchor that contains itself never ends: refused as go-yaml does."""
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    visiting: set[int] = set()
    while stack:
        node, done = stack.pop()
        children = _children(node)
        if done:
            visiting.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
            continue
        if id(node) in sizes:
            continue
        visiting.add(id(node))
        stack.append((node, True))
        for child in children:
            if id(child) in visiting:
                raise _syntax_error_at(child, name, "anchor value contains itself")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _syntax_error_at(node: yaml.Node, name: str, problem: str) -> YamlSyntaxError:
    mark = node.start_mark
    position = SourcePosition(name, mark.line + 1, mark.column + 1)
    return YamlSyntaxError(f"invalid YAML: {problem}", name, position)


def parse_documents(text: str, name: str = "") -> list[YamlDocument]:
    """Every non-empty document of a (multi-document) YAML text, with positions.

    ``name`` is the file (or ``<stdin>``) that errors and positions name."""
    loader = _KubeYamlLoader(text)
    documents: list[YamlDocument] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            check_aliasing(node, name)
            loader.containers = {}
            value = loader.construct_document(node)
            if value is not None:
                start = _mark(node)
                documents.append(YamlDocument(value, DocumentPositions(name, value, loader.containers, start)))
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, name) from None
    finally:
        loader.dispose()
    return documents
