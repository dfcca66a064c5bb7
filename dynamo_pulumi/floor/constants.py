"""Names and numbers the Dynamo operator uses, spelled the way the operator spells them.

One definition per value, so a reader can search this file and the operator's
``internal/consts/consts.go`` (and the few controller-local constants) for the same word.
Python names keep the Go names in UPPER_SNAKE form: ``KubeLabelDynamoSelector`` becomes
``KUBE_LABEL_DYNAMO_SELECTOR``.
"""

from __future__ import annotations

from typing import Final

# --- API groups, versions and kinds ---------------------------------------------------------------

DYNAMO_API_GROUP: Final = "nvidia.com"
DYNAMO_API_VERSION_V1BETA1: Final = "nvidia.com/v1beta1"
DYNAMO_API_VERSION_V1ALPHA1: Final = "nvidia.com/v1alpha1"
RESOURCE_TYPE_DYNAMO_GRAPH_DEPLOYMENT: Final = "DynamoGraphDeployment"
RESOURCE_TYPE_DYNAMO_COMPONENT_DEPLOYMENT: Final = "DynamoComponentDeployment"
RESOURCE_TYPE_DYNAMO_GRAPH_DEPLOYMENT_SCALING_ADAPTER: Final = "DynamoGraphDeploymentScalingAdapter"
LWS_API_VERSION: Final = "leaderworkerset.x-k8s.io/v1"
INFERENCE_POOL_API_VERSION: Final = "inference.networking.k8s.io/v1"
INFERENCE_POOL_API_GROUP: Final = "inference.networking.k8s.io"
ENDPOINT_PICKER_CONFIG_API_VERSION: Final = "inference.networking.x-k8s.io/v1alpha1"
ENDPOINT_PICKER_CONFIG_KIND: Final = "EndpointPickerConfig"
ISTIO_NETWORKING_API_VERSION: Final = "networking.istio.io/v1beta1"
GATEWAY_API_VERSION: Final = "gateway.networking.k8s.io/v1"
GROVE_API_VERSION: Final = "grove.io/v1alpha1"
POD_CLIQUE_KIND: Final = "PodClique"
POD_CLIQUE_SCALING_GROUP_KIND: Final = "PodCliqueScalingGroup"
POD_CLIQUE_SET_KIND: Final = "PodCliqueSet"
#: Kinds without a namespace among those a graph renders or reads (no namespace in their name or path).
CLUSTER_SCOPED_KINDS: Final = frozenset(
    {"ClusterRole", "ClusterRoleBinding", "Namespace", "PersistentVolume", "StorageClass", "DeviceClass"}
)

# --- ports ----------------------------------------------------------------------------------------

DYNAMO_SERVICE_PORT: Final = 8000
DYNAMO_SERVICE_PORT_NAME: Final = "http"
DYNAMO_CONTAINER_PORT_NAME: Final = "http"
DYNAMO_PLANNER_METRICS_PORT: Final = 9085
DYNAMO_METRICS_PORT_NAME: Final = "metrics"
DYNAMO_SYSTEM_PORT: Final = 9090
DYNAMO_SYSTEM_PORT_NAME: Final = "system"
EPP_GRPC_PORT: Final = 9002
EPP_GRPC_PORT_NAME: Final = "grpc"
EPP_GRPC_HEALTH_PORT: Final = 9003
EPP_GRPC_HEALTH_PORT_NAME: Final = "grpc-health"
EPP_METRICS_PORT: Final = 9090
EPP_SERVICE_APP_PROTOCOL: Final = "http2"
DYNAMO_NIXL_PORT: Final = 19090
DYNAMO_NIXL_PORT_NAME: Final = "nixl"
DYNAMO_FPM_BASE_PORT: Final = 20380
MPI_RUN_SSH_PORT: Final = 2222
VLLM_RAY_PORT: Final = 6379
VLLM_DP_RPC_PORT: Final = 13445
VLLM_MP_MASTER_PORT: Final = "29500"
SGLANG_DIST_INIT_PORT: Final = 29500

# --- sizes, defaults ------------------------------------------------------------------------------

