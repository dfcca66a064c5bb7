"""A GKE cluster with an L4 GPU node pool, and a Dynamo graph placed on it.

GKE labels GPU nodes ``cloud.google.com/gke-accelerator=<type>`` and taints them
``nvidia.com/gpu=present:NoSchedule``; ``gke_gpu_node_pool`` turns the pool's accelerator type
(an Output) into that selector and toleration for the GPU components only.

    pulumi stack init dev && pulumi config set gcp:project MY_PROJECT && pulumi config set gcp:zone us-central1-a
    pulumi up
"""

from pathlib import Path

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from dynamo_pulumi.program import deploy
from dynamo_pulumi.resources import gke_gpu_node_pool

HERE = Path(__file__).resolve().parent
GRAPH = HERE.parent / "aggregated-vllm" / "graph.yaml"
config = pulumi.Config()
zone = gcp.config.zone or "us-central1-a"
accelerator = config.get("accelerator") or "nvidia-l4"

cluster = gcp.container.Cluster("dynamo", location=zone, initial_node_count=2, deletion_protection=False,
                                node_config={"machine_type": "e2-standard-4"})
gpu_pool = gcp.container.NodePool(
    "gpu",
    cluster=cluster.name,
    location=zone,
    node_count=2,
    node_config={
        "machine_type": config.get("gpuMachineType") or "g2-standard-8",
        "guest_accelerators": [{
            "type": accelerator,
            "count": 1,
            "gpu_driver_installation_config": {"gpu_driver_version": "LATEST"},
        }],
        "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
    },
)


def _kubeconfig(args: list) -> str:
    name, endpoint, ca = args
    return f"""apiVersion: v1
kind: Config
clusters:
- cluster: {{certificate-authority-data: {ca}, server: 'https://{endpoint}'}}
  name: {name}
contexts:
- context: {{cluster: {name}, user: {name}}}
  name: {name}
current-context: {name}
users:
- name: {name}
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      provideClusterInfo: true
"""


kubeconfig = pulumi.Output.all(cluster.name, cluster.endpoint, cluster.master_auth.cluster_ca_certificate).apply(_kubeconfig)
provider = k8s.Provider("dynamo-gke", kubeconfig=kubeconfig)
namespace = k8s.core.v1.Namespace("dynamo", metadata={"name": "dynamo"}, opts=pulumi.ResourceOptions(provider=provider))

pool_accelerator = gpu_pool.node_config.apply(lambda c: c.guest_accelerators[0].type)
graph = deploy(
    GRAPH,
    namespace="dynamo",
    placement=gke_gpu_node_pool(pool_accelerator),
    # every child goes through the provider, and the readiness wait watches its cluster too
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[namespace, gpu_pool]),
)
