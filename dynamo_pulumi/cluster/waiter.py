"""The one waiter behind the readiness resource and ``dynamo-pulumi wait | status``.

Given a :class:`WaitRequest` (what to watch, how long) and a :class:`ClusterApi`, it lists every
watched kind once (a missing CRD, RBAC refusal or unreachable server fails here, in one line),
then starts one :class:`KindWatch` per kind plus one on the graph's pods, and re-judges the graph
on every change with the pure predicates (:mod:`dynamo_pulumi.readiness.status` in render mode,
:mod:`dynamo_pulumi.readiness.operator_mode` in operator mode). Each component whose state
changed gets one progress line. It returns when the graph is ready and raises
:class:`WaitTimeout` (deadline) or :class:`WaitFailed` (a failure the operator will not retry) with
one line per unready component: its current-revision counts and the reasons read from its
workload's state and its current pods and events (docs/READINESS.md).

Time: one deadline bounds everything, the first lists (retried with backoff on 429, 5xx and
truncated answers), every watch request and the watch threads themselves; only the report's one
read of Warning events gets :data:`REPORT_SECONDS` past it. The watch threads are joined before
``wait`` returns or raises, so none is left inside a request when the process ends.

Another thread may :meth:`Waiter.cancel` a wait at any moment (the plugin does on the engine's
Cancel, a dropped call or a signal): the client's connections are cut, the watches stop, and
``wait``/``status`` raise :class:`WaitCancelled` at once with the reason, before or after the
first lists.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.cluster.api import ApiFailure, ClusterApi, ResourceRef
from dynamo_pulumi.cluster.errors import ClusterError, WaitCancelled, WaitFailed, WaitTimeout
from dynamo_pulumi.cluster.retry import Deadline, Pace
from dynamo_pulumi.cluster.watch import KindWatch, ObjectCache
from dynamo_pulumi.floor.constants import KUBE_LABEL_DYNAMO_COMPONENT
from dynamo_pulumi.floor.go_duration import format_go_duration
from dynamo_pulumi.readiness.object_status import ObjectState
from dynamo_pulumi.readiness.operator_mode import operator_status
from dynamo_pulumi.readiness.reasons import component_problems
from dynamo_pulumi.readiness.revisions import current_pods
from dynamo_pulumi.readiness.status import ComponentState, GraphStatus, changed_components, render_status
from dynamo_pulumi.readiness.targets import WaitRequest

POD: Final = ResourceRef("v1", "Pod")
EVENT: Final = ResourceRef("v1", "Event")
#: The reasons read only Warning events; at most this many are read (a namespace may hold tens
#: of thousands of events: reading them all cost 258 MiB).
EVENT_SELECTOR: Final = "type=Warning"
EVENT_LIMIT: Final = 500
#: Seconds the timeout report may spend reading events after the deadline.
REPORT_SECONDS: Final = 5.0
#: Seconds ``status`` (one read, no wait) may spend retrying 429/5xx answers.
STATUS_SECONDS: Final = 30.0
#: Seconds ``wait`` waits for its watch threads to end after closing them (each request is
#: bounded by the deadline, so they end by then anyway).
JOIN_SECONDS: Final = 3.0

Progress = Callable[[str], None]


def _fatal(ref: ResourceRef, namespace: str, failure: ApiFailure) -> ClusterError:
    """The one-line error for a request that will not succeed by waiting."""
    if failure.status == 404:
        return ClusterError(f"{ref} is not served by this cluster: is its CRD (or operator) installed?")
    if failure.status == 403:
        return ClusterError(f"forbidden: cannot list {ref.plural} in namespace {namespace!r}: {failure.message}")
    if failure.status == 401:
        return ClusterError(f"unauthorized: the API server rejected the credentials: {failure.message}")
    return ClusterError(failure.message if failure.status == 0 else f"listing {ref.plural}: HTTP {failure.status}: {failure.message}")


class Waiter:
    """Watches one graph. ``clock`` (or a whole :class:`Pace`: clock, sleep, random) and
    ``progress`` are injectable for tests and the CLI. ``deadline_by`` says, in the timeout's
    headline, what set the deadline when more than one thing could have (the plugin: the
    engine's per-operation timeout or ``timeout_seconds``)."""

    def __init__(
        self, api: ClusterApi, request: WaitRequest, progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic, pace: Pace | None = None, deadline_by: str = "",
    ) -> None:
        self.api = api
        self.request = request
        self.progress = progress or (lambda line: None)
        self.pace = pace or Pace(clock=clock)
        self.clock = self.pace.clock
        self.deadline_by = deadline_by
        self.cache = ObjectCache()
        self._stop = threading.Event()
        self._watches = [self._watch_of(ref, selector) for ref, selector in self._kinds()]
        self._pods = self._pod_watch()
        #: Why the wait was cancelled (None while it is not), set by :meth:`cancel`.
        self.cancelled: str | None = None
        self._started = self.clock()

    # --- what to watch ---------------------------------------------------------------------------

    def _kinds(self) -> list[tuple[ResourceRef, str]]:
        """(kind, field selector) per watched kind; a lone target is watched by name."""
        by_kind: dict[ResourceRef, list[str]] = {}
        for target in self.request.targets:
            by_kind.setdefault(ResourceRef(target.api_version, target.kind), []).append(target.name)
        return [(ref, f"metadata.name={names[0]}" if len(names) == 1 else "") for ref, names in by_kind.items()]

    def _watch_of(self, ref: ResourceRef, field_selector: str) -> KindWatch:
        return KindWatch(self.api, ref, self.request.namespace, self.cache, self._stop, field_selector=field_selector)

    def _pod_watch(self) -> KindWatch:
        return KindWatch(self.api, POD, self.request.namespace, self.cache, self._stop,
                         label_selector=self.request.pod_selector)

    # --- judging -----------------------------------------------------------------------------------

    def evaluate(self) -> GraphStatus:
        if self.request.mode == "operator":
            target = self.request.targets[0]
            return operator_status(target.kind, self.cache.get(target.api_version, target.kind, target.namespace, target.name))
        return render_status(self.request.targets, self.cache)

    def _workload_of(self, state: ComponentState) -> dict[str, Any] | None:
        """The live workload behind a component (None in operator mode: the operator owns them)."""
        for target in self.request.targets:
            if target.component == state.component and target.kind == state.kind and target.name in state.names:
                return self.cache.get(target.api_version, target.kind, target.namespace, target.name)
        return None

    def _pods_of(self, state: ComponentState) -> list[dict[str, Any]]:
        """The component's pods of its workload's current revision (an old pod's problem is not
        the new generation's)."""
        pods = self.cache.of_kind(POD.api_version, POD.kind, self.request.namespace)
        label = KUBE_LABEL_DYNAMO_COMPONENT
        mine = [p for p in pods if ((p.get("metadata") or {}).get("labels") or {}).get(label) == state.component]
        return [dict(p) for p in current_pods(state.kind, self._workload_of(state), mine)]

    def why(self, state: ComponentState, events: Sequence[Mapping[str, Any]] = ()) -> str:
        """Why a component is not ready: a failing or terminating workload's own reason first, then
        its current pods' and events' problems, else the words of its state or verdict."""
        if state.ready:
            return ""
        problems = component_problems(self._pods_of(state), events, state.names)
        reason = state.reason()
        if state.status.state in (ObjectState.FAILED, ObjectState.TERMINATING, ObjectState.NOT_FOUND):
            problems = [reason, *problems]
        return "; ".join(problems) or reason

    def line(self, state: ComponentState, events: Sequence[Mapping[str, Any]] = ()) -> str:
        """``decode: 0/2 ready (Deployment d: 2 updated, 0 available of 2): Unschedulable: ...``
        (or ``decode: 2/2 ready``)."""
        why = self.why(state, events)
        return f"{state.summary()}: {why}" if why else state.summary()

    def _events(self, status: GraphStatus) -> list[dict[str, Any]]:
        """The namespace's events, read once and only when some component needs explaining."""
        if not status.not_ready():
            return []
        try:
            listed = self.api.list(EVENT, self.request.namespace, field_selector=EVENT_SELECTOR, limit=EVENT_LIMIT,
                                   budget=REPORT_SECONDS)
            return list(listed.get("items") or [])
        except ApiFailure:
            return []  # reasons from pods alone are still worth printing

    def reasons(self, status: GraphStatus) -> dict[str, str]:
        """component -> why it is not ready (``dynamo-pulumi status``'s reason column)."""
        events = self._events(status)
        return {state.component: self.why(state, events) for state in status.not_ready()}

    def explain(self, status: GraphStatus) -> list[str]:
        """One :meth:`line` per unready component (the graph's own message when none is listed)."""
        events = self._events(status)
        lines = [self.line(state, events) for state in status.not_ready()]
        if not lines and not status.is_ready:
            lines.append(self._graph_line(status))
        return lines

    def _graph_line(self, status: GraphStatus) -> str:
        """The graph's own reason, for a graph with no component to blame (operator mode before
        the operator listed any): ``llm: failed_to_reconcile_the_resources: <its message>``."""
        ready = status.ready
        text = f"{ready.reason}: {ready.message}" if ready.reason and ready.message else ready.message or ready.reason
        return f"{self.request.graph}: {text}"

    # --- one shot ----------------------------------------------------------------------------------

    def sync(self) -> None:
        """List every watched kind once, pods included; failures are one-line ClusterErrors."""
        self._list([*self._watches, self._pods], Deadline.after(self.pace, STATUS_SECONDS))

    def _list(self, watches: Sequence[KindWatch], deadline: Deadline) -> None:
        """One list per watch (its cache filled, the resourceVersion to watch from kept),
        retried within ``deadline`` on answers that may pass."""
        for watch in watches:
            watch.deadline = deadline
            try:
                self._check_cancelled()
                watch.first_list()
            except ApiFailure as failure:
                self._check_cancelled()
                raise _fatal(watch.ref, self.request.namespace, failure) from None

    # --- cancelling --------------------------------------------------------------------------------

    def cancel(self, reason: str) -> None:
        """End the wait from any thread: cut the client's connections, stop the watches, wake the
        loop; ``wait``/``status`` then raise :class:`WaitCancelled` with ``reason``."""
        if self.cancelled is not None:
            return
        self.cancelled = reason
        self._stop.set()
        self.api.abort()
        for watch in (*self._watches, self._pods):
            watch.close()
        self.cache.wake()

    def _check_cancelled(self) -> None:
        if self.cancelled is not None:
            elapsed = format_go_duration(max(0, round(self.clock() - self._started)))
            raise WaitCancelled(f"{self.request.label}: cancelled after {elapsed}: {self.cancelled}")

    def status(self) -> GraphStatus:
        """The graph's status now, without waiting (``dynamo-pulumi status``, ``pulumi refresh``)."""
        self.sync()
        return self.evaluate()

    # --- waiting -----------------------------------------------------------------------------------

    def wait(self) -> GraphStatus:
        """Block until ready; raise WaitTimeout / WaitFailed / ClusterError otherwise."""
        deadline = Deadline.after(self.pace, self.request.timeout_seconds)
        watches = [*self._watches, self._pods]
        try:
            self._list(watches, deadline)
        except ClusterError as error:
            if not deadline.passed():
                raise
            # retried until the deadline (a hung or failing server): the deadline ended the wait
            raise WaitTimeout(f"{self.request.label} {self._headline()}: {error}") from None
        try:
            for watch in watches:
                watch.start()
            return self._loop(deadline, watches)
        finally:
            self._shutdown(watches)

    def _shutdown(self, watches: Sequence[KindWatch]) -> None:
        """Close every watch (cutting open streams) and join the threads, within
        :data:`JOIN_SECONDS` in all (a thread still inside a request ends with that request,
        whose timeout the deadline bounds)."""
        for watch in watches:
            watch.close()
        end = time.monotonic() + JOIN_SECONDS
        for watch in watches:
            watch.join(max(0.0, end - time.monotonic()))

    def _loop(self, deadline: Deadline, watches: Iterable[KindWatch]) -> GraphStatus:
        previous: GraphStatus | None = None
        with self.cache.changed:
            while True:
                self._check_cancelled()
                seen = self.cache.version
                status = self.evaluate()
                for state in changed_components(previous, status):
                    self.progress(self.line(state))
                if not status.components and not status.is_ready and (previous is None or previous.ready != status.ready):
                    self.progress(self._graph_line(status))
                previous = status
                if status.is_ready:
                    return status
                if status.terminal:
                    raise WaitFailed(self._report(f"failed: {status.terminal}", status))
                for watch in watches:
                    if watch.fatal is not None:
                        raise _fatal(watch.ref, self.request.namespace, watch.fatal)
                remaining = deadline.left() or 0.0
                if remaining <= 0:
                    raise WaitTimeout(self._report(self._headline(), status))
                if self.cache.version == seen:
                    self.cache.changed.wait(timeout=min(remaining, 60.0))

    def _headline(self) -> str:
        """``not ready after 30s`` (and what set the deadline, when the caller said)."""
        by = f" ({self.deadline_by})" if self.deadline_by else ""
        return f"not ready after {format_go_duration(self.request.timeout_seconds)}{by}"

    def _report(self, headline: str, status: GraphStatus) -> str:
        lines = self.explain(status)
        return f"{self.request.label} {headline}:\n" + "\n".join(f"  {line}" for line in lines)
