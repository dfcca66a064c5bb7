"""The ``dynamo`` plugin at the gRPC boundary the engine uses: started as its console script (a
port on stdout), driven with the SDK's generated stubs, against the loopback replay server.

The readiness contract (``readiness_contract``) is the same one the dynamic transport is held
to; the tests below it are what only the plugin promises: concurrency, attributed progress,
secrets, preview without a cluster, provider configuration.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

import plugin_support
import pytest
import readiness_contract as contract
from google.protobuf import empty_pb2
from plugin_support import (
    READINESS_URN,
    SCRIPT,
    UNKNOWN,
    CallFailed,
    Plugin,
    PluginDriver,
    is_secret,
    secret,
    unwrap,
)
from pulumi.runtime.proto import engine_pb2, provider_pb2
from replay_support import ReplayServer, event, listing, stream
from test_cluster_waiter import DEPLOYMENT, NS, deployment

from dynamo_pulumi.cluster.waiter import POD

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="pulumi-resource-dynamo is not installed (pip install -e .)")

# The fixtures every module of plugin tests shares: one fake engine and one plugin per module.
engine, plugin, driver = plugin_support.engine, plugin_support.plugin, plugin_support.driver

REPO = Path(__file__).resolve().parent.parent


# --- the contract both transports keep ---------------------------------------------------------

#: The readiness resource a component (``Construct``) creates: the engine prefixes its parent's
#: type chain, and sends this URN to every verb (a top-level URN was all the tests once used).
NESTED_URN = READINESS_URN.replace("::dynamo:index:GraphReadiness::",
                                   "::dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness::")


@pytest.fixture(params=[READINESS_URN, NESTED_URN], ids=["top-level", "a-components-child"])
def either_urn(plugin, request):
    """A driver for a top-level readiness resource and for the one a component creates."""
    started = PluginDriver(plugin, urn=request.param)
    started.configure({})
    return started


@pytest.mark.parametrize("check", contract.PURE, ids=lambda f: f.__name__)
def test_pure_contract(either_urn, check):
    check(either_urn)


@pytest.mark.parametrize("check", contract.WITH_CLUSTER, ids=lambda f: f.__name__)
def test_cluster_contract(either_urn, server, check):
    check(either_urn, server)


# --- what the engine asks first ----------------------------------------------------------------

def test_plugin_info_is_the_package_version(plugin):
    from importlib import metadata

    info = plugin.stub.GetPluginInfo(empty_pb2.Empty())
    assert info.version == metadata.version("dynamo-pulumi")


def test_get_schema_is_the_checked_in_schema(plugin):
    from dynamo_pulumi.plugin.server import version

    schema = json.loads(plugin.stub.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema)
    checked_in = json.loads((REPO / "schema.json").read_text())
    assert schema == {**checked_in, "version": version()}


def test_configure_accepts_secrets_and_supports_preview(driver):
    for args in ({}, {"kubeconfig": secret("apiVersion: v1\nclusters: []\n"), "context": "blue"}):
        response = driver.configure(args)
        assert response.acceptSecrets and response.supportsPreview


# --- readiness: what only the plugin gives -----------------------------------------------------

def test_secrets_come_back_as_secrets(driver, server):
    """The kubeconfig is a secret output whether or not it was sent as one; another input sent
    as a secret stays one."""
    contract.ready_after_one_change(server)
    _, outs = driver.create(contract.props(server, kubeconfig=secret(server.kubeconfig()), context=secret("replay")))
    assert is_secret(outs["kubeconfig"]) and is_secret(outs["context"])
    assert not is_secret(outs["state"]) and unwrap(outs["state"]) == "successful"
    _, outs = driver.create(contract.props(server, wait=False))
    assert is_secret(outs["kubeconfig"])


def test_preview_answers_unknown_status_without_the_cluster(driver, server):
    resource_id, outs = driver.create(contract.props(server, revision=UNKNOWN), preview=True)
    assert resource_id == ""
    assert {outs[k] for k in ("state", "ready", "components", "drift")} == {UNKNOWN}
    assert outs["revision"] == UNKNOWN and outs["graph"] == "llm"
    outs = driver.update(contract.props(server), contract.props(server, revision="r2"), preview=True)
    assert outs["state"] == UNKNOWN
    assert server.log == []


def test_progress_lines_are_ephemeral_and_attributed_to_the_resource(driver, server, engine):
    contract.ready_after_one_change(server)
    driver.create(contract.props(server))
    lines = [r for r in engine.lines(READINESS_URN) if "team-a/llm" in r.message]
    assert lines, engine.lines()
    assert all(r.ephemeral and r.severity == engine_pb2.LogSeverity.INFO for r in lines)
    assert lines[0].message == ("DynamoGraphDeployment team-a/llm: Frontend: 0/2 ready (Deployment llm-frontend: "
                                "2 updated, 0 available of 2): MinimumReplicasUnavailable: 0 of 2 updated "
                                "replicas available (Deployment does not have minimum availability.)")
    assert lines[-1].message == "DynamoGraphDeployment team-a/llm: Frontend: 2/2 ready"


def test_ten_graphs_wait_at_once(driver, server):
    """Every graph's watch is open at the same time: the ten are waited on together, not in
    batches (the dynamic host serves four calls at once, ``asyncio.to_thread`` six on two cores).
    The watches are held until all ten are open, so a batching transport never gets there."""
    gate = threading.Event()
    namespaces = [f"graph-{i}" for i in range(10)]
    for namespace in namespaces:
        contract.ready_after_one_change(server, namespace, gate=gate)
    with futures.ThreadPoolExecutor(max_workers=10) as pool:
        calls = [pool.submit(driver.create, contract.props(server, ns, graph="llm")) for ns in namespaces]
        open_watches = _wait_for(lambda: _watches(server, namespaces), 10, seconds=30)
        gate.set()
        results = [call.result(timeout=60) for call in calls]
    assert open_watches == 10
    assert [unwrap(outs)["state"] for _, outs in results] == ["successful"] * 10


def _watches(server: ReplayServer, namespaces: list[str]) -> int:
    return sum(bool(server.requests_to(DEPLOYMENT.path(ns), watch=True)) for ns in namespaces)


def _wait_for(count, wanted: int, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and count() < wanted:
        time.sleep(0.05)
    return count()


def test_a_kubeconfig_change_in_configure_is_used_by_the_next_read(driver, server):
    other = ReplayServer().start()
    try:
        for replay, ready in ((server, 1), (other, 2)):
            replay.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", ready)], "10"))
            replay.on_list(POD, NS, listing([]))
        unconnected = contract.props(None)
        driver.configure({"kubeconfig": secret(server.kubeconfig())})
        assert unwrap(driver.read(unconnected))["components"]["Frontend"]["readyReplicas"] == 1
        driver.configure({"kubeconfig": secret(other.kubeconfig())})
        assert unwrap(driver.read(unconnected))["components"]["Frontend"]["readyReplicas"] == 2
        assert len(server.requests_to(DEPLOYMENT.path(NS))) == 1
        # a resource's own kubeconfig still wins over the provider's
        assert unwrap(driver.read(contract.props(server)))["components"]["Frontend"]["readyReplicas"] == 1
    finally:
        other.close()


def test_a_context_in_configure_selects_the_cluster(driver, server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
    server.on_list(POD, NS, listing([]))
    driver.configure({"kubeconfig": server.kubeconfig("blue"), "context": "blue"})
    assert unwrap(driver.read(contract.props(None)))["state"] == "successful"
    driver.configure({"kubeconfig": server.kubeconfig("blue"), "context": "green"})
    with pytest.raises(CallFailed, match="kubeconfig"):
        driver.read(contract.props(None))


def test_an_unreachable_cluster_is_one_line(driver):
    with pytest.raises(CallFailed) as failure:
        driver.create(contract.props(None, kubeconfig="/no/such/kubeconfig"))
    assert failure.value.message == "kubeconfig file '/no/such/kubeconfig' does not exist"


def test_a_resource_type_the_plugin_does_not_serve_is_refused(plugin):
    driver = PluginDriver(plugin, urn="urn:pulumi:dev::proj::dynamo:index:Nothing::x")
    with pytest.raises(CallFailed, match="the dynamo provider has no custom resource 'dynamo:index:Nothing'"):
        driver.check(contract.props(None))


def test_a_stream_that_ends_late_still_finishes(driver, server):
    """A graph that becomes ready after the first watch ended is still seen (watched again)."""
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, NS, stream([]), stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="12"))]))
    server.on_list(POD, NS, listing([]))
    _, outs = driver.create(contract.props(server))
    assert unwrap(outs)["state"] == "successful"


@pytest.mark.parametrize("command", [
    [sys.executable, str(REPO / "dynamo_pulumi" / "plugin")],  # how the language host runs PulumiPlugin.yaml
    [sys.executable, "-m", "dynamo_pulumi.plugin"],
], ids=["plugin-directory", "python-m"])
def test_the_plugin_directory_and_module_start_the_same_server(engine, command):
    assert (REPO / "dynamo_pulumi" / "plugin" / "PulumiPlugin.yaml").read_text().count("runtime: python") == 1
    started = Plugin(engine, command)
    try:
        schema = json.loads(started.stub.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema)
        assert schema["name"] == "dynamo"
    finally:
        started.close()
