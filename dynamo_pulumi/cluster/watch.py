"""A list-then-watch loop per kind, feeding one shared cache the predicates read.

The loop is the standard informer pattern, kept small: list (which gives a resourceVersion),
then watch from it; every event updates the cache and wakes the waiter; a bookmark only moves
the resourceVersion. Every retry waits a full-jitter backoff first (:mod:`.retry`: random in
[0, ceiling), the ceiling doubling from 1 s to 30 s per consecutive failure, a ``Retry-After``
as floor): a 410 Gone (the version fell out of the server's window: list again), a 429 or 5xx,
a truncated or undecodable response, a dropped or timed-out connection. The ceiling starts
small again once a watch delivered events or ran its course. Missing CRD (404 on the list), 401
and 403 are fatal: they will not fix themselves before the deadline, and the user needs to hear
about them at once.

Every request is bounded by the time left before the deadline, and the loop ends at the
deadline, so its thread ends with the wait (threads are not daemons: a daemon thread still
inside a request when the interpreter finalizes aborts the process, exit 134, after a wait that
succeeded). Requests grow with state changes, server-side watch timeouts and failures (at most a
few per second), never with time spent polling.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import Any, Final

from dynamo_pulumi.cluster.api import ApiFailure, ClusterApi, ResourceRef
from dynamo_pulumi.cluster.retry import Backoff, Deadline, Pace
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.readiness._fields import name_of

#: Server-side lifetime of one watch request (the API server closes it; we watch again).
WATCH_SECONDS: Final = 300
#: A watch the server ended cleanly sooner than this, without an event, counts as a failure
#: (a server ending every watch at once would otherwise be asked again without pause).
MIN_WATCH_SECONDS: Final = 5.0
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


@record(frozen=False)
class KindWatch:
    """One informer: keeps ``cache`` current for one kind in one namespace until ``stop`` is set
    or the ``deadline`` passes."""

    api: ClusterApi
    ref: ResourceRef
    namespace: str
    cache: ObjectCache
    stop: threading.Event
    field_selector: str = ""
    label_selector: str = ""
    deadline: Deadline = field(default_factory=lambda: Deadline(Pace(), None))
    #: Set when the loop gave up: the failure the waiter must report.
    fatal: ApiFailure | None = None
    #: True once the first list has been stored (the cache is authoritative for this kind).
    synced: bool = False
    #: The resourceVersion to watch from ("" lists first); follows every event.
    version: str = ""
    #: Every delay slept before a retry, in order (tests and the benchmark read it).
    delays: list[float] = field(default_factory=list, repr=False)
    _received: bool = field(default=False, repr=False)
    _response: Any = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _backoff: Backoff | None = field(default=None, repr=False)

    @property
    def pace(self) -> Pace:
        return self.deadline.pace

    @property
    def backoff(self) -> Backoff:
        if self._backoff is None:
            self._backoff = Backoff(self.pace)
        return self._backoff

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"watch-{self.ref.plural}")
        self._thread.start()

    def close(self) -> None:
        """Ask the loop to end and cut its open watch so it ends now, not at the server timeout."""
        self.stop.set()
        response = self._response
        if response is not None:
            # The stream may already be closed; nothing to clean up then.
            with contextlib.suppress(Exception):
                getattr(response, "shutdown", response.close)()

    def join(self, timeout: float | None = 5.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def pause(self, failure: ApiFailure | None = None) -> bool:
        """Sleep the next backoff delay (never past the deadline); True when the loop must end
        (stopped, or the deadline passed)."""
        delay = self.deadline.bound(self.backoff.next_delay(failure.retry_after if failure else None))
        self.delays.append(delay)
        return self.pace.sleep(delay, self.stop) or self.deadline.passed()

    def list_once(self) -> str:
        """List into the cache; returns the resourceVersion to watch from."""
        listed = self.api.list(self.ref, self.namespace, self.field_selector, self.label_selector,
                               budget=self.deadline.left())
        items = [_with_kind(self.ref, i) for i in listed.get("items") or []]
        self.cache.replace_kind(self.ref, self.namespace, items)
        self.synced = True
        return str((listed.get("metadata") or {}).get("resourceVersion") or "")

    def first_list(self) -> None:
        """The first list, retried (with backoff) on what may pass before the deadline; raises
        the failure when it will not (or the deadline came first)."""
        while True:
            try:
                self.version = self.list_once()
                self.backoff.reset()
                return
            except ApiFailure as failure:
                if not failure.retryable or self.stop.is_set() or self.deadline.passed() or self.pause(failure):
                    raise

    def _run(self) -> None:
        while not self.stop.is_set() and not self.deadline.passed():
            self._received = False
            started = self.pace.clock()
            try:
                if not self.version:
                    self.version = self.list_once()
                self._watch_from()
            except ApiFailure as failure:
                if self.stop.is_set():
                    return  # the waiter closed the stream: its end is no failure
                if failure.status == HTTP_GONE:
                    self.version = ""  # the version fell out of the window: list again (after a pause)
                elif not (failure.retryable or failure.status == 0):
                    self.fatal = failure
                    self.cache.wake()
                    return
                if self._received:
                    self.backoff.reset()  # it worked for a while: the next pause starts small
                if self.pause(failure):
                    return
                continue
            if self._received or self.pace.clock() - started >= MIN_WATCH_SECONDS:
                self.backoff.reset()  # a watch that ran its course: watch again at once
            elif self.pause():
                return

    def _watch_from(self) -> None:
        """One watch request from ``self.version``, which follows every event seen."""
        events = self.api.watch(
            self.ref, self.namespace, self.version, WATCH_SECONDS, self.field_selector, self.label_selector,
            on_open=self._opened, budget=self.deadline.left(),
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
