"""The Pulumi type tokens of the two components, as the engine and a schema name them.

The in-process Python components register under these tokens and the provider plugin serves
them (``Construct``), so a stack keeps its URNs whichever door made it; the offline diff names
the component resources by the same token. Plain strings: no Pulumi import.
"""

from __future__ import annotations

DGD_TYPE = "dynamo:index:DynamoGraphDeployment"
DCD_TYPE = "dynamo:index:DynamoComponentDeployment"
