"""Container and pod-spec merge rules (mergo WithOverride + mergeContainerByName)."""

from __future__ import annotations

import pulumi
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.render.pod.merge import (
    add_env_user_wins,
    merge_container,
    merge_envs,
    merge_override,
    merge_pod_spec,
)

BASE = {
    "name": "main",
    "command": ["/bin/sh", "-c"],
    "args": ["-m", "dynamo.frontend"],
    "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
    "env": [{"name": "B", "value": "base-b"}, {"name": "A", "value": "base-a"}],
    "livenessProbe": {"httpGet": {"path": "/live", "port": "http"}, "periodSeconds": 10, "failureThreshold": 3},
    "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10},
}


def test_user_slices_replace_the_default_rather_than_append():
    merged = merge_container(BASE, {"command": ["python3"], "ports": [{"name": "x", "containerPort": 1}]}, "main")
    assert merged["command"] == ["python3"]
    assert merged["ports"] == [{"name": "x", "containerPort": 1}]
    assert merged["args"] == ["-m", "dynamo.frontend"]


def test_empty_user_values_keep_the_default():
    merged = merge_container(BASE, {"command": [], "args": None, "image": ""}, "main")
    assert merged["command"] == ["/bin/sh", "-c"]
    assert merged["args"] == ["-m", "dynamo.frontend"]
    assert "image" not in merged


def test_resources_merge_key_by_key():
    base = {"name": "main", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
    user = {"resources": {"limits": {"memory": "2Gi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "500m"}}}
    merged = merge_container(base, user, "main")
    assert merged["resources"] == {
        "limits": {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"},
        "requests": {"cpu": "500m"},
    }


def test_env_is_the_union_with_user_winning_and_sorted_by_name():
    merged = merge_container(BASE, {"env": [{"name": "C", "value": "u"}, {"name": "A", "value": "user-a"}]}, "main")
    assert merged["env"] == [
        {"name": "A", "value": "user-a"},
        {"name": "B", "value": "base-b"},
        {"name": "C", "value": "u"},
    ]


def test_env_is_sorted_even_without_user_env():
    merged = merge_container(BASE, {"image": "img"}, "main")
    assert [e["name"] for e in merged["env"]] == ["A", "B"]


def test_a_user_probe_replaces_the_default_probe_whole():
    user_probe = {"exec": {"command": ["true"]}}
    merged = merge_container(BASE, {"livenessProbe": user_probe}, "main")
    assert merged["livenessProbe"] == user_probe
    assert merged["readinessProbe"] == BASE["readinessProbe"]


def test_container_name_is_forced():
    merged = merge_container(BASE, {"name": "something-else", "image": "img"}, "main")
    assert merged["name"] == "main"


def test_merge_does_not_mutate_its_inputs():
    user = {"env": [{"name": "A", "value": "x"}], "resources": {"limits": {"cpu": "2"}}}
    base = {"name": "main", "env": [{"name": "B", "value": "y"}], "resources": {"limits": {"memory": "1Gi"}}}
    merge_container(base, user, "main")
    assert base == {"name": "main", "env": [{"name": "B", "value": "y"}], "resources": {"limits": {"memory": "1Gi"}}}
    assert user == {"env": [{"name": "A", "value": "x"}], "resources": {"limits": {"cpu": "2"}}}


def test_pulumi_outputs_pass_through_as_opaque_leaves():
    image = pulumi.Output.from_input("registry/img:1.0.0")
    secret = pulumi.Output.secret("s3cr3t")
    merged = merge_container(BASE, {"image": image, "env": [{"name": "TOKEN", "value": secret}]}, "main")
    assert merged["image"] is image
    assert next(e for e in merged["env"] if e["name"] == "TOKEN")["value"] is secret


def test_env_names_must_be_strings():
    with pytest.raises(RenderError):
        merge_envs([], [{"name": 3, "value": "x"}])


def test_pod_spec_user_slices_replace_and_containers_are_ignored():
    base = {"terminationGracePeriodSeconds": 60, "restartPolicy": "Always", "volumes": [{"name": "a", "emptyDir": {}}]}
    user = {
        "containers": [{"name": "main"}],
        "volumes": [{"name": "b", "emptyDir": {}}],
        "tolerations": [{"key": "gpu", "operator": "Exists"}],
        "nodeSelector": {"pool": "gpu"},
    }
    merged = merge_pod_spec(base, user)
    assert "containers" not in merged
    assert merged["volumes"] == [{"name": "b", "emptyDir": {}}]
    assert merged["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
    assert merged["nodeSelector"] == {"pool": "gpu"}


def test_a_zero_user_grace_period_keeps_the_default_like_mergo():
    merged = merge_pod_spec({"terminationGracePeriodSeconds": 60}, {"terminationGracePeriodSeconds": 0})
    assert merged["terminationGracePeriodSeconds"] == 60


def test_a_positive_user_grace_period_wins():
    merged = merge_pod_spec({"terminationGracePeriodSeconds": 60}, {"terminationGracePeriodSeconds": 10})
    assert merged["terminationGracePeriodSeconds"] == 10


def test_user_false_is_kept_when_the_default_has_no_value():
    merged = merge_override({}, {"automountServiceAccountToken": False})
    assert merged == {"automountServiceAccountToken": False}


def test_platform_env_does_not_override_user_values():
    container = {"env": [{"name": "NATS_SERVER", "value": "user"}]}
    add_env_user_wins(container, [{"name": "NATS_SERVER", "value": "platform"}, {"name": "ETCD_ENDPOINTS", "value": "e"}])
    assert container["env"] == [{"name": "ETCD_ENDPOINTS", "value": "e"}, {"name": "NATS_SERVER", "value": "user"}]


_names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=6)
_envs = st.lists(st.builds(lambda n, v: {"name": n, "value": v}, _names, st.text(max_size=4)), max_size=8)


@given(_envs, _envs)
def test_merged_env_is_sorted_unique_and_user_values_win(common, specific):
    merged = merge_envs(common, specific)
    names = [e["name"] for e in merged]
    assert names == sorted(set(names))
    assert set(names) == {e["name"] for e in common} | {e["name"] for e in specific}
    last_user = {e["name"]: e for e in specific}
    for entry in merged:
        if entry["name"] in last_user:
            assert entry == last_user[entry["name"]]
