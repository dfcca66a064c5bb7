"""The example graphs on the local cluster, side by side in one namespace.

* ``agg.yaml``: examples/aggregated-vllm, rendered and waited for (the real Deployment controller
  and kwok make its pods ready);
* ``grove.yaml`` + ``grove-platform.yaml``: examples/multinode-grove, rendered, not waited for (no
  Grove operator runs here, so its PodCliqueSet is stored but never expanded into pods);
* ``planner.yaml`` + ``planner-platform.yaml``: examples/disaggregated-planner in operator mode, not
  waited for (no Dynamo operator runs here: the custom resource is stored and judged by its CRD);
* ``gke.yaml``: the graph part of examples/gke-gpu-node-pool (the aggregated graph under another
  name), as that example deploys it: through an explicit provider built from a kubeconfig, with
  the readiness wait told the same kubeconfig, and placed on a GPU pool by
  ``gke_gpu_node_pool(accelerator)`` where the accelerator is an Output of another resource. The
  cloud's node pool is replaced by a ConfigMap holding the accelerator type (its Output is unknown
  until the ConfigMap exists, as the pool's is) and by a kwok node the test adds with GKE's label
  and taint.

The test writes the graph files into a copy of this directory, one copy per program version.
"""

from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.program import deploy
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions, gke_gpu_node_pool

HERE = Path(__file__).resolve().parent
config = pulumi.Config()
namespace = config.require("namespace")
timeout = config.get("timeout") or "3m"
no_wait = ReadinessOptions(wait=False)

deploy(HERE / "agg.yaml", namespace=namespace, readiness=ReadinessOptions(timeout=timeout))
DynamoGraphDeployment("vllm-multinode", HERE / "grove.yaml", namespace=namespace,
                      platform=HERE / "grove-platform.yaml", readiness=no_wait)
DynamoGraphDeployment("vllm-disagg-planner", HERE / "planner.yaml", namespace=namespace,
                      platform=HERE / "planner-platform.yaml", mode="operator", readiness=no_wait)

kubeconfig = Path(pulumi.Config("kubernetes").require("kubeconfig")).read_text()
cluster = k8s.Provider("gke-like", kubeconfig=kubeconfig)
pool = k8s.core.v1.ConfigMap("gpu-pool", metadata={"namespace": namespace}, data={"accelerator": "nvidia-l4"},
                             opts=pulumi.ResourceOptions(provider=cluster))
DynamoGraphDeployment(
    "vllm-gke", HERE / "gke.yaml", namespace=namespace,
    placement=gke_gpu_node_pool(pool.data.apply(lambda data: data["accelerator"])),
    opts=pulumi.ResourceOptions(provider=cluster, depends_on=[pool]),
    readiness=ReadinessOptions(kubeconfig=kubeconfig, timeout=timeout),
)
