"""V-FS (rule 32) and V-SIDECAR (rule 33): containers that receive Dynamo defaults besides ``main``.

``frontendSidecar`` names a user container that gets frontend defaults, so it must exist in every
template the component renders. An init container named ``runtime`` switches the component to
Dynamo sidecar mode: the runtime runs beside the engine (``main``) as a restartable init container,
which only the single-node worker layouts support today.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.constants import MAIN_CONTAINER_NAME
from dynamo_pulumi.validation.component_common import (
    container_index,
    has_container_named,
    has_role_pod_templates,
    image_of,
    is_blank,
    is_worker_component,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

CONTAINER_RESTART_POLICY_ALWAYS = "Always"


def validate_frontend_sidecar(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """The named container must exist in the component template, or in every role template."""
    name = comp.frontend_sidecar
    if name is None:
        return []
    sidecar_path = path.child("frontendSidecar")
    if name == "":
        return [invalid(sidecar_path, name, "must not be empty")]
    if has_role_pod_templates(comp):
        return [
            invalid(
                path.child("roles").index(i).child("podTemplate", "spec", "containers"),
                name,
                "must contain the container named by frontendSidecar",
            )
            for i, role in enumerate(comp.roles or [])
            if role.pod_template is not None and not has_container_named(role.pod_template, name)
        ]
    if comp.pod_template is None:
        return [required(path.child("podTemplate", "spec", "containers"), "is required when frontendSidecar is set")]
    if not has_container_named(comp.pod_template, name):
        return [invalid(sidecar_path, name, "must match a podTemplate.spec.containers name")]
    return []


def validate_dynamo_sidecar(comp: ComponentSpecFields, path: Path, component_name: str) -> list[FieldError]:
    """``ValidateDynamoSidecar``: the ``runtime`` init container contract, when present."""
    template = comp.pod_template
    index = container_index(template, pods.RUNTIME_INIT_CONTAINER, "initContainers")
    if index < 0:
        return []
    runtime = pods.init_containers(template)[index]
    runtime_path = path.child("podTemplate", "spec", "initContainers").index(index)
    detail = f'component "{component_name}" with a runtime init container'
    errors: list[FieldError] = []
    if not is_worker_component(comp.type):
        errors.append(forbidden(runtime_path.child("name"), "is supported only for worker, prefill, and decode components"))
    policy = runtime.get("restartPolicy")
    if policy != CONTAINER_RESTART_POLICY_ALWAYS:
        errors.append(invalid(runtime_path.child("restartPolicy"), policy or "", f"must be Always for {detail}"))
    errors += _engine_errors(comp, path, detail)
    errors += _unsupported_feature_errors(comp, path, detail)
    return errors


def _engine_errors(comp: ComponentSpecFields, path: Path, detail: str) -> list[FieldError]:
    containers_path = path.child("podTemplate", "spec", "containers")
    main_index = container_index(comp.pod_template, MAIN_CONTAINER_NAME)
    if main_index < 0:
        return [required(containers_path, f"main engine container is required for {detail}")]
    if is_blank(image_of(pods.containers(comp.pod_template)[main_index])):
        return [required(containers_path.index(main_index).child("image"), f"engine image is required for {detail}")]
    return []


def _unsupported_feature_errors(comp: ComponentSpecFields, path: Path, detail: str) -> list[FieldError]:
    message = f"is not currently supported for {detail}; support is planned for a future release"
    errors: list[FieldError] = []
    if comp.multinode is not None:
        errors.append(forbidden(path.child("multinode"), message))
    experimental = comp.experimental
    if experimental is None:
        return errors
    experimental_path = path.child("experimental")
    if experimental.checkpoint is not None and experimental.checkpoint.enabled:
        errors.append(forbidden(experimental_path.child("checkpoint", "enabled"), message))
    if experimental.gpu_memory_service is not None:
        errors.append(forbidden(experimental_path.child("gpuMemoryService"), message))
    if experimental.failover is not None:
        errors.append(forbidden(experimental_path.child("failover"), message))
    return errors
