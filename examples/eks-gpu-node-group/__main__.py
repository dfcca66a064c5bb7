"""An EKS cluster with a managed GPU node group, and a Dynamo graph placed on it.

The node group's label and taint are Outputs of the node group; ``eks_gpu_node_group`` turns them
into the nodeSelector and toleration of the GPU components only (the frontend stays on the
system nodes). Every Kubernetes object goes through the cluster's provider.

    pulumi stack init dev && pulumi config set aws:region us-west-2 && pulumi up
"""

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from dynamo_pulumi.program import deploy
from dynamo_pulumi.resources import eks_gpu_node_group

HERE = Path(__file__).resolve().parent
GRAPH = HERE.parent / "aggregated-vllm" / "graph.yaml"
config = pulumi.Config()
gpu_instance = config.get("gpuInstanceType") or "g6.2xlarge"

cluster = eks.Cluster("dynamo", instance_type="m6i.large", desired_capacity=2, min_size=1, max_size=3)

node_role = aws.iam.Role(
    "gpu-nodes",
    assume_role_policy=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "ec2.amazonaws.com"}}],
    }),
)
for i, policy in enumerate([
    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
]):
    aws.iam.RolePolicyAttachment(f"gpu-nodes-{i}", role=node_role.name, policy_arn=policy)

gpu_group = eks.ManagedNodeGroup(
    "gpu",
    cluster=cluster,
    node_role=node_role,
    instance_types=[gpu_instance],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"desired_size": 2, "min_size": 0, "max_size": 4},
    labels={"dynamo.nvidia.com/pool": "gpu"},
    taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
)

provider = k8s.Provider("dynamo-eks", kubeconfig=cluster.kubeconfig_json)
namespace = k8s.core.v1.Namespace("dynamo", metadata={"name": "dynamo"}, opts=pulumi.ResourceOptions(provider=provider))

pool_label = gpu_group.node_group.labels.apply(lambda labels: (labels or {})["dynamo.nvidia.com/pool"])
graph = deploy(
    GRAPH,
    namespace="dynamo",
    placement=eks_gpu_node_group({"dynamo.nvidia.com/pool": pool_label}),
    # every child goes through the provider, and the readiness wait watches its cluster too
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[namespace, gpu_group]),
)
pulumi.export("kubeconfig", pulumi.Output.secret(cluster.kubeconfig_json))
