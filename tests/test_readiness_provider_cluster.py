"""The readiness provider's create/update/read against the replay server, connected through a
kubeconfig input exactly as ``pulumi up`` would pass it."""

from __future__ import annotations

import pytest
import yaml
from cluster_recordings import recording
from replay_support import ReplayServer, event, listing, stream
from test_cluster_waiter import DEPLOYMENT, DGD, NS, deployment

from dynamo_pulumi.cluster.errors import ClusterError, WaitTimeout
from dynamo_pulumi.cluster.provider import ReadinessProvider
from dynamo_pulumi.cluster.waiter import EVENT, POD


def props(server: ReplayServer, **changes):
    base = {
        "mode": "render", "kind": "DynamoGraphDeployment", "graph": "llm", "namespace": NS,
        "targets": [{"api_version": "apps/v1", "kind": "Deployment", "namespace": NS, "name": "llm-frontend",
                     "component": "Frontend", "group": "llm-frontend"}],
        "revision": "r1", "pod_selector": "nvidia.com/dynamo-graph-deployment-name=llm", "timeout_seconds": 10,
        "wait": True, "kubeconfig": server.kubeconfig(), "expansion": [], "predicted": [],
    }
    return {**base, **changes}


def test_create_waits_and_returns_the_status_outputs(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))]))
    server.on_list(POD, NS, listing([]))
    result = ReadinessProvider().create(props(server))
    assert result.id == "team-a/llm"
    assert result.outs["state"] == "successful" and result.outs["ready"]["status"] == "True"
    assert result.outs["components"]["Frontend"]["readyReplicas"] == 2
    assert result.outs["revision"] == "r1" and result.outs["drift"] == []


def test_update_waits_again_for_the_new_revision(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
    server.on_list(POD, NS, listing([]))
    result = ReadinessProvider().update("team-a/llm", props(server), props(server, revision="r2"))
    assert result.outs["revision"] == "r2" and result.outs["state"] == "successful"


def test_update_timeout_fails_with_the_components_reasons(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_list(POD, NS, listing([recording("pod-image-pull")]))
    server.on_list(EVENT, NS, listing([]))
    with pytest.raises(WaitTimeout, match=r"Frontend: 0/2 ready \(Deployment llm-frontend: 2 updated, 0 available of 2\): ImagePullBackOff: image nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.99"):
        ReadinessProvider().update("team-a/llm", props(server), props(server, revision="r2", timeout_seconds=1))


def test_read_refreshes_without_waiting(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 1)], "10"))
    server.on_list(POD, NS, listing([]))
    result = ReadinessProvider().read("team-a/llm", props(server, state="successful"))
    assert result.outs["state"] == "pending" and result.outs["components"]["Frontend"]["readyReplicas"] == 1
    assert server.requests_to(DEPLOYMENT.path(NS), watch=True) == []


def test_a_context_selects_the_cluster_from_the_kubeconfig(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
    server.on_list(POD, NS, listing([]))
    result = ReadinessProvider().read("team-a/llm", props(server, kubeconfig=server.kubeconfig("blue"), context="blue"))
    assert result.outs["state"] == "successful"
    with pytest.raises(ClusterError, match="kubeconfig"):
        ReadinessProvider().read("team-a/llm", props(server, context="green"))


def test_a_kubeconfig_given_as_a_parsed_document_connects(server):
    """pulumi-eks' ``Cluster.kubeconfig`` is an object Output: it reaches the provider as a mapping."""
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
    server.on_list(POD, NS, listing([]))
    result = ReadinessProvider().create(props(server, kubeconfig=yaml.safe_load(server.kubeconfig())))
    assert result.outs["state"] == "successful"


def test_a_kubeconfig_of_another_type_is_a_one_line_error(server):
    with pytest.raises(ClusterError, match="kubeconfig must be the file's contents, its path or a mapping, not list"):
        ReadinessProvider().create(props(server, kubeconfig=["clusters"]))


def test_a_bad_kubeconfig_is_a_one_line_error(server):
    with pytest.raises(ClusterError, match="kubeconfig is not valid YAML"):
        ReadinessProvider().create(props(server, kubeconfig="clusters: [\n  oops"))
    with pytest.raises(ClusterError, match="does not exist"):
        ReadinessProvider().create(props(server, kubeconfig="/no/such/kubeconfig"))


def test_operator_mode_reports_drift_between_prediction_and_the_operators_objects(server):
    server.on_list(DGD, NS, listing([recording("dgd-ready")], "20"))
    server.on_list(POD, NS, listing([]))
    predicted_deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": "llm-frontend", "namespace": NS}, "spec": {"replicas": 1}}
    predicted_service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "llm-frontend", "namespace": NS},
                         "spec": {"ports": [{"name": "http", "port": 8000}]}}
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)]))  # read back per kind
    operator_props = props(
        server, mode="operator",
        targets=[{"api_version": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "namespace": NS,
                  "name": "llm", "component": "", "group": "llm"}],
        expansion=[{"apiVersion": "apps/v1", "kind": "Deployment", "name": "llm-frontend", "digest": "d"}],
        predicted=[predicted_deployment, predicted_service],
    )
    result = ReadinessProvider().create(operator_props)
    assert result.outs["state"] == "successful"
    assert result.outs["drift"] == [
        {"object": "Deployment/llm-frontend", "path": "spec.replicas", "predicted": 1, "actual": 2},
        {"object": "Service/llm-frontend", "path": "", "predicted": "present", "actual": None},
    ]
