"""``internal/webhook/validation/dynamocomponentdeployment_validation_envtest_test.go``
(``TestDynamoComponentDeploymentValidator_Validate``) as an oracle for ``validate --mode operator``.

Each case sends the Go table's DCD (and, for an update, its old DCD) through what ``dynamo-pulumi
validate [--old] --mode operator`` runs and compares the API server's causes (see
``webhook_envtest_support``). The envtest runs DCD admission without a cluster topology.
``wantPodAnnotations`` (structural pruning keeps pod-template annotations) is reduced to
"admitted".
"""

from __future__ import annotations

import pytest
from webhook_envtest_support import (
    CUSTOM_IMAGE,
    IMAGE,
    Case,
    alpha_dcd,
    beta_dcd,
    check,
    gpu_main,
    params,
)

GO = "TestDynamoComponentDeploymentValidator_Validate"
RUNTIME_PATTERN = r"'^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$'"
DNS_PATTERN = "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"
WORKER_GPU = {"limits": {"gpu": "1"}}
MIN_AVAILABLE_GROVE_ONLY = ("spec.minAvailable: Forbidden: is currently supported only for Grove-backed "
                            "DynamoGraphDeployment components")


def _spec(**fields: object):
    """An edit setting fields of ``spec`` (``None`` deletes one)."""
    def edit(dcd: dict) -> None:
        for key, value in fields.items():
            if value is None:
                dcd["spec"].pop(key, None)
            else:
                dcd["spec"][key] = value
    return edit


def _both(*edits):
    def edit(dcd: dict) -> None:
        for e in edits:
            e(dcd)
    return edit


def _label(dcd: dict) -> None:
    dcd["metadata"]["labels"] = {"updated": "true"}


def _main_image(image: str):
    """The main image, in either version."""
    def edit(dcd: dict) -> None:
        spec = dcd["spec"]
        if "extraPodSpec" in spec:
            spec["extraPodSpec"]["mainContainer"]["image"] = image
        else:
            spec["podTemplate"]["spec"]["containers"][0]["image"] = image
    return edit


def shared(**fields: object) -> dict:
    """``alphaDCDWithSharedSpec``: the shared spec replaced by ``fields`` (serviceName, runtime
    version and type go with it); the default ``extraPodSpec`` is kept when none is given."""
    def edit(dcd: dict) -> None:
        kept = dcd["spec"]["extraPodSpec"]
        dcd["spec"] = {"backendFramework": dcd["spec"]["backendFramework"], **fields}
        dcd["spec"].setdefault("extraPodSpec", kept)
    return alpha_dcd(edit)


def _inter_pod_gms(dcd: dict) -> None:
    """``enableBetaInterPodGMS`` on the DCD's spec."""
    dcd["spec"]["experimental"] = {"gpuMemoryService": {"mode": "InterPod"}}
    dcd["spec"]["podTemplate"] = gpu_main()


NO_RUNTIME = _spec(runtimeVersionOverride=None)

