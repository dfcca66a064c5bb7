"""What the API server (and LWS's defaulting webhook) adds to an object it stores, as pure functions.

A rendering is what a client sends; a recording is what the server stored. To compare them the
same additions are made to both sides: the built-in types' defaulting (``pkg/apis/core/v1``,
``apps/v1``, ``resource/v1`` ``defaults.go`` and the Service registry's IP-family allocation on
a single-stack IPv4 cluster), the ``default:`` values of a custom resource's CRD schema, and
for LeaderWorkerSets the ``Default`` of LWS's webhook. A field already set is never changed;
the only removals are zero values a built-in type cannot store (a non-pointer ``bool`` with
``omitempty`` reads back absent when sent as ``false``). ``tests/e2e/test_server_defaults.py`` holds these rules to a live API server
(server-side dry run of rendered objects), so a default missing here fails there.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
FILE_MODE_VOLUMES = ("configMap", "secret", "downwardAPI", "projected")
DEFAULT_FILE_MODE = 420  # 0644


#: A Docker image reference (``distribution/reference``'s grammar, lower-case repository path).
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REFERENCE = re.compile(
    rf"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?"
    rf"{_COMPONENT}(?:/{_COMPONENT})*(?::[\w][\w.-]{{0,127}})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*"
    rf":[0-9a-fA-F]{{32,}})?")


def image_pull_policy(image: str) -> str:
    """``Always`` for ``:latest`` or no tag, else ``IfNotPresent`` (a digest counts as a tag).
    ``SetDefaults_Container`` ignores a parse error, and an image that is not a reference
    (``${DYNAMO_IMAGE}``, a template left unfilled) has no tag: ``IfNotPresent``."""
    if "@" in image or _REFERENCE.fullmatch(image) is None:
        return "IfNotPresent"
    tail = image.rsplit("/", 1)[-1]
    return "Always" if ":" not in tail or tail.endswith(":latest") else "IfNotPresent"


def _probe(p: Any) -> None:
    if not isinstance(p, dict):
        return
    for k, v in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)):
        p.setdefault(k, v)
    if isinstance(p.get("httpGet"), dict):
        p["httpGet"].setdefault("scheme", "HTTP")
    if isinstance(p.get("grpc"), dict):
        p["grpc"].setdefault("service", "")


def _field_refs(node: Any) -> None:
    """``fieldRef.apiVersion: v1`` wherever a field selector appears (env and downward API)."""
    if isinstance(node, dict):
        ref = node.get("fieldRef")
        if isinstance(ref, dict):
            ref.setdefault("apiVersion", "v1")
        for v in node.values():
            _field_refs(v)
    elif isinstance(node, list):
        for v in node:
            _field_refs(v)


def _container(c: Any) -> None:
    if not isinstance(c, dict):
        return
    if isinstance(c.get("image"), str):
        c.setdefault("imagePullPolicy", image_pull_policy(c["image"]))
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for port in c.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
    for probe in PROBES:
        _probe(c.get(probe))
    for hook in ((c.get("lifecycle") or {}).get(k) for k in ("postStart", "preStop")):
        if isinstance(hook, dict) and isinstance(hook.get("httpGet"), dict):
            hook["httpGet"].setdefault("scheme", "HTTP")
    _field_refs(c.get("env"))


def _volume(v: Any) -> None:
    if not isinstance(v, dict):
        return
    for source in FILE_MODE_VOLUMES:
        if isinstance(v.get(source), dict):
            v[source].setdefault("defaultMode", DEFAULT_FILE_MODE)
    if isinstance(v.get("hostPath"), dict):
        v["hostPath"].setdefault("type", "")
    _field_refs(v.get("downwardAPI"))
    _field_refs(v.get("projected"))


def pod_spec(spec: Any) -> None:
    """``SetDefaults_PodSpec`` and what it reaches (containers, probes, volumes)."""
    if not isinstance(spec, dict):
        return
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    spec.setdefault("terminationGracePeriodSeconds", 30)
    if spec.get("serviceAccountName"):
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            _container(c)
    for v in spec.get("volumes") or []:
        _volume(v)


def _template_specs(obj: Mapping[str, Any]) -> Iterator[Any]:
    spec = obj.get("spec") or {}
    if obj.get("kind") in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        yield (spec.get("template") or {}).get("spec")


def _deployment(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxSurge", "25%")
        rolling.setdefault("maxUnavailable", "25%")


def _service(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["type"] != "ExternalName":
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        spec.setdefault("internalTrafficPolicy", "Cluster")
    if spec.get("clusterIP") == "None":  # headless: the registry writes the family list too
        spec.setdefault("clusterIPs", ["None"])
    if spec.get("publishNotReadyAddresses") is False:  # bool, omitempty: false is not stored
        spec.pop("publishNotReadyAddresses")
    for port in spec.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))


def _inference_pool(obj: dict[str, Any]) -> None:
    """The ``default:`` values of the InferencePool CRD (``inference.networking.k8s.io/v1``,
    gateway-api-inference-extension v1.2.0) on ``spec.endpointPickerRef``; the CRD is not part of
    ``../shared/conformance/crds``, so its two defaults the operator's pools reach are written here."""
    ref = (obj.get("spec") or {}).get("endpointPickerRef")
    if isinstance(ref, dict):
        ref.setdefault("failureMode", "FailClose")
        ref.setdefault("group", "")
        ref.setdefault("kind", "Service")


