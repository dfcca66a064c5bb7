"""The worker hash (rendering-core 2.11 as corrected by ERRATA 2.2-2.4).

The operator snapshot (``internal/dynamo/hash.go`` ``ComputeDGDWorkersSpecHash``) generates the
DCDs exactly as reconcile does, with the worker hash set to the literal
``worker-hash-placeholder``, and hashes, for every worker/prefill/decode DCD keyed by component
name::

    {"labels": GetDCDKubeLabels, "annotations": GetDCDKubeAnnotations,
     "runtimeVersion": <resolved, only when >= 1.5.0>, "spec": <DCD spec minus replicas,
     minAvailable, scalingAdapter, runtimeVersionOverride>}

The hash is the first 8 lowercase hex characters of SHA-256 of that JSON.

What is byte-exact and what is not:

* exact: the document's structure and membership (which DCDs, which keys, the placeholder, the
  fields removed), the top-level field order of the DCD spec (Go declaration order), sorted map
  keys, ``omitempty`` of empty maps/strings, Go's HTML escaping, compact separators;
* not exact: nested Kubernetes structs (PodTemplateSpec, containers, probes, ...) are serialised
  with their keys sorted (independent of the user's YAML key order, as Go's struct order is)
  rather than in Go's struct declaration order, and Quantity values
  are kept as written rather than canonicalised. So our hash is a stable, content-sensitive
  generation id with the operator's inputs, but it will in general differ from the operator's
  8 hex characters for the same graph. Nothing in rendering depends on the value beyond
  consistency (names, labels, ``DYN_NAMESPACE_WORKER_SUFFIX`` all use the same hash).

``pulumi.Output`` leaves cannot be known at render time; they contribute a fixed placeholder, so
a change that only touches an Output leaf keeps the generation (the Deployment is still updated in
place by Kubernetes). Resolve Outputs before rendering when a new generation must follow them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.digests import sha256_hex
from dynamo_pulumi.floor.naming import is_worker_type
from dynamo_pulumi.model.runtime_version import resolve_runtime_version, runtime_gate_enabled
from dynamo_pulumi.model.twin import DCD_MODEL, internal
from dynamo_pulumi.render import dcd_identity
from dynamo_pulumi.render.graph import DCD_SPEC_FIELD_ORDER
from dynamo_pulumi.render.pod import metadata as pod_metadata

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment

WORKER_HASH_PLACEHOLDER = "worker-hash-placeholder"
WORKER_HASH_LENGTH = 8

#: Fields that patch the active generation instead of creating a new one.
_EXCLUDED_SPEC_FIELDS = ("replicas", "minAvailable", "scalingAdapter", "runtimeVersionOverride")



def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return "<unknown>"


def _canonical(value: Any) -> Any:
    """Nested mappings with their keys sorted, as JSON values (string keys, anything else than
    JSON, e.g. a tuple or an Output, as ``"<unknown>"``): the operator hashes Go structs, whose
    field order never depends on how the user ordered the YAML, so neither may ours. One walk
    does both (it is :func:`_jsonable` of the sorted tree)."""
    if isinstance(value, dict):
        return {str(k): _canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return "<unknown>"


def _ordered_spec(spec: dict[str, Any]) -> dict[str, Any]:
    keep = {
        k: _canonical(v) for k, v in spec.items() if k not in _EXCLUDED_SPEC_FIELDS and v not in (None, "", False)
    }
    ordered = {k: keep[k] for k in DCD_SPEC_FIELD_ORDER if k in keep}
    ordered.update({k: v for k, v in keep.items() if k not in ordered})
    # ``name`` has no omitempty in Go.
    ordered.setdefault("name", spec.get("name", ""))
    return ordered


def _go_json(document: Any) -> bytes:
    """``json.Marshal`` of an already JSON-valued document (HTML characters escaped as Go does)."""
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.encode("utf-8")


def _runtime_version_for_hash(graph: DynamoGraphDeployment, component_name: str) -> str:
    component = graph.spec.component(component_name)
    version = resolve_runtime_version(component) if component is not None else None
    if version is None or not runtime_gate_enabled("WorkerHashIncludesRuntimeVersion", version):
        return ""
    return str(version)


def _sorted_map(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: mapping[k] for k in sorted(mapping)}


def compute_worker_hash(graph: DynamoGraphDeployment, namespace: str) -> str:
    """The 8-hex worker generation hash of a graph ("" when it has no worker-type component)."""
    if not any(is_worker_type(c.type) for c in graph.components):
        return ""
    digest = sha256_hex(_go_json(worker_hash_document(graph, namespace)))
    return digest[:WORKER_HASH_LENGTH]


def worker_hash_document(graph: DynamoGraphDeployment, namespace: str) -> dict[str, Any]:
    """What the hash is computed over, one entry per worker component (keyed by its name, sorted):
    also what ``diff`` compares to say which component's change moved the hash."""
    from dynamo_pulumi.render.graph import generate_component_deployments

    document: dict[str, Any] = {}
    for dcd in generate_component_deployments(graph, namespace, WORKER_HASH_PLACEHOLDER):
        spec = dcd["spec"]
        if not is_worker_type(spec.get("type")):
            continue
        entry: dict[str, Any] = {}
        model = internal(DCD_MODEL, dcd)
        labels = pod_metadata.dcd_kube_labels(model, dcd_identity.computed_dynamo_namespace(model, namespace))
        annotations = pod_metadata.dcd_kube_annotations(model)
        if labels:
            entry["labels"] = _jsonable(_sorted_map(labels))
        if annotations:
            entry["annotations"] = _jsonable(_sorted_map(annotations))
        runtime = _runtime_version_for_hash(graph, spec["name"])
        if runtime:
            entry["runtimeVersion"] = runtime
        entry["spec"] = _ordered_spec(spec)
        document[dcd_identity.component_name_of(dcd)] = entry
    return _sorted_map(document)
