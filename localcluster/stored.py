"""Objects as the API server returns them, stripped to what their author wrote and the server defaulted.

The fields the API server or another controller sets on its own (identity, bookkeeping, the
status, an allocated cluster IP, the Deployment controller's revision annotation) say nothing
about what the operator created, and change from run to run; they are left out here, once, for
the recordings and for every test that holds the cluster's objects against a rendering.
Owner references keep kind and name only (their uid is the server's).
"""

from __future__ import annotations

import copy
from typing import Any

SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds")
CONTROLLER_ANNOTATIONS = ("deployment.kubernetes.io/revision", "kubectl.kubernetes.io/last-applied-configuration")
SERVICE_ALLOCATED = ("clusterIP", "clusterIPs")


def stripped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without status, server bookkeeping, allocated values and generated secret data."""
    out = copy.deepcopy(obj)
    out.pop("status", None)
    meta = out.get("metadata") or {}
    for key in SERVER_METADATA:
        meta.pop(key, None)
    annotations = meta.get("annotations") or {}
    for key in CONTROLLER_ANNOTATIONS:
        annotations.pop(key, None)
    if "annotations" in meta and not annotations:
        meta.pop("annotations")
    if meta.get("ownerReferences"):
        meta["ownerReferences"] = [{k: ref[k] for k in ("apiVersion", "kind", "name", "controller") if k in ref}
                                   for ref in meta["ownerReferences"]]
    if out.get("kind") == "Service":
        spec = out.get("spec") or {}
        if spec.get("clusterIP") != "None":  # "None" (headless) is the author's, an address is allocated
            for key in SERVICE_ALLOCATED:
                spec.pop(key, None)
        for port in spec.get("ports") or []:
            if spec.get("type") not in ("NodePort", "LoadBalancer"):
                port.pop("nodePort", None)
    if out.get("kind") == "Secret":
        # Generated key material (the MPI SSH key) differs every run: only which keys exist counts.
        out["data"] = {k: "<generated>" for k in sorted(out.get("data") or {})}
    return out


def object_key(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return (group, str(obj.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")))