DEFAULT_SECURITY_CONTEXT_FS_GROUP: Final = 1000
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS: Final = 60
EPP_TERMINATION_GRACE_PERIOD_SECONDS: Final = 130
KUBE_VALUE_NAME_SHARED_MEMORY: Final = "shared-memory"
DEFAULT_SHARED_MEMORY_MOUNT_PATH: Final = "/dev/shm"
DEFAULT_SHARED_MEMORY_SIZE: Final = "8Gi"
DEFAULT_VLLM_CACHE_MOUNT_POINT: Final = "/root/.cache/vllm"
DEFAULT_INGRESS_SUFFIX: Final = "local"
DEFAULT_ROLLING_UPDATE_MAX_SURGE: Final = "25%"
DEFAULT_ROLLING_UPDATE_MAX_UNAVAILABLE: Final = "25%"
DEFAULT_KAI_SCHEDULER_QUEUE: Final = "dynamo"
MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH: Final = 45
# Kubernetes limits used when naming things.
DNS1123_LABEL_MAX_LENGTH: Final = 63
LABEL_VALUE_MAX_LENGTH: Final = 63

# --- names ----------------------------------------------------------------------------------------

DEFAULT_USER_ID: Final = "default"
DEFAULT_ORG_ID: Final = "default"
GLOBAL_DYNAMO_NAMESPACE: Final = "dynamo"
MAIN_CONTAINER_NAME: Final = "main"
FRONTEND_SIDECAR_CONTAINER_NAME: Final = "sidecar-frontend"
RUNTIME_SIDECAR_CONTAINER_NAME: Final = "runtime"
PLANNER_SERVICE_ACCOUNT_NAME: Final = "planner-serviceaccount"
EPP_SERVICE_ACCOUNT_NAME: Final = "epp-serviceaccount"
EPP_CLUSTER_ROLE_NAME: Final = "epp-cluster-role"
DEFAULT_SERVICE_ACCOUNT_NAME: Final = "default"
K8S_SERVICE_DISCOVERY_SA_SUFFIX: Final = "-k8s-service-discovery"
ROLE_NAME_SUFFIX: Final = "-role"
ROLE_BINDING_NAME_SUFFIX: Final = "-binding"
MODEL_SERVICE_NAME_PREFIX: Final = "dynamo-model-"
EPP_CONFIG_MAP_SUFFIX: Final = "-epp-config"
EPP_CONFIG_FILE_NAME: Final = "epp-config-dynamo.yaml"
EPP_CONFIG_VOLUME_NAME: Final = "epp-config"
EPP_CONFIG_MOUNT_PATH: Final = "/etc/epp"
INFERENCE_POOL_NAME_SUFFIX: Final = "-pool"
HTTP_ROUTE_NAME_SUFFIX: Final = "-route"
LWS_NAME_SUFFIX: Final = "-0"
TOPOLOGY_VOLUME_NAME: Final = "topology-labels"
TOPOLOGY_MOUNT_PATH: Final = "/etc/dynamo/topology"

# --- component types and classes ------------------------------------------------------------------

COMPONENT_TYPE_PLANNER: Final = "planner"
COMPONENT_TYPE_FRONTEND: Final = "frontend"
COMPONENT_TYPE_WORKER: Final = "worker"
COMPONENT_TYPE_PREFILL: Final = "prefill"
COMPONENT_TYPE_DECODE: Final = "decode"
COMPONENT_TYPE_EPP: Final = "epp"
COMPONENT_TYPE_DEFAULT: Final = "default"
COMPONENT_TYPE_LPX: Final = "lpx"
WORKER_COMPONENT_TYPES: Final = frozenset({COMPONENT_TYPE_WORKER, COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE})
COMPONENT_CLASS_WORKER: Final = "worker"

BACKEND_FRAMEWORK_VLLM: Final = "vllm"
BACKEND_FRAMEWORK_SGLANG: Final = "sglang"
BACKEND_FRAMEWORK_TRTLLM: Final = "trtllm"

# --- labels ---------------------------------------------------------------------------------------

