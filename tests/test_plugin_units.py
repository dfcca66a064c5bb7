"""The plugin's pieces in-process (the gRPC tests run them in the plugin's own process): wire
values, the component arguments, the provider's configuration and routing, and the readiness
transport called directly, its waits on the sized pool."""

from __future__ import annotations

import asyncio

import pytest
import readiness_contract as contract
from pulumi.provider.experimental import provider as sdk
from pulumi.provider.experimental.property_value import PropertyValue

from dynamo_pulumi.cluster import aio
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.planning.placement import GpuPlacement
from dynamo_pulumi.plugin import components, values
from dynamo_pulumi.plugin.engine_log import Line
from dynamo_pulumi.plugin.provider import DynamoProvider, _resource_type, _setting
from dynamo_pulumi.plugin.readiness import PREVIEWED, ReadinessFailure

URN = "urn:pulumi:dev::proj::dynamo:index:GraphReadiness::team-a/llm"
#: The readiness resource a component creates: the engine prefixes the parent's type chain.
NESTED_URN = "urn:pulumi:dev::proj::dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness::team-a/llm"


# --- wire values -------------------------------------------------------------------------------

def test_integral_doubles_become_ints_and_others_stay():
    value = PropertyValue({"replicas": PropertyValue(1.0), "ratio": PropertyValue(0.5),
                           "list": PropertyValue([PropertyValue(2.0), PropertyValue("x")]),
                           "on": PropertyValue(True), "none": PropertyValue.null()})
    plain = values.plain(value)
    assert plain == {"replicas": 1, "ratio": 0.5, "list": [2, "x"], "on": True, "none": None}
    assert type(plain["replicas"]) is int and type(plain["list"][0]) is int and plain["on"] is True


def test_unknowns_become_the_engine_sentinel_and_secrets_are_unwrapped():
    props = {"a": PropertyValue.computed(), "b": PropertyValue("s").with_secret(True), "c": PropertyValue("p")}
    assert values.plain_map(props) == {"a": values.UNKNOWN, "b": "s", "c": "p"}
    assert values.secret_keys(props) == {"b"}
    nested = {"n": PropertyValue({"k": PropertyValue("s").with_secret(True)})}
    assert values.secret_keys(nested) == {"n"}


def test_values_go_back_on_the_wire_with_secrets_and_numbers_as_doubles():
    wired = values.wire_map({"n": 3, "f": 1.5, "s": "x", "b": False, "z": None, "m": {"k": [1]},
                             "kubeconfig": "kc", "ctx": "c"}, secrets={"ctx"})
    assert wired["n"] == PropertyValue(3.0) and wired["f"] == PropertyValue(1.5)
    assert wired["s"] == PropertyValue("x") and wired["b"] == PropertyValue(False)
    assert wired["z"] == PropertyValue.null() and not wired["z"].is_secret
    assert wired["m"] == PropertyValue({"k": PropertyValue([PropertyValue(1.0)])})
    assert wired["kubeconfig"].is_secret and wired["ctx"].is_secret and not wired["s"].is_secret
    assert values.wire_map({"kubeconfig": None})["kubeconfig"] == PropertyValue.null()
    with pytest.raises(TypeError, match="cannot send a object to the engine"):
        values.wire(object())


# --- component arguments -----------------------------------------------------------------------

def test_a_spec_is_an_object_a_path_or_text():
    assert components.spec_source("graphs/g.yaml", "g") == "graphs/g.yaml"
    assert components.spec_source({"spec": {}}, "g") == {"spec": {}}
    text = components.spec_source("kind: DynamoGraphDeployment\nspec: {}\n", "g")
    assert isinstance(text, SourceText) and text.name == "g spec" and text.text.startswith("kind:")
    with pytest.raises(InputError, match="spec: must be an object, a YAML file path or YAML text, not int"):
        components.spec_source(3, "g")
    with pytest.raises(InputError, match="spec: must be known when the program runs"):
        components.spec_source(values.UNKNOWN, "g")


def test_a_platform_is_an_object_a_path_text_or_absent():
    assert components.platform_source(None) is None
    assert components.platform_source("p.yaml") == "p.yaml"
    assert components.platform_source("a: 1\nb: 2\n") == {"a": 1, "b": 2}
    with pytest.raises(InputError, match="platform"):
        components.platform_source(values.UNKNOWN)


