"""The same multinode graph in render mode on Grove, a Grove operator binary running (skipped
without ``GROVE_OPERATOR_BIN``: the module proxy serves no Grove): ``pulumi up`` returns once
Grove itself calls every clique and scaling group ready, and our verdict per object, sampled
through the rollout, a scale up and down of the scaling group, a stuck pod and a deleted pod,
agrees with Grove's own status or is stricter, never looser.
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
KINDS = {"PodClique": "podcliques", "PodCliqueScalingGroup": "podcliquescalinggroups"}


def _items(cluster: LocalCluster, namespace: str, resource: str) -> list[dict]:
    return json.loads(cluster.kubectl("get", resource, "-n", namespace, "-o", "json"))["items"]


def test_grove_readiness_agrees_with_grove(engine: Engine, cluster: LocalCluster, grove_controller: Controller,
                                           namespace: str, tmp_path: Path):
    root = root_project(tmp_path / "root")
    def targets() -> list[tuple[str, str]]:
        return [(k, i["metadata"]["name"]) for k, r in KINDS.items() for i in _items(cluster, namespace, r)]

    def all_ready() -> bool:
        found = [(k, i) for k, r in KINDS.items() for i in _items(cluster, namespace, r)]
        return bool(found) and all(CONTROLLER_SAYS[k](i) for k, i in found)

    config = {"dynamo-pulumi:namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig),
              "dynamo-pulumi:graph": str(FIXTURES / "multinode-vllm.yaml"),
              "dynamo-pulumi:platform": str(FIXTURES / "platform-grove.yaml"), "dynamo-pulumi:timeout": "4m"}
    with Sampler(cluster, namespace, targets, record_as="grove") as sampler:
        run_project(engine, "up", root, config=config)
        assert all_ready(), "pulumi up returned before Grove called every clique and scaling group ready"
        (pcsg,) = _items(cluster, namespace, "podcliquescalinggroups")
        name = pcsg["metadata"]["name"]

        def scale(replicas: int) -> None:
            cluster.kubectl("scale", "podcliquescalinggroup", name, "-n", namespace, f"--replicas={replicas}")

        sampler.phase = "scale up"
        scale(2)
        cliques = lambda: len(_items(cluster, namespace, "podcliques"))  # noqa: E731
        sampler.wait("two ready scaling-group replicas", lambda: all_ready() and cliques() == 5, timeout=120)
        sampler.phase = "scale down"
        scale(1)
        sampler.wait("one scaling-group replica", lambda: all_ready() and cliques() == 3, timeout=120)

        sampler.phase = "stuck pod"
        pcs = _items(cluster, namespace, "podcliquesets")[0]
        cliques = pcs["spec"]["template"]["cliques"]
        index = next(i for i, c in enumerate(cliques) if c["name"].endswith("wkr"))
        patch = [{"op": "add", "path": f"/spec/template/cliques/{index}/annotations",
                  "value": {**(cliques[index].get("annotations") or {}), POD_READY_DELAY_ANNOTATION: "1h"}}]
        cluster.kubectl("patch", "pcs", pcs["metadata"]["name"], "-n", namespace, "--type=json", "-p", json.dumps(patch))
        sampler.wait("samples of the stuck clique", lambda: sum(s.phase == "stuck pod" and not s.theirs
                                                                 for s in sampler.samples) > 12, timeout=120)
        patch[0]["value"] = cliques[index].get("annotations") or {}
        cluster.kubectl("patch", "pcs", pcs["metadata"]["name"], "-n", namespace, "--type=json", "-p", json.dumps(patch))
        sampler.wait("the clique to recover", all_ready, timeout=120)

        sampler.phase = "deletion"
        pod = next(p["metadata"]["name"] for p in _items(cluster, namespace, "pods") if "wkr" in p["metadata"]["name"])
        cluster.kubectl("delete", "pod", pod, "-n", namespace, "--wait=false")
        sampler.wait("samples after the deletion", lambda: sum(s.phase == "deletion" for s in sampler.samples) > 12)
        sampler.wait("the pod to be replaced", all_ready, timeout=120)

    table = sampler.table()
    sys.stderr.write("\n[readiness] " + json.dumps({f"{k}/{p}": dict(c) for (k, p), c in sorted(table.items())}) + "\n")
    looser = [s for s in sampler.samples if s.ours and not s.theirs]
    assert not looser, f"we called ready what Grove did not: {looser[:5]}"
    phases = {p for (_, p) in table}
    assert phases == {"rollout", "scale up", "scale down", "stuck pod", "deletion"}
