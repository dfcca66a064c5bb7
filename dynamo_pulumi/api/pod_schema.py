"""Schema checks of the Kubernetes core types embedded in Dynamo objects (PodSpec, Container).

The CRDs embed the core/v1 OpenAPI schema of PodSpec (v1beta1 ``podTemplate.spec``, v1alpha1
``extraPodSpec``), so the API server rejects a container without a name, a string where an
integer belongs, or (with kubectl's strict field validation) a misspelt field, before any webhook
runs. The models keep pod templates as plain mappings (so unresolved Pulumi values can sit at
leaves); this module applies the same schema to those mappings, using the strict core/v1 JSON
schema that ``kubernetes-validate`` ships for the Kubernetes minor the operator is built with,
and reports violations as the API server words them.

Not checked: enum-like fields (the embedded schema has no enums), formats and int32 ranges,
and ``metadata`` (the CRD keeps only name/namespace/labels/annotations/finalizers and prunes the
rest).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema
from referencing import Registry, Resource

from dynamo_pulumi.api.parse import openapi_type, unknown_field, wire_path
from dynamo_pulumi.errors import FieldError, invalid, required

#: The Kubernetes minor of the operator's k8s.io/api dependency (v0.36), and its schema folder.
KUBERNETES_SCHEMA_VERSION = "v1.36.0"
_SCHEMA_DIR = f"kubernetes-json-schema/{KUBERNETES_SCHEMA_VERSION}-local-strict"
_DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"
POD_SPEC = "io.k8s.api.core.v1.PodSpec"
CONTAINER = "io.k8s.api.core.v1.Container"
PROBE = "io.k8s.api.core.v1.Probe"
ENV_VAR = "io.k8s.api.core.v1.EnvVar"
RESOURCE_CLAIM = "io.k8s.api.core.v1.ResourceClaim"

#: The CRD's pattern for resource.Quantity strings (``x-kubernetes-int-or-string`` + pattern).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
#: A value only known at deploy time, parked as a token by :mod:`dynamo_pulumi.resources.unknowns`;
#: it may stand anywhere, so its type is not judged here.
UNRESOLVED_TOKEN = re.compile(r"^__dynamo_pulumi_output_\d+__$")
_RESOURCE_LISTS = ("limits", "requests")


@lru_cache(maxsize=1)
def _definitions() -> dict[str, Any]:
    package = resources.files("kubernetes_validate")
    return json.loads((package / _SCHEMA_DIR / "_definitions.json").read_text())  # type: ignore[no-any-return]


@lru_cache(maxsize=8)
def _validator(definition: str) -> jsonschema.protocols.Validator:
    registry: Registry = Resource.from_contents(_definitions()) @ Registry()
    schema = {"$ref": f"{_DEFINITIONS_ID}#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _expected_type(schema_type: Any) -> str:
    types = schema_type if isinstance(schema_type, list) else [schema_type]
    named = [t for t in types if t != "null"]
    return named[0] if named else "null"


def _is_unresolved(value: Any) -> bool:
    return isinstance(value, str) and bool(UNRESOLVED_TOKEN.match(value))


def _translate(error: jsonschema.ValidationError, prefix: str) -> list[FieldError]:
    path = wire_path(error.absolute_path, prefix)
    value = error.instance
    if error.validator == "required" and isinstance(value, Mapping):
        return [required(wire_path([name], path)) for name in error.validator_value if name not in value]
    if error.validator == "additionalProperties" and isinstance(value, Mapping):
        declared = error.schema.get("properties") or {}
        return [unknown_field(wire_path([k], path)) for k in value if k not in declared]
    if _is_unresolved(value):
        return []
    if error.validator == "type":
        expected = _expected_type(error.validator_value)
        return [invalid(path, value, f'{path} in body must be of type {expected}: "{openapi_type(value)}"')]
    if error.validator in ("oneOf", "anyOf"):
        # int-or-string (Quantity, IntOrString): the value is neither.
        return [invalid(path, value, f'{path} in body must be of type string: "{openapi_type(value)}"')]
    return [invalid(path, value, f"{path} in body {error.message}")]


def _quantity_errors(resources_: Any, path: str) -> Iterable[FieldError]:
    if not isinstance(resources_, Mapping):
        return
    for list_name in _RESOURCE_LISTS:
        entries = resources_.get(list_name)
        if not isinstance(entries, Mapping):
            continue
        for name, quantity in entries.items():
            if isinstance(quantity, str) and not _is_unresolved(quantity) and not re.match(QUANTITY_PATTERN, quantity):
                where = f"{path}.{list_name}.{name}"
                yield invalid(where, quantity, f"{where} in body should match '{QUANTITY_PATTERN}'")


def _container_quantity_errors(pod_spec: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        items = pod_spec.get(key)
        for i, ctr in enumerate(items if isinstance(items, list) else []):
            if isinstance(ctr, Mapping):
                errors += _quantity_errors(ctr.get("resources"), f"{path}.{key}[{i}].resources")
    return errors


def schema_errors(value: Any, definition: str, path: str) -> list[FieldError]:
    """Violations of the core/v1 ``definition`` (e.g. :data:`POD_SPEC`) by ``value`` at ``path``."""
    errors: list[FieldError] = []
    for error in sorted(_validator(definition).iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
        errors += _translate(error, path)
    return errors


def pod_spec_errors(pod_spec: Any, path: str, *, containers_required: bool = True) -> list[FieldError]:
    """A PodSpec at ``path``: schema types, required fields, unknown fields, quantity patterns.

    ``containers_required=False`` for alpha ``extraPodSpec``, whose schema lists no required field.
    """
    errors = schema_errors(pod_spec, POD_SPEC, path)
    if not containers_required:
        errors = [e for e in errors if e.path != f"{path}.containers" or str(e.type) != "Required value"]
    if isinstance(pod_spec, Mapping):
        errors += _container_quantity_errors(pod_spec, path)
    return errors


def pod_template_errors(template: Any, path: str) -> list[FieldError]:
    """A PodTemplateSpec's ``spec`` (its metadata is pruned, not rejected, by the API server)."""
    if not isinstance(template, Mapping) or template.get("spec") is None:
        return []
    return pod_spec_errors(template["spec"], f"{path}.spec")


