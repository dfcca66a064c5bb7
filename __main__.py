"""Root Pulumi program: deploys the graph named by stack config (see dynamo_pulumi/program.py)."""

from dynamo_pulumi.program import main

main()
