"""The engine agrees with ``dynamo-pulumi diff``, and a worker replacement never stops serving.

One stack (tests/e2e/programs/graphs: the aggregated, multinode-Grove and disaggregated-planner
example graphs side by side in one namespace) is deployed once. Two changed versions of it are
then previewed by the real engine (``preview --diff``, its events) and diffed offline
(``dynamo-pulumi diff OLD NEW -o json``, the programs under Pulumi mocks); per resource, the step
must be the same (create, update, delete, replace creating first or deleting first):

* ``rollout``: a worker's args (a new worker revision: its Deployment and Service are renamed,
  so replaced, the new ones first), the frontend's image (an in-place rolling update), Grove's
  ``nodeCount`` (the fixed-name PodCliqueSet is replaced, the old one deleted first), a component
  removed from the operator-mode graph (its immutable identity: the DGD is replaced, deleted first);
* ``in-place``: a worker's replicas (an update, no new revision) and a worker's args in the
  operator-mode graph (the DGD is updated in place; the operator rolls its workers).

The graph part of examples/gke-gpu-node-pool runs in the same stack (see the program): its
workers land on the tainted GPU pool a kwok node stands in for, its frontend does not.

Last, ``rollout`` is applied with a Kubernetes watch running (``kubectl get --watch``): the new
worker Deployment is Available before the old one's deletion starts, and neither the frontend
Service nor the workers' Services are ever without a ready endpoint (EndpointSlices). Its new
worker pods (and the frontend's) are held back a few seconds by kwok's pod-ready delay, so a
gap would be seen. The comparison table and the replacement timeline are printed (``-s``).
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from e2e.engine_plan import (
    CREATE_FIRST,
    DELETE_FIRST,
    changed,
    diff_steps,
    engine_steps,
    offline_diff,
    step_table,
)
from e2e.kube_watch import KubeWatch, deletion_started, first_available, ready_endpoints
from e2e.support import Run, run_project
from localcluster.cluster import POD_READY_DELAY_ANNOTATION, LocalCluster
from localcluster.engine import Engine
from localcluster.nodes import NodePool, node_manifests
from localcluster.tools import REPO, ToolSet

PROGRAM = Path(__file__).resolve().parent / "programs" / "graphs"
EXAMPLES = REPO / "examples"
Files = dict[str, Any]


def _base() -> Files:
    def load(path: str) -> Any:
        return yaml.safe_load((EXAMPLES / path).read_text())

    gke = load("aggregated-vllm/graph.yaml")  # the graph examples/gke-gpu-node-pool deploys
    gke["metadata"]["name"] = "vllm-gke"
    return {
        "agg.yaml": load("aggregated-vllm/graph.yaml"),
        "gke.yaml": gke,
        "grove.yaml": load("multinode-grove/graph.yaml"),
        "grove-platform.yaml": load("multinode-grove/platform.yaml"),
        "planner.yaml": load("disaggregated-planner/graph.yaml"),
        "planner-platform.yaml": load("disaggregated-planner/platform.yaml"),
    }


def _component(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["spec"]["components"] if c["name"] == name)


def _main(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return _component(doc, name)["podTemplate"]["spec"]["containers"][0]


def _slow_pods(doc: dict[str, Any], name: str, delay: str) -> None:
    """kwok makes the component's pods Ready only ``delay`` after they are bound."""
    template = _component(doc, name)["podTemplate"]
    template.setdefault("metadata", {}).setdefault("annotations", {})[POD_READY_DELAY_ANNOTATION] = delay


@dataclass(frozen=True)
class Change:
    graph: str  # the graph's metadata.name
    what: str
    apply: Callable[[Files], None]


def _worker_args(f: Files) -> None:
    _main(f["agg.yaml"], "VllmWorker")["args"] += ["--max-model-len", "4096"]
    _slow_pods(f["agg.yaml"], "VllmWorker", "3s")


def _frontend_image(f: Files) -> None:
    _main(f["agg.yaml"], "Frontend")["image"] = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.2"
    _slow_pods(f["agg.yaml"], "Frontend", "2s")


def _node_count(f: Files) -> None:
    for name in ("prefill", "decode"):
        _component(f["grove.yaml"], name)["multinode"]["nodeCount"] = 3


def _planner_removed(f: Files) -> None:
    spec = f["planner.yaml"]["spec"]
    spec["components"] = [c for c in spec["components"] if c["name"] != "Planner"]


def _worker_replicas(f: Files) -> None:
    _component(f["agg.yaml"], "VllmWorker")["replicas"] = 3


def _operator_worker_args(f: Files) -> None:
    _main(f["planner.yaml"], "VllmDecodeWorker")["args"] += ["--max-model-len", "4096"]


VERSIONS: dict[str, list[Change]] = {
    "base": [],
    "rollout": [
        Change("vllm-agg", "worker args (+ kwok ready delay)", _worker_args),
        Change("vllm-agg", "frontend image (+ kwok ready delay)", _frontend_image),
        Change("vllm-multinode", "Grove nodeCount 2 => 3", _node_count),
        Change("vllm-disagg-planner", "operator mode: Planner removed", _planner_removed),
    ],
    "in-place": [
        Change("vllm-agg", "worker replicas 2 => 3", _worker_replicas),
        Change("vllm-disagg-planner", "operator mode: decode worker args", _operator_worker_args),
    ],
}


