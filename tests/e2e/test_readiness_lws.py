"""A multinode graph in render mode on LeaderWorkerSet, the real LWS controller running: ``pulumi up``
waits until the controllers themselves say ready, and our verdict on each workload, sampled
through the rollout, a scale up and down, a stuck pod and a deleted leader, agrees with the
controller's own status (or is stricter where docs/READINESS.md says so, never looser).

One ``pulumi up`` (the root program with the test graph and an LWS platform); the later changes
are made to the live objects with kubectl, as an HPA, a planner or a node failure would.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from e2e.readiness_sampling import CONTROLLER_SAYS, Sampler
from e2e.support import root_project, run_project
from localcluster.cluster import POD_READY_DELAY_ANNOTATION, LocalCluster
from localcluster.engine import Engine
from localcluster.operators import Controller
from localcluster.tools import REPO

FIXTURES = REPO / "tests" / "fixtures" / "e2e"


def _names(cluster: LocalCluster, namespace: str, resource: str) -> list[str]:
    items = json.loads(cluster.kubectl("get", resource, "-n", namespace, "-o", "json"))["items"]
    return [i["metadata"]["name"] for i in items]


def _get(cluster: LocalCluster, namespace: str, resource: str, name: str) -> dict:
    return json.loads(cluster.kubectl("get", resource, name, "-n", namespace, "-o", "json"))


def test_lws_readiness_agrees_with_the_controllers(engine: Engine, cluster: LocalCluster,
                                                   lws_controller: Controller, namespace: str, tmp_path: Path):
    root = root_project(tmp_path / "root")
    workloads: list[tuple[str, str]] = []

    def targets() -> list[tuple[str, str]]:
        if len(workloads) < 2:
            workloads[:] = [("Deployment", n) for n in _names(cluster, namespace, "deployments")] + \
                           [("LeaderWorkerSet", n) for n in _names(cluster, namespace, "lws")]
        return list(workloads)

    config = {"dynamo-pulumi:namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig),
              "dynamo-pulumi:graph": str(FIXTURES / "multinode-vllm.yaml"),
              "dynamo-pulumi:platform": str(FIXTURES / "platform-lws.yaml"), "dynamo-pulumi:timeout": "4m"}
    with Sampler(cluster, namespace, targets) as sampler:
        run_project(engine, "up", root, config=config)
        (lws,) = _names(cluster, namespace, "lws")
        for kind, name in targets():
            assert CONTROLLER_SAYS[kind](_get(cluster, namespace, kind.lower() + "s", name)), \
                f"pulumi up returned before the {kind} controller called {name} ready"
        sampler.wait_agreed_ready("LeaderWorkerSet")

        def lws_ready(groups: int) -> bool:
            obj = _get(cluster, namespace, "lws", lws)
            return CONTROLLER_SAYS["LeaderWorkerSet"](obj) and obj["status"].get("readyReplicas") == groups

        def patch(body: dict) -> None:
            cluster.kubectl("patch", "lws", lws, "-n", namespace, "--type=merge", "-p", json.dumps(body))

        sampler.phase = "scale up"
        patch({"spec": {"replicas": 2}})
        sampler.wait("two ready groups", lambda: lws_ready(2))
        sampler.wait_agreed_ready("LeaderWorkerSet")

        sampler.phase = "scale down"
        patch({"spec": {"replicas": 1}})
        sampler.wait("one ready group", lambda: lws_ready(1) and len(_names(cluster, namespace, "pods")) == 3)
        sampler.wait_agreed_ready("LeaderWorkerSet")

        sampler.phase = "stuck pod"
        stuck = {"metadata": {"annotations": {POD_READY_DELAY_ANNOTATION: "1h"}}}
        patch({"spec": {"leaderWorkerTemplate": {"workerTemplate": stuck}}})

        def held() -> bool:
            pods = json.loads(cluster.kubectl("get", "pods", "-n", namespace, "-o", "json"))["items"]
            return any(POD_READY_DELAY_ANNOTATION in (p["metadata"].get("annotations") or {}) and
                       p.get("status", {}).get("phase") for p in pods)

        sampler.wait("a worker pod held back by kwok", held)
        sampler.wait("samples of the stuck group", lambda: sum(s.phase == "stuck pod" for s in sampler.samples) > 12)
        patch({"spec": {"leaderWorkerTemplate": {"workerTemplate": {"metadata": {"annotations": {
            POD_READY_DELAY_ANNOTATION: None}}}}}})
        sampler.wait("the group to recover", lambda: lws_ready(1))
        sampler.wait_agreed_ready("LeaderWorkerSet")

        sampler.phase = "deletion"
        leader = next(n for n in _names(cluster, namespace, "pods") if n == f"{lws}-0")
        cluster.kubectl("delete", "pod", leader, "-n", namespace, "--wait=false")
        sampler.wait("the group to be recreated", lambda: lws_ready(1) and
                     _get(cluster, namespace, "pods", leader)["metadata"].get("uid") is not None)
        sampler.wait("samples after the deletion", lambda: sum(s.phase == "deletion" for s in sampler.samples) > 12)
        sampler.wait_agreed_ready("LeaderWorkerSet")

    table = sampler.table()
    sys.stderr.write("\n[readiness] " + json.dumps({f"{k}/{p}": dict(c) for (k, p), c in sorted(table.items())}) + "\n")
    looser = [s for s in sampler.samples if s.ours and not s.theirs]
    assert not looser, f"we called ready what the controller did not: {looser[:5]}"
    lws_phases = {p: c for (k, p), c in table.items() if k == "LeaderWorkerSet"}
    assert set(lws_phases) == {"rollout", "scale up", "scale down", "stuck pod", "deletion"}
    assert lws_phases["stuck pod"]["agree-not-ready"] > 0 and lws_phases["scale up"]["agree-not-ready"] > 0
    assert all(c["agree-ready"] > 0 for c in lws_phases.values())