def _claim_spec(spec: Any) -> None:
    devices = (spec or {}).get("devices") if isinstance(spec, dict) else None
    for request in (devices or {}).get("requests") or []:
        exactly = request.get("exactly") if isinstance(request, dict) else None
        if isinstance(exactly, dict):
            exactly.setdefault("allocationMode", "ExactCount")
            if exactly["allocationMode"] == "ExactCount":
                exactly.setdefault("count", 1)


def lws_webhook(obj: dict[str, Any]) -> None:
    """LWS's ``LeaderWorkerSetWebhook.Default`` (v0.9.0): restart policy, rollout, subdomain policy."""
    spec = obj.setdefault("spec", {})
    lwt = spec.setdefault("leaderWorkerTemplate", {})
    if not lwt.get("restartPolicy"):
        lwt["restartPolicy"] = "RecreateGroupOnPodRestart"
    if lwt["restartPolicy"] == "Default":
        lwt["restartPolicy"] = "None"
    rollout = spec.setdefault("rolloutStrategy", {})
    if not rollout.get("type"):
        rollout["type"] = "RollingUpdate"
    if rollout["type"] == "RollingUpdate" and rollout.get("rollingUpdateConfiguration") is None:
        rollout["rollingUpdateConfiguration"] = {"maxUnavailable": 1, "maxSurge": 0, "partition": 0}
    network = spec.get("networkConfig")
    if not isinstance(network, dict):
        spec["networkConfig"] = {"subdomainPolicy": "Shared"}
    elif network.get("subdomainPolicy") is None:
        network["subdomainPolicy"] = "Shared"


BUILT_IN = {"Deployment": _deployment, "Service": _service, "InferencePool": _inference_pool}


class CrdSchemas:
    """The structural schemas of the CRDs a cluster serves, by (group, kind, version)."""

    def __init__(self, files: list[Path]):
        self.schemas: dict[tuple[str, str, str], dict[str, Any]] = {}
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the CRDs are megabytes of YAML
        for f in files:
            for crd in yaml.load_all(f.read_text(), Loader=loader):
                if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                    continue
                group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
                for version in crd["spec"]["versions"]:
                    schema = (version.get("schema") or {}).get("openAPIV3Schema")
                    if schema:
                        self.schemas[(group, kind, version["name"])] = schema

    def of(self, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
        return self.schemas.get((group, str(obj.get("kind", "")), version))


def schema_defaults(node: Any, schema: Mapping[str, Any]) -> None:
    """Structural defaulting: each absent property with a ``default`` gets it, below present objects."""
    if isinstance(node, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if name not in node and "default" in sub:
                node[name] = copy.deepcopy(sub["default"])
            if name in node:
                schema_defaults(node[name], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name, value in node.items():
                if name not in (schema.get("properties") or {}):
                    schema_defaults(value, extra)
    elif isinstance(node, list) and isinstance(schema.get("items"), dict):
        for item in node:
            schema_defaults(item, schema["items"])


def with_defaults(obj: Mapping[str, Any], crds: CrdSchemas | None = None) -> dict[str, Any]:
    """``obj`` as the API server would store it (a copy)."""
    out = copy.deepcopy(dict(obj))
    kind = out.get("kind")
    if kind in BUILT_IN:
        BUILT_IN[kind](out)
    for spec in _template_specs(out):
        pod_spec(spec)
    if kind == "PersistentVolumeClaim":
        out.setdefault("spec", {}).setdefault("volumeMode", "Filesystem")
    if kind == "ResourceClaimTemplate":
        _claim_spec((out.get("spec") or {}).get("spec"))
    if kind == "ResourceClaim":
        _claim_spec(out.get("spec"))
    schema = crds.of(out) if crds is not None else None
    if schema is not None:  # a custom resource: its schema's defaults at decode, then the webhooks
        schema_defaults(out, schema)
    if kind == "LeaderWorkerSet":
        lws_webhook(out)
    return out
