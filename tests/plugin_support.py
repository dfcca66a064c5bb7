"""Drive the ``dynamo`` plugin as the engine does: start its console script, read the port it
prints, and call it with the SDK's generated gRPC stubs.

* :class:`FakeEngine` is the engine's side: a gRPC server with the ``Engine`` service (recording
  every ``Log`` line with its URN and ``ephemeral`` flag) and the ``ResourceMonitor`` service a
  ``Construct`` registers its children through (recording every ``RegisterResource``).
* :class:`Plugin` is the started plugin process and its stub; :class:`PluginDriver` speaks the
  transport-neutral verbs of :mod:`readiness_contract` over it.
* Wire helpers build and read ``Struct`` values *without* the SDK's marshaller (the secret and
  unknown encodings written out), so the tests check the wire format, not the SDK against itself.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import (
    engine_pb2,
    engine_pb2_grpc,
    provider_pb2,
    provider_pb2_grpc,
    resource_pb2,
    resource_pb2_grpc,
)

SIG = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
READINESS_URN = "urn:pulumi:dev::proj::dynamo:index:GraphReadiness::team-a/llm"
SCRIPT = Path(sys.executable).with_name("pulumi-resource-dynamo")


# --- the wire ----------------------------------------------------------------------------------

def secret(value: Any) -> dict[str, Any]:
    return {SIG: SECRET_SIG, "value": value}


def to_struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(dict(props))
    return struct


def from_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    """The Struct as plain Python (numbers as floats, NaN and infinities included: the JSON
    mapping refuses those, and a plugin may echo them back in Check's inputs)."""
    return {key: _plain_value(value) for key, value in struct.fields.items()}


def _plain_value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return from_struct(value.struct_value)
    if kind == "list_value":
        return [_plain_value(item) for item in value.list_value.values]
    return None if kind in (None, "null_value") else getattr(value, kind)


def unwrap(value: Any) -> Any:
    """A received value with the secret wrappers removed (integral numbers as ints)."""
    if isinstance(value, dict):
        if value.get(SIG) == SECRET_SIG:
            return unwrap(value["value"])
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(SIG) == SECRET_SIG


# --- the engine's side -------------------------------------------------------------------------

@dataclass
class FakeEngine:
    """Engine + ResourceMonitor on one loopback port, recording what the plugin sends."""

    logs: list[engine_pb2.LogRequest] = field(default_factory=list)
    registered: list[resource_pb2.RegisterResourceRequest] = field(default_factory=list)
    outputs: list[resource_pb2.RegisterResourceOutputsRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    address: str = ""
    _server: Any = None

    def start(self) -> FakeEngine:
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        engine_pb2_grpc.add_EngineServicer_to_server(_Engine(self), self._server)
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(_Monitor(self), self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        self.address = f"127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self._server.stop(grace=None)

    def lines(self, urn: str | None = None) -> list[engine_pb2.LogRequest]:
        with self.lock:
            return [r for r in self.logs if urn is None or r.urn == urn]


class _Engine(engine_pb2_grpc.EngineServicer):
    def __init__(self, fake: FakeEngine) -> None:
        self.fake = fake

    def Log(self, request: engine_pb2.LogRequest, context: Any) -> empty_pb2.Empty:
        with self.fake.lock:
            self.fake.logs.append(request)
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> engine_pb2.GetRootResourceResponse:
        return engine_pb2.GetRootResourceResponse(urn="")

    def SetRootResource(self, request: Any, context: Any) -> engine_pb2.SetRootResourceResponse:
        return engine_pb2.SetRootResourceResponse()


class _Monitor(resource_pb2_grpc.ResourceMonitorServicer):
    def __init__(self, fake: FakeEngine) -> None:
        self.fake = fake

    def SupportsFeature(self, request: Any, context: Any) -> resource_pb2.SupportsFeatureResponse:
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id not in ("transforms", "invokeTransforms"))

    def RegisterResource(self, request: resource_pb2.RegisterResourceRequest, context: Any) -> Any:
        with self.fake.lock:
            self.fake.registered.append(request)
        urn = f"urn:pulumi:dev::proj::{request.type}::{request.name}"
        return resource_pb2.RegisterResourceResponse(urn=urn, id="" if not request.custom else request.name,
                                                     object=request.object)

    def RegisterResourceOutputs(self, request: Any, context: Any) -> empty_pb2.Empty:
        with self.fake.lock:
            self.fake.outputs.append(request)
        return empty_pb2.Empty()


# --- the plugin --------------------------------------------------------------------------------

def _env() -> dict[str, str]:
    """The plugin's environment: it imports ``dynamo_pulumi`` from where the tests do (a mutation
    run's copy, not only the installed tree)."""
    import dynamo_pulumi

    root = str(Path(dynamo_pulumi.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}


class Plugin:
    """The plugin process started as the engine starts it, and a stub on the port it printed.
    ``engine`` is anything with an ``address`` ("" for none); ``env`` is added to its environment."""

    def __init__(self, engine: Any, command: list[str] | None = None, env: Mapping[str, str] | None = None) -> None:
        argv = [*(command or [str(SCRIPT)]), *([engine.address] if engine.address else [])]
        #: The plugin's stderr (a file: a pipe nobody reads would fill and block the plugin).
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.stderr, text=True,
                                        env={**_env(), **(env or {})})
        line = self.process.stdout.readline() if self.process.stdout else ""
        if not line.strip().isdigit():
            self.process.kill()
            self.stderr.seek(0)
            raise RuntimeError(f"the plugin printed no port: {line!r} {self.stderr.read()}")
        self.port = int(line)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = provider_pb2_grpc.ResourceProviderStub(self.channel)

    def stderr_text(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()

    @property
    def threads(self) -> int:
        """The plugin process's thread count (Linux ``/proc``; 0 elsewhere)."""
        return threads_of(self.process.pid)

    def connections_to(self, port: int) -> int:
        """The plugin's established TCP connections to ``port`` (Linux ``/proc``)."""
        return connections_to(self.process.pid, port)

    def close(self) -> None:
        self.channel.close()
        self.process.kill()
        self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.stderr.close()


@contextlib.contextmanager
def running_plugin(engine: FakeEngine) -> Iterator[Plugin]:
    plugin = Plugin(engine)
    try:
        yield plugin
    finally:
        plugin.close()


class CallFailed(Exception):
    """A gRPC error from the plugin: ``message`` is what the engine would show the user, ``code``
    the status code (the engine treats UNKNOWN and INTERNAL as "the resource's state is unknown")."""

    def __init__(self, error: grpc.RpcError) -> None:
        self.message = error.details() or ""
        self.code: grpc.StatusCode = error.code()
        super().__init__(self.message)


class PluginDriver:
    """The readiness contract's verbs (:mod:`readiness_contract`) over the plugin's gRPC API."""

    def __init__(self, plugin: Plugin, urn: str = READINESS_URN) -> None:
        self.stub = plugin.stub
        self.urn = urn

    def _call(self, method: str, request: Any) -> Any:
        try:
            return getattr(self.stub, method)(request, timeout=60)
        except grpc.RpcError as error:
            raise CallFailed(error) from None

    def configure(self, args: Mapping[str, Any]) -> provider_pb2.ConfigureResponse:
        return self._call("Configure", provider_pb2.ConfigureRequest(args=to_struct(args), acceptSecrets=True,
                                                                      acceptResources=True))

    def check(self, news: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        response = self._call("Check", provider_pb2.CheckRequest(urn=self.urn, news=to_struct(news)))
        return from_struct(response.inputs), [(f.property, f.reason) for f in response.failures]

    def diff(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> tuple[bool, list[str]]:
        response = self._call("Diff", provider_pb2.DiffRequest(id="team-a/llm", urn=self.urn, olds=to_struct(olds),
                                                               news=to_struct(news)))
        return response.changes == provider_pb2.DiffResponse.DIFF_SOME, list(response.replaces)

    def create(self, props: Mapping[str, Any], preview: bool = False, timeout: float = 0.0) -> tuple[str, dict[str, Any]]:
        """``timeout`` is the engine's per-operation timeout (``customTimeouts.create``; 0: none)."""
        response = self._call("Create", provider_pb2.CreateRequest(urn=self.urn, properties=to_struct(props),
                                                                   preview=preview, timeout=timeout))
        return response.id, from_struct(response.properties)

    def update(self, olds: Mapping[str, Any], news: Mapping[str, Any], preview: bool = False,
               timeout: float = 0.0) -> dict[str, Any]:
        response = self._call("Update", provider_pb2.UpdateRequest(
            id="team-a/llm", urn=self.urn, olds=to_struct(olds), news=to_struct(news), preview=preview,
            timeout=timeout))
        return from_struct(response.properties)

    def read(self, props: Mapping[str, Any]) -> dict[str, Any]:
        response = self._call("Read", provider_pb2.ReadRequest(id="team-a/llm", urn=self.urn,
                                                               properties=to_struct(props), inputs=to_struct(props)))
        return from_struct(response.properties)

    def delete(self, props: Mapping[str, Any]) -> None:
        self._call("Delete", provider_pb2.DeleteRequest(id="team-a/llm", urn=self.urn, properties=to_struct(props)))


# --- engines that misbehave, and what the plugin process holds ----------------------------------

class _StalledLog(engine_pb2_grpc.EngineServicer):
    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.calls = 0

    def Log(self, request: engine_pb2.LogRequest, context: Any) -> empty_pb2.Empty:
        self.calls += 1
        self.release.wait(600)
        return empty_pb2.Empty()


class StalledEngine:
    """An engine whose ``Log`` never returns (until :meth:`stop`)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.servicer = _StalledLog(self.release)
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=64))
        engine_pb2_grpc.add_EngineServicer_to_server(self.servicer, self._server)
        self.address = f"127.0.0.1:{self._server.add_insecure_port('127.0.0.1:0')}"
        self._server.start()

    def stop(self) -> None:
        self.release.set()
        self._server.stop(grace=None)


class SilentEngine:
    """An address that accepts TCP connections and never says a word (not even HTTP/2's preface)."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(0)
        self.address = f"127.0.0.1:{self._socket.getsockname()[1]}"

    def stop(self) -> None:
        self._socket.close()


def threads_of(pid: int) -> int:
    """``pid``'s thread count (0 when ``/proc`` cannot tell)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def connections_to(pid: int, port: int) -> int:
    """``pid``'s established TCP connections to ``port`` (from ``/proc``: its socket inodes, then
    the kernel's TCP tables)."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                parts = line.split()
                remote, state, inode = parts[2], parts[3], parts[9]
                if state == "01" and inode in inodes and int(remote.rsplit(":", 1)[1], 16) == port:
                    count += 1
    return count


#: How the engine starts the dynamic-provider host (the SDK's own, four worker threads).
DYNAMIC_HOST = [sys.executable, "-m", "pulumi.dynamic"]
DYNAMIC_URN = "urn:pulumi:dev::proj::pulumi-python:dynamic/dynamo:GraphReadiness::team-a/llm"


class DynamicDriver(PluginDriver):
    """The same verbs through ``python -m pulumi.dynamic``: every request carries the pickled
    provider (``__provider``), as the program's registration puts it there."""

    def __init__(self, plugin: Plugin, urn: str = DYNAMIC_URN) -> None:
        super().__init__(plugin, urn)
        from pulumi.dynamic.dynamic import serialize_provider

        from dynamo_pulumi.cluster.provider import ReadinessProvider

        self.pickled = serialize_provider(ReadinessProvider())

    def _with(self, props: Mapping[str, Any]) -> dict[str, Any]:
        return {**props, "__provider": self.pickled}

    def check(self, news: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return super().check(self._with(news))

    def diff(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> tuple[bool, list[str]]:
        return super().diff(self._with(olds), self._with(news))

    def create(self, props: Mapping[str, Any], preview: bool = False) -> tuple[str, dict[str, Any]]:
        return super().create(self._with(props), preview)

    def update(self, olds: Mapping[str, Any], news: Mapping[str, Any], preview: bool = False) -> dict[str, Any]:
        return super().update(self._with(olds), self._with(news), preview)

    def read(self, props: Mapping[str, Any]) -> dict[str, Any]:
        return super().read(self._with(props))

    def delete(self, props: Mapping[str, Any]) -> None:
        super().delete(self._with(props))
