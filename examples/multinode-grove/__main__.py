"""Multinode graph on Grove: one PodCliqueSet, Services per component.

    pulumi stack init dev && pulumi up
"""

from pathlib import Path

import pulumi

from dynamo_pulumi.program import deploy

HERE = Path(__file__).resolve().parent
config = pulumi.Config()

deploy(HERE / "graph.yaml", namespace=config.get("namespace") or "dynamo", platform=HERE / "platform.yaml")
