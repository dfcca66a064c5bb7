"""Objects the DGD controller owns: RBAC (2.8, 2.9), EPP objects (3.5), scaling adapters (2.10),
the wait-for-leader ConfigMap, and how the result says who owns what."""

from __future__ import annotations

from typing import Any

import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

GRAPH = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: g, namespace: ns}
spec:
  backendFramework: vllm
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: "frontend:1.5.0"}]}}
  - name: decode
    type: decode
    scalingAdapter: {}
    replicas: 4
    podTemplate:
      spec:
        containers:
        - {name: main, image: "worker:1.5.0", command: [python3, -m, dynamo.vllm], args: [--model, m]}
"""
EPP = """
  - name: Epp
    type: epp
    podTemplate: {spec: {containers: [{name: main, image: "epp:1.5.0"}]}}
"""
CLUSTER_WIDE = Platform.model_validate({"rbac": {"plannerClusterRoleName": "planner-cr", "eppClusterRoleName": "epp-cr"}})
RESTRICTED = Platform.model_validate({"namespace": {"restricted": "ns"}})


def render(text: str = GRAPH, platform: Platform = RESTRICTED) -> list[dict[str, Any]]:
    return render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(text)), platform).objects


def named(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def test_kubernetes_discovery_creates_service_account_role_and_binding() -> None:
    objects = render()
    sa = named(objects, "ServiceAccount")["g-k8s-service-discovery"]
    role = named(objects, "Role")["g-k8s-service-discovery-role"]
    binding = named(objects, "RoleBinding")["g-k8s-service-discovery-binding"]
    assert sa["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "dynamo-operator",
        "app.kubernetes.io/component": "rbac",
        "app.kubernetes.io/name": "g-k8s-service-discovery",
    }
    assert {r["resources"][0] for r in role["rules"]} == {"endpoints", "endpointslices", "dynamoworkermetadatas"}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "g-k8s-service-discovery", "namespace": "ns"}]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "g-k8s-service-discovery-role"}


def test_pods_run_as_the_discovery_service_account() -> None:
    for deployment in named(render(), "Deployment").values():
        assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == "g-k8s-service-discovery"


def test_etcd_discovery_creates_no_discovery_rbac() -> None:
    doc = yaml.safe_load(GRAPH)
    doc["metadata"]["annotations"] = {"nvidia.com/dynamo-discovery-backend": "etcd"}
    objects = render(yaml.safe_dump(doc))
    assert not named(objects, "Role")
    assert not named(objects, "ServiceAccount")


def test_restricted_mode_creates_no_planner_or_epp_service_accounts() -> None:
    assert set(named(render(GRAPH + EPP), "ServiceAccount")) == {"g-k8s-service-discovery"}


def test_cluster_wide_mode_binds_planner_for_every_graph_and_epp_only_with_an_epp() -> None:
    without_epp = named(render(platform=CLUSTER_WIDE), "RoleBinding")
    assert without_epp["planner-serviceaccount-binding"]["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "planner-cr",
    }
    assert "epp-serviceaccount-binding" not in without_epp
    with_epp = named(render(GRAPH + EPP, CLUSTER_WIDE), "RoleBinding")
    assert with_epp["epp-serviceaccount-binding"]["roleRef"]["name"] == "epp-cr"


def test_native_epp_gets_an_inference_pool_but_no_config_map() -> None:
    objects = render(GRAPH + EPP)
    assert not named(objects, "ConfigMap")
    pool = named(objects, "InferencePool")["g-pool"]
    assert pool["apiVersion"] == "inference.networking.k8s.io/v1"
    assert pool["spec"] == {
        "targetPorts": [{"number": 8000}],
        "selector": {"matchLabels": {"nvidia.com/dynamo-component-class": "worker", "nvidia.com/dynamo-namespace": "ns-g"}},
        "endpointPickerRef": {"kind": "Service", "name": "g-epp", "port": {"number": 9002}},
    }
    assert pool["metadata"]["labels"] == {
        "nvidia.com/dynamo-graph-deployment-name": "g",
        "nvidia.com/dynamo-component": "Epp",
        "nvidia.com/dynamo-component-type": "epp",
    }


def test_pool_points_at_the_undotted_epp_name_while_the_service_is_normalised() -> None:
    objects = render((GRAPH + EPP).replace("name: g,", "name: g.v1,"))
    assert named(objects, "InferencePool")["g.v1-pool"]["spec"]["endpointPickerRef"]["name"] == "g.v1-epp"
    assert "g-v1-epp" in named(objects, "Service")


def test_legacy_inline_epp_config_becomes_a_config_map() -> None:
    text = (GRAPH + EPP).replace('"epp:1.5.0"', '"epp:1.4.0"') + "    eppConfig: {config: {plugins: [{type: kv-aware-scorer}]}}\n"
    config_map = named(render(text), "ConfigMap")["g-epp-config"]
    data = yaml.safe_load(config_map["data"]["epp-config-dynamo.yaml"])
    assert data == {
        "apiVersion": "inference.networking.x-k8s.io/v1alpha1",
        "kind": "EndpointPickerConfig",
        "plugins": [{"name": "", "parameters": None, "type": "kv-aware-scorer"}],
        "schedulingProfiles": None,
    }


def test_the_epp_config_is_written_as_the_operators_typed_struct() -> None:
    """``marshalEndpointPickerConfig`` marshals gateway-api-inference-extension's typed struct:
    fields without ``omitempty`` at their zero value, go-yaml's ``""``, sorted keys; it sets the
    TypeMeta on the component's own struct, so the DCD carries it too (the recorded operator's
    ConfigMap and DCD of corpus vllm-gaie-agg, docs/OPERATOR-AGREEMENT.md)."""
    text = (GRAPH + EPP).replace('"epp:1.5.0"', '"epp:1.4.0"') + (
        "    eppConfig: {config: {plugins: [{type: a}, {name: b, type: c, parameters: {x: 1}}],"
        " schedulingProfiles: [{name: p, plugins: [{pluginRef: b}]}]}}\n")
    rendered = render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(text)), RESTRICTED)
    objects = rendered.objects
    assert named(objects, "ConfigMap")["g-epp-config"]["data"]["epp-config-dynamo.yaml"] == (
        "apiVersion: inference.networking.x-k8s.io/v1alpha1\n"
        "kind: EndpointPickerConfig\n"
        "plugins:\n"
        "- name: \"\"\n  parameters: null\n  type: a\n"
        "- name: b\n  parameters:\n    x: 1\n  type: c\n"
        "schedulingProfiles:\n"
        "- name: p\n  plugins:\n  - pluginRef: b\n    weight: null\n")
    dcd = named(rendered.components, "DynamoComponentDeployment")["g-epp"]
    config = dcd["spec"]["eppConfig"]["config"]
    assert (config["apiVersion"], config["kind"]) == ("inference.networking.x-k8s.io/v1alpha1", "EndpointPickerConfig")
    assert config["plugins"][0] == {"name": "", "type": "a"}  # the server prunes a custom resource's nulls
    assert config["schedulingProfiles"][0]["plugins"] == [{"pluginRef": "b"}]


def test_istio_mesh_adds_a_destination_rule_for_the_epp_service() -> None:
    platform = Platform.model_validate({"namespace": {"restricted": "ns"}, "serviceMesh": {"provider": "istio"}})
    rule = named(render(GRAPH + EPP, platform), "DestinationRule")["g-epp"]
    assert rule["spec"] == {
        "host": "g-epp.ns.svc.cluster.local",
        "trafficPolicy": {"tls": {"mode": "SIMPLE", "insecureSkipVerify": True}},
    }


def test_scaling_adapter_is_seeded_with_the_component_replicas() -> None:
    adapter = named(render(), "DynamoGraphDeploymentScalingAdapter")["g-decode"]
    assert adapter["apiVersion"] == "nvidia.com/v1alpha1"
    assert adapter["metadata"]["labels"] == {"nvidia.com/dynamo-graph-deployment-name": "g", "nvidia.com/dynamo-component": "decode"}
    assert adapter["spec"] == {"replicas": 4, "dgdRef": {"name": "g", "serviceName": "decode"}}


def test_wait_for_leader_config_map_only_with_a_multinode_component() -> None:
    assert not named(render(), "ConfigMap")
    multinode = GRAPH.replace("    scalingAdapter: {}\n", "    multinode: {nodeCount: 2}\n")
    lws = Platform.model_validate({"namespace": {"restricted": "ns"}, "orchestrators": {"lws": {"enabled": True}}})
    assert "g-wait-leader-script" in named(render(multinode, lws), "ConfigMap")


def test_result_groups_objects_by_owning_component() -> None:
    result = render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(GRAPH)), RESTRICTED)
    grouped = result.objects_by_component()
    assert list(grouped) == ["Frontend", "decode"]
    assert {o["kind"] for o in grouped["decode"]} == {"Deployment", "Service"}
    assert {o["kind"] for o in result.graph_objects()} == {
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "DynamoGraphDeploymentScalingAdapter",
    }
    assert result.component_document("decode")["spec"]["name"] == "decode"


ALPHA_PVCS = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: legacy, namespace: ns}
spec:
  pvcs:
  - {name: model-cache, create: true, size: 100Gi, storageClass: fast, volumeAccessMode: ReadWriteMany}
  - {name: must-exist}
  services:
    Frontend:
      componentType: frontend
      extraPodSpec: {mainContainer: {image: "frontend:1.4.0"}}
"""


