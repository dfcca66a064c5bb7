"""Operator mode end to end: install the Dynamo platform chart, then deploy the SLA-planner graph as
a DynamoGraphDeployment that the operator expands (its planner scales the workers through the
Kubernetes API, which only operator mode supports).

Stack configuration (all optional):

* ``platformVersion`` - the ``dynamo-platform`` chart version (default 1.3.1); also the
  operator version dynamo-pulumi validates against;
* ``discovery`` - ``kubernetes`` (default: Kubernetes-native discovery, no NATS/etcd) or ``etcd``
  (install the bundled NATS and etcd and point the operator at them);
* ``grove`` - ``true`` to install Grove and KAI and let the operator create PodCliqueSets;
* ``graph`` - the graph YAML (default: the published vLLM ``disagg_planner.yaml`` of the
  conformance corpus when present, else ``../disaggregated-planner/graph.yaml``);
* ``namespace`` - where the graph runs (default ``dynamo``);
* ``adopt`` - ``true`` to take over a DGD already applied with kubectl or Argo (import).

Ordering: with ``upgradeCRD`` the CRDs are applied by the operator pod's ``crd-apply`` init
container, so they exist once the operator Deployment is ready. Pulumi awaits the chart's
Deployments, and the graph ``depends_on`` the chart, so the DGD is created only after both.

    pulumi stack init dev && pulumi up
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.resources import DynamoGraphDeployment

HERE = Path(__file__).resolve().parent
CORPUS_GRAPH = HERE.parents[2] / "shared" / "conformance" / "corpus" / "vllm-v1beta1-disagg_planner.yaml"
FALLBACK_GRAPH = HERE.parent / "disaggregated-planner" / "graph.yaml"
CHART_URL = "https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-{version}.tgz"
RELEASE = "dynamo-platform"
SYSTEM_NAMESPACE = "dynamo-system"


# The two halves that must agree: the chart's values (what the operator is told) and the platform
# settings dynamo-pulumi validates and predicts with (what we assume it was told). Chart keys:
# global.nats|etcd.install, global.grove|kai-scheduler.install|enabled, dynamo-operator.
# discoveryBackend|natsAddr|etcdAddr|upgradeCRD (ecosystem.md 1.3-1.4).


def chart_values(discovery: str, grove: bool) -> dict[str, Any]:
    """Values for ``discovery`` ``kubernetes`` (no NATS/etcd) or ``etcd`` (bundled NATS and etcd)."""
    bundled = discovery == "etcd"
    operator: dict[str, Any] = {"discoveryBackend": discovery, "upgradeCRD": True}
    if bundled:
        operator["natsAddr"] = NATS_ADDRESS
        operator["etcdAddr"] = ETCD_ADDRESS
    return {
        "global": {
            "nats": {"install": bundled},
            "etcd": {"install": bundled},
            "grove": {"install": grove, "enabled": grove},
            "kai-scheduler": {"install": grove, "enabled": grove},
        },
        "dynamo-operator": operator,
    }


def platform_settings(version: str, discovery: str, grove: bool) -> dict[str, Any]:
    """The same choices as dynamo-pulumi platform settings (OperatorConfiguration key names)."""
    settings: dict[str, Any] = {
        "operatorVersion": version,
        "discovery": {"backend": discovery},
        "orchestrators": {"grove": {"enabled": grove}},
    }
    if discovery == "etcd":
        settings["infrastructure"] = {"natsAddress": NATS_ADDRESS, "etcdAddress": ETCD_ADDRESS}
    return settings


NATS_ADDRESS = f"nats://{RELEASE}-nats.{SYSTEM_NAMESPACE}.svc.cluster.local:4222"
ETCD_ADDRESS = f"http://{RELEASE}-etcd.{SYSTEM_NAMESPACE}.svc.cluster.local:2379"

config = pulumi.Config()
version = config.get("platformVersion") or "1.3.1"
discovery = config.get("discovery") or "kubernetes"
grove = config.get_bool("grove") or False
graph_file = config.get("graph") or str(CORPUS_GRAPH if CORPUS_GRAPH.is_file() else FALLBACK_GRAPH)
namespace = config.get("namespace") or "dynamo"

system = k8s.core.v1.Namespace("dynamo-system", metadata={"name": SYSTEM_NAMESPACE})
workloads = k8s.core.v1.Namespace("workloads", metadata={"name": namespace})
platform_chart = k8s.helm.v4.Chart(
    RELEASE,
    chart=CHART_URL.format(version=version),
    namespace=SYSTEM_NAMESPACE,
    values=chart_values(discovery, grove),
    opts=pulumi.ResourceOptions(depends_on=[system]),
)

graph = DynamoGraphDeployment(
    "planner-graph",
    graph_file,
    namespace=namespace,
    platform=platform_settings(version, discovery, grove),
    mode="operator",
    adopt=config.get_bool("adopt") or False,
    opts=pulumi.ResourceOptions(depends_on=[platform_chart, workloads]),
)
pulumi.export("frontendUrl", graph.frontend_url)
pulumi.export("expansion", graph.expansion)
