"""Small builders for the shared-component rule tests: components, contexts, and error text."""

from __future__ import annotations

import copy
from typing import Any

from dynamo_pulumi.api.v1beta1 import (
    DynamoComponentDeploymentSharedSpec,
    DynamoComponentDeploymentSpec,
)
from dynamo_pulumi.errors import Path
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation.component import validate_component, validate_component_update
from dynamo_pulumi.validation.context import ValidationContext

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"
DGD_PATH = Path("spec", "components").index(0)
DCD_PATH = Path("spec")
P = "spec.components[0]"


def main(image: str | None = IMAGE, **extra: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main"}
    if image is not None:
        container["image"] = image
    return container | extra


def template(*containers: dict[str, Any], init: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {"containers": list(containers)} | spec
    if init is not None:
        pod_spec["initContainers"] = init
    return {"spec": pod_spec}


def worker(**wire: Any) -> dict[str, Any]:
    """A valid single-node worker in wire form; keyword arguments replace top-level fields."""
    base: dict[str, Any] = {"name": "worker", "type": "worker", "podTemplate": template(main())}
    base.update(wire)
    return {k: v for k, v in base.items() if v is not None}


def dgd_comp(wire: dict[str, Any]) -> DynamoComponentDeploymentSharedSpec:
    return DynamoComponentDeploymentSharedSpec.model_validate(copy.deepcopy(wire))


def dcd_spec(wire: dict[str, Any]) -> DynamoComponentDeploymentSpec:
    return DynamoComponentDeploymentSpec.model_validate(copy.deepcopy(wire))


def dgd_ctx(operation: str = "create", **kw: Any) -> ValidationContext:
    return ValidationContext(kind="DynamoGraphDeployment", operation=operation, **kw)  # type: ignore[arg-type]


def dcd_ctx(operation: str = "create", **kw: Any) -> ValidationContext:
    return ValidationContext(kind="DynamoComponentDeployment", operation=operation, **kw)  # type: ignore[arg-type]


def grove_ctx(operation: str = "create", **kw: Any) -> ValidationContext:
    """A DGD on the Grove pathway whose workload provider annotation is materialized."""
    platform = kw.pop("platform", Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}}))
    return dgd_ctx(operation, platform=platform, workload_provider="grove", grove_pathway=True, **kw)


def errors(wire: dict[str, Any], ctx: ValidationContext | None = None) -> list[str]:
    """kubectl-style lines for one DGD component (or a DCD spec when ctx is a DCD context)."""
    ctx = ctx or dgd_ctx()
    if ctx.in_dgd:
        findings = validate_component(dgd_comp(wire), DGD_PATH, ctx)
    else:
        findings = validate_component(dcd_spec(wire), DCD_PATH, ctx)
    return [str(e) for e in findings.errors]


def update_errors(old: dict[str, Any], new: dict[str, Any], ctx: ValidationContext | None = None) -> list[str]:
    """kubectl-style lines of the transition rules between two component versions."""
    ctx = ctx or dgd_ctx("update")
    if ctx.in_dgd:
        findings = validate_component_update(dgd_comp(old), dgd_comp(new), DGD_PATH, ctx)
    else:
        findings = validate_component_update(dcd_spec(old), dcd_spec(new), DCD_PATH, ctx)
    return [str(e) for e in findings.errors]
