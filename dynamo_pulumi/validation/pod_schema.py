"""Every pod template of a component checked against the core/v1 ``PodTemplateSpec`` schema.

The DGD/DCD CRDs embed the core/v1 OpenAPI schema of ``PodTemplateSpec`` at ``podTemplate`` and
``roles[j].podTemplate``, and the API server checks it before any webhook runs. At
``experimental.checkpoint.job.podTemplate`` and
``experimental.gpuMemoryService.extraClientPods[k].podTemplate`` the CRD has no schema
(``type: object`` + ``x-kubernetes-preserve-unknown-fields``): there only the webhook's decoding
into ``corev1.PodTemplateSpec`` can fail, which it does on a wrong type, an out-of-range integer
or a bad quantity, never on a missing field (a checkpoint job template is a partial overlay). So
those positions get the type checks without the required-field checks, and quantities there may
be any number (Go's ``Quantity`` decodes ``0.5``). The models keep all these templates as plain
dicts, so ``pulumi.Output`` values can sit at their leaves; this module applies the schema to
those dicts.

The schema is the ``PodTemplateSpec`` definition that ``kubernetes-validate`` ships for
Kubernetes 1.34 (non-strict, so unknown fields are not reported: the CRD keeps them), adjusted
to what the CRD itself states where the two differ:

* ``metadata`` keeps only name/namespace/labels/annotations/finalizers (the rest is pruned, never
  rejected);
* int-or-string and quantity fields are ``anyOf: [integer, string]`` (a quantity string must match
  the CRD's quantity pattern; a fractional number such as ``cpu: 0.5`` is refused, as the API
  server refuses it in a CRD);
* a ``null`` on a field is pruned before validation (so it counts as unset).

Reported: types, required fields, quantity patterns and int32/int64 ranges. The embedded schema
states no enums (``restartPolicy: Sometimes`` is admitted by the API server and only fails when
the Pod is created), so none are reported. A ``pulumi.Output``, a parked Output token, or any
other non-JSON value is unknown until deploy time: it is never an error, nor is anything below it.

Types, required fields and integer formats of this schema match the CRD's embedded copy field
for field (the CRD adds only ``schedulingGroup`` and ``podCertificate.userAnnotations``, which
are unknown fields here, so never reported).

Wording follows kube-openapi as the API server prints it for a CRD, with the helpers of
:mod:`dynamo_pulumi.api.parse`. A type error is ``Invalid value: "<json type>": <path> in body
must be of type <type>: "<json type>"``: kube-openapi's type validator hands the JSON type of
the value, not the value, to ``field.TypeInvalid``. A missing field is a bare ``Required
value``. An int32/int64 overflow is kube-openapi's ``Checked value must be of type integer with
format int32 in <path>`` (the API server files it at the object root; here it is at the field).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

import jsonschema
from referencing import Registry, Resource

from dynamo_pulumi.api.parse import openapi_type, wire_path
from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
from dynamo_pulumi.errors import FieldError, Path, invalid, required

#: The kubernetes-validate schema folder (non-strict: unknown fields are allowed).
KUBERNETES_SCHEMA_VERSION = "v1.34.0"
_SCHEMA_DIR = f"kubernetes-json-schema/{KUBERNETES_SCHEMA_VERSION}-local"
_DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"
POD_TEMPLATE_SPEC = "io.k8s.api.core.v1.PodTemplateSpec"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
#: The ObjectMeta fields the CRD keeps in an embedded template's metadata.
_KEPT_METADATA = ("name", "namespace", "labels", "annotations", "finalizers")

#: The CRD's pattern for resource.Quantity strings (``x-kubernetes-int-or-string`` + pattern).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
#: A parked ``pulumi.Output`` (:mod:`dynamo_pulumi.resources.unknowns`): the whole string is a token.
_OUTPUT_TOKEN = re.compile(r"__dynamo_pulumi_output_[0-9A-Za-z]+__")
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class _Unknown:
    """Stands in for a value known only at deploy time; every error on it is dropped."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


def _int_or_string(pattern: str | None = None, number: str = "integer") -> dict[str, Any]:
    string: dict[str, Any] = {"type": "string"}
    if pattern is not None:
        string["pattern"] = pattern
    return {"anyOf": [{"type": number}, string], "x-kubernetes-int-or-string": True}


def _load_definitions() -> dict[str, Any]:
    package = resources.files("kubernetes_validate")
    return json.loads((package / _SCHEMA_DIR / "_definitions.json").read_text())  # type: ignore[no-any-return]


def _adjusted(defs: dict[str, Any], *, decoded: bool) -> dict[str, Any]:
    """The 1.34 definitions, adjusted to what the CRD states (see the module docstring).

    ``decoded``: a schemaless position, checked only as the webhook's Go decoding would (no
    required fields; a quantity may be any number).
    """
    out = dict(defs)
    table = dict(defs["$defs"])
    meta = copy.deepcopy(table[_OBJECT_META])
    meta["properties"] = {k: v for k, v in meta["properties"].items() if k in _KEPT_METADATA}
    table[_OBJECT_META] = meta
    table[_QUANTITY] = _int_or_string(QUANTITY_PATTERN, "number" if decoded else "integer")
    table[_INT_OR_STRING] = _int_or_string()
    if decoded:
        table = {name: _without_required(schema) for name, schema in table.items()}
    out["$defs"] = table
    return out