def test_placement_maps_the_schema_names():
    assert components.placement_of(None) is None
    placement = components.placement_of({"nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "k"}],
                                         "gpuResourceName": "amd.com/gpu", "components": ["w"]})
    assert placement == GpuPlacement(node_selector={"pool": "gpu"}, tolerations=[{"key": "k"}],
                                     gpu_resource_name="amd.com/gpu", components=["w"])
    assert components.placement_of({}).gpu_resource_name == "nvidia.com/gpu"
    with pytest.raises(InputError, match=r"^placement: must be an object$"):
        components.placement_of(["x"])


def test_readiness_options_always_use_the_plugin_transport():
    options = components.readiness_of({"wait": False, "timeout": "45m", "context": "blue", "kubeconfig": None})
    assert (options.wait, options.timeout_seconds, options.context, options.kubeconfig) == (False, 2700, "blue", None)
    assert options.provider == "plugin" and components.readiness_of(None).provider == "plugin"
    with pytest.raises(InputError, match=r"unknown field\(s\) a, b; allowed: wait, timeout, kubeconfig, context"):
        components.readiness_of({"b": 1, "a": 2})


def test_an_unknown_component_type_is_refused():
    with pytest.raises(InputError, match="unknown resource type 'dynamo:index:Other'"):
        components.build("dynamo:index:Other", "x", {"spec": "g.yaml"}, None)  # type: ignore[arg-type]


# --- provider configuration and routing --------------------------------------------------------

def test_settings_come_from_args_else_the_legacy_variables():
    assert _setting({"kubeconfig": "a"}, {"dynamo:config:kubeconfig": "b"}, "kubeconfig") == "a"
    assert _setting({}, {"dynamo:config:kubeconfig": "b"}, "kubeconfig") == "b"
    assert _setting({"context": ""}, {"dynamo:context": "c"}, "context") == "c"
    assert _setting({"context": values.UNKNOWN}, {}, "context") is None


def _configure(provider: DynamoProvider, **args) -> sdk.ConfigureResponse:
    request = sdk.ConfigureRequest({}, values.wire_map(args), True, True)
    return asyncio.run(provider.configure(request))


def test_configure_keeps_the_connection_for_the_readiness_resource():
    provider = DynamoProvider("1.0.0", None)
    response = _configure(provider, kubeconfig="kc", context="blue")
    assert (response.accept_secrets, response.supports_preview, response.accept_resources, response.accept_outputs) \
        == (True, True, True, True)
    assert provider.connection == ("kc", "blue")
    resource = provider._custom(URN)
    assert resource.connection == aio.ProviderConnection("kc", "blue")
    _configure(provider, context="green")
    assert resource.connection == aio.ProviderConnection(None, "green")
    assert provider._custom(URN) is resource
    with pytest.raises(InputError, match="no custom resource 'dynamo:index:Other'"):
        provider._custom("urn:pulumi:dev::proj::dynamo:index:Other::x")
    legacy = sdk.ConfigureRequest({"dynamo:config:context": "red"}, {}, True, True)
    asyncio.run(provider.configure(legacy))
    assert provider.connection == (None, "red") and resource.connection.context == "red"
    asyncio.run(provider.configure(sdk.ConfigureRequest({}, {}, True, True)))
    assert provider.connection == (None, None)


@pytest.mark.parametrize(("urn", "own_type"), [
    (URN, "dynamo:index:GraphReadiness"),
    (NESTED_URN, "dynamo:index:GraphReadiness"),
    # a component inside a component (a YAML or TypeScript program's own component as the parent)
    ("urn:pulumi:dev::proj::my:app:Stack$dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness::g",
     "dynamo:index:GraphReadiness"),
    # names may hold "::" (the engine reads the name as everything after the third delimiter)
    ("urn:pulumi:dev::proj::dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness::a::b", "dynamo:index:GraphReadiness"),
    ("urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev", "pulumi:pulumi:Stack"),
    ("urn:pulumi:dev::proj::dynamo:index:GraphReadiness", ""),  # no name part: not a resource URN
    ("", ""),
])
def test_the_resource_type_is_the_last_segment_of_the_urns_type_chain(urn, own_type):
    assert _resource_type(urn) == own_type


