"""Run a Pulumi program in-process under ``pulumi.runtime.set_mocks`` and record what it registers.

Used by ``dynamo-pulumi preview``, the benchmark and the tests. The standard mock monitor hands
``Mocks.new_resource`` only the type, name and inputs; to check parents, providers and resource
options we keep the whole registration request.

Every run happens in a fresh ``contextvars.Context``: the Pulumi runtime keeps its settings and
root stack resource in context variables, so nothing leaks from one run (or test) to the next.

Resource references in a request (``cluster=eks_cluster`` given to an EKS node group, a
``node_role``) reach the monitor, which runs on the runtime's worker threads. The standard mock
monitor deserializes them there, which *rehydrates* each reference: it constructs the referenced
resource again, and that schedules a ``getResource`` task on the worker thread's own event loop;
the program's loop then waits for a task of another loop and fails with "attached to a different
loop". Our monitor hands the mocks each reference as what the engine would show for it, its ID
(custom resources) or URN (components), so nothing is constructed off the program's loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import warnings
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.output import Unknown
from pulumi.runtime import Mocks, rpc, set_mocks
from pulumi.runtime.config import CONFIG, set_all_config
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import wait_for_rpcs
from pulumi.runtime.sync_await import _sync_await

from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.floor.wire_numbers import as_written

STACK_TYPE = "pulumi:pulumi:Stack"
UNKNOWN_TEXT = "(unknown)"
SECRET_TEXT = "[secret]"
#: How the Pulumi wire format marks a resource reference inside a map.
_SIG_KEY = "4dabf18193072939515e22adb298388d"
_RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


def whole_numbers(value: Any) -> Any:
    """``value`` with every integral float made an ``int`` again.

    The wire format carries every number as a protobuf double, so ``replicas: 1`` reaches the
    monitor as ``1.0``; the engine shows it as ``1``, and so must we (a JSON ``1.0`` is not what
    the user wrote). A fractional number stays a float."""
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return as_written(value)


def shown_inputs(value: Any) -> Any:
    """A recorded input as a user may see it: plain JSON values, unknowns as ``(unknown)``,
    secrets as ``[secret]`` (never their value), and no engine internals (``__provider``, the
    pickled dynamic provider; any other ``__`` key)."""
    if is_unknown(value):
        return UNKNOWN_TEXT
    if isinstance(value, dict):
        if value.get(_SIG_KEY) == _SECRET_SIG:
            return SECRET_TEXT
        return {str(k): shown_inputs(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, (list, tuple)):
        return [shown_inputs(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return whole_numbers(value)
    return str(value)


def _without_references(value: Any) -> Any:
    """Every resource reference replaced by the referenced resource's ID, else its URN."""
    if isinstance(value, dict):
        if value.get(_SIG_KEY) == _RESOURCE_SIG:
            return value.get("id") or value.get("urn", "")
        return {key: _without_references(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_references(item) for item in value]
    return value


def references_as_ids(struct: struct_pb2.Struct) -> None:
    """Rewrite a request's property struct in place: references become IDs/URNs (see above)."""
    plain = json_format.MessageToDict(struct)
    rewritten = _without_references(plain)
    if rewritten != plain:
        struct.Clear()
        struct.update(rewritten)


@record
class Registration:
    """One resource as the engine would have received it."""

    urn: str
    type: str
    name: str
    parent_urn: str
    custom: bool
    provider: str
    providers: dict[str, str]
    inputs: dict[str, Any]
    ignore_changes: tuple[str, ...]
    replace_on_changes: tuple[str, ...]
    delete_before_replace: bool
    dependencies: tuple[str, ...] = ()
    #: ``import_`` (adoption of an existing object), "" when none.
    import_id: str = ""
    #: ``customTimeouts`` as (create, update, delete); empty strings when unset.
    custom_timeouts: tuple[str, str, str] = ("", "", "")
    #: The ``replacement_trigger`` option's value (None when unset).
    replacement_trigger: Any = None
    #: ``hide_diffs``: property paths whose diffs the engine does not display.
    hide_diffs: tuple[str, ...] = ()
    #: ``protect`` (False when unset: the engine then inherits the parent's, which the SDK sends).
    protect: bool = False

    @property
    def provider_urn(self) -> str:
        """The URN of the explicit provider of a custom resource ("" for the default provider)."""
        return provider_urn(self.provider)

    @property
    def parent_name(self) -> str:
        return self.parent_urn.rsplit("::", 1)[-1] if self.parent_urn else ""

    @property
    def parent_type(self) -> str:
        if not self.parent_urn:
            return ""
        return self.parent_urn.split("::")[2].split("$")[-1]

    @property
    def object_name(self) -> str:
        """``metadata.name`` of a Kubernetes object ("" for components and providers)."""
        metadata = self.inputs.get("metadata") or {}
        value = metadata.get("name") if isinstance(metadata, dict) else None
        return value if isinstance(value, str) else ""


@record(frozen=False)
class Recording:
    """Registrations in the order the program made them, and what it logged."""

    resources: list[Registration] = field(default_factory=list)
    #: ``pulumi.log`` messages as (severity, message), severity ``debug|info|warning|error``:
    #: kept, not printed (the CLI prints them once, beside the graphs' own warnings).
    logs: list[tuple[str, str]] = field(default_factory=list)
    #: The stack config keys (``project:key``) the program looked up, set or not.
    config_read: set[str] = field(default_factory=set)

    def by_type(self, type_: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_]

    def named(self, name: str) -> Registration:
        return next(r for r in self.resources if r.name == name)

    def children_of(self, urn: str) -> list[Registration]:
        return [r for r in self.resources if r.parent_urn == urn]


class DynamoMocks(Mocks):
    """Kubernetes objects get ``namespace/name`` ids and echo their inputs as state.

    ``monitor`` is the monitor of the running program (set by :func:`run_program`), for
    subclasses that register extra state, such as a child a cloud component returns a reference to.
    """

    monitor: MockMonitor | None = None

    def resource_reference(self, urn: str, id_: str, state: dict[str, Any]) -> dict[str, Any]:
        """A resource reference to return as an output, to a resource registered here with
        ``state`` (what a remote component such as ``eks.ManagedNodeGroup`` returns)."""
        if self.monitor is not None:
            self.monitor.resources[urn] = MockMonitor.ResourceRegistration(urn, id_, state)
        return {_SIG_KEY: _RESOURCE_SIG, "urn": urn, "id": id_, "packageVersion": ""}

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if not args.custom:
            return None, {}
        metadata = args.inputs.get("metadata") or {}
        if isinstance(metadata, dict) and metadata.get("name"):
            ns = metadata.get("namespace")
            return (f"{ns}/{metadata['name']}" if ns else str(metadata["name"])), whole_numbers(dict(args.inputs))
        return f"{args.name}-id", whole_numbers(dict(args.inputs))

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


class RecordingMonitor(MockMonitor):
    """The standard mock monitor, remembering each full registration request."""

    def __init__(self, mocks: Mocks, recording: Recording) -> None:
        super().__init__(mocks)
        self.recording = recording
        #: Event loops the runtime's worker threads use; closed when the run ends (else they
        #: are finalized at interpreter exit, after their sockets, and print tracebacks).
        self.thread_loops: set[asyncio.AbstractEventLoop] = set()

    def _thread_loop(self) -> None:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = None
        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        self.thread_loops.add(loop)

    def close_loops(self) -> None:
        for loop in self.thread_loops:
            if not loop.is_running() and not loop.is_closed():
                loop.close()
        self.thread_loops.clear()

    def Invoke(self, request: Any) -> Any:
        references_as_ids(request.args)
        return super().Invoke(request)

    def ReadResource(self, request: Any) -> Any:
        references_as_ids(request.properties)
        return super().ReadResource(request)

    def RegisterResource(self, request: Any) -> Any:
        self._thread_loop()
        references_as_ids(request.object)
        response = super().RegisterResource(request)
        if request.type != STACK_TYPE:
            self.recording.resources.append(
                Registration(
                    urn=self.make_urn(request.parent, request.type, request.name),
                    type=request.type,
                    name=request.name,
                    parent_urn=request.parent,
                    custom=bool(request.custom),
                    provider=request.provider,
                    providers=dict(request.providers),
                    inputs=whole_numbers(rpc.deserialize_properties(request.object, keep_unknowns=True)),
                    ignore_changes=tuple(request.ignoreChanges),
                    replace_on_changes=tuple(request.replaceOnChanges),
                    delete_before_replace=bool(request.deleteBeforeReplace),
                    dependencies=tuple(request.dependencies),
                    import_id=request.importId,
                    custom_timeouts=(
                        request.customTimeouts.create, request.customTimeouts.update, request.customTimeouts.delete
                    ),
                    replacement_trigger=_trigger_of(request),
                    hide_diffs=tuple(request.hideDiffs),
                    protect=bool(request.protect),
                )
            )
        return response


def provider_urn(reference: str) -> str:
    """A provider reference (``<urn>::<id>``) as its URN ("" stays "": the default provider)."""
    return reference.rsplit("::", 1)[0] if reference.count("::") > 3 else reference


class _ReadTracking(dict):  # type: ignore[type-arg]
    """The runtime's config map, noting each key the program looks up (``pulumi.Config.get``
    asks ``key in config`` first), so a ``--config`` key it never reads can be named."""

    def __init__(self, values: dict[str, Any], read: set[str]) -> None:
        super().__init__(values)
        self.read = read

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)


