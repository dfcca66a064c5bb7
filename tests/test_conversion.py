"""v1alpha1 -> v1beta1 conversion follows the conversion webhook (api-and-validation.md section 8)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from dynamo_pulumi.api.conversion import (
    DGD_SPEC_ANNOTATION,
    convert,
    parse_alpha,
    preserved_alpha_spec,
)
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_graph_entry, validate_loaded


def alpha_dgd(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ns"},
        "spec": {"services": services, **spec},
    }


def converted(services: dict[str, Any], **spec: Any) -> DynamoGraphDeployment:
    obj = convert(parse_alpha(alpha_dgd(services, **spec))).object
    assert isinstance(obj, DynamoGraphDeployment)
    return obj


def component(services: dict[str, Any], name: str, **spec: Any) -> dict[str, Any]:
    comp = converted(services, **spec).spec.component(name)
    assert comp is not None
    return comp.to_wire()


def main_of(comp: dict[str, Any]) -> dict[str, Any]:
    return comp["podTemplate"]["spec"]["containers"][0]


IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def test_services_map_becomes_components_sorted_by_name() -> None:
    obj = converted({"Worker": {}, "Frontend": {}, "Decode": {}})
    assert [c.name for c in obj.components] == ["Decode", "Frontend", "Worker"]


def test_map_key_wins_over_alpha_service_name() -> None:
    obj = converted({"Frontend": {"serviceName": "other"}})
    assert obj.components[0].name == "Frontend"


def test_result_is_v1beta1() -> None:
    wire = converted({"Frontend": {}}).to_wire()
    assert wire["apiVersion"] == "nvidia.com/v1beta1"
    assert "services" not in wire["spec"]


def test_graph_envs_become_env() -> None:
    obj = converted({}, envs=[{"name": "A", "value": "1"}])
    assert obj.spec.env == [{"name": "A", "value": "1"}]


def test_topology_profile_becomes_cluster_topology_name() -> None:
    obj = converted({}, topologyConstraint={"topologyProfile": "gb200", "packDomain": "rack"})
    assert obj.spec.topology_constraint is not None
    assert obj.spec.topology_constraint.to_wire() == {"clusterTopologyName": "gb200", "packDomain": "rack"}


def test_worker_with_prefill_sub_type_becomes_prefill_type() -> None:
    comp = component({"P": {"componentType": "worker", "subComponentType": "prefill"}}, "P")
    assert comp["type"] == "prefill"


def test_other_sub_component_type_is_preserved_not_promoted() -> None:
    obj = converted({"W": {"componentType": "worker", "subComponentType": "custom"}})
    assert obj.components[0].type == "worker"
    preserved = preserved_alpha_spec(obj)
    assert preserved is not None and preserved.services is not None
    assert preserved.services["W"].sub_component_type == "custom"


def test_component_type_outside_beta_enum_is_kept() -> None:
    comp = component({"W": {"componentType": "main"}}, "W")
    assert comp["type"] == "main"


def test_main_container_is_built_from_dedicated_fields() -> None:
    comp = component(
        {
            "W": {
                "envs": [{"name": "A", "value": "1"}],
                "envFromSecret": "hf",
                "livenessProbe": {"httpGet": {"path": "/live", "port": 9090}},
                "resources": {"limits": {"gpu": "2", "cpu": "4"}, "requests": {"memory": "8Gi"}},
                "volumeMounts": [{"name": "cache", "mountPoint": "/cache"}],
            }
        },
        "W",
    )
    main = main_of(comp)
    assert main["name"] == "main"
    assert main["env"] == [{"name": "A", "value": "1"}]
    assert main["envFrom"] == [{"secretRef": {"name": "hf"}}]
    assert main["livenessProbe"] == {"httpGet": {"path": "/live", "port": 9090}}
    assert main["resources"] == {"limits": {"cpu": "4", "nvidia.com/gpu": "2"}, "requests": {"memory": "8Gi"}}
    assert main["volumeMounts"] == [{"name": "cache", "mountPath": "/cache"}]


def test_gpu_type_names_the_gpu_resource_key() -> None:
    comp = component({"W": {"resources": {"limits": {"gpu": "1", "gpuType": "amd.com/gpu"}}}}, "W")
    assert main_of(comp)["resources"] == {"limits": {"amd.com/gpu": "1"}}


def test_custom_resources_are_copied_and_unparsable_quantities_dropped() -> None:
    comp = component(
        {"W": {"resources": {"limits": {"cpu": "lots", "custom": {"rdma/ib": "1", "bad/res": "x"}}}}}, "W"
    )
    assert main_of(comp)["resources"] == {"limits": {"rdma/ib": "1"}}


def test_main_container_overrides_dedicated_fields_and_env_is_additive() -> None:
    comp = component(
        {
            "W": {
                "envs": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 1}},
                "extraPodSpec": {
                    "mainContainer": {
                        "name": "ignored",
                        "image": IMAGE,
                        "env": [{"name": "B", "value": "override"}, {"name": "C", "value": "3"}],
                        "readinessProbe": {"httpGet": {"port": 2}},
                        "startupProbe": {"exec": {"command": ["true"]}},
                    }
                },
            }
        },
        "W",
    )
    main = main_of(comp)
    assert main["name"] == "main"
    assert main["image"] == IMAGE
    assert main["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "override"},
        {"name": "C", "value": "3"},
    ]
    assert main["readinessProbe"] == {"httpGet": {"path": "/ready", "port": 2}}
    assert main["startupProbe"] == {"exec": {"command": ["true"]}}


def test_main_container_mounts_come_before_dedicated_mounts() -> None:
    comp = component(
        {
            "W": {
                "volumeMounts": [{"name": "pvc", "mountPoint": "/models"}],
                "extraPodSpec": {"mainContainer": {"image": IMAGE, "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}},
            }
        },
        "W",
    )
    assert main_of(comp)["volumeMounts"] == [
        {"name": "cfg", "mountPath": "/cfg"},
        {"name": "pvc", "mountPath": "/models"},
    ]


def test_main_is_placed_first_and_other_containers_kept_as_sidecars() -> None:
    comp = component(
        {
            "W": {
                "extraPodSpec": {
                    "containers": [{"name": "logger", "image": "busybox"}, {"name": "main", "image": "dropped"}],
                    "mainContainer": {"image": IMAGE},
                    "nodeSelector": {"gpu": "h100"},
                }
            }
        },
        "W",
    )
    spec = comp["podTemplate"]["spec"]
    assert [c["name"] for c in spec["containers"]] == ["main", "logger"]
    assert spec["containers"][0]["image"] == IMAGE
    assert spec["nodeSelector"] == {"gpu": "h100"}


def test_extra_pod_metadata_becomes_pod_template_metadata() -> None:
    comp = component({"W": {"extraPodMetadata": {"annotations": {"a": "1"}, "labels": {"l": "2"}}}}, "W")
    assert comp["podTemplate"]["metadata"] == {"annotations": {"a": "1"}, "labels": {"l": "2"}}


def test_no_pod_content_means_no_pod_template() -> None:
    comp = component({"W": {"replicas": 2}}, "W")
    assert "podTemplate" not in comp
    assert comp["replicas"] == 2


def test_frontend_sidecar_becomes_named_container_and_reference() -> None:
    comp = component(
        {
            "W": {
                "frontendSidecar": {
                    "image": "fe:1.4.0",
                    "args": ["--http-port", "8000"],
                    "envFromSecret": "hf",
                    "envs": [{"name": "X", "value": "y"}],
                }
            }
        },
        "W",
    )
    assert comp["frontendSidecar"] == "sidecar-frontend"
    sidecar = comp["podTemplate"]["spec"]["containers"][-1]
    assert sidecar == {
        "name": "sidecar-frontend",
        "image": "fe:1.4.0",
        "args": ["--http-port", "8000"],
        "env": [{"name": "X", "value": "y"}],
        "envFrom": [{"secretRef": {"name": "hf"}}],
    }


def test_first_compilation_cache_mount_becomes_compilation_cache() -> None:
    comp = component(
        {
            "W": {
                "volumeMounts": [
                    {"name": "models", "mountPoint": "/models"},
                    {"name": "cc", "mountPoint": "/cc", "useAsCompilationCache": True},
                    {"name": "cc2", "mountPoint": "/cc2", "useAsCompilationCache": True},
                ]
            }
        },
        "W",
    )
    assert comp["compilationCache"] == {"pvcName": "cc", "mountPath": "/cc"}


def test_disabled_shared_memory_becomes_zero_size() -> None:
    assert component({"W": {"sharedMemory": {"disabled": True}}}, "W")["sharedMemorySize"] == "0"


def test_shared_memory_size_is_copied() -> None:
    assert component({"W": {"sharedMemory": {"size": "16Gi"}}}, "W")["sharedMemorySize"] == "16Gi"


def test_scaling_adapter_enabled_becomes_presence_and_disabled_absence() -> None:
    obj = converted({"On": {"scalingAdapter": {"enabled": True}}, "Off": {"scalingAdapter": {"enabled": False}}})
    on, off = obj.spec.component("On"), obj.spec.component("Off")
    assert on is not None and on.to_wire()["scalingAdapter"] == {}
    assert off is not None and off.scaling_adapter is None


def test_enabled_gms_and_failover_move_under_experimental_with_beta_modes() -> None:
    comp = component(
        {
            "W": {
                "gpuMemoryService": {"enabled": True, "mode": "interPod"},
                "failover": {"enabled": True, "mode": "intraPod", "numShadows": 1},
            }
        },
        "W",
    )
    assert comp["experimental"] == {
        "gpuMemoryService": {"mode": "InterPod"},
        "failover": {"mode": "IntraPod", "numShadows": 1},
    }


def test_disabled_gms_is_absent_and_preserved() -> None:
    obj = converted({"W": {"gpuMemoryService": {"enabled": False}}})
    assert obj.components[0].experimental is None
    preserved = preserved_alpha_spec(obj)
    assert preserved is not None and preserved.services is not None
    gms = preserved.services["W"].gpu_memory_service
    assert gms is not None and gms.enabled is False


def test_checkpoint_without_enabled_converts_with_enabled_false() -> None:
    comp = component({"W": {"checkpoint": {"checkpointRef": "ckpt"}}}, "W")
    assert comp["experimental"]["checkpoint"] == {"enabled": False, "checkpointRef": "ckpt"}


def test_alpha_only_data_is_preserved_in_the_conversion_annotation() -> None:
    obj = converted(
        {
            "Frontend": {
                "annotations": {"a": "1"},
                "labels": {"l": "2"},
                "dynamoNamespace": "old",
                "ingress": {"enabled": True, "host": "x"},
                "autoscaling": {"enabled": True, "minReplicas": 1},
            }
        },
        pvcs=[{"name": "model-cache", "create": False}],
    )
    envelope = json.loads(obj.annotations[DGD_SPEC_ANNOTATION])
    assert envelope["version"] == 1
    assert envelope["spec"]["pvcs"] == [{"name": "model-cache", "create": False}]
    assert envelope["spec"]["services"]["Frontend"] == {
        "dynamoNamespace": "old",
        "autoscaling": {"enabled": True, "minReplicas": 1},
        "ingress": {"enabled": True, "host": "x"},
        "annotations": {"a": "1"},
        "labels": {"l": "2"},
    }


def test_no_alpha_only_data_means_no_conversion_annotation() -> None:
    obj = converted({"Frontend": {"replicas": 1}})
    assert DGD_SPEC_ANNOTATION not in obj.annotations


def test_preserved_alpha_spec_reads_the_annotation_back() -> None:
    preserved = preserved_alpha_spec(converted({"F": {"labels": {"team": "a"}}}))
    assert preserved is not None and preserved.services is not None
    assert preserved.services["F"].labels == {"team": "a"}


def test_path_map_sends_main_image_to_main_container_image() -> None:
    conv = convert(parse_alpha(alpha_dgd({"A": {}, "Worker": {"extraPodSpec": {"mainContainer": {"image": IMAGE}}}})))
    assert conv.path_map.alpha_path("spec.components[1].podTemplate.spec.containers[0].image") == (
        "spec.services[Worker].extraPodSpec.mainContainer.image"
    )


@pytest.mark.parametrize(
    ("beta", "alpha"),
    [
        ("spec.components[0].replicas", "spec.services[W].replicas"),
        ("spec.components[0].podTemplate.spec.containers[0].env[1]", "spec.services[W].envs[1]"),
        ("spec.components[0].podTemplate.spec.containers[0].resources.limits", "spec.services[W].resources.limits"),
        ("spec.components[0].podTemplate.spec.volumes[0]", "spec.services[W].extraPodSpec.volumes[0]"),
        ("spec.components[0].sharedMemorySize", "spec.services[W].sharedMemory.size"),
        ("spec.components[0].compilationCache.pvcName", "spec.services[W].volumeMounts[0].name"),
        ("spec.env[0]", "spec.envs[0]"),
    ],
)
def test_path_map_follows_each_converted_field(beta: str, alpha: str) -> None:
    services = {
        "W": {
            "replicas": 1,
            "envs": [{"name": "A"}, {"name": "B"}],
            "resources": {"limits": {"cpu": "1"}},
            "extraPodSpec": {"volumes": [{"name": "v"}]},
            "sharedMemory": {"size": "1Gi"},
            "volumeMounts": [{"name": "cc", "mountPoint": "/cc", "useAsCompilationCache": True}],
        }
    }
    conv = convert(parse_alpha(alpha_dgd(services, envs=[{"name": "G"}])))
    assert conv.path_map.alpha_path(beta) == alpha


def test_dcd_name_falls_back_to_object_name() -> None:
    data = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "my-dcd"},
        "spec": {"componentType": "frontend", "backendFramework": "vllm"},
    }
    obj = convert(parse_alpha(data)).object
    assert isinstance(obj, DynamoComponentDeployment)
    assert obj.spec.name == "my-dcd"
    assert obj.spec.backend_framework == "vllm"
    assert obj.spec.type == "frontend"


def test_scaling_adapter_service_name_becomes_component_name() -> None:
    data = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {"name": "sa"},
        "spec": {"replicas": 2, "dgdRef": {"name": "g", "serviceName": "Worker"}},
    }
    obj = convert(parse_alpha(data)).object
    assert obj.to_wire()["spec"] == {"replicas": 2, "dgdRef": {"name": "g", "componentName": "Worker"}}


def test_service_name_invalid_for_beta_is_reported_at_the_alpha_key() -> None:
    with pytest.raises(GraphValidationError) as info:
        convert(parse_alpha(alpha_dgd({"bad_name": {}})))
    assert [e.path for e in info.value.errors] == ["spec.services[bad_name]"]


def test_conversion_is_deterministic() -> None:
    data = alpha_dgd({"B": {"labels": {"x": "1"}}, "A": {"envs": [{"name": "E"}]}}, pvcs=[{"name": "p"}])
    assert convert(parse_alpha(data)).object.to_wire() == convert(parse_alpha(data)).object.to_wire()


def test_resource_quantities_are_canonicalized_like_go() -> None:
    comp = component({"W": {"resources": {"limits": {"cpu": "1000m", "memory": "0.5Gi"}}}}, "W")
    assert main_of(comp)["resources"] == {"limits": {"cpu": "1", "memory": "512Mi"}}


def test_shared_memory_size_is_canonicalized_and_zero_dropped() -> None:
    assert component({"W": {"sharedMemory": {"size": "1024Mi"}}}, "W")["sharedMemorySize"] == "1Gi"


def test_empty_multinode_gets_the_crd_default_node_count() -> None:
    assert component({"W": {"componentType": "worker", "multinode": {}}}, "W")["multinode"] == {"nodeCount": 2}


def test_duplicate_alpha_envs_are_kept_as_go_merges_them() -> None:
    comp = component({"W": {"envs": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
                            "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}, "W")
    assert main_of(comp)["env"] == [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]


def test_main_container_env_replaces_the_latest_duplicate() -> None:
    comp = component({"W": {"envs": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
                            "extraPodSpec": {"mainContainer": {"image": IMAGE, "env": [{"name": "A", "value": "3"}]}}}},
                     "W")
    assert main_of(comp)["env"] == [{"name": "A", "value": "1"}, {"name": "A", "value": "3"}]


def test_main_container_and_sidecar_quantities_are_canonicalized_too() -> None:
    comp = component(
        {"W": {"extraPodSpec": {
            "mainContainer": {"image": IMAGE, "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "1024Mi"}}},
            "containers": [{"name": "log", "image": "b", "resources": {"requests": {"cpu": "500m", "x": "__dynamo_pulumi_output_00000000000a__"}}}],
        }}},
        "W",
    )
    containers = comp["podTemplate"]["spec"]["containers"]
    assert containers[0]["resources"] == {"limits": {"nvidia.com/gpu": "1", "memory": "1Gi"}}
    assert containers[1]["resources"] == {"requests": {"cpu": "500m", "x": "__dynamo_pulumi_output_00000000000a__"}}


# --- the converter's own path records ---------------------------------------------------------

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")

RICH_SERVICES: dict[str, Any] = {
    "W": {
        "componentType": "worker", "subComponentType": "prefill", "replicas": 2, "minAvailable": 1,
        "envs": [{"name": "A", "value": "1"}, {"name": "B", "value": "1"}], "envFromSecret": "sec",
        "resources": {"limits": {"cpu": "1", "gpu": "1"}, "requests": {"memory": "1Gi"}},
        "livenessProbe": {"httpGet": {"port": 8000}}, "readinessProbe": {"httpGet": {"port": 8000}},
        "volumeMounts": [{"name": "cc", "mountPoint": "/cc", "useAsCompilationCache": True},
                         {"name": "m", "mountPoint": "/m"}],
        "sharedMemory": {"size": "1Gi"},
        "extraPodMetadata": {"annotations": {"a": "b"}, "labels": {"l": "v"}},
        "extraPodSpec": {
            "mainContainer": {"image": IMAGE, "args": ["--x"], "volumeMounts": [{"name": "x", "mountPath": "/x"}],
                              "env": [{"name": "B", "value": "2"}, {"name": "C", "value": "3"}]},
            "initContainers": [{"name": "runtime", "image": "rt:1.5.0", "restartPolicy": "Always"}],
            "containers": [{"name": "logger", "image": "busybox"}],
            "volumes": [{"name": "x"}],
        },
        "gpuMemoryService": {"enabled": True}, "failover": {"enabled": True, "mode": "interPod"},
        "checkpoint": {"enabled": False},
    },
    "F": {
        "componentType": "frontend", "sharedMemory": {"disabled": True},
        "frontendSidecar": {"image": "f:1", "envs": [{"name": "E", "value": "v"}], "envFromSecret": "s"},
        "extraPodSpec": {"mainContainer": {"image": IMAGE}},
    },
}


def _resolves(data: Any, path: str) -> bool:
    """Does the wire path (``a.b[key][0]``) name something present in ``data``?"""
    for match in _PATH_TOKEN.finditer(path):
        name, key = match.groups()
        try:
            if name is not None:
                data = data[name]
            elif isinstance(data, list):
                data = data[int(key)]
            else:
                data = data[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return False
    return True


def _leaf_paths(data: Any, path: str) -> list[str]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _leaf_paths(v, f"{path}[{k}]" if "." in k else f"{path}.{k}")]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _leaf_paths(v, f"{path}[{i}]")]
    return [path]


def test_every_recorded_beta_path_maps_back_to_the_alpha_field_it_came_from() -> None:
    source = alpha_dgd(RICH_SERVICES, envs=[{"name": "G", "value": "1"}], topologyConstraint={"topologyProfile": "p"})
    conv = convert(parse_alpha(source))
    beta_wire = conv.object.to_wire()
    assert len(conv.path_map) > 40
    for beta, alpha in conv.path_map.items():
        assert conv.path_map.alpha_path(beta) == alpha
        assert _resolves(beta_wire, beta), beta
        assert _resolves(source, alpha), (beta, alpha)


def test_every_converted_component_path_maps_into_its_own_service() -> None:
    conv = convert(parse_alpha(alpha_dgd(RICH_SERVICES)))
    for i, comp in enumerate(conv.object.to_wire()["spec"]["components"]):
        for beta in _leaf_paths(comp, f"spec.components[{i}]"):
            assert conv.path_map.alpha_path(beta).startswith(f"spec.services[{comp['name']}]"), beta


def test_merged_env_entries_map_to_where_each_was_written() -> None:
    conv = convert(parse_alpha(alpha_dgd(RICH_SERVICES)))
    env = "spec.components[1].podTemplate.spec.containers[0].env"
    assert [conv.path_map.alpha_path(f"{env}[{i}]") for i in range(3)] == [
        "spec.services[W].envs[0]",
        "spec.services[W].extraPodSpec.mainContainer.env[0]",  # B replaced in place
        "spec.services[W].extraPodSpec.mainContainer.env[1]",
    ]


def test_init_container_paths_map_to_extra_pod_spec_init_containers() -> None:
    conv = convert(parse_alpha(alpha_dgd(RICH_SERVICES)))
    assert conv.path_map.alpha_path("spec.components[1].podTemplate.spec.initContainers[0].image") == (
        "spec.services[W].extraPodSpec.initContainers[0].image"
    )


def test_component_type_main_is_copied_verbatim_as_the_operator_does() -> None:
    # shared_spec_conversion.go: ComponentType(src.ComponentType), no alias; only worker +
    # prefill/decode is rewritten. The beta enum is not applied to a converted object.
    comp = component({"W": {"componentType": "main", "subComponentType": "prefill",
                            "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}, "W")
    assert comp["type"] == "main"
    data = alpha_dgd({"W": {"componentType": "main", "extraPodSpec": {"mainContainer": {"image": IMAGE}}}},
                     backendFramework="trtllm")
    assert validate_loaded(load_graph_entry(data)).errors == []
