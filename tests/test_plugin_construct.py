"""``Construct`` of the components through the plugin, as a TypeScript/Go/YAML program reaches it.

The plugin is started as its console script; ``Construct`` is called with the engine's request
and a mock resource monitor (``plugin_support.FakeEngine``) records every registration. The
oracle is the in-process Python component run under mocks on the same graph: one
implementation, two doors, so the registrations (types and names, hence URNs) are the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from plugin_support import SCRIPT, UNKNOWN, CallFailed, FakeEngine, Plugin, from_struct, to_struct, unwrap
from pulumi.runtime.proto import provider_pb2

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources.components import DGD_TYPE, DynamoGraphDeployment
from dynamo_pulumi.resources.readiness import ReadinessOptions

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="pulumi-resource-dynamo is not installed (pip install -e .)")

REPO = Path(__file__).resolve().parent.parent
GRAPH = REPO / "examples" / "plugin-yaml" / "graph.yaml"


@pytest.fixture(scope="module")
def started_engine():
    fake = FakeEngine().start()
    yield fake
    fake.stop()


@pytest.fixture
def engine(started_engine):
    """The module's engine, with no registration recorded yet."""
    with started_engine.lock:
        started_engine.registered.clear()
    return started_engine


@pytest.fixture(scope="module")
def plugin(started_engine):
    started = Plugin(started_engine)
    yield started
    started.close()


def construct(plugin: Plugin, engine: FakeEngine, inputs: dict[str, Any], type_: str = DGD_TYPE,
              name: str = "vllm-agg") -> provider_pb2.ConstructResponse:
    request = provider_pb2.ConstructRequest(
        project="proj", stack="dev", dryRun=True, monitorEndpoint=engine.address, type=type_, name=name,
        inputs=to_struct(inputs),
    )
    try:
        return plugin.stub.Construct(request, timeout=120)
    except Exception as error:
        raise CallFailed(error) from None  # type: ignore[arg-type]


def registered(engine: FakeEngine) -> list[tuple[str, str]]:
    return sorted((r.type, r.name) for r in engine.registered)


def in_process(spec: Any) -> list[tuple[str, str]]:
    """What the Python component registers for the same graph (the oracle)."""
    def program() -> None:
        DynamoGraphDeployment("vllm-agg", spec, namespace="dynamo", readiness=ReadinessOptions(provider="plugin"))

    recording, _ = run_program(program, preview=True)
    return sorted((r.type, r.name) for r in recording.resources if r.type != "pulumi:pulumi:Stack")


def test_construct_registers_what_the_python_component_registers(plugin, engine):
    response = construct(plugin, engine, {"spec": str(GRAPH), "namespace": "dynamo"})
    assert response.urn == f"urn:pulumi:dev::proj::{DGD_TYPE}::vllm-agg"
    assert registered(engine) == in_process(GRAPH)
    types = {t for t, _ in registered(engine)}
    assert {"kubernetes:apps/v1:Deployment", "dynamo:index:GraphReadiness",
            "dynamo:index:DynamoComponentDeployment"} <= types


def test_construct_returns_the_outputs(plugin, engine):
    state = from_struct(construct(plugin, engine, {"spec": str(GRAPH), "namespace": "dynamo"}).state)
    assert unwrap(state["totalGpus"]) == 2
    assert state["frontendUrl"] == "http://vllm-agg-frontend.dynamo.svc.cluster.local:8000"
    assert sorted(state["components"]) == ["Frontend", "VllmWorker"]
    assert state["state"] == UNKNOWN  # decided by the wait, which preview never does


def test_the_spec_as_yaml_text_or_object_with_doubles(plugin, engine):
    """An object spec arrives with doubles (``replicas: 2.0``): still the integer 2."""
    text = GRAPH.read_text()
    construct(plugin, engine, {"spec": text, "namespace": "dynamo"})
    from_text = registered(engine)
    engine.registered.clear()
    document = yaml.safe_load(text)
    document["spec"]["components"][1]["replicas"] = 2.0
    construct(plugin, engine, {"spec": document, "namespace": "dynamo"})
    assert registered(engine) == from_text
    deployment = next(r for r in engine.registered if r.type == "kubernetes:apps/v1:Deployment"
                      and "worker" in r.name.lower())
    assert from_struct(deployment.object)["spec"]["replicas"] == 2


def test_the_readiness_resource_gets_the_connection_and_deadline(plugin, engine):
    construct(plugin, engine, {"spec": str(GRAPH), "namespace": "dynamo",
                               "readiness": {"timeout": "45m", "context": "blue"}})
    readiness = next(r for r in engine.registered if r.type == "dynamo:index:GraphReadiness")
    props = unwrap(from_struct(readiness.object))
    assert readiness.name == "dynamo/vllm-agg"
    assert props["timeout_seconds"] == 2700 and props["context"] == "blue"


def test_an_invalid_graph_is_one_message_and_registers_nothing(plugin, engine):
    document = yaml.safe_load(GRAPH.read_text())
    document["spec"]["components"][1]["replicas"] = -1
    with pytest.raises(CallFailed) as failure:
        construct(plugin, engine, {"spec": document, "namespace": "dynamo"})
    message = failure.value.message
    assert "spec.components[1].replicas" in message, message
    for trace in ("Traceback", 'File "', "Unexpected <class"):
        assert trace not in message, message
    assert engine.registered == []


def test_bad_readiness_options_name_the_field(plugin, engine):
    with pytest.raises(CallFailed, match=r"readiness: unknown field\(s\) wiat"):
        construct(plugin, engine, {"spec": str(GRAPH), "readiness": {"wiat": False}})
    with pytest.raises(CallFailed, match="readiness timeout"):
        construct(plugin, engine, {"spec": str(GRAPH), "readiness": {"timeout": "soon"}})


def test_an_unknown_inside_the_spec_is_rendered_around_as_in_python(plugin, engine):
    """In preview an argument computed from another resource arrives unknown: the component
    renders the rest and the child's field stays unknown (as a Python program's Output would)."""
    document = yaml.safe_load(GRAPH.read_text())
    document["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["args"][1] = UNKNOWN
    construct(plugin, engine, {"spec": document, "namespace": "dynamo"})
    worker = next(r for r in engine.registered if r.type == "kubernetes:apps/v1:Deployment" and "worker" in r.name.lower())
    container = from_struct(worker.object)["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][:2] == ["--model", UNKNOWN]


def test_a_wholly_unknown_spec_is_refused_by_name(plugin, engine):
    with pytest.raises(CallFailed, match="spec: must be known when the program runs"):
        construct(plugin, engine, {"spec": UNKNOWN})
