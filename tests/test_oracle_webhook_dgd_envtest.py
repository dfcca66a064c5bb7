"""``internal/webhook/validation/dynamographdeployment_validation_envtest_test.go``
(``TestDynamoGraphDeploymentValidator_Validate``) as an oracle for ``validate --mode operator``.

Each case sends the Go table's object (and, for an update, its old object) through what
``dynamo-pulumi validate [--old] --mode operator`` runs and compares the API server's causes.

``wantPodAnnotations`` (structural pruning keeps the pod-template annotations: our models keep
every written field, checked elsewhere) and ``wantProvider`` are reduced to "admitted". Cases
seeded without the webhook (``seedWithoutWebhook``) are translated with the old object as
written, where that answers the same question.

Not applicable, with the reason:

* "provider override requires a materialized workload provider on legacy update", "user cannot
  materialize a legacy workload provider", "operator can materialize a legacy workload provider":
  the old object is a *legacy* one stored without the defaulting webhook (no
  ``nvidia.com/workload-provider``); ``validate --old`` takes OLD as applied and admitted, so it
  always carries the provider the webhook stamped. Only a live cluster holds such an object.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from webhook_envtest_support import (
    CUSTOM_IMAGE,
    IMAGE,
    IMMUTABLE,
    POWER,
    PRODUCT,
    Case,
    alpha_dgd,
    alpha_with_services,
    beta_dgd,
    check,
    enable_alpha_inter_failover,
    enable_beta_gms,
    labelled,
    params,
    set_alpha_power,
    set_beta_claim,
    set_beta_power,
    worker,
)

GO = "TestDynamoGraphDeploymentValidator_Validate"
W = "spec.components[1]"
RUNTIME_REQUIRED = ("runtimeVersionOverride: Required value: is required when the specified main container image "
                    "has no parseable semantic-version tag")
DRA_POWER = (f'Forbidden: cannot be combined with annotation "{POWER}": power-aware planning does not support '
             "DRA-backed device allocation")


def _set(path: str, value: object):
    """An edit setting the worker's dotted ``path`` to ``value`` (``None`` deletes it)."""
    def edit(dgd: dict) -> None:
        target = worker(dgd)
        *parents, last = path.split(".")
        for key in parents:
            target = target.setdefault(key, {}) if not key.isdigit() else target[int(key)]
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return edit


def _both(*edits):
    def mutate(dgd: dict) -> None:
        for edit in edits:
            edit(dgd)
    return mutate


def _custom_beta(dgd: dict) -> None:
    w = worker(dgd)
    w.pop("runtimeVersionOverride")
    w["podTemplate"]["spec"]["containers"][0]["image"] = CUSTOM_IMAGE


def _custom_alpha(dgd: dict, image: str = CUSTOM_IMAGE) -> None:
    w = worker(dgd)
    w.pop("runtimeVersionOverride")
    w["extraPodSpec"]["mainContainer"]["image"] = image


def _label(dgd: dict) -> None:
    dgd["metadata"]["labels"] = {"updated": "true"}


def _containers(*extra: dict, init: tuple[dict, ...] = ()) -> dict:
    spec: dict = {"containers": [{"name": "main", "image": IMAGE}, *extra]}
    if init:
        spec["initContainers"] = list(init)
    return {"spec": spec}


def _alpha_pod_spec(**pod_spec: object):
    """``ExtraPodSpec{MainContainer, PodSpec}``: the pod spec is inlined."""
    return _set("extraPodSpec", {"mainContainer": {"image": IMAGE}, **pod_spec})


CREATE_RULES = [
    Case("valid deployment with components", beta_dgd()),
    Case("beta component main image is required when pod template is absent on create",
         beta_dgd(_set("podTemplate", None)),
         errors=(f"{W}.podTemplate.spec.containers: Required value: is required",)),
    Case("alpha service main image is required when extra pod spec is absent on create",
         alpha_dgd(_set("extraPodSpec", None)),
         errors=("spec.services[worker].extraPodSpec.mainContainer.image: Required value: is required",)),
    Case("component custom image requires runtime version override", beta_dgd(_custom_beta),
         errors=(f"{W}.{RUNTIME_REQUIRED}",)),
    Case("alpha component custom image uses source-version path", alpha_dgd(_custom_alpha),
         errors=(f"spec.services[worker].{RUNTIME_REQUIRED}",)),
    Case("unchanged legacy beta component runtime version is ratcheted on update",
         old=beta_dgd(_custom_beta), new=beta_dgd(_both(_custom_beta, _label))),
    Case("unchanged legacy alpha service runtime version is ratcheted on update",
         old=alpha_dgd(_custom_alpha), new=alpha_dgd(_both(_custom_alpha, _label))),
    Case("beta component image change to custom requires runtime version override",
         old=beta_dgd(_set("runtimeVersionOverride", None)), new=beta_dgd(_custom_beta),
         errors=(f"{W}.{RUNTIME_REQUIRED}",)),
    Case("changing a legacy alpha custom image requires runtime version override",
         old=alpha_dgd(_custom_alpha),
         new=alpha_dgd(lambda d: _custom_alpha(d, "registry.example/runtime:other-custom")),
         errors=(f"spec.services[worker].{RUNTIME_REQUIRED}",)),
    Case("no components", beta_dgd(lambda d: d["spec"].pop("components")),
         errors=("spec.components: Required value: must have at least one component",)),
    Case("component replicas must be non-negative", beta_dgd(_set("replicas", -1)),
         errors=(f"{W}.replicas: Invalid value: -1: {W}.replicas in body should be greater than or equal to 0",
                 f"{W}: Invalid value: minAvailable must be less than or equal to replicas unless replicas is 0")),
    Case("component minAvailable requires Grove", beta_dgd(_set("minAvailable", 1)), grove=False,
         errors=(f"{W}.minAvailable: Forbidden: is currently supported only for Grove-backed "
                 "DynamoGraphDeployment components",)),
    Case("restart on create is rejected by CEL before webhook validation",
         beta_dgd(lambda d: d["spec"].update(restart={"id": "roll", "strategy": {
             "type": "Parallel", "order": ["frontend", "worker"]}})),
         errors=("spec: Invalid value: spec.restart must be unset on create; set spec.restart.id after creation "
                 "to request a restart",)),
    Case("component topology constraint requires deployment topology",
         beta_dgd(_set("topologyConstraint", {"packDomain": "rack"})),
         errors=("spec.topologyConstraint: Required value: is required when any component topology constraint "
                 "is set",)),
    Case("inter-pod GMS requires Grove", beta_dgd(lambda d: enable_beta_gms(worker(d), "InterPod")), grove=False,
         errors=(f'{W}.experimental.gpuMemoryService.mode: Forbidden: requires the Grove pathway, but workload '
                 'provider "component" is selected',)),
    Case("inter-pod GMS requires vLLM backend",
         beta_dgd(lambda d: (d["spec"].update(backendFramework="sglang"), enable_beta_gms(worker(d), "InterPod"))),
         errors=(f'{W}.experimental.gpuMemoryService.mode: Invalid value: "InterPod": the inter-pod GMS layout is '
                 "currently supported only for vLLM (detected backend: sglang)",)),
    Case("KV transfer policy selector is rejected by CEL before webhook validation",
         beta_dgd(lambda d: d["spec"].update(experimental={"kvTransferPolicy": {"domain": "rack"}})),
         errors=("spec.experimental.kvTransferPolicy: Invalid value: exactly one of labelKey or "
                 "clusterTopologyName is required",)),
    Case("intra-pod failover requires container discovery",
         beta_dgd(lambda d: (enable_beta_gms(worker(d), "IntraPod"),
                             worker(d)["experimental"].update(failover={"mode": "IntraPod"}))),
         errors=('metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Invalid value: "": must be '
                 '"container" when intra-pod failover is configured',)),
    Case("checkpoint job with checkpointRef is rejected by CEL before webhook validation",
         beta_dgd(_set("experimental", {"checkpoint": {"enabled": True, "checkpointRef": "existing-checkpoint",
                                                       "job": {}}})),
         errors=(f"{W}.experimental.checkpoint: Invalid value: checkpoint.job cannot be set when checkpointRef "
                 "is specified",)),
    Case("GMS requires GPU resources on the main container",
         beta_dgd(_set("experimental", {"gpuMemoryService": {"mode": "IntraPod"}})),
         errors=(f"{W}.experimental.gpuMemoryService: Forbidden: GPU memory service requires "
                 "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1",)),
]

