"""Why a component is not ready, read from its pods and events as ``kubectl describe`` shows it.

The readiness predicates say *that* a component is short of ready replicas; a user whose update
fails needs *why*: no GPU left, a wrong image tag, a crashing engine. The answer is in the pods'
status (scheduling condition, container waiting/terminated states) and in Warning events
(readiness probe failures, failed creates). Pure: pods and events are API-server JSON dicts.

Each finding is a :class:`Problem` keyed by the Kubernetes reason (``Unschedulable``,
``ImagePullBackOff``, ``CrashLoopBackOff``, ``OOMKilled``, ``ReadinessProbeFailed``,
``PersistentVolumeClaimPending``, ...) with the text the user needs (the scheduler's message,
the image, the last exit code). Identical findings on several pods are reported once with the
pod count, most actionable first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness._fields import dig, name_of

UNSCHEDULABLE: Final = "Unschedulable"
PVC_PENDING: Final = "PersistentVolumeClaimPending"
IMAGE_PULL_BACK_OFF: Final = "ImagePullBackOff"
ERR_IMAGE_PULL: Final = "ErrImagePull"
CRASH_LOOP_BACK_OFF: Final = "CrashLoopBackOff"
OOM_KILLED: Final = "OOMKilled"
READINESS_PROBE_FAILED: Final = "ReadinessProbeFailed"
CONTAINER_NOT_READY: Final = "ContainerNotReady"
#: Waiting reasons that are a misconfiguration, not a transient state.
CONFIG_ERRORS: Final = frozenset({"CreateContainerConfigError", "InvalidImageName", "CreateContainerError"})

#: Report order: what blocks first (scheduling) before what happens after (pull, crash, probe).
PRIORITY: Final = (
    PVC_PENDING, UNSCHEDULABLE, "InvalidImageName", ERR_IMAGE_PULL, IMAGE_PULL_BACK_OFF,
    "CreateContainerConfigError", "CreateContainerError", OOM_KILLED, CRASH_LOOP_BACK_OFF,
    READINESS_PROBE_FAILED, CONTAINER_NOT_READY, "FailedCreate",
)


@record
class Problem:
    """One reason a pod (or the workload creating pods) is not ready."""

    reason: str
    text: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.text}" if self.text else self.reason


def _scheduling_problem(pod: Mapping[str, Any]) -> Problem | None:
    for condition in dig(pod, "status", "conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            message = str(condition.get("message", ""))
            if "PersistentVolumeClaim" in message:
                claims = sorted(
                    str(dig(v, "persistentVolumeClaim", "claimName"))
                    for v in dig(pod, "spec", "volumes") or []
                    if dig(v, "persistentVolumeClaim", "claimName")
                )
                return Problem(PVC_PENDING, f"{', '.join(claims) or 'claim'}: {message}".strip())
            return Problem(str(condition.get("reason") or UNSCHEDULABLE), message)
    return None


def _images(pod: Mapping[str, Any]) -> dict[str, str]:
    containers = [*(dig(pod, "spec", "initContainers") or []), *(dig(pod, "spec", "containers") or [])]
    return {str(c.get("name")): str(c.get("image", "")) for c in containers}


def _container_problem(status: Mapping[str, Any], image: str) -> Problem | None:
    name = status.get("name", "")
    waiting = dig(status, "state", "waiting")
    last = dig(status, "lastState", "terminated") or dig(status, "state", "terminated")
    if isinstance(waiting, Mapping):
        reason = str(waiting.get("reason", ""))
        message = str(waiting.get("message", ""))
        if reason in (IMAGE_PULL_BACK_OFF, ERR_IMAGE_PULL):
            return Problem(reason, f"image {status.get('image') or image}" + (f": {message}" if message else ""))
        if reason == CRASH_LOOP_BACK_OFF:
            if isinstance(last, Mapping) and last.get("reason") == OOM_KILLED:
                return Problem(OOM_KILLED, f"container {name} (exit code {last.get('exitCode')})")
            exit_code = last.get("exitCode") if isinstance(last, Mapping) else None
            detail = f" ({last.get('reason')})" if isinstance(last, Mapping) and last.get("reason") else ""
            return Problem(CRASH_LOOP_BACK_OFF, f"container {name} last exit code {exit_code}{detail}")
        if reason in CONFIG_ERRORS:
            return Problem(reason, f"container {name}: {message}".rstrip(": "))
        return None
    if isinstance(last, Mapping) and last.get("reason") == OOM_KILLED:
        return Problem(OOM_KILLED, f"container {name} (exit code {last.get('exitCode')})")
    if dig(status, "state", "running") is not None and status.get("ready") is False:
        return Problem(CONTAINER_NOT_READY, f"container {name} is running but not ready")
    return None


def pod_problems(pod: Mapping[str, Any]) -> list[Problem]:
    """What keeps one pod from being ready (empty for a ready or merely starting pod)."""
    scheduling = _scheduling_problem(pod)
    if scheduling is not None:
        return [scheduling]
    images = _images(pod)
    statuses = [*(dig(pod, "status", "initContainerStatuses") or []), *(dig(pod, "status", "containerStatuses") or [])]
    found = [_container_problem(s, images.get(str(s.get("name")), "")) for s in statuses]
    return [p for p in found if p is not None]


def _probe_failures(events: Iterable[Mapping[str, Any]], pod_names: set[str]) -> dict[str, str]:
    """pod name -> the newest "Readiness probe failed" message among its events."""
    failures: dict[str, str] = {}
    for event in events:
        if event.get("reason") != "Unhealthy" or "Readiness probe" not in str(event.get("message", "")):
            continue
        pod = str(dig(event, "involvedObject", "name") or "")
        if pod in pod_names:
            failures[pod] = str(event.get("message", "")).strip()
    return failures


def _workload_warnings(events: Iterable[Mapping[str, Any]], workload_names: Sequence[str]) -> list[Problem]:
    """Warning events on the workloads themselves (quota exceeded, forbidden pod creates)."""
    problems = []
    for event in events:
        involved = str(dig(event, "involvedObject", "name") or "")
        if event.get("type") == "Warning" and any(involved.startswith(w) for w in workload_names):
            if dig(event, "involvedObject", "kind") in ("Pod",):
                continue
            problems.append(Problem(str(event.get("reason", "Warning")), str(event.get("message", "")).strip()))
    return problems


def _rank(problem: Problem) -> int:
    return PRIORITY.index(problem.reason) if problem.reason in PRIORITY else len(PRIORITY)


def component_problems(
    pods: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]] = (), workload_names: Sequence[str] = ()
) -> list[str]:
    """Distinct problems of one component's pods and workloads, most actionable first.

    A running-but-unready container is reported as a failing readiness probe, with the probe's
    message, when an ``Unhealthy`` event says so.
    """
    probes = _probe_failures(events, {name_of(p) for p in pods})
    counted: dict[Problem, int] = {}
    for pod in pods:
        for problem in pod_problems(pod):
            if problem.reason == CONTAINER_NOT_READY and name_of(pod) in probes:
                problem = Problem(READINESS_PROBE_FAILED, probes[name_of(pod)])
            counted[problem] = counted.get(problem, 0) + 1
    for problem in _workload_warnings(events, workload_names):
        counted.setdefault(problem, 1)
    ordered = sorted(counted, key=lambda p: (_rank(p), p.reason, p.text))
    return [f"{p} ({counted[p]} pods)" if counted[p] > 1 else str(p) for p in ordered]
