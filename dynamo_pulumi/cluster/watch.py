"""A list-then-watch loop per kind, feeding one shared cache the predicates read.

The loop is the standard informer pattern, kept small: list (which gives a resourceVersion),
then watch from it; every event updates the cache and wakes the waiter; a bookmark only moves
the resourceVersion; when the server answers 410 Gone (the version fell out of its window) the
loop lists again; a dropped connection or a 5xx/429 watches again from the last version after a
backoff (1 s doubling to 30 s). Missing CRD (404 on the list), 401 and 403 are fatal: they will
not fix themselves before the deadline, and the user needs to hear about them at once.

Requests therefore grow with state changes and server-side watch timeouts, never with time
spent polling.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from dynamo_pulumi.cluster.api import ApiFailure, ClusterApi, ResourceRef
from dynamo_pulumi.readiness._fields import name_of

#: Server-side lifetime of one watch request (the API server closes it; we watch again).
WATCH_SECONDS: Final = 300
BACKOFF_START: Final = 1.0
BACKOFF_MAX: Final = 30.0
HTTP_GONE: Final = 410


class ObjectCache:
    """Live objects by (apiVersion, kind, namespace, name): an ``ObjectReader`` for the predicates.

    Thread-safe; ``changed`` is a Condition the waiter sleeps on, notified on every update.
    """

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self._objects: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.version = 0

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        with self.changed:
            return self._objects.get((api_version, kind, namespace, name))

    def of_kind(self, api_version: str, kind: str, namespace: str) -> list[dict[str, Any]]:
        with self.changed:
            return [o for (a, k, ns, _), o in sorted(self._objects.items()) if (a, k, ns) == (api_version, kind, namespace)]

    def replace_kind(self, ref: ResourceRef, namespace: str, items: list[dict[str, Any]]) -> None:
        """A fresh list: drop what the kind held, store ``items``."""
        with self.changed:
            for key in [k for k in self._objects if k[:3] == (ref.api_version, ref.kind, namespace)]:
                del self._objects[key]
            for item in items:
                self._objects[(ref.api_version, ref.kind, namespace, name_of(item))] = item
            self._bump()

    def apply(self, ref: ResourceRef, namespace: str, event_type: str, obj: dict[str, Any]) -> None:
        with self.changed:
            key = (ref.api_version, ref.kind, namespace, name_of(obj))
            if event_type == "DELETED":
                self._objects.pop(key, None)
            else:
                self._objects[key] = obj
            self._bump()

    def _bump(self) -> None:
        self.version += 1
        self.changed.notify_all()

    def wake(self) -> None:
        with self.changed:
            self._bump()


def _with_kind(ref: ResourceRef, item: Mapping[str, Any]) -> dict[str, Any]:
    """List items come without apiVersion/kind; put them back (the predicates do not need them,
    but drift reports and debugging do)."""
    return {"apiVersion": ref.api_version, "kind": ref.kind, **item}


@dataclass
class KindWatch:
    """One informer: keeps ``cache`` current for one kind in one namespace until ``stop`` is set."""

    api: ClusterApi
    ref: ResourceRef
    namespace: str
    cache: ObjectCache
    stop: threading.Event
    field_selector: str = ""
    label_selector: str = ""
    sleep: Callable[[float], bool] | None = None
    #: Set when the loop gave up: the failure the waiter must report.
    fatal: ApiFailure | None = None
    #: True once the first list has been stored (the cache is authoritative for this kind).
    synced: bool = False
    #: The resourceVersion to watch from ("" lists first); follows every event.
    version: str = ""
    _received: bool = field(default=False, repr=False)
    _response: Any = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"watch-{self.ref.plural}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Ask the loop to end and cut its open watch so it ends now, not at the server timeout."""
        self.stop.set()
        response = self._response
        if response is not None:
            # The stream may already be closed; nothing to clean up then.
            with contextlib.suppress(Exception):
                getattr(response, "shutdown", response.close)()

    def join(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` unless stopped first; True when stopped."""
        return self.sleep(seconds) if self.sleep is not None else self.stop.wait(seconds)

    def list_once(self) -> str:
        """List into the cache; returns the resourceVersion to watch from."""
        listed = self.api.list(self.ref, self.namespace, self.field_selector, self.label_selector)
        items = [_with_kind(self.ref, i) for i in listed.get("items") or []]
        self.cache.replace_kind(self.ref, self.namespace, items)
        self.synced = True
        return str((listed.get("metadata") or {}).get("resourceVersion") or "")

    def _run(self) -> None:
        backoff = BACKOFF_START
        while not self.stop.is_set():
            self._received = False
            try:
                if not self.version:
                    self.version = self.list_once()
                self._watch_from()
                backoff = BACKOFF_START
            except ApiFailure as failure:
                if failure.status == HTTP_GONE:
                    self.version = ""  # relist at once: the version is gone, waiting will not help
                    continue
                if not failure.retryable:
                    self.fatal = failure
                    self.cache.wake()
                    return
                if self._received:
                    continue  # a stream that delivered events and then dropped: resume at once
                if self._wait(backoff):
                    return
                backoff = min(backoff * 2, BACKOFF_MAX)

    def _watch_from(self) -> None:
        """One watch request from ``self.version``, which follows every event seen."""
        events = self.api.watch(
            self.ref, self.namespace, self.version, WATCH_SECONDS, self.field_selector, self.label_selector,
            on_open=self._opened,
        )
        try:
            for event in events:
                if self.stop.is_set():
                    break
                self._handle(event)
        finally:
            self._response = None

    def _opened(self, response: Any) -> None:
        self._response = response
        if self.stop.is_set():
            self.close()

    def _handle(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        obj = event.get("object") or {}
        if kind == "ERROR":
            raise ApiFailure(int(obj.get("code") or 0), str(obj.get("message") or "watch error"))
        self._received = True
        self.version = str((obj.get("metadata") or {}).get("resourceVersion") or self.version)
        if kind in ("ADDED", "MODIFIED", "DELETED"):
            self.cache.apply(self.ref, self.namespace, str(kind), _with_kind(self.ref, obj))
