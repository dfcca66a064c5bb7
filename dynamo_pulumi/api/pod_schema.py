"""The core/v1 types embedded in Dynamo objects, checked as the API server checks them.

The CRDs embed core/v1 OpenAPI schemas: v1beta1 ``podTemplate`` and ``roles[j].podTemplate``
(``PodTemplateSpec``) and ``spec.env`` (``EnvVar``); v1alpha1 ``extraPodSpec`` (``PodSpec``
with no required field, plus ``mainContainer``, a ``Container`` whose name is optional),
``livenessProbe``/``readinessProbe``, ``envs`` and ``resources.claims``. The API server
validates a request against the schema of the version it was sent in, after the mutating
webhook and before the CEL rules and any validating webhook; a failure there rejects the
request (api-and-validation.md section 0). The models keep these values as plain mappings (so
``pulumi.Output`` values can sit at their leaves), so this module applies the schema to them:

* at load time, together with the models' own schema errors
  (:func:`dynamo_pulumi.api.parse.parse_object`, :func:`dynamo_pulumi.api.conversion.parse_alpha`,
  alpha errors at alpha paths);
* in admission's schema stage for objects built in Python (:func:`object_errors`, run by
  :mod:`dynamo_pulumi.validation` before CEL; the webhook does not run when it fails).

The schema is the ``kubernetes-validate`` copy of Kubernetes 1.36, whose types and required
fields match the CRDs' embedded copy field for field, derived once and shipped in
``data/pod-schema.json`` (:mod:`dynamo_pulumi.api.pod_schema_build`) and checked by
:mod:`dynamo_pulumi.api.schema_check` (``jsonschema``'s semantics, without its import cost). Unknown fields are errors, as ``kubectl
apply`` (strict field validation, the default since Kubernetes 1.27) reports them: ``unknown
field "<full path>"``, with the nearest declared name when one is close (``imagePullPolcy`` ->
``imagePullPolicy``). Adjusted to what the CRD states:

* ``metadata`` keeps only name/namespace/labels/annotations/finalizers (the CRD declares no
  other field there, so any other is unknown);
* int-or-string and quantity fields are ``anyOf: [integer, string]``; a quantity string must
  match the CRD's quantity pattern, and a fractional number (``cpu: 0.5``) is refused;
* a ``null`` on a field is pruned before validation (so it counts as unset).

Reported: types, required fields, quantity patterns, int32/int64 ranges. The embedded schema
states no enums, so none are reported. A ``pulumi.Output``, a parked Output token
(:data:`dynamo_pulumi.floor.placeholders.OUTPUT_TOKEN_RE`) or any other non-JSON value is unknown
until deploy time: never an error, nor is anything below it; a string with a token inside is
a string whose text is unknown, so it never fails a pattern.

Two v1beta1 positions have no schema in the CRD (``type: object`` +
``x-kubernetes-preserve-unknown-fields``): ``experimental.checkpoint.job.podTemplate`` and
``experimental.gpuMemoryService.extraClientPods[k].podTemplate``. Only the webhook's decoding
into ``corev1.PodTemplateSpec`` can fail there, on a wrong type, an out-of-range integer or a
bad quantity, never on a missing or unknown field (Go's decoder drops unknown fields); :func:`decoded_template_errors` checks them for the
webhook stage.

Wording is kube-openapi's as the API server prints it for a CRD (the helpers of
:mod:`dynamo_pulumi.api.parse`). A type error is ``Invalid value: "<json type>": <path> in
body must be of type <type>: "<json type>"``: kube-openapi hands the JSON type of the value,
not the value, to ``field.TypeInvalid``. A missing field is a bare ``Required value``. An
int32/int64 overflow is ``Checked value must be of type integer with format int32 in <path>``
(the API server files it at the object root; here it is at the field).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from dynamo_pulumi.api.pod_schema_names import (
    CONTAINER,
    ENV_VAR,
    KUBERNETES_SCHEMA_VERSION,
    POD_SPEC,
    POD_TEMPLATE_SPEC,
    PROBE,
    QUANTITY_PATTERN,
    RESOURCE_CLAIM,
)
from dynamo_pulumi.api.schema_check import Checker, SchemaError
from dynamo_pulumi.api.wire_errors import type_invalid, unknown_field, wire_path
from dynamo_pulumi.errors import ErrorType, FieldError, Path, invalid, required
from dynamo_pulumi.floor.placeholders import contains_output_token, is_output_token
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.floor.suggest import nearest

__all__ = [
    "CONTAINER",
    "ENV_VAR",
    "KUBERNETES_SCHEMA_VERSION",
    "POD_SPEC",
    "POD_TEMPLATE_SPEC",
    "PROBE",
    "QUANTITY_PATTERN",
    "RESOURCE_CLAIM",
    "alpha_object_errors",
    "component_errors",
    "decoded_template_errors",
    "field_errors_of",
    "field_of",
    "object_errors",
    "plain_json",
    "pod_template_errors",
    "schema_errors",
]

#: The adjusted definitions (:mod:`dynamo_pulumi.api.pod_schema_build`), shipped with the package,
#: one file per variant (the decoded one is read only for a schemaless position).
SCHEMA_FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class _Unknown:
    """Stands in for a value known only at deploy time; every error on it is dropped."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


