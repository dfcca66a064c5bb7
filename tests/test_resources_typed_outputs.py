"""A pulumi.Output may stand at any leaf, of any JSON type: it flows through validation and
rendering into the registered children; where rendering needs its value, the error names the
field, says an Output cannot be read at preview time and gives the fix; no internal token is
ever shown."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pulumi
import pytest
import yaml

from dynamo_pulumi.errors import DynamoPulumiError, GraphValidationError, InputError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.resources import DynamoGraphDeployment

WORKER = "default/vllm-agg-vllmworker"
TOKEN_PREFIX = "__dynamo_pulumi_output_"


def out(value: Any) -> pulumi.Output[Any]:
    return pulumi.Output.from_input(value)


def example() -> dict[str, Any]:
    return yaml.safe_load(default_graph_path().read_text())


def worker(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["components"][1]


def main_container(doc: dict[str, Any]) -> dict[str, Any]:
    return worker(doc)["podTemplate"]["spec"]["containers"][0]


def deploy(edit: Callable[[dict[str, Any]], None], seen: list[Any] | None = None) -> Recording:
    def program() -> None:
        doc = copy.deepcopy(example())
        edit(doc)
        graph = DynamoGraphDeployment("g", doc)
        if seen is not None:
            dcd = graph.components["VllmWorker"]
            pulumi.Output.all(dcd.replicas, dcd.gpus, graph.total_gpus).apply(seen.extend)

    rec, _ = run_program(program)
    return rec


def refusal(edit: Callable[[dict[str, Any]], None], platform: dict[str, Any] | None = None) -> str:
    def program() -> None:
        doc = copy.deepcopy(example())
        edit(doc)
        DynamoGraphDeployment("g", doc, platform=platform)

    with pytest.raises(DynamoPulumiError) as info:
        run_program(program)
    message = str(info.value)
    assert TOKEN_PREFIX not in message
    return message


def worker_pod(rec: Recording) -> dict[str, Any]:
    (deployment,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if r.name == WORKER]
    return deployment.inputs["spec"]["template"]["spec"]


def test_an_integer_output_for_replicas_reaches_the_workload_and_the_outputs() -> None:
    seen: list[Any] = []
    rec = deploy(lambda d: worker(d).__setitem__("replicas", out(3)), seen)
    (deployment,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if r.name == WORKER]
    assert deployment.inputs["spec"]["replicas"] == 3
    assert seen == [3, 3, 3]  # replicas, the component's GPUs (3 x 1), the graph's total


def test_a_number_output_in_the_pod_template_is_copied() -> None:
    rec = deploy(lambda d: worker(d)["podTemplate"]["spec"].__setitem__("terminationGracePeriodSeconds", out(45)))
    assert worker_pod(rec)["terminationGracePeriodSeconds"] == 45


def test_a_list_output_for_args_is_copied() -> None:
    rec = deploy(lambda d: main_container(d).__setitem__("args", out(["--model", "Qwen/Qwen3-8B"])))
    (main,) = [c for c in worker_pod(rec)["containers"] if c["name"] == "main"]
    assert main["args"] == ["--model", "Qwen/Qwen3-8B"]


def test_a_boolean_output_is_copied() -> None:
    rec = deploy(lambda d: main_container(d).__setitem__("stdin", out(True)))
    (main,) = [c for c in worker_pod(rec)["containers"] if c["name"] == "main"]
    assert main["stdin"] is True


def test_a_whole_sub_object_output_is_copied() -> None:
    rec = deploy(lambda d: worker(d)["podTemplate"]["spec"].__setitem__("nodeSelector", out({"pool": "gpu"})))
    assert worker_pod(rec)["nodeSelector"] == {"pool": "gpu"}


def test_an_output_image_needs_runtime_version_override_and_the_error_says_why() -> None:
    message = refusal(lambda d: main_container(d).__setitem__("image", out("nvcr.io/x/vllm-runtime:1.3.1")))
    assert "spec.components[1].runtimeVersionOverride: Required value" in message
    assert "the image spec.components[1].podTemplate.spec.containers[0].image is a pulumi.Output" in message
    assert "cannot be read at preview time" in message
    assert 'set spec.components[1].runtimeVersionOverride to the Dynamo runtime version' in message


def test_an_output_image_with_a_runtime_version_override_deploys() -> None:
    def edit(doc: dict[str, Any]) -> None:
        main_container(doc)["image"] = out("nvcr.io/x/vllm-runtime:1.3.1")
        worker(doc)["runtimeVersionOverride"] = "1.3.1"

    (main,) = [c for c in worker_pod(deploy(edit))["containers"] if c["name"] == "main"]
    assert main["image"] == "nvcr.io/x/vllm-runtime:1.3.1"


def test_an_output_gpu_count_that_sizes_a_multinode_launch_is_refused_without_a_token() -> None:
    def edit(doc: dict[str, Any]) -> None:
        worker(doc)["multinode"] = {"nodeCount": 2}
        main_container(doc)["resources"]["limits"]["nvidia.com/gpu"] = out("8")

    message = refusal(edit, {"orchestrators": {"lws": {"enabled": True}}})
    assert "spec.components[1].podTemplate.spec.containers[main].resources.limits[nvidia.com/gpu]: Forbidden" in message
    assert "nvidia.com/gpu" in message, message
    assert "cannot be read at preview time" in message


@pytest.mark.parametrize("orchestrator", ["lws", "grove"])
def test_an_output_node_count_is_refused_at_its_field_before_anything_is_rendered(orchestrator: str) -> None:
    # the node count sizes pods, ranks and host lists: no stand-in number can render in its place
    (error,) = _graph_errors(
        lambda d: worker(d).__setitem__("multinode", {"nodeCount": out(2)}),
        {"orchestrators": {orchestrator: {"enabled": True}}},
    )
    assert error.path == "spec.components[1].multinode.nodeCount"
    assert "the node count decides how many pods and ranks" in error.detail
    assert "cannot be read at preview time; give a plain number" in error.detail


def test_an_output_target_namespace_is_refused_at_metadata_namespace() -> None:
    def program() -> None:
        DynamoGraphDeployment("g", example(), namespace=out("team-a"))  # type: ignore[arg-type]

    with pytest.raises(GraphValidationError) as info:
        run_program(program)
    (error,) = info.value.errors
    assert error.path == "metadata.namespace"
    assert "the target namespace must be a plain string" in error.detail
    assert "cannot be read at preview time" in error.detail


def _graph_errors(edit: Callable[[dict[str, Any]], None], platform: dict[str, Any]) -> list[Any]:
    def program() -> None:
        doc = copy.deepcopy(example())
        edit(doc)
        DynamoGraphDeployment("g", doc, platform=platform)

    with pytest.raises(GraphValidationError) as info:
        run_program(program)
    return list(info.value.errors)


def test_an_output_list_the_rendering_merges_is_refused_clearly() -> None:
    message = refusal(lambda d: main_container(d).__setitem__("env", out([{"name": "A", "value": "b"}])))
    assert "spec.components[1].podTemplate.spec.containers[0].env" in message
    assert "cannot be read at preview time" in message and "give plain values" in message


def test_an_output_where_a_model_field_needs_a_boolean_names_the_field() -> None:
    def program() -> None:
        doc = copy.deepcopy(example())
        worker(doc)["multinode"] = out({"nodeCount": 2})
        DynamoGraphDeployment("g", doc)

    with pytest.raises(GraphValidationError) as info:
        run_program(program)
    (error,) = info.value.errors
    assert str(error) == (
        'spec.components[1].multinode: Invalid value: "<pulumi.Output>": this field is read while validating '
        "and needs a plain object; a pulumi.Output's value cannot be read at preview time"
    )


def test_an_output_name_is_refused_because_resource_names_are_needed_while_the_program_runs() -> None:
    with pytest.raises(InputError) as info:
        run_program(lambda: DynamoGraphDeployment("g", {**example(), "metadata": {"name": out("vllm-agg")}}))
    message = str(info.value)
    assert TOKEN_PREFIX not in message
    assert "<the pulumi.Output at metadata.name>-frontend" in message
    assert "cannot be read at preview time" in message
