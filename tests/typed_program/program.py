"""A Dynamo graph written in typed Python: the models give IDE completion and ``mypy --strict``
checks every field name and type; pod templates are ``pulumi_kubernetes`` input classes.

tests/test_typed_api.py runs ``mypy --strict`` on this file (it must pass) and on a copy with a
misspelt field (it must fail), and runs it under Pulumi mocks.
"""

from __future__ import annotations

import pulumi_kubernetes as k8s

from dynamo_pulumi.api import ComponentSpec, GraphSpec
from dynamo_pulumi.resources import DynamoGraphDeployment

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"


def pod(command: list[str] | None = None, gpus: int = 0) -> k8s.core.v1.PodTemplateSpecArgs:
    limits = {"nvidia.com/gpu": str(gpus)} if gpus else None
    main = k8s.core.v1.ContainerArgs(
        name="main",
        image=IMAGE,
        command=command,
        args=["--model", "Qwen/Qwen3-0.6B"] if command else None,
        resources=k8s.core.v1.ResourceRequirementsArgs(limits=limits) if limits else None,
    )
    return k8s.core.v1.PodTemplateSpecArgs(spec=k8s.core.v1.PodSpecArgs(containers=[main]))


def graph_spec() -> GraphSpec:
    return GraphSpec(
        backend_framework="vllm",
        components=[
            ComponentSpec(name="Frontend", type="frontend", replicas=1, pod_template=pod()),
            ComponentSpec(
                name="VllmWorker",
                type="worker",
                replicas=2,
                pod_template=pod(["python3", "-m", "dynamo.vllm"], gpus=1),
            ),
        ],
    )


def deploy() -> DynamoGraphDeployment:
    return DynamoGraphDeployment("llama", graph_spec(), namespace="inference")