def _write_program(directory: Path, changes: list[Change]) -> Path:
    files = copy.deepcopy(_base())
    for change in changes:
        change.apply(files)
    shutil.copytree(PROGRAM, directory)
    for name, doc in files.items():
        (directory / name).write_text(yaml.safe_dump(doc, sort_keys=False))
    return directory


@dataclass
class Stack:
    """One stack of the program, and which version of it is deployed."""

    engine: Engine
    namespace: str
    config: dict[str, str]
    programs: dict[str, Path]
    deployed: str | None = None
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def run(self, op: str, version: str, **kwargs: Any) -> Run:
        run = run_project(self.engine, op, self.programs[version], config=self.config, **kwargs)
        if op == "up":
            self.deployed = version
            self.outputs[version] = run.result["outputs"]
        return run

    def ensure(self, version: str) -> None:
        if self.deployed != version:
            self.run("up", version)


#: A GKE GPU pool as GKE labels and taints its nodes (one kwok node, for this module only).
GKE_POOL = NodePool(name=f"gke-l4-{uuid.uuid4().hex[:6]}", count=1, gpus=8, gpu_product="NVIDIA-L4",
                    labels=(("cloud.google.com/gke-accelerator", "nvidia-l4"),),
                    taints=(("nvidia.com/gpu", "present", "NoSchedule"),))


