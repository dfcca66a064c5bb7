"""v1alpha1 admission: the alpha CRD's CEL rules and the webhook's compatibility pass (4.6),
reported at alpha paths."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.conversion import parse_alpha
from dynamo_pulumi.api.v1alpha1 import ALPHA_API_VERSION
from dynamo_pulumi.api.v1alpha1 import DynamoGraphDeployment as AlphaDGD
from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.cli import main as cli_main
from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError
from dynamo_pulumi.loading.documents import alpha_rule_path, load_graph_entry, validate_loaded
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation import validate, validate_update
from dynamo_pulumi.validation.alpha import alpha_compat_findings, alpha_schema_errors

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def worker(**extra: Any) -> dict[str, Any]:
    return {"componentType": "worker", "extraPodSpec": {"mainContainer": {"image": IMAGE}}, **extra}


def alpha_dgd(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "graph", "namespace": "team"},
        "spec": {"backendFramework": "vllm", "services": services, **spec},
    }


def cel(services: dict[str, Any], **spec: Any) -> list[str]:
    return [str(e) for e in alpha_schema_errors(parse_alpha(alpha_dgd(services, **spec)))]


def compat(services: dict[str, Any], **spec: Any) -> tuple[list[FieldError], list[str]]:
    obj = parse_alpha(alpha_dgd(services, **spec))
    assert isinstance(obj, AlphaDGD)
    found = alpha_compat_findings(obj, "team")
    return found.errors, found.warnings


# --- CEL ----------------------------------------------------------------------------------------


def test_shared_memory_enabled_without_size_is_invalid() -> None:
    assert cel({"W": worker(sharedMemory={"disabled": False})}) == [
        'spec.services[W].sharedMemory: Invalid value: "object": size is required when disabled is false'
    ]


def test_shared_memory_zero_size_is_invalid() -> None:
    assert len(cel({"W": worker(sharedMemory={"size": "0"})})) == 1


def test_shared_memory_disabled_needs_no_size() -> None:
    assert cel({"W": worker(sharedMemory={"disabled": True})}) == []


def test_min_available_above_replicas_is_invalid() -> None:
    assert cel({"W": worker(replicas=1, minAvailable=2)}) == [
        'spec.services[W]: Invalid value: "object": '
        "minAvailable must be less than or equal to replicas unless replicas is 0"
    ]


def test_min_available_with_zero_replicas_is_allowed() -> None:
    assert cel({"W": worker(replicas=0, minAvailable=2)}) == []


def test_min_available_is_immutable_on_update() -> None:
    old = parse_alpha(alpha_dgd({"W": worker(replicas=3, minAvailable=1)}))
    new = parse_alpha(alpha_dgd({"W": worker(replicas=3, minAvailable=2)}))
    errors = [str(e) for e in alpha_schema_errors(new, old)]
    assert errors == ['spec.services[W]: Invalid value: "object": minAvailable is immutable after creation']


def test_restart_is_refused_on_create_only() -> None:
    data = alpha_dgd({"W": worker()}, restart={"id": "r1"})
    assert len(alpha_schema_errors(parse_alpha(data))) == 1
    assert alpha_schema_errors(parse_alpha(data), on_create=False) == []
    assert alpha_schema_errors(parse_alpha(data), old=parse_alpha(data)) == []


def test_more_than_25_services_is_too_many() -> None:
    services = {f"s{i:02d}": {} for i in range(26)}
    errors = alpha_schema_errors(parse_alpha(alpha_dgd(services)))
    assert [str(e) for e in errors] == ["spec.services: Too many: 26: must have at most 25 items"]


def test_gms_client_containers_need_intra_pod_mode() -> None:
    gms = {"enabled": True, "mode": "interPod", "extraClientContainers": ["helper"]}
    assert cel({"W": worker(gpuMemoryService=gms)}) == [
        'spec.services[W].gpuMemoryService: Invalid value: "object": '
        "extraClientContainers is only supported with mode=intraPod"
    ]


def test_gms_client_containers_allowed_with_defaulted_intra_pod_mode() -> None:
    assert cel({"W": worker(gpuMemoryService={"enabled": True, "extraClientContainers": ["helper"]})}) == []


def test_checkpoint_job_with_checkpoint_ref_is_invalid() -> None:
    errors = cel({"W": worker(checkpoint={"enabled": True, "checkpointRef": "c", "job": {}})})
    assert errors == [
        'spec.services[W].checkpoint: Invalid value: "object": checkpoint.job cannot be set when checkpointRef is specified'
    ]


def test_kv_transfer_policy_needs_exactly_one_source() -> None:
    errors = cel({}, experimental={"kvTransferPolicy": {"domain": "rack"}})
    assert errors == [
        'spec.experimental.kvTransferPolicy: Invalid value: "object": '
        "exactly one of labelKey or clusterTopologyName is required"
    ]


# --- compatibility pass ------------------------------------------------------------------------


def test_pvc_without_name_is_required() -> None:
    errors, _ = compat({}, pvcs=[{"name": ""}])
    assert [str(e) for e in errors] == ["spec.pvcs[0].name: Required value: is required"]


def test_volume_mount_without_mount_point_is_required_unless_cache() -> None:
    errors, _ = compat({"W": worker(volumeMounts=[{"name": "a"}, {"name": "cc", "useAsCompilationCache": True}])})
    assert [str(e) for e in errors] == [
        "spec.services[W].volumeMounts[0].mountPoint: Required value: is required when useAsCompilationCache is false"
    ]


def test_enabled_ingress_needs_host() -> None:
    errors, _ = compat({"F": {"componentType": "frontend", "ingress": {"enabled": True}}})
    assert [str(e) for e in errors] == ["spec.services[F].ingress.host: Required value: is required when ingress is enabled"]


def test_disabled_ingress_needs_no_host() -> None:
    errors, _ = compat({"F": {"componentType": "frontend", "ingress": {"enabled": False}}})
    assert errors == []


def test_vllm_backend_annotation_must_be_mp_or_ray() -> None:
    annotations = {"nvidia.com/vllm-distributed-executor-backend": "nccl"}
    errors, _ = compat({"W": worker(annotations=annotations)})
    assert [str(e) for e in errors] == [
        'spec.services[W].annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "nccl": '
        'must be "mp" or "ray"'
    ]


def test_vllm_backend_annotation_is_case_insensitive() -> None:
    errors, _ = compat({"W": worker(annotations={"nvidia.com/vllm-distributed-executor-backend": "Ray"})})
    assert errors == []


def test_epp_config_needs_exactly_one_source() -> None:
    errors, _ = compat({"E": {"componentType": "epp", "eppConfig": {}}})
    assert [str(e) for e in errors] == [
        "spec.services[E].eppConfig: Forbidden: exactly one of configMapRef or config is required"
    ]


def test_frontend_sidecar_conflicts_with_existing_sidecar_container() -> None:
    svc = worker(frontendSidecar={"image": "fe"})
    svc["extraPodSpec"]["containers"] = [{"name": "sidecar-frontend", "image": "x"}]
    errors, _ = compat({"W": svc})
    assert [e.path for e in errors] == ["spec.services[W].frontendSidecar"]
    assert errors[0].type is ErrorType.FORBIDDEN


def test_intra_pod_failover_with_more_shadows_is_invalid() -> None:
    errors, _ = compat({"W": worker(failover={"enabled": True, "numShadows": 2})})
    assert [str(e) for e in errors] == [
        'spec.services[W].failover.numShadows: Invalid value: 2: is invalid for mode="intraPod": intraPod uses a '
        'fixed 1 primary + 1 shadow sidecar; use failover.mode="interPod" to configure numShadows'
    ]


def test_dynamo_namespace_warns_with_the_value_that_replaces_it() -> None:
    _, warnings = compat({"W": worker(dynamoNamespace="legacy")})
    assert warnings == [
        'spec.services[W].dynamoNamespace is deprecated and ignored. Value "legacy" will be replaced with '
        '"team-graph". Remove this field from your configuration'
    ]


def test_autoscaling_warns_deprecated() -> None:
    _, warnings = compat({"W": worker(autoscaling={"enabled": True})})
    assert len(warnings) == 1 and warnings[0].startswith("spec.services[W].autoscaling is deprecated and ignored.")


# --- whole admission of an alpha request ------------------------------------------------------


def test_placeholder_image_needs_override_at_alpha_path() -> None:
    data = alpha_dgd({"W": {"componentType": "worker", "extraPodSpec": {"mainContainer": {"image": "vllm:my-tag"}}}})
    found = validate_loaded(load_graph_entry(data))
    assert [str(e) for e in found.errors] == [
        "spec.services[W].runtimeVersionOverride: Required value: "
        "is required when the specified main container image has no parseable semantic-version tag"
    ]


def test_missing_image_is_required_at_main_container_image() -> None:
    found = validate_loaded(load_graph_entry(alpha_dgd({"W": {"componentType": "worker"}})))
    assert "spec.services[W].extraPodSpec.mainContainer.image: Required value: is required" in [
        str(e) for e in found.errors
    ]


def test_valid_alpha_graph_has_no_errors_but_keeps_warnings() -> None:
    data = alpha_dgd({"Frontend": {"componentType": "frontend", "dynamoNamespace": "x",
                                   "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
                      "W": worker()})
    found = validate_loaded(load_graph_entry(data))
    assert found.errors == []
    assert any("dynamoNamespace is deprecated" in w for w in found.warnings)


def test_compat_errors_follow_webhook_errors() -> None:
    data = alpha_dgd({"W": worker(volumeMounts=[{"name": "a"}])}, pvcs=[{"name": ""}])
    data["spec"]["services"]["W"]["extraPodSpec"]["mainContainer"]["image"] = "vllm:latest"
    paths = [e.path for e in validate_loaded(load_graph_entry(data)).errors]
    assert paths == [
        "spec.services[W].runtimeVersionOverride",
        "spec.pvcs[0].name",
        "spec.services[W].volumeMounts[0].mountPoint",
    ]


def test_restart_on_create_is_the_alpha_cel_error_alone() -> None:
    data = alpha_dgd({"W": {"componentType": "worker"}}, restart={"id": "r"})
    found = validate_loaded(load_graph_entry(data))
    assert [str(e) for e in found.errors] == [
        'spec: Invalid value: "object": spec.restart must be unset on create; '
        "set spec.restart.id after creation to request a restart"
    ]


def test_beta_object_with_preserved_alpha_data_gets_the_compat_pass() -> None:
    alpha_entry = load_graph_entry(alpha_dgd({"F": {"componentType": "frontend", "ingress": {"enabled": True},
                                                   "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}))
    beta_wire = copy.deepcopy(alpha_entry.object.to_wire())
    found = validate_loaded(load_graph_entry(beta_wire))
    assert "spec.services[F].ingress.host" in [e.path for e in found.errors]


@pytest.mark.parametrize("ns", ["team", None])
def test_namespace_defaults_to_metadata_namespace(ns: str | None) -> None:
    found = validate_loaded(load_graph_entry(alpha_dgd({"W": worker(dynamoNamespace="x")})), namespace=ns)
    assert '"team-graph"' in found.warnings[0]


def test_epp_runtime_contract_errors_are_reported_at_alpha_paths() -> None:
    data = alpha_dgd({
        "legacy": {"componentType": "epp", "extraPodSpec": {"mainContainer": {"image": "x/epp:1.4.0"}}},
        "native": {"componentType": "epp", "eppConfig": {"config": {"plugins": [], "schedulingProfiles": []}},
                   "extraPodSpec": {"mainContainer": {"image": "x/epp:1.5.0"}}},
    })
    found = validate_loaded(load_graph_entry(data))
    assert [str(e) for e in found.errors] == [
        "spec.services[legacy].eppConfig: Required value: "
        "is required for legacy Go EPP images with runtime version earlier than 1.5.0",
        "spec.services[native].eppConfig: Forbidden: "
        "must be omitted for native Rust EPP images with runtime version 1.5.0 or later",
    ]


def test_alpha_request_is_not_held_to_beta_only_cel_rules() -> None:
    # "at most one component may have type epp" is a v1beta1 CRD rule; the alpha CRD has none.
    data = alpha_dgd({
        "a": {"componentType": "epp", "extraPodSpec": {"mainContainer": {"image": "x/epp:1.5.0"}}},
        "b": {"componentType": "epp", "extraPodSpec": {"mainContainer": {"image": "x/epp:1.5.0"}}},
    })
    errors = [str(e) for e in validate_loaded(load_graph_entry(data)).errors]
    assert not any("at most one component may have type epp" in e for e in errors)


# --- audit fixes: PVC CEL, preserved alpha data in validate()/validate_update(), alpha updates ---


def test_pvc_create_needs_size_storage_class_and_access_mode() -> None:
    message = (
        'Invalid value: "object": When create is true, size, storageClass, and volumeAccessMode are required'
    )
    assert cel({"W": worker()}, pvcs=[{"name": "a", "create": True}]) == [f"spec.pvcs[0]: {message}"]
    assert cel({"W": worker()}, pvcs=[{"name": "a", "create": True, "size": "1Gi", "storageClass": "s"}]) == [
        f"spec.pvcs[0]: {message}"
    ]
    complete = {"name": "a", "create": True, "size": "1Gi", "storageClass": "s", "volumeAccessMode": "RWX"}
    assert cel({"W": worker()}, pvcs=[{"name": "b"}, {"name": "c", "create": False}, complete]) == []


def test_pvc_create_rule_refuses_the_alpha_request_at_load() -> None:
    with pytest.raises(GraphValidationError) as info:
        load_graph_entry(alpha_dgd({"W": worker()}, pvcs=[{"name": "a", "create": True}]))
    assert [e.path for e in info.value.errors] == ["spec.pvcs[0]"]


def beta_with_preserved(services: dict[str, Any], **spec: Any) -> DynamoGraphDeployment:
    """The v1beta1 object the API server stores for an alpha graph (annotation included)."""
    obj = load_graph_entry(alpha_dgd(services, **spec)).object
    assert isinstance(obj, DynamoGraphDeployment)
    return DynamoGraphDeployment.model_validate(copy.deepcopy(obj.to_wire()))


def frontend(**extra: Any) -> dict[str, Any]:
    return {"componentType": "frontend", "extraPodSpec": {"mainContainer": {"image": IMAGE}}, **extra}


def test_validate_runs_the_compat_pass_on_preserved_alpha_data() -> None:
    obj = beta_with_preserved({"F": frontend(ingress={"enabled": True}, dynamoNamespace="x")})
    found = validate(obj)
    assert [str(e) for e in found.errors] == [
        "spec.services[F].ingress.host: Required value: is required when ingress is enabled"
    ]
    assert [w for w in found.warnings if "dynamoNamespace" in w] == [
        'spec.services[F].dynamoNamespace is deprecated and ignored. Value "x" will be replaced with '
        '"team-graph". Remove this field from your configuration'
    ]


def test_validate_update_runs_the_compat_pass_on_preserved_alpha_data() -> None:
    old = beta_with_preserved({"F": frontend(ingress={"enabled": False})})
    new = beta_with_preserved({"F": frontend(ingress={"enabled": True}, autoscaling={"enabled": True})})
    found = validate_update(old, new)
    assert [e.path for e in found.errors] == ["spec.services[F].ingress.host"]
    assert any(w.startswith("spec.services[F].autoscaling is deprecated") for w in found.warnings)


def test_validate_update_of_a_dcd_runs_the_compat_pass() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "team"},
        "spec": {"backendFramework": "vllm", **frontend(ingress={"enabled": True})},
    }
    old = load_graph_entry(dcd).object
    new = load_graph_entry(copy.deepcopy(dcd)).object
    assert "spec.ingress.host" in [e.path for e in validate_update(old, new).errors]


def test_compat_pass_is_not_reported_twice_by_validate_loaded() -> None:
    beta_wire = beta_with_preserved(
        {"F": frontend(ingress={"enabled": True}, dynamoNamespace="x")}, pvcs=[{"name": ""}]
    ).to_wire()
    found = validate_loaded(load_graph_entry(beta_wire))
    assert [e.path for e in found.errors] == ["spec.pvcs[0].name", "spec.services[F].ingress.host"]
    assert len([w for w in found.warnings if "dynamoNamespace" in w]) == 1


def test_compat_pass_is_not_reported_twice_for_an_alpha_request() -> None:
    found = validate_loaded(load_graph_entry(alpha_dgd({"F": frontend(ingress={"enabled": True},
                                                                       dynamoNamespace="x")})))
    assert [e.path for e in found.errors] == ["spec.services[F].ingress.host"]
    assert len([w for w in found.warnings if "dynamoNamespace" in w]) == 1


def test_beta_graph_without_preserved_data_gets_no_compat_findings() -> None:
    obj = beta_with_preserved({"F": frontend()})
    assert "nvidia.com/dgd-spec" not in obj.annotations
    assert validate(obj).errors == []


def test_alpha_update_checks_the_alpha_min_available_transition_rule() -> None:
    old = load_graph_entry(alpha_dgd({"W": worker(replicas=3, minAvailable=1)})).object
    new = load_graph_entry(alpha_dgd({"W": worker(replicas=3, minAvailable=2)})).object
    found = validate_update(old, new, source_api_version=ALPHA_API_VERSION)
    assert [str(e) for e in found.errors] == [
        'spec.services[W]: Invalid value: "object": minAvailable is immutable after creation'
    ]
    same = load_graph_entry(alpha_dgd({"W": worker(replicas=3, minAvailable=1)})).object
    grove = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})  # minAvailable needs Grove
    assert validate_update(old, same, grove, source_api_version=ALPHA_API_VERSION).errors == []


def test_alpha_dcd_update_checks_the_min_available_transition_rule() -> None:
    def dcd(min_available: int) -> Any:
        return load_graph_entry({
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": "w", "namespace": "team"},
            "spec": {"backendFramework": "vllm", **worker(replicas=3, minAvailable=min_available)},
        }).object

    found = validate_update(dcd(1), dcd(2), source_api_version=ALPHA_API_VERSION)
    assert [str(e) for e in found.errors] == [
        'spec: Invalid value: "object": minAvailable is immutable after creation'
    ]


def test_cli_rejects_an_alpha_min_available_change_at_the_alpha_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old_path, new_path = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old_path.write_text(yaml.safe_dump(alpha_dgd({"W": worker(replicas=3, minAvailable=1)})))
    new_path.write_text(yaml.safe_dump(alpha_dgd({"W": worker(replicas=3, minAvailable=2)})))
    code = cli_main(["validate", str(new_path), "--old", str(old_path), "--mode", "operator"])
    err = capsys.readouterr().err
    assert code == 1
    assert (
        f'{new_path}:9:5: spec.services[W]: Invalid value: "object": minAvailable is immutable after creation'
        in err.splitlines()
    )


def test_sidecar_runtime_init_container_image_is_reported_at_the_alpha_path() -> None:
    init = [{"name": "other", "image": "busybox"}, {"name": "runtime", "image": "", "restartPolicy": "Always"}]
    data = alpha_dgd({"W": {"componentType": "worker",
                            "extraPodSpec": {"mainContainer": {"image": "engine:latest"}, "initContainers": init}}})
    found = validate_loaded(load_graph_entry(data))
    assert [str(e) for e in found.errors] == [
        "spec.services[W].extraPodSpec.initContainers[1].image: Required value: is required"
    ]


def test_alpha_rule_path_maps_every_converted_image_path() -> None:
    init = [{"name": "runtime", "image": "rt:1.5.0", "restartPolicy": "Always"}]
    data = alpha_dgd({
        "A": worker(),
        "W": {"componentType": "worker", "extraPodSpec": {
            "mainContainer": {"image": IMAGE}, "initContainers": init,
            "containers": [{"name": "logger", "image": "busybox"}]}},
    })
    loaded = load_graph_entry(data)
    assert alpha_rule_path(loaded, "spec.components[1].podTemplate.spec.initContainers[0].image") == (
        "spec.services[W].extraPodSpec.initContainers[0].image"
    )
    assert alpha_rule_path(loaded, "spec.components[1].podTemplate.spec.containers[0].image") == (
        "spec.services[W].extraPodSpec.mainContainer.image"
    )
    assert alpha_rule_path(loaded, "spec.components[0].runtimeVersionOverride") == (
        "spec.services[A].runtimeVersionOverride"
    )
