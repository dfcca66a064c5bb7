"""The default graph (a CPU frontend, one one-GPU vLLM worker) as a pulumi-kubernetes user deploys it.

Config ``case`` picks what the program shows (tests/e2e/test_engine_provider_conventions.py):

* ``provider``: through an explicit ``k8s.Provider`` built from ``kubeconfig_file`` (read here, so
  the provider holds the file's contents) with ``namespace`` as its default namespace, while the
  ambient ``$KUBECONFIG`` points at a cluster that is not there; the graph is given no namespace.
  A ``transforms=[...]`` on the graph rewrites the worker's image to ``mirror`` (a registry
  mirror) and, when ``ready_delay`` is set, makes kwok hold its pods unready that long;
* ``no-ssa``: the same provider with ``enable_server_side_apply=False``;
* ``adopt``: the same provider, ``adopt=True``, for objects created beforehand with kubectl.

``readiness_provider`` picks the readiness transport (``dynamic``, the default, or ``plugin``).

The readiness resource's inputs are exported, so the test reads what it watched.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.program import default_graph_path
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
KWOK_DELAY = "pod-ready.stage.kwok.x-k8s.io/delay"

config = pulumi.Config()
case = config.get("case") or "provider"
mirror = config.get("mirror") or ""
ready_delay = config.get("ready_delay") or ""
transport = config.get("readiness_provider") or "dynamic"
kubeconfig = Path(config.require("kubeconfig_file")).read_text()


def worker_mirror(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
    """A registry mirror for the worker's image (the engine calls it before registering a child)."""
    if args.type_ != DEPLOYMENT or "vllmworker" not in args.props["metadata"]["name"]:
        return None
    props: dict[str, Any] = copy.deepcopy(dict(args.props))
    template = props["spec"]["template"]
    for container in template["spec"]["containers"]:
        container["image"] = container["image"].replace("nvcr.io/", f"{mirror}/", 1)
    if ready_delay:
        template["metadata"].setdefault("annotations", {})[KWOK_DELAY] = ready_delay
    return pulumi.ResourceTransformResult(props, args.opts)


local = k8s.Provider("local", kubeconfig=kubeconfig, namespace=config.require("namespace"),
                     enable_server_side_apply=case != "no-ssa")
graph = DynamoGraphDeployment(
    "vllm-agg", default_graph_path(),
    opts=pulumi.ResourceOptions(provider=local, transforms=[worker_mirror] if mirror else None),
    adopt=case == "adopt",
    readiness=ReadinessOptions(timeout="2m", provider=transport),
)
readiness: Any = graph.readiness
pulumi.export("readiness", {key: getattr(readiness, key) for key in
                            ("namespace", "targets", "revision", "ambient", "cluster", "state")})