CROSS_VERSION = [
    Case("v1beta1 component name is required by the schema",
         beta_dgd(lambda d: d["spec"]["components"][1].update(name="")),
         errors=(f'{W}.name: Invalid value: "": {W}.name in body should be at least 1 chars long',)),
    Case("v1alpha1 converted empty service map key is accepted", alpha_with_services("")),
    Case("v1beta1 component names are unique case-insensitively in CEL",
         beta_dgd(lambda d: (d["spec"]["components"][0].update(name="worker"),
                             d["spec"]["components"][1].update(name="WORKER"))),
         errors=("spec.components: Invalid value: component names must be unique case-insensitively",)),
    Case("v1alpha1 converted service names may collide case-insensitively", alpha_with_services("worker", "WORKER")),
    Case("v1beta1 introducing case-insensitive component names is rejected by CEL on update", old=beta_dgd(),
         newer="type immutability: renaming frontend to worker changes the type of that name",
         new=labelled(beta_dgd(lambda d: (d["spec"]["components"][0].update(name="worker"),
                                           d["spec"]["components"][1].update(name="WORKER")))),
         errors=("spec.components: Invalid value: component names must be unique case-insensitively",)),
    Case("v1alpha1 case-insensitive service names remain updateable", old=alpha_with_services("worker", "WORKER"),
         new=labelled(alpha_with_services("worker", "WORKER"))),
    Case("v1alpha1 empty service name remains updateable", old=alpha_with_services(""),
         new=labelled(alpha_with_services(""))),
    Case("v1beta1 compilation cache mount requires a PVC name in the schema",
         beta_dgd(_set("compilationCache", {"pvcName": ""})),
         errors=(f'{W}.compilationCache.pvcName: Invalid value: "": {W}.compilationCache.pvcName in body should '
                 "be at least 1 chars long",)),
    Case("v1alpha1 converted compilation cache mount with an empty PVC name is rejected",
         alpha_dgd(_set("volumeMounts", [{"name": "", "useAsCompilationCache": True}])),
         errors=("spec.services.worker.volumeMounts[0].name: Required value",)),
    Case("v1beta1 sidecars must provide an image in CEL", beta_dgd(_set("podTemplate", _containers({"name": "metrics"}))),
         errors=(f"{W}.podTemplate.spec.containers[1]: Invalid value: sidecar containers must specify a "
                 "non-empty image",)),
    Case("v1alpha1 converted sidecar without image reaches the webhook",
         alpha_dgd(_alpha_pod_spec(containers=[{"name": "metrics"}]))),
    Case("v1alpha1 frontend sidecar without image reaches the webhook",
         alpha_dgd(_both(_set("frontendSidecar", {"image": ""}), _alpha_pod_spec(containers=[{"name": "metrics"}])))),
    Case("v1beta1 init containers must provide an image in CEL",
         beta_dgd(_set("podTemplate", _containers(init=({"name": "prepare"},)))),
         errors=(f"{W}.podTemplate.spec.initContainers[0]: Invalid value: init containers must specify a "
                 "non-empty image",)),
    Case("v1alpha1 converted init container without image reaches the webhook",
         alpha_dgd(_alpha_pod_spec(initContainers=[{"name": "prep"}]))),
    Case("v1beta1 pod template backend annotation is validated by CEL",
         beta_dgd(_set("podTemplate", {"metadata": {"annotations": {
             "nvidia.com/vllm-distributed-executor-backend": "invalid"}}, **_containers()})),
         errors=(f"{W}.podTemplate.metadata.annotations: Invalid value: podTemplate backend annotation must be "
                 "mp or ray, case-insensitively",)),
    Case("v1beta1 discovery annotation survives the component pod template API server round trip",
         beta_dgd(_set("podTemplate", {"metadata": {"annotations": {
             "nvidia.com/vllm-distributed-executor-backend": "RaY",
             "nvidia.com/dynamo-kube-discovery-mode": "container"}}, **_containers()}))),
    Case("v1alpha1 converted extraPodMetadata annotation does not receive v1beta1 CEL validation",
         alpha_dgd(_set("extraPodMetadata", {"annotations": {"nvidia.com/vllm-distributed-executor-backend": "typo"}}))),
    Case("v1alpha1 invalid service annotation remains rejected by the webhook",
         alpha_dgd(_set("annotations", {"nvidia.com/vllm-distributed-executor-backend": "invalid"})),
         errors=('spec.services[worker].annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: '
                 '"invalid": must be "mp" or "ray"',)),
    Case("v1beta1 frontend sidecar must reference an existing container",
         beta_dgd(_both(_set("frontendSidecar", "missing"), _set("podTemplate", _containers()))),
         errors=(f'{W}.frontendSidecar: Invalid value: "missing": must match a podTemplate.spec.containers name',)),
    Case("valid v1alpha1 deployment reaches the webhook", alpha_dgd()),
    Case("valid v1beta1 update reaches the webhook", old=beta_dgd(), new=labelled(beta_dgd())),
    Case("v1beta1 pod template container counts are not artificially bounded",
         beta_dgd(_set("podTemplate", {"spec": {
             "containers": [{"name": "main", "image": IMAGE},
                            *({"name": f"sidecar-{i}", "image": "sidecar:latest"} for i in range(32))],
             "initContainers": [{"name": f"init-{i}", "image": "init:latest"} for i in range(32)]}}))),
]

REPLICAS = [
    Case("v1beta1 replicas below minAvailable are rejected by CEL",
         beta_dgd(_both(_set("replicas", 1), _set("minAvailable", 2))),
         errors=(f"{W}: Invalid value: minAvailable must be less than or equal to replicas unless replicas is 0",)),
    Case("v1beta1 valid replicas and minAvailable reach the webhook",
         beta_dgd(_both(_set("replicas", 2), _set("minAvailable", 1)))),
    Case("v1beta1 unchanged minAvailable update reaches the webhook",
         old=beta_dgd(_set("minAvailable", 1)), new=beta_dgd(_set("minAvailable", 1))),
    Case("v1beta1 changed minAvailable update is rejected by CEL",
         old=beta_dgd(_set("minAvailable", 1)), new=beta_dgd(_set("minAvailable", 2)),
         errors=(f"{W}: Invalid value: minAvailable is immutable after creation",)),
    Case("v1beta1 removed minAvailable update is restored by defaulting",
         old=beta_dgd(_set("minAvailable", 1)), new=beta_dgd()),
]


def _drop_power(dgd: dict) -> None:
    worker(dgd)["podTemplate"]["metadata"]["annotations"].pop(POWER)


def _claim(**claim: str):
    return lambda d: set_beta_claim(d, claim)


ANNOTATION = f"{W}.podTemplate.metadata.annotations[{POWER}]"
CLAIMS = f"{W}.podTemplate.spec.containers[0].resources.claims"


def _init_claim(dgd: dict) -> None:
    spec = worker(dgd)["podTemplate"]["spec"]
    spec["initContainers"] = [{"name": "init-gpu", "image": "nvcr.io/nvidia/cuda:12.0-base",
                               "resources": {"claims": [{"name": "gpu"}]}}]
    spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


def _shadow_request(dgd: dict) -> None:
    worker(dgd)["podTemplate"]["spec"]["containers"][0]["resources"]["requests"] = {"nvidia.com/gpu": "8"}


def _unrelated(dgd: dict) -> None:
    w = worker(dgd)
    w["replicas"] = 2
    w["podTemplate"]["spec"]["containers"][0]["image"] = "registry.example/runtime:1.2.0"


def _alpha_unrelated(dgd: dict) -> None:
    w = worker(dgd)
    w["replicas"] = 2
    w["extraPodSpec"]["mainContainer"]["image"] = "registry.example/runtime:1.2.0"


