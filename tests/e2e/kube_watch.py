"""A Kubernetes watch, recorded: ``kubectl get KIND --watch`` in one namespace, every event with the
wall-clock second it arrived, for the zero-downtime checks of tests/e2e/test_engine_diff.py.

The watch is the pinned ``kubectl`` against the API server itself, independent of our own
watch code (``dynamo_pulumi.cluster``), so what it shows is what the cluster did.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from localcluster.cluster import LocalCluster


@dataclass(frozen=True)
class WatchEvent:
    t: float
    kind: str  # the resource watched ("deployments", "endpointslices")
    type: str  # ADDED, MODIFIED, DELETED
    obj: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.obj["metadata"]["name"])


def _objects(stream: Any) -> Iterator[dict[str, Any]]:
    """Each JSON document ``kubectl -o json --watch`` prints (indented, one after the other)."""
    decoder = json.JSONDecoder()
    buffer = ""
    for line in stream:
        buffer += line
        stripped = buffer.lstrip()
        try:
            value, end = decoder.raw_decode(stripped)
        except json.JSONDecodeError:
            continue
        buffer = stripped[end:]
        yield value


@dataclass
class KubeWatch:
    """Watches ``kinds`` in ``namespace`` from ``__enter__`` until ``__exit__``."""

    cluster: LocalCluster
    namespace: str
    kinds: tuple[str, ...] = ("deployments", "endpointslices")
    events: list[WatchEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: list[subprocess.Popen[str]] = []
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> KubeWatch:
        kubectl = str(self.cluster.tools.program("kubectl"))
        for kind in self.kinds:
            proc = subprocess.Popen(
                [kubectl, f"--kubeconfig={self.cluster.kubeconfig}", "get", kind, "-n", self.namespace,
                 "--watch", "--output-watch-events", "-o", "json"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )
            thread = threading.Thread(target=self._read, args=(kind, proc), daemon=True)
            thread.start()
            self._procs.append(proc)
            self._threads.append(thread)
        return self

    def _read(self, kind: str, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for doc in _objects(proc.stdout):
            with self._lock:
                self.events.append(WatchEvent(time.time(), kind, str(doc.get("type")), doc.get("object") or {}))

    def wait_for(self, kind: str, name: str, timeout: float = 60.0) -> None:
        """Until the watch has delivered ``name`` (the initial list has arrived)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(e.kind == kind and e.name == name for e in self.events):
                    return
            time.sleep(0.05)
        raise AssertionError(f"the watch of {kind} never delivered {name}")

    def __exit__(self, *exc: object) -> None:
        for proc in self._procs:
            proc.terminate()
        for proc in self._procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for thread in self._threads:
            thread.join(timeout=10)

    def of(self, kind: str) -> list[WatchEvent]:
        with self._lock:
            return [e for e in self.events if e.kind == kind]


# --- what the events say ------------------------------------------------------------------------


def available(deployment: dict[str, Any]) -> bool:
    """The Deployment controller's verdict, as ``kubectl rollout status`` reads it: the spec
    observed, Available, every replica updated, no old one left (``replicas``), all available."""
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    conditions = {c["type"]: c["status"] for c in status.get("conditions") or []}
    want = spec.get("replicas", 1)
    return (conditions.get("Available") == "True" and status.get("updatedReplicas") == want
            and status.get("replicas") == want and status.get("availableReplicas") == want
            and status.get("readyReplicas") == want
            and status.get("observedGeneration", 0) >= deployment["metadata"].get("generation", 0))


def first_available(events: list[WatchEvent], name: str) -> float | None:
    return next((e.t for e in events if e.name == name and e.type != "DELETED" and available(e.obj)), None)


def deletion_started(events: list[WatchEvent], name: str) -> float | None:
    """When the object got its deletionTimestamp (or vanished, whichever the watch saw first)."""
    return next((e.t for e in events if e.name == name
                 and (e.type == "DELETED" or e.obj["metadata"].get("deletionTimestamp"))), None)


def ready_endpoints(slices: list[WatchEvent], service_prefix: str) -> list[tuple[float, int]]:
    """(time, distinct ready pods behind the Services whose name starts with ``service_prefix``)
    after each event touching one of their EndpointSlices.

    Pods, not endpoints, are counted: a worker Service selects its component's pods of every
    generation (the operator's selector has no worker hash), so during a replacement the old and
    the new Service both list the old and the new pods."""
    current: dict[str, set[str]] = {}
    series: list[tuple[float, int]] = []
    for event in slices:
        labels = event.obj["metadata"].get("labels") or {}
        if not str(labels.get("kubernetes.io/service-name", "")).startswith(service_prefix):
            continue
        if event.type == "DELETED":
            current.pop(event.name, None)
        else:
            current[event.name] = {
                str((ep.get("targetRef") or {}).get("name") or ep.get("addresses"))
                for ep in event.obj.get("endpoints") or []
                if (ep.get("conditions") or {}).get("ready") is not False
            }
        series.append((event.t, len(set().union(*current.values()))))
    return series