@pytest.fixture(scope="module")
def stack(tools: ToolSet, cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    namespace = f"e2e-diff-{uuid.uuid4().hex[:6]}"
    nodes = node_manifests((GKE_POOL,))
    cluster.apply(nodes)
    cluster.kubectl("create", "namespace", namespace)
    root = tmp_path_factory.mktemp("engine-diff")
    programs = {name: _write_program(root / name, changes) for name, changes in VERSIONS.items()}
    config = {"namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig)}
    try:
        cluster.kubectl("wait", "--for=condition=Ready", *(f"node/{n['metadata']['name']}" for n in nodes),
                        "--timeout=60s")
        yield Stack(Engine(tools, root / "engine", cluster.kubeconfig), namespace, config, programs)
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        cluster.kubectl("delete", *(f"node/{n['metadata']['name']}" for n in nodes), "--wait=false", check=False)


GRAPHS = ("vllm-disagg-planner", "vllm-multinode", "vllm-agg", "vllm-gke")


def _graph_of(name: str) -> str:
    """The graph a Pulumi name belongs to (``ns/<graph>-...`` or ``<graph>:ns/...``), else "-"."""
    short = name.split("/", 1)[-1] if ":" not in name.split("/", 1)[0] else name.split(":", 1)[0]
    return next((g for g in GRAPHS if short == g or short.startswith(f"{g}-")), "-")


@pytest.mark.parametrize("version", ["rollout", "in-place"])
def test_the_engines_plan_is_what_dynamo_pulumi_diff_prints(stack: Stack, version: str):
    stack.ensure("base")
    preview = stack.run("preview", version, diff=True)
    engine = changed(engine_steps(preview.events))
    ours = changed(diff_steps(offline_diff(stack.programs["base"], stack.programs[version], stack.config)))
    labels = {}
    for change in VERSIONS[version]:
        labels.setdefault(change.graph, []).append(change.what)
    rows = [("; ".join(labels.get(_graph_of(key[1]), ["(not changed)"])), key, ours.get(key, "-"), engine.get(key, "-"))
            for key in sorted(set(engine) | set(ours), key=lambda k: (_graph_of(k[1]), k[1], k[0]))]
    sys.stdout.write(f"\n[e2e] {version}: engine plan vs dynamo-pulumi diff\n{step_table(rows)}\n")
    assert ours == engine, step_table([r for r in rows if r[2] != r[3]])
    # What the change kinds must come to (so an agreement on nothing cannot pass).
    expected = {
        "rollout": {("kubernetes:apps/v1:Deployment", "vllm-agg-vllmworker"): CREATE_FIRST,
                    ("kubernetes:apps/v1:Deployment", "vllm-agg-frontend"): "update",
                    ("kubernetes:grove.io/v1alpha1:PodCliqueSet", "vllm-multinode"): DELETE_FIRST,
                    ("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment", "vllm-disagg-planner"): DELETE_FIRST},
        "in-place": {("kubernetes:apps/v1:Deployment", "vllm-agg-vllmworker"): "update",
                     ("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment", "vllm-disagg-planner"): "update"},
    }[version]
    for (kind, name), step in expected.items():
        assert engine[(kind, f"{stack.namespace}/{name}")] == step, (kind, name)


def test_the_gke_examples_graph_part_puts_only_its_workers_on_the_tainted_gpu_pool(stack: Stack, cluster: LocalCluster):
    """examples/gke-gpu-node-pool's graph, its placement an Output of another resource: the real
    scheduler binds the workers to the pool's node (selector and toleration), never the frontend
    (which tolerates nothing), and the readiness wait, told the kubeconfig, saw them ready."""
    stack.ensure("base")
    pods = json.loads(cluster.kubectl("get", "pods", "-n", stack.namespace, "-l",
                                      "nvidia.com/dynamo-graph-deployment-name=vllm-gke", "-o", "json"))["items"]
    by_component: dict[str, list[dict[str, Any]]] = {}
    for pod in pods:
        by_component.setdefault(pod["metadata"]["labels"]["nvidia.com/dynamo-component"], []).append(pod)
    pool_node = f"{GKE_POOL.name}-0"
    workers, frontends = by_component["VllmWorker"], by_component["Frontend"]
    assert len(workers) == 2 and all(p["spec"]["nodeName"] == pool_node for p in workers)
    assert all(p["spec"]["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-l4"} for p in workers)
    assert len(frontends) == 1 and frontends[0]["spec"]["nodeName"] != pool_node
    assert all(c["type"] != "Ready" or c["status"] == "True" for p in pods for c in p["status"]["conditions"])
    assert stack.outputs["base"]["totalGpus"] == 2  # the exported outputs are the aggregated graph's


def _timeline(t0: float, marks: list[tuple[float | None, str]]) -> str:
    known = sorted((t, what) for t, what in marks if t is not None)
    return "\n".join(f"  {t - t0:+7.2f} s  {what}" for t, what in known)


def _engine_marks(run: Run) -> list[tuple[float | None, str]]:
    marks: list[tuple[float | None, str]] = []
    for event in run.events:
        for kind in ("pre", "outputs"):
            step = event.get(kind)
            if step is None or step["op"] == "same" or step["type"].startswith("pulumi:"):
                continue
            if "vllm-agg" not in step["urn"].rsplit("::", 1)[-1]:
                continue
            label = step["type"].rsplit(":", 1)[-1]
            marks.append((event["t"], f"engine {step['op']} {'starts' if kind == 'pre' else 'done'}: {label} "
                                      f"{step['urn'].rsplit('::', 1)[-1]}"))
    return marks


def test_a_worker_replacement_never_leaves_the_graph_without_a_ready_endpoint(stack: Stack, cluster: LocalCluster):
    stack.ensure("base")
    old_worker = stack.outputs["base"]["components"]["VllmWorker"]["workloadNames"][0]
    with KubeWatch(cluster, stack.namespace) as watch:
        watch.wait_for("deployments", "vllm-agg-frontend")
        watch.wait_for("deployments", old_worker)
        t0 = time.time()
        run = stack.run("up", "rollout")
        t_end = time.time()
        time.sleep(1.0)  # the last deletions' events
    new_worker = stack.outputs["rollout"]["components"]["VllmWorker"]["workloadNames"][0]
    assert new_worker != old_worker
    deployments, slices = watch.of("deployments"), watch.of("endpointslices")

    new_ready = first_available(deployments, new_worker)
    old_deleted = deletion_started(deployments, old_worker)
    frontend = ready_endpoints(slices, "vllm-agg-frontend")
    workers = ready_endpoints(slices, "vllm-agg-vllmworker-")
    created = next((e.t for e in deployments if e.name == new_worker), None)
    marks = [(t0, "pulumi up starts"), (t_end, "pulumi up returns"), (created, f"Deployment {new_worker} created"),
             (new_ready, f"Deployment {new_worker} Available (2/2 ready)"),
             (old_deleted, f"Deployment {old_worker} deletion starts"),
             (first_available([e for e in deployments if e.t > t0], "vllm-agg-frontend"),
              "Deployment vllm-agg-frontend Available again (new image)"),
             *_engine_marks(run)]
    during = [(t, n) for t, n in frontend if t >= t0]
    fewest_frontend = min(n for _, n in [(t0, _value_at(frontend, t0)), *during])
    fewest_workers = min(n for _, n in [(t0, _value_at(workers, t0)), *((t, n) for t, n in workers if t >= t0)])
    sys.stdout.write(f"\n[e2e] replacement timeline (seconds from `pulumi up`):\n{_timeline(t0, marks)}\n"
                     f"  fewest ready endpoints during the up: frontend Service {fewest_frontend}, "
                     f"worker Services {fewest_workers}\n")

    assert new_ready is not None and old_deleted is not None, json.dumps([e.name for e in deployments])
    assert new_ready < old_deleted, "the old worker Deployment was deleted before the new one was Available"
    assert new_ready - t0 > 3.0, "the new worker pods were held back 3 s: Available sooner means the watch is wrong"
    assert new_ready < t_end, "pulumi up returned before the new worker was Available"
    assert fewest_frontend >= 1 and fewest_workers >= 1
    side_by_side = max(n for t, n in workers if t0 <= t <= old_deleted)
    assert side_by_side == 4, "both generations (2 ready pods each) serve side by side before the old one goes"


def _value_at(series: list[tuple[float, int]], t: float) -> int:
    """The series' value at ``t`` (its last point before ``t``; 0 before the first)."""
    before = [n for when, n in series if when < t]
    return before[-1] if before else 0