def _power_rules_of(product: str | None) -> list[Case]:
    """The power cases; ``product`` adds the gpu.product node selector the newer rules require."""

    def _power(watts: str = "300", gpus: str = "1", nodes: int = 2):
        return lambda d: set_beta_power(d, watts, gpus, nodes, product)

    def _alpha_power(watts: str = "300", gpus: str = "1", nodes: int = 2):
        return lambda d: set_alpha_power(d, watts, gpus, nodes, product)

    return [
        Case("v1beta1 power tuple is accepted on create", beta_dgd(_power())),
        Case("v1beta1 power annotation with intra-pod GMS DRA is rejected",
             beta_dgd(_both(lambda d: enable_beta_gms(worker(d), "IntraPod"), _power())),
             errors=(f"{W}.experimental.gpuMemoryService: {DRA_POWER}",)),
        Case("v1beta1 power annotation with inter-pod GMS DRA is rejected",
             beta_dgd(_both(lambda d: enable_beta_gms(worker(d), "InterPod"), _power())),
             errors=(f"{W}.experimental.gpuMemoryService: {DRA_POWER}",)),
        Case("v1beta1 power annotation with DRA claim template is rejected",
             beta_dgd(_both(_power(), _claim(name="gpu", resourceClaimTemplateName="gpu-template"))),
             errors=(f"{CLAIMS}: {DRA_POWER}",)),
        Case("v1beta1 power annotation with direct DRA claim is rejected",
             beta_dgd(_both(_power(), _claim(name="gpu", resourceClaimName="gpu-claim"))),
             errors=(f"{CLAIMS}: {DRA_POWER}",)),
        Case("v1beta1 DRA claim without power annotation remains accepted",
             beta_dgd(_claim(name="device", resourceClaimTemplateName="device-template"))),
        Case("v1beta1 power annotation with zero value is rejected on create", beta_dgd(_power("0")),
             errors=(f'{ANNOTATION}: Invalid value: "0": must be greater than zero',)),
        Case("v1beta1 power annotation with negative value is rejected on create", beta_dgd(_power("-300")),
             errors=(f'{ANNOTATION}: Invalid value: "-300": must be greater than zero',)),
        Case("v1beta1 power annotation with non-integer value is rejected on create", beta_dgd(_power("300W")),
             errors=(f'{ANNOTATION}: Invalid value: "300W": must be a decimal integer',)),
        Case("v1beta1 power annotation with init-container DRA claim is rejected", beta_dgd(_both(_power(), _init_claim)),
             errors=(f"{W}.podTemplate.spec.initContainers[0].resources.claims: {DRA_POWER}",)),
        Case("v1beta1 power annotation cannot be added to a DRA component",
             old=beta_dgd(_claim(name="device", resourceClaimTemplateName="device-template")),
             new=beta_dgd(_both(_power(), _claim(name="device", resourceClaimTemplateName="device-template"))),
             errors=(f"{CLAIMS}: {DRA_POWER}",)),
        Case("v1beta1 power annotation change is rejected by the webhook", old=beta_dgd(_power()),
             new=beta_dgd(_power("350")), errors=(f'{ANNOTATION}: Invalid value: "350": {IMMUTABLE}',)),
        Case("v1beta1 power annotation addition is rejected by the webhook", old=beta_dgd(_both(_power(), _drop_power)),
             new=beta_dgd(_power()), errors=(f'{ANNOTATION}: Invalid value: "300": {IMMUTABLE}',)),
        Case("v1beta1 power annotation removal is rejected by the webhook", old=beta_dgd(_power()),
             new=beta_dgd(_both(_power(), _drop_power)), errors=(f"{ANNOTATION}: Invalid value: null: {IMMUTABLE}",)),
        Case("v1beta1 effective GPU change is rejected by the webhook", old=beta_dgd(_power()),
             new=beta_dgd(_power(gpus="2")),
             errors=(f'{W}.podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "2": '
                     f"{IMMUTABLE}",)),
        Case("v1beta1 shadow request change is allowed when GPU limit is unchanged", old=beta_dgd(_power()),
             new=beta_dgd(_both(_power(), _shadow_request)), newer=STRICTER_GPU_REQUEST),
        Case("v1beta1 power node count change is rejected by the webhook", old=beta_dgd(_power()),
             new=beta_dgd(_power(nodes=3)), errors=(f"{W}.multinode.nodeCount: Invalid value: 3: {IMMUTABLE}",)),
        Case("v1beta1 unrelated power component update reaches webhook", old=beta_dgd(_power()),
             new=beta_dgd(_both(_power(), _unrelated))),
        Case("v1beta1 unannotated component GPU change remains allowed", old=beta_dgd(),
             new=beta_dgd(lambda d: worker(d)["podTemplate"]["spec"]["containers"][0].update(
                 resources={"limits": {"nvidia.com/gpu": "2"}}))),
        Case("v1alpha1 power annotation change is rejected after conversion by the webhook",
             old=alpha_dgd(_alpha_power()), new=alpha_dgd(_alpha_power("350")),
             errors=(f'spec.components[0].podTemplate.metadata.annotations[{POWER}]: Invalid value: "350": '
                     f"{IMMUTABLE}",)),
        Case("v1alpha1 power annotation with GMS DRA is rejected after conversion",
             alpha_dgd(_both(_alpha_power(), _set("gpuMemoryService", {"enabled": True, "mode": "intraPod"}))),
             errors=(f"spec.components[0].experimental.gpuMemoryService: {DRA_POWER}",)),
        Case("v1alpha1 effective GPU change is rejected after conversion by the webhook",
             old=alpha_dgd(_alpha_power()), new=alpha_dgd(_alpha_power(gpus="2")),
             errors=('spec.components[0].podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]: '
                     f'Invalid value: "2": {IMMUTABLE}',)),
        Case("v1alpha1 power node count change is rejected after conversion by the webhook",
             old=alpha_dgd(_alpha_power()), new=alpha_dgd(_alpha_power(nodes=3)),
             errors=(f"spec.components[0].multinode.nodeCount: Invalid value: 3: {IMMUTABLE}",)),
        Case("v1alpha1 unrelated power service update reaches webhook", old=alpha_dgd(_alpha_power()),
             new=alpha_dgd(_both(_alpha_power(), _alpha_unrelated))),
    ]

def _kvt(**policy: object):
    return lambda d: d["spec"].update(experimental={"kvTransferPolicy": policy})


def _gms(mode: str, **extra: object):
    def edit(dgd: dict) -> None:
        enable_beta_gms(worker(dgd), mode)
        worker(dgd)["experimental"]["gpuMemoryService"].update(extra)
    return edit


def _add_containers(*names: str):
    return lambda d: worker(d)["podTemplate"]["spec"]["containers"].extend(
        {"name": n, "image": f"{n}:latest"} for n in names)


def _failover(**failover: object):
    return lambda d: worker(d).setdefault("experimental", {}).update(failover=failover)


def _discovery(dgd: dict) -> None:
    dgd["metadata"]["annotations"] = {"nvidia.com/dynamo-kube-discovery-mode": "container"}


