"""Root Pulumi program: deploys the graph named by stack config (see dynamo_pulumi/program/graph_program.py)."""

from dynamo_pulumi.program import main

main()