class _LogRecorder(logging.Handler):
    def __init__(self, recording: Recording) -> None:
        super().__init__(logging.DEBUG)
        self.recording = recording

    def emit(self, record: logging.LogRecord) -> None:
        self.recording.logs.append((record.levelname.lower(), record.getMessage()))


def _log_recorder(recording: Recording) -> logging.Logger:
    """The engine log of one run: every ``pulumi.log`` message into ``recording.logs`` (the mock
    engine would hand them to the root logger, which prints each warning once more than the
    CLI's own ``warning:`` line)."""
    logger = logging.Logger(f"dynamo_pulumi.mocks.run-{id(recording)}", logging.DEBUG)
    logger.propagate = False
    logger.addHandler(_LogRecorder(recording))
    return logger


def _trigger_of(request: Any) -> Any:
    """The registration's ``replacement_trigger`` as a plain value (None when the field is unset)."""
    if not request.HasField("replacement_trigger"):
        return None
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(request.replacement_trigger)


def _session(
    program: Callable[[], Any],
    preview: bool,
    recording: Recording,
    project: str,
    stack: str,
    config: dict[str, str],
    mocks: Mocks,
) -> Any:
    monitor = RecordingMonitor(mocks, recording)
    if isinstance(mocks, DynamoMocks):
        mocks.monitor = monitor
    set_mocks(mocks, project=project, stack=stack, preview=preview, monitor=monitor, logger=_log_recorder(recording))
    set_all_config(dict(config))  # always a fresh map: the runtime's default one is shared
    CONFIG.set(_ReadTracking(CONFIG.get(), recording.config_read))
    # Same for pending Outputs: tasks made outside this run belong to another event loop and
    # waiting for them would never end.
    SETTINGS.outputs = set()
    error: BaseException | None = None
    result = None
    try:
        result = program()
    except BaseException as exc:  # re-raised once the runtime has drained
        error = exc
    try:
        _sync_await(wait_for_rpcs())
    finally:
        monitor.close_loops()
    if error is not None:
        raise error
    return result


