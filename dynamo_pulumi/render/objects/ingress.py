"""Ingress and Istio VirtualService for frontend DCDs (rendering-core 2.6).

The ingress spec is the preserved v1alpha1 ``ingress`` block when one exists (a converted alpha
component carries it in its conversion annotation), otherwise the default built from the
operator's ``ingress`` configuration for a frontend DCD of a graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.preservation import preserved_alpha_spec
from dynamo_pulumi.floor.constants import (
    DEFAULT_INGRESS_SUFFIX,
    DYNAMO_SERVICE_PORT,
    ISTIO_NETWORKING_API_VERSION,
)
from dynamo_pulumi.floor.naming import normalize_kube_resource_name
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render import dcd_identity
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import ComponentContext

if TYPE_CHECKING:
    from dynamo_pulumi.platform import IngressConfig

INGRESS_API_VERSION = "networking.k8s.io/v1"
INGRESS_KIND = "Ingress"
VIRTUAL_SERVICE_KIND = "VirtualService"


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class IngressSpec:
    """The operator's ``IngressSpec`` (the alpha component ``ingress`` block)."""

    enabled: bool = False
    host: str = ""
    use_virtual_service: bool = False
    virtual_service_gateway: str | None = None
    host_prefix: str | None = None
    tls_secret_name: str | None = None
    host_suffix: str | None = None
    ingress_controller_class_name: str | None = None

    @property
    def virtual_service_enabled(self) -> bool:
        return self.enabled and self.use_virtual_service and self.virtual_service_gateway is not None

    @property
    def full_host(self) -> str:
        """``getIngressHost``: ``<prefix?><host>.<suffix or "local">``."""
        host = (self.host_prefix or "") + self.host
        suffix = self.host_suffix if self.host_suffix is not None else DEFAULT_INGRESS_SUFFIX
        return f"{host}.{suffix}"


def default_ingress_spec(graph_name: str, config: IngressConfig) -> IngressSpec:
    """``GenerateDefaultIngressSpec``: enabled when a gateway or a class is configured."""
    return IngressSpec(
        enabled=bool(config.virtual_service_gateway or config.controller_class_name),
        host=graph_name,
        use_virtual_service=bool(config.virtual_service_gateway),
        virtual_service_gateway=config.virtual_service_gateway or None,
        tls_secret_name=config.controller_tls_secret_name or None,
        host_suffix=config.host_suffix or None,
        ingress_controller_class_name=config.controller_class_name or None,
    )


def build_ingress(dcd_name: str, namespace: str, spec: IngressSpec) -> list[dict[str, Any]]:
    """``GenerateComponentIngress``; nothing when disabled or without a class name."""
    if not spec.enabled or spec.ingress_controller_class_name is None:
        return []
    name = normalize_kube_resource_name(dcd_name)
    path = {
        "path": "/",
        "pathType": "Prefix",
        "backend": {"service": {"name": name, "port": {"number": DYNAMO_SERVICE_PORT}}},
    }
    body: dict[str, Any] = {
        "ingressClassName": spec.ingress_controller_class_name,
        "rules": [{"host": spec.full_host, "http": {"paths": [path]}}],
    }
    if spec.tls_secret_name is not None:
        body["tls"] = [{"hosts": [spec.full_host], "secretName": spec.tls_secret_name}]
    return [k8s_object(INGRESS_API_VERSION, INGRESS_KIND, object_meta(name, namespace), spec=body)]


def build_virtual_service(dcd_name: str, namespace: str, spec: IngressSpec) -> list[dict[str, Any]]:
    """``GenerateComponentVirtualService``; nothing unless the spec enables it."""
    if not spec.virtual_service_enabled:
        return []
    name = normalize_kube_resource_name(dcd_name)
    body = {
        "hosts": [spec.full_host],
        "gateways": [spec.virtual_service_gateway],
        "http": [
            {
                "match": [{"uri": {"prefix": "/"}}],
                "route": [{"destination": {"host": name, "port": {"number": DYNAMO_SERVICE_PORT}}}],
            }
        ],
    }
    meta = object_meta(name, namespace)
    return [k8s_object(ISTIO_NETWORKING_API_VERSION, VIRTUAL_SERVICE_KIND, meta, spec=body)]


def preserved_ingress_spec(ctx: ComponentContext) -> IngressSpec | None:
    """The alpha ``ingress`` block a converted component carries in its conversion annotation."""
    preserved = preserved_alpha_spec(ctx.model)
    alpha = getattr(preserved, "ingress", None)
    if alpha is None:
        return None
    return IngressSpec(
        enabled=bool(alpha.enabled),
        host=alpha.host or "",
        use_virtual_service=bool(alpha.use_virtual_service),
        virtual_service_gateway=alpha.virtual_service_gateway,
        host_prefix=alpha.host_prefix,
        tls_secret_name=alpha.tls.secret_name if alpha.tls is not None else None,
        host_suffix=alpha.host_suffix,
        ingress_controller_class_name=alpha.ingress_controller_class_name,
    )


def component_ingress_spec(ctx: ComponentContext) -> IngressSpec | None:
    """``dcdIngressSpec``: a preserved alpha spec wins; frontends of a graph get the default."""
    preserved = preserved_ingress_spec(ctx)
    if preserved is not None:
        return preserved
    parent = ctx.graph_name or dcd_identity.graph_name_of(ctx.dcd)
    if not ctx.is_frontend or not parent:
        return None
    return default_ingress_spec(parent, ctx.platform.ingress)


def build(ctx: ComponentContext) -> list[dict[str, Any]]:
    """Ingress, then the VirtualService (synced only when a gateway is configured)."""
    spec = component_ingress_spec(ctx)
    if spec is None:
        return []
    objects = build_ingress(ctx.name, ctx.namespace, spec)
    if ctx.platform.ingress.virtual_service_gateway:
        objects += build_virtual_service(ctx.name, ctx.namespace, spec)
    return objects