BASELINE = [
    Case("valid deployment", alpha_dcd(_spec(replicas=3, backendFramework="sglang"))),
    Case("v1beta1 main image is required when pod template is absent on create", beta_dcd(_spec(podTemplate=None)),
         errors=("spec.podTemplate.spec.containers: Required value: is required",)),
    Case("v1alpha1 main image is required when extra pod spec is absent on create", alpha_dcd(_spec(extraPodSpec=None)),
         errors=("spec.extraPodSpec.mainContainer.image: Required value: is required",)),
    Case("v1beta1 main image cannot be removed by removing pod template", old=beta_dcd(),
         new=beta_dcd(_spec(podTemplate=None)), errors=("spec.podTemplate.spec.containers: Required value: is required",)),
    Case("v1alpha1 main image cannot be removed by removing extra pod spec", old=alpha_dcd(),
         new=alpha_dcd(_spec(extraPodSpec=None)),
         errors=("spec.extraPodSpec.mainContainer.image: Required value: is required",)),
    Case("v1beta1 main image is required",
         beta_dcd(_spec(podTemplate={"spec": {"containers": [{"name": "main"}]}})),
         errors=("spec.podTemplate.spec.containers[0].image: Required value: is required",)),
    Case("v1alpha1 main image is required", alpha_dcd(_spec(extraPodSpec={"mainContainer": {}})),
         errors=("spec.extraPodSpec.mainContainer.image: Required value: is required",)),
    Case("v1alpha1 custom image does not require runtime version override",
         alpha_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE)))),
    Case("v1beta1 custom image does not require runtime version override",
         beta_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE)))),
    Case("v1beta1 metadata update with custom image does not require runtime version override",
         old=beta_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE))),
         new=beta_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE), _label))),
    Case("v1alpha1 metadata update with custom image does not require runtime version override",
         old=alpha_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE))),
         new=alpha_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE), _label))),
    Case("v1beta1 image change to custom does not require runtime version override", old=beta_dcd(NO_RUNTIME),
         new=beta_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE)))),
    Case("changing a v1alpha1 custom image does not require runtime version override",
         old=alpha_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE))),
         new=alpha_dcd(_both(NO_RUNTIME, _main_image("registry.example/runtime:other-custom")))),
    Case("v1alpha1 compatibility validation does not duplicate runtime version errors",
         alpha_dcd(_both(NO_RUNTIME, _main_image(CUSTOM_IMAGE), _spec(ingress={"enabled": True}))),
         errors=("spec.ingress.host: Required value: is required when ingress is enabled",)),
    Case("v1beta1 derives runtime version from a semver image tag",
         beta_dcd(_both(NO_RUNTIME, _main_image("registry.example/runtime:v1.2.3-cuda12")))),
    Case("runtime version override takes precedence over a semver image tag",
         beta_dcd(_main_image("registry.example/vllm-opus:4.8.2"))),
    Case("v1alpha1 accepts four-digit runtime version override segments",
         alpha_dcd(_spec(runtimeVersionOverride="9999.9999.9999"))),
    Case("v1alpha1 rejects runtime version override segments longer than four digits",
         alpha_dcd(_spec(runtimeVersionOverride="10000.0.0")),
         errors=('spec.runtimeVersionOverride: Invalid value: "10000.0.0": spec.runtimeVersionOverride in body should '
                 f"match {RUNTIME_PATTERN}",)),
    Case("v1beta1 accepts four-digit runtime version override segments",
         beta_dcd(_spec(runtimeVersionOverride="9999.9999.9999"))),
    Case("v1beta1 rejects runtime version override segments longer than four digits",
         beta_dcd(_spec(runtimeVersionOverride="10000.0.0")),
         errors=('spec.runtimeVersionOverride: Invalid value: "10000.0.0": spec.runtimeVersionOverride in body should '
                 f"match {RUNTIME_PATTERN}",)),
    Case("checkpoint configuration requires operator feature gate", checkpoint=False,
         new=beta_dcd(_spec(experimental={"checkpoint": {"enabled": True}})),
         errors=("spec.experimental.checkpoint: Forbidden: checkpoint functionality is disabled in the operator "
                 "configuration",)),
    Case("checkpoint update requires operator feature gate", checkpoint=False,
         old=beta_dcd(_spec(experimental={"checkpoint": {"enabled": True}})),
         new=beta_dcd(_spec(experimental={"checkpoint": {"enabled": True}})),
         errors=("spec.experimental.checkpoint: Forbidden: checkpoint functionality is disabled in the operator "
                 "configuration",)),
    Case("invalid replicas", alpha_dcd(_spec(replicas=-1)),
         errors=("spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",)),
    Case("minAvailable is unsupported for standalone DCD", alpha_dcd(_spec(replicas=3, minAvailable=2)),
         errors=(MIN_AVAILABLE_GROVE_ONLY,)),
    Case("v1beta1 minAvailable reaches the standalone DCD webhook", beta_dcd(_spec(replicas=3, minAvailable=2)),
         errors=(MIN_AVAILABLE_GROVE_ONLY,)),
    Case("v1beta1 structural validation aggregates independent shared-spec errors",
         beta_dcd(_spec(type="frontend", sharedMemorySize="-1Gi", frontendSidecar="frontend",
                        experimental={"gpuMemoryService": {}})),
         errors=('spec.sharedMemorySize: Invalid value: "-1Gi": must be non-negative',
                 'spec.frontendSidecar: Invalid value: "frontend": must match a podTemplate.spec.containers name',
                 "spec.experimental.gpuMemoryService: Forbidden: GPU memory service is only supported for worker, "
                 "prefill, or decode components",
                 "spec.experimental.gpuMemoryService: Forbidden: GPU memory service requires "
                 "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1")),
    Case("invalid ingress", alpha_dcd(_spec(ingress={"enabled": True})),
         errors=("spec.ingress.host: Required value: is required when ingress is enabled",)),
    Case("invalid volume mount", alpha_dcd(_spec(volumeMounts=[{"name": "data"}])),
         errors=("spec.volumeMounts[0].mountPoint: Required value: is required when useAsCompilationCache is false",)),
    Case("invalid shared memory", alpha_dcd(_spec(sharedMemory={})),
         errors=("spec.sharedMemory: Invalid value: size is required when disabled is false",)),
]

