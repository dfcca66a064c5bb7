"""The readiness provider inside the SDK's own dynamic-provider host, driven as the engine drives it.

``python -m pulumi.dynamic`` (the host ``pulumi up`` starts for every dynamic resource) prints its
port; the test talks to it with the SDK's generated gRPC stubs (``pulumi.runtime.proto``) in the
engine's order: Configure (the engine offers ``acceptSecrets``; this host answers false, so the
engine then sends the kubeconfig unwrapped, though the program marks it secret), Check, Create,
Read (``pulumi refresh``), Check + Diff + Update, Delete, against the loopback replay server.
The provider is sent as the SDK serializes it (``serialize_provider``: by reference).

Issue 15, "Why" section 2: a kubeconfig-only change must reach the state (refresh then uses the
new one) without a new wait; a failure shows our reason alone, without the host's traceback;
``check`` takes unknowns as the host delivers them (``pulumi.output.Unknown``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from replay_support import ReplayServer, event, listing, stream
from test_cluster_waiter import DEPLOYMENT, NS, deployment

from dynamo_pulumi.cluster.provider import ReadinessProvider
from dynamo_pulumi.cluster.waiter import EVENT, POD

REPO = Path(__file__).resolve().parent.parent
URN = "urn:pulumi:stack::project::dynamo:index:DynamoGraphDeployment$pulumi-python:dynamic:Resource::team-a/llm"
TYPE = "pulumi-python:dynamic:Resource"
TARGET = {"api_version": "apps/v1", "kind": "Deployment", "namespace": NS, "name": "llm-frontend",
          "component": "Frontend", "group": "llm-frontend"}
@pytest.fixture(scope="module")
def host() -> Iterator[provider_pb2_grpc.ResourceProviderStub]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen([sys.executable, "-m", "pulumi.dynamic"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, cwd=REPO)
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline().strip())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = provider_pb2_grpc.ResourceProviderStub(channel)
        configured = stub.Configure(provider_pb2.ConfigureRequest(acceptSecrets=True, acceptResources=True), timeout=60)
        assert configured.acceptSecrets is False  # so the engine sends secrets unwrapped
        yield stub
        channel.close()
    finally:
        child.kill()
        child.wait()


PROVIDER = serialize_provider(ReadinessProvider())


def inputs(server: ReplayServer, **changes: Any) -> dict[str, Any]:
    base = {"mode": "render", "kind": "DynamoGraphDeployment", "graph": "llm", "namespace": NS, "targets": [TARGET],
            "revision": "r1", "pod_selector": "nvidia.com/dynamo-graph-deployment-name=llm", "timeout_seconds": 20,
            "wait": True, "expansion": [], "predicted": [], "kubeconfig": server.kubeconfig(), "context": "replay",
            "state": None, "ready": None, "components": None, "drift": None}
    return {**base, "__provider": PROVIDER, **changes}


def struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update({k: v for k, v in values.items() if v is not None})
    return message


def plain(message: struct_pb2.Struct) -> dict[str, Any]:
    return dict(rpc.deserialize_properties(message))


def secret(value: Any) -> dict[str, Any]:
    return {rpc._special_sig_key: rpc._special_secret_sig, "value": value}


def ready_cluster(server: ReplayServer) -> None:
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))]))
    server.on_list(POD, NS, listing([], "5"))


def create(host, news: Mapping[str, Any]) -> provider_pb2.CreateResponse:
    checked = host.Check(provider_pb2.CheckRequest(urn=URN, type=TYPE, olds=struct({}), news=struct(news)), timeout=60)
    assert list(checked.failures) == []
    return host.Create(provider_pb2.CreateRequest(urn=URN, type=TYPE, properties=checked.inputs, timeout=60), timeout=90)


def test_create_read_update_delete_in_the_engines_order(host, server, tmp_path):
    ready_cluster(server)
    created = create(host, inputs(server))
    outs = plain(created.properties)
    assert created.id == "team-a/llm" and outs["state"] == "successful"

    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "12"))
    read = host.Read(provider_pb2.ReadRequest(id=created.id, urn=URN, type=TYPE, properties=created.properties), timeout=60)
    assert plain(read.properties)["state"] == "successful"

    news = inputs(server, revision="r2")
    diff = host.Diff(provider_pb2.DiffRequest(id=created.id, urn=URN, type=TYPE, olds=created.properties,
                                              news=struct(news)), timeout=60)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="12"))]))
    updated = host.Update(provider_pb2.UpdateRequest(id=created.id, urn=URN, type=TYPE, olds=created.properties,
                                                     news=struct(news)), timeout=90)
    assert plain(updated.properties)["revision"] == "r2"
    host.Delete(provider_pb2.DeleteRequest(id=created.id, urn=URN, type=TYPE, properties=updated.properties), timeout=60)


def test_a_kubeconfig_only_change_reaches_the_state_without_a_wait_and_refresh_uses_it(host, server):
    ready_cluster(server)
    created = create(host, inputs(server))
    moved = ReplayServer().start()  # the cluster's new endpoint; the old one goes away
    try:
        news = inputs(moved)
        checked = host.Check(provider_pb2.CheckRequest(urn=URN, type=TYPE, olds=struct(inputs(server)),
                                                       news=struct(news)), timeout=60)
        diff = host.Diff(provider_pb2.DiffRequest(id=created.id, urn=URN, type=TYPE, olds=created.properties,
                                                  news=checked.inputs), timeout=60)
        assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
        updated = host.Update(provider_pb2.UpdateRequest(id=created.id, urn=URN, type=TYPE, olds=created.properties,
                                                         news=checked.inputs), timeout=60)
        assert moved.log == []  # no wait: nothing that is watched changed
        state = plain(updated.properties)
        assert state["kubeconfig"] == moved.kubeconfig() and state["state"] == "successful"
        server.close()
        moved.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "20"))
        moved.on_list(POD, NS, listing([], "5"))
        read = host.Read(provider_pb2.ReadRequest(id=created.id, urn=URN, type=TYPE, properties=updated.properties),
                         timeout=60)
        assert plain(read.properties)["state"] == "successful"
        assert moved.requests_to(DEPLOYMENT.path(NS))
    finally:
        moved.close()


def test_a_secret_kubeconfig_is_used_as_its_value(host, server):
    ready_cluster(server)
    news = inputs(server)
    news["kubeconfig"] = secret(news["kubeconfig"])
    assert plain(create(host, news).properties)["state"] == "successful"


def failure_of(call) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return str(caught.value.details())


def test_a_failed_create_shows_our_reason_alone_no_traceback(host, server):
    """The host formats what a method raises with ``traceback.format_exc()``; for our errors it
    gets the message alone (cluster/host_errors.py; seen with the real engine, which printed the
    host's traceback above the reason: tests/e2e/test_engine_failure.py)."""
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_list(POD, NS, listing([], "5"))
    server.on_list(EVENT, NS, listing([]))
    details = failure_of(lambda: create(host, inputs(server, timeout_seconds=1)))
    lines = details.rstrip("\n").splitlines()
    assert lines[0] == "DynamoGraphDeployment team-a/llm not ready after 1s:", details
    assert "Traceback" not in details and "File " not in details, details
    assert all(line.startswith("  ") for line in lines[1:]), details  # one line per unready component


def test_a_bad_kubeconfig_fails_create_in_one_line_of_ours(host, server):
    details = failure_of(lambda: create(host, inputs(server, kubeconfig="eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln")))
    assert "eyJhbGciOiJSUzI1NiJ9" not in details
    assert len(details.strip().splitlines()) == 1 and details.startswith("kubeconfig is not"), details


def test_check_takes_unknowns_as_the_host_delivers_them(host, server):
    news = inputs(server, timeout_seconds=rpc.UNKNOWN, targets=rpc.UNKNOWN, mode=rpc.UNKNOWN)
    checked = host.Check(provider_pb2.CheckRequest(urn=URN, type=TYPE, olds=struct({}), news=struct(news)), timeout=60)
    assert list(checked.failures) == []
    news = inputs(server, targets=[{**TARGET, "name": rpc.UNKNOWN}])
    checked = host.Check(provider_pb2.CheckRequest(urn=URN, type=TYPE, olds=struct({}), news=struct(news)), timeout=60)
    assert list(checked.failures) == []


def test_check_names_each_bad_input_through_the_host(host, server):
    news = inputs(server, timeout_seconds=0, graph="")
    checked = host.Check(provider_pb2.CheckRequest(urn=URN, type=TYPE, olds=struct({}), news=struct(news)), timeout=60)
    assert {f.property for f in checked.failures} == {"timeout_seconds", "graph"}
