"""The Dynamo operator beside the local cluster: a given binary, configured from a ``Platform``.

The operator's configuration is written from the same ``Platform`` that ``dynamo-pulumi render``
reads (its keys are the operator's ``OperatorConfiguration`` names), so a recording and a
rendering answer for one platform. Switches that the platform leaves unset are written as
``false``: offline an unset switch means off, while the operator would auto-detect the Grove and
LWS CRDs this cluster serves and turn them on. DRA stays unset on both sides (offline: available;
the operator detects ``resource.k8s.io/v1``, which Kubernetes 1.35 serves).

What the operator insists on, and how the harness gives it (``../shared/spec/real-engine.md`` §5):

* ``--operator-version`` must be semver (the platform's ``operatorVersion``);
* webhooks cannot be turned off; manual certificates need ``tls.crt``/``tls.key`` in its cert
  directory and, cluster-wide, the CA as ``ca.crt`` in the webhook Secret of its namespace, which
  it injects into the CRD conversion webhooks at start. It requires those webhooks to name a
  Service; once it is ready the harness points them at its loopback port;
* it reads its namespace from the in-pod service-account file, which a process on the host does
  not have: it is started in a private mount namespace (``unshare``) with a tmpfs over ``/run``
  holding only that file, so nothing on the host changes;
* the Grove and LWS CRDs must exist before it starts (it detects them once).
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

from dynamo_pulumi.platform import Platform

from .cluster import ClusterError, LocalCluster
from .operators import Controller, _base_env, _write_yaml, cluster_certs, controller_dir
from .processes import free_port
from .webhooks import ServingCerts, conversion_on_loopback, rule, webhook_configuration

OPERATOR_NAMESPACE = "dynamo-system"
WEBHOOK_SECRET = "webhook-server-cert"
DGDR_PROFILING_CLUSTER_ROLE = "dynamo-platform-dynamo-operator-dgdr-profiling"
SERVICE_ACCOUNT_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
CONVERTIBLE_CRDS = (
    "dynamographdeployments.nvidia.com", "dynamocomponentdeployments.nvidia.com",
    "dynamographdeploymentrequests.nvidia.com", "dynamographdeploymentscalingadapters.nvidia.com",
)
# Platform keys that are ours (cluster facts and pins), not the operator's configuration.
NOT_OPERATOR_KEYS = ("operatorVersion", "imagePullSecrets", "cluster", "lpx")
# The admission webhooks the operator's Helm chart registers, by path (the pod checkpoint-restore
# webhook is left out: checkpoints are off, and it would be called for every pod create).
_NVIDIA = "nvidia.com"
DYNAMO_WEBHOOKS = (
    ("ValidatingWebhookConfiguration", "dynamo-operator-validating", [
        {"name": "vdynamocomponentdeployment.kb.io", "path": "/validate/nvidia.com/v1beta1/dynamocomponentdeployments",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamocomponentdeployments"])]},
        {"name": "vdynamographdeployment.kb.io", "path": "/validate/nvidia.com/v1beta1/dynamographdeployments",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamographdeployments"])]},
        {"name": "vdynamocheckpoint.kb.io", "path": "/validate-nvidia-com-v1alpha1-dynamocheckpoint",
         "rules": [rule(_NVIDIA, ["v1alpha1"], ["dynamocheckpoints"])]},
        {"name": "vdynamomodel.kb.io", "path": "/validate-nvidia-com-v1alpha1-dynamomodel",
         "rules": [rule(_NVIDIA, ["v1alpha1"], ["dynamomodels"])]},
        {"name": "vdynamographdeploymentrequest.kb.io",
         "path": "/validate-nvidia-com-v1beta1-dynamographdeploymentrequest",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamographdeploymentrequests"])]},
    ]),
    ("MutatingWebhookConfiguration", "dynamo-operator-mutating", [
        {"name": "mdynamographdeployment.kb.io", "path": "/mutate/nvidia.com/v1beta1/dynamographdeployments",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamographdeployments"])]},
        {"name": "mdynamocomponentdeploymentv1beta1.kb.io", "matchPolicy": "Exact",
         "path": "/mutate-nvidia-com-v1beta1-dynamocomponentdeployment",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamocomponentdeployments"])]},
        {"name": "mdynamographdeploymentrequestv1beta1.kb.io",
         "path": "/mutate-nvidia-com-v1beta1-dynamographdeploymentrequest",
         "rules": [rule(_NVIDIA, ["v1beta1"], ["dynamographdeploymentrequests"])]},
    ]),
)


# The operator enables its LWS path only where the Volcano API is served too (it lists and prunes
# the PodGroups of older releases); no Volcano runs here, so a stand-in CRD that keeps any
# content serves the group. Written here, not upstream's: only the group, version and kind count.
VOLCANO_PODGROUP_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "podgroups.scheduling.volcano.sh"},
    "spec": {"group": "scheduling.volcano.sh", "scope": "Namespaced",
             "names": {"kind": "PodGroup", "listKind": "PodGroupList", "plural": "podgroups", "singular": "podgroup"},
             "versions": [{"name": "v1beta1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]},
}


def operator_configuration(platform: Platform, *, webhook: int, health: int, metrics: int,
                           cert_dir: Path) -> dict[str, Any]:
    """The ``OperatorConfiguration`` for ``platform``, served on loopback ports."""
    wire = platform.model_dump(by_alias=True, mode="json")
    config: dict[str, Any] = {k: v for k, v in wire.items() if k not in NOT_OPERATOR_KEYS}
    orchestrators = config["orchestrators"]
    for name in ("grove", "lws", "kaiScheduler", "volcanoScheduler"):
        orchestrators[name]["enabled"] = bool(orchestrators[name]["enabled"])
    if orchestrators["grove"].get("terminationDelay") is None:
        orchestrators["grove"].pop("terminationDelay", None)
    config["checkpoint"] = {"enabled": bool(config["checkpoint"]["enabled"])}
    # Required by the operator's validation, unread by rendering: the Helm chart's values.
    config["mpi"]["sshSecretNamespace"] = config["mpi"]["sshSecretNamespace"] or OPERATOR_NAMESPACE
    config["rbac"]["dgdrProfilingClusterRoleName"] = DGDR_PROFILING_CLUSTER_ROLE
    if config["dra"]["enabled"] is None:
        config.pop("dra")
    config.update({
        "apiVersion": "operator.config.dynamo.nvidia.com/v1alpha1",
        "kind": "OperatorConfiguration",
        "server": {
            "metrics": {"bindAddress": "127.0.0.1", "port": metrics, "secure": False},
            "healthProbe": {"bindAddress": "127.0.0.1", "port": health},
            "webhook": {"host": "127.0.0.1", "port": webhook, "certDir": str(cert_dir),
                        "certProvisionMode": "manual", "secretName": WEBHOOK_SECRET},
        },
        "leaderElection": {"enabled": False},
    })
    return config


def _webhook_secret(certs: ServingCerts) -> dict[str, Any]:
    data = {name: base64.b64encode((certs.directory / name).read_bytes()).decode()
            for name in ("tls.crt", "tls.key", "ca.crt")}
    return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
            "metadata": {"name": WEBHOOK_SECRET, "namespace": OPERATOR_NAMESPACE}, "data": data}


def helm_cluster_roles(platform: Platform) -> list[dict[str, Any]]:
    """The ClusterRoles the platform's Helm chart installs and the operator binds per graph (it
    refuses to reconcile a planner or EPP graph until they exist). Their rules are the chart's
    business; the bindings the operator creates are what a recording compares."""
    names = (platform.rbac.planner_cluster_role_name, platform.rbac.epp_cluster_role_name,
             DGDR_PROFILING_CLUSTER_ROLE)
    return [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": n},
             "rules": [{"apiGroups": ["nvidia.com"], "resources": ["dynamographdeployments"],
                        "verbs": ["get", "list", "watch"]}]} for n in names]


def _service_conversion() -> dict[str, Any]:
    """The Service-based conversion webhook the operator checks for before it injects its CA."""
    return {"spec": {"conversion": {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": None, "caBundle": None, "service": {
            "namespace": OPERATOR_NAMESPACE, "name": "dynamo-operator-webhook-service", "path": "/convert"}},
    }}}}


def _in_private_run(argv: list[str]) -> list[str]:
    """``argv`` started where the service-account namespace file exists, without touching the host."""
    if SERVICE_ACCOUNT_FILE.is_file():
        return argv
    unshare = shutil.which("unshare")
    if unshare is None:
        raise ClusterError(f"the Dynamo operator reads {SERVICE_ACCOUNT_FILE}, which this host lacks, and "
                           "`unshare` (util-linux) is not installed to provide it in a private mount namespace")
    d = SERVICE_ACCOUNT_FILE.parent
    script = (f"mount -t tmpfs tmpfs /run && mkdir -p {d} && "
              f"echo {OPERATOR_NAMESPACE} > {SERVICE_ACCOUNT_FILE} && exec \"$0\" \"$@\"")
    return [unshare, "--mount", "--propagation", "private", "sh", "-c", script, *argv]


def start_dynamo_operator(cluster: LocalCluster, binary: Path, platform: Platform,
                          timeout: float = 120.0) -> Controller:
    """The Dynamo operator, cluster-wide, ready to admit, convert and reconcile.

    Start it after the Grove and LWS CRDs exist; restart it (``stop()`` then this again) to
    change the platform: it reads its configuration once.
    """
    d = controller_dir(cluster, "dynamo-operator")
    certs = cluster_certs(cluster, "dynamo-operator")
    webhook, health, metrics = free_port(), free_port(), free_port()
    config = _write_yaml(d / "config.yaml", operator_configuration(
        platform, webhook=webhook, health=health, metrics=metrics, cert_dir=certs.directory))
    cluster.kubectl("create", "namespace", OPERATOR_NAMESPACE, check=False)
    cluster.apply([_webhook_secret(certs), *helm_cluster_roles(platform)])
    if platform.lws_enabled:
        cluster.apply([VOLCANO_PODGROUP_CRD])
        cluster.kubectl("wait", "--for=condition=Established", "crd/podgroups.scheduling.volcano.sh", "--timeout=60s")
    for crd in CONVERTIBLE_CRDS:
        _patch_crd(cluster, crd, _service_conversion())
    argv = _in_private_run([str(binary), f"--config={config}", f"--operator-version={platform.operator_version}",
                            "--zap-log-level=info"])
    child = cluster.children.start("dynamo-operator", argv, env={
        **_base_env(), "KUBECONFIG": str(cluster.kubeconfig)})
    controller = Controller("dynamo-operator", child, cluster, health, webhook).wait_ready(timeout)
    for crd in CONVERTIBLE_CRDS:
        _patch_crd(cluster, crd, conversion_on_loopback(webhook, certs))
        controller.restore.append((f"crd/{crd}", _service_conversion()))
    controller.register([webhook_configuration(kind, name, hooks, webhook, certs)
                         for kind, name, hooks in DYNAMO_WEBHOOKS])
    return controller


def _patch_crd(cluster: LocalCluster, name: str, patch: dict[str, Any]) -> None:
    cluster.kubectl("patch", "crd", name, "--type=merge", "-p", json.dumps(patch))
