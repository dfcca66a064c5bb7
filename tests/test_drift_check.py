"""Operator mode's drift check, from both front ends, through the real client and the replay
server. ``dynamo-pulumi wait|status --mode operator``: the objects the operator created, served
as the API server stores them, are compared with the expansion predicted from the file; one
``warning:`` line per drifted field after the status, none when they match, the exit code never
changes. The readiness provider runs the same check: a kind that cannot be read is one warning
line, never a failure, for both."""

from __future__ import annotations

import argparse
import copy
from typing import Any

import yaml
from cluster_recordings import recording
from replay_support import ReplayServer, body, listing, status_error
from resources_fixtures import NS, graph_doc
from test_cluster_waiter import DGD

from dynamo_pulumi.cli import main
from dynamo_pulumi.cli.cluster_common import watched_graphs
from dynamo_pulumi.cluster.api import ResourceRef
from dynamo_pulumi.cluster.provider import ReadinessProvider
from dynamo_pulumi.cluster.waiter import POD
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.operator_mode import plan_prediction
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

LABEL = "DynamoGraphDeployment team-a/llm"
DEPLOYMENTS = ResourceRef("apps/v1", "Deployment")
WARNING = f"warning: {LABEL}: drift from the prediction: "


def predicted() -> list[dict[str, Any]]:
    return plan_prediction(plan_graph(graph_doc(), namespace=NS, mode="operator"))


def _defaults(obj: dict[str, Any]) -> None:
    """What the API server's defaulting adds to a Deployment or Service (never replacing a set value)."""
    spec = obj.setdefault("spec", {})
    if obj["kind"] == "Deployment":
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
        pod = spec.setdefault("template", {}).setdefault("spec", {})
        pod.setdefault("restartPolicy", "Always")
        pod.setdefault("dnsPolicy", "ClusterFirst")
        pod.setdefault("schedulerName", "default-scheduler")
        for container in pod.get("containers") or []:
            container.setdefault("terminationMessagePath", "/dev/termination-log")
            container.setdefault("imagePullPolicy", "IfNotPresent")
    if obj["kind"] == "Service":
        spec.setdefault("clusterIP", "10.96.0.17")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            port.setdefault("protocol", "TCP")