KVT = "spec.experimental.kvTransferPolicy"
LABEL_KEY_PATTERN = (r"^(([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
                     r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$")
DOMAIN_PATTERN = "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
ZONE = "topology.kubernetes.io/zone"
GMS = f"{W}.experimental.gpuMemoryService"
NO_GPU_FAILOVER = ("Forbidden: GMS failover requires at least 1 GPU in "
                   "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu")

FEATURES = [
    Case("v1beta1 valid checkpoint configuration reaches the webhook",
         beta_dgd(_set("experimental", {"checkpoint": {"enabled": True}}))),
    Case("checkpoint configuration requires operator feature gate", checkpoint=False,
         new=beta_dgd(_set("experimental", {"checkpoint": {"enabled": True, "job": {"gmsClientContainers": ["main"]}}})),
         errors=(f"{W}.experimental.checkpoint: Forbidden: checkpoint functionality is disabled in the operator "
                 "configuration",
                 f"{W}.experimental.checkpoint.job.gmsClientContainers: Forbidden: requires gpuMemoryService to be set")),
    Case("v1beta1 conflicting KV-transfer selectors are rejected by CEL",
         beta_dgd(_kvt(labelKey=ZONE, clusterTopologyName="grove-topology", domain="zone")),
         errors=(f"{KVT}: Invalid value: exactly one of labelKey or clusterTopologyName is required",)),
    Case("v1beta1 label-key KV-transfer policy reaches the webhook", beta_dgd(_kvt(labelKey=ZONE, domain="zone"))),
    Case("v1beta1 preferred KV-transfer enforcement without weight is rejected by CEL",
         beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="preferred")),
         errors=(f"{KVT}: Invalid value: preferredWeight is required when enforcement is preferred",)),
    Case("v1beta1 required KV-transfer enforcement with weight is rejected by CEL",
         beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="required", preferredWeight=1)),
         errors=(f"{KVT}: Invalid value: preferredWeight may only be set when enforcement is preferred",)),
    Case("v1beta1 valid preferred KV-transfer enforcement reaches the webhook",
         beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="preferred", preferredWeight=1))),
    Case("KV-transfer label key format is validated by the schema",
         beta_dgd(_kvt(labelKey="bad prefix/zone", domain="zone")),
         errors=(f'{KVT}.labelKey: Invalid value: "bad prefix/zone": {KVT}.labelKey in body should match '
                 f"'{LABEL_KEY_PATTERN}'",)),
    Case("KV-transfer label key name segment is validated by the schema",
         beta_dgd(_kvt(labelKey="topology.kubernetes.io/-zone", domain="zone")),
         errors=(f'{KVT}.labelKey: Invalid value: "topology.kubernetes.io/-zone": {KVT}.labelKey in body should '
                 f"match '{LABEL_KEY_PATTERN}'",)),
    Case("KV-transfer cluster topology name must be a DNS-1123 subdomain",
         beta_dgd(_kvt(clusterTopologyName="Bad_Name", domain="zone")),
         errors=(f'{KVT}.clusterTopologyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist '
                 "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                 "character (e.g. 'example.com', regex used for validation is "
                 r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",)),
    Case("KV-transfer cluster topology name requires Grove pathway",
         beta_dgd(_both(lambda d: d["metadata"].update(annotations={"nvidia.com/enable-grove": "false"}),
                        _kvt(clusterTopologyName="grove-topology", domain="zone"))),
         errors=(f'{KVT}.clusterTopologyName: Forbidden: requires the Grove pathway, but workload provider '
                 '"component" is selected',)),
    Case("KV-transfer domain is required by the schema", beta_dgd(_kvt(labelKey=ZONE, domain="")),
         errors=(f"{KVT}.domain: Invalid value: \"\": {KVT}.domain in body should match '{DOMAIN_PATTERN}'",)),
    Case("KV-transfer domain format is validated by the schema", beta_dgd(_kvt(labelKey=ZONE, domain="Zone")),
         errors=(f"{KVT}.domain: Invalid value: \"Zone\": {KVT}.domain in body should match '{DOMAIN_PATTERN}'",)),
    Case("KV-transfer enforcement enum is validated by the schema",
         beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="sometimes")),
         errors=(f'{KVT}.enforcement: Unsupported value: "sometimes": supported values: "required", "preferred"',)),
    Case("KV-transfer preferred weight range is validated by the schema",
         beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="preferred", preferredWeight=1.2)),
         errors=(f"{KVT}.preferredWeight: Invalid value: 1.2: {KVT}.preferredWeight in body should be less than "
                 "or equal to 1",)),
    Case("KV-transfer cluster topology policy is valid", beta_dgd(_kvt(clusterTopologyName="grove-topology",
                                                                         domain="rack"))),
    Case("KV-transfer cluster topology policy rejects missing topology", topology=False,
         new=beta_dgd(_kvt(clusterTopologyName="missing-topology", domain="rack")),
         errors=(f'{KVT}.clusterTopologyName: Invalid value: "missing-topology": references a '
                 "ClusterTopologyBinding resource that was not found",)),
    Case("KV-transfer cluster topology policy rejects missing domain",
         beta_dgd(_kvt(clusterTopologyName="grove-topology", domain="host")),
         errors=(f'{KVT}.domain: Invalid value: "host": does not exist in ClusterTopologyBinding "grove-topology"; '
                 "available domains: [rack zone]",)),
    Case("v1beta1 inter-pod GMS client containers are rejected by CEL",
         beta_dgd(_gms("InterPod", extraClientContainers=["metrics"])),
         errors=(f"{GMS}: Invalid value: extraClientContainers is only supported with mode=IntraPod",)),
    Case("v1beta1 non-empty GMS extra client pods are rejected by CEL",
         beta_dgd(_gms("InterPod", extraClientPods=[{"name": "client", "podTemplate": {}}])),
         errors=(f"{GMS}: Invalid value: extraClientPods is reserved for inter-pod GMS and is not implemented yet",)),
    Case("v1beta1 valid GMS configuration reaches the webhook", beta_dgd(_gms("IntraPod"))),
    Case("GMS rejects frontend component",
         beta_dgd(lambda d: enable_beta_gms(d["spec"]["components"][0], "IntraPod")),
         errors=("spec.components[0].experimental.gpuMemoryService: Forbidden: GPU memory service is only supported "
                 "for worker, prefill, or decode components",)),
    Case("GMS client container names are validated by the schema",
         beta_dgd(_gms("IntraPod", extraClientContainers=["Bad_Name"])),
         errors=(f'{GMS}.extraClientContainers[0]: Invalid value: "Bad_Name": {GMS}.extraClientContainers[0] in body '
                 "should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'",)),
    Case("GMS client container references must resolve",
         beta_dgd(_gms("IntraPod", extraClientContainers=["missing-b", "missing-a"])),
         errors=(f'{GMS}.extraClientContainers[0]: Invalid value: "missing-b": does not name a container in '
                 "podTemplate.spec.containers",
                 f'{GMS}.extraClientContainers[1]: Invalid value: "missing-a": does not name a container in '
                 "podTemplate.spec.containers")),
    Case("GMS client container references must be unique",
         beta_dgd(_both(_gms("IntraPod", extraClientContainers=["loader", "loader"]), _add_containers("loader"))),
         errors=(f'{GMS}.extraClientContainers[1]: Duplicate value: "loader"',)),
    Case("GMS accepts multiple declared client containers",
         beta_dgd(_both(_gms("IntraPod", extraClientContainers=["loader", "metrics-client"]),
                        _add_containers("loader", "metrics-client")))),
    Case("intra-pod failover requires GMS", beta_dgd(_both(_discovery, _failover(mode="IntraPod"))),
         errors=(f'{W}.experimental.failover: Forbidden: gpuMemoryService is required when failover mode is '
                 '"IntraPod"',)),
    Case("failover mode must match GMS mode",
         beta_dgd(_both(_gms("IntraPod"), _failover(mode="InterPod", numShadows=1))),
         errors=(f'{W}.experimental.failover.mode: Invalid value: "InterPod": must match gpuMemoryService.mode '
                 '"IntraPod"',)),
    Case("intra-pod failover shadow maximum is validated by the schema",
         beta_dgd(_both(_discovery, _gms("IntraPod"), _failover(mode="IntraPod", numShadows=2))),
         errors=(f"{W}.experimental.failover.numShadows: Invalid value: 2: {W}.experimental.failover.numShadows in "
                 "body should be less than or equal to 1",)),
    Case("inter-pod failover requires GMS", beta_dgd(_failover(mode="InterPod", numShadows=1)),
         errors=(f'{W}.experimental.failover: Forbidden: gpuMemoryService is required when failover mode is '
                 '"InterPod"', f"{W}.experimental.failover: {NO_GPU_FAILOVER}")),
    Case("inter-pod failover shadow-count minimum is validated by the schema",
         beta_dgd(_both(_gms("InterPod"), _failover(mode="InterPod", numShadows=-1))),
         errors=(f"{W}.experimental.failover.numShadows: Invalid value: -1: {W}.experimental.failover.numShadows in "
                 "body should be greater than or equal to 1",)),
    Case("inter-pod failover rejects frontend component",
         beta_dgd(lambda d: d["spec"]["components"][0].update(experimental={"failover": {"mode": "InterPod",
                                                                                          "numShadows": 1}})),
         errors=('spec.components[0].experimental.failover: Forbidden: gpuMemoryService is required when failover '
                 'mode is "InterPod"', f"spec.components[0].experimental.failover: {NO_GPU_FAILOVER}",
                 'spec.components[0].experimental.failover: Forbidden: GMS failover is not supported for component '
                 'type "frontend"')),
    Case("ordinary GMS snapshot combination is accepted",
         beta_dgd(_both(_gms("IntraPod"), lambda d: worker(d)["experimental"].update(checkpoint={"enabled": True})))),
    Case("checkpoint compatibility is revalidated on update", old=beta_dgd(_gms("InterPod")),
         new=beta_dgd(_both(_gms("InterPod"), lambda d: worker(d)["experimental"].update(checkpoint={"enabled": True}))),
         errors=(f"{W}.experimental.checkpoint: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is "
                 "unsupported",)),
]


def _alpha_frontend(**extra: object):
    return lambda d: d["spec"]["services"].update(frontend={
        "componentType": "frontend", "runtimeVersionOverride": "1.1.0",
        "extraPodSpec": {"mainContainer": {"image": IMAGE}}, **extra})


SOURCE_VERSION = [
    Case("alpha PVC empty name requirement is preserved structurally",
         alpha_dgd(lambda d: d["spec"].update(pvcs=[{"name": "", "create": False}])),
         errors=("spec.pvcs[0].name: Required value: is required",)),
    Case("alpha ingress requires host",
         alpha_dgd(_alpha_frontend(ingress={"enabled": True, "ingressControllerClassName": "nginx"})),
         errors=("spec.services[frontend].ingress.host: Required value: is required when ingress is enabled",)),
    Case("alpha volume mounts require mount point unless used as compilation cache",
         alpha_dgd(_set("volumeMounts", [{"name": "cache"}])),
         errors=("spec.services[worker].volumeMounts[0].mountPoint: Required value: is required when "
                 "useAsCompilationCache is false",)),
    Case("alpha EPP config sources are mutually exclusive",
         alpha_dgd(_both(_set("componentType", "epp"), _set("eppConfig", {
             "configMapRef": {"name": "epp", "key": ""}, "config": {"plugins": [], "schedulingProfiles": []}}))),
         errors=("spec.services[worker].eppConfig: Forbidden: exactly one of configMapRef or config is required",)),
    Case("alpha intra-pod failover shadow maximum is preserved structurally",
         alpha_dgd(_set("failover", {"enabled": True, "mode": "intraPod", "numShadows": 2})),
         errors=('metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Invalid value: "": must be '
                 '"container" when intra-pod failover is configured',
                 'spec.components[0].experimental.failover: Forbidden: gpuMemoryService is required when failover '
                 'mode is "IntraPod"',
                 'spec.services[worker].failover.numShadows: Invalid value: 2: is invalid for mode="intraPod": '
                 'intraPod uses a fixed 1 primary + 1 shadow sidecar; use failover.mode="interPod" to configure '
                 "numShadows")),
    Case("alpha frontend sidecar rejects generated container name conflict",
         alpha_dgd(_alpha_frontend(frontendSidecar={"image": "custom/frontend:latest"}, extraPodSpec={
             "mainContainer": {"image": IMAGE},
             "containers": [{"name": "sidecar-frontend", "image": "custom/frontend:latest"}]})),
         errors=('spec.services[frontend].frontendSidecar: Forbidden: cannot inject frontend sidecar: a container '
                 'named "sidecar-frontend" already exists in extraPodSpec.containers',)),
    Case("alpha GMS client container names are validated by the source schema",
         alpha_dgd(_set("gpuMemoryService", {"enabled": False, "extraClientContainers": ["Bad_Name"]})),
         errors=('spec.services.worker.gpuMemoryService.extraClientContainers[0]: Invalid value: "Bad_Name": '
                 "spec.services.worker.gpuMemoryService.extraClientContainers[0] in body should match "
                 "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'",)),
    Case("nil alpha service entry is pruned", alpha_dgd(lambda d: d["spec"]["services"].update(ghost=None))),
]