def test_a_component_child_readiness_resource_is_served_and_other_nested_types_refused():
    provider = DynamoProvider("1.0.0", None)
    assert provider._custom(NESTED_URN) is provider._custom(URN)
    other = "urn:pulumi:dev::proj::dynamo:index:DynamoGraphDeployment$dynamo:index:Other::x"
    with pytest.raises(InputError, match=r"^the dynamo provider has no custom resource 'dynamo:index:Other'$"):
        provider._custom(other)


@pytest.mark.parametrize("verb", ["check", "diff", "create", "read", "update", "delete"])
def test_every_verb_routes_a_component_child_to_the_readiness_resource(verb, monkeypatch):
    from dynamo_pulumi.plugin.readiness import ReadinessResource

    seen: list[str] = []

    async def answer(self, request):
        seen.append(request.urn)
        return verb

    monkeypatch.setattr(ReadinessResource, verb, answer)
    provider = DynamoProvider("1.0.0", None)
    request = type("Request", (), {"urn": NESTED_URN})()
    assert asyncio.run(getattr(provider, verb)(request)) == (None if verb == "delete" else verb)
    assert seen == [NESTED_URN]


def test_a_resource_connection_wins_over_the_providers():
    connection = aio.ProviderConnection("provider-kc", "provider-ctx")
    assert connection.applied_to({"graph": "g"}) == {"graph": "g", "kubeconfig": "provider-kc", "context": "provider-ctx"}
    assert connection.applied_to({"kubeconfig": "own"}) == {"kubeconfig": "own"}
    assert connection.applied_to({"context": "own"}) == {"context": "own"}
    assert repr(connection) == "ProviderConnection(kubeconfig=<given>, context='provider-ctx')"
    assert repr(aio.ProviderConnection()) == "ProviderConnection(kubeconfig=None, context=None)"


def test_the_wait_pool_is_sized_for_many_graphs_and_made_once():
    assert aio.WAIT_THREADS >= 64
    assert aio.wait_pool() is aio.wait_pool() and aio.wait_pool()._max_workers == aio.WAIT_THREADS


def test_the_drift_warning_lists_findings_and_unread_kinds():
    assert aio.drift_warning("G", [], []) == ""
    text = aio.drift_warning("G", [{"object": "Deployment/x", "path": "spec.replicas", "predicted": 1, "actual": 2}],
                             ["Service: not compared"])
    assert text.startswith("G: the operator's objects differ from the prediction (1 findings):\n")
    assert text.endswith("\nService: not compared") and "Deployment/x" in text


# --- the readiness transport called directly ---------------------------------------------------

def _resource(provider: DynamoProvider | None = None):
    return (provider or DynamoProvider("1.0.0", None))._custom(URN)


def test_preview_never_waits(server):
    resource = _resource()
    request = sdk.CreateRequest(URN, values.wire_map(contract.props(server)), 0, True)
    response = asyncio.run(resource.create(request))
    assert response.resource_id == ""
    assert {k: values.plain(response.properties[k]) for k in PREVIEWED} == PREVIEWED
    update = sdk.UpdateRequest(URN, "team-a/llm", {}, values.wire_map(contract.props(server)), 0, [], True)
    assert values.plain(asyncio.run(resource.update(update)).properties["state"]) == values.UNKNOWN
    assert server.log == []


def test_create_waits_through_the_pool_and_logs_progress(server):
    contract.ready_after_one_change(server)
    lines: list[tuple[str, str, bool]] = []
    provider = DynamoProvider("1.0.0", None)

    def send(message, urn="", *, severity=0, ephemeral=False):
        lines.append((urn, message, ephemeral))
        line = Line(message, urn, severity, ephemeral)
        line.sent.set()
        return line

    provider.log.send = send  # type: ignore[method-assign]
    response = asyncio.run(_resource(provider).create(
        sdk.CreateRequest(URN, values.wire_map(contract.props(server)), 0, False)))
    assert response.resource_id == "team-a/llm"
    assert values.plain(response.properties["state"]) == "successful"
    assert lines and all(urn == URN and ephemeral for urn, _, ephemeral in lines)
    assert lines[-1][1] == "DynamoGraphDeployment team-a/llm: Frontend: 2/2 ready"


def test_a_failed_read_is_a_readiness_failure(server):
    request = sdk.ReadRequest(URN, "team-a/llm", values.wire_map(contract.props(None, kubeconfig="/nope")), {})
    with pytest.raises(ReadinessFailure, match=r"^kubeconfig file '/nope' does not exist$"):
        asyncio.run(_resource().read(request))


