"""DGD -> DCDs (rendering-core 2.1): one DynamoComponentDeployment document per component.

The operator's DGD controller materialises every component as a DCD before anything else is
rendered; the DCD controller then only sees the DCD. We do the same so both pathways into the
object builders (a DGD component, a standalone DCD) are one code path.

The DCDs are built as wire dicts from the graph's wire form so that ``pulumi.Output`` leaves in
pod templates and env values pass through untouched. Only fields the operator reads are looked at.

Restart: a stateless render has no ``status.restart``; we render the converged state of a
restart (what a completed restart leaves behind): every component carries
``nvidia.com/restartAt=<spec.restart.id>``. The operator reaches the same state in steps.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.preservation import (
    DCD_SPEC_ANNOTATION,
    PRESERVED_ENVELOPE_VERSION,
    preserved_alpha_spec,
)
from dynamo_pulumi.floor.constants import (
    COMPONENT_CLASS_WORKER,
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_PLANNER,
    DYNAMO_API_VERSION_V1BETA1,
    ENV_KV_TRANSFER_DOMAIN,
    ENV_KV_TRANSFER_ENFORCEMENT,
    ENV_KV_TRANSFER_PREFERRED_WEIGHT,
    ENV_TOPOLOGY_ENABLED,
    ENV_TOPOLOGY_MOUNT_PATH,
    GRAPH_PROPAGATED_ANNOTATIONS,
    KUBE_ANNOTATION_ISTIO_SIDECAR_INJECT,
    KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME,
    KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_LABEL_VALUE_TRUE,
    MAIN_CONTAINER_NAME,
    PLANNER_SERVICE_ACCOUNT_NAME,
    RESOURCE_TYPE_DYNAMO_COMPONENT_DEPLOYMENT,
    RESTART_ANNOTATION,
    TOPOLOGY_MOUNT_PATH,
    TOPOLOGY_VOLUME_NAME,
)
from dynamo_pulumi.floor.naming import dcd_name, dynamo_namespace, is_worker_type
from dynamo_pulumi.render.backend_framework import component_backend_framework, graph_backend_framework
from dynamo_pulumi.render.deployment_config import apply_dyn_deployment_config
from dynamo_pulumi.render.objects.common import copy_tree, merge_envs, merge_low_priority
from dynamo_pulumi.render.objects.epp import typed_endpoint_picker_config

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment

_KV_POLICY_ENV = frozenset(
    {
        ENV_KV_TRANSFER_DOMAIN,
        ENV_KV_TRANSFER_ENFORCEMENT,
        ENV_KV_TRANSFER_PREFERRED_WEIGHT,
        ENV_TOPOLOGY_ENABLED,
        ENV_TOPOLOGY_MOUNT_PATH,
    }
)

# --- pod template edits ---------------------------------------------------------------------------


def _ensure_template_maps(template: dict[str, Any]) -> dict[str, Any]:
    """``ensurePodTemplate``: label and annotation maps and a spec present."""
    meta = template.setdefault("metadata", {})
    meta.setdefault("labels", {})
    meta.setdefault("annotations", {})
    template.setdefault("spec", {})
    return template


def _pod_templates(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The templates the DGD's pod-template edits go into.

    Normally the component's ``podTemplate`` (created when missing). When multinode roles carry
    their own complete templates, the component-level template must stay absent (admission), so
    the edits go into each role's template instead.
    """
    roles = [r.get("podTemplate") for r in spec.get("roles") or [] if isinstance(r, dict)]
    templates = [t for t in roles if isinstance(t, dict)] or [spec.setdefault("podTemplate", {})]
    return [_ensure_template_maps(t) for t in templates]


def _ensure_main_container(template: dict[str, Any]) -> dict[str, Any]:
    """``ensureMainContainer``: the ``main`` container, prepended when missing."""
    pod_spec = template.setdefault("spec", {})
    containers = pod_spec.setdefault("containers", [])
    for container in containers:
        if isinstance(container, dict) and container.get("name") == MAIN_CONTAINER_NAME:
            return container
    main: dict[str, Any] = {"name": MAIN_CONTAINER_NAME}
    containers.insert(0, main)
    return main


