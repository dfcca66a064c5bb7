"""The DGD controller's shared objects (EPP InferencePool, scaling adapters, planner RBAC, GMS
claim templates, elastic-EP leader Services), translated from the operator's Go tests. Rendering is
the fresh install: the Go cases about pre-existing adapters or stale objects have no offline
counterpart (a declarative deployment removes what it no longer renders)."""

from __future__ import annotations

from typing import Any

import pytest
from oracle_support import COMPONENT, GROVE, alpha_graph, beta_graph, of_kind, render_yaml

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform


def _beta(components: list[dict[str, Any]], name: str = "graph", namespace: str = "ns", **spec: Any) -> str:
    return beta_graph(components, name, namespace, **spec)


# from epp/inference_pool_test.go: TestGenerateInferencePoolSelectsWorkerClass
def test_the_inference_pool_selects_the_worker_class_not_a_component_type() -> None:
    text = _beta([{"name": "epp", "type": "epp"}, {"name": "prefill", "type": "prefill"},
                  {"name": "decode", "type": "decode"}])
    (pool,) = of_kind(render_yaml(text, COMPONENT), "InferencePool").values()
    selector = pool["spec"]["selector"]["matchLabels"]
    assert selector["nvidia.com/dynamo-component-class"] == "worker"
    assert "nvidia.com/dynamo-component-type" not in selector


ADAPTERS = [
    ("creates adapters for services with scalingAdapter.enabled=true",
     {"Frontend": {"replicas": 2, "scalingAdapter": {"enabled": True}},
      "decode": {"replicas": 3, "scalingAdapter": {"enabled": True}}}, "test-dgd",
     {"test-dgd-frontend": 2, "test-dgd-decode": 3}),
    ("uses default replicas when not specified", {"worker": {"scalingAdapter": {"enabled": True}}}, "test-dgd",
     {"test-dgd-worker": 1}),
    ("skips adapter creation when not enabled",
     {"Frontend": {"replicas": 2, "scalingAdapter": {"enabled": True}}, "decode": {"replicas": 3}}, "test-dgd",
     {"test-dgd-frontend": 2}),
    ("adapter name uses lowercase service name",
     {"MyService": {"replicas": 1, "scalingAdapter": {"enabled": True}}}, "my-dgd", {"my-dgd-myservice": 1}),
]


# from dynamographdeployment_controller_test.go: TestDGDScalingAdaptersReconciler_Reconcile (fresh-install rows)
@pytest.mark.parametrize(("case", "services", "graph", "want"), ADAPTERS, ids=[c[0] for c in ADAPTERS])
def test_scaling_adapters_are_created_per_enabled_component(case: str, services: dict[str, Any], graph: str,
                                                           want: dict[str, int]) -> None:
    for name, service in services.items():
        service["componentType"] = "frontend" if name == "Frontend" else "worker"
    adapters = of_kind(render_yaml(alpha_graph(services, graph), COMPONENT), "DynamoGraphDeploymentScalingAdapter")
    assert {name: a["spec"]["replicas"] for name, a in adapters.items()} == want


# from rbac/manager_test.go: TestEnsureServiceAccountWithRBAC_CreateNew (the planner ServiceAccount)
def test_the_planner_service_account_is_bound_to_the_planner_cluster_role() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}},
                                        "rbac": {"plannerClusterRoleName": "test-cluster-role"}})
    text = _beta([{"name": "planner", "type": "planner"}], namespace="test-namespace")
    result = render_yaml(text, platform)
    sa = of_kind(result, "ServiceAccount")["planner-serviceaccount"]
    assert {k: sa["metadata"]["labels"][k] for k in ("app.kubernetes.io/managed-by", "app.kubernetes.io/component",
                                                      "app.kubernetes.io/name")} == {
        "app.kubernetes.io/managed-by": "dynamo-operator", "app.kubernetes.io/component": "rbac",
        "app.kubernetes.io/name": "planner-serviceaccount"}
    (binding,) = [b for b in of_kind(result, "RoleBinding").values()
                  if b["roleRef"]["kind"] == "ClusterRole"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "planner-serviceaccount",
                                    "namespace": "test-namespace"}]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": "test-cluster-role"}


GMS_DRA = [
    ("intra-pod failover does not require DRA", {"failover": {"mode": "IntraPod"}}, False),
    ("inter-pod failover requires DRA", {"failover": {"mode": "InterPod"}}, True),
    ("gpu memory service requires DRA", {"gpuMemoryService": {}}, True),
]


# from dgd_gms_resource_claims_reconciler_test.go: TestDGDGMSResourceClaimsReconciler_DRAValidation
@pytest.mark.parametrize(("case", "experimental", "refused"), GMS_DRA, ids=[c[0] for c in GMS_DRA])
def test_gms_and_inter_pod_failover_need_dra(case: str, experimental: dict[str, Any], refused: bool) -> None:
    main = {"name": "main", "image": "vllm:1.4.0", "command": ["python3"], "args": ["-m", "dynamo.vllm"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    text = _beta([{"name": "decode", "type": "decode", "experimental": experimental,
                   "podTemplate": {"spec": {"containers": [main]}}}], name="test-dgd", namespace="default",
                 backendFramework="vllm")
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": False}})
    if refused:
        with pytest.raises(RenderError, match="requires DRA"):
            render_yaml(text, platform)
    else:
        assert render_yaml(text, platform).objects


# from dgd_gms_resource_claims_reconciler_test.go: TestDGDGMSResourceClaimsReconciler_ToleratesNonGMSComponents
def test_a_graph_without_gms_gets_no_gms_claim_templates() -> None:
    text = _beta([{"name": "frontend", "type": "frontend"}, {"name": "decode", "type": "decode"}],
                 name="test-dgd", namespace="default")
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}}, "dra": {"enabled": True}})
    assert of_kind(render_yaml(text, platform), "ResourceClaimTemplate") == {}


_ELASTIC = "python3 -m dynamo.vllm --enable-elastic-ep --data-parallel-backend ray"
ELASTIC = [
    ("single-pod elastic-EP leader qualifies", _ELASTIC, {}, True),
    ("an explicit single replica qualifies", _ELASTIC, {"replicas": 1}, True),
    ("replicas > 1 is excluded because every replica runs its own Ray head", _ELASTIC, {"replicas": 2}, False),
    ("multinode is excluded because its worker pods share the component labels", _ELASTIC,
     {"multinode": {"nodeCount": 2}}, False),
    ("elastic EP on a non-Ray data-parallel backend is excluded", "python3 -m dynamo.vllm --enable-elastic-ep", {}, False),
    ("a plain component is excluded", "python3 -m dynamo.vllm", {}, False),
]


# from dgd_grove_stable_resources_reconciler_test.go: TestIsSinglePodElasticEPLeader (one case per row)
@pytest.mark.parametrize(("case", "args", "fields", "leader"), ELASTIC, ids=[c[0] for c in ELASTIC])
def test_only_a_single_pod_ray_elastic_ep_worker_gets_a_leader_service(case: str, args: str,
                                                                       fields: dict[str, Any], leader: bool) -> None:
    main = {"name": "main", "image": "vllm:1.4.0", "command": ["/bin/sh", "-c"], "args": [args],
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    text = _beta([{"name": "worker", "type": "worker", **fields, "podTemplate": {"spec": {"containers": [main]}}}],
                 name="test-dgd", namespace="default", backendFramework="vllm")
    services = of_kind(render_yaml(text, GROVE), "Service")
    assert ("test-dgd-worker-ray" in services) is leader
