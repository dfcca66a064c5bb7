"""A Dynamo graph written in typed Python: the models give IDE completion and ``mypy --strict``
checks every field name and type; pod templates are ``pulumi_kubernetes`` input classes.

The worker's replica count and its nodeSelector value are Outputs of an EKS node group (known at
deploy time only), given to the typed models exactly where a plain value would go.

tests/test_typed_api.py runs ``mypy --strict`` on this file (it must pass) and on a copy with a
misspelt field (it must fail), and runs it under Pulumi mocks.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dynamo_pulumi.api import ComponentSpec, GraphSpec
from dynamo_pulumi.resources import DynamoGraphDeployment

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"


def gpu_node_group() -> aws.eks.NodeGroup:
    return aws.eks.NodeGroup(
        "gpu",
        cluster_name="dynamo",
        node_role_arn="arn:aws:iam::123456789012:role/gpu-nodes",
        subnet_ids=["subnet-1"],
        labels={"dynamo.nvidia.com/pool": "gpu"},
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=2, min_size=0, max_size=4),
    )


def pod(
    command: list[str] | None = None, gpus: int = 0, pool: pulumi.Input[str] | None = None
) -> k8s.core.v1.PodTemplateSpecArgs:
    limits = {"nvidia.com/gpu": str(gpus)} if gpus else None
    main = k8s.core.v1.ContainerArgs(
        name="main",
        image=IMAGE,
        command=command,
        args=["--model", "Qwen/Qwen3-0.6B"] if command else None,
        resources=k8s.core.v1.ResourceRequirementsArgs(limits=limits) if limits else None,
    )
    selector = {"dynamo.nvidia.com/pool": pool} if pool is not None else None
    return k8s.core.v1.PodTemplateSpecArgs(spec=k8s.core.v1.PodSpecArgs(containers=[main], node_selector=selector))


def graph_spec(node_group: aws.eks.NodeGroup) -> GraphSpec:
    replicas: pulumi.Output[int] = node_group.scaling_config.apply(lambda c: c.desired_size)
    pool: pulumi.Output[str] = node_group.labels.apply(lambda labels: (labels or {})["dynamo.nvidia.com/pool"])
    return GraphSpec(
        backend_framework="vllm",
        components=[
            ComponentSpec(name="Frontend", type="frontend", replicas=1, pod_template=pod()),
            ComponentSpec(
                name="VllmWorker",
                type="worker",
                replicas=replicas,
                pod_template=pod(["python3", "-m", "dynamo.vllm"], gpus=1, pool=pool),
            ),
        ],
    )


def deploy() -> DynamoGraphDeployment:
    return DynamoGraphDeployment("llama", graph_spec(gpu_node_group()), namespace="inference")