def test_wait_false_reads_and_waits_nothing(server):
    resource = _resource()
    props = values.wire_map(contract.props(server, wait=False))
    read = asyncio.run(resource.read(sdk.ReadRequest(URN, "team-a/llm", props, props)))
    assert "state" not in read.properties and read.inputs == props
    created = asyncio.run(resource.create(sdk.CreateRequest(URN, props, 0, False)))
    assert values.plain(created.properties["state"]) == "" and values.plain(created.properties["drift"]) == []
    assert server.log == []


def test_program_values_keep_unknowns_and_secrets_as_outputs():
    import pulumi

    async def resolve():
        value = values.program_value(PropertyValue({
            "n": PropertyValue(2.0), "u": PropertyValue.computed(),
            "s": PropertyValue("x").with_secret(True), "l": PropertyValue([PropertyValue.computed()]),
        }))
        assert value["n"] == 2 and type(value["n"]) is int
        assert isinstance(value["u"], pulumi.Output) and not await value["u"].is_known()
        assert isinstance(value["s"], pulumi.Output) and await value["s"].is_secret() and await value["s"].future() == "x"
        assert isinstance(value["l"][0], pulumi.Output)
        whole = values.program_value(PropertyValue.computed().with_secret(True))
        assert not await whole.is_known() and await whole.is_secret()
        assert values.program_value(PropertyValue("plain")) == "plain"

    asyncio.run(resolve())


# --- Construct's arguments, in-process under mocks ---------------------------------------------

GRAPH_FILE = __import__("pathlib").Path(__file__).resolve().parent.parent / "examples" / "plugin-yaml" / "graph.yaml"


def _registered(program) -> dict[tuple[str, str], dict]:
    from dynamo_pulumi.mocks import run_program

    recording, _ = run_program(program, preview=False)
    return {(r.type, r.name): r.inputs for r in recording.resources if r.type != "pulumi:pulumi:Stack"}


def test_build_passes_every_argument_as_the_python_program_would():
    import pulumi

    from dynamo_pulumi.resources.components import DGD_TYPE, DynamoGraphDeployment
    from dynamo_pulumi.resources.readiness import ReadinessOptions

    args = {"namespace": "team-b", "platform": "operatorVersion: 1.3.1\n",
            "placement": {"nodeSelector": {"pool": "gpu"}}, "readiness": {"timeout": "20m", "wait": False}}
    from_schema = _registered(lambda: components.build(DGD_TYPE, "vllm-agg", {"spec": str(GRAPH_FILE), **args},
                                                       pulumi.ResourceOptions()))
    from_python = _registered(lambda: DynamoGraphDeployment(
        "vllm-agg", GRAPH_FILE, namespace="team-b", platform={"operatorVersion": "1.3.1"},
        placement=GpuPlacement(node_selector={"pool": "gpu"}),
        readiness=ReadinessOptions(timeout="20m", wait=False, provider="plugin")))
    assert from_schema == from_python
    worker = next(i for (t, n), i in from_schema.items() if t == "kubernetes:apps/v1:Deployment" and "worker" in n.lower())
    assert worker["metadata"]["namespace"] == "team-b"
    assert worker["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "gpu"}
    readiness = next(i for (t, _), i in from_schema.items() if t == "dynamo:index:GraphReadiness")
    assert readiness["timeout_seconds"] == 1200 and readiness["wait"] is False


def test_build_operator_mode_and_a_standalone_component():
    import pulumi
    import yaml

    from dynamo_pulumi.resources.components import DCD_TYPE, DGD_TYPE

    operator = _registered(lambda: components.build(DGD_TYPE, "vllm-agg", {"spec": str(GRAPH_FILE), "mode": "operator",
                                                                           "namespace": ""}, pulumi.ResourceOptions()))
    assert ("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment", "default/vllm-agg") in operator
    assert not any(t == "kubernetes:apps/v1:Deployment" for t, _ in operator)
    document = yaml.safe_load(GRAPH_FILE.read_text())
    dcd = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
           "metadata": {"name": "front"}, "spec": {"backendFramework": "vllm", **document["spec"]["components"][0]}}
    standalone = _registered(lambda: components.build(DCD_TYPE, "front", {"spec": dcd, "namespace": "ns"},
                                                      pulumi.ResourceOptions()))
    assert (DCD_TYPE, "front") in standalone
    assert any(t == "kubernetes:apps/v1:Deployment" and i["metadata"]["namespace"] == "ns" for (t, _), i in standalone.items())