def _alpha_gms_gpu(dgd: dict) -> None:
    worker(dgd)["gpuMemoryService"] = {"enabled": True, "mode": "intraPod"}


def _epp(config: dict):
    return _both(_set("type", "epp"), _set("eppConfig", config))


LONG_DGD = "test-graph-" + "x" * 50
BOUNDARY_COMPONENT = "w" + "x" * 36
TOO_LONG_COMPONENT = BOUNDARY_COMPONENT + "x"


def _long_names(component: str):
    return _both(lambda d: d["metadata"].update(name=LONG_DGD), _set("name", component))


def _topology(**constraint: object):
    """``spec.topologyConstraint`` (the Go cases' ``Generation = 2`` is dropped: the API server sets a
    created object's generation itself)."""
    return lambda d: d["spec"].update(topologyConstraint=constraint)


def _component_topology(index: int, **constraint: object):
    return lambda d: d["spec"]["components"][index].update(topologyConstraint=constraint)


EPP_BOTH = {"configMapRef": {"name": "epp", "key": ""}, "config": {"plugins": [], "schedulingProfiles": []}}
NOT_FOUND = "references a ClusterTopologyBinding resource that was not found"

ALPHA_AND_ROOT = [
    Case("valid preserved alpha-only fields are accepted",
         alpha_dgd(_both(lambda d: d["spec"].update(pvcs=[{"name": "cache", "create": False}]),
                         _set("ingress", {"enabled": True, "host": "worker.example.com"}),
                         _set("annotations", {"nvidia.com/vllm-distributed-executor-backend": "ray"}),
                         _set("volumeMounts", [{"name": "cache", "useAsCompilationCache": True}]),
                         _set("sharedMemory", {"disabled": True}),
                         _set("gpuMemoryService", {"enabled": False, "mode": "intraPod",
                                                   "extraClientContainers": ["metrics"]})))),
    Case("alpha PVC name requirement is preserved structurally", alpha_dgd(lambda d: d["spec"].update(pvcs=[{}])),
         errors=("spec.pvcs[0].name: Required value",)),
    Case("alpha PVC create value constraints are preserved structurally",
         alpha_dgd(lambda d: d["spec"].update(pvcs=[{"name": "cache", "create": True}])),
         errors=("spec.pvcs[0]: Invalid value: When create is true, size, storageClass, and volumeAccessMode are "
                 "required",)),
    Case("alpha compatibility warnings are preserved",
         alpha_dgd(_both(_set("dynamoNamespace", "legacy-namespace"), _set("autoscaling", {"enabled": True}))),
         warnings=('spec.services[worker].dynamoNamespace is deprecated and ignored. Value "legacy-namespace" will be '
                   'replaced with "default-test-graph". Remove this field from your configuration',
                   "spec.services[worker].autoscaling is deprecated and ignored. Use DynamoGraphDeploymentScalingAdapter"
                   " with HPA, KEDA, or Planner for autoscaling instead. See docs/kubernetes/autoscaling.md")),
    Case("GMS accepts GPU from alpha dedicated resources",
         alpha_dgd(_both(_set("resources", {"limits": {"gpu": "1"}}), _alpha_gms_gpu))),
    Case("GMS accepts GPU from alpha extraPodSpec main container resources",
         alpha_dgd(_both(_set("extraPodSpec", {"mainContainer": {
             "image": IMAGE, "resources": {"limits": {"nvidia.com/gpu": "1"}}}}), _alpha_gms_gpu))),
    Case("GMS accepts alpha GPUType resource after conversion",
         alpha_dgd(_both(_set("resources", {"limits": {"gpu": "1", "gpuType": "example.com/gpu"}}), _alpha_gms_gpu))),
    Case("v1alpha1 enabled shared memory without a positive size is rejected by source CEL",
         alpha_dgd(_set("sharedMemory", {})),
         errors=("spec.services[worker].sharedMemory: Invalid value: size is required when disabled is false",)),
    Case("v1alpha1 valid shared memory reaches the webhook", alpha_dgd(_set("sharedMemory", {"size": "1Gi"}))),
    Case("v1alpha1 EPP config without a source reaches the webhook without v1beta1 CEL",
         alpha_dgd(_both(_set("componentType", "epp"), _set("eppConfig", {}))),
         errors=("spec.services[worker].eppConfig: Forbidden: exactly one of configMapRef or config is required",)),
    Case("v1beta1 EPP config without a source is rejected by CEL", beta_dgd(_epp({})),
         errors=(f"{W}.eppConfig: Invalid value: exactly one of configMapRef or config must be specified",)),
    Case("v1beta1 EPP config with both sources is rejected by CEL", beta_dgd(_epp(EPP_BOTH)),
         errors=(f"{W}.eppConfig: Invalid value: exactly one of configMapRef or config must be specified",)),
    Case("v1beta1 valid EPP config reaches the webhook",
         beta_dgd(_both(_epp({"configMapRef": {"name": "epp", "key": ""}}), _set("replicas", 1)))),
    Case("priority class requires Grove", grove=False,
         new=beta_dgd(lambda d: d["spec"].update(priorityClassName="high-priority")),
         errors=('spec.priorityClassName: Forbidden: requires the Grove pathway, but workload provider "component" '
                 "is selected",)),
    Case("priority class is allowed with Grove", beta_dgd(lambda d: d["spec"].update(priorityClassName="high-priority"))),
    Case("minAvailable must be positive", beta_dgd(_set("minAvailable", 0)),
         errors=(f"{W}.minAvailable: Invalid value: 0: {W}.minAvailable in body should be greater than or equal to 1",)),
    Case("replicas zero can keep minAvailable for scale-up intent",
         beta_dgd(_both(_set("replicas", 0), _set("minAvailable", 2)))),
    Case("rendered Grove resource name length accepts boundary", beta_dgd(_long_names(BOUNDARY_COMPONENT))),
    Case("rendered Grove resource name length rejects overflow", beta_dgd(_long_names(TOO_LONG_COMPONENT)),
         errors=(f'{W}.name: Invalid value: "{TOO_LONG_COMPONENT}": combined resource name length 46 exceeds the '
                 "45-character pod-name limit (PCS name + component name); shorten DynamoGraphDeployment name "
                 f'"{LONG_DGD}" or component name "{TOO_LONG_COMPONENT}"',)),
    Case("rendered Grove resource name length is skipped outside Grove", grove=False,
         new=beta_dgd(_long_names(TOO_LONG_COMPONENT))),
    Case("spec pack domain format is validated by the schema",
         beta_dgd(_topology(clusterTopologyName="grove-topology", packDomain="Bad_Domain")),
         errors=('spec.topologyConstraint.packDomain: Invalid value: "Bad_Domain": spec.topologyConstraint.packDomain '
                 f"in body should match '{DOMAIN_PATTERN}'",)),
    Case("component topology pack domain is required by the schema",
         beta_dgd(_both(_topology(clusterTopologyName="grove-topology"), _component_topology(0, packDomain=""),
                        _component_topology(1, packDomain="rack"))),
         errors=('spec.components[0].topologyConstraint.packDomain: Invalid value: "": '
                 f"spec.components[0].topologyConstraint.packDomain in body should match '{DOMAIN_PATTERN}'",)),
    Case("deployment topology without pack domain allows unconstrained components",
         beta_dgd(_both(_topology(clusterTopologyName="grove-topology"), _component_topology(1, packDomain="rack")))),
    Case("deployment topology without pack domain requires a component topology",
         beta_dgd(_topology(clusterTopologyName="grove-topology")),
         errors=("spec.topologyConstraint.packDomain: Required value: is required when no component "
                 "topologyConstraint is set",)),
    Case("deployment pack domain can be inherited",
         beta_dgd(_topology(clusterTopologyName="grove-topology", packDomain="rack"))),
    Case("deployment pack domain can be mixed with narrower component topology",
         beta_dgd(_both(_topology(clusterTopologyName="grove-topology", packDomain="zone"),
                        _component_topology(1, packDomain="rack")))),
    Case("component topology with deployment topology is valid",
         beta_dgd(_both(_topology(clusterTopologyName="grove-topology"), _component_topology(0, packDomain="zone"),
                        _component_topology(1, packDomain="rack")))),
    Case("missing cluster topology is rejected", topology=False,
         new=beta_dgd(_topology(clusterTopologyName="missing-topology", packDomain="rack")),
         errors=(f'spec.topologyConstraint.clusterTopologyName: Invalid value: "missing-topology": {NOT_FOUND}',)),
    Case("independent topology errors aggregate", topology=False,
         new=beta_dgd(_topology(clusterTopologyName="missing-topology")),
         errors=("spec.topologyConstraint.packDomain: Required value: is required when no component "
                 "topologyConstraint is set",
                 f'spec.topologyConstraint.clusterTopologyName: Invalid value: "missing-topology": {NOT_FOUND}')),
    Case("pack domain must exist in cluster topology",
         beta_dgd(_topology(clusterTopologyName="grove-topology", packDomain="host")),
         errors=('spec.topologyConstraint.packDomain: Invalid value: "host": does not exist in ClusterTopologyBinding '
                 '"grove-topology"; available domains: [rack zone]',)),
    Case("component topology cannot be broader than spec topology",
         beta_dgd(_both(_topology(clusterTopologyName="grove-topology", packDomain="rack"),
                        _component_topology(1, packDomain="zone"))),
         errors=(f'{W}.topologyConstraint.packDomain: Invalid value: "zone": must be equal to or narrower than the '
                 'deployment-level domain "rack"',)),
]