# --- the schema ---------------------------------------------------------------------------------


def schema_file(variant: str) -> str:
    return os.path.join(SCHEMA_FOLDER, f"pod-schema-{variant}.json")


@lru_cache(maxsize=2)
def _table(variant: str) -> dict[str, Any]:
    """One shipped variant (``strict`` or ``decoded``); its keywords were checked when it was
    derived (:func:`dynamo_pulumi.api.schema_check.verify`, in the test that holds it current)."""
    with open(schema_file(variant), encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


def _check_int_format(fmt: str) -> Any:
    low, high = _INT_RANGES[fmt]

    def check(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        return low <= value <= high

    return check


_FORMATS = {fmt: _check_int_format(fmt) for fmt in _INT_RANGES}


@lru_cache(maxsize=16)
def _validator(definition: str, decoded: bool = False) -> Checker:
    """The checker of one definition; ``decoded``: a schemaless position, checked only as the
    webhook's Go decoding would (no required fields, closed to nothing; a quantity may be any
    number)."""
    return Checker(_table("decoded" if decoded else "strict"), definition, _FORMATS)


# --- one value against one definition ----------------------------------------------------------


def plain_json(value: Any, *, prune_nulls: bool = True) -> Any:
    """``value`` as plain JSON: nulls in mappings pruned (unless ``prune_nulls`` is false: an
    object the API server validates without pruning it first), unknown leaves as :data:`UNKNOWN`."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None and prune_nulls:
                continue  # a null on a non-nullable field is pruned, leaving it unset
            out[key if isinstance(key, str) else str(key)] = plain_json(item, prune_nulls=prune_nulls)
        return out
    if isinstance(value, (list, tuple)):
        return [plain_json(item, prune_nulls=prune_nulls) for item in value]
    if isinstance(value, str):
        return UNKNOWN if is_output_token(value) else value
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return UNKNOWN  # pulumi.Output, or any other value that is not JSON


def _expected_type(schema_type: Any) -> str:
    types = schema_type if isinstance(schema_type, list) else [schema_type]
    named = [t for t in types if t != "null"]
    return named[0] if named else "null"


def field_errors_of(error: SchemaError, prefix: str) -> Iterator[FieldError]:
    """One failed keyword as the API server's field errors, at wire paths under ``prefix``."""
    value = error.instance
    if value is UNKNOWN:
        return
    path = wire_path(error.path, prefix)
    kind = error.keyword
    if kind == "required":
        for name in error.value:
            if name not in value:
                yield required(wire_path([name], path))
    elif kind == "type":
        yield type_invalid(path, value, _expected_type(error.value))
    elif kind == "anyOf":
        # int-or-string / quantity (anyOf integer, string): a string fails only its pattern.
        pattern = next((s.get("pattern") for s in error.value if "pattern" in s), None)
        if isinstance(value, str) and pattern is not None:
            if not contains_output_token(value):
                yield _pattern_error(path, value, pattern)
        else:
            yield invalid(path, "", f'"{path}" must validate at least one schema (anyOf)')
            first = error.value[0].get("type", "integer")  # kube-openapi: first branch
            yield type_invalid(path, value, _expected_type(first))
    elif kind == "additionalProperties":
        declared = list(error.schema.get("properties") or {})
        for name in value:
            if name not in declared:
                yield unknown_field(wire_path([name], path), _nearest(name, declared))
    elif kind == "format":
        yield invalid(path, "", f"Checked value must be of type integer with format {error.value} in {path}")
    elif kind == "pattern" and not contains_output_token(value):
        yield invalid(path, value, f"{path} in body should match '{error.value}'")


#: A map key inside a resource list: ``limits.nvidia.com/gpu`` is the key ``nvidia.com/gpu``.
_RESOURCE_KEY = re.compile(r"\.(limits|requests)\.(.+)$")
QUANTITY_BRIEF = "is not a quantity"
QUANTITY_FIX = 'write a number with an optional suffix, such as "2", "500m" or "8Gi" (GPUs: a whole number)'


def _pattern_error(path: str, value: str, pattern: str) -> FieldError:
    """kube-openapi's pattern error, in its words (JSON ``message``); a quantity's is at the
    resource's key as ``limits[nvidia.com/gpu]`` (as every other error names it), and the text
    output says "is not a quantity" with an example instead of printing the regular expression."""
    error = invalid(path, value, f"{path} in body should match '{pattern}'")
    if pattern != QUANTITY_PATTERN:
        return error
    keyed = _RESOURCE_KEY.sub(lambda m: f".{m.group(1)}[{m.group(2)}]", path)
    return replace(error, path=keyed, brief=QUANTITY_BRIEF, fix=QUANTITY_FIX)


def _nearest(name: str, declared: list[str]) -> str:
    """The declared field ``name`` most likely misspells ("" when none is close)."""
    return nearest(name, declared)


_INDEX = re.compile(r"\[(\d+)\]")


def _path_order(error: FieldError) -> str:
    """Errors in path order, list indices compared as numbers."""
    return _INDEX.sub(lambda m: f"[{int(m.group(1)):010d}]", error.path)


def schema_errors(
    value: Any,
    definition: str,
    path: Path | str,
    *,
    decoded: bool = False,
    optional: Iterable[str] = (),
) -> list[FieldError]:
    """Violations of the core/v1 ``definition`` (e.g. :data:`POD_TEMPLATE_SPEC`) by ``value``.

    ``decoded``: checked as the webhook's decoding would (no required fields). ``optional``:
    relative paths (``"containers"``) whose ``Required value`` the CRD does not state.
    ``None`` is not an error (nothing given); an unknown value never is.
    """
    if value is None:
        return []
    instance = plain_json(value)
    if instance is UNKNOWN:
        return []
    return list(_checked(definition, decoded, str(path), tuple(optional), repr(instance), instance))


#: Results of recent checks. Loading checks a template, then admission's schema stage checks the
#: same template again; on a large graph each check is a large share of ``validate``.
_RECENT: dict[tuple[str, bool, str, tuple[str, ...], str], tuple[FieldError, ...]] = {}
_RECENT_LIMIT = 256


def _checked(
    definition: str, decoded: bool, prefix: str, optional: tuple[str, ...], text: str, instance: Any
) -> tuple[FieldError, ...]:
    """The sorted errors of ``instance``, remembered by its exact ``repr`` (which tells apart
    every JSON type, and the unknown marker from any string)."""
    key = (definition, decoded, prefix, optional, text)
    found = _RECENT.get(key)
    if found is None:
        skipped = {wire_path([name], prefix) for name in optional}
        errors = [
            fe
            for error in _validator(definition, decoded).iter_errors(instance)
            for fe in field_errors_of(error, prefix)
            if not (fe.type is ErrorType.REQUIRED and fe.path in skipped)
        ]
        if len(_RECENT) >= _RECENT_LIMIT:
            _RECENT.pop(next(iter(_RECENT)))
        found = _RECENT[key] = tuple(sorted(errors, key=_path_order))
    return found


def pod_template_errors(template: Any, path: Path | str, *, embedded: bool = True) -> list[FieldError]:
    """Violations of the core/v1 PodTemplateSpec schema by ``template`` at ``path``.

    ``embedded=False`` for a position the CRD leaves schemaless (checked as the webhook decodes
    it: types, ranges and quantities, no required fields).
    """
    return schema_errors(template, POD_TEMPLATE_SPEC, path, decoded=not embedded)


# --- v1beta1: wire dicts (loading) and models (admission) ---------------------------------------


def _items(value: Any) -> list[tuple[int, Any]]:
    return list(enumerate(value)) if isinstance(value, (list, tuple)) else []


def field_of(node: Any, wire: str, attr: str) -> Any:
    """A field of a wire mapping or of a model."""
    if isinstance(node, Mapping):
        return node.get(wire)
    return getattr(node, attr, None)


def component_errors(comp: Any, path: str) -> list[FieldError]:
    """The schema-checked templates of one component (or DCD spec): ``podTemplate`` and
    ``roles[j].podTemplate``. ``comp`` is a wire mapping or a component model."""
    if comp is None:
        return []
    errors = pod_template_errors(field_of(comp, "podTemplate", "pod_template"), f"{path}.podTemplate")
    for j, role in _items(field_of(comp, "roles", "roles")):
        if role is not None:
            tpl = field_of(role, "podTemplate", "pod_template")
            errors += pod_template_errors(tpl, f"{path}.roles[{j}].podTemplate")
    return errors


def _env_errors(envs: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, env in _items(envs):
        errors += schema_errors(env, ENV_VAR, f"{path}[{i}]")
    return errors


def _kind(obj: Any) -> Any:
    return obj.get("kind") if isinstance(obj, Mapping) else getattr(obj, "kind", None)


def object_errors(obj: Any) -> list[FieldError]:
    """Embedded core/v1 schema violations of a v1beta1 DGD or DCD (wire mapping or model), at
    wire paths. Other kinds embed no core type."""
    spec = field_of(obj, "spec", "spec")
    if spec is None or isinstance(spec, (str, int, float, list)):
        return []
    kind = _kind(obj)
    if kind == "DynamoComponentDeployment":
        return component_errors(spec, "spec")
    if kind != "DynamoGraphDeployment":
        return []
    errors = _env_errors(field_of(spec, "env", "env"), "spec.env")
    for i, comp in _items(field_of(spec, "components", "components")):
        errors += component_errors(comp, f"spec.components[{i}]")
    return errors


def decoded_template_errors(comp: Any, path: Path) -> list[FieldError]:
    """The schemaless template positions of one component model, as the webhook decodes them."""
    experimental = getattr(comp, "experimental", None)
    if experimental is None:
        return []
    exp_path = path.child("experimental")
    errors: list[FieldError] = []
    checkpoint = experimental.checkpoint
    if checkpoint is not None and checkpoint.job is not None:
        errors += pod_template_errors(
            checkpoint.job.pod_template, exp_path.child("checkpoint", "job", "podTemplate"), embedded=False
        )
    gms = experimental.gpu_memory_service
    for k, pod in enumerate((gms.extra_client_pods or []) if gms is not None else []):
        errors += pod_template_errors(
            pod.pod_template,
            exp_path.child("gpuMemoryService", "extraClientPods").index(k).child("podTemplate"),
            embedded=False,
        )
    return errors


# --- v1alpha1 (wire dicts, alpha paths) ---------------------------------------------------------


def _alpha_service_errors(svc: Mapping[str, Any], path: str) -> list[FieldError]:
    """The core types of one alpha service: extraPodSpec (+ mainContainer), probes, envs, claims."""
    errors: list[FieldError] = []
    extra = svc.get("extraPodSpec")
    if isinstance(extra, Mapping):
        pod_spec = {k: v for k, v in extra.items() if k != "mainContainer"}
        # The alpha schema requires no field of extraPodSpec (the operator supplies containers).
        errors += schema_errors(pod_spec, POD_SPEC, f"{path}.extraPodSpec", optional=("containers",))
        # ... and not the main container's name (the operator names it "main").
        main_path = f"{path}.extraPodSpec.mainContainer"
        errors += schema_errors(extra.get("mainContainer"), CONTAINER, main_path, optional=("name",))
    elif extra is not None:
        errors += schema_errors(extra, POD_SPEC, f"{path}.extraPodSpec")
    for probe in ("livenessProbe", "readinessProbe"):
        errors += schema_errors(svc.get(probe), PROBE, f"{path}.{probe}")
    errors += _env_errors(svc.get("envs"), f"{path}.envs")
    sidecar = svc.get("frontendSidecar")
    if isinstance(sidecar, Mapping):
        errors += _env_errors(sidecar.get("envs"), f"{path}.frontendSidecar.envs")
    res = svc.get("resources")
    claims = res.get("claims") if isinstance(res, Mapping) else None
    for i, claim in _items(claims):
        errors += schema_errors(claim, RESOURCE_CLAIM, f"{path}.resources.claims[{i}]")
    return errors


def alpha_object_errors(data: Any) -> list[FieldError]:
    """Core/v1 schema violations inside a v1alpha1 DGD's services (or DCD spec) wire dict, at
    the alpha paths (``spec.services.<name>.extraPodSpec...``)."""
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