CEL = [
    Case("v1alpha1 replicas below minAvailable are rejected by CEL", alpha_dcd(_spec(replicas=1, minAvailable=2)),
         errors=("spec: Invalid value: minAvailable must be less than or equal to replicas unless replicas is 0",)),
    Case("v1beta1 replicas below minAvailable are rejected by CEL", beta_dcd(_spec(replicas=1, minAvailable=2)),
         errors=("spec: Invalid value: minAvailable must be less than or equal to replicas unless replicas is 0",)),
    Case("v1alpha1 minAvailable change is rejected by CEL", old=alpha_dcd(_spec(replicas=3, minAvailable=1)),
         new=alpha_dcd(_spec(replicas=3, minAvailable=2)),
         errors=("spec: Invalid value: minAvailable is immutable after creation",)),
    Case("v1beta1 minAvailable change is rejected by CEL", old=beta_dcd(_spec(replicas=3, minAvailable=1)),
         new=beta_dcd(_spec(replicas=3, minAvailable=2)),
         errors=("spec: Invalid value: minAvailable is immutable after creation",)),
    Case("v1alpha1 inter-pod GMS client containers are rejected by CEL",
         alpha_dcd(_spec(gpuMemoryService={"enabled": True, "mode": "interPod", "extraClientContainers": ["metrics"]})),
         errors=("spec.gpuMemoryService: Invalid value: extraClientContainers is only supported with mode=intraPod",)),
    Case("v1beta1 inter-pod GMS client containers are rejected by CEL",
         beta_dcd(_spec(experimental={"gpuMemoryService": {"mode": "InterPod", "extraClientContainers": ["metrics"]}})),
         errors=("spec.experimental.gpuMemoryService: Invalid value: extraClientContainers is only supported with "
                 "mode=IntraPod",)),
    Case("v1alpha1 non-empty GMS extra client pods are rejected by CEL",
         alpha_dcd(_spec(gpuMemoryService={"enabled": True, "mode": "interPod",
                                           "extraClientPods": [{"name": "client", "podTemplate": {}}]})),
         errors=("spec.gpuMemoryService: Invalid value: extraClientPods is reserved for inter-pod GMS and is not "
                 "implemented yet",)),
    Case("v1beta1 non-empty GMS extra client pods are rejected by CEL",
         beta_dcd(_spec(experimental={"gpuMemoryService": {
             "mode": "InterPod", "extraClientPods": [{"name": "client", "podTemplate": {}}]}})),
         errors=("spec.experimental.gpuMemoryService: Invalid value: extraClientPods is reserved for inter-pod GMS and "
                 "is not implemented yet",)),
    Case("v1beta1 EPP config on a worker is rejected by CEL",
         beta_dcd(_spec(eppConfig={"configMapRef": {"name": "epp-config", "key": ""}})),
         errors=("spec: Invalid value: eppConfig may only be set when type is epp",)),
    Case("v1beta1 checkpoint job with checkpointRef is rejected by CEL",
         beta_dcd(_spec(experimental={"checkpoint": {"enabled": True, "checkpointRef": "existing-checkpoint",
                                                     "job": {}}})),
         errors=("spec.experimental.checkpoint: Invalid value: checkpoint.job cannot be set when checkpointRef is "
                 "specified",)),
]