GROVE_API = "grove.io/v1alpha1"
PCS_TOPOLOGY = {"spec": {"template": {"topologyConstraint": {"topologyName": "grove-topology",
                                                              "pack": {"required": "rack"}}}}}


def _override(target: str, value: object, api_version: str = GROVE_API) -> dict:
    """``groveProviderOverride``: an empty target is left out (``omitempty``)."""
    out: dict = {"apiVersion": api_version, "value": value}
    if target:
        out["target"] = target
    return out


def _clique(domain: str) -> dict:
    return {"topologyConstraint": {"topologyName": "grove-topology", "pack": {"required": domain}}}


def _root_override(target: str = "PodCliqueSet", value: object = PCS_TOPOLOGY, api_version: str = GROVE_API):
    return lambda d: d["spec"].update(providerOverride=_override(target, value, api_version))


def _annotate(**annotations: str):
    return lambda d: d["metadata"].update(annotations=dict(annotations))


def _component_provider(dgd: dict) -> None:
    """``betaComponentDGDForAdmission``."""
    dgd["metadata"]["annotations"] = {"nvidia.com/workload-provider": "component", "nvidia.com/enable-grove": "false"}


def _leader_override(target: str, api_version: str = GROVE_API):
    return _set("multinode", {"nodeCount": 2, "leader": {"providerOverride": _override(target, _clique("host"),
                                                                                     api_version)}})


PROVIDER = "nvidia.com/workload-provider"


def _priority(dgd: dict) -> None:
    dgd["spec"]["priorityClassName"] = "high-priority"


OPERATOR = "system:serviceaccount:dynamo-system:dynamo-operator"

OVERRIDES_AND_ANNOTATIONS = [
    Case("valid Grove root provider override is admitted and defaulted", beta_dgd(_root_override(""))),
    Case("v1alpha1 Grove root provider override converts and defaults", alpha_dgd(_root_override(""))),
    Case("first provider override can be added without lifecycle history", old=beta_dgd(),
         new=beta_dgd(_root_override())),
    Case("provider override can be removed without lifecycle status", old=beta_dgd(_root_override()), new=beta_dgd()),
    Case("valid Grove component and multinode role overrides are admitted and defaulted",
         beta_dgd(_both(lambda d: d["spec"]["components"][0].update(providerOverride=_override("", _clique("host"))),
                        _set("providerOverride", _override("", _clique("rack"))),
                        _set("multinode", {"nodeCount": 2,
                                           "leader": {"providerOverride": _override("", _clique("host"))},
                                           "worker": {"providerOverride": _override("", _clique("host"))}})))),
    Case("provider override target must match its DGD context", beta_dgd(_root_override("PodCliqueTemplateSpec")),
         errors=('spec.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": must match the '
                 'provider-context target "PodCliqueSet"',)),
    Case("provider override rejects Dynamo-owned fields",
         beta_dgd(_root_override(value={"spec": {"replicas": 3, **PCS_TOPOLOGY["spec"]}})),
         errors=("spec.providerOverride.value.spec.replicas: Forbidden: is Dynamo-owned or not enabled for provider "
                 "override",)),
    Case("malformed provider override field is invalid without echoing its value",
         beta_dgd(_root_override(value={"spec": {"template": {"topologyConstraint": {"pack": "rack"}}}})),
         errors=("spec.providerOverride.value: Invalid value: null: does not match the registered PodCliqueSet schema: "
                 "json: cannot unmarshal string into Go struct field "
                 "TopologyConstraint.spec.template.topologyConstraint.pack of type v1alpha1.TopologyPackConstraint",)),
    Case("typed and provider-native Grove topology cannot be combined",
         beta_dgd(_both(_root_override(), _topology(clusterTopologyName="grove-topology", packDomain="rack"))),
         errors=("spec.providerOverride.value: Forbidden: cannot be combined with spec.topologyConstraint or "
                 "components[].topologyConstraint; use either the typed topology API or provider-native Grove "
                 "topology overrides",)),
    Case("component workload provider rejects provider overrides", beta_dgd(_both(_component_provider, _root_override())),
         errors=('spec.providerOverride: Forbidden: requires workload provider "grove", but "component" is selected',)),
    Case("legacy provider override schema identity is immutable during repair",
         old=beta_dgd(_root_override("PodCliqueTemplateSpec", api_version="grove.io/v2")),
         new=beta_dgd(_root_override()),
         errors=(f'spec.providerOverride.apiVersion: Invalid value: "grove.io/v1alpha1": {IMMUTABLE}',
                 f'spec.providerOverride.target: Invalid value: "PodCliqueSet": {IMMUTABLE}')),
    Case("legacy multinode role provider identity is immutable during repair",
         old=beta_dgd(_leader_override("PodCliqueSet", "grove.io/v2")),
         new=beta_dgd(_leader_override("PodCliqueTemplateSpec")),
         errors=(f'{W}.multinode.leader.providerOverride.apiVersion: Invalid value: "grove.io/v1alpha1": {IMMUTABLE}',
                 f'{W}.multinode.leader.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": '
                 f"{IMMUTABLE}")),
    Case("workload provider input is normalized from routing intent on create",
         beta_dgd(_annotate(**{PROVIDER: "component"}))),
    Case("unsupported stored workload provider is rejected", old=beta_dgd(_annotate(**{PROVIDER: "unknown"})),
         new=beta_dgd(_both(_annotate(**{PROVIDER: "unknown"}), _label)),
         errors=('metadata.annotations[nvidia.com/workload-provider]: Unsupported value: "unknown": supported values: '
                 '"component", "grove"',)),
    Case("workload provider cannot change", old=beta_dgd(_component_provider),
         new=beta_dgd(_annotate(**{PROVIDER: "grove"})),
         errors=(f'metadata.annotations[nvidia.com/workload-provider]: Invalid value: "grove": {IMMUTABLE}',)),
    Case("Grove provider retains Grove admission semantics when the gate is disabled", grove=False,
         old=beta_dgd(_both(_annotate(**{PROVIDER: "grove"}), _priority)),
         new=beta_dgd(_both(_annotate(**{PROVIDER: "grove"}), _priority, _label))),
    Case("component provider retains component admission semantics when Grove is enabled",
         old=beta_dgd(_both(_component_provider, _priority)),
         new=beta_dgd(_both(_annotate(**{PROVIDER: "component"}), _priority, _label)),
         errors=('spec.priorityClassName: Forbidden: requires the Grove pathway, but workload provider "component" is '
                 "selected",)),
    Case("origin version accepts semver", beta_dgd(_annotate(**{"nvidia.com/dynamo-operator-origin-version": "1.2.3"}))),
    Case("origin version rejects non-semver",
         beta_dgd(_annotate(**{"nvidia.com/dynamo-operator-origin-version": "not-semver"})),
         errors=('metadata.annotations[nvidia.com/dynamo-operator-origin-version]: Invalid value: "not-semver": must be '
                 "valid semver",)),
]


def _extra_component(env: bool = False) -> dict:
    container: dict = {"name": "main", "image": IMAGE}
    if env:
        container["env"] = [{"name": "TOKEN", "value": "do-not-leak-this-value"}]
    return {"name": "extra", "replicas": 1, "runtimeVersionOverride": "1.1.0",
            "podTemplate": {"spec": {"containers": [container]}}}


def _restart(kind: str, *order: str):
    """``betaRestart``."""
    strategy: dict = {"type": kind}
    if order:
        strategy["order"] = list(order)
    return lambda d: d["spec"].update(restart={"id": "roll", "strategy": strategy})