def test_an_unknown_placement_or_platform_is_refused_by_name():
    with pytest.raises(InputError, match=r"^placement: must be known"):
        components.placement_of(values.UNKNOWN)
    with pytest.raises(InputError, match=r"^platform: must be known"):
        components.platform_source(values.UNKNOWN)
    with pytest.raises(InputError, match=r"^mode: must be known"):
        components.build("dynamo:index:DynamoGraphDeployment", "x", {"spec": "g.yaml", "mode": values.UNKNOWN}, None)  # type: ignore[arg-type]


def test_build_adopt_imports_the_existing_custom_resource():
    import pulumi

    from dynamo_pulumi.mocks import run_program
    from dynamo_pulumi.resources.components import DGD_TYPE

    def imported(adopt: object) -> str:
        recording, _ = run_program(lambda: components.build(
            DGD_TYPE, "vllm-agg", {"spec": str(GRAPH_FILE), "mode": "operator", "adopt": adopt}, pulumi.ResourceOptions()),
            preview=False)
        (cr,) = recording.by_type("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment")
        return cr.import_id

    assert imported(True) == "default/vllm-agg"
    assert imported(None) == "" and imported(False) == ""


# --- the engine log: best effort, bounded ------------------------------------------------------

class _NeverAnswers:
    """An engine stub whose ``Log`` never returns (a stalled engine), counting the calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def Log(self, request, timeout=None):
        self.calls += 1
        await asyncio.sleep(timeout if timeout is not None else 3600)
        raise TimeoutError


def test_a_full_queue_drops_lines_and_counts_them_and_a_drain_is_bounded():
    import io
    import time

    from dynamo_pulumi.plugin import engine_log

    async def scenario() -> tuple[engine_log.EngineLog, float, float]:
        log = engine_log.EngineLog("127.0.0.1:1", stderr=io.StringIO())
        log._stub = _NeverAnswers()
        lines = [log.send(f"line {i}", "urn") for i in range(engine_log.QUEUE_LINES + 10)]
        began = time.monotonic()
        await engine_log.settle_lines(lines)
        drained = time.monotonic() - began
        began = time.monotonic()
        await log.log("a warning", "urn", severity=engine_log.WARNING)
        logged = time.monotonic() - began
        return log, drained, logged

    log, drained, logged = asyncio.run(asyncio.wait_for(scenario(), 10))  # an unbounded drain fails here, not hangs
    assert log.dropped == 10  # the queue's worth kept, the rest dropped (the warning took the place of the one in flight)
    # bounded (an unbounded drain would wait for 1010 one-second timeouts); slack for a loaded machine
    assert drained < engine_log.DRAIN_SECONDS + 1.0 and logged < engine_log.DRAIN_SECONDS + 1.0
    log.report()
    assert log.stderr.getvalue().endswith(  # type: ignore[attr-defined]
        "dynamo: 10 log lines dropped (the engine's queue was full), 0 not delivered to the engine in 1s "
        "(written here instead)\n")


def test_a_line_the_engine_did_not_take_in_time_goes_to_stderr_and_is_counted():
    import io

    from dynamo_pulumi.plugin import engine_log

    async def scenario() -> engine_log.EngineLog:
        log = engine_log.EngineLog("127.0.0.1:1", stderr=io.StringIO())
        log._stub = _NeverAnswers()
        line = log.send("progress", "urn", ephemeral=True)
        await asyncio.wait_for(line.sent.wait(), engine_log.LOG_SECONDS + 1)
        return log

    log = asyncio.run(scenario())
    assert log.undelivered == 1 and log.stderr.getvalue() == "progress\n"  # type: ignore[attr-defined]


def test_the_deadline_is_the_shorter_one_and_names_both():
    from dynamo_pulumi.plugin.readiness import deadline_of

    assert deadline_of(30.0, 0.0, "create") == (30.0, "")
    assert deadline_of(30.0, 10.0, "create") == (10.0, "customTimeouts.create 10s, before timeout_seconds 30s")
    assert deadline_of(30.0, 600.0, "update") == (30.0, "timeout_seconds; customTimeouts.update 10m0s")
    assert deadline_of(30.0, float("nan"), "create") == (30.0, "")
