"""What the API server checks on *any* object before a webhook sees it: the object's metadata
(``ValidateObjectMeta``) and its size.

The operator's webhook never checks these, because the API server already refused the object:
a DGD named ``Vllm_Agg`` or with no name at all, a label key with two slashes, 300 KiB of
annotations, or a 9.5 MB graph that etcd will not store. Offline we have no API server, so the
deployability verdict (:mod:`dynamo_pulumi.verdict.deployability`) runs these first, on the Dynamo object and on
every object rendered from it.

Limits, as the API server applies them:

* ``metadata.annotations``: every key a qualified name (case-insensitive), keys and values together
  at most 256 KiB (``TotalAnnotationSizeLimitB`` in apimachinery's ``ValidateAnnotations``);
* the whole object: etcd's default ``--max-request-bytes`` of 1.5 MiB; a larger object is refused
  with ``etcdserver: request is too large`` (and above 3 MiB the API server refuses the request
  body itself).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import ErrorType, FieldError, Path, invalid, required
from dynamo_pulumi.floor.kube_names import (
    annotation_key_problems,
    dns1123_label_problems,
    dns1123_subdomain_problems,
    label_key_problems,
    label_value_problems,
)
from dynamo_pulumi.floor.placeholders import contains_output_token

#: ``TotalAnnotationSizeLimitB``: the sum of annotation key and value lengths.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
#: etcd's default ``--max-request-bytes``: the largest object the API server can store.
MAX_OBJECT_BYTES = 1536 * 1024

_META = Path("metadata")


def object_meta_errors(document: Mapping[str, Any], *, namespaced: bool = True) -> list[FieldError]:
    """``ValidateObjectMeta`` of one object (name, namespace, labels, annotation size) and its size.

    ``document`` is the object as sent (wire form). Values that are parked ``pulumi.Output`` tokens
    are not known yet and are not checked.
    """
    metadata = document.get("metadata")
    meta: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}
    errors = _name_errors(meta.get("name"))
    if namespaced:
        errors += _namespace_errors(meta.get("namespace"))
    errors += label_errors(meta.get("labels"), _META.child("labels"))
    errors += annotation_key_errors(meta.get("annotations"), _META.child("annotations"))
    errors += annotation_size_errors(meta.get("annotations"), _META.child("annotations"))
    errors += object_size_errors(document)
    return errors


def _known(value: Any) -> bool:
    return isinstance(value, str) and not contains_output_token(value)


def _name_errors(name: Any) -> list[FieldError]:
    path = _META.child("name")
    if name is None or name == "":
        return [required(path, "name or generateName is required")]
    if not _known(name):
        return []
    return [invalid(path, name, problem) for problem in dns1123_subdomain_problems(name)]


def _namespace_errors(namespace: Any) -> list[FieldError]:
    if namespace is None or namespace == "" or not _known(namespace):
        return []
    return [invalid(_META.child("namespace"), namespace, p) for p in dns1123_label_problems(namespace)]


def label_errors(labels: Any, path: Path) -> list[FieldError]:
    """``ValidateLabels``: every key a qualified name, every value a label value."""
    if not isinstance(labels, Mapping):
        return []
    errors: list[FieldError] = []
    for key, value in labels.items():
        if _known(key):
            errors += [invalid(path, key, p) for p in label_key_problems(key)]
        if _known(value):
            errors += [invalid(path.key(key), value, p) for p in label_value_problems(value)]
    return errors


def annotation_key_errors(annotations: Any, path: Path) -> list[FieldError]:
    """``ValidateAnnotations``: every key a qualified name (any case), at the map, as the API server
    reports it."""
    if not isinstance(annotations, Mapping):
        return []
    return [invalid(path, key, p) for key in annotations if _known(key) for p in annotation_key_problems(key)]


def annotation_size_errors(annotations: Any, path: Path) -> list[FieldError]:
    """``ValidateAnnotations``' size rule: keys plus values at most 256 KiB."""
    if not isinstance(annotations, Mapping):
        return []
    total = sum(len(str(k)) + len(str(v)) for k, v in annotations.items())
    if total <= TOTAL_ANNOTATION_SIZE_LIMIT:
        return []
    return [
        FieldError(
            ErrorType.TOO_LONG,
            str(path),
            f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes (the annotations hold {total} bytes)",
        )
    ]


def object_size(document: Mapping[str, Any]) -> int:
    """Bytes of the object as compact JSON, as the API server stores it."""
    return len(json.dumps(document, separators=(",", ":"), default=str).encode("utf-8"))


def object_size_errors(document: Mapping[str, Any], path: str = "<object>") -> list[FieldError]:
    """The object must fit in one etcd request (1.5 MiB by default)."""
    size = object_size(document)
    if size <= MAX_OBJECT_BYTES:
        return []
    return [
        FieldError(
            ErrorType.TOO_LONG,
            path,
            f"the object is {size} bytes as JSON; the API server stores at most {MAX_OBJECT_BYTES} bytes "
            "per object (etcd: request is too large); move large data (scripts, configs) into a ConfigMap "
            "or a volume",
        )
    ]


def rendered_object_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """Size limits of one rendered object, reported against that object."""
    raw = obj.get("metadata")
    metadata: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    where = f'{obj.get("kind", "object")} "{metadata.get("name", "")}"'
    errors = annotation_size_errors(metadata.get("annotations"), Path(where).child("metadata", "annotations"))
    errors += object_size_errors(obj, where)
    return errors