def _without_required(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_required(v) for k, v in schema.items() if k != "required"}
    if isinstance(schema, list):
        return [_without_required(v) for v in schema]
    return schema


def _check_int_format(fmt: str) -> Any:
    low, high = _INT_RANGES[fmt]

    def check(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        return low <= value <= high

    return check


def _build_validator(defs: dict[str, Any]) -> jsonschema.protocols.Validator:
    registry: Registry = Resource.from_contents(defs) @ Registry()
    formats = jsonschema.FormatChecker(formats=())
    for fmt in _INT_RANGES:
        formats.checks(fmt)(_check_int_format(fmt))
    schema = {"$ref": f"{_DEFINITIONS_ID}#/$defs/{POD_TEMPLATE_SPEC}"}
    return jsonschema.Draft202012Validator(schema, registry=registry, format_checker=formats)


def _build_validators() -> tuple[jsonschema.protocols.Validator, jsonschema.protocols.Validator]:
    defs = _load_definitions()
    return (
        _build_validator(_adjusted(defs, decoded=False)),
        _build_validator(_adjusted(defs, decoded=True)),
    )


#: Compiled once, at import (about 20 ms): the CRD-embedded schema and the decode-only variant.
_VALIDATOR, _DECODE_VALIDATOR = _build_validators()


def _is_json_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _plain(value: Any) -> Any:
    """``value`` as plain JSON: nulls in mappings pruned, unknown leaves as :data:`UNKNOWN`."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue  # a null on a non-nullable field is pruned, leaving it unset
            out[key if isinstance(key, str) else str(key)] = _plain(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return UNKNOWN if _OUTPUT_TOKEN.fullmatch(value) else value
    if value is None or _is_json_scalar(value):
        return value
    return UNKNOWN  # pulumi.Output, or any other value that is not JSON


def _expected_type(schema_type: Any) -> str:
    types = schema_type if isinstance(schema_type, list) else [schema_type]
    named = [t for t in types if t != "null"]
    return named[0] if named else "null"


def _type_error(path: str, value: Any, expected: str) -> FieldError:
    got = openapi_type(value)
    return invalid(path, got, f'{path} in body must be of type {expected}: "{got}"')


def _translate(error: jsonschema.ValidationError, prefix: str) -> Iterator[FieldError]:
    value = error.instance
    if value is UNKNOWN:
        return
    path = wire_path(error.absolute_path, prefix)
    kind = error.validator
    if kind == "required" and isinstance(value, Mapping):
        for name in error.validator_value:
            if name not in value:
                yield required(wire_path([name], path))
    elif kind == "type":
        yield _type_error(path, value, _expected_type(error.validator_value))
    elif kind == "anyOf":
        # int-or-string / quantity (anyOf integer, string): a string fails only its pattern.
        pattern = next((s.get("pattern") for s in error.validator_value if "pattern" in s), None)
        if isinstance(value, str) and pattern is not None:
            yield invalid(path, value, f"{path} in body should match '{pattern}'")
        else:
            yield invalid(path, "", f'"{path}" must validate at least one schema (anyOf)')
            first = error.validator_value[0].get("type", "integer")  # kube-openapi: first branch
            yield _type_error(path, value, _expected_type(first))
    elif kind == "format" and error.validator_value in _INT_RANGES:
        fmt = error.validator_value
        yield invalid(path, "", f"Checked value must be of type integer with format {fmt} in {path}")
    elif kind == "pattern":
        yield invalid(path, value, f"{path} in body should match '{error.validator_value}'")
    else:
        yield invalid(path, value, f"{path} in body {error.message}")


_INDEX = re.compile(r"\[(\d+)\]")


def _path_order(error: FieldError) -> str:
    """Errors in path order, list indices compared as numbers."""
    return _INDEX.sub(lambda m: f"[{int(m.group(1)):010d}]", error.path)


def pod_template_errors(template: Any, path: Path | str, *, embedded: bool = True) -> list[FieldError]:
    """Violations of the core/v1 PodTemplateSpec schema by ``template`` at ``path``.

    ``embedded=False`` for a position the CRD leaves schemaless (checked as the webhook decodes
    it: types, ranges and quantities, no required fields). ``None`` (no template) is not an
    error; a ``pulumi.Output`` in place of the whole template (or anywhere inside it) is unknown,
    never an error.
    """
    if template is None:
        return []
    prefix = str(path)
    instance = _plain(template)
    if instance is UNKNOWN:
        return []
    validator = _VALIDATOR if embedded else _DECODE_VALIDATOR
    errors = [fe for error in validator.iter_errors(instance) for fe in _translate(error, prefix)]
    return sorted(errors, key=_path_order)


def validate_pod_templates(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Every pod template of one component (or DCD spec) at its wire path."""
    errors = pod_template_errors(comp.pod_template, path.child("podTemplate"))
    for j, role in enumerate(comp.roles or []):
        errors += pod_template_errors(role.pod_template, path.child("roles").index(j).child("podTemplate"))
    experimental = comp.experimental
    if experimental is None:
        return errors
    exp_path = path.child("experimental")
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
