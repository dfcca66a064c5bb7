"""``eppConfig.config``, the legacy EPP's ``EndpointPickerConfig``, checked as the API server does.

The DGD and DCD CRDs (both versions) carry the schema of the upstream type
(gateway-api-inference-extension ``apix/config/v1alpha1``): ``plugins`` and
``schedulingProfiles`` required, a plugin's ``type``, a profile's ``name`` and ``plugins``, a
profile plugin's ``pluginRef`` required, ``weight`` an integer; unknown fields are kept at the top
(``x-kubernetes-preserve-unknown-fields``) and refused below it (strict field validation).

What the schema is checked against is not what the user wrote but what the operator's defaulting
webhook hands back: it decodes the object into the Go types and answers with the patch to their
re-encoding (removals dropped), so every field of the upstream type without ``omitempty`` comes
back at its zero value (:func:`go_zero_filled`): ``name: ""``, ``type: ""``, ``pluginRef: ""``,
``parameters: null``, ``weight: null``, ``plugins: null``, ``schedulingProfiles: null``.

The API server validates that re-encoding as it is, nulls included, in either version (a v1alpha1
request goes to the v1beta1 webhook through the conversion webhook and back): a profile plugin
without ``weight`` is refused (``... weight in body must be of type integer: "null"``). Both were
seen on the real operator and API server: the v1alpha1 case in the recording of the corpus
``sglang-agg_epp.yaml`` (``docs/OPERATOR-AGREEMENT.md``), the v1beta1 case probed on 2026-12-03
with the same operator build (the prediction that the nulls would be pruned there was wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from functools import lru_cache
from typing import Any

from dynamo_pulumi.api.pod_schema import UNKNOWN, field_errors_of, field_of, plain_json
from dynamo_pulumi.api.schema_check import Checker
from dynamo_pulumi.errors import FieldError, invalid
from dynamo_pulumi.floor.go_duration import go_duration_string, go_parse_duration

#: The zero values Go writes for the EndpointPickerConfig fields without ``omitempty``.
PLUGIN_ZERO: dict[str, Any] = {"name": "", "type": "", "parameters": None}
PROFILE_ZERO: dict[str, Any] = {"name": "", "plugins": None}
PROFILE_PLUGIN_ZERO: dict[str, Any] = {"pluginRef": "", "weight": None}
_TOP_ZERO = ("plugins", "schedulingProfiles")
#: The fields of the Go type: decoding into it drops any other top-level key, so the objects the
#: operator writes from it (the EPP ConfigMap, the DCD) never hold one, although a v1beta1 DGD
#: keeps it (the CRD preserves unknown fields there, and the webhook's patch drops its removals);
#: a v1alpha1 DGD read back has lost it (the conversion webhook re-encodes the Go type whole).
GO_FIELDS = ("apiVersion", "kind", "plugins", "schedulingProfiles", "featureGates", "saturationDetector")
#: Top-level fields written only when not empty (``omitempty``): a whole re-encoding leaves them
#: out at their zero value (TypeMeta's strings, an empty ``featureGates``, no saturation detector).
_TOP_OMIT_EMPTY = ("apiVersion", "kind", "featureGates", "saturationDetector")
#: The saturation detector's numbers, ``omitempty`` too; its ``metricsStalenessThreshold`` is a
#: ``metav1.Duration``, a struct, which ``omitempty`` never leaves out: it is always written, in
#: ``Duration.String`` form (``0s`` when not given, ``90m`` back as ``1h30m0s``).
_SATURATION_OMIT_EMPTY = ("queueDepthThreshold", "kvCacheUtilThreshold")
STALENESS = "metricsStalenessThreshold"

_STRING = {"type": "string"}

#: The CRDs' schema of ``eppConfig.config`` (the same in v1alpha1 and v1beta1), in the JSON Schema
#: keywords :mod:`.schema_check` knows; closed objects below the top, as strict validation sees them.
SCHEMA: dict[str, Any] = {
    "EndpointPickerConfig": {
        "type": "object",
        "required": ["plugins", "schedulingProfiles"],
        "properties": {
            "apiVersion": _STRING,
            "kind": _STRING,
            "featureGates": {"type": "array", "items": _STRING},
            "plugins": {"type": "array", "items": {"$ref": "#/$defs/PluginSpec"}},
            "schedulingProfiles": {"type": "array", "items": {"$ref": "#/$defs/SchedulingProfile"}},
            "saturationDetector": {"$ref": "#/$defs/SaturationDetector"},
        },
    },
    "PluginSpec": {
        "type": "object",
        "required": ["type"],
        "properties": {"name": _STRING, "type": _STRING, "parameters": {}},
        "additionalProperties": False,
    },
    "SchedulingProfile": {
        "type": "object",
        "required": ["name", "plugins"],
        "properties": {"name": _STRING, "plugins": {"type": "array", "items": {"$ref": "#/$defs/SchedulingPlugin"}}},
        "additionalProperties": False,
    },
    "SchedulingPlugin": {
        "type": "object",
        "required": ["pluginRef"],
        "properties": {"pluginRef": _STRING, "weight": {"type": "integer"}},
        "additionalProperties": False,
    },
    "SaturationDetector": {
        "type": "object",
        "properties": {
            "kvCacheUtilThreshold": {"type": "number"},
            "metricsStalenessThreshold": _STRING,
            "queueDepthThreshold": {"type": "integer"},
        },
        "additionalProperties": False,
    },
}


def with_go_zero(entries: Any, zero: Mapping[str, Any], nulls: bool) -> Any:
    """Each mapping of ``entries`` with the fields of ``zero`` it lacks (or holds as null) at
    their zero value; ``nulls=False`` leaves out the zeros that are null (pruned)."""
    if not isinstance(entries, list):
        return entries
    base = {k: v for k, v in zero.items() if nulls or v is not None}
    return [{**base, **{k: v for k, v in e.items() if v is not None}} if isinstance(e, dict) else e
            for e in entries]


def _is_empty(value: Any) -> bool:
    """Go's ``omitempty`` test for the JSON values the Go type's fields can hold."""
    return value is None or value == "" or (value == 0 and not isinstance(value, bool)) or value == [] or value == {}


def _written_whole(key: str, value: Any) -> bool:
    """Whether a whole re-encoding writes this top-level field: one of the Go type's, and not an
    empty ``omitempty`` one (the detector is a pointer: only nil is empty)."""
    if key not in GO_FIELDS:
        return False
    if key == "saturationDetector":
        return value is not None
    return not (key in _TOP_OMIT_EMPTY and _is_empty(value))


def _saturation_detector(detector: Any, whole: bool) -> Any:
    """The saturation detector re-encoded: the staleness threshold written in Go's form (left as
    written when Go cannot parse it: :func:`epp_config_errors` reports that), and with ``whole``
    its zero numbers left out."""
    if not isinstance(detector, Mapping):
        return detector
    out = {k: v for k, v in detector.items() if not (whole and k in _SATURATION_OMIT_EMPTY and _is_empty(v))}
    staleness = out.get(STALENESS)
    if staleness is None:
        out[STALENESS] = go_duration_string(0)
    elif isinstance(staleness, str):
        with suppress(ValueError):
            out[STALENESS] = go_duration_string(go_parse_duration(staleness))
    return out


def go_zero_filled(config: Mapping[str, Any], *, nulls: bool = True, whole: bool = False) -> dict[str, Any]:
    """``config`` as the operator's defaulting webhook hands it back: every field without
    ``omitempty`` present at its zero value, the staleness threshold in Go's form, the user's
    other fields kept (the webhook's patch drops removals). ``whole`` is the Go type re-encoded
    whole instead (the conversion webhook, the objects the operator writes): only its fields, and
    the ``omitempty`` ones left out when empty. ``nulls=False`` leaves out the zeros that are null
    (as a custom resource stores them, its non-nullable nulls pruned). Keys keep their order; new
    ones follow."""
    out = {k: v for k, v in config.items() if not whole or _written_whole(k, v)}
    if isinstance(out.get("saturationDetector"), Mapping):
        out["saturationDetector"] = _saturation_detector(out["saturationDetector"], whole)
    for key in _TOP_ZERO:
        out.setdefault(key, None)
    out["plugins"] = with_go_zero(out["plugins"], PLUGIN_ZERO, nulls)
    profiles = with_go_zero(out["schedulingProfiles"], PROFILE_ZERO, nulls)
    for profile in profiles if isinstance(profiles, list) else []:
        if isinstance(profile, dict) and (nulls or profile.get("plugins") is not None):
            profile["plugins"] = with_go_zero(profile.get("plugins"), PROFILE_PLUGIN_ZERO, nulls)
    out["schedulingProfiles"] = profiles
    return out if nulls else {k: v for k, v in out.items() if v is not None}


@lru_cache(maxsize=1)
def _checker() -> Checker:
    return Checker(SCHEMA, "EndpointPickerConfig", {})


def epp_config_errors(config: Any, path: str) -> list[FieldError]:
    """What the API server refuses in ``eppConfig.config`` at ``path`` (a wire path), after the
    defaulting webhook's round trip (its nulls kept)."""
    if not isinstance(config, Mapping):
        return []  # absent, or not an object: the models refuse the latter
    instance = plain_json(go_zero_filled(config), prune_nulls=False)
    if instance is UNKNOWN:
        return []
    schema = [fe for error in _checker().iter_errors(instance) for fe in field_errors_of(error, path)]
    return schema + _staleness_errors(instance, path)


def _staleness_errors(instance: Mapping[str, Any], path: str) -> list[FieldError]:
    """A staleness threshold Go cannot parse: the webhook's decoding fails with
    ``time.ParseDuration``'s words (probed: ``time: invalid duration "soon"``), before any schema."""
    detector = instance.get("saturationDetector")
    staleness = detector.get(STALENESS) if isinstance(detector, Mapping) else None
    if not isinstance(staleness, str):
        return []
    try:
        go_parse_duration(staleness)
    except ValueError as exc:
        return [invalid(f"{path}.saturationDetector.{STALENESS}", staleness, str(exc))]
    return []


def _config_errors(component: Any, path: str) -> list[FieldError]:
    epp = field_of(component, "eppConfig", "epp_config") if component is not None else None
    config = field_of(epp, "config", "config") if epp is not None else None
    return epp_config_errors(config, f"{path}.eppConfig.config")


def object_epp_errors(obj: Any) -> list[FieldError]:
    """``eppConfig.config`` violations of a v1beta1 DGD or DCD (wire mapping or model)."""
    spec = field_of(obj, "spec", "spec")
    kind = field_of(obj, "kind", "kind")
    if spec is None or isinstance(spec, (str, int, float, list)):
        return []
    if kind == "DynamoComponentDeployment":
        return _config_errors(spec, "spec")
    components = field_of(spec, "components", "components") if kind == "DynamoGraphDeployment" else None
    if not isinstance(components, (list, tuple)):
        return []
    return [e for i, comp in enumerate(components) for e in _config_errors(comp, f"spec.components[{i}]")]


def alpha_object_epp_errors(data: Any) -> list[FieldError]:
    """``eppConfig.config`` violations of a v1alpha1 DGD's services (or DCD spec) wire dict, at the
    alpha paths, as the API server sees them after the webhook's round trip."""
    spec = data.get("spec") if isinstance(data, Mapping) else None
    if not isinstance(spec, Mapping):
        return []
    if data.get("kind") == "DynamoComponentDeployment":
        return _config_errors(spec, "spec")
    services = spec.get("services")
    if not isinstance(services, Mapping):
        return []
    return [e for name in sorted(services, key=str) if isinstance(services[name], Mapping)
            for e in _config_errors(services[name], f"spec.services.{name}")]
