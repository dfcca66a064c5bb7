"""Graph-level RBAC (rendering-core 2.8, 2.9).

* Kubernetes-discovery ServiceAccount ``<dgd>-k8s-service-discovery``, its Role and RoleBinding,
  owned by the DGD, when the graph's discovery backend is ``kubernetes``;
* in cluster-wide mode only: ``planner-serviceaccount`` and its RoleBinding to the planner
  ClusterRole for every graph, and the same for ``epp-serviceaccount`` when the graph has an EPP.
  The operator creates these without owner references (they are shared by the namespace).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    APP_COMPONENT_RBAC,
    APP_LABEL_COMPONENT,
    APP_LABEL_MANAGED_BY,
    APP_LABEL_NAME,
    EPP_SERVICE_ACCOUNT_NAME,
    MANAGED_BY_DYNAMO_OPERATOR,
    PLANNER_SERVICE_ACCOUNT_NAME,
)
from dynamo_pulumi.floor.naming import (
    discovery_service_account_name,
    rbac_name_label_value,
    role_binding_name,
    role_name,
)
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import GraphContext

RBAC_API_GROUP = "rbac.authorization.k8s.io"
RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"

DISCOVERY_RULES: list[dict[str, Any]] = [
    {"apiGroups": [""], "resources": ["endpoints", "pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["get", "list", "watch"]},
    {
        "apiGroups": ["nvidia.com"],
        "resources": ["dynamoworkermetadatas"],
        "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"],
    },
]


def rbac_labels(name_value: str) -> dict[str, str]:
    return {
        APP_LABEL_MANAGED_BY: MANAGED_BY_DYNAMO_OPERATOR,
        APP_LABEL_COMPONENT: APP_COMPONENT_RBAC,
        APP_LABEL_NAME: name_value,
    }


def service_account(name: str, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    return k8s_object("v1", "ServiceAccount", object_meta(name, namespace, labels))


def role_binding(
    name: str, namespace: str, labels: dict[str, str], sa: str, role_kind: str, role: str
) -> dict[str, Any]:
    return k8s_object(
        RBAC_API_VERSION,
        "RoleBinding",
        object_meta(name, namespace, labels),
        subjects=[{"kind": "ServiceAccount", "name": sa, "namespace": namespace}],
        roleRef={"apiGroup": RBAC_API_GROUP, "kind": role_kind, "name": role},
    )


def discovery_objects(graph_name: str, namespace: str) -> list[dict[str, Any]]:
    """The discovery ServiceAccount, Role (``<sa>-role``) and RoleBinding (``<sa>-binding``)."""
    sa = discovery_service_account_name(graph_name)
    labels = rbac_labels(rbac_name_label_value(sa))
    role = k8s_object(
        RBAC_API_VERSION,
        "Role",
        object_meta(role_name(sa), namespace, labels),
        rules=[{k: list(v) for k, v in rule.items()} for rule in DISCOVERY_RULES],
    )
    binding = role_binding(role_binding_name(sa), namespace, labels, sa, "Role", role_name(sa))
    return [service_account(sa, namespace, labels), role, binding]


def cluster_role_objects(sa: str, namespace: str, cluster_role: str) -> list[dict[str, Any]]:
    """``EnsureServiceAccountWithRBAC``: a ServiceAccount and a RoleBinding to a ClusterRole."""
    labels = rbac_labels(sa)
    binding = role_binding(role_binding_name(sa), namespace, labels, sa, "ClusterRole", cluster_role)
    return [service_account(sa, namespace, labels), binding]


#: Objects the operator creates once per namespace, with no owner, for every graph there (the
#: planner and EPP ServiceAccounts and their RoleBindings): several graphs share them.
NAMESPACE_SHARED_SERVICE_ACCOUNTS = (PLANNER_SERVICE_ACCOUNT_NAME, EPP_SERVICE_ACCOUNT_NAME)


def is_namespace_shared(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` is one of the per-namespace objects every graph there renders alike."""
    name = (obj.get("metadata") or {}).get("name")
    if obj.get("kind") == "ServiceAccount":
        return name in NAMESPACE_SHARED_SERVICE_ACCOUNTS
    if obj.get("kind") == "RoleBinding":
        return name in {role_binding_name(sa) for sa in NAMESPACE_SHARED_SERVICE_ACCOUNTS}
    return False


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    if ctx.platform.cluster_wide:
        rbac = ctx.platform.rbac
        objects += cluster_role_objects(PLANNER_SERVICE_ACCOUNT_NAME, ctx.namespace, rbac.planner_cluster_role_name)
        if ctx.epp_component is not None:
            objects += cluster_role_objects(EPP_SERVICE_ACCOUNT_NAME, ctx.namespace, rbac.epp_cluster_role_name)
    if ctx.k8s_discovery:
        objects += discovery_objects(ctx.name, ctx.namespace)
    return objects
