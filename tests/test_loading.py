"""Loading from dicts, YAML text and files: every way input can be wrong is a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.loading.documents import ALPHA_API_VERSION, load_documents, load_graph, load_graph_entry

BETA_DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: g
spec:
  backendFramework: vllm
  components:
  - name: Frontend
    type: frontend
"""

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  created: 2024-01-01
"""

ALPHA_DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: a
spec:
  services:
    Worker:
      componentType: worker
      subComponentType: decode
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""


def test_dict_loads_as_one_graph() -> None:
    graph = load_graph(yaml.safe_load(BETA_DGD))
    assert isinstance(graph, DynamoGraphDeployment)
    assert graph.name == "g"


def test_yaml_text_loads() -> None:
    assert load_graph(BETA_DGD).components[0].name == "Frontend"  # type: ignore[union-attr]


def test_file_path_loads(tmp_path: Path) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(BETA_DGD)
    assert load_graph(path).name == "g"
    assert load_graph(str(path)).name == "g"


def test_list_of_dicts_loads() -> None:
    result = load_documents([yaml.safe_load(BETA_DGD), yaml.safe_load(CONFIG_MAP)])
    assert len(result.objects) == 1 and len(result.others) == 1


def test_other_kinds_are_returned_beside_the_graph() -> None:
    result = load_documents(BETA_DGD + "---\n" + CONFIG_MAP)
    assert [o.kind for o in result.objects] == ["DynamoGraphDeployment"]
    assert [o["kind"] for o in result.others] == ["ConfigMap"]


def test_timestamps_stay_strings_like_kubectl_reads_them() -> None:
    result = load_documents(CONFIG_MAP)
    assert result.others[0]["data"]["created"] == "2024-01-01"


def test_empty_documents_are_skipped() -> None:
    result = load_documents("---\n" + BETA_DGD + "---\n---\n")
    assert len(result.objects) == 1


def test_beta_object_records_its_source_version() -> None:
    entry = load_graph_entry(BETA_DGD)
    assert entry.source_api_version == "nvidia.com/v1beta1"
    assert not entry.is_alpha
    assert len(entry.path_map) == 0


def test_alpha_object_is_converted_and_remembers_alpha_paths() -> None:
    entry = load_graph_entry(ALPHA_DGD)
    assert entry.is_alpha and entry.source_api_version == ALPHA_API_VERSION
    graph = entry.object
    assert isinstance(graph, DynamoGraphDeployment)
    assert graph.api_version == "nvidia.com/v1beta1"
    assert graph.components[0].type == "decode"
    assert entry.path_map.alpha_path("spec.components[0].podTemplate.spec.containers[0].image") == (
        "spec.services[Worker].extraPodSpec.mainContainer.image"
    )
    assert entry.alpha_object is not None and entry.alpha_object.kind == "DynamoGraphDeployment"


def test_alpha_schema_violation_is_reported_at_alpha_path() -> None:
    bad = ALPHA_DGD.replace("componentType: worker", "componentType: worker\n      replicas: two")
    with pytest.raises(GraphValidationError) as info:
        load_graph(bad)
    assert [e.path for e in info.value.errors] == ["spec.services.Worker.replicas"]


def test_alpha_cel_violation_stops_loading_at_alpha_path() -> None:
    bad = ALPHA_DGD.replace("componentType: worker", "componentType: worker\n      sharedMemory: {disabled: false}")
    with pytest.raises(GraphValidationError) as info:
        load_graph(bad)
    assert str(info.value.errors[0]) == (
        'spec.services[Worker].sharedMemory: Invalid value: "object": size is required when disabled is false'
    )


def test_alpha_dcd_loads_as_beta_dcd() -> None:
    text = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata: {name: fe}
spec: {componentType: frontend}
"""
    graph = load_graph(text)
    assert isinstance(graph, DynamoComponentDeployment)
    assert graph.component_name == "fe"


def test_missing_file_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no such file"):
        load_documents("does-not-exist.yaml")


def test_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_documents(tmp_path)


def test_a_directory_or_a_device_named_as_a_string_says_what_it_is(tmp_path: Path) -> None:
    # a str is a path or YAML text; an existing path is never reported as "no such file"
    with pytest.raises(InputError, match="is a directory, not a file"):
        load_documents(str(tmp_path))
    with pytest.raises(InputError, match="is a character device, not a file"):
        load_documents("/dev/null")


