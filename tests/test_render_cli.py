"""``dynamo-pulumi render``: YAML stream on stdout, errors on stderr, exit status."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from dynamo_pulumi.cli import main
from dynamo_pulumi.cli.exits import EXIT_USAGE

REPO = Path(__file__).resolve().parent.parent

GRAPH = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
    - name: decode
      type: decode
      replicas: 2
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-0.6B]
              resources: {limits: {nvidia.com/gpu: "1"}}
"""

PLATFORM = """
operatorVersion: "1.4.0"
namespace: {restricted: team-a}
"""


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.yaml"
    path.write_text(GRAPH)
    return path


@pytest.fixture
def platform_file(tmp_path: Path) -> Path:
    path = tmp_path / "platform.yaml"
    path.write_text(PLATFORM)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    code = main(["render", *argv])
    out, err = capsys.readouterr()
    return code, [d for d in yaml.safe_load_all(out) if d is not None], err


def kinds(docs: list[dict]) -> list[str]:
    return [d["kind"] for d in docs]


def test_render_prints_objects_by_default(capsys, graph_file, platform_file) -> None:
    code, docs, err = run(capsys, str(graph_file), "--namespace", "team-a", "--platform", str(platform_file))
    assert code == 0, err
    assert "DynamoComponentDeployment" not in kinds(docs)
    assert kinds(docs).count("Deployment") == 2
    assert {d["metadata"]["namespace"] for d in docs} == {"team-a"}


def test_render_components_stage_prints_only_the_dcds(capsys, graph_file, platform_file) -> None:
    code, docs, _ = run(capsys, str(graph_file), "-n", "team-a", "-p", str(platform_file), "--stage", "components")
    assert code == 0
    assert kinds(docs) == ["DynamoComponentDeployment", "DynamoComponentDeployment"]
    assert docs[0]["metadata"]["name"] == "demo-frontend"


def test_render_all_stage_prints_components_then_objects(capsys, graph_file, platform_file) -> None:
    code, docs, _ = run(capsys, str(graph_file), "-p", str(platform_file), "--stage", "all")
    assert code == 0
    assert kinds(docs)[:2] == ["DynamoComponentDeployment", "DynamoComponentDeployment"]
    assert "Deployment" in kinds(docs)[2:]


def test_render_without_namespace_uses_default(capsys, graph_file) -> None:
    code, docs, _ = run(capsys, str(graph_file))
    assert code == 0
    assert {d["metadata"]["namespace"] for d in docs} == {"default"}


def test_render_output_is_byte_identical_across_runs(capsys, graph_file, platform_file) -> None:
    main(["render", str(graph_file), "-p", str(platform_file), "--stage", "all"])
    first = capsys.readouterr().out
    main(["render", str(graph_file), "-p", str(platform_file), "--stage", "all"])
    assert capsys.readouterr().out == first


