"""One object once per input: a second document with the same API group, kind, namespace and
name is refused naming both documents' lines, by every command and by the loader the components
use."""

from __future__ import annotations

import pytest
from cli_support import ALPHA, BETA, run_cli, write

from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.floor.duplicates import duplicate_errors, identity
from dynamo_pulumi.floor.yaml_source import parse_documents
from dynamo_pulumi.loading.documents import load_documents

TWICE = f"{BETA}---\n{BETA}"
DETAIL = ('metadata.name: Duplicate value: "beta": DynamoGraphDeployment "beta" is defined twice in one input: '
          "document 1 (line 4) and document 2 (line 27)")


@pytest.mark.parametrize("command", ["validate", "render", "preview"])
def test_the_second_document_is_refused_naming_both_lines(tmp_path, capsys, command: str) -> None:
    path = write(tmp_path, "twice.yaml", TWICE)
    code, _, err = run_cli(capsys, command, path)
    assert code == 1
    assert f"{path}:27:3: {DETAIL}" in err


def test_diff_refuses_a_new_file_with_a_duplicate(tmp_path, capsys) -> None:
    code, _, err = run_cli(capsys, "diff", write(tmp_path, "old.yaml", BETA), write(tmp_path, "new.yaml", TWICE))
    assert code == 1 and DETAIL in err


def test_validate_still_judges_the_first_document(tmp_path, capsys) -> None:
    code, out, _ = run_cli(capsys, "validate", write(tmp_path, "twice.yaml", TWICE))
    assert code == 1 and '(document 1): DynamoGraphDeployment "beta" is valid' in out


def test_the_loader_of_the_components_refuses_it() -> None:
    with pytest.raises(GraphValidationError, match="is defined twice in one input"):
        load_documents(TWICE)


def test_same_name_in_another_namespace_kind_or_group_is_no_duplicate() -> None:
    other_ns = BETA.replace("  name: beta\n", "  name: beta\n  namespace: other\n")
    dcd = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "beta"}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "beta"}}
    docs = [(d.value, d.positions) for d in parse_documents(f"{BETA}---\n{other_ns}")] + [(dcd, None), (cm, None)]
    assert duplicate_errors(docs) == {}


def test_alpha_and_beta_of_one_object_are_one_object() -> None:
    alpha = ALPHA.replace("name: alpha", "name: beta")
    docs = [(d.value, d.positions) for d in parse_documents(f"{BETA}---\n{alpha}")]
    assert list(duplicate_errors(docs)) == [1]


def test_other_kinds_are_checked_too_and_nameless_documents_skipped() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}}
    errors = duplicate_errors([(cm, None), ({"kind": "ConfigMap"}, None), (dict(cm), None)])
    assert list(errors) == [2]
    assert "ConfigMap \"c\" in namespace \"n\" is defined twice in one input: document 1 and document 3" in str(errors[2])


def test_identity_is_group_kind_namespace_name() -> None:
    assert identity({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}) == ("apps", "Deployment", "", "d")
    assert identity({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "x"}}) == ("", "Service", "x", "s")
    assert identity({"apiVersion": "v1", "kind": "Service", "metadata": {"name": ""}}) is None
    assert identity(["not", "a", "mapping"]) is None