def _apply_kv_transfer_policy(template: dict[str, Any], policy: dict[str, Any]) -> None:
    """Worker env, read-only mount and downward-API volume for ``kvTransferPolicy`` (labelKey form)."""
    main = _ensure_main_container(template)
    envs = [
        {"name": ENV_KV_TRANSFER_DOMAIN, "value": policy["domain"]},
        {"name": ENV_KV_TRANSFER_ENFORCEMENT, "value": policy.get("enforcement") or "required"},
        {"name": ENV_TOPOLOGY_ENABLED, "value": KUBE_LABEL_VALUE_TRUE},
        {"name": ENV_TOPOLOGY_MOUNT_PATH, "value": TOPOLOGY_MOUNT_PATH},
    ]
    if policy.get("preferredWeight") is not None:
        envs.append({"name": ENV_KV_TRANSFER_PREFERRED_WEIGHT, "value": _go_float32(policy["preferredWeight"])})
    kept = [e for e in main.get("env") or [] if e.get("name") not in _KV_POLICY_ENV]
    main["env"] = merge_envs(kept, envs)
    mount = {"name": TOPOLOGY_VOLUME_NAME, "mountPath": TOPOLOGY_MOUNT_PATH, "readOnly": True}
    mounts = [
        m for m in main.get("volumeMounts") or []
        if m.get("name") != TOPOLOGY_VOLUME_NAME and m.get("mountPath") != TOPOLOGY_MOUNT_PATH
    ]
    main["volumeMounts"] = [*mounts, mount]
    items = []
    if policy.get("labelKey"):
        items = [{"path": policy["domain"], "fieldRef": {"fieldPath": f"metadata.labels['{policy['labelKey']}']"}}]
    volume: dict[str, Any] = {"name": TOPOLOGY_VOLUME_NAME, "downwardAPI": {"items": items} if items else {}}
    pod_spec = template["spec"]
    volumes = [v for v in pod_spec.get("volumes") or [] if v.get("name") != TOPOLOGY_VOLUME_NAME]
    pod_spec["volumes"] = [*volumes, volume]


def _go_float32(value: float) -> str:
    """``strconv.FormatFloat(float64(float32(v)), 'f', -1, 32)``: the shortest decimal that reads
    back as the same float32, in plain (non-exponent) notation."""
    single = struct.unpack("f", struct.pack("f", float(value)))[0]
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    return format(Decimal(text), "f")


def _kv_policy_applies(graph: DynamoGraphDeployment, component_type: str | None) -> dict[str, Any] | None:
    experimental = graph.spec.experimental
    policy = experimental.kv_transfer_policy if experimental else None
    if policy is None or not (policy.label_key or policy.cluster_topology_name):
        return None
    if not is_worker_type(component_type):
        return None
    return policy.to_wire()


def _apply_graph_template_defaults(template: dict[str, Any], graph: DynamoGraphDeployment, ctype: str | None) -> None:
    """``applyDGDTemplateDefaults``: graph env, kv policy, propagated annotations, spec metadata."""
    if graph.spec.env:
        main = _ensure_main_container(template)
        main["env"] = merge_envs(copy_tree(graph.spec.env), main.get("env"))
    policy = _kv_policy_applies(graph, ctype)
    if policy is not None:
        _apply_kv_transfer_policy(template, policy)
    annotations = template["metadata"]["annotations"]
    for key in GRAPH_PROPAGATED_ANNOTATIONS:
        if key in graph.annotations and key not in annotations:
            annotations[key] = graph.annotations[key]
    meta = template["metadata"]
    meta["annotations"] = merge_low_priority(meta["annotations"], graph.spec.annotations)
    meta["labels"] = merge_low_priority(meta["labels"], graph.spec.labels)


