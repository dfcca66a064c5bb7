"""One deployability verdict: what ``validate`` accepts is exactly what ``render`` renders, and every
refusal is a field error with advice that fits its cause."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.cli import main
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_documents, load_graph, validate_loaded
from dynamo_pulumi.model.deploy_mode import operator_only_errors
from dynamo_pulumi.platform import load_platform
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.verdict.deployability import check_deployable, judge

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLATFORMS = {
    "default": {},
    "grove-and-lws": {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}},
}


def example() -> dict[str, Any]:
    return yaml.safe_load(default_graph_path().read_text())


def errors_of(document: dict[str, Any], platform: dict[str, Any] | None = None, namespace: str | None = None) -> list[str]:
    return [str(e) for e in judge(load_graph(document), load_platform(platform or {}), namespace).errors]


def test_the_embedded_example_is_deployable_and_carries_its_rendering() -> None:
    verdict = judge(load_graph(example()))
    assert verdict.deployable and verdict.errors == []
    assert verdict.rendered is not None and verdict.rendered.objects


def test_a_name_with_an_invalid_character_is_refused_at_metadata_name() -> None:
    doc = example()
    doc["metadata"]["name"] = "Vllm_Agg"
    (error,) = errors_of(doc)
    assert error.startswith('metadata.name: Invalid value: "Vllm_Agg": a lowercase RFC 1123 subdomain')


def test_a_missing_name_is_required() -> None:
    doc = example()
    del doc["metadata"]["name"]
    assert errors_of(doc) == ["metadata.name: Required value: name or generateName is required"]


def test_a_long_name_is_refused_with_advice_to_shorten_it() -> None:
    doc = example()
    doc["metadata"]["name"] = "a" * 60
    errors = errors_of(doc)
    assert errors and all(e.startswith("metadata.name: Forbidden: the API server would refuse") for e in errors)
    assert all("must be no more than 63 characters" in e and "; shorten the DynamoGraphDeployment name" in e for e in errors)


def test_an_invalid_character_in_a_rendered_name_is_not_fixed_by_shortening() -> None:
    doc = example()
    doc["metadata"]["name"] = "1vllm"  # a valid subdomain, but Service names must start with a letter
    errors = errors_of(doc)
    assert errors
    service_errors = [e for e in errors if 'Service "1vllm-' in e]
    assert service_errors and all("; rename the DynamoGraphDeployment name" in e for e in service_errors)
    assert not any("shorten" in e for e in service_errors)


def test_a_backend_framework_that_contradicts_the_command_is_refused() -> None:
    doc = example()
    doc["spec"]["backendFramework"] = "sglang"
    assert errors_of(doc) == [
        'spec.components[1]: Forbidden: cannot be rendered: backend framework mismatch: '
        'detected "vllm" from command but explicitly configured as "sglang"'
    ]


def test_a_multinode_component_needs_a_multinode_orchestrator_on_the_platform() -> None:
    doc = example()
    doc["spec"]["components"][1]["multinode"] = {"nodeCount": 2}
    (error,) = errors_of(doc)
    assert error.startswith("spec.components: Forbidden: cannot be rendered: no multinode orchestrator available")
    assert errors_of(doc, {"orchestrators": {"lws": {"enabled": True}}}) == []


def test_a_namespace_that_is_no_dns_label_is_refused_at_metadata_namespace() -> None:
    doc = example()
    doc["metadata"]["namespace"] = "<your-namespace>"
    (error,) = errors_of(doc)
    assert error.startswith('metadata.namespace: Invalid value: "<your-namespace>": a lowercase RFC 1123 label')


def test_a_target_namespace_that_is_no_dns_label_is_refused() -> None:
    (error,) = errors_of(example(), namespace="Team_A")
    assert error.startswith('metadata.namespace: Invalid value: "Team_A": target namespace a lowercase RFC 1123 label')


def test_operator_mode_turns_a_rendering_refusal_into_a_warning_and_an_empty_prediction() -> None:
    doc = example()
    doc["spec"]["backendFramework"] = "sglang"
    verdict = judge(load_graph(doc), mode="operator")
    assert verdict.deployable
    assert verdict.rendered is not None and not verdict.rendered.objects
    assert any("cannot be predicted offline" in w and "backend framework mismatch" in w for w in verdict.warnings)
    assert not judge(load_graph(doc)).deployable  # render mode refuses the same graph


def test_check_deployable_raises_one_error_with_every_field_error() -> None:
    doc = example()
    doc["metadata"]["name"] = "a" * 60
    with pytest.raises(GraphValidationError) as info:
        check_deployable(load_graph(doc))
    assert len(info.value.errors) == 4 and info.value.name == "a" * 60


def test_the_verdict_module_does_not_import_pulumi() -> None:
    code = "import sys, dynamo_pulumi.verdict.deployability; print('pulumi' in sys.modules)"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- every entry point agrees -------------------------------------------------------------------


def _graph_files() -> list[Path]:
    corpus = sorted(CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []
    return [*corpus, *sorted(EXAMPLES.glob("*/graph.yaml")), default_graph_path()]


def _exit_code(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    try:
        code = main(argv)
    except SystemExit as exc:  # pragma: no cover - argparse errors
        code = int(exc.code or 0)
    capsys.readouterr()
    return code


@pytest.mark.parametrize("platform_name", sorted(PLATFORMS))
def test_validate_accepts_exactly_what_render_renders(
    platform_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    platform = tmp_path / "platform.yaml"
    platform.write_text(yaml.safe_dump(PLATFORMS[platform_name]))
    files = _graph_files()
    assert len(files) > 3
    disagreements = []
    for path in files:
        validate = _exit_code(["validate", "--platform", str(platform), str(path)], capsys)
        render = _exit_code(["render", "--platform", str(platform), str(path)], capsys)
        # `render` prints what the operator would create whatever the mode; render mode itself
        # also refuses what only the operator can deploy (issue 9), and nothing else.
        needs_operator = _needs_operator_mode(path)
        if (validate == 0) != (render == 0 and not needs_operator):
            disagreements.append(
                f"{path.name}: validate exit {validate}, render exit {render}, needs operator mode {needs_operator}"
            )
    assert disagreements == []


def _needs_operator_mode(path: Path) -> bool:
    try:
        graphs = load_documents(path).graphs
    except GraphValidationError:
        return False
    return any(operator_only_errors(loaded.object) for loaded in graphs)


#: Published graphs that admission accepts on the default platform but rendering refuses (issue 10:
#: `validate` used to call these valid): no multinode orchestrator on the default platform, a
#: placeholder namespace, a v1alpha1 componentType the generated v1beta1 DCDs cannot carry.
ADMITTED_BUT_NOT_RENDERED = [
    "deploy-operator-testdata-dgd-grove-input.yaml",
    "recipes-deepseek-v4-pro-sglang-disagg-gb200-deploy.yaml",
    "recipes-gpt-oss-120b-trtllm-disagg-deploy.yaml",
    "recipes-kimi-k3-vllm-disagg-gb200-agentic-deploy.yaml",
    "sglang-v1beta1-disagg-multinode.yaml",
    "trtllm-v1beta1-disagg-multinode.yaml",
    "vllm-v1beta1-disagg-multinode.yaml",
]


def test_the_seven_corpus_graphs_admission_accepts_but_rendering_refuses_are_refused() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    refused = []
    for path in sorted(CORPUS.glob("*.yaml")):
        try:
            graphs = load_documents(path).graphs
        except GraphValidationError:
            continue
        for loaded in graphs:
            if not validate_loaded(loaded).errors and judge(loaded, for_expansion=True).errors:
                refused.append(path.name)
    assert refused == ADMITTED_BUT_NOT_RENDERED


def test_an_update_is_judged_against_the_old_object() -> None:
    old = load_graph(example())
    new_doc = copy.deepcopy(example())
    new_doc["spec"]["components"][1]["replicas"] = 2
    assert judge(load_graph(new_doc), old=old).deployable


ALPHA_MULTINODE = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: alpha-mn}
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      extraPodSpec: {mainContainer: {image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1}}
    Worker:
      componentType: worker
      multinode: {nodeCount: 2}
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1
          command: [python3, -m, dynamo.vllm]
          args: [--model, x]
"""


