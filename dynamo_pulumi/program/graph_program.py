"""The Pulumi program body shared by the root ``__main__.py``, ``dynamo-pulumi preview`` and the
examples: plan one graph, register it, export its outputs.

Stack configuration (``pulumi config set dynamo-pulumi:<key> <value>``):

* ``graph`` - path of the DGD/DCD YAML (v1beta1 or v1alpha1); default: the embedded example;
* ``namespace`` - Kubernetes namespace (default: the graph's ``metadata.namespace`` or ``default``);
* ``platform`` - path of a platform YAML (operator configuration and cluster facts);
* ``mode`` - ``render`` (default: create the rendered objects) or ``operator`` (create the DGD
  custom resource for an installed Dynamo operator);
* ``wait`` - ``false`` to return from ``pulumi up`` without waiting for readiness (default true);
* ``timeout`` - how long ``pulumi up`` waits for the graph to serve (``30m``, ``2h``; default 60m).

Every key is declared in the root ``Pulumi.yaml``. The cluster, and the namespace when none is
given, come from the Kubernetes provider, as for any pulumi-kubernetes object: the default
provider's stack config ``kubernetes:kubeconfig`` / ``kubernetes:context`` / ``kubernetes:namespace``
(or the provider passed in ``opts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import pulumi

from dynamo_pulumi.api.v1beta1 import DCD_KIND
from dynamo_pulumi.model.deploy_mode import DEFAULT_MODE
from dynamo_pulumi.planning.placement import GpuPlacement
from dynamo_pulumi.planning.plan import DefaultNamespace, GraphPlan, SpecSource, plan_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.resources.components import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.resources.kube_provider import ChildrenProvider, lazily
from dynamo_pulumi.resources.readiness import ReadinessOptions
from dynamo_pulumi.resources.run_errors import reported_to_pulumi

CONFIG_NAMESPACE = "dynamo-pulumi"
DEFAULT_GRAPH = "default-graph.yaml"


def default_graph_path() -> Path:
    """The embedded example graph (packaged in ``dynamo_pulumi/data``)."""
    return Path(str(resources.files("dynamo_pulumi") / "data" / DEFAULT_GRAPH))


def plan(
    graph: SpecSource | None = None,
    namespace: str | None = None,
    platform: Platform | Mapping[str, Any] | str | Path | None = None,
    placement: GpuPlacement | None = None,
    mode: str = DEFAULT_MODE,
    default_namespace: DefaultNamespace = "default",
) -> GraphPlan:
    """The plan of ``graph`` (default: the embedded example) in ``mode``. Raises on an invalid graph.
    ``default_namespace``: the namespace when neither ``namespace`` nor the graph names one."""
    source = graph if graph is not None else default_graph_path()
    return plan_graph(source, platform, namespace, "", placement, mode=mode, default_namespace=default_namespace)


def deploy(
    graph: SpecSource | GraphPlan | None = None,
    namespace: str | None = None,
    platform: Platform | Mapping[str, Any] | str | Path | None = None,
    placement: GpuPlacement | None = None,
    opts: pulumi.ResourceOptions | None = None,
    export: bool = True,
    mode: str = DEFAULT_MODE,
    adopt: bool = False,
    readiness: ReadinessOptions | None = None,
) -> DynamoGraphDeployment | DynamoComponentDeployment:
    """Register one graph (or standalone DCD), named after its ``metadata.name``; export outputs.
    ``mode="operator"`` registers the custom resource itself; ``adopt`` imports what exists. The
    namespace defaults to the graph's, then to the Kubernetes provider's (``opts``, else the stack's)."""
    with reported_to_pulumi():
        default = lazily(ChildrenProvider.of(opts).default_namespace)
        planned = graph if isinstance(graph, GraphPlan) else plan(graph, namespace, platform, placement, mode, default)
    if planned.kind == DCD_KIND:
        dcd = DynamoComponentDeployment(planned.name, planned, opts=opts, adopt=adopt, readiness=readiness)
        if export:
            for key, value in dcd.summary.as_dict().items():
                pulumi.export(key, value)
        return dcd
    dgd = DynamoGraphDeployment(planned.name, planned, opts=opts, adopt=adopt, readiness=readiness)
    if export:
        pulumi.export("dynamoNamespace", dgd.dynamo_namespace)
        pulumi.export("frontendUrl", dgd.frontend_url)
        pulumi.export("totalGpus", dgd.total_gpus)
        pulumi.export("components", dgd.component_outputs)
        if planned.mode == "operator":
            pulumi.export("expansion", dgd.expansion)
    return dgd


def main() -> DynamoGraphDeployment | DynamoComponentDeployment:
    """Entry point of the root ``__main__.py``: everything comes from stack configuration."""
    config = pulumi.Config(CONFIG_NAMESPACE)
    readiness = ReadinessOptions(
        wait=config.get_bool("wait") is not False,
        timeout=config.get("timeout") or None,
    )
    return deploy(
        graph=config.get("graph") or None,
        namespace=config.get("namespace") or None,
        platform=config.get("platform") or None,
        mode=config.get("mode") or "render",
        readiness=readiness,
    )
