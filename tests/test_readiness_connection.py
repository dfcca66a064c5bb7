"""The readiness resource's connection inputs beside the kubeconfig (issue 25, item 1): ``cluster``
(pulumi-kubernetes' provider setting: the kubeconfig cluster the context is pointed at), reaching
the replay server through the real client; ``ambient`` (the children use the ambient connection,
so the plugin's configuration must not replace it); ``update_timeout_seconds``; all checked, and
a change of any is recorded without a new wait."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from replay_support import listing
from test_cluster_waiter import DEPLOYMENT, NS

from dynamo_pulumi.cluster.aio import ProviderConnection
from dynamo_pulumi.cluster.api import ClusterApi
from dynamo_pulumi.cluster.connection import Connection, api_client
from dynamo_pulumi.cluster.credentials import point_at_cluster
from dynamo_pulumi.cluster.errors import ClusterError
from dynamo_pulumi.cluster.provider import ReadinessProvider, connection_only
from dynamo_pulumi.cluster.session import connection_of


def _two_clusters(server) -> dict:
    """The server's kubeconfig with a second, dead cluster that the current context points at."""
    config = json.loads(server.kubeconfig())
    (replay,) = config["clusters"]
    dead = {"name": "dead", "cluster": {**replay["cluster"], "server": "https://127.0.0.1:9"}}
    config["clusters"].append(dead)
    for context in config["contexts"]:
        if context["name"] == config["current-context"]:
            context["context"]["cluster"] = "dead"
    return config


def _reaches(server, connection: Connection) -> bool:
    server.on_list(DEPLOYMENT, NS, listing([], "7"))
    return ClusterApi(api_client(connection)).list(DEPLOYMENT, NS)["metadata"]["resourceVersion"] == "7"


def _replay_name(server) -> str:
    return json.loads(server.kubeconfig())["clusters"][0]["name"]


def test_the_cluster_setting_points_the_context_at_another_cluster(server):
    assert _reaches(server, Connection(kubeconfig=_two_clusters(server), cluster=_replay_name(server)))


def test_the_cluster_setting_works_on_a_kubeconfig_file_and_leaves_it_unchanged(server, tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(_two_clusters(server)))
    before = path.read_text()
    assert _reaches(server, Connection(kubeconfig=str(path), cluster=_replay_name(server)))
    assert path.read_text() == before


def test_the_cluster_setting_applies_to_the_ambient_kubeconfig(server, tmp_path, monkeypatch):
    from kubernetes.config import kube_config

    path = tmp_path / "ambient"
    path.write_text(yaml.safe_dump(_two_clusters(server)))
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(path))
    monkeypatch.setenv("KUBECONFIG", str(path))
    assert _reaches(server, Connection(cluster=_replay_name(server)))


def test_a_cluster_that_is_not_in_the_kubeconfig_is_one_line_without_the_kubeconfig(server):
    with pytest.raises(ClusterError) as caught:
        api_client(Connection(kubeconfig=_two_clusters(server), cluster="nowhere"))
    message = str(caught.value)
    assert message == "kubeconfig has no cluster 'nowhere' (the provider's cluster setting)"


def test_point_at_cluster_changes_a_copy_of_the_active_or_named_context_only():
    doc = {"current-context": "a", "clusters": [{"name": "x"}, {"name": "y"}],
           "contexts": [{"name": "a", "context": {"cluster": "x", "user": "u"}}, {"name": "b", "context": {"cluster": "x"}}]}
    original = copy.deepcopy(doc)
    changed = {**doc, "contexts": list(doc["contexts"])}
    point_at_cluster(changed, None, "y")
    assert changed["contexts"][0]["context"] == {"cluster": "y", "user": "u"} and changed["contexts"][1] == doc["contexts"][1]
    assert doc == original  # the entry is replaced, never changed in place (the merger may persist it)
    named = {**doc, "contexts": list(doc["contexts"])}
    point_at_cluster(named, "b", "y")
    assert named["contexts"][1]["context"] == {"cluster": "y"}
    with pytest.raises(ClusterError, match="no context 'c'"):
        point_at_cluster({**doc, "contexts": list(doc["contexts"])}, "c", "y")


def test_the_connection_of_the_inputs_carries_the_cluster_and_never_prints_the_kubeconfig():
    connection = connection_of({"kubeconfig": "secret-text", "context": "c", "cluster": "k"})
    assert connection == Connection("secret-text", "c", "k")
    assert repr(connection) == "Connection(kubeconfig=<given>, context='c', cluster='k')"


@pytest.mark.parametrize("key, value, reason", [
    ("update_timeout_seconds", 0, "must be a positive number of seconds, not 0"),
    ("update_timeout_seconds", "1h", "must be a positive number of seconds, not '1h'"),
    ("ambient", "yes", "must be a bool, not str"),
    ("cluster", 3, "must be a str, not int"),
])
def test_check_refuses_a_malformed_connection_input(key, value, reason):
    news = {"mode": "render", "kind": "DynamoGraphDeployment", "graph": "g", "namespace": "n", "targets": [],
            "timeout_seconds": 60, key: value}
    failures = ReadinessProvider().check({}, news).failures
    assert [(f.property, f.reason) for f in failures] == [(key, reason)]


@pytest.mark.parametrize("key, old, new", [("cluster", "a", "b"), ("ambient", True, False), ("update_timeout_seconds", 60, 120)])
def test_a_change_of_the_connection_inputs_is_recorded_without_a_wait(key, old, new):
    olds = {"targets": [], "revision": "r", key: old}
    news = {"targets": [], "revision": "r", key: new}
    assert connection_only(olds, news)
    assert ReadinessProvider().diff("id", olds, news).changes


def test_the_plugin_configuration_connects_only_a_resource_that_names_no_connection_and_is_not_ambient():
    configured = ProviderConnection("plugin-kc", "plugin-ctx")
    assert configured.applied_to({"graph": "g"})["kubeconfig"] == "plugin-kc"
    assert configured.applied_to({"graph": "g", "ambient": True}) == {"graph": "g", "ambient": True}
    assert configured.applied_to({"graph": "g", "cluster": "k"}) == {"graph": "g", "cluster": "k"}
    assert configured.applied_to({"graph": "g", "ambient": False})["context"] == "plugin-ctx"
