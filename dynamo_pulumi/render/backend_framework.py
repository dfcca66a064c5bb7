"""Which backend a DGD's workers run (``backendFramework``), as the DGD controller decides it.

Detection from the main container's command line wins; an explicit value must agree with it; two
different frameworks in one graph are an error (rendering-core 2.1 step 1, section 4).
"""

from __future__ import annotations

import re
from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.constants import MAIN_CONTAINER_NAME
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.naming import is_worker_type

_BACKEND_PATTERNS = {
    name: re.compile(rf"python[0-9.]*\s+[^|&;]*-m\s+[^|&;]*dynamo\.{name}[^|&;]*")
    for name in ("vllm", "sglang", "trtllm")
}


# --- backend framework ----------------------------------------------------------------------------


def detect_backend_from_command(command: list[Any] | None, args: list[Any] | None) -> str:
    """``DetectBackendFrameworkFromArgs``: "" when none matches; error when several do."""
    parts = [p for p in (command or []) + (args or []) if isinstance(p, str)]
    text = " ".join(parts)
    found = sorted(name for name, pattern in _BACKEND_PATTERNS.items() if pattern.search(text))
    if len(found) > 1:
        raise RenderError(f"multiple backend frameworks detected from command: {found} in {text!r}")
    return found[0] if found else ""


def main_container(pod_template: dict[str, Any] | None) -> dict[str, Any] | None:
    spec = (pod_template or {}).get("spec") or {}
    for container in spec.get("containers") or []:
        if isinstance(container, dict) and container.get("name") == MAIN_CONTAINER_NAME:
            return container
    return None


def component_backend_framework(component: dict[str, Any], explicit: str) -> str:
    """``determineBackendFramework`` for one component: detected wins, must agree with explicit."""
    if not is_worker_type(component.get("type")):
        return ""
    main = main_container(component.get("podTemplate")) or {}
    detected = detect_backend_from_command(main.get("command"), main.get("args"))
    if detected and explicit and detected != explicit:
        raise RenderError(
            f'backend framework mismatch: detected "{detected}" from command but explicitly '
            f'configured as "{explicit}"',
            f"spec.components[{component.get('name')}]",
        )
    return detected or explicit


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
