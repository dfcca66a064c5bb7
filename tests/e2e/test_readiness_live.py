"""Our per-object verdict against the real Deployment controller and kubectl, sampled live.

One Deployment goes through what a graph's worker goes through: a first rollout, an update (new
pod template, so a new ReplicaSet), a scale to zero, a rollout that cannot progress (a GPU
product no node has, with a short ``progressDeadlineSeconds``) and a deletion. A sampler reads
the Deployment and its ReplicaSets from the API server and runs the real ``kubectl rollout status
--watch=false`` (built from the same Kubernetes release) against the same object, about every
0.3 s; a sample counts only if the Deployment and the ReplicaSet list did not change while it
was taken, so both judges saw the same objects.

Agreement rules (docs/READINESS.md): we may be *stricter* than kubectl (kstatus also waits for
``Progressing=NewReplicaSetAvailable``; pulumi-kubernetes for the active ReplicaSet), never more
lenient: a sample where we say Current and kubectl says the rollout is not done is a failure.
A ProgressDeadlineExceeded that kubectl reports must be our Failed with Kubernetes' reason.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dynamo_pulumi.readiness.object_status import ObjectState, active_replica_set, deployment_status
from localcluster.cluster import POD_READY_DELAY_ANNOTATION, LocalCluster

NAME = "worker"


def _deployment(namespace: str, image: str, replicas: int = 2, product: str | None = None,
                deadline: int = 600) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": image,
                                            "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
    if product:
        spec["nodeSelector"] = {"nvidia.com/gpu.product": product}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": namespace},
        "spec": {
            "replicas": replicas, "progressDeadlineSeconds": deadline,
            "selector": {"matchLabels": {"app": NAME}},
            "template": {"metadata": {"labels": {"app": NAME},
                                      "annotations": {POD_READY_DELAY_ANNOTATION: "2s"}}, "spec": spec},
        },
    }


@dataclass
class Sample:
    t: float
    phase: str
    ours: ObjectState
    ours_without_rs: ObjectState
    reason: str
    kubectl_done: bool
    kubectl_failed: bool
    kubectl_text: str


@dataclass
class Sampler:
    cluster: LocalCluster
    namespace: str
    phase: str = "create"
    samples: list[Sample] = field(default_factory=list)
    discarded: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _read(self) -> tuple[dict[str, Any] | None, list[dict[str, Any]], str]:
        base = f"/apis/apps/v1/namespaces/{self.namespace}"
        code, dep = self.cluster.request("GET", f"{base}/deployments/{NAME}")
        _, rs = self.cluster.request("GET", f"{base}/replicasets")
        version = (dep.get("metadata", {}).get("resourceVersion", "") if code == 200 else "absent") + "/" + \
            str(rs.get("metadata", {}).get("resourceVersion", ""))
        return (dep if code == 200 else None), list(rs.get("items", [])), version

    def _kubectl(self) -> tuple[bool, bool, str]:
        r = subprocess.run([str(self.cluster.tools.program("kubectl")), f"--kubeconfig={self.cluster.kubeconfig}",
                            "rollout", "status", f"deployment/{NAME}", "-n", self.namespace, "--watch=false"],
                           capture_output=True, text=True, timeout=30, check=False)
        text = (r.stdout + r.stderr).strip()
        return r.returncode == 0 and "successfully rolled out" in text, "exceeded its progress deadline" in text, text

    def sample(self) -> None:
        phase, start = self.phase, time.monotonic()
        dep, rss, before = self._read()
        done, failed, text = self._kubectl()
        _, _, after = self._read()
        if before != after:
            self.discarded += 1
            return
        ours = deployment_status(dep, rss)
        self.samples.append(Sample(start, phase, ours.state, deployment_status(dep).state,
                                   ours.reason, done, failed, text))

    def run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(0.05)

    def stop(self) -> None:
        self._stop.set()


@dataclass
class EventChecker:
    """Every Deployment event, as a watch delivers it: whenever the verdict of the Deployment
    alone (what the waiter judges) says Current, the ReplicaSet of its revision must already exist
    and be available. That is pulumi-kubernetes' cross-check; its await tests feed a moment where
    the counts look complete before the new ReplicaSet is listed. Here the real controller feeds
    the events, and every such moment is counted."""

    cluster: LocalCluster
    namespace: str
    current_events: int = 0
    gaps: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        version = ""
        while not self._stop.is_set():  # short watches, resumed, so the thread ends soon after stop
            query = urllib.parse.urlencode({"watch": "true", "fieldSelector": f"metadata.name={NAME}",
                                            "timeoutSeconds": "2", "resourceVersion": version})
            for event in self.cluster.stream(f"/apis/apps/v1/namespaces/{self.namespace}/deployments?{query}"):
                dep = event.get("object") or {}
                version = dep.get("metadata", {}).get("resourceVersion", version)
                if event.get("type") in ("ADDED", "MODIFIED"):
                    self._check(dep)

    def _check(self, dep: dict[str, Any]) -> None:
        if deployment_status(dep).state is not ObjectState.CURRENT:
            return
        self.current_events += 1
        _, rs = self.cluster.request("GET", f"/apis/apps/v1/namespaces/{self.namespace}/replicasets")
        active = active_replica_set(dep, rs.get("items", []))
        wanted = (active or {}).get("spec", {}).get("replicas", 1)
        if active is None or (active.get("status", {}).get("availableReplicas") or 0) < wanted:
            self.gaps.append(f"revision {dep['metadata'].get('annotations', {})}: active ReplicaSet {active}")

    def stop(self) -> None:
        self._stop.set()


def _phase(sampler: Sampler, name: str, change, reached, timeout: float = 90.0) -> None:
    """Make a change, then wait for a sample taken wholly after it that satisfies ``reached``."""
    sampler.phase = name
    start = time.monotonic()
    change()
    deadline = start + timeout
    while time.monotonic() < deadline:
        mine = [s for s in sampler.samples if s.phase == name and s.t > start]
        if mine and reached(mine[-1]):
            return
        time.sleep(0.1)
    raise AssertionError(f"phase {name}: never reached; last samples: {sampler.samples[-3:]}")


def test_our_deployment_verdict_agrees_with_kubectl_through_a_workers_life(cluster: LocalCluster, namespace: str):
    sampler = Sampler(cluster, namespace)
    checker = EventChecker(cluster, namespace)
    thread = threading.Thread(target=sampler.run, daemon=True)
    watcher = threading.Thread(target=checker.run, daemon=True)
    thread.start()
    watcher.start()
    complete = lambda s: s.kubectl_done and s.ours is ObjectState.CURRENT  # noqa: E731
    try:
        _phase(sampler, "create", lambda: cluster.apply([_deployment(namespace, "vllm:1")]), complete)
        _phase(sampler, "update", lambda: cluster.apply([_deployment(namespace, "vllm:2")]), complete)
        _phase(sampler, "scale-to-zero",
               lambda: cluster.kubectl("scale", f"deployment/{NAME}", "-n", namespace, "--replicas=0"), complete)
        _phase(sampler, "stuck", lambda: cluster.apply([_deployment(namespace, "vllm:3", product="NVIDIA-B200",
                                                                    deadline=5)]),
               lambda s: s.kubectl_failed, timeout=60)
        _phase(sampler, "delete",
               lambda: cluster.kubectl("delete", f"deployment/{NAME}", "-n", namespace, "--wait=false",
                                       "--cascade=foreground"),
               lambda s: s.ours is ObjectState.NOT_FOUND, timeout=60)
    finally:
        sampler.stop()
        checker.stop()
        thread.join(timeout=30)
        watcher.join(timeout=30)

    samples = sampler.samples
    table = Counter((s.phase, s.ours.value, "done" if s.kubectl_done else "failed" if s.kubectl_failed else "waiting")
                    for s in samples)
    print("\nphase, ours, kubectl: samples")
    for key, n in sorted(table.items()):
        print(f"  {key}: {n}")
    print(f"discarded (object changed during the sample): {sampler.discarded}")
    lenient = [s for s in samples if s.ours is ObjectState.CURRENT and not s.kubectl_done]
    assert lenient == [], f"we said Current while kubectl said the rollout is not done: {lenient[:3]}"
    lenient_without_rs = [s for s in samples if s.ours_without_rs is ObjectState.CURRENT and not s.kubectl_done]
    print(f"samples where the verdict without ReplicaSets says Current but kubectl does not: {len(lenient_without_rs)}")
    print(f"watch events where the Deployment alone says Current: {checker.current_events}, "
          f"of which the active ReplicaSet was missing or unavailable: {len(checker.gaps)}")
    assert checker.current_events >= 3
    assert checker.gaps == [], checker.gaps
    failed = [s for s in samples if s.kubectl_failed]
    assert failed, "the stuck rollout never reached its progress deadline"
    assert all(s.ours is ObjectState.FAILED and s.reason == "ProgressDeadlineExceeded" for s in failed), failed[:3]
    stricter = [s for s in samples if s.kubectl_done and s.ours is not ObjectState.CURRENT]
    print(f"samples where we are stricter than kubectl: {len(stricter)} "
          f"({Counter(s.reason or s.ours.value for s in stricter)})")
    assert {s.phase for s in samples} == {"create", "update", "scale-to-zero", "stuck", "delete"}
    deleting = [s for s in samples if s.phase == "delete"]
    assert all(s.ours in (ObjectState.TERMINATING, ObjectState.NOT_FOUND) and not s.kubectl_done
               for s in deleting[1:]), deleting
    _ = json  # kept for debugging dumps of samples
