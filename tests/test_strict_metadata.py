"""Unknown fields under ``metadata`` are errors at their path with the nearest declared name, like
unknown fields anywhere else (a misspelt ``namespace`` would deploy into ``default``, a misspelt
``labels`` would drop every label)."""

from __future__ import annotations

import pytest
from cli_support import ALPHA, BETA, run_cli, write

from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_graph

TYPOS = BETA.replace("  name: beta\n", "  name: beta\n  namespce: prod\n  lables: {team: a}\n  annotatoins: {a: b}\n")


@pytest.mark.parametrize("command", ["validate", "render", "preview"])
def test_misspelt_metadata_fields_are_refused_with_the_nearest_name(tmp_path, capsys, command: str) -> None:
    path = write(tmp_path, "typos.yaml", TYPOS)
    code, _, err = run_cli(capsys, command, path)
    assert code == 1
    assert f'{path}:5:3: unknown field "metadata.namespce" (did you mean "namespace"?)' in err
    assert f'{path}:6:3: unknown field "metadata.lables" (did you mean "labels"?)' in err
    assert f'{path}:7:3: unknown field "metadata.annotatoins" (did you mean "annotations"?)' in err


def test_alpha_metadata_is_strict_too() -> None:
    with pytest.raises(GraphValidationError) as caught:
        load_graph(ALPHA.replace("  name: alpha\n", "  name: alpha\n  namepsace: x\n"))
    assert [e.message for e in caught.value.errors] == ['unknown field "metadata.namepsace" (did you mean "namespace"?)']


def test_every_object_meta_field_is_accepted() -> None:
    meta = ("  generateName: b-\n  uid: u\n  resourceVersion: '1'\n  generation: 2\n  creationTimestamp: '2026-01-01T00:00:00Z'\n"
            "  finalizers: [x/y]\n  ownerReferences: []\n  managedFields: []\n  selfLink: /x\n")
    graph = load_graph(BETA.replace("  name: beta\n", "  name: beta\n" + meta))
    assert graph.metadata.model_extra is not None and graph.metadata.model_extra["generateName"] == "b-"


def test_unknown_fields_elsewhere_suggest_the_nearest_name() -> None:
    with pytest.raises(GraphValidationError) as caught:
        load_graph(BETA.replace("      replicas: 2", "      replicaz: 2"))
    assert [e.message for e in caught.value.errors] == [
        'unknown field "spec.components[1].replicaz" (did you mean "replicas"?)']


def test_a_field_far_from_every_name_gets_no_suggestion() -> None:
    with pytest.raises(GraphValidationError) as caught:
        load_graph(BETA.replace("  name: beta\n", "  name: beta\n  zzzzzz: 1\n"))
    assert [str(e) for e in caught.value.errors] == ['unknown field "metadata.zzzzzz"']


def test_objects_beside_the_graph_have_strict_metadata(tmp_path, capsys) -> None:
    beside = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  lables: {a: b}\n"
    path = write(tmp_path, "beside.yaml", BETA + beside)
    code, _, err = run_cli(capsys, "validate", path)
    assert code == 1
    assert f'{path}:28:3: unknown field "metadata.lables" (did you mean "labels"?)' in err


def test_objects_beside_the_graph_with_valid_metadata_load() -> None:
    from dynamo_pulumi.loading.documents import load_documents

    beside = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {a: b}\n  uid: x\n"
    assert [o["kind"] for o in load_documents(BETA + beside).others] == ["ConfigMap"]
