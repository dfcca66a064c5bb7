"""DGD-owned objects around the PodCliqueSet on the Grove pathway (ERRATA 2.6-2.7).

Grove has no DCDs, so the DGD controller creates what the DCD controller creates on the component
pathway, with small differences:

* component Services are named ``<dgd>-<component>`` (normalised), labelled with the graph's
  ``spec.labels`` and the component pod-template labels, and select by type, Dynamo namespace and
  component only (no ``role`` key: Grove pods carry none);
* model Services carry the graph's ``spec.annotations`` too;
* a single-pod elastic-EP vLLM component (Ray data-parallel backend) gets a headless
  ``<service>-ray`` Service so followers can join its Ray head (ERRATA 2.8);
* frontend ingress objects and the graph-level objects (RBAC, EPP, wait-for-leader ConfigMap,
  scaling adapters) come unchanged from the shared builders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_FRONTEND,
    DISCOVERY_BACKEND_KUBERNETES,
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND,
    KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_VALUE_TRUE,
    VLLM_RAY_PORT,
)
from dynamo_pulumi.floor.naming import (
    component_service_name,
    dcd_name,
    dynamo_namespace,
    normalize_kube_resource_name,
    truncate_with_fnv,
)
from dynamo_pulumi.render.backends.vllm import is_elastic_ep_ray_launch
from dynamo_pulumi.render.grove.pods import dcd_model
from dynamo_pulumi.render.objects import ingress
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import ComponentContext, GraphContext
from dynamo_pulumi.render.objects.model_service import build_model_service
from dynamo_pulumi.render.objects.registry import GRAPH_BUILDERS
from dynamo_pulumi.render.objects.service import service_port
from dynamo_pulumi.render.pod.metadata import (
    NO_ALPHA_DATA,
    AlphaComponentData,
    component_resource_annotations,
    component_resource_labels,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
    from dynamo_pulumi.render.grove.facts import GraphFacts


def component_service(
    dgd: DynamoGraphDeployment, component: DynamoComponentDeploymentSharedSpec, namespace: str,
    worker_hash: str, k8s_discovery: bool, alpha: AlphaComponentData = NO_ALPHA_DATA,
) -> dict[str, Any]:
    """The Grove component Service (``GenerateComponentService`` with DGD-level metadata)."""
    ctype = component.type or ""
    labels = component_resource_labels(dgd, component, worker_hash, alpha)
    if k8s_discovery:
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = DISCOVERY_BACKEND_KUBERNETES
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = KUBE_LABEL_VALUE_TRUE
    selector = {
        KUBE_LABEL_DYNAMO_COMPONENT_TYPE: ctype,
        KUBE_LABEL_DYNAMO_NAMESPACE: dynamo_namespace(namespace, dgd.name, bool(component.global_dynamo_namespace)),
        KUBE_LABEL_DYNAMO_COMPONENT: component.name,
    }
    name = component_service_name(dcd_name(dgd.name, component.name))
    meta = object_meta(name, namespace, labels, component_resource_annotations(dgd, component, alpha))
    return k8s_object("v1", "Service", meta, spec={"selector": selector, "ports": [service_port(ctype)]})


ELASTIC_EP_SERVICE_SUFFIX = "-ray"
RAY_GCS_PORT_NAME = "ray-gcs"


def _is_single_pod_elastic_ep_leader(component: DynamoComponentDeploymentSharedSpec) -> bool:
    """``isSinglePodElasticEPLeader``: Ray elastic-EP launch, one node, one replica (or unset)."""
    spec = (component.pod_template or {}).get("spec") or {}
    main = next((c for c in spec.get("containers") or [] if c.get("name") == "main"), None)
    if main is None or not is_elastic_ep_ray_launch(main):
        return False
    return component.number_of_nodes <= 1 and component.replicas in (None, 1)


def elastic_ep_leader_service(
    dgd: DynamoGraphDeployment, component: DynamoComponentDeploymentSharedSpec, namespace: str,
    worker_hash: str, alpha: AlphaComponentData = NO_ALPHA_DATA,
) -> dict[str, Any]:
    """``GenerateElasticEPHeadlessService``: headless, not-ready addresses published, Ray + system ports."""
    name = truncate_with_fnv(normalize_kube_resource_name(dcd_name(dgd.name, component.name) + ELASTIC_EP_SERVICE_SUFFIX))
    selector = {
        KUBE_LABEL_DYNAMO_COMPONENT_TYPE: component.type or "",
        KUBE_LABEL_DYNAMO_NAMESPACE: dynamo_namespace(namespace, dgd.name, bool(component.global_dynamo_namespace)),
        KUBE_LABEL_DYNAMO_COMPONENT: component.name,
    }
    ports = [
        {"name": RAY_GCS_PORT_NAME, "port": VLLM_RAY_PORT, "targetPort": VLLM_RAY_PORT, "protocol": "TCP"},
        {"name": DYNAMO_SYSTEM_PORT_NAME, "port": DYNAMO_SYSTEM_PORT, "targetPort": DYNAMO_SYSTEM_PORT_NAME,
         "protocol": "TCP"},
    ]
    meta = object_meta(name, namespace, component_resource_labels(dgd, component, worker_hash, alpha),
                       component_resource_annotations(dgd, component, alpha))
    spec = {"clusterIP": "None", "publishNotReadyAddresses": True, "selector": selector, "ports": ports}
    return k8s_object("v1", "Service", meta, spec=spec)


def model_services(dgd: DynamoGraphDeployment, namespace: str) -> list[dict[str, Any]]:
    """One headless model Service per distinct ``modelRef.name``, with the graph's annotations."""
    objects: list[dict[str, Any]] = []
    seen: set[str] = set()
    for component in dgd.components:
        model = component.model_ref.name if component.model_ref is not None else ""
        if not model or model in seen:
            continue
        seen.add(model)
        service = build_model_service(model, namespace)
        annotations = {**(dgd.spec.annotations or {}), **service["metadata"].get("annotations", {})}
        service["metadata"]["annotations"] = annotations
        objects.append(service)
    return objects