def test_invalid_graph_prints_errors_on_stderr_nothing_on_stdout_and_exits_1(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(GRAPH.replace("replicas: 2", "replicas: -2"))
    code = main(["render", str(bad)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert "replicas" in err
    assert "Traceback" not in err


def test_unreadable_file_is_a_clear_error(capsys, tmp_path) -> None:
    code = main(["render", str(tmp_path / "missing.yaml")])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.startswith("error:")


def test_invalid_stage_is_a_usage_error(capsys, graph_file) -> None:
    assert main(["render", str(graph_file), "--stage", "everything"]) == EXIT_USAGE
    assert "invalid choice: 'everything'" in capsys.readouterr().err


def test_render_error_is_reported_without_traceback_and_nothing_on_stdout(capsys, tmp_path) -> None:
    dcd = tmp_path / "dcd.yaml"
    dcd.write_text(
        """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata: {name: mn}
spec:
  type: decode
  backendFramework: vllm
  multinode: {nodeCount: 2}
  podTemplate: {spec: {containers: [{name: main, image: "w:1.4.0"}]}}
"""
    )
    platform = tmp_path / "p.yaml"
    platform.write_text("orchestrators: {lws: {enabled: true}}\n")
    code = main(["render", str(dcd), "-p", str(platform)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert "Args cannot be empty for LWS pod" in err
    assert "Traceback" not in err


def test_every_graph_of_a_multi_graph_file_is_rendered_in_file_order(tmp_path: Path, capsys) -> None:
    second = GRAPH.replace("name: demo", "name: other")
    path = tmp_path / "two.yaml"
    path.write_text(GRAPH + "---\n" + second)
    assert main(["render", str(path), "--stage", "components"]) == 0
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(capsys.readouterr().out)]
    assert names[0].startswith("demo-") and names[-1].startswith("other-")
    assert len(names) == 4


def test_one_invalid_graph_in_a_file_prints_nothing_on_stdout(tmp_path: Path, capsys) -> None:
    broken = GRAPH.replace("name: demo", "name: broken").replace("replicas: 2", "replicas: -1")
    path = tmp_path / "two.yaml"
    path.write_text(GRAPH + "---\n" + broken)
    assert main(["render", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "replicas" in captured.err


def test_every_refused_document_of_a_file_is_reported_in_document_order(tmp_path: Path, capsys) -> None:
    # document 2 is refused by the verdict, document 3 already when loading: neither hides the other
    bad_name = GRAPH.replace("name: demo", "name: Bad_Name")
    bad_schema = GRAPH.replace("name: demo", "name: broken").replace("replicas: 2", "replicas: -1")
    path = tmp_path / "three.yaml"
    path.write_text(GRAPH + "---\n" + bad_name + "---\n" + bad_schema)
    assert main(["render", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    headers = [line for line in captured.err.splitlines() if line.endswith("is invalid:")]
    assert headers == [
        f'error: {path} (document 2): The DynamoGraphDeployment "Bad_Name" is invalid:',
        f'error: {path} (document 3): The DynamoGraphDeployment "broken" is invalid:',
    ]


def test_a_file_without_any_graph_is_a_clear_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert main(["render", str(path)]) == 1
    assert "no DynamoGraphDeployment or DynamoComponentDeployment" in capsys.readouterr().err


TRICKY = [
    {
        "long": "exec python3 -m dynamo.vllm \\\n --model Qwen/Qwen3-32B " + "--flag value " * 40,
        "quotes": "it's \"quoted\": {json: [1, 2]} # not a comment",
        "unicode": "mod\u00e8le \u2013 \u6a21\u578b \U0001f680",
        "control": "tab\there\x07bell",
        "empty": "",
        "keyword-like": ["yes", "no", "null", "1e3", "0x1F", "~", "-", "- item"],
        "multi": "line one\nline two\n\n  indented\n",
        "trailing space ": "value ",
        "numbers": [1, 1.5, -0.0, 10**20],
        "nested": {"a": [{"b": None}, [], {}]},
    }
]


class Yaml11Loader(yaml.SafeLoader):
    """A reader with YAML 1.1's whole boolean set, as kubectl's go-yaml reads a file."""


Yaml11Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))


def test_strings_a_yaml_1_1_reader_takes_for_booleans_are_quoted() -> None:
    """``NIXL_TELEMETRY_ENABLE: n`` (the operator's default env for vLLM workers) printed plain
    reaches the API server as ``false`` through ``kubectl apply``, which refuses the Deployment
    ("cannot unmarshal bool into ... EnvVar ... value of type string")."""
    from dynamo_pulumi.cli.render_cmd import dump_stream

    values = ["n", "N", "y", "Y", "no", "on", "yes"]
    text = dump_stream([{"env": [{"name": "X", "value": v} for v in values]}])
    assert "value: 'n'" in text and "value: 'Y'" in text
    assert [e["value"] for e in yaml.load(text, Loader=Yaml11Loader)["env"]] == values


def test_rendered_vllm_workers_survive_a_yaml_1_1_reader() -> None:
    from dynamo_pulumi.cli.render_cmd import dump_stream
    from dynamo_pulumi.loading.documents import load_documents
    from dynamo_pulumi.render import render_graph

    graph = load_documents(REPO / "examples" / "aggregated-vllm" / "graph.yaml").graphs[0].object
    documents = list(render_graph(graph, None, "x").objects)
    assert list(yaml.load_all(dump_stream(documents), Loader=Yaml11Loader)) == documents


@pytest.mark.skipif(not hasattr(yaml, "CSafeDumper"), reason="PyYAML without libyaml")
def test_the_output_is_the_same_with_or_without_libyaml() -> None:
    from dynamo_pulumi.cli.render_cmd import dump_stream

    assert dump_stream(TRICKY, yaml.CSafeDumper) == dump_stream(TRICKY, yaml.SafeDumper)
    assert yaml.safe_load(dump_stream(TRICKY)) == TRICKY[0]


def test_corpus_renders_are_the_same_with_or_without_libyaml(conformance_dir: Path) -> None:
    if not hasattr(yaml, "CSafeDumper"):
        pytest.skip("PyYAML without libyaml")
    from dynamo_pulumi.cli.render_cmd import dump_stream
    from dynamo_pulumi.errors import DynamoPulumiError
    from dynamo_pulumi.loading.documents import load_documents
    from dynamo_pulumi.render import render_graph

    compared = 0
    for path in sorted((conformance_dir / "corpus").glob("*.yaml")):
        try:
            graphs = load_documents(path).graphs
            results = [render_graph(g.object, None, "x") for g in graphs]
        except DynamoPulumiError:
            continue
        for result in results:
            documents = [*result.components, *result.objects]
            assert dump_stream(documents, yaml.CSafeDumper) == dump_stream(documents, yaml.SafeDumper), path.name
            compared += 1
    assert compared > 40


OWNED_DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: llama-frontend
  namespace: prod
  ownerReferences: [{apiVersion: nvidia.com/v1beta1, kind: DynamoGraphDeployment, name: llama, uid: u1, controller: true}]
spec:
  name: frontend
  type: frontend
  podTemplate: {spec: {containers: [{name: main, image: "frontend:1.4.0"}]}}
"""


def _parent_env(docs: list[dict]) -> str:
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    (main_container,) = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "main"]
    return {e["name"]: e.get("value") for e in main_container["env"]}["DYN_PARENT_DGD_K8S_NAME"]


def test_render_in_operator_mode_renders_the_custom_resource_as_it_is_sent(tmp_path: Path, capsys) -> None:
    """Operator mode never sends ownerReferences (their uids name objects of one cluster), so the
    operator, and `render --mode operator`, see an unowned DCD; render mode reads the owner."""
    path = tmp_path / "dcd.yaml"
    path.write_text(OWNED_DCD)
    code, rendered, _ = run(capsys, str(path))
    assert code == 0 and _parent_env(rendered) == "llama"
    code, predicted, err = run(capsys, str(path), "--mode", "operator")
    assert code == 0 and _parent_env(predicted) == "llama-frontend"
    assert "ownerReferences is not sent in operator mode" in err
