"""DGD-owned EPP objects (rendering-core 3.5, ERRATA 1.5-1.6, 2.9).

* the EPP ConfigMap ``<dgd>-epp-config``, only for the legacy Go EPP configured inline
  (``eppConfig.config`` without ``configMapRef``); the native Rust EPP (no ``eppConfig``) reads no
  file;
* the InferencePool ``<dgd>-pool`` selecting the graph's worker-class pods, pointing at the EPP
  Service ``<dgd>-<lower(epp)>`` (not dot-normalised, as in the operator);
* the Istio DestinationRule for the EPP Service, when the service mesh provider is Istio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from dynamo_pulumi.api.epp_schema import go_zero_filled
from dynamo_pulumi.floor.constants import (
    COMPONENT_CLASS_WORKER,
    COMPONENT_TYPE_EPP,
    DYNAMO_SERVICE_PORT,
    ENDPOINT_PICKER_CONFIG_API_VERSION,
    ENDPOINT_PICKER_CONFIG_KIND,
    EPP_CONFIG_FILE_NAME,
    EPP_CONFIG_MAP_SUFFIX,
    EPP_GRPC_PORT,
    INFERENCE_POOL_API_VERSION,
    INFERENCE_POOL_NAME_SUFFIX,
    ISTIO_NETWORKING_API_VERSION,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
)
from dynamo_pulumi.floor.naming import dcd_name, dynamo_namespace, normalize_kube_resource_name
from dynamo_pulumi.render.objects.common import copy_tree, k8s_object, object_meta
from dynamo_pulumi.render.objects.context import GraphContext

if TYPE_CHECKING:
    from dynamo_pulumi.platform import ServiceMeshConfig

ISTIO_PROVIDER = "istio"
_TLS_MODES = ("DISABLE", "SIMPLE", "MUTUAL", "ISTIO_MUTUAL")


def epp_labels(graph_name: str, component: str) -> dict[str, str]:
    return {
        KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: graph_name,
        KUBE_LABEL_DYNAMO_COMPONENT: component,
        KUBE_LABEL_DYNAMO_COMPONENT_TYPE: COMPONENT_TYPE_EPP,
    }


def typed_endpoint_picker_config(config: dict[str, Any], *, nulls: bool = True) -> dict[str, Any]:
    """``eppConfig.config`` as the operator's typed ``EndpointPickerConfig`` (gateway-api-inference-
    extension v1.2.0) holds it once ``marshalEndpointPickerConfig`` has run: ``TypeMeta`` set, and
    the fields without ``omitempty`` present at their zero value, so written even where the user
    left them out (a plugin's ``name: ""`` and ``parameters: null``, a profile plugin's ``weight``).
    The operator sets ``TypeMeta`` on the component's own struct (a pointer), so the DCD it writes
    afterwards carries it too (found by the recorded comparison, docs/OPERATOR-AGREEMENT.md).
    ``nulls=False`` is that struct as the DCD stores it: the API server prunes the nulls of a
    custom resource's non-nullable fields. The struct is re-encoded whole: a top-level key the Go
    type does not have is gone (decoding dropped it), its empty ``omitempty`` fields too, and the
    saturation detector's staleness threshold is always written (probed on the operator:
    tests/test_epp_probe_recorded.py)."""
    out = copy_tree(config)
    out["apiVersion"] = ENDPOINT_PICKER_CONFIG_API_VERSION
    out["kind"] = ENDPOINT_PICKER_CONFIG_KIND
    return go_zero_filled(out, nulls=nulls, whole=True)


class _GoYamlDumper(yaml.SafeDumper):
    """PyYAML's safe dumper with one change to match ``sigs.k8s.io/yaml`` (go-yaml v2): an empty
    string is written ``""``, not ``''``."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if value == "":
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return yaml.SafeDumper.represent_str(dumper, value)


_GoYamlDumper.add_representer(str, _represent_str)


def endpoint_picker_config_yaml(config: dict[str, Any]) -> str:
    """The ``EndpointPickerConfig`` document as ``sigs.k8s.io/yaml`` writes the typed struct (sorted keys)."""
    return yaml.dump(typed_endpoint_picker_config(config), Dumper=_GoYamlDumper, sort_keys=True,
                     default_flow_style=False)


def build_config_map(ctx: GraphContext) -> list[dict[str, Any]]:
    epp = ctx.epp_component
    config = epp.epp_config if epp is not None else None
    if config is None or config.config_map_ref is not None or config.config is None:
        return []
    meta = object_meta(f"{ctx.name}{EPP_CONFIG_MAP_SUFFIX}", ctx.namespace, epp_labels(ctx.name, epp.name))
    return [k8s_object("v1", "ConfigMap", meta, data={EPP_CONFIG_FILE_NAME: endpoint_picker_config_yaml(config.config)})]


def build_inference_pool(ctx: GraphContext) -> list[dict[str, Any]]:
    epp = ctx.epp_component
    if epp is None:
        return []
    dyn_ns = dynamo_namespace(ctx.namespace, ctx.name, bool(epp.global_dynamo_namespace))
    spec = {
        "targetPorts": [{"number": DYNAMO_SERVICE_PORT}],
        "selector": {
            "matchLabels": {KUBE_LABEL_DYNAMO_COMPONENT_CLASS: COMPONENT_CLASS_WORKER, KUBE_LABEL_DYNAMO_NAMESPACE: dyn_ns}
        },
        "endpointPickerRef": {
            "kind": "Service",
            "name": dcd_name(ctx.name, epp.name),
            "port": {"number": EPP_GRPC_PORT},
        },
    }
    meta = object_meta(f"{ctx.name}{INFERENCE_POOL_NAME_SUFFIX}", ctx.namespace, epp_labels(ctx.name, epp.name))
    return [k8s_object(INFERENCE_POOL_API_VERSION, "InferencePool", meta, spec=spec)]


def destination_rule_tls(mesh: ServiceMeshConfig) -> dict[str, Any]:
    """``trafficPolicy.tls``: SIMPLE unless configured; client material only for MUTUAL."""
    mode = mesh.istio.tls_mode if mesh.istio.tls_mode in _TLS_MODES else "SIMPLE"
    tls: dict[str, Any] = {"mode": mode, "insecureSkipVerify": mesh.istio.insecure_skip_verify}
    if mode == "MUTUAL":
        for key, value in (
            ("clientCertificate", mesh.istio.client_certificate),
            ("privateKey", mesh.istio.private_key),
            ("caCertificates", mesh.istio.ca_certificates),
        ):
            if value:
                tls[key] = value
    return tls


def build_destination_rule(ctx: GraphContext) -> list[dict[str, Any]]:
    epp = ctx.epp_component
    mesh = ctx.platform.service_mesh
    if epp is None or mesh.provider != ISTIO_PROVIDER:
        return []
    name = normalize_kube_resource_name(dcd_name(ctx.name, epp.name))
    spec = {
        "host": f"{name}.{ctx.namespace}.svc.cluster.local",
        "trafficPolicy": {"tls": destination_rule_tls(mesh)},
    }
    return [k8s_object(ISTIO_NETWORKING_API_VERSION, "DestinationRule", object_meta(name, ctx.namespace), spec=spec)]


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    return build_config_map(ctx) + build_inference_pool(ctx) + build_destination_rule(ctx)