def as_stored(obj: dict[str, Any], index: int) -> dict[str, Any]:
    """A predicted object as the operator's apply leaves it in the API server."""
    stored = copy.deepcopy(obj)
    metadata = stored["metadata"]
    metadata.update({"uid": f"00000000-0000-0000-0000-{index:012d}", "resourceVersion": str(500 + index),
                     "generation": 1, "creationTimestamp": "2026-12-01T09:00:00Z",
                     "managedFields": [{"manager": "manager", "operation": "Apply"}],
                     "ownerReferences": [{"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                                          "name": "llm", "uid": "dgd-uid", "controller": True}]})
    _defaults(stored)
    stored["status"] = {"observedGeneration": 1}
    return stored


def _kind_path(obj: dict[str, Any]) -> str:
    return ResourceRef(obj["apiVersion"], obj["kind"]).path(obj["metadata"].get("namespace", NS))


def serve_expansion(server: ReplayServer, objects: list[dict[str, Any]], unrelated: bool = True) -> None:
    """The ready DGD, no pods, and each kind's list holding the objects (plus, with
    ``unrelated``, another app's object of that kind); an unscripted kind is a 404."""
    server.on_list(DGD, NS, listing([recording("dgd-ready")], "20"))
    server.on_list(POD, NS, listing([]))
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for index, obj in enumerate(objects):
        by_kind.setdefault(_kind_path(obj), []).append(as_stored(obj, index))
    for path, items in by_kind.items():
        other = {**copy.deepcopy(items[0]), "metadata": {"name": "someone-else", "namespace": NS}}
        server.on(path, listing([*items, other] if unrelated else items))


def _warnings(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("warning:")]


def _differing() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The operator's expansion with a scaled decode, another frontend image and no decode Service."""
    made = predicted()
    decode = next(o for o in made if o["kind"] == "Deployment" and "decode" in o["metadata"]["name"])
    decode["spec"]["replicas"] = 3
    frontend = next(o for o in made if o["kind"] == "Deployment" and o["metadata"]["name"] == "llm-frontend")
    frontend["spec"]["template"]["spec"]["containers"][0]["image"] = "nvcr.io/dynamo/frontend:1.1.0"
    service = next(o for o in made if o["kind"] == "Service" and "decode" in o["metadata"]["name"])
    made.remove(service)
    names = {"decode": decode["metadata"]["name"], "service": service["metadata"]["name"]}
    return made, names


def test_status_prints_one_warning_per_drifted_field_after_the_table(server, files, capsys):
    graph, kubeconfig = files
    made, names = _differing()
    serve_expansion(server, made)
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"{LABEL}: ready (state successful, all_resources_are_ready)"
    warnings = _warnings(out)
    assert lines[-len(warnings):] == warnings, "the drift report comes after the status table"
    assert warnings == [
        f"{WARNING}Deployment/{names['decode']} spec.replicas: predicted 2, actual 3",
        f"{WARNING}Deployment/llm-frontend spec.template.spec.containers[name=main].image: "
        'predicted "nvcr.io/dynamo/frontend:1.0.0", actual "nvcr.io/dynamo/frontend:1.1.0"',
        f"{WARNING}Service/{names['service']}: predicted but not created by the operator",
    ]


def test_an_expansion_as_predicted_prints_no_warning(server, files, capsys):
    graph, kubeconfig = files
    serve_expansion(server, predicted())
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{LABEL}: ready ") and _warnings(out) == []
    kinds = {_kind_path(obj) for obj in predicted()}
    for path in kinds:  # every predicted kind was read back, once, by a list
        assert len(server.requests_to(path, watch=False)) == 1, path
    gets = [path for _, path, _ in server.log if path.rsplit("/", 1)[0] in kinds]
    assert gets == [], "a list per kind, no request per object"


def test_wait_reports_drift_once_ready_and_still_exits_0(server, files, capsys):
    graph, kubeconfig = files
    made, names = _differing()
    serve_expansion(server, made)
    assert main(["wait", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator", "--timeout", "30s"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    ready = lines.index(f"{LABEL} is ready (all_resources_are_ready)")
    assert lines[ready + 1:] == _warnings(out) and len(_warnings(out)) == 3
    assert f"{WARNING}Service/{names['service']}: predicted but not created by the operator" in lines


def test_a_kind_that_cannot_be_read_is_one_line_and_the_rest_is_still_compared(server, files, capsys):
    graph, kubeconfig = files
    made, names = _differing()
    serve_expansion(server, [o for o in made if o["kind"] != "Deployment"])
    forbid_deployments(server, made)
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    warnings = _warnings(capsys.readouterr().out)
    assert warnings == [
        f"{WARNING}Service/{names['service']}: predicted but not created by the operator",
        f"{WARNING}Deployment (apps/v1): not compared, cannot be read "
        '(HTTP 403: deployments.apps is forbidden: User "ci" cannot get)',
    ]
    reads = [path for _, path, _ in server.log if path.startswith(DEPLOYMENTS.path(NS))]
    assert len(reads) == 2, "a list, then a get in case only get is allowed, then the kind is given up"


def forbid_deployments(server: ReplayServer, made: list[dict[str, Any]], message: str = "") -> None:
    message = message or 'deployments.apps is forbidden: User "ci" cannot get'
    server.on(DEPLOYMENTS.path(NS), status_error(403, "Forbidden", message.replace("get", "list")))
    for obj in made:
        if obj["kind"] == "Deployment":
            server.on(DEPLOYMENTS.path(NS, obj["metadata"]["name"]), status_error(403, "Forbidden", message))


def test_where_only_get_is_allowed_each_object_is_read_by_name(server, files, capsys):
    graph, kubeconfig = files
    made, names = _differing()
    serve_expansion(server, [o for o in made if o["kind"] != "Deployment"])
    server.on(DEPLOYMENTS.path(NS), status_error(403, "Forbidden", "deployments.apps is forbidden: cannot list"))
    for index, obj in enumerate(made):
        if obj["kind"] == "Deployment":
            server.on(DEPLOYMENTS.path(NS, obj["metadata"]["name"]), body(as_stored(obj, index)))
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    warnings = _warnings(capsys.readouterr().out)
    assert f"{WARNING}Deployment/{names['decode']} spec.replicas: predicted 2, actual 3" in warnings
    assert not [w for w in warnings if "not compared" in w]


def test_render_mode_reports_no_drift(server, files, capsys):
    graph, kubeconfig = files
    serve_expansion(server, [])
    server.on_list(DEPLOYMENTS, NS, listing([]))
    main(["status", str(graph), "--kubeconfig", str(kubeconfig)])
    assert _warnings(capsys.readouterr().out) == []
    read = {path for _, path, _ in server.log}
    assert not read & {_kind_path(o) for o in predicted() if o["kind"] != "Deployment"}, "nothing was read back"


def test_the_readiness_provider_runs_the_same_check_and_never_fails_on_an_unreadable_kind(server, monkeypatch):
    warned: list[str] = []
    monkeypatch.setattr("pulumi.log.warn", lambda message, *args, **kwargs: warned.append(message))
    made, names = _differing()
    serve_expansion(server, [o for o in made if o["kind"] != "Deployment"])
    forbid_deployments(server, made, "no get")
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", graph_doc(), mode="operator",
                                                       readiness=ReadinessOptions(kubeconfig=server.kubeconfig())),
                         preview=False)
    (readiness,) = rec.by_type("pulumi-python:dynamic/dynamo:GraphReadiness")
    inputs = {k: v for k, v in readiness.inputs.items() if k not in ("state", "ready", "components", "drift")}
    assert inputs["predicted"] == predicted(), "pulumi up and the CLI compare against the same prediction"
    result = ReadinessProvider().create({**inputs, "kubeconfig": server.kubeconfig()})  # the secret, resolved
    assert result.outs["state"] == "successful"
    assert result.outs["drift"] == [{"object": f"Service/{names['service']}", "path": "",
                                     "predicted": "present", "actual": None}]
    (message,) = warned
    assert message.splitlines()[1:] == [
        f"Service/{names['service']}: predicted but not created by the operator",
        "Deployment (apps/v1): not compared, cannot be read (HTTP 403: no get)",
    ]


ALPHA_DOC = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "alpha", "namespace": NS},
    "spec": {"backendFramework": "vllm", "services": {
        "Frontend": {"componentType": "frontend", "replicas": 1,
                     "extraPodSpec": {"mainContainer": {"image": "nvcr.io/dynamo/frontend:1.0.0"}}},
        "VllmWorker": {"componentType": "worker", "replicas": 2,
                       "extraPodSpec": {"mainContainer": {"image": "nvcr.io/dynamo/vllm:1.0.0"}}},
    }},
}


def _grouped_doc() -> dict[str, Any]:
    """A graph operator mode sends but whose expansion cannot be predicted offline: no operator
    code we follow renders ``spec.experimental.componentGroups``, so the program predicts nothing
    and the CLI may neither refuse it nor predict more. (An alpha-only componentType was this
    case until operator mode refused it: the v1beta1 CRD's type enum has no such value.)"""
    doc = graph_doc()
    doc["metadata"] = {"name": "grouped", "namespace": NS}
    doc["spec"]["experimental"] = {"componentGroups": [{"name": "pd", "replicas": 1,
                                                        "components": [{"name": "decode"}]}]}
    return doc


UNPREDICTABLE_DOC = _grouped_doc()


def test_the_cli_predicts_each_document_of_a_file_as_the_program_does(tmp_path):
    path = tmp_path / "graphs.yaml"
    docs = [ALPHA_DOC, UNPREDICTABLE_DOC, graph_doc()]
    path.write_text(yaml.safe_dump_all(docs))
    args = argparse.Namespace(file=str(path), namespace=None, platform=None, mode="operator", timeout="60m",
                              inline=False)
    by_graph = {g.request.graph: g.predicted for g in watched_graphs(args)}
    for doc in docs:
        name = doc["metadata"]["name"]
        rec, _ = run_program(lambda doc=doc, name=name: DynamoGraphDeployment(name, doc, mode="operator"),
                             preview=False)
        (readiness,) = rec.by_type("pulumi-python:dynamic/dynamo:GraphReadiness")
        assert by_graph[name] == readiness.inputs["predicted"], name
    assert by_graph["alpha"] and by_graph["llm"] and by_graph["grouped"] == []


def test_a_graph_whose_expansion_cannot_be_predicted_says_drift_was_not_checked(server, tmp_path, capsys):
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump({**UNPREDICTABLE_DOC, "metadata": {"name": "llm", "namespace": NS}}))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig())
    serve_expansion(server, [])
    assert main(["status", str(path), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    assert _warnings(capsys.readouterr().out) == [
        f"warning: {LABEL}: drift not checked: the operator's expansion cannot be predicted offline "
        "(dynamo-pulumi preview --mode operator says why)"]
