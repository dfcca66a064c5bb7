"""Fake nodes for kwok: GPU nodes as the NVIDIA GPU operator labels them, and CPU nodes.

kwok manages only nodes carrying its annotation and keeps the capacity written at create, so a
node that says ``nvidia.com/gpu: 8`` lets the real scheduler bind eight single-GPU pods to it and
refuse the ninth, with the scheduler's own "Insufficient nvidia.com/gpu" reason. The labels are
the ones GPU feature discovery writes (``nvidia.com/gpu.product``, ``.count``, ``.memory``) so
node selectors of published graphs match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KWOK_ANNOTATION = "kwok.x-k8s.io/node"


@dataclass(frozen=True)
class NodePool:
    """``count`` identical nodes; ``gpus`` 0 is a CPU-only pool."""

    name: str
    count: int
    gpus: int = 0
    gpu_product: str = "NVIDIA-H100-80GB-HBM3"
    gpu_memory_mib: int = 81559
    cpu: str = "64"
    memory: str = "512Gi"
    labels: tuple[tuple[str, str], ...] = ()
    #: ``(key, value, effect)`` taints, as a cloud's GPU pool has them (GKE: ``nvidia.com/gpu``,
    #: ``present``, ``NoSchedule``): only pods that tolerate them are scheduled here.
    taints: tuple[tuple[str, str, str], ...] = ()


DEFAULT_POOLS: tuple[NodePool, ...] = (
    NodePool(name="cpu", count=1),
    NodePool(name="gpu-h100", count=3, gpus=8),
)


def node_manifests(pools: tuple[NodePool, ...] = DEFAULT_POOLS) -> list[dict[str, Any]]:
    return [node for pool in pools for node in _pool_nodes(pool)]


def _pool_nodes(pool: NodePool) -> list[dict[str, Any]]:
    return [_node(pool, f"{pool.name}-{i}") for i in range(pool.count)]


def _node(pool: NodePool, name: str) -> dict[str, Any]:
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "type": "kwok",
        "node.dynamo-pulumi.dev/pool": pool.name,
        **dict(pool.labels),
    }
    capacity = {"cpu": pool.cpu, "memory": pool.memory, "pods": "110", "ephemeral-storage": "1Ti"}
    if pool.gpus:
        labels.update({
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": pool.gpu_product,
            "nvidia.com/gpu.count": str(pool.gpus),
            "nvidia.com/gpu.memory": str(pool.gpu_memory_mib),
        })
        capacity["nvidia.com/gpu"] = str(pool.gpus)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": {KWOK_ANNOTATION: "fake"}},
        "spec": {"taints": [{"key": k, "value": v, "effect": e} for k, v, e in pool.taints]} if pool.taints else {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "fake"},
        },
    }