def test_bad_yaml_is_an_input_error() -> None:
    with pytest.raises(InputError, match="invalid YAML"):
        load_documents("kind: [unclosed\nfoo: bar\n")


def test_duplicate_mapping_key_is_an_input_error() -> None:
    with pytest.raises(InputError, match='mapping key "kind" already defined'):
        load_documents("kind: A\nkind: B\napiVersion: v1\n")


def test_non_mapping_document_is_an_input_error() -> None:
    with pytest.raises(InputError, match="expected a mapping"):
        load_documents("- a\n- b\n")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"kind": "DynamoGraphDeployment"}, "no apiVersion"),
        ({"apiVersion": "nvidia.com/v1beta1"}, "no kind"),
        ({"apiVersion": "nvidia.com/v1beta1", "kind": "Widget"}, "unknown kind 'Widget'"),
        ({"apiVersion": "nvidia.com/v2", "kind": "DynamoGraphDeployment"}, "unsupported apiVersion"),
    ],
)
def test_header_problems_are_input_errors(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        load_documents(doc)


def test_error_names_the_document_of_a_multi_document_file(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(BETA_DGD + "---\n- not an object\n")
    with pytest.raises(InputError, match=r"two.yaml \(document 2\)"):
        load_documents(path)


def test_no_graph_is_an_input_error() -> None:
    with pytest.raises(InputError, match="found 0"):
        load_graph(CONFIG_MAP)


def test_two_graphs_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"found 2 \(DynamoGraphDeployment \"g\", DynamoGraphDeployment \"a\"\)"):
        load_graph(BETA_DGD + "---\n" + ALPHA_DGD)


def test_unsupported_source_type_is_an_input_error() -> None:
    with pytest.raises(InputError, match="cannot load from a int"):
        load_documents(3)  # type: ignore[arg-type]


def test_missing_file_without_yaml_suffix_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"graph-file: no such file"):
        load_documents("graph-file")


def test_alpha_extra_pod_spec_is_checked_against_the_pod_spec_schema() -> None:
    bad = ALPHA_DGD.replace("      extraPodSpec:\n", "      extraPodSpec:\n        nodeSelector: gpu\n")
    with pytest.raises(GraphValidationError) as info:
        load_graph(bad)
    assert [str(e) for e in info.value.errors] == [
        'spec.services.Worker.extraPodSpec.nodeSelector: Invalid value: "string": '
        'spec.services.Worker.extraPodSpec.nodeSelector in body must be of type object: "string"'
    ]


def test_alpha_main_container_needs_no_name_and_unknown_fields_are_errors() -> None:
    with pytest.raises(GraphValidationError) as info:
        load_graph(ALPHA_DGD.replace("          image:", "          imagee: x\n          image:"))
    assert [e.message for e in info.value.errors] == [
        'unknown field "spec.services.Worker.extraPodSpec.mainContainer.imagee" (did you mean "image"?)'
    ]
    bad = ALPHA_DGD.replace("          image:", "          imagePullPolicy: 3\n          image:")
    with pytest.raises(GraphValidationError) as info:
        load_graph(bad)
    where = "spec.services.Worker.extraPodSpec.mainContainer.imagePullPolicy"
    assert [str(e) for e in info.value.errors] == [
        f'{where}: Invalid value: "integer": {where} in body must be of type string: "integer"'
    ]


def test_alpha_env_entries_need_a_name() -> None:
    bad = ALPHA_DGD.replace("      componentType: worker\n", "      componentType: worker\n      envs: [{value: x}]\n")
    with pytest.raises(GraphValidationError) as info:
        load_graph(bad)
    assert [str(e) for e in info.value.errors] == ["spec.services.Worker.envs[0].name: Required value"]


def test_non_string_yaml_keys_become_json_keys_like_kubectl() -> None:
    result = load_documents(CONFIG_MAP.replace("\ndata:\n", "\ndata:\n  1: one\n  true: yes\n  null: nothing\n"))
    assert set(result.others[0]["data"]) == {"1", "true", "null", "created"}


def test_bytes_are_read_as_yaml_text() -> None:
    assert load_graph(BETA_DGD.encode()).name == "g"


def test_non_utf8_bytes_are_an_input_error() -> None:
    with pytest.raises(InputError, match="not UTF-8"):
        load_documents(b"\xff\xfe\x00")