def _stamp_template(template: dict[str, Any], graph: DynamoGraphDeployment, ctype: str | None, worker_hash: str) -> None:
    """Every pod-template edit of ``generateSingleDCD``, in the operator's order."""
    meta = template["metadata"]
    if is_worker_type(ctype):
        meta["labels"][KUBE_LABEL_DYNAMO_WORKER_HASH] = worker_hash
        if _has_epp(graph):
            meta["labels"][KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = COMPONENT_CLASS_WORKER
    if ctype == COMPONENT_TYPE_EPP:
        meta["annotations"].setdefault(KUBE_ANNOTATION_ISTIO_SIDECAR_INJECT, "false")
    _apply_graph_template_defaults(template, graph, ctype)
    if graph.spec.restart is not None:
        meta["annotations"][RESTART_ANNOTATION] = graph.spec.restart.id
    if ctype == COMPONENT_TYPE_PLANNER:
        template["spec"]["serviceAccountName"] = PLANNER_SERVICE_ACCOUNT_NAME


def _has_epp(graph: DynamoGraphDeployment) -> bool:
    return any(c.type == COMPONENT_TYPE_EPP for c in graph.components)


# --- one DCD --------------------------------------------------------------------------------------


def _drop_empty_template_maps(template: dict[str, Any]) -> None:
    """Go omits empty label/annotation maps (and an empty metadata) when it writes the DCD."""
    meta = template.get("metadata")
    if isinstance(meta, dict):
        for key in ("labels", "annotations"):
            if key in meta and not meta[key]:
                del meta[key]
        if not meta:
            del template["metadata"]


#: DynamoComponentDeploymentSpec fields in Go declaration order (``backendFramework``, then the
#: inlined shared spec); fields of newer revisions follow in the order given.
DCD_SPEC_FIELD_ORDER = (
    "backendFramework",
    "providerOverride",
    "name",
    "type",
    "lpx",
    "runtimeVersionOverride",
    "globalDynamoNamespace",
    "podTemplate",
    "replicas",
    "minAvailable",
    "multinode",
    "roles",
    "sharedMemorySize",
    "modelRef",
    "scalingAdapter",
    "eppConfig",
    "frontendSidecar",
    "compilationCache",
    "topologyConstraint",
    "experimental",
)


def _in_go_order(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with keys in Go declaration order (unknown keys last), podTemplate metadata first."""
    ordered = {k: spec[k] for k in DCD_SPEC_FIELD_ORDER if k in spec}
    ordered.update({k: v for k, v in spec.items() if k not in ordered})
    template = ordered.get("podTemplate")
    if isinstance(template, dict) and "metadata" in template:
        ordered["podTemplate"] = {"metadata": template["metadata"], **template}
    return ordered


def _dcd_annotations(graph: DynamoGraphDeployment, component: str, ctype: str | None) -> dict[str, Any]:
    """DCD metadata annotations: topology-source keys for kv policy, the alpha conversion data."""
    annotations: dict[str, Any] = {}
    policy = _kv_policy_applies(graph, ctype)
    if policy is not None:
        if policy.get("labelKey"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY] = policy["labelKey"]
        if policy.get("clusterTopologyName"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = policy["clusterTopologyName"]
    preserved = _preserved_component_envelope(graph, component)
    if preserved is not None:
        annotations[DCD_SPEC_ANNOTATION] = preserved
    return annotations


def _preserved_component_envelope(graph: DynamoGraphDeployment, component: str) -> str | None:
    """``applyDGDComponentAlphaCompatibilityToDCD``: a converted alpha service's alpha-only data
    (ingress, annotations, labels, dynamoNamespace, ...) travels to its DCD in the DCD's
    conversion annotation, where the DCD controller reads it back."""
    preserved = preserved_alpha_spec(graph)
    service = (getattr(preserved, "services", None) or {}).get(component)
    if service is None:
        return None
    kept = {k: v for k, v in service.to_wire().items() if k != "serviceName"}
    if not kept:
        return None
    return json.dumps({"version": PRESERVED_ENVELOPE_VERSION, "spec": kept}, separators=(",", ":"))


def generate_component_deployment(
    graph: DynamoGraphDeployment,
    component: dict[str, Any],
    namespace: str,
    backend_framework: str,
    worker_hash: str,
    *,
    apply_deployment_config: bool = True,
    owned: bool = False,
) -> dict[str, Any]:
    """``generateSingleDCD`` for one component's wire dict (the input is not modified unless
    ``owned``: the caller hands over a dict it made for this call, which is then not copied).

    ``apply_deployment_config=False`` skips the legacy ``DYN_DEPLOYMENT_CONFIG`` rewrite, which
    only ``generateSingleDCD`` performs: the Grove pathway renders its cliques from the components
    as written and never applies it.
    """
    name = component["name"]
    ctype = component.get("type")
    spec: dict[str, Any] = component if owned else copy_tree(component)
    spec.pop("backendFramework", None)
    if backend_framework:  # omitempty
        spec["backendFramework"] = backend_framework
    epp_config = spec.get("eppConfig")
    if isinstance(epp_config, dict) and isinstance(epp_config.get("config"), dict):
        epp_config["config"] = typed_endpoint_picker_config(epp_config["config"], nulls=False)
    dyn_ns = dynamo_namespace(namespace, graph.name, bool(component.get("globalDynamoNamespace")))
    labels = dict(((spec.get("podTemplate") or {}).get("metadata") or {}).get("labels") or {})
    labels.update(
        {
            KUBE_LABEL_DYNAMO_COMPONENT: name,
            KUBE_LABEL_DYNAMO_NAMESPACE: dyn_ns,
            KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: graph.name,
        }
    )
    if is_worker_type(ctype):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = worker_hash
        if _has_epp(graph):
            labels[KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = COMPONENT_CLASS_WORKER
    templates = _pod_templates(spec)
    for template in templates:
        _stamp_template(template, graph, ctype, worker_hash)
    annotations = _dcd_annotations(graph, name, ctype)
    metadata: dict[str, Any] = {
        "name": dcd_name(graph.name, name, ctype, worker_hash),
        "namespace": namespace,
        "labels": labels,
    }
    if annotations:
        metadata["annotations"] = annotations
    dcd = {
        "apiVersion": DYNAMO_API_VERSION_V1BETA1,
        "kind": RESOURCE_TYPE_DYNAMO_COMPONENT_DEPLOYMENT,
        "metadata": metadata,
        "spec": spec,
    }
    if apply_deployment_config:
        apply_dyn_deployment_config(dcd, name)
    for template in templates:
        _drop_empty_template_maps(template)
    dcd["spec"] = _in_go_order(spec)
    return dcd


def generate_component_deployments(
    graph: DynamoGraphDeployment,
    namespace: str,
    worker_hash: str,
    *,
    apply_deployment_config: bool = True,
) -> list[dict[str, Any]]:
    """``GenerateDynamoComponentsDeployments``: one DCD dict per component, in component order.

    The Grove pathway passes ``apply_deployment_config=False`` (see
    :func:`generate_component_deployment`).
    """
    backend = graph_backend_framework(graph)
    components = graph.to_wire()["spec"].get("components") or []  # fresh dicts: owned below
    return [
        generate_component_deployment(
            graph, c, namespace, backend, worker_hash, apply_deployment_config=apply_deployment_config, owned=True
        )
        for c in components
    ]


#: ``component_backend_framework``/``graph_backend_framework`` are re-exported: other pathways
#: import the DCD-generation API from here.
__all__ = [
    "DCD_SPEC_FIELD_ORDER",
    "component_backend_framework",
    "generate_component_deployment",
    "generate_component_deployments",
    "graph_backend_framework",
]
