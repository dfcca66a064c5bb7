"""Disaggregated vLLM graph with the SLA planner, on a cluster running the Dynamo operator.

The planner scales through the Kubernetes API (it reads and patches the DynamoGraphDeployment and
its scaling adapters), so the graph is deployed in operator mode: Pulumi creates the DGD custom
resource, the operator expands it. The platform file points the planner at Prometheus (it needs
metrics to scale). See examples/operator-mode for installing the operator from the same program.

    pulumi stack init dev && pulumi up
"""

from pathlib import Path

import pulumi

from dynamo_pulumi.program import deploy

HERE = Path(__file__).resolve().parent
config = pulumi.Config()

graph = deploy(
    HERE / "graph.yaml",
    namespace=config.get("namespace") or "dynamo",
    platform=HERE / "platform.yaml",
    mode="operator",
)
pulumi.export("workers", graph.component_outputs.apply(
    lambda components: {name: c["workloadNames"] for name, c in components.items() if c["gpus"]}
))
