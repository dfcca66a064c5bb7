"""The package's name and type tokens, importable without the code behind them.

Kept apart so the plugin answers its first calls (info, schema, configuration) without
importing the renderer or ``pulumi_kubernetes``; the component tokens equal
:mod:`dynamo_pulumi.resources.components`' (a test holds them in step).
"""

from __future__ import annotations

from typing import Final

PACKAGE: Final = "dynamo"
DGD_TYPE: Final = "dynamo:index:DynamoGraphDeployment"
DCD_TYPE: Final = "dynamo:index:DynamoComponentDeployment"
READINESS_TYPE: Final = "dynamo:index:GraphReadiness"
#: What each component returns, schema name -> attribute of the Python component.
DGD_OUTPUTS: Final = {
    "dynamoNamespace": "dynamo_namespace", "frontendUrl": "frontend_url", "totalGpus": "total_gpus",
    "components": "component_outputs", "expansion": "expansion",
}
DCD_OUTPUTS: Final = {
    "workloadKind": "workload_kind", "workloadNames": "workload_names", "serviceName": "service_name",
    "replicas": "replicas", "gpus": "gpus", "expansion": "expansion",
}
