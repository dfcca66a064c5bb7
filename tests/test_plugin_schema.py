"""The package schema: generated from the code, checked in as ``schema.json``, and valid against
Pulumi's own package metaschema (``pkg/codegen/schema/pulumi.json`` of pulumi/pulumi, stored
under ``tests/fixtures/pulumi_schema/``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dynamo_pulumi.cluster.provider import INPUTS, OUTPUTS
from dynamo_pulumi.plugin.schema import package_schema, schema_text

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "pulumi_schema" / "pulumi.json"


def _python_patterns(node: Any) -> Any:
    """The metaschema's ECMA-262 named groups ``(?<name>`` spelt as Python's ``(?P<name>``
    (the fixture stays byte-for-byte upstream's; only the loaded copy is respelt)."""
    if isinstance(node, dict):
        return {k: (v.replace("(?<", "(?P<") if k == "pattern" and isinstance(v, str) else _python_patterns(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_python_patterns(v) for v in node]
    return node


METASCHEMA = _python_patterns(json.loads(FIXTURE.read_text()))


def test_the_checked_in_schema_is_what_the_code_generates():
    """Regenerate with ``python -m dynamo_pulumi.plugin.schema > schema.json``."""
    assert (REPO / "schema.json").read_text() == schema_text()


def test_the_regeneration_command_prints_it():
    printed = subprocess.run([sys.executable, "-m", "dynamo_pulumi.plugin.schema"], capture_output=True,
                             text=True, check=True).stdout
    assert printed == schema_text()


def test_the_schema_is_a_valid_pulumi_package_schema():
    jsonschema.Draft202012Validator(METASCHEMA).validate(package_schema())


@pytest.mark.parametrize("broken", [
    {"name": "dynamo pulumi"},  # not a package name
    {"resources": {"GraphReadiness": {}}},  # not a type token
    {"resources": {"dynamo:index:GraphReadiness": {"inputProperties": {"graph": {"type": "text"}}}}},
    {"unknownTopLevel": True},
])
def test_the_metaschema_refuses_broken_schemas(broken):
    """The fixture can fail: the same validator refuses what Pulumi's codegen would."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(METASCHEMA).validate({**package_schema(), **broken})


def test_graph_readiness_has_exactly_the_dynamic_resource_inputs_and_outputs():
    readiness = package_schema()["resources"]["dynamo:index:GraphReadiness"]
    assert set(readiness["inputProperties"]) == set(INPUTS)
    assert set(readiness["properties"]) == {*INPUTS, *OUTPUTS}
    assert set(readiness["requiredInputs"]) <= set(INPUTS)


def test_the_components_and_the_provider_configuration():
    schema = package_schema()
    for token in ("dynamo:index:DynamoGraphDeployment", "dynamo:index:DynamoComponentDeployment"):
        component = schema["resources"][token]
        assert component["isComponent"] is True and component["requiredInputs"] == ["spec"]
        assert {"spec", "platform", "namespace", "mode", "placement", "readiness"} <= set(component["inputProperties"])
        assert "state" in component["properties"]
    assert set(schema["config"]["variables"]) == {"kubeconfig", "context"}
    assert schema["config"]["variables"]["kubeconfig"]["secret"] is True
    assert set(schema["provider"]["inputProperties"]) == {"kubeconfig", "context"}


def test_the_plugin_tokens_are_the_python_components_types():
    from dynamo_pulumi.plugin import tokens
    from dynamo_pulumi.resources import components
    from dynamo_pulumi.resources.readiness_plugin import TYPE

    assert (tokens.DGD_TYPE, tokens.DCD_TYPE, tokens.READINESS_TYPE) == (components.DGD_TYPE, components.DCD_TYPE, TYPE)


def test_the_go_sdk_has_a_module_path_the_readme_names() -> None:
    """Issue 23: the README's Go step named no module path and the schema had no ``language.go``."""
    go = package_schema()["language"]["go"]
    assert go["importBasePath"] == f"{go['modulePath']}/dynamo"
    readme = (REPO / "README.md").read_text()
    assert f"-replace={go['modulePath']}=./sdks/go" in readme and f"import `{go['importBasePath']}`" in readme
    assert '"@pulumi/dynamo": "file:sdks/nodejs"' in readme  # where gen-sdk --language nodejs writes it
