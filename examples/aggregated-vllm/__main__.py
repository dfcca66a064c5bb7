"""Aggregated vLLM graph into an existing cluster (the current kubeconfig context).

    pulumi stack init dev && pulumi config set namespace dynamo && pulumi up
"""

from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.program import deploy

HERE = Path(__file__).resolve().parent
config = pulumi.Config()
namespace = config.get("namespace") or "dynamo"

ns = k8s.core.v1.Namespace("namespace", metadata={"name": namespace})
deploy(HERE / "graph.yaml", namespace=namespace, opts=pulumi.ResourceOptions(depends_on=[ns]))
