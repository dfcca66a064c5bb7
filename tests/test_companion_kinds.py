"""The other nvidia.com kinds the operator serves (DynamoModel, DynamoGraphDeploymentRequest,
DynamoCheckpoint, DynamoWorkerMetadata) beside a graph: ``validate`` passes them with a note
instead of "unknown kind", ``render`` and ``preview`` leave them out (render's help says companion
documents are ignored), the Pulumi components register nothing for them and say so. Issue 23
item 3: ``examples/backends/vllm/deploy/lora/agg_lora_hf.yaml`` upstream was refused."""

from __future__ import annotations

import json

import pytest
import yaml
from cli_support import run_cli
from conftest import CONFORMANCE

from dynamo_pulumi.api.v1beta1 import KINDS
from dynamo_pulumi.loading.documents import COMPANION_KINDS
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.plan import plan_graph

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
GRAPH = f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {{name: lora}}
spec:
  backendFramework: vllm
  components:
  - name: Frontend
    type: frontend
    podTemplate: {{spec: {{containers: [{{name: main, image: "{IMAGE}"}}]}}}}
  - name: decode
    type: worker
    podTemplate: {{spec: {{containers: [{{name: main, image: "{IMAGE}", command: [python3, -m, dynamo.vllm],
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}}}]}}}}
"""
#: The DynamoModel of upstream's agg_lora_hf.yaml, as published.
MODEL = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoModel
metadata:
  name: codelion-recovery-lora-hf
spec:
  modelName: codelion/Qwen3-0.6B-accuracy-recovery-lora
  baseModelName: Qwen/Qwen3-0.6B
  modelType: lora
  source:
    uri: hf://codelion/Qwen3-0.6B-accuracy-recovery-lora
"""


def _companion(kind: str, version: str) -> str:
    return f"apiVersion: nvidia.com/{version}\nkind: {kind}\nmetadata: {{name: c}}\nspec: {{}}\n"


def test_the_companion_kinds_are_every_other_kind_the_operator_crds_serve() -> None:
    crds = sorted((CONFORMANCE / "crds").glob("nvidia.com_*.yaml"))
    if not crds:
        pytest.skip("../shared/conformance/crds is not present")
    served: dict[str, tuple[str, ...]] = {}
    for path in crds:
        crd = yaml.safe_load(path.read_text())
        served[crd["spec"]["names"]["kind"]] = tuple(v["name"] for v in crd["spec"]["versions"] if v.get("served"))
    assert {k: v for k, v in served.items() if k not in KINDS} == COMPANION_KINDS


@pytest.mark.parametrize(("kind", "version"), [(k, v) for k, vs in COMPANION_KINDS.items() for v in vs])
def test_validate_passes_each_companion_with_a_note(tmp_path, capsys, kind: str, version: str) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(GRAPH + "---\n" + _companion(kind, version))
    code, out, err = run_cli(capsys, "validate", str(path))
    assert (code, err) == (0, "")
    assert f'(document 2): note: {kind} "c" is not checked here' in out
    code, out, _ = run_cli(capsys, "validate", str(path), "-o", "json")
    entry = json.loads(out)[1]
    assert code == 0 and entry["valid"] is True and entry["kind"] == kind and entry["errors"] == []
    assert "not checked" in entry["note"]


def test_a_version_the_operator_does_not_serve_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(GRAPH + "---\n" + MODEL.replace("v1alpha1", "v1beta1"))
    code, _, err = run_cli(capsys, "validate", str(path))
    assert code == 1
    assert "unsupported apiVersion 'nvidia.com/v1beta1' for DynamoModel (served: nvidia.com/v1alpha1)" in err


def test_render_and_preview_leave_the_model_out(tmp_path, capsys) -> None:
    alone, beside = tmp_path / "alone.yaml", tmp_path / "beside.yaml"
    alone.write_text(GRAPH)
    beside.write_text(GRAPH + "---\n" + MODEL)
    code, expected, _ = run_cli(capsys, "render", str(alone))
    assert code == 0
    code, out, err = run_cli(capsys, "render", str(beside))
    assert (code, out, err) == (0, expected, "")
    code, out, err = run_cli(capsys, "preview", str(beside))
    assert code == 0 and "DynamoModel" not in out
    assert 'warning: DynamoModel "codelion-recovery-lora-hf" is not checked here' in err


def test_the_components_register_nothing_for_a_companion_and_warn(tmp_path) -> None:
    from dynamo_pulumi.resources import DynamoGraphDeployment

    path = tmp_path / "g.yaml"
    path.write_text(GRAPH + "---\n" + MODEL)
    recording, _ = run_program(lambda: DynamoGraphDeployment("lora", str(path), namespace="llm"))
    assert not [r for r in recording.resources if "DynamoModel" in r.type or r.inputs.get("kind") == "DynamoModel"]
    plan = plan_graph(str(path), namespace="llm")
    assert any("DynamoModel" in w and "register it yourself" in w for w in plan.warnings)