def _frontend_ingress(dcd: dict[str, Any], facts: GraphFacts) -> list[dict[str, Any]]:
    ctx = ComponentContext(
        dcd=dcd,
        model=dcd_model(dcd),
        namespace=facts.namespace,
        platform=facts.platform,
        pod_template=lambda _role: {},
        graph_name=facts.dgd.name,
        worker_hash=facts.worker_hash,
    )
    return ingress.build(ctx)


def ancillary_objects(facts: GraphFacts) -> list[dict[str, Any]]:
    """Services, model Services, ingress, then the graph-level objects, in that order.

    ``facts`` are the ones the PodCliqueSet was rendered from (discovery backend, alpha data):
    resolved once for the whole graph.
    """
    dgd, namespace, worker_hash, dcds = facts.dgd, facts.namespace, facts.worker_hash, facts.dcds
    k8s_discovery = facts.discovery_backend == DISCOVERY_BACKEND_KUBERNETES
    objects: list[dict[str, Any]] = []
    for component, dcd in zip(dgd.components, dcds, strict=True):
        if k8s_discovery or component.type == COMPONENT_TYPE_FRONTEND:
            data = facts.alpha_data(component.name)
            objects.append(component_service(dgd, component, namespace, worker_hash, k8s_discovery, data))
        if _is_single_pod_elastic_ep_leader(component):
            objects.append(elastic_ep_leader_service(dgd, component, namespace, worker_hash,
                                                     facts.alpha_data(component.name)))
        if component.type == COMPONENT_TYPE_FRONTEND:
            objects += _frontend_ingress(dcd, facts)
    objects += model_services(dgd, namespace)
    graph_ctx = GraphContext(graph=dgd, namespace=namespace, platform=facts.platform, components=dcds)
    for builder in GRAPH_BUILDERS:
        objects += builder.build(graph_ctx)
    return objects