# --- v1alpha1 ---------------------------------------------------------------------------------


def _alpha_service_errors(svc: Mapping[str, Any], path: str) -> list[FieldError]:
    """The core types of one alpha service: extraPodSpec (+ mainContainer), probes, envs, claims."""
    errors: list[FieldError] = []
    extra = svc.get("extraPodSpec")
    if isinstance(extra, Mapping):
        pod_spec = {k: v for k, v in extra.items() if k != "mainContainer"}
        errors += pod_spec_errors(pod_spec, f"{path}.extraPodSpec", containers_required=False)
        main = extra.get("mainContainer")
        if main is not None:
            main_path = f"{path}.extraPodSpec.mainContainer"
            errors += [
                e for e in schema_errors(main, CONTAINER, main_path) if e.path != f"{main_path}.name"
            ]  # the alpha schema does not require the main container's name
            if isinstance(main, Mapping):
                errors += list(_quantity_errors(main.get("resources"), f"{main_path}.resources"))
    for probe in ("livenessProbe", "readinessProbe"):
        if svc.get(probe) is not None:
            errors += schema_errors(svc[probe], PROBE, f"{path}.{probe}")
    errors += _env_errors(svc.get("envs"), f"{path}.envs")
    sidecar = svc.get("frontendSidecar")
    if isinstance(sidecar, Mapping):
        errors += _env_errors(sidecar.get("envs"), f"{path}.frontendSidecar.envs")
    res = svc.get("resources")
    claims = res.get("claims") if isinstance(res, Mapping) else None
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        errors += schema_errors(claim, RESOURCE_CLAIM, f"{path}.resources.claims[{i}]")
    return errors


def _env_errors(envs: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, env in enumerate(envs if isinstance(envs, list) else []):
        errors += schema_errors(env, ENV_VAR, f"{path}[{i}]")
    return errors


def alpha_embedded_errors(data: Any) -> list[FieldError]:
    """Core/v1 schema violations inside a v1alpha1 DGD's services (or DCD spec), at the
    kube-openapi paths (``spec.services.<name>.extraPodSpec...``)."""
    spec = data.get("spec") if isinstance(data, Mapping) else None
    if not isinstance(spec, Mapping):
        return []
    errors = _env_errors(spec.get("envs"), "spec.envs")
    if data.get("kind") == "DynamoComponentDeployment":
        return errors + _alpha_service_errors(spec, "spec")
    services = spec.get("services")
    if isinstance(services, Mapping):
        for name in sorted(services, key=str):
            if isinstance(services[name], Mapping):
                errors += _alpha_service_errors(services[name], f"spec.services.{name}")
    return errors