def _rolling(restart_id: str, phase: str):
    def edit(dgd: dict) -> None:
        dgd["spec"]["restart"] = {"id": restart_id}
        dgd["status"] = {"rollingUpdate": {"phase": phase}}
    return edit


def _adapter(replicas: int, adapter: bool = True):
    def edit(dgd: dict) -> None:
        w = worker(dgd)
        w["replicas"] = replicas
        if adapter:
            w["scalingAdapter"] = {}
    return edit


def _grove_fsg(value: bool | None):
    return _set("experimental", {} if value is None else {"grove": {"forceScalingGroup": value}})


IMMUTABLE_TOPOLOGY = ("is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
                      "DynamoGraphDeployment to change topology constraints")
IMMUTABLE_KVT = ("is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
                 "DynamoGraphDeployment to change the KV transfer policy")
TOPOLOGY_FIXED = "spec.components: Forbidden: component topology is immutable and cannot be modified after creation"
GMS_TOGGLE = "the inter-pod GMS layout cannot be toggled after creation; delete and recreate the DynamoGraphDeployment"
FAILOVER_TOGGLE = "inter-pod GMS failover cannot be toggled after creation; delete and recreate the DynamoGraphDeployment"
FSG_TOGGLE = "cannot be toggled after creation; delete and recreate the DynamoGraphDeployment to change it"
ADAPTER_OWNS = (f"{W}.replicas: Forbidden: cannot be modified directly when scaling adapter is enabled; scale or update "
                "the related DynamoGraphDeploymentScalingAdapter instead")
REGULAR_USER = "system:serviceaccount:default:regular-user"
ZONE_TOPOLOGY = _topology(clusterTopologyName="grove-topology", packDomain="zone")
RACK_TOPOLOGY = _topology(clusterTopologyName="grove-topology", packDomain="rack")

ANNOTATIONS_AND_UPDATES = [
    Case("vLLM backend annotation accepts mp", beta_dgd(_annotate(**{"nvidia.com/vllm-distributed-executor-backend": "mp"}))),
    Case("vLLM backend annotation accepts ray case-insensitively",
         beta_dgd(_annotate(**{"nvidia.com/vllm-distributed-executor-backend": "RAY"}))),
    Case("vLLM backend annotation rejects unknown value",
         beta_dgd(_annotate(**{"nvidia.com/vllm-distributed-executor-backend": "typo"})),
         errors=('metadata.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "typo": must be '
                 '"mp" or "ray"',)),
    *(Case(f"Grove update strategy annotation accepts {v}", beta_dgd(_annotate(**{"nvidia.com/grove-update-strategy": v})))
      for v in ("RollingRecreate", "OnDelete")),
    *(Case(f"Grove update strategy annotation rejects {label}",
           beta_dgd(_annotate(**{"nvidia.com/grove-update-strategy": v})),
           newer='Grove "Coherent" update strategy (the supported values list it)',
           errors=(f'metadata.annotations[nvidia.com/grove-update-strategy]: Unsupported value: "{v}": supported '
                   'values: "RollingRecreate", "OnDelete"',))
      for label, v in (("lowercase value", "ondelete"), ("whitespace", " OnDelete "), ("unknown value", "BlueGreen"))),
    *(Case(f"discovery mode accepts {v}", beta_dgd(_annotate(**{"nvidia.com/dynamo-kube-discovery-mode": v})))
      for v in ("pod", "container")),
    Case("discovery mode rejects unknown value",
         beta_dgd(_annotate(**{"nvidia.com/dynamo-kube-discovery-mode": "endpoint"})),
         errors=('metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Unsupported value: "endpoint": '
                 'supported values: "pod", "container"',)),
    Case("independent root errors aggregate with exact field paths",
         beta_dgd(_both(lambda d: d["spec"].pop("components"), _annotate(**{
             "nvidia.com/dynamo-operator-origin-version": "not-semver",
             "nvidia.com/vllm-distributed-executor-backend": "invalid",
             "nvidia.com/dynamo-kube-discovery-mode": "invalid"}))),
         errors=('metadata.annotations[nvidia.com/dynamo-operator-origin-version]: Invalid value: "not-semver": must '
                 "be valid semver",
                 'metadata.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "invalid": must be '
                 '"mp" or "ray"',
                 'metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Unsupported value: "invalid": supported '
                 'values: "pod", "container"',
                 "spec.components: Required value: must have at least one component")),
    Case("component topology is immutable", old=beta_dgd(),
         new=beta_dgd(lambda d: d["spec"]["components"].append(_extra_component(env=True))),
         errors=(f"{TOPOLOGY_FIXED}: components added: [extra]",)),
    Case("component removal is immutable", old=beta_dgd(), new=beta_dgd(lambda d: d["spec"]["components"].pop()),
         errors=(f"{TOPOLOGY_FIXED}: components removed: [worker]",)),
    Case("component add and remove reports both sides", old=beta_dgd(),
         new=beta_dgd(lambda d: d["spec"].update(components=[d["spec"]["components"][1], _extra_component()])),
         errors=(f"{TOPOLOGY_FIXED}: components added: [extra], components removed: [frontend]",)),
    Case("component reorder is allowed", old=beta_dgd(), new=beta_dgd(lambda d: d["spec"]["components"].reverse())),
    Case("single-node to multinode transition is immutable", old=beta_dgd(), new=beta_dgd(_set("multinode", {"nodeCount": 2})),
         errors=(f'{W}.multinode: Invalid value: {{"nodeCount":2}}: cannot change node topology between single-node '
                 "and multi-node after creation",)),
    Case("node count-only update remains allowed", old=beta_dgd(_set("multinode", {"nodeCount": 2})),
         new=beta_dgd(_set("multinode", {"nodeCount": 3})),
         newer="nodeCount immutability (api-and-validation.md: nodeCount frozen after creation)"),
    Case("spec topology constraint is immutable", old=beta_dgd(), new=beta_dgd(RACK_TOPOLOGY),
         errors=('spec.topologyConstraint: Invalid value: {"clusterTopologyName":"grove-topology","packDomain":"rack"}: '
                 f"{IMMUTABLE_TOPOLOGY}",)),
    Case("spec topology constraint change is immutable", old=beta_dgd(RACK_TOPOLOGY), new=beta_dgd(ZONE_TOPOLOGY),
         errors=('spec.topologyConstraint: Invalid value: {"clusterTopologyName":"grove-topology","packDomain":"zone"}: '
                 f"{IMMUTABLE_TOPOLOGY}",)),
    Case("spec topology constraint removal is immutable", old=beta_dgd(RACK_TOPOLOGY), new=beta_dgd(),
         errors=(f"spec.topologyConstraint: Invalid value: null: {IMMUTABLE_TOPOLOGY}",)),
    Case("unchanged topology constraints are allowed",
         old=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="rack"))),
         new=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="rack")))),
    Case("component topology constraint is immutable", old=beta_dgd(ZONE_TOPOLOGY),
         new=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="rack"))),
         errors=(f'{W}.topologyConstraint: Invalid value: {{"packDomain":"rack"}}: {IMMUTABLE_TOPOLOGY}',)),
    Case("component topology constraint change is immutable",
         old=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="rack"))),
         new=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="zone"))),
         errors=(f'{W}.topologyConstraint: Invalid value: {{"packDomain":"zone"}}: {IMMUTABLE_TOPOLOGY}',)),
    Case("component topology constraint removal is immutable",
         old=beta_dgd(_both(ZONE_TOPOLOGY, _component_topology(1, packDomain="rack"))), new=beta_dgd(ZONE_TOPOLOGY),
         errors=(f"{W}.topologyConstraint: Invalid value: null: {IMMUTABLE_TOPOLOGY}",)),
    Case("kv transfer policy is immutable", old=beta_dgd(), new=beta_dgd(_kvt(labelKey=ZONE, domain="zone")),
         errors=(f'{KVT}: Invalid value: {{"labelKey":"topology.kubernetes.io/zone","domain":"zone",'
                 f'"enforcement":"required"}}: {IMMUTABLE_KVT}',)),
    Case("unchanged kv transfer policy is allowed", old=beta_dgd(_kvt(labelKey=ZONE, domain="zone")),
         new=beta_dgd(_kvt(labelKey=ZONE, domain="zone", enforcement="required"))),
    Case("kv transfer policy removal is immutable", old=beta_dgd(_kvt(labelKey=ZONE, domain="zone")), new=beta_dgd(),
         errors=(f"{KVT}: Invalid value: null: {IMMUTABLE_KVT}",)),
    Case("GMS extra client container update must resolve", old=beta_dgd(_gms("IntraPod")),
         new=beta_dgd(_gms("IntraPod", extraClientContainers=["missing-client"])),
         errors=(f'{GMS}.extraClientContainers[0]: Invalid value: "missing-client": does not name a container in '
                 "podTemplate.spec.containers",)),
    Case("inter-pod GMS layout is immutable", old=beta_dgd(), new=beta_dgd(_gms("InterPod")),
         errors=(f'{GMS}.mode: Invalid value: "InterPod": {GMS_TOGGLE}',)),
    Case("inter-pod GMS layout removal is immutable", old=beta_dgd(_gms("InterPod")), new=beta_dgd(),
         errors=(f"{GMS}.mode: Invalid value: null: {GMS_TOGGLE}",)),
    Case("inter-pod failover toggle is immutable", old=beta_dgd(_gms("InterPod")),
         new=beta_dgd(_both(_gms("InterPod"), _failover(mode="InterPod", numShadows=1))),
         errors=(f'{W}.experimental.failover: Invalid value: {{"mode":"InterPod","numShadows":1}}: {FAILOVER_TOGGLE}',)),
    Case("inter-pod failover removal is immutable",
         old=beta_dgd(_both(_gms("InterPod"), _failover(mode="InterPod", numShadows=1))), new=beta_dgd(),
         errors=(f"{GMS}.mode: Invalid value: null: {GMS_TOGGLE}",
                 f"{W}.experimental.failover: Invalid value: null: {FAILOVER_TOGGLE}")),
    Case("grove.forceScalingGroup addition is immutable", old=beta_dgd(), new=beta_dgd(_grove_fsg(True)),
         errors=(f"{W}.experimental.grove.forceScalingGroup: Invalid value: true: {FSG_TOGGLE}",)),
    Case("grove.forceScalingGroup removal is immutable", old=beta_dgd(_grove_fsg(True)), new=beta_dgd(),
         errors=(f"{W}.experimental.grove.forceScalingGroup: Invalid value: null: {FSG_TOGGLE}",)),
    Case("unchanged grove.forceScalingGroup update reaches the webhook", old=beta_dgd(_grove_fsg(True)),
         new=beta_dgd(_grove_fsg(True))),
    Case("explicit false grove.forceScalingGroup addition reaches the webhook", old=beta_dgd(_grove_fsg(None)),
         new=beta_dgd(_grove_fsg(False))),
    Case("grove block removal with retained experimental is immutable", old=beta_dgd(_grove_fsg(True)),
         new=beta_dgd(_grove_fsg(None)),
         errors=(f"{W}.experimental.grove.forceScalingGroup: Invalid value: null: {FSG_TOGGLE}",)),
    Case("inter-pod failover shadow count is immutable",
         old=alpha_dgd(lambda d: enable_alpha_inter_failover(worker(d), 1)),
         new=alpha_dgd(lambda d: enable_alpha_inter_failover(worker(d), 2)),
         errors=("spec.components[0].experimental.failover.numShadows: Invalid value: 2: is immutable for inter-pod "
                 "GMS failover; delete and recreate the DynamoGraphDeployment to change it",)),
    Case("scaling adapter blocks direct replica changes", old=beta_dgd(_adapter(2)), new=beta_dgd(_adapter(3)),
         username=REGULAR_USER, errors=(ADAPTER_OWNS,)),
    Case("scaling adapter fails closed without user info", old=beta_dgd(_adapter(2)), new=beta_dgd(_adapter(3)),
         errors=(ADAPTER_OWNS,)),
    Case("scaling adapter removal cannot bypass replica ownership", old=beta_dgd(_adapter(2)),
         new=beta_dgd(_adapter(3, adapter=False)), username=REGULAR_USER, errors=(ADAPTER_OWNS,)),
    Case("operator can change scaling-adapter-owned replicas", old=beta_dgd(_adapter(2)), new=beta_dgd(_adapter(3)),
         username=OPERATOR, operator=True),
    Case("restart id cannot change during active rolling update", old=beta_dgd(_rolling("old", "InProgress")),
         new=beta_dgd(lambda d: d["spec"].update(restart={"id": "new"})),
         errors=('spec.restart.id: Invalid value: "new": cannot be changed while a rolling update is InProgress',)),
    Case("restart id can stay unchanged during active rolling update", old=beta_dgd(_rolling("same", "InProgress")),
         new=beta_dgd(lambda d: d["spec"].update(restart={"id": "same"}))),
    Case("restart id can change after completed rolling update", old=beta_dgd(_rolling("old", "Completed")),
         new=beta_dgd(lambda d: d["spec"].update(restart={"id": "new"}))),
    Case("restart id is required on update", old=beta_dgd(), new=beta_dgd(lambda d: d["spec"].update(restart={"id": ""})),
         errors=('spec.restart.id: Invalid value: "": spec.restart.id in body should be at least 1 chars long',)),
    Case("duplicate restart order is rejected on update", old=beta_dgd(),
         new=beta_dgd(_restart("Sequential", "frontend", "worker", "worker")),
         errors=('spec.restart.strategy.order: Invalid value: ["frontend","worker","worker"]: must be unique',)),
    Case("unknown restart order component is rejected on update", old=beta_dgd(),
         new=beta_dgd(_restart("Sequential", "frontend", "ghost")),
         errors=('spec.restart.strategy.order[1]: Unsupported value: "ghost": supported values: "frontend", "worker"',)),
    Case("incomplete restart order is rejected on update", old=beta_dgd(), new=beta_dgd(_restart("Sequential", "worker")),
         errors=('spec.restart.strategy.order: Invalid value: ["worker"]: must have the same number of unique '
                 "components as the deployment",)),
    Case("empty sequential restart order is valid on update", old=beta_dgd(), new=beta_dgd(_restart("Sequential"))),
    Case("complete sequential restart order is valid on update", old=beta_dgd(),
         new=beta_dgd(_restart("Sequential", "frontend", "worker"))),
    Case("parallel restart without order is valid on update", old=beta_dgd(), new=beta_dgd(_restart("Parallel"))),
    Case("parallel restart rejects order on update", old=beta_dgd(), new=beta_dgd(_restart("Parallel", "frontend", "worker")),
         errors=("spec.restart.strategy.order: Forbidden: cannot be specified when strategy is parallel",)),
    Case("v1beta1 backend framework update reaches the webhook and warns", old=beta_dgd(),
         new=beta_dgd(lambda d: d["spec"].update(backendFramework="sglang")),
         errors=('spec.backendFramework: Invalid value: "sglang": is immutable and cannot be changed after creation',),
         warnings=("Changing spec.backendFramework may cause unexpected behavior",)),
]


