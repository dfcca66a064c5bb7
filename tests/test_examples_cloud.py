"""The cloud examples run under Pulumi mocks with their real SDKs (pulumi-eks/pulumi-aws,
pulumi-gcp, installed by the ``test`` extra) and compose the way they say: the node pool's label
and taint reach the GPU components' placement only, every object waits for the node pool, and
every Kubernetes object goes through the provider built from the cluster."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import pytest

from dynamo_pulumi.mocks import DynamoMocks, Recording, Registration, is_unknown, run_program
from dynamo_pulumi.resources import DGD_TYPE

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GPU_WORKER = "dynamo/vllm-agg-vllmworker"
FRONTEND = "dynamo/vllm-agg-frontend"
NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"


class EksMocks(DynamoMocks):
    """``eks.ManagedNodeGroup`` is a remote component: under mocks it returns what the real one
    does, a reference to its ``aws.eks.NodeGroup`` with the labels and taints it was given."""

    def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        if args.typ != "eks:index:ManagedNodeGroup":
            return super().new_resource(args)
        urn = f"urn:pulumi:dev::dynamo::eks:index:ManagedNodeGroup${NODE_GROUP_TYPE}::{args.name}"
        state = {"labels": args.inputs.get("labels"), "taints": args.inputs.get("taints"), "nodeGroupName": args.name}
        return None, {"nodeGroup": self.resource_reference(urn, f"{args.name}-id", state)}


def run_example(name: str, mocks: DynamoMocks | None = None) -> Recording:
    main = EXAMPLES / name / "__main__.py"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the SDKs' own deprecation notices
        recording, _ = run_program(lambda: runpy.run_path(str(main), run_name="__main__"), mocks=mocks)
    return recording


def pod_spec(rec: Recording, name: str) -> dict[str, Any]:
    (deployment,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if r.name == name]
    return deployment.inputs["spec"]["template"]["spec"]


def kubernetes_objects(rec: Recording) -> list[Registration]:
    return [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:") and r.type != "kubernetes:core/v1:Namespace"]


@pytest.fixture(scope="module")
def eks() -> Recording:
    return run_example("eks-gpu-node-group", EksMocks())


@pytest.fixture(scope="module")
def gke() -> Recording:
    return run_example("gke-gpu-node-pool")


def test_the_eks_node_groups_label_output_becomes_the_gpu_workers_node_selector(eks: Recording) -> None:
    assert pod_spec(eks, GPU_WORKER)["nodeSelector"] == {"dynamo.nvidia.com/pool": "gpu"}


def test_the_eks_gpu_taint_is_tolerated_by_the_gpu_worker_only(eks: Recording) -> None:
    (group,) = eks.by_type("eks:index:ManagedNodeGroup")
    (taint,) = group.inputs["taints"]
    tolerations = pod_spec(eks, GPU_WORKER)["tolerations"]
    assert [t["key"] for t in tolerations] == [taint["key"]]
    assert "tolerations" not in pod_spec(eks, FRONTEND) and "nodeSelector" not in pod_spec(eks, FRONTEND)


def test_every_eks_object_waits_for_the_node_group_and_uses_the_clusters_provider(eks: Recording) -> None:
    (group,) = eks.by_type("eks:index:ManagedNodeGroup")
    (provider,) = eks.by_type("pulumi:providers:kubernetes")
    objects = kubernetes_objects(eks)
    assert objects and eks.by_type(DGD_TYPE)
    assert all(group.urn in o.dependencies for o in objects)
    assert all(o.provider.startswith(provider.urn) for o in objects)
    assert is_unknown(provider.inputs["kubeconfig"])  # built from the cluster, known after it exists


def test_the_gke_pools_accelerator_becomes_the_gpu_workers_selector_and_toleration(gke: Recording) -> None:
    (pool,) = gke.by_type("gcp:container/nodePool:NodePool")
    accelerator = pool.inputs["nodeConfig"]["guestAccelerators"][0]["type"]
    spec = pod_spec(gke, GPU_WORKER)
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": accelerator}
    assert spec["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert "nodeSelector" not in pod_spec(gke, FRONTEND)


def test_every_gke_object_waits_for_the_pool_and_uses_the_clusters_provider(gke: Recording) -> None:
    (pool,) = gke.by_type("gcp:container/nodePool:NodePool")
    (provider,) = gke.by_type("pulumi:providers:kubernetes")
    objects = kubernetes_objects(gke)
    assert objects and all(pool.urn in o.dependencies for o in objects)
    assert all(o.provider.startswith(provider.urn) for o in objects)


def test_resource_references_in_inputs_do_not_break_the_mock_runner() -> None:
    """The node group gets the cluster (a component) and the role (a custom resource) as
    references; under the plain mocks they reach the monitor as URN and ID."""
    rec = run_example("eks-gpu-node-group")
    (group,) = rec.by_type("eks:index:ManagedNodeGroup")
    (cluster,) = rec.by_type("eks:index:Cluster")
    assert group.inputs["cluster"] == cluster.urn
    assert group.inputs["nodeRole"] == "gpu-nodes-id"


@pytest.mark.parametrize("example", ["eks", "gke"])
def test_the_readiness_wait_is_told_the_clusters_kubeconfig_not_the_ambient_one(example: str, request) -> None:
    """The readiness resource runs in the dynamic-provider process, which never sees the explicit
    provider: without the cluster's kubeconfig it would wait on whatever ``~/.kube/config`` names.
    The examples pass the provider only; the wait takes its kubeconfig from it (issue 25)."""
    rec: Recording = request.getfixturevalue(example)
    (provider,) = rec.by_type("pulumi:providers:kubernetes")
    (readiness,) = rec.by_type("pulumi-python:dynamic/dynamo:GraphReadiness")
    kubeconfig = readiness.inputs["kubeconfig"]
    assert kubeconfig is not None
    assert is_unknown(kubeconfig) or is_unknown(kubeconfig.get("value"))  # the cluster's, known once it exists
    assert is_unknown(provider.inputs["kubeconfig"])
    assert readiness.inputs.get("ambient") is not True