KUBE_LABEL_DYNAMO_SELECTOR: Final = "nvidia.com/selector"
KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: Final = "nvidia.com/dynamo-graph-deployment-name"
KUBE_LABEL_DYNAMO_COMPONENT: Final = "nvidia.com/dynamo-component"
KUBE_LABEL_DYNAMO_NAMESPACE: Final = "nvidia.com/dynamo-namespace"
KUBE_LABEL_DYNAMO_COMPONENT_TYPE: Final = "nvidia.com/dynamo-component-type"
KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE: Final = "nvidia.com/dynamo-sub-component-type"
KUBE_LABEL_DYNAMO_COMPONENT_CLASS: Final = "nvidia.com/dynamo-component-class"
KUBE_LABEL_DYNAMO_BASE_MODEL: Final = "nvidia.com/dynamo-base-model"
KUBE_LABEL_DYNAMO_BASE_MODEL_HASH: Final = "nvidia.com/dynamo-base-model-hash"
KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED: Final = "nvidia.com/dynamo-discovery-enabled"
KUBE_LABEL_DYNAMO_WORKER_HASH: Final = "nvidia.com/dynamo-worker-hash"
KUBE_LABEL_DYNAMO_COMPONENT_POD: Final = "nvidia.com/dynamo-component-pod"
KUBE_LABEL_METRICS_ENABLED: Final = "nvidia.com/metrics-enabled"
KUBE_LABEL_KAI_SCHEDULER_QUEUE: Final = "kai.scheduler/queue"
KUBE_LABEL_DYNAMO_TOPOLOGY_PREFIX: Final = "nvidia.com/dynamo-topology."
KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER: Final = "nvidia.com/dynamo-failover-engine-group-member"
KUBE_LABEL_VALUE_TRUE: Final = "true"
KUBE_LABEL_VALUE_FALSE: Final = "false"
# The LWS role label on leader/worker pod templates (dcdWorkloadRoleLabel) and its values.
DCD_WORKLOAD_ROLE_LABEL: Final = "role"
ROLE_LEADER: Final = "leader"
ROLE_WORKER: Final = "worker"
ROLE_MAIN: Final = "main"
LEGACY_LWS_INSTANCE_ID_LABEL: Final = "instance-id"
# Model Service and RBAC bookkeeping labels.
LABEL_MANAGED_BY: Final = "nvidia.com/managed-by"
APP_LABEL_MANAGED_BY: Final = "app.kubernetes.io/managed-by"
APP_LABEL_COMPONENT: Final = "app.kubernetes.io/component"
APP_LABEL_NAME: Final = "app.kubernetes.io/name"
MANAGED_BY_DYNAMO_OPERATOR: Final = "dynamo-operator"
APP_COMPONENT_RBAC: Final = "rbac"
# The EPP objects' graph label key.
LABEL_GRAPH_NAME: Final = "graph-name"

DISCOVERY_BACKEND_KUBERNETES: Final = "kubernetes"
DISCOVERY_BACKEND_ETCD: Final = "etcd"

# --- annotations ----------------------------------------------------------------------------------

KUBE_ANNOTATION_ENABLE_GROVE: Final = "nvidia.com/enable-grove"
KUBE_ANNOTATION_ENABLE_DISAGGREGATED_SET: Final = "nvidia.com/enable-disaggregatedset"
KUBE_ANNOTATION_WORKLOAD_PROVIDER: Final = "nvidia.com/workload-provider"
WORKLOAD_PROVIDER_COMPONENT: Final = "component"
WORKLOAD_PROVIDER_GROVE: Final = "grove"
KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY: Final = "nvidia.com/grove-update-strategy"
KUBE_ANNOTATION_ISTIO_SIDECAR_INJECT: Final = "sidecar.istio.io/inject"
KUBE_ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY: Final = "nvidia.com/disable-image-pull-secret-discovery"
KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE: Final = "nvidia.com/dynamo-kube-discovery-mode"
KUBE_ANNOTATION_GPU_POWER_LIMIT: Final = "dynamo.nvidia.com/gpu-power-limit"
KUBE_ANNOTATION_DYNAMO_BASE_MODEL: Final = "nvidia.com/dynamo-base-model"
KUBE_ANNOTATION_ENABLE_METRICS: Final = "nvidia.com/enable-metrics"
KUBE_ANNOTATION_KAI_SCHEDULER_QUEUE: Final = "nvidia.com/kai-scheduler-queue"
KUBE_ANNOTATION_VOLCANO_QUEUE: Final = "nvidia.com/volcano-queue"
KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION: Final = "nvidia.com/dynamo-operator-origin-version"
KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND: Final = "nvidia.com/vllm-distributed-executor-backend"
KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY: Final = "nvidia.com/topology-label-key"
KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME: Final = "nvidia.com/topology-cluster-topology-name"
KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS: Final = (
    KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY,
    KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME,
)
RESTART_ANNOTATION: Final = "nvidia.com/restartAt"
ANNOTATION_CURRENT_WORKER_HASH: Final = "nvidia.com/current-worker-hash"
ANNOTATION_CURRENT_WORKER_HASH_V2: Final = "nvidia.com/current-worker-hash-v2"
LEGACY_WORKER_HASH: Final = "legacy"
KUBE_ANNOTATION_DEPLOYMENT_STRATEGY: Final = "nvidia.com/deployment-strategy"
KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_SURGE: Final = "nvidia.com/deployment-rolling-update-max-surge"
KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_UNAVAILABLE: Final = (
    "nvidia.com/deployment-rolling-update-max-unavailable"
)
# SyncResource bookkeeping annotations.
ANNOTATION_LAST_APPLIED_HASH: Final = "nvidia.com/last-applied-hash"
ANNOTATION_LAST_APPLIED_GENERATION: Final = "nvidia.com/last-applied-generation"