IDENTITY = {"model": "model", "backendFramework": "vllm"}
INTRA_GMS = {"enabled": True, "mode": "intraPod"}

SHARED = [
    Case("valid shared spec with all fields",
         shared(replicas=3, ingress={"enabled": True, "host": "example.com"},
                volumeMounts=[{"name": "cache", "mountPoint": "/cache"},
                              {"name": "compilation", "useAsCompilationCache": True}],
                sharedMemory={"size": "1Gi"})),
    Case("v1beta1 checkpoint with inter-pod GMS and failover reports both errors",
         beta_dcd(_both(_inter_pod_gms, lambda d: d["spec"]["experimental"].update(
             checkpoint={"enabled": True}, failover={"mode": "InterPod", "numShadows": 1}))),
         newer="checkpoint messages: the newer operator explains which checkpoint failover layouts it supports",
         errors=("spec.experimental.checkpoint: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported",
                 "spec.experimental.checkpoint: Forbidden: Snapshot with active/passive failover is temporarily "
                 "unsupported")),
    Case("empty dynamo namespace is accepted", shared(dynamoNamespace="")),
    Case("disabled ingress does not require a host", shared(ingress={"enabled": False})),
    Case("disabled shared memory does not require a size", shared(sharedMemory={"disabled": True})),
    Case("vLLM ray service annotation reaches the webhook",
         shared(annotations={"nvidia.com/vllm-distributed-executor-backend": "ray"})),
    Case("vLLM mp service annotation reaches the webhook",
         shared(annotations={"nvidia.com/vllm-distributed-executor-backend": "mp"})),
    Case("invalid vLLM service annotation is rejected by the webhook",
         shared(annotations={"nvidia.com/vllm-distributed-executor-backend": "invalid"}),
         errors=('spec.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "invalid": must be '
                 '"mp" or "ray"',)),
    Case("checkpoint without GMS is accepted",
         shared(componentType="worker", checkpoint={"enabled": True, "identity": IDENTITY})),
    Case("disabled checkpoint with GMS is accepted",
         shared(componentType="worker", resources=WORKER_GPU, checkpoint={"enabled": False},
                gpuMemoryService=INTRA_GMS)),
    Case("GMS extra client containers are accepted",
         shared(componentType="worker", resources=WORKER_GPU,
                extraPodSpec={"mainContainer": {"image": IMAGE},
                              "containers": [{"name": "gms-loader", "image": "loader:latest"}]},
                gpuMemoryService={**INTRA_GMS, "extraClientContainers": ["gms-loader"]})),
    Case("checkpoint target container name is validated by the source schema",
         shared(componentType="worker", checkpoint={"enabled": True, "targetContainerName": "Bad_Name",
                                                    "identity": IDENTITY}),
         errors=('spec.checkpoint.targetContainerName: Invalid value: "Bad_Name": spec.checkpoint.targetContainerName '
                 f"in body should match {DNS_PATTERN}",)),
    Case("GMS extra client container names are validated by the source schema",
         shared(componentType="worker", resources=WORKER_GPU,
                gpuMemoryService={**INTRA_GMS, "extraClientContainers": ["Bad_Name"]}),
         errors=('spec.gpuMemoryService.extraClientContainers[0]: Invalid value: "Bad_Name": '
                 f"spec.gpuMemoryService.extraClientContainers[0] in body should match {DNS_PATTERN}",)),
    Case("deprecated checkpoint mode with checkpointRef is accepted",
         newer="checkpoint rules: a worker-class checkpointRef only on DGD-managed components (api-and-validation.md)",
         new=shared(componentType="worker", checkpoint={"enabled": True, "mode": "Manual",
                                                    "checkpointRef": "existing-checkpoint"})),
    Case("checkpoint job with checkpointRef is rejected by source CEL",
         shared(componentType="worker", checkpoint={"enabled": True, "checkpointRef": "existing-checkpoint", "job": {}}),
         errors=("spec.checkpoint: Invalid value: checkpoint.job cannot be set when checkpointRef is specified",)),
]