def test_a_rendering_refusal_of_a_v1alpha1_graph_is_reported_at_the_alpha_path() -> None:
    from dynamo_pulumi.loading.documents import load_graph_entry

    (error,) = judge(load_graph_entry(ALPHA_MULTINODE)).errors
    assert str(error).startswith("spec.services: Forbidden: cannot be rendered: no multinode orchestrator")


def test_validate_refuses_a_typo_in_a_pod_template_with_the_full_path_and_the_right_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = example()
    worker_pod = doc["spec"]["components"][1]["podTemplate"]["spec"]
    worker_pod["containers"][0]["imagePullPolcy"] = "Always"
    worker_pod["nodeSelecter"] = {"pool": "gpu"}
    path = tmp_path / "typo.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    pod = "spec.components[1].podTemplate.spec"
    # Each line leads with the file position of the misspelt key (file:line:col).
    assert [re.sub(r"^(.*?):\d+:\d+: ", r"\1: ", line) for line in err[1:]] == [
        f'{path}: unknown field "{pod}.containers[0].imagePullPolcy" (did you mean "imagePullPolicy"?)',
        f'{path}: unknown field "{pod}.nodeSelecter" (did you mean "nodeSelector"?)',
    ]
    assert all(re.match(rf"{re.escape(str(path))}:\d+:\d+: ", line) for line in err[1:])
