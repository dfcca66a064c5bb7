"""The legacy ``DYN_DEPLOYMENT_CONFIG`` env (rendering-core 2.1 step 9, Example 4).

A JSON map ``{<component>: {"port": .., "ServiceArgs": {"Workers": n, "Resources": {...}}}}`` on the
main container. For a frontend the operator rewrites it (port forced to 8000, Go's compact sorted
JSON); ``Workers`` fills nil replicas; ``Resources`` set requests and limits alike. Go decodes the
struct fields case-insensitively, so ``Workers``/``workers`` both count.
"""

from __future__ import annotations

import json
from typing import Any

from dynamo_pulumi.api.pods import main_container
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_FRONTEND,
    DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR,
    DYNAMO_SERVICE_PORT,
    KUBE_RESOURCE_GPU_NVIDIA,
)


def _service_config(config: dict[str, Any], component: str, frontend: bool) -> dict[str, Any] | None:
    if isinstance(config.get(component), dict):
        return config[component]
    if frontend:
        for name, value in config.items():
            if name.lower() == COMPONENT_TYPE_FRONTEND and isinstance(value, dict):
                return value
    return None


def _ci_get(mapping: dict[str, Any], key: str) -> Any:
    """Go's case-insensitive JSON field matching (an exact match wins)."""
    if key in mapping:
        return mapping[key]
    return next((v for k, v in mapping.items() if k.lower() == key.lower()), None)


def _go_json(value: Any) -> str:
    """Go ``json.Marshal`` of a decoded map: compact, sorted keys, HTML characters escaped."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _apply_resources(main: dict[str, Any], resources: dict[str, Any], path: str) -> None:
    """Set requests and limits for cpu, memory, nvidia.com/gpu and custom resources."""
    wanted: list[tuple[str, Any]] = [
        ("cpu", _ci_get(resources, "cpu")),
        ("memory", _ci_get(resources, "memory")),
        (KUBE_RESOURCE_GPU_NVIDIA, _ci_get(resources, "gpu")),
    ]
    custom = _ci_get(resources, "custom") or {}
    wanted += sorted(custom.items()) if isinstance(custom, dict) else []
    box = main.setdefault("resources", {})
    for name, value in wanted:
        if value is None or value == "":
            continue
        try:
            parse_quantity(value)
        except (ValueError, TypeError):
            raise RenderError(f"parse resource {name} quantity {value!r}: invalid quantity", path) from None
        box.setdefault("requests", {})[name] = value
        box.setdefault("limits", {})[name] = value


def apply_dyn_deployment_config(dcd: dict[str, Any], component: str) -> None:
    """``applyDynDeploymentConfig``: the legacy per-service JSON in ``DYN_DEPLOYMENT_CONFIG``."""
    spec = dcd["spec"]
    main = main_container(spec.get("podTemplate"))
    env = next((e for e in (main or {}).get("env") or [] if e.get("name") == DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR), None)
    if main is None or env is None or not isinstance(env.get("value", ""), str):
        return
    path = f"spec.components[{component}].podTemplate.spec.containers[main].env[{DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR}]"
    try:
        config = json.loads(env.get("value") or "null")
    except json.JSONDecodeError as exc:
        raise RenderError(f"invalid {DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR} JSON: {exc.msg}", path) from None
    if not isinstance(config, dict):
        return
    frontend = spec.get("type") == COMPONENT_TYPE_FRONTEND
    if frontend:
        target = _service_config(config, component, True)
        if target is not None:
            target["port"] = DYNAMO_SERVICE_PORT
        env["value"] = _go_json(config)
    service = _service_config(config, component, frontend)
    args = _ci_get(service, "ServiceArgs") if service else None
    if not isinstance(args, dict):
        return
    workers = _ci_get(args, "workers")
    if spec.get("replicas") is None and isinstance(workers, int):
        spec["replicas"] = workers
    resources = _ci_get(args, "resources")
    if isinstance(resources, dict):
        _apply_resources(main, resources, path)
