"""Where live objects come from: a narrow read-only Protocol and its in-memory implementation.

The predicates are pure; only :func:`dynamo_pulumi.readiness.graph.graph_readiness` reads, and it
reads through :class:`ObjectReader` so that tests replay recorded objects and the waiter plugs in
its watch cache (:class:`dynamo_pulumi.cluster.watch.ObjectCache`) without the predicates knowing
which.

Contract, as in the operator (readiness-lifecycle A3): "not found" is an answer (``None``, a
legitimate not-ready state); every other failure (no such API kind, forbidden, timeout) raises,
so a caller retries instead of reporting a transient blip as a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from dynamo_pulumi.readiness._fields import name_of, namespace_of

ObjectKey = tuple[str, str, str, str]


@runtime_checkable
class ObjectReader(Protocol):
    """Reads one object as the API server returns it (JSON as a dict), or None when absent."""

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None: ...


class InMemoryReader:
    """An :class:`ObjectReader` over recorded objects, keyed by (apiVersion, kind, namespace, name).

    Objects without ``metadata.namespace`` are stored under ``default_namespace`` (what the API
    server would have put there). ``reads`` records every lookup, so tests can assert what a
    readiness pass asked for.
    """

    def __init__(self, objects: Iterable[Mapping[str, Any]] = (), default_namespace: str = "default") -> None:
        self._default_namespace = default_namespace
        self._objects: dict[ObjectKey, dict[str, Any]] = {}
        self.reads: list[ObjectKey] = []
        for obj in objects:
            self.add(obj)

    def add(self, obj: Mapping[str, Any]) -> None:
        """Store (or replace) one object."""
        key = (
            str(obj.get("apiVersion", "")),
            str(obj.get("kind", "")),
            namespace_of(obj) or self._default_namespace,
            name_of(obj),
        )
        self._objects[key] = dict(obj)

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        key = (api_version, kind, namespace, name)
        self.reads.append(key)
        return self._objects.get(key)