def run_program(
    program: Callable[[], Any],
    preview: bool = True,
    project: str = "dynamo",
    stack: str = "dev",
    recording: Recording | None = None,
    config: dict[str, str] | None = None,
    mocks: Mocks | None = None,
) -> tuple[Recording, Any]:
    """Run ``program`` under mocks; returns what it registered and what it returned.

    Pass ``recording`` to keep what was registered even when ``program`` raises; ``config`` is
    the stack configuration (``{"project:key": "value"}``); ``mocks`` replaces
    :class:`DynamoMocks` (e.g. a subclass giving a cloud component realistic outputs)."""
    recording = recording if recording is not None else Recording()
    previous = _current_loop()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        result = contextvars.Context().run(
            _session, program, preview, recording, project, stack, config or {}, mocks or DynamoMocks()
        )
    finally:
        # Closed here, not at interpreter exit, where its self-pipe may already be gone; the
        # caller's own loop (if it had one) is put back so its code keeps working.
        loop.close()
        asyncio.set_event_loop(previous)
    return recording, result


def _current_loop() -> asyncio.AbstractEventLoop | None:
    """The thread's current event loop without creating one (None when there is none)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop()
    except RuntimeError:
        return None
    return None if loop.is_closed() else loop


def is_unknown(value: Any) -> bool:
    """Is this recorded input a value preview does not know yet?"""
    return isinstance(value, Unknown) or (isinstance(value, str) and value == rpc.UNKNOWN)
