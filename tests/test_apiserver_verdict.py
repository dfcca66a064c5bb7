"""The API server's pod-template rules, run by the one verdict over what rendering produces, at
the field of the user's file (every command and the components alike)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from cli_support import BETA, IMAGE, run_cli, write

from dynamo_pulumi.errors import ErrorType, Path
from dynamo_pulumi.loading.documents import load_graph_entry
from dynamo_pulumi.validation.apiserver import rendered_object_errors
from dynamo_pulumi.validation.apiserver.resources import (
    MAX_QUANTITY,
    is_extended,
    overcommit_allowed,
    quantity_value_errors,
    resource_requirement_errors,
)
from dynamo_pulumi.validation.apiserver.services import service_errors
from dynamo_pulumi.validation.apiserver.source_paths import user_path
from dynamo_pulumi.verdict.deployability import judge

WORKER = "spec.components[1].podTemplate.spec"


def _graph(**worker_spec: Any) -> dict[str, Any]:
    doc = yaml.safe_load(BETA)
    doc["spec"]["components"][1]["podTemplate"]["spec"].update(copy.deepcopy(worker_spec))
    return doc


def _main(**fields: Any) -> dict[str, Any]:
    doc = yaml.safe_load(BETA)
    doc["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0].update(copy.deepcopy(fields))
    return doc


def _errors(doc: dict[str, Any]) -> list[str]:
    return [str(e) for e in judge(load_graph_entry(doc)).errors]


@pytest.mark.parametrize(("gpus", "detail"), [
    ("-1", 'Invalid value: "-1": must be greater than or equal to 0'),
    ("0.5", 'Invalid value: "0.5": must be an integer'),
    ("1e400", 'Invalid value: "1e400": must be no greater than 9223372036854775807 (the largest quantity '
              "Kubernetes can read as a number)"),
])
def test_gpu_limits_the_api_server_refuses(gpus: str, detail: str) -> None:
    errors = _errors(_main(resources={"limits": {"nvidia.com/gpu": gpus}}))
    assert errors == [f"{WORKER}.containers[0].resources.limits[nvidia.com/gpu]: {detail}"]


def test_gpu_request_must_equal_its_limit() -> None:
    errors = _errors(_main(resources={"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "1"}}))
    assert errors == [f'{WORKER}.containers[0].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2']


def test_gpu_request_without_limit_is_refused() -> None:
    errors = _errors(_main(resources={"requests": {"nvidia.com/gpu": "1"}}))
    assert errors == [f"{WORKER}.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"]


def test_cpu_request_above_its_limit_is_refused() -> None:
    errors = _errors(_main(resources={"limits": {"cpu": "1"}, "requests": {"cpu": "1500m"}}))
    assert errors == [f'{WORKER}.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1']


def test_whole_gpus_equal_requests_and_overcommitted_cpu_are_valid() -> None:
    assert _errors(_main(resources={"limits": {"nvidia.com/gpu": "2", "cpu": "4"},
                                    "requests": {"nvidia.com/gpu": 2, "cpu": "1"}})) == []


def test_two_containers_with_one_name() -> None:
    doc = _graph(containers=[{"name": "main", "image": IMAGE}, {"name": "side", "image": IMAGE}, {"name": "side", "image": IMAGE}])
    assert _errors(doc) == [f'{WORKER}.containers[2].name: Duplicate value: "side"']


def test_port_name_over_fifteen_characters() -> None:
    errors = _errors(_main(ports=[{"containerPort": 8000, "name": "p" * 16}]))
    assert errors == [f'{WORKER}.containers[0].ports[0].name: Invalid value: "{"p" * 16}": must be no more than 15 characters']


def test_port_name_of_fifteen_characters_is_valid() -> None:
    assert _errors(_main(ports=[{"containerPort": 8000, "name": "p" * 15}])) == []


def test_toleration_effect_outside_the_enum() -> None:
    errors = _errors(_graph(tolerations=[{"key": "a", "operator": "Exists", "effect": "Sometimes"}]))
    assert errors == [f'{WORKER}.tolerations[0].effect: Unsupported value: "Sometimes": supported values: '
                      '"NoExecute", "NoSchedule", "PreferNoSchedule"']


def test_sidecar_mount_of_a_volume_that_does_not_exist() -> None:
    doc = _graph(containers=[{"name": "main", "image": IMAGE},
                             {"name": "side", "image": IMAGE, "volumeMounts": [{"name": "nope", "mountPath": "/n"}]}])
    assert _errors(doc) == [f'{WORKER}.containers[1].volumeMounts[0].name: Not found: "nope"']


def test_enums_of_the_pod_and_its_containers() -> None:
    doc = _main(imagePullPolicy="Sometimes")
    doc["spec"]["components"][1]["podTemplate"]["spec"].update(restartPolicy="Sometimes", dnsPolicy="Maybe")
    errors = _errors(doc)
    assert f'{WORKER}.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"' in errors
    assert f'{WORKER}.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' in errors
    assert any(e.startswith(f'{WORKER}.dnsPolicy: Unsupported value: "Maybe"') for e in errors)


def test_node_selector_and_affinity_syntax() -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "gpu", "operator": "In"}]}]}}}
    errors = _errors(_graph(nodeSelector={"bad key!": "x"}, affinity=affinity))
    assert any(e.startswith(f'{WORKER}.nodeSelector: Invalid value: "bad key!": name part must consist') for e in errors)
    assert (f"{WORKER}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'") in errors


def test_env_and_volume_rules() -> None:
    doc = _main(env=[{"name": "A=B", "value": "x"}])
    doc["spec"]["components"][1]["podTemplate"]["spec"]["volumes"] = [{"name": "two", "emptyDir": {}, "configMap": {"name": "c"}}]
    errors = _errors(doc)
    assert (f'{WORKER}.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must '
            "consist only of printable ASCII characters other than '='") in errors
    assert f"{WORKER}.volumes[0].configMap: Forbidden: may not specify more than 1 volume type" in errors


def test_alpha_input_is_reported_at_the_alpha_path() -> None:
    doc = yaml.safe_load(BETA.replace("beta", "alpha"))
    alpha = {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": {"name": "alpha"},
        "spec": {"services": {"Frontend": {"componentType": "frontend", "extraPodSpec": {"mainContainer": {
            "image": doc["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0]["image"],
            "imagePullPolicy": "Sometimes"}}}}},
    }
    errors = _errors(alpha)
    assert len(errors) == 1 and errors[0].startswith("spec.services[Frontend].extraPodSpec.mainContainer.imagePullPolicy: Unsupported")


def test_every_command_refuses_with_exit_one_and_a_file_position(tmp_path, capsys) -> None:
    doc = _main(resources={"limits": {"nvidia.com/gpu": "0.5"}})
    bad = write(tmp_path, "bad.yaml", yaml.safe_dump(doc, sort_keys=False))
    good = write(tmp_path, "good.yaml", BETA)
    for argv in (["validate", bad], ["render", bad], ["preview", bad], ["diff", good, bad]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 1, argv
        assert f"{bad}:" in err and "resources.limits[nvidia.com/gpu]: Invalid value: \"0.5\": must be an integer" in err, argv


# --- the pure rules ------------------------------------------------------------------------------


def test_extended_and_native_resource_names() -> None:
    assert is_extended("nvidia.com/gpu") and not is_extended("cpu") and not is_extended("kubernetes.io/x")
    assert not overcommit_allowed("nvidia.com/gpu") and not overcommit_allowed("hugepages-2Mi")
    assert overcommit_allowed("memory")


def test_quantity_bound_is_the_int64_maximum() -> None:
    path = Path("limits").key("nvidia.com/gpu")
    assert quantity_value_errors("nvidia.com/gpu", str(MAX_QUANTITY), path) == []
    (error,) = quantity_value_errors("nvidia.com/gpu", str(MAX_QUANTITY + 1), path)
    assert "must be no greater than" in str(error)


def test_unknown_resource_names() -> None:
    errors = resource_requirement_errors({"limits": {"disk": "1", "example.com/a/b": "1"}}, Path("r"))
    assert [e.detail for e in errors if e.detail.startswith("must be a standard")] == ["must be a standard resource for containers"]
    assert any("at most one '/'" in e.detail for e in errors)


def test_hugepages_need_cpu_or_memory() -> None:
    errors = resource_requirement_errors({"limits": {"hugepages-2Mi": "2Mi"}, "requests": {"hugepages-2Mi": "2Mi"}}, Path("r"))
    assert [str(e) for e in errors] == ["r: Forbidden: HugePages require cpu or memory"]


def test_service_ports() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "spec": {"ports": [
        {"name": "http", "port": 80}, {"name": "http", "port": 70000}, {"port": 80}]}}
    errors = [str(e) for e in service_errors(service)]
    assert 'spec.ports[1].name: Duplicate value: "http"' in errors
    assert "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive" in errors
    assert "spec.ports[2].name: Required value" in errors
    assert any(e.startswith("spec.ports[2]: Duplicate value") for e in errors)
    assert service_errors({"apiVersion": "v1", "kind": "Service", "spec": {"clusterIP": "None"}}) == []
    assert [str(e) for e in service_errors({"apiVersion": "v1", "kind": "Service", "spec": {}})] == ["spec.ports: Required value"]


def test_rendered_object_errors_find_every_pod_template() -> None:
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "spec": {"leaderWorkerTemplate": {
        "leaderTemplate": {"spec": {"containers": [{"name": "Bad", "image": "x"}]}},
        "workerTemplate": {"spec": {"containers": [{"name": "ok", "image": "x", "imagePullPolicy": "Nope"}]}}}}}
    errors = rendered_object_errors(lws)
    assert [e.path for e in errors] == [
        "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].name",
        "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].imagePullPolicy",
    ]
    assert errors[1].type is ErrorType.NOT_SUPPORTED


def test_user_path_matches_items_by_name_and_quantities_by_amount() -> None:
    rendered = {"containers": [{"name": "sidecar"}, {"name": "main", "env": [{"name": "X"}, {"name": "A", "value": "1"}],
                                                     "resources": {"limits": {"cpu": "500m"}}}]}
    user = {"containers": [{"name": "main", "env": [{"name": "A", "value": "1"}], "resources": {"limits": {"cpu": "0.5"}}}]}
    assert user_path("containers[1].env[1].name", rendered, user) == "containers[0].env[0].name"
    assert user_path("containers[1].resources.limits[cpu]", rendered, user) == "containers[0].resources.limits[cpu]"
    assert user_path("containers[1].env[0].name", rendered, user) is None  # rendering added X
    assert user_path("containers[0].name", rendered, user) is None


def test_a_value_rendering_made_is_reported_at_the_rendered_object() -> None:
    from dynamo_pulumi.validation.apiserver.rendered import semantic_errors

    graph = {"kind": "DynamoGraphDeployment", "spec": {"components": [{"name": "w", "podTemplate": {"spec": {
        "containers": [{"name": "main"}]}}}]}}
    obj = {"kind": "Deployment", "metadata": {"name": "g-w"}, "spec": {"template": {"spec": {
        "containers": [{"name": "main", "imagePullPolicy": "Bad"}]}}}}
    (error,) = semantic_errors(graph, [obj], ["w"])
    assert error.path == 'Deployment "g-w".spec.template.spec.containers[0].imagePullPolicy'
