"""Disaggregated vLLM graph with the SLA planner on an existing cluster.

The platform file points the planner at Prometheus (it needs metrics to scale).

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
)
pulumi.export("workers", graph.component_outputs.apply(
    lambda components: {name: c["workloadNames"] for name, c in components.items() if c["gpus"]}
))
