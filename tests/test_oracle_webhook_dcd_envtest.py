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


def _spec(**fields: object):  # noqa: ANN202
    """An edit setting fields of ``spec`` (``None`` deletes one)."""
    def edit(dcd: dict) -> None:
        for key, value in fields.items():
            if value is None:
                dcd["spec"].pop(key, None)
            else:
                dcd["spec"][key] = value
    return edit


def _both(*edits):  # noqa: ANN202
    def edit(dcd: dict) -> None:
        for e in edits:
            e(dcd)
    return edit


def _label(dcd: dict) -> None:
    dcd["metadata"]["labels"] = {"updated": "true"}


def _main_image(image: str):  # noqa: ANN202
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
    Case("checkpoint job with checkpointRef is rejected by source CEL",
         shared(componentType="worker", checkpoint={"enabled": True, "checkpointRef": "existing-checkpoint", "job": {}}),
         errors=("spec.checkpoint: Invalid value: checkpoint.job cannot be set when checkpointRef is specified",)),
]

CASES = [*BASELINE, *CEL, *SHARED]


@pytest.mark.parametrize("case", params(CASES, GO))
def test_dcd_admission(case: Case) -> None:
    check(case)
