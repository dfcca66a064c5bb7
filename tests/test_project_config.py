"""Users can check the conventions with our own tools (issue 25, item 8): every stack config key the
root program reads is declared in ``Pulumi.yaml``, and ``preview -o json`` shows each resource's
provider, ``protect`` and ``customTimeouts``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import yaml
from resources_fixtures import graph_doc

from dynamo_pulumi.cli.preview_cmd import as_json
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.program.graph_program import CONFIG_NAMESPACE
from dynamo_pulumi.resources import DynamoGraphDeployment

ROOT = Path(__file__).resolve().parent.parent


def _keys_read_by_the_root_program() -> set[str]:
    """Every ``config.get*("key")`` in dynamo_pulumi/program/graph_program.py."""
    tree = ast.parse((ROOT / "dynamo_pulumi" / "program" / "graph_program.py").read_text())
    return {
        call.args[0].value
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr.startswith("get")
        and isinstance(call.func.value, ast.Name) and call.func.value.id == "config"
        and call.args and isinstance(call.args[0], ast.Constant)
    }


def test_every_key_the_root_program_reads_is_declared_in_pulumi_yaml():
    declared = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())["config"]
    read = _keys_read_by_the_root_program()
    assert read >= {"graph", "namespace", "platform", "mode", "wait", "timeout"}
    assert {f"{CONFIG_NAMESPACE}:{key}" for key in read} <= set(declared)
    assert declared[f"{CONFIG_NAMESPACE}:wait"]["type"] == "boolean"
    assert all(entry.get("description") for entry in declared.values())


def test_preview_json_shows_the_provider_protect_and_custom_timeouts_of_every_resource():
    def program():
        provider = k8s.Provider("gke", kubeconfig="kc")
        DynamoGraphDeployment("llm", graph_doc(), opts=pulumi.ResourceOptions(provider=provider, protect=True))

    rec, _ = run_program(program)
    entries = as_json(rec)
    provider_urn = rec.named("gke").urn
    by_name = {(e["type"], e["name"]): e for e in entries}
    children = [e for e in entries if e["type"].startswith("kubernetes:")]
    assert children and {e["provider"] for e in children} == {provider_urn}
    assert all(e["protect"] is True for e in children)  # protect reaches every child
    dgd = by_name[("dynamo:index:DynamoGraphDeployment", "llm")]
    assert dgd["providers"] == {"kubernetes": provider_urn} and "provider" not in dgd
    frontend = next(e for e in children if e["type"].endswith("Deployment") and "frontend" in e["name"])
    assert frontend["customTimeouts"] == {"create": "3600s", "update": "3600s", "delete": "3600s"}
    assert by_name[("pulumi:providers:kubernetes", "gke")]["provider"] == "default"
    json.dumps(entries, sort_keys=True)  # plain JSON


def test_a_resource_of_the_default_provider_says_default():
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", graph_doc()))
    children = [e for e in as_json(rec) if e["type"].startswith("kubernetes:")]
    assert {e["provider"] for e in children} == {"default"} and not any(e["protect"] for e in children)
