"""``pulumi.Output`` leaves in a graph spec: park them as tokens, put them back after rendering.

Validation and rendering are pure functions over plain data; they must not await anything. So
each Output found at a leaf of the user's spec is replaced by a unique token string before
loading, and after rendering every string holding a token becomes the Output again (a string
that only *contains* a token, e.g. ``"--model=<token>"``, becomes an ``Output.concat``).

Outputs of other JSON types: inside the free-form core/v1 parts (pod templates) a token stands
for a number, a boolean, a list or a whole object as well, because the schema check treats a token
as unknown whatever the type. Where a *typed model field* needs an integer (``replicas``,
``minAvailable``, ``multinode.nodeCount``), the token is swapped for a stand-in integer unique to
that Output (:meth:`OutputTable.integer_for`), and every rendered integer equal to it becomes the
Output again. Whether the rendering only copies such a value is decided as for strings: a second
render with every stand-in spelled differently must differ from the first only at the copies.

Consequence, stated in the README: a value known only at deploy time does not take part in the
worker hash, so when such a value changes the worker workload is updated in place (Kubernetes'
own rolling update) instead of being recreated under a new hash-suffixed name. Any *other* use of
an Output's value by the rendering (a model name hashed into a Service name, say) is refused by
:func:`read_by_rendering`, because it would be computed from the token, not the value.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.pulumi_args import is_input_object, plain
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.digests import sha256_hex
from dynamo_pulumi.floor.placeholders import OUTPUT_TOKEN_RE, is_deploy_time_value
from dynamo_pulumi.floor.records import field, record

if TYPE_CHECKING:
    import pulumi

_TOKEN_RE = OUTPUT_TOKEN_RE  # the one pattern, shared with the schema checks


@record(frozen=False)
class OutputTable:
    """The Outputs taken out of a spec, by token id.

    A token's id is derived from the Output's *path* in the spec, not from its position in the
    walk: adding an Output elsewhere in the program must not change the tokens (and with them the
    worker hash) of the existing ones.
    """

    outputs: dict[str, pulumi.Output[Any]] = field(default_factory=dict)
    #: Where each Output sat in the user's spec (for messages), by token id.
    paths: dict[str, str] = field(default_factory=dict)
    #: Stand-in integers of Outputs at integer model fields: stand-in -> token id.
    integers: dict[int, str] = field(default_factory=dict)
    #: Values of the Outputs the engine has resolved, by token id (:mod:`.settled`).
    known: dict[str, Any] = field(default_factory=dict)

    def token_for(self, value: pulumi.Output[Any], path: str = "") -> str:
        ident = sha256_hex(path)[:12]
        salt = 0
        while ident in self.outputs and self.outputs[ident] is not value:
            salt += 1
            ident = sha256_hex(f"{path}#{salt}")[:12]
        self.outputs[ident] = value
        self.paths[ident] = path
        return token(ident)

    def integer_for(self, ident: str) -> int:
        """The stand-in integer of the Output ``ident`` at an integer field (fits an int32)."""
        value = integer_stand_in(ident)
        self.integers[value] = ident
        return value

    def ident_of_token(self, text: str) -> str | None:
        match = _TOKEN_RE.fullmatch(text)
        return match.group(1) if match and match.group(1) in self.outputs else None

    def describe(self, ident: str) -> str:
        return f"the pulumi.Output at {self.paths.get(ident) or '<spec>'}"

    def __bool__(self) -> bool:
        return bool(self.outputs)


#: Stand-in integers: ``_INT_BASE + 24 bits of the id``, the probe spelling ``_PROBE_OFFSET``
#: higher; both below 2**31 and far above any replica count or port a graph holds.
_INT_BASE = 1_000_000_000
_PROBE_OFFSET = 1_000_000_000


def integer_stand_in(ident: str, probe: bool = False) -> int:
    return _INT_BASE + int(ident[:6], 16) + (_PROBE_OFFSET if probe else 0)


def _is_output(value: Any) -> bool:
    # Only a Pulumi program holds Outputs, and it has imported pulumi: the offline tools that
    # plan a graph (wait, status) need not load it.
    pulumi = sys.modules.get("pulumi")
    return pulumi is not None and isinstance(value, pulumi.Output)


def park(value: Any, table: OutputTable, path: str = "") -> Any:
    """A copy of ``value`` with every Output leaf replaced by a token string.

    ``path`` is where ``value`` sits in the whole object (``""`` for the object itself)."""
    if _is_output(value):
        return table.token_for(value, path)
    if is_deploy_time_value(value):  # another awaitable Input: parked as the Output it becomes
        import pulumi  # late: an awaitable here means a Pulumi program is running

        return table.token_for(pulumi.Output.from_input(value), path)
    if is_input_object(value):  # a pulumi_kubernetes *Args object: its wire mapping
        return park(plain(value), table, path)
    if isinstance(value, Mapping):
        result = {}
        for key, item in value.items():
            if _is_output(key):
                raise InputError(f"{path or '<object>'}: a pulumi.Output cannot be used as a mapping key")
            result[key] = park(item, table, f"{path}.{key}" if path else str(key))
        return result
    if isinstance(value, (list, tuple)):
        return [park(item, table, f"{path}[{i}]") for i, item in enumerate(value)]
    return value


def _restore_string(text: str, table: OutputTable) -> Any:
    parts = _TOKEN_RE.split(text)
    if len(parts) == 1:
        return text
    pieces: list[Any] = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if part:
                pieces.append(part)
        else:
            pieces.append(table.outputs[part])
    if len(pieces) == 1:
        return pieces[0]
    import pulumi  # loaded already: the table holds Outputs

    return pulumi.Output.concat(*pieces)


def restore(value: Any, table: OutputTable) -> Any:
    """A copy of ``value`` with every token (and stand-in integer) put back as its Output."""
    if not table:
        return value
    if isinstance(value, str):
        return _restore_string(value, table)
    if isinstance(value, int) and not isinstance(value, bool) and value in table.integers:
        return table.outputs[table.integers[value]]
    if isinstance(value, Mapping):
        return {key: restore(item, table) for key, item in value.items()}
    if isinstance(value, list):
        return [restore(item, table) for item in value]
    return value


def has_token(value: Any) -> bool:
    """Does ``value`` (a rendered leaf) still carry a parked Output?"""
    return isinstance(value, str) and bool(_TOKEN_RE.search(value))


def token(ident: str) -> str:
    return f"__dynamo_pulumi_output_{ident}__"


def probe_ident(ident: str) -> str:
    """Another valid token id for the same Output: the probe spelling stays a token, so schema
    checks still see an unknown value (not a string that fails a quantity pattern)."""
    return sha256_hex(f"probe:{ident}")[:12]


def replace_integer(value: Any, old: int, new: int) -> Any:
    """A copy of ``value`` with the integer ``old`` (not a boolean) replaced by ``new``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return new if value == old else value
    if isinstance(value, Mapping):
        return {k: replace_integer(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_integer(item, old, new) for item in value]
    return value


def replace_text(value: Any, old: str, new: str) -> Any:
    """A copy of ``value`` with ``old`` replaced by ``new`` in every string (keys included)."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, Mapping):
        return {replace_text(k, old, new): replace_text(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_text(item, old, new) for item in value]
    return value


def read_by_rendering(
    table: OutputTable,
    wire: dict[str, Any],
    render: Callable[[dict[str, Any]], tuple[list[Any], str]],
) -> list[str]:
    """Spec paths of the Outputs whose *value* changes what is rendered beyond copying it.

    Rendering is pure, so this is decided by rendering again with one token spelled differently:
    if the result, with the spelling put back, differs from the first render, the operator's logic
    read the value (hashed it into a label, parsed it, ...) and a deploy-time value would be
    rendered wrongly. The worker hash is the one accepted exception (see the module docstring).
    ``render`` returns the rendered documents and the worker hash.
    """
    baseline, base_hash = render(wire)
    expected = _without_hash(baseline, base_hash)

    stand_ins = {ident: value for value, ident in table.integers.items()}

    def changes_rendering(idents: list[str]) -> bool:
        probed_wire = wire
        for ident in idents:
            probed_wire = replace_text(probed_wire, token(ident), token(probe_ident(ident)))
            if ident in stand_ins:
                probed_wire = replace_integer(probed_wire, stand_ins[ident], integer_stand_in(ident, probe=True))
        probed, probe_hash = render(probed_wire)
        for ident in idents:
            probed = replace_text(probed, token(probe_ident(ident)), token(ident))
            if ident in stand_ins:
                probed = replace_integer(probed, integer_stand_in(ident, probe=True), stand_ins[ident])
        return _without_hash(probed, probe_hash) != expected

    idents = list(table.paths)
    if not changes_rendering(idents):  # the usual case: one extra render in all
        return []
    return [table.paths[ident] for ident in idents if changes_rendering([ident])]


def _without_hash(documents: list[Any], worker_hash: str) -> list[Any]:
    return replace_text(documents, worker_hash, "<worker-hash>") if worker_hash else documents
