"""Small hand-written rendered graphs for the Pulumi-layer tests (no renderer needed)."""

from __future__ import annotations

import copy
from typing import Any

from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.planning.plan import GraphPlan, plan_from_rendered

GRAPH = "llm"
NS = "team-a"
HASH = "1a2b3c4d"


def graph_doc(scaling_adapter: bool = False, image: Any = "nvcr.io/dynamo/vllm:1.0.0") -> dict[str, Any]:
    decode: dict[str, Any] = {
        "name": "decode",
        "type": "decode",
        "replicas": 2,
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": image}]}},
    }
    if scaling_adapter:
        decode["scalingAdapter"] = {}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": GRAPH, "namespace": NS},
        "spec": {
            "backendFramework": "vllm",
            "components": [
                {
                    "name": "Frontend",
                    "type": "frontend",
                    "replicas": 1,
                    "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/dynamo/frontend:1.0.0"}]}},
                },
                decode,
            ],
        },
    }


def _labels(component: str, worker_hash: str = "") -> dict[str, str]:
    labels = {"nvidia.com/dynamo-graph-deployment-name": GRAPH, "nvidia.com/dynamo-component": component}
    if worker_hash:
        labels["nvidia.com/dynamo-worker-hash"] = worker_hash
    return labels


def _deployment(name: str, component: str, replicas: int, gpus: int, image: Any, worker_hash: str = "") -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": image}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS, "labels": _labels(component, worker_hash)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"nvidia.com/selector": name}},
            "template": {
                "metadata": {
                    "labels": {**_labels(component, worker_hash), "nvidia.com/dynamo-namespace": f"{NS}-{GRAPH}"}
                },
                "spec": {"containers": [container]},
            },
        },
    }


def _service(name: str, component: str, worker_hash: str = "") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": NS, "labels": _labels(component, worker_hash)},
        "spec": {"selector": {"nvidia.com/selector": name}, "ports": [{"name": "http", "port": 8000}]},
    }


def rendered(image: Any = "nvcr.io/dynamo/vllm:1.0", worker_hash: str = HASH, decode_replicas: int = 2):
    """(objects, DCD documents) shaped like the renderer's RenderResult."""
    decode = f"{GRAPH}-decode-{worker_hash}"
    sa = f"{GRAPH}-k8s-service-discovery"
    objects = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa, "namespace": NS}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": f"{sa}-binding", "namespace": NS},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{sa}-role"},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": NS}],
        },
        _deployment(f"{GRAPH}-frontend", "Frontend", 1, 0, "nvcr.io/dynamo/frontend:1.0"),
        _service(f"{GRAPH}-frontend", "Frontend"),
        _deployment(decode, "decode", decode_replicas, 2, image, worker_hash),
        _service(decode, "decode", worker_hash),
    ]
    dcds = [
        {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": f"{GRAPH}-frontend", "namespace": NS, "labels": _labels("Frontend")},
            "spec": {"name": "Frontend", "type": "frontend", "replicas": 1},
        },
        {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": decode, "namespace": NS, "labels": _labels("decode", worker_hash)},
            "spec": {"name": "decode", "type": "decode", "replicas": decode_replicas},
        },
    ]
    return objects, dcds


def small_plan(scaling_adapter: bool = False, **kwargs: Any) -> GraphPlan:
    objects, dcds = rendered(**kwargs)
    graph = load_graph(graph_doc(scaling_adapter))
    return plan_from_rendered(graph, copy.deepcopy(objects), dcds, NS)
