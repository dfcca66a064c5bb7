"""The TypeScript and YAML examples: the same graph, through the plugin.

No Pulumi CLI here, so the YAML program's ``graph`` resource is played as the engine would:
its properties (``fn::readFile`` resolved) go to the plugin's ``Construct``, and what it
registers must be what the Python component registers for the same graph. The TypeScript
program is checked for the same graph, type and arguments; both run for real, through the real
engine on the local cluster, in ``tests/e2e/test_engine_plugin_languages.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from plugin_support import SCRIPT, FakeEngine, Plugin, from_struct, unwrap
from test_plugin_construct import construct, in_process, registered

from dynamo_pulumi.plugin.schema import package_schema

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="pulumi-resource-dynamo is not installed (pip install -e .)")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
YAML_PROGRAM = EXAMPLES / "plugin-yaml"
TS_PROGRAM = EXAMPLES / "plugin-typescript"


def _yaml_program() -> dict:
    return yaml.safe_load((YAML_PROGRAM / "Pulumi.yaml").read_text())


def _resolved(value, config: dict[str, str]):
    """The engine's view of a property: ``fn::readFile`` read, ``${key}`` of a config key substituted."""
    if isinstance(value, dict) and set(value) == {"fn::readFile"}:
        return (YAML_PROGRAM / value["fn::readFile"]).read_text()
    if isinstance(value, dict):
        return {k: _resolved(v, config) for k, v in value.items()}
    if isinstance(value, str) and value.startswith("${") and value.endswith("}") and value[2:-1] in config:
        return config[value[2:-1]]
    return value


def test_both_examples_use_the_aggregated_vllm_graph():
    original = (EXAMPLES / "aggregated-vllm" / "graph.yaml").read_text()
    assert (YAML_PROGRAM / "graph.yaml").read_text() == original
    assert (TS_PROGRAM / "graph.yaml").read_text() == original


def test_the_yaml_program_constructs_what_the_python_component_registers():
    program = _yaml_program()
    graph = program["resources"]["graph"]
    assert graph["type"] == "dynamo:index:DynamoGraphDeployment"
    assert set(graph["properties"]) <= set(package_schema()["resources"][graph["type"]]["inputProperties"])
    inputs = _resolved(graph["properties"], {key: c["default"] for key, c in program["config"].items()})
    assert inputs["readiness"] == {"timeout": "45m"} and inputs["namespace"] == "dynamo"
    engine = FakeEngine().start()
    plugin = Plugin(engine)
    try:
        response = construct(plugin, engine, inputs, name="vllm-agg")
    finally:
        plugin.close()
        engine.stop()
    assert registered(engine) == in_process(EXAMPLES / "aggregated-vllm" / "graph.yaml")
    state = unwrap(from_struct(response.state))
    for output in program["outputs"].values():  # every output the program exports exists
        assert output.removeprefix("${graph.").removesuffix("}") in state


def test_the_programs_find_the_plugin_the_way_the_readme_says():
    for folder in (YAML_PROGRAM, TS_PROGRAM):
        project = yaml.safe_load((folder / "Pulumi.yaml").read_text())
        (provider,) = project["plugins"]["providers"]
        assert provider["name"] == "dynamo" and (folder / provider["path"]).resolve().name == "bin"


def test_the_typescript_program_passes_the_schema_arguments():
    source = (TS_PROGRAM / "index.ts").read_text()
    assert 'new dynamo.DynamoGraphDeployment("vllm-agg"' in source and '"graph.yaml"' in source
    assert 'config.get("readinessTimeout") ?? "45m"' in source
    inputs = package_schema()["resources"]["dynamo:index:DynamoGraphDeployment"]["inputProperties"]
    for argument in ("spec", "namespace", "readiness"):
        assert f"{argument}" in source and argument in inputs
    outputs = package_schema()["resources"]["dynamo:index:DynamoGraphDeployment"]["properties"]
    for exported in ("frontendUrl", "totalGpus", "state"):
        assert f"graph.{exported}" in source and exported in outputs
