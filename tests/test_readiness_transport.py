"""``ReadinessOptions(provider=...)``: the Python program chooses the readiness transport.

Under mocks: the plugin transport registers ``dynamo:index:GraphReadiness`` with the very name,
parent, dependencies and inputs the dynamic transport registers (so a stack moves between them
with an alias on the type). Either transport connects the way the graph's children do
(issue 25, item 1): a stack's ``dynamo:kubeconfig`` never replaces the children's connection;
where the children use the ambient one, the resource says so (``ambient``), so the plugin does
not fill in its own configuration.
"""

from __future__ import annotations

import pytest
from resources_fixtures import GRAPH, NS, small_plan

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions
from dynamo_pulumi.resources.readiness_plugin import DYNAMIC_TYPE, TYPE

KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\n"


def _readiness(provider: str, config: dict[str, str] | None = None, **options):
    rec, _ = run_program(
        lambda: DynamoGraphDeployment(GRAPH, small_plan(), readiness=ReadinessOptions(provider=provider, **options)),
        preview=False, config=config)
    found = [r for r in rec.resources if r.type in (TYPE, DYNAMIC_TYPE)]
    assert len(found) == 1
    return rec, found[0]


def _uris(rec, registration):
    parent = next(r for r in rec.resources if r.urn == registration.parent_urn)
    return parent.name, sorted(d.rsplit("::", 1)[-1] for d in registration.dependencies)


def test_dynamic_stays_the_default():
    assert ReadinessOptions().provider == "dynamic"
    _, readiness = _readiness("dynamic")
    assert readiness.type == DYNAMIC_TYPE


def test_the_plugin_transport_registers_the_same_resource_under_its_own_type():
    dynamic_rec, dynamic = _readiness("dynamic", kubeconfig=KUBECONFIG, timeout="20m")
    plugin_rec, plugin = _readiness("plugin", kubeconfig=KUBECONFIG, timeout="20m")
    assert plugin.type == TYPE == "dynamo:index:GraphReadiness"
    assert plugin.name == dynamic.name == f"{NS}/{GRAPH}"
    assert _uris(plugin_rec, plugin) == _uris(dynamic_rec, dynamic)
    dynamic_inputs = {k: v for k, v in dynamic.inputs.items() if k != "__provider"}
    assert plugin.inputs == dynamic_inputs


def test_a_plugin_configuration_never_replaces_the_connection_of_the_children():
    config = {"dynamo:kubeconfig": KUBECONFIG, "kubernetes:kubeconfig": "other", "kubernetes:context": "ctx"}
    for transport in ("plugin", "dynamic"):
        _, readiness = _readiness(transport, config=config)
        assert readiness.inputs["kubeconfig"]["value"] == "other" and readiness.inputs["context"] == "ctx"
        assert readiness.inputs["ambient"] is False


def test_children_on_the_ambient_connection_make_the_readiness_say_so():
    _, readiness = _readiness("plugin", config={"dynamo:kubeconfig": KUBECONFIG})
    assert readiness.inputs["ambient"] is True
    assert not readiness.inputs.get("kubeconfig") and not readiness.inputs.get("context")


def test_without_plugin_config_the_plugin_gets_the_kubernetes_stack_config():
    _, readiness = _readiness("plugin", config={"kubernetes:kubeconfig": KUBECONFIG, "kubernetes:context": "ctx"})
    assert readiness.inputs["kubeconfig"]["value"] == KUBECONFIG and readiness.inputs["context"] == "ctx"


def test_an_explicit_connection_wins_over_the_provider_config():
    _, readiness = _readiness("plugin", config={"dynamo:context": "green"}, context="blue")
    assert readiness.inputs["context"] == "blue"


def test_an_unknown_transport_is_refused_when_the_options_are_made():
    with pytest.raises(InputError, match="readiness provider must be one of dynamic, plugin, not 'grpc'"):
        ReadinessOptions(provider="grpc")  # type: ignore[arg-type]


def test_the_kubeconfig_is_a_secret_input_under_the_plugin():
    _, readiness = _readiness("plugin", kubeconfig=KUBECONFIG)
    assert readiness.inputs["kubeconfig"] == {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                                              "value": KUBECONFIG}