EPP_NEWER = ("newer EPP messages: multinode refused for every non-worker type, and the EPP runtime contract "
             "(eppConfig required only below runtime 1.5.0) in place of \"is required for EPP components\"")
GMS_SAVER_JOB = {"gmsClientContainers": ["gms-saver"]}
GPU_REQUIRED = ("spec.experimental.gpuMemoryService: Forbidden: GPU memory service requires "
                "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1")
EPP_REQUIRED = "spec.eppConfig: Required value: is required for EPP components"
EPP_EXACTLY_ONE = "spec.eppConfig: Forbidden: exactly one of configMapRef or config is required"
EPP_CEL = "spec.eppConfig: Invalid value: exactly one of configMapRef or config must be specified"
EPP_BOTH = {"configMapRef": {"name": "epp-config", "key": ""}, "config": {"plugins": [], "schedulingProfiles": []}}
EPP_MAP = {"configMapRef": {"name": "epp-config", "key": ""}}
MAIN_ONLY = {"name": "main", "image": "main:1.1.0"}
INTER_GMS = {"enabled": True, "mode": "interPod"}


def _intra_gms_beta(*clients: str):
    def edit(dcd: dict) -> None:
        dcd["spec"]["experimental"] = {"gpuMemoryService": {"mode": "IntraPod"}}
        dcd["spec"]["podTemplate"] = gpu_main()
        if clients:
            dcd["spec"]["experimental"]["gpuMemoryService"]["extraClientContainers"] = list(clients)
    return edit


def _pod_template(*containers: dict, init: tuple[dict, ...] = (), annotations: dict | None = None):
    template: dict = {"spec": {"containers": list(containers)}}
    if init:
        template["spec"]["initContainers"] = list(init)
    if annotations:
        template["metadata"] = {"annotations": annotations}
    return _spec(podTemplate=template)


