"""Which replacements delete first: only fixed-name objects (readiness-lifecycle B3, issue 8's
zero-downtime rule). A hash-named worker LeaderWorkerSet is replaced because its name changes
with the worker generation, so it is created beside the old one and the old one deleted last;
``delete_before_replace`` on it would override that and stop the serving generation first."""

from __future__ import annotations

import copy

from resources_fixtures import GRAPH, HASH, NS, graph_doc, rendered

from dynamo_pulumi.diff.diffing import diff_plans
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.plan import plan_from_rendered, plan_graph
from dynamo_pulumi.resources import DynamoGraphDeployment

LWS_TYPE = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
LWS_PLATFORM = {"orchestrators": {"lws": {"enabled": True}}}
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"


def _multinode_graph(node_count: int) -> dict:
    main = {"name": "main", "image": IMAGE, "command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "m"],
            "resources": {"limits": {"nvidia.com/gpu": "8"}}}
    return {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "mn"},
        "spec": {"backendFramework": "vllm", "components": [
            {"name": "Frontend", "type": "frontend",
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
            {"name": "decode", "type": "worker", "multinode": {"nodeCount": node_count},
             "podTemplate": {"spec": {"containers": [main]}}},
        ]},
    }


def _lws(name: str, labels: dict[str, str]) -> dict:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": name, "namespace": NS, "labels": {"nvidia.com/dynamo-component": "decode", **labels}},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"containers": []}}}},
    }


def _registered_lws(lws: dict):
    objects, dcds = rendered()
    objects = [o for o in objects if not (o["kind"] == "Deployment" and "decode" in o["metadata"]["name"])]
    plan = plan_from_rendered(load_graph(graph_doc()), [*objects, lws], dcds, NS)
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, plan), preview=False)
    (reg,) = rec.by_type(LWS_TYPE)
    return reg


def test_a_hash_named_worker_leaderworkerset_is_not_deleted_before_its_replacement():
    reg = _registered_lws(_lws(f"{GRAPH}-decode-{HASH}-0", {"nvidia.com/dynamo-worker-hash": HASH}))
    assert reg.replace_on_changes == ("spec.leaderWorkerTemplate.size",)
    assert reg.delete_before_replace is False


def test_a_fixed_name_leaderworkerset_is_deleted_before_its_replacement():
    reg = _registered_lws(_lws(f"{GRAPH}-decode-0", {}))
    assert reg.delete_before_replace is True


def test_a_rendered_multinode_worker_changing_its_group_size_is_replaced_create_first():
    old = plan_graph(_multinode_graph(2), LWS_PLATFORM, NS)
    new = plan_graph(copy.deepcopy(_multinode_graph(4)), LWS_PLATFORM, NS)
    change = diff_plans(old, new).find(":LeaderWorkerSet", f"{NS}/mn-decode-0")
    assert change.action == "replace" and change.delete_before_replace is False
    for plan in (old, new):
        rec, _ = run_program(lambda plan=plan: DynamoGraphDeployment("mn", plan), preview=False)
        (reg,) = rec.by_type(LWS_TYPE)
        assert reg.name == f"{NS}/mn-decode-0" and reg.delete_before_replace is False
