"""Kubeconfig input in its four forms (path, YAML/JSON text, parsed mapping, one base64 line), each
reaching the replay server through the real client; and one clear error per malformed part that
never echoes the value (issue 15, "Why" section 4)."""

from __future__ import annotations

import base64
import json

import pytest
import yaml
from replay_support import listing
from test_cluster_waiter import DEPLOYMENT, NS

from dynamo_pulumi.cluster.api import ClusterApi
from dynamo_pulumi.cluster.connection import Connection, api_client
from dynamo_pulumi.cluster.errors import ClusterError

TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6InNlY3JldCJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJlLXNlY3JldA"


def document(server) -> dict:
    return json.loads(server.kubeconfig())


def reaches(server, kubeconfig, context: str | None = None) -> bool:
    server.on_list(DEPLOYMENT, NS, listing([], "3"))
    api = ClusterApi(api_client(Connection(kubeconfig=kubeconfig, context=context)))
    return api.list(DEPLOYMENT, NS)["metadata"]["resourceVersion"] == "3"


def refused(kubeconfig, context: str | None = None) -> str:
    with pytest.raises(ClusterError) as caught:
        api_client(Connection(kubeconfig=kubeconfig, context=context))
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- the four forms -------------------------------------------------------------------------


def test_a_path(server, tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document(server)))
    assert reaches(server, str(path))


def test_yaml_text(server):
    assert reaches(server, yaml.safe_dump(document(server)))


def test_json_text_on_one_line(server):
    assert reaches(server, json.dumps(document(server)))


def test_a_parsed_mapping(server):
    assert reaches(server, document(server))


def test_one_base64_line_as_pulumi_eks_and_cloud_clis_hand_it_out(server):
    assert reaches(server, base64.b64encode(yaml.safe_dump(document(server)).encode()).decode())


def test_base64_wrapped_over_lines_as_base64_prints_it(server):
    text = base64.encodebytes(yaml.safe_dump(document(server)).encode()).decode()
    assert "\n" in text.strip()
    assert reaches(server, text.replace("\n", "") + "\n")


def test_a_named_context(server):
    config = document(server)
    config["contexts"].append({"name": "other", "context": {"cluster": "replay", "user": "u"}})
    config["current-context"] = "missing-on-purpose"
    assert reaches(server, config, context="other")


# --- malformed parts: one line each, the value never echoed ----------------------------------


def test_a_one_line_token_is_refused_without_quoting_it():
    message = refused(TOKEN)
    assert TOKEN not in message and "secret" not in message
    assert message == ("kubeconfig is not the path of an existing file, kubeconfig YAML, or base64 of one "
                       "(the value is not shown: it may hold credentials)")


def test_a_long_one_line_value_is_no_os_error():
    value = "A" * 5000 + "!"
    assert "AAAA" not in refused(value)


def test_a_missing_file_named_as_a_path_is_named(tmp_path):
    missing = tmp_path / "nope" / "config"
    assert refused(str(missing)) == f"kubeconfig file {str(missing)!r} does not exist"


def test_text_that_is_not_yaml_names_line_and_column_not_the_text():
    text = f"apiVersion: v1\nusers:\n- name: u\n  user: {{token: {TOKEN}\n  \t: ["
    message = refused(text)
    assert message.startswith("kubeconfig is not valid YAML (line ")
    assert TOKEN not in message


def test_base64_of_something_that_is_not_yaml_is_refused_without_echo():
    value = base64.b64encode(f"token: {TOKEN}\n  bad: [".encode()).decode()
    message = refused(value)
    assert message.startswith("kubeconfig is not valid YAML") and TOKEN not in message and value not in message


def test_base64_of_binary_is_not_a_kubeconfig():
    value = base64.b64encode(bytes(range(256))).decode()
    message = refused(value)
    assert value not in message


def test_a_document_without_clusters(server):
    config = document(server)
    del config["clusters"]
    assert refused(config) == "kubeconfig has no 'clusters' list"
    assert refused(base64.b64encode(yaml.safe_dump(config).encode()).decode()) == (
        "kubeconfig (decoded from base64) has no 'clusters' list")


def test_a_document_that_is_not_a_mapping():
    assert refused("- a\n- b\n") == "kubeconfig is not a mapping with clusters, users and contexts"


def test_a_value_of_another_type():
    assert refused(42) == "kubeconfig must be the file's contents, its path or a mapping, not int"  # type: ignore[arg-type]


def test_client_key_data_that_is_not_base64(server):
    config = document(server)
    config["users"][0]["user"] = {"client-certificate-data": base64.b64encode(b"cert").decode(),
                                  "client-key-data": f"not base64: {TOKEN}"}
    message = refused(config)
    assert message == "kubeconfig users[u].user.client-key-data is not base64"


def test_certificate_authority_data_that_is_not_base64(server):
    config = document(server)
    config["clusters"][0]["cluster"]["certificate-authority-data"] = "%%%"
    assert refused(config) == "kubeconfig clusters[replay].cluster.certificate-authority-data is not base64"


def test_a_context_that_is_not_there(server):
    assert refused(document(server), context="prod") == "kubeconfig has no context named 'prod'"


def test_no_current_context_and_none_given(server):
    config = document(server)
    del config["current-context"]
    assert refused(config) == "kubeconfig sets no current-context and no context was given"


def test_a_context_naming_a_cluster_or_user_that_is_not_listed(server):
    config = document(server)
    config["contexts"][0]["context"]["cluster"] = "gone"
    assert refused(config) == "kubeconfig context 'replay' names cluster 'gone', which is not listed"
    config = document(server)
    config["contexts"][0]["context"]["user"] = "nobody"
    assert refused(config) == "kubeconfig context 'replay' names user 'nobody', which is not listed"


def test_the_cli_refuses_a_token_given_as_kubeconfig_without_echo(files, capsys):
    from dynamo_pulumi.cli import main

    graph, _ = files
    assert main(["status", str(graph), "--kubeconfig", TOKEN]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: kubeconfig is not the path") and TOKEN not in err
