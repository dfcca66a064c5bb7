"""The readiness resource through the ``dynamo`` provider plugin (``ReadinessOptions(provider="plugin")``).

Same inputs, outputs and resource name as the dynamic :class:`~.readiness.GraphReadiness`; only
the type differs (``dynamo:index:GraphReadiness``, served by ``pulumi-resource-dynamo``, which
must be installed where the engine finds plugins: see the README). The resource carries an
alias to the dynamic type, so a stack moving to the plugin sees one replacement of the same
resource (same name and parent) rather than an unrelated create and delete; either is cheap: the
resource owns no cluster object, and the new one's wait returns at once for a ready graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pulumi

TYPE: Final = "dynamo:index:GraphReadiness"
#: The dynamic resource's type: the alias a stack moving to the plugin gives.
DYNAMIC_TYPE: Final = "pulumi-python:dynamic/dynamo:GraphReadiness"


class PluginGraphReadiness(pulumi.CustomResource):
    """Waits, during ``pulumi up``, until the graph it watches is ready (the plugin transport)."""

    state: pulumi.Output[str]
    ready: pulumi.Output[dict[str, Any]]
    components: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[dict[str, Any]]]

    def __init__(self, name: str, props: Mapping[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        own = pulumi.ResourceOptions(additional_secret_outputs=["kubeconfig"], aliases=[pulumi.Alias(type_=DYNAMIC_TYPE)])
        outputs = {**props, "state": None, "ready": None, "components": None, "drift": None}
        super().__init__(TYPE, name, outputs, pulumi.ResourceOptions.merge(own, opts))