def test_legacy_alpha_pvcs_with_create_become_graph_owned_claims() -> None:
    from dynamo_pulumi.loading.documents import load_graph

    result = render_graph(load_graph(yaml.safe_load(ALPHA_PVCS)), RESTRICTED)
    claims = named(result.objects, "PersistentVolumeClaim")
    assert list(claims) == ["model-cache"]
    assert claims["model-cache"]["spec"] == {
        "accessModes": ["ReadWriteMany"],
        "resources": {"requests": {"storage": "100Gi"}},
        "storageClassName": "fast",
    }
    assert claims["model-cache"] in result.graph_objects()


def test_an_env_var_given_as_empty_string_is_written_without_value() -> None:
    """``corev1.EnvVar.Value`` is ``omitempty``: the operator reads the pod template into Go types,
    so ``value: ""`` reaches its Deployment and DCD as a bare name (the recorded operator's
    objects for corpus examples-diffusers-agg, docs/OPERATOR-AGREEMENT.md)."""
    text = GRAPH.replace("args: [--model, m]}", "args: [--model, m], env: [{name: EMPTY, value: ''}]}")
    rendered = render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(text)), RESTRICTED)
    deployment = next(o for o in rendered.objects if o["kind"] == "Deployment" and "decode" in o["metadata"]["name"])
    (entry,) = [e for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"] if e["name"] == "EMPTY"]
    assert entry == {"name": "EMPTY"}
    dcd = next(o for o in rendered.components if "decode" in o["metadata"]["name"])
    assert {"name": "EMPTY"} in dcd["spec"]["podTemplate"]["spec"]["containers"][0]["env"]


def test_a_top_level_key_the_go_type_lacks_is_in_neither_the_config_map_nor_the_dcd() -> None:
    """The CRD preserves unknown fields at the top of ``eppConfig.config``, but the operator decodes
    it into gateway-api-inference-extension v1.2.0's ``EndpointPickerConfig`` (no such field), so the
    objects it writes from that struct lack the key (api/epp_schema.GO_FIELDS)."""
    text = (GRAPH + EPP).replace('"epp:1.5.0"', '"epp:1.4.0"') + (
        "    eppConfig: {config: {plugins: [{type: a}], schedulingProfiles: [], futureKey: {x: 1},"
        " featureGates: [g]}}\n")
    rendered = render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(text)), RESTRICTED)
    data = yaml.safe_load(named(rendered.objects, "ConfigMap")["g-epp-config"]["data"]["epp-config-dynamo.yaml"])
    assert "futureKey" not in data and data["featureGates"] == ["g"]
    config = named(rendered.components, "DynamoComponentDeployment")["g-epp"]["spec"]["eppConfig"]["config"]
    assert "futureKey" not in config and config["featureGates"] == ["g"]