# Graph annotations copied to every component's podTemplate annotations when unset there.
GRAPH_PROPAGATED_ANNOTATIONS: Final = (
    KUBE_ANNOTATION_ENABLE_METRICS,
    KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND,
    KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
)

# --- environment variables ------------------------------------------------------------------------

ENV_DYNAMO_SERVICE_PORT: Final = "DYNAMO_PORT"
DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR: Final = "DYN_DEPLOYMENT_CONFIG"
DYNAMO_NAMESPACE_ENV_VAR: Final = "DYN_NAMESPACE"
DYNAMO_NAMESPACE_PREFIX_ENV_VAR: Final = "DYN_NAMESPACE_PREFIX"
DYNAMO_NAMESPACE_WORKER_SUFFIX_ENV_VAR: Final = "DYN_NAMESPACE_WORKER_SUFFIX"
DYNAMO_COMPONENT_ENV_VAR: Final = "DYN_COMPONENT"
DYNAMO_DISCOVERY_BACKEND_ENV_VAR: Final = "DYN_DISCOVERY_BACKEND"
ENV_PARENT_DGD_K8S_NAME: Final = "DYN_PARENT_DGD_K8S_NAME"
ENV_PARENT_DGD_K8S_NAMESPACE: Final = "DYN_PARENT_DGD_K8S_NAMESPACE"
ENV_KV_TRANSFER_DOMAIN: Final = "DYN_KV_TRANSFER_DOMAIN"
ENV_KV_TRANSFER_ENFORCEMENT: Final = "DYN_KV_TRANSFER_ENFORCEMENT"
ENV_KV_TRANSFER_PREFERRED_WEIGHT: Final = "DYN_KV_TRANSFER_PREFERRED_WEIGHT"
ENV_TOPOLOGY_ENABLED: Final = "DYN_TOPOLOGY_ENABLED"
ENV_TOPOLOGY_MOUNT_PATH: Final = "DYN_TOPOLOGY_MOUNT_PATH"
KV_TRANSFER_ENFORCEMENT_DEFAULT: Final = "required"
VLLM_NIXL_SIDE_CHANNEL_HOST_ENV_VAR: Final = "VLLM_NIXL_SIDE_CHANNEL_HOST"
VLLM_DP_MASTER_IP_ENV_VAR: Final = "VLLM_DP_MASTER_IP"
POD_IP_ENV_VAR: Final = "POD_IP"

# --- resources, schedulers ------------------------------------------------------------------------

KUBE_RESOURCE_GPU_NVIDIA: Final = "nvidia.com/gpu"
KAI_SCHEDULER_NAME: Final = "kai-scheduler"
VOLCANO_SCHEDULER_NAME: Final = "volcano"
GROVE_ANNOTATION_VOLCANO_QUEUE: Final = "scheduling.grove.io/volcano-queue"
GROVE_ROLE_SUFFIX_LEADER: Final = "ldr"
GROVE_ROLE_SUFFIX_WORKER: Final = "wkr"
GROVE_ROLE_SUFFIX_GMS: Final = "gms"

# --- deployment strategy values -------------------------------------------------------------------

DEPLOYMENT_STRATEGY_ROLLING_UPDATE: Final = "RollingUpdate"
DEPLOYMENT_STRATEGY_RECREATE: Final = "Recreate"
