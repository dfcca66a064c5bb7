"""What a file given in the wrong place most likely is, so the error can say what to do.

Three mistakes are common enough to answer by name: a graph given as the platform file (the two
arguments swapped), a platform file given as the graph, and the Helm values of the
``dynamo-platform`` chart given as either. Each is recognised by its top-level keys only; the
answer names the argument it belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Top-level keys of the ``dynamo-platform`` Helm chart's values (deploy/helm/charts/platform).
HELM_VALUES_KEYS = frozenset({"dynamo-operator", "global", "grove", "kai-scheduler", "etcd", "nats"})
#: Kinds a graph file holds.
GRAPH_KINDS = frozenset({"DynamoGraphDeployment", "DynamoComponentDeployment", "DynamoGraphDeploymentScalingAdapter"})
PLATFORM_FLAG = "-p/--platform (platform= of the Pulumi components)"


def _platform_keys() -> set[str]:
    from dynamo_pulumi.platform import Platform  # late: the platform model is only needed here

    return {f.alias or n for n, f in Platform.model_fields.items()}


def helm_values_hint(data: Any) -> str:
    """The hint for a Helm values mapping ("" when ``data`` does not look like one)."""
    if not isinstance(data, Mapping):
        return ""
    keys = sorted(k for k in data if k in HELM_VALUES_KEYS)
    if not keys or "apiVersion" in data:
        return ""
    return (
        f"this looks like Helm values of the dynamo-platform chart (keys {', '.join(keys)}), not a Dynamo object "
        "or platform settings: a graph file holds a DynamoGraphDeployment (apiVersion: nvidia.com/v1beta1), and "
        f"the operator's settings go in a platform file given with {PLATFORM_FLAG}, in the operator "
        "configuration's key names (for example orchestrators.grove.enabled: true)"
    )


def graph_given_as_platform_hint(data: Any) -> str:
    """The hint for a Dynamo object given where platform settings belong ("" otherwise)."""
    if not isinstance(data, Mapping) or data.get("kind") not in GRAPH_KINDS:
        return ""
    return (
        f"this file holds a {data['kind']}, not platform settings: the graph is the FILE argument and "
        f"{PLATFORM_FLAG} takes the operator configuration and cluster facts; are the two arguments swapped?"
    )


def platform_given_as_graph_hint(data: Any) -> str:
    """The hint for platform settings given where a graph belongs ("" otherwise)."""
    if not isinstance(data, Mapping) or not data or not set(data) <= _platform_keys():
        return ""  # (apiVersion and kind are no platform keys: an object header never matches)
    return f"this looks like platform settings, not a Dynamo object: give it with {PLATFORM_FLAG}"
