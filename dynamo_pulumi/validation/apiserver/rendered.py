"""The API server's semantic rules over a whole rendering, each error where the user wrote the
value: ``spec.components[1].podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]`` for
a value from the user's pod template, ``Deployment "g-frontend".spec.template.spec...`` for one
rendering made."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dynamo_pulumi.errors import FieldError, Path
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.validation.apiserver._common import mapping
from dynamo_pulumi.validation.apiserver.pod import (
    TEMPLATE_CONTROLLERS,
    controller_template_errors,
    pod_spec_errors,
    pod_specs,
)
from dynamo_pulumi.validation.apiserver.services import service_errors
from dynamo_pulumi.validation.apiserver.source_paths import user_field


def user_pod_specs(graph: Mapping[str, Any]) -> dict[str | None, tuple[str, Any]]:
    """Each component's pod spec as the user wrote it, with its path, keyed by component name
    (a standalone DCD's under None)."""
    spec = mapping(graph.get("spec"))
    found: dict[str | None, tuple[str, Any]] = {}
    if graph.get("kind") == "DynamoComponentDeployment":
        found[None] = ("spec.podTemplate.spec", _template_spec(spec))
        return found
    for i, component in enumerate(spec.get("components") or []):
        if isinstance(component, Mapping) and isinstance(component.get("name"), str):
            found[component["name"]] = (f"spec.components[{i}].podTemplate.spec", _template_spec(component))
    return found


def _template_spec(holder: Mapping[str, Any]) -> Any:
    template = holder.get("podTemplate")
    return template.get("spec") if isinstance(template, Mapping) else None


def semantic_errors(
    graph: Mapping[str, Any], objects: Sequence[Mapping[str, Any]], owners: Sequence[str | None]
) -> list[FieldError]:
    """Every semantic error of the rendered ``objects`` (``owners[i]``: the component that owns
    ``objects[i]``, None for graph-level ones), once per path and message."""
    sources = user_pod_specs(graph)
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for obj, owner in zip(objects, owners, strict=True):
        for error in _object_errors(obj, owner, sources):
            if (error.path, str(error)) not in seen:
                seen.add((error.path, str(error)))
                errors.append(error)
    return errors


def _object_errors(
    obj: Mapping[str, Any], owner: str | None, sources: Mapping[str | None, tuple[str, Any]]
) -> Iterator[FieldError]:
    where = _where(obj)
    controller = TEMPLATE_CONTROLLERS.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
    for spec_path, spec in pod_specs(obj.get("spec"), Path("spec")):
        candidates = _candidates(owner, sources)
        errors = pod_spec_errors(spec, Path())
        if controller is not None:
            errors += controller_template_errors(spec, Path(), controller)
        for error in errors:
            yield _placed(error, spec, candidates) or replace(error, path=f"{where}.{spec_path}.{error.path}")
    if obj.get("kind") == "Service" and obj.get("apiVersion") == "v1":
        for error in service_errors(obj):
            yield replace(error, path=f"{where}.{error.path}")


def _where(obj: Mapping[str, Any]) -> str:
    metadata = mapping(obj.get("metadata"))
    return f'{obj.get("kind", "object")} "{metadata.get("name", "")}"'


def _candidates(owner: str | None, sources: Mapping[str | None, tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The user pod specs a rendered pod spec may come from: its owner's (a standalone DCD's own),
    else every component's (Grove's PodCliqueSet holds all the cliques)."""
    if None in sources:
        return [sources[None]]
    if owner is not None and owner in sources:
        return [sources[owner]]
    return list(sources.values())


def _placed(error: FieldError, spec: Mapping[str, Any], candidates: Sequence[tuple[str, Any]]) -> FieldError | None:
    """``error`` at the user's field, showing the value as the user wrote it (rendering writes
    quantities canonically: ``0.5`` is rendered ``500m``)."""
    for prefix, user_spec in candidates:
        found = user_field(error.path, spec, user_spec) if user_spec is not None else None
        if found is not None:
            path, written = found
            value = written if isinstance(error.value, str) and isinstance(written, (str, int, float)) else error.value
            if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(error.value, str):
                value = str(value)
            return replace(error, path=f"{prefix}.{path}" if path else prefix, value=value)
    return None
