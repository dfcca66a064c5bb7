"""Which backend a DGD's workers run (``backendFramework``), as the DGD controller decides it.

One rule for every caller: :func:`dynamo_pulumi.render.backends.select_backend_framework`
(``determineBackendFramework``): detection from the main container's command line wins, an
explicit value must agree with it, and an undetectable command only fails without an explicit
value. Here it is applied to a component's wire dict (:func:`component_backend_framework`) and to
the whole graph (:func:`graph_backend_framework`, where two different frameworks are an error;
rendering-core 2.1 step 1, section 4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.pods import main_container
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.render.backends import select_backend_framework

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment


def component_backend_framework(component: dict[str, Any], explicit: str) -> str:
    """``determineBackendFramework`` for one component (or DCD spec) wire dict; "" = none."""
    try:
        return select_backend_framework(component.get("type"), main_container(component.get("podTemplate")), explicit)
    except RenderError as err:
        raise RenderError(str(err), f"spec.components[{component.get('name')}]") from None


def graph_backend_framework(graph: DynamoGraphDeployment) -> str:
    """``backendFrameworkForGeneratedDCDs``: the explicit value, else the one detected from workers."""
    if graph.spec.backend_framework:
        return graph.spec.backend_framework
    detected = ""
    for component in graph.to_wire()["spec"].get("components") or []:
        framework = component_backend_framework(component, "")
        if framework and detected and framework != detected:
            raise RenderError(
                "multiple backend frameworks detected for generated DynamoComponentDeployments: "
                f"{detected} and {framework}",
                "spec.components",
            )
        detected = detected or framework
    return detected