GMS_AND_MORE = [
    Case("checkpoint GMS clients require GMS",
         shared(componentType="worker", checkpoint={"enabled": True, "identity": IDENTITY, "job": GMS_SAVER_JOB}),
         errors=("spec.experimental.checkpoint.job.gmsClientContainers: Forbidden: requires gpuMemoryService to be "
                 "set",)),
    Case("checkpoint GMS client names are validated by the source schema",
         shared(componentType="worker", gpuMemoryService=INTRA_GMS,
                checkpoint={"identity": IDENTITY, "job": {"gmsClientContainers": ["Bad_Name"]}}),
         errors=('spec.checkpoint.job.gmsClientContainers[0]: Invalid value: "Bad_Name": '
                 f"spec.checkpoint.job.gmsClientContainers[0] in body should match {DNS_PATTERN}",)),
    Case("frontend sidecar without extra containers is accepted", shared(frontendSidecar={"image": "frontend:latest"})),
    Case("frontend sidecar container-name collision is rejected",
         shared(frontendSidecar={"image": "frontend:latest"}, extraPodSpec={
             "containers": [{"name": "sidecar-frontend", "image": "conflict:latest"}], "mainContainer": MAIN_ONLY}),
         errors=('spec.frontendSidecar: Forbidden: cannot inject frontend sidecar: a container named '
                 '"sidecar-frontend" already exists in extraPodSpec.containers',)),
    Case("frontend sidecar with non-conflicting containers is accepted",
         shared(frontendSidecar={"image": "frontend:latest"}, extraPodSpec={
             "containers": [{"name": "other-sidecar", "image": "other:latest"}], "mainContainer": MAIN_ONLY})),
    Case("GMS rejects non-worker components",
         shared(componentType="frontend", resources=WORKER_GPU, gpuMemoryService={"enabled": True}),
         errors=("spec.experimental.gpuMemoryService: Forbidden: GPU memory service is only supported for worker, "
                 "prefill, or decode components",)),
    Case("GMS requires a GPU", shared(componentType="worker", gpuMemoryService={"enabled": True}),
         errors=(GPU_REQUIRED,)),
    Case("GMS extra client container reference must resolve", beta_dcd(_intra_gms_beta("missing-client")),
         errors=('spec.experimental.gpuMemoryService.extraClientContainers[0]: Invalid value: "missing-client": does '
                 "not name a container in podTemplate.spec.containers",)),
    Case("GMS extra client container update reports one indexed cause", old=beta_dcd(_intra_gms_beta()),
         new=beta_dcd(_intra_gms_beta("missing-client")),
         errors=('spec.experimental.gpuMemoryService.extraClientContainers[0]: Invalid value: "missing-client": does '
                 "not name a container in podTemplate.spec.containers",)),
    Case("GMS accepts GPU requests when limits are unset",
         shared(componentType="worker", resources={"requests": {"gpu": "1"}}, gpuMemoryService={"enabled": True})),
    Case("GMS rejects non-numeric GPU limits",
         shared(componentType="worker", resources={"limits": {"gpu": "not-a-number"}},
                gpuMemoryService={"enabled": True}),
         errors=(GPU_REQUIRED,)),
    Case("checkpoint GMS clients reject inter-pod GMS",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTER_GMS,
                checkpoint={"enabled": True, "identity": IDENTITY, "job": GMS_SAVER_JOB}),
         errors=("spec.experimental.checkpoint.job.gmsClientContainers: Forbidden: is only supported with "
                 "gpuMemoryService.mode=IntraPod",
                 "spec.experimental.checkpoint: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is "
                 "unsupported")),
    Case("checkpoint GMS clients accept intra-pod GMS",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTRA_GMS,
                checkpoint={"identity": IDENTITY, "job": GMS_SAVER_JOB})),
    Case("standalone inter-pod GMS is accepted",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTER_GMS)),
    Case("intra-pod GMS is accepted", shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTRA_GMS)),
    Case("unset GMS mode is accepted",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService={"enabled": True})),
    Case("inter-pod failover requires GMS",
         shared(componentType="worker", resources=WORKER_GPU,
                failover={"enabled": True, "mode": "interPod", "numShadows": 1}),
         errors=('spec.experimental.failover: Forbidden: gpuMemoryService is required when failover mode is '
                 '"InterPod"',)),
    Case("inter-pod failover requires matching GMS mode",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTRA_GMS,
                failover={"enabled": True, "mode": "interPod", "numShadows": 1}),
         errors=('spec.experimental.failover.mode: Invalid value: "InterPod": must match gpuMemoryService.mode '
                 '"IntraPod"',)),
    Case("matching inter-pod GMS failover is accepted",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTER_GMS,
                failover={"enabled": True, "mode": "interPod", "numShadows": 1})),
    Case("disabled failover permits dormant shadow configuration",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTER_GMS,
                failover={"enabled": False, "numShadows": 2})),
    Case("intra-pod failover rejects multiple shadows",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTRA_GMS,
                failover={"enabled": True, "mode": "intraPod", "numShadows": 2}),
         errors=('spec.failover.numShadows: Invalid value: 2: is invalid for mode="intraPod": intraPod uses a fixed 1 '
                 'primary + 1 shadow sidecar; use failover.mode="interPod" to configure numShadows',)),
    Case("single-shadow intra-pod failover is accepted",
         shared(componentType="worker", resources=WORKER_GPU, gpuMemoryService=INTRA_GMS,
                failover={"enabled": True, "mode": "intraPod", "numShadows": 1})),
    Case("deprecated autoscaling emits a warning",
         shared(replicas=3, autoscaling={"enabled": True, "minReplicas": 1, "maxReplicas": 10}),
         warnings=("spec.autoscaling is deprecated and ignored. Use DynamoGraphDeploymentScalingAdapter with HPA, KEDA, "
                   "or Planner for autoscaling instead. See docs/kubernetes/autoscaling.md",)),
    Case("deprecated dynamo namespace warning shows calculated namespace",
         alpha_dcd(_both(lambda d: d["metadata"].update(namespace="hannahz", ownerReferences=[{
             "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "name": "trtllm-disagg",
             "uid": "test-owner"}]), _spec(dynamoNamespace="my-custom-namespace"))),
         warnings=('spec.dynamoNamespace is deprecated and ignored. Value "my-custom-namespace" will be replaced with '
                   '"hannahz-trtllm-disagg". Remove this field from your configuration',)),
    Case("v1alpha1 EPP cannot be multinode", newer=EPP_NEWER,
         new=shared(componentType="epp", multinode={"nodeCount": 2}),
         errors=("spec.multinode: Forbidden: EPP component cannot be multinode", EPP_REQUIRED)),
    Case("v1alpha1 EPP requires one replica", newer=EPP_NEWER,
         new=shared(componentType="epp", replicas=2),
         errors=("spec.replicas: Invalid value: 2: EPP component must have exactly 1 replica", EPP_REQUIRED)),
    Case("v1alpha1 EPP requires configuration", newer=EPP_NEWER,
         new=shared(componentType="epp"), errors=(EPP_REQUIRED,)),
    Case("v1beta1 EPP without configuration reaches and is rejected by the v1beta1 webhook", newer=EPP_NEWER,
         new=beta_dcd(_spec(type="epp")), errors=(EPP_REQUIRED,)),
    Case("v1alpha1 empty EPP config reaches and is rejected by the webhook", shared(componentType="epp", eppConfig={}),
         errors=(EPP_EXACTLY_ONE,)),
    Case("v1beta1 empty EPP config is rejected by source CEL", beta_dcd(_spec(type="epp", eppConfig={})),
         errors=(EPP_CEL,)),
    Case("v1alpha1 conflicting EPP config reaches and is rejected by the webhook",
         shared(componentType="epp", eppConfig=EPP_BOTH), errors=(EPP_EXACTLY_ONE,)),
    Case("v1beta1 conflicting EPP config is rejected by source CEL", beta_dcd(_spec(type="epp", eppConfig=EPP_BOTH)),
         errors=(EPP_CEL,)),
    Case("v1alpha1 EPP config map without a name reaches and is rejected by the webhook",
         shared(componentType="epp", eppConfig={"configMapRef": {"key": ""}}),
         errors=("spec.eppConfig.configMapRef.name: Required value: is required",)),
    Case("valid v1alpha1 EPP config reaches the webhook", shared(componentType="epp", replicas=1, eppConfig=EPP_MAP)),
    Case("valid v1beta1 EPP config reaches the v1beta1 webhook",
         beta_dcd(_spec(type="epp", replicas=1, eppConfig=EPP_MAP))),
    Case("v1beta1 sidecar without image is rejected by CEL", beta_dcd(_pod_template({"name": "main"}, {"name": "metrics"})),
         errors=("spec.podTemplate.spec.containers[1]: Invalid value: sidecar containers must specify a non-empty "
                 "image",)),
    Case("v1alpha1 sidecar without image reaches the webhook",
         alpha_dcd(_spec(extraPodSpec={"containers": [{"name": "metrics"}], "mainContainer": MAIN_ONLY}))),
    Case("v1beta1 init container without image is rejected by CEL",
         beta_dcd(_pod_template({"name": "main"}, init=({"name": "prepare"},))),
         errors=("spec.podTemplate.spec.initContainers[0]: Invalid value: init containers must specify a non-empty "
                 "image",)),
    Case("v1alpha1 init container without image reaches the webhook",
         alpha_dcd(_spec(extraPodSpec={"initContainers": [{"name": "prepare"}], "mainContainer": MAIN_ONLY}))),
    Case("v1beta1 invalid pod template backend annotation is rejected by CEL",
         beta_dcd(_pod_template({"name": "main"}, annotations={"nvidia.com/vllm-distributed-executor-backend": "invalid"})),
         errors=("spec.podTemplate.metadata.annotations: Invalid value: podTemplate backend annotation must be mp or "
                 "ray, case-insensitively",)),
    Case("v1beta1 discovery annotation survives the generated DCD API server round trip",
         beta_dcd(_pod_template(MAIN_ONLY, annotations={"nvidia.com/vllm-distributed-executor-backend": "RaY",
                                                        "nvidia.com/dynamo-kube-discovery-mode": "container"}))),
    Case("v1alpha1 invalid extra pod metadata annotation reaches the webhook",
         alpha_dcd(_spec(extraPodMetadata={"annotations": {"nvidia.com/vllm-distributed-executor-backend": "invalid"}}))),
    Case("valid v1beta1 deployment reaches the v1beta1 webhook", beta_dcd()),
    Case("v1alpha1 update without changes reaches the webhook", old=alpha_dcd(_spec(backendFramework="sglang")),
         new=alpha_dcd(_spec(backendFramework="sglang"))),
    Case("v1beta1 update without changes reaches the v1beta1 webhook", old=beta_dcd(), new=beta_dcd()),
    Case("v1alpha1 backend framework update reaches and is rejected by the webhook",
         old=alpha_dcd(_spec(backendFramework="sglang")), new=alpha_dcd(_spec(backendFramework="vllm")),
         errors=('spec.backendFramework: Invalid value: "vllm": is immutable and cannot be changed after creation',),
         warnings=("Changing spec.backendFramework may cause unexpected behavior",)),
    Case("v1beta1 backend framework update reaches and is rejected by the v1beta1 webhook",
         old=beta_dcd(_spec(backendFramework="sglang")), new=beta_dcd(_spec(backendFramework="vllm")),
         errors=('spec.backendFramework: Invalid value: "vllm": is immutable and cannot be changed after creation',),
         warnings=("Changing spec.backendFramework may cause unexpected behavior",)),
    Case("v1alpha1 replicas update reaches the webhook", old=alpha_dcd(_spec(backendFramework="sglang", replicas=1)),
         new=alpha_dcd(_spec(backendFramework="sglang", replicas=3))),
    Case("v1beta1 replicas update reaches the v1beta1 webhook", old=beta_dcd(_spec(replicas=1)),
         new=beta_dcd(_spec(replicas=3))),
    Case("v1beta1 multinode layout change is rejected by the shared update validator", old=beta_dcd(),
         new=beta_dcd(_spec(multinode={"nodeCount": 2})),
         errors=('spec.multinode: Invalid value: {"nodeCount":2}: cannot change node topology between single-node '
                 "and multi-node after creation",)),
    Case("v1alpha1 update aggregates create and DCD-specific update errors",
         old=shared(componentType="worker", replicas=1, minAvailable=1, resources=WORKER_GPU,
                    gpuMemoryService=INTER_GMS, failover={"enabled": True, "mode": "interPod", "numShadows": 1}),
         new=shared(componentType="worker", replicas=1, minAvailable=1, resources=WORKER_GPU,
                    gpuMemoryService=INTER_GMS, failover={"enabled": True, "mode": "interPod", "numShadows": 2}),
         errors=(MIN_AVAILABLE_GROVE_ONLY,
                 "spec.experimental.failover.numShadows: Invalid value: 2: is immutable for inter-pod GMS failover; "
                 "delete and recreate the DynamoComponentDeployment to change it")),
]


CASES = [*BASELINE, *CEL, *SHARED, *GMS_AND_MORE]


@pytest.mark.parametrize("case", params(CASES, GO))
def test_dcd_admission(case: Case) -> None:
    check(case)