def _grove_rules_forcing() -> list[Case]:
    """The Grove forceScalingGroup create cases (Go file order: after the power rules)."""
    return [
        Case("component grove.forceScalingGroup requires Grove", beta_dgd(_grove_fsg(True)), grove=False,
             errors=(f"{W}.experimental.grove.forceScalingGroup: Forbidden: is currently supported only for "
                     "Grove-backed DynamoGraphDeployment components",)),
        Case("v1beta1 grove.forceScalingGroup on a single-node component reaches the webhook", beta_dgd(_grove_fsg(True))),
        Case("v1beta1 redundant grove.forceScalingGroup on a multinode component reaches the webhook",
             beta_dgd(_both(_set("multinode", {"nodeCount": 2}), _grove_fsg(True)))),
    ]


#: The webhook admits the DGD, but the API server refuses the Deployment the operator renders from
#: it (``ValidateContainerResourceRequirements``: an extended resource's request must equal its
#: limit); the verdict judges the rendered objects too, so we refuse before anything is created.
STRICTER_GPU_REQUEST = ("stricter: a GPU request of 8 beside a limit of 1 is refused by the API server on the "
                        "rendered Deployment (validation.go ValidateContainerResourceRequirements)")
NEWER_POWER = ("power rules: a gpu-power-limit annotation needs the nvidia.com/gpu.product node selector "
               "(api-and-validation.md rule 19); the same case with the selector is checked below")
#: Refused for the missing selector (an update ratchets it when OLD already lacked it).
_NEEDS_SELECTOR = ("accepted on create", "DRA is rejected", "DRA claim template", "direct DRA claim", "zero value",
                   "negative value", "non-integer", "init-container DRA", "added to a DRA", "annotation change",
                   "annotation addition", "GMS DRA is rejected after")
POWER_RULES = [replace(c, newer=NEWER_POWER) if any(k in c.name for k in _NEEDS_SELECTOR) else c
               for c in _power_rules_of(None)]
#: The Go power cases with a reviewed gpu.product selector: the newer rules add nothing else.
POWER_WITH_PRODUCT = [replace(c, name=f"{c.name} (with gpu.product selector)") for c in _power_rules_of(PRODUCT)]

CASES = [*CREATE_RULES, *CROSS_VERSION, *REPLICAS, *POWER_RULES, *POWER_WITH_PRODUCT, *FEATURES,
         *SOURCE_VERSION, *ALPHA_AND_ROOT,
         *OVERRIDES_AND_ANNOTATIONS, *_grove_rules_forcing(), *ANNOTATIONS_AND_UPDATES]


@pytest.mark.parametrize("case", params(CASES, GO))
def test_dgd_admission(case: Case) -> None:
    check(case)
