"""Our readiness verdict beside the controller's own, sampled on live objects while things change.

A sampler thread reads each watched workload a few times a second and judges every read twice:
our render-mode verdict (what ``pulumi up`` waits for: the operator's predicate and the object's
rollout state, ``readiness.status.render_status``) and the verdict of the controller that owns
the object, from the status it writes itself. Both come from the same read, so a difference is a
difference of rules, never of timing. The rules we keep stricter on purpose (docs/READINESS.md)
show as "ours not ready, controller ready"; the other way round would be a wait that returns
while the controller still says no.

With ``DYNAMO_READINESS_RECORD=<dir>`` a sampler named ``record_as`` also keeps every distinct
version of the objects it read, with the phase, and writes them to ``<dir>/<record_as>.yaml`` when
it stops: what a controller CI cannot run wrote, kept as test data
(``tests/fixtures/readiness_recordings/``, replayed by ``tests/test_readiness_recorded.py``).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from oracle_readiness import judge_workload

from localcluster.cluster import LocalCluster

PATHS = {
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "LeaderWorkerSet": "/apis/leaderworkerset.x-k8s.io/v1/namespaces/{ns}/leaderworkersets/{name}",
    "PodClique": "/apis/grove.io/v1alpha1/namespaces/{ns}/podcliques/{name}",
    "PodCliqueScalingGroup": "/apis/grove.io/v1alpha1/namespaces/{ns}/podcliquescalinggroups/{name}",
}


def condition(obj: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return c
    return None


def _observed(obj: Mapping[str, Any]) -> bool:
    status = obj.get("status") or {}
    return int(status.get("observedGeneration") or 0) >= int(obj["metadata"].get("generation") or 0)


def deployment_says_ready(obj: Mapping[str, Any]) -> bool:
    """The Deployment controller's "rollout complete": the generation observed, Available, and
    Progressing with reason NewReplicaSetAvailable (written once the new ReplicaSet is available)."""
    progressing, available = condition(obj, "Progressing"), condition(obj, "Available")
    return (_observed(obj) and bool(available) and available.get("status") == "True" and bool(progressing)
            and progressing.get("reason") == "NewReplicaSetAvailable"
            and (obj.get("status") or {}).get("replicas", 0) == obj["spec"].get("replicas", 1))


def lws_says_ready(obj: Mapping[str, Any]) -> bool:
    """The LWS controller's ``Available`` condition (it writes it when all groups are ready)."""
    available = condition(obj, "Available")
    return bool(available) and available.get("status") == "True" and _observed(obj)


def clique_says_ready(obj: Mapping[str, Any]) -> bool:
    """Grove's own status of a clique or scaling group: the generation observed, every replica
    ready (PodClique) or available (PCSG), and the ``MinAvailableBreached`` condition false."""
    status = obj.get("status") or {}
    want = int(obj["spec"].get("replicas", 1))
    have = status.get("readyReplicas" if obj["kind"] == "PodClique" else "availableReplicas", 0)
    breached = condition(obj, "MinAvailableBreached")
    return _observed(obj) and have == want and (breached is None or breached.get("status") == "False")


CONTROLLER_SAYS: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "Deployment": deployment_says_ready, "LeaderWorkerSet": lws_says_ready,
    "PodClique": clique_says_ready, "PodCliqueScalingGroup": clique_says_ready,
}


RECORD_ENV = "DYNAMO_READINESS_RECORD"


@dataclass
class Sample:
    t: float
    kind: str
    name: str
    ours: bool
    theirs: bool
    phase: str


@dataclass
class Sampler:
    """Reads the workloads ``targets()`` lists (kind, name) until stopped, recording both verdicts."""

    cluster: LocalCluster
    namespace: str
    targets: Callable[[], list[tuple[str, str]]]
    interval: float = 0.25
    samples: list[Sample] = field(default_factory=list)
    phase: str = "rollout"
    #: The recording's name (``DYNAMO_READINESS_RECORD``); "" records nothing.
    record_as: str = ""
    versions: list[dict[str, Any]] = field(default_factory=list)
    _seen: set[tuple[Any, ...]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        folder = os.environ.get(RECORD_ENV)
        if folder and self.record_as:
            Path(folder).mkdir(parents=True, exist_ok=True)
            (Path(folder) / f"{self.record_as}.yaml").write_text(
                yaml.safe_dump({"versions": self.versions}, sort_keys=True, width=160))

    def _keep(self, obj: dict[str, Any]) -> None:
        """One distinct version of an object (by resourceVersion) per phase, without server bookkeeping."""
        meta = obj.get("metadata") or {}
        key = (self.phase, obj.get("kind"), meta.get("name"), meta.get("resourceVersion"))
        if key in self._seen:
            return
        self._seen.add(key)
        kept = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
        self.versions.append({"phase": self.phase, "object": kept})

    def _run(self) -> None:
        while not self._stop.is_set():
            for kind, name in self.targets():
                status, obj = self.cluster.request("GET", PATHS[kind].format(ns=self.namespace, name=name))
                if status != 200 or not isinstance(obj, dict):
                    continue
                ours = judge_workload(obj, component=name).ready
                self.samples.append(Sample(time.monotonic(), kind, name, ours, CONTROLLER_SAYS[kind](obj), self.phase))
                if self.record_as and os.environ.get(RECORD_ENV):
                    self._keep(obj)
            time.sleep(self.interval)

    def wait(self, what: str, predicate: Callable[[], bool], timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.2)

    def wait_agreed_ready(self, kind: str, timeout: float = 30.0) -> None:
        """Until a sample of this phase has ``kind`` ready by both verdicts: the controller's
        ready condition can come and the next phase begin between two samples, and a phase
        without such a sample would not show that we call ready what the controller does."""
        phase = self.phase
        self.wait(f"a sample of {kind} ready by both in phase {phase}",
                  lambda: any(s.phase == phase and s.kind == kind and s.ours and s.theirs for s in self.samples),
                  timeout)

    def table(self) -> dict[tuple[str, str], Counter[str]]:
        """(kind, phase) -> counts of agree-ready, agree-not-ready, stricter (ours not ready,
        controller ready) and looser (ours ready, controller not)."""
        out: dict[tuple[str, str], Counter[str]] = {}
        for s in self.samples:
            key = "agree-ready" if s.ours and s.theirs else "agree-not-ready" if not (s.ours or s.theirs) else \
                "stricter" if s.theirs else "looser"
            out.setdefault((s.kind, s.phase), Counter())[key] += 1
        return out
