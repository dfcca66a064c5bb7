"""``dynamo-pulumi wait`` and ``status`` against the replay server, with a real kubeconfig file."""

from __future__ import annotations

import yaml
from cluster_recordings import recording
from replay_support import ReplayServer, event, listing, status_error, stream
from resources_fixtures import NS, graph_doc
from test_cluster_waiter import DEPLOYMENT, DGD, deployment

from dynamo_pulumi.cli import main
from dynamo_pulumi.cluster.waiter import EVENT, POD
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.render import render_graph


def _names() -> tuple[str, str]:
    objects = render_graph(load_graph(graph_doc()), namespace=NS).objects
    names = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Deployment")
    decode = next(n for n in names if "decode" in n)
    frontend = next(n for n in names if "frontend" in n)
    return frontend, decode


def _ready_graph(server, decode_ready: int = 2) -> None:
    frontend, decode = _names()
    server.on_list(DEPLOYMENT, NS, listing([deployment(frontend, "Frontend", 1, desired=1),
                                            deployment(decode, "decode", decode_ready)], "10"))


def test_wait_prints_progress_and_exits_0_when_ready(server, files, capsys):
    graph, kubeconfig = files
    _frontend, decode = _names()
    _ready_graph(server, decode_ready=0)
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment(decode, "decode", 2, version="11"))]))
    server.on_list(POD, NS, listing([]))
    assert main(["wait", str(graph), "--kubeconfig", str(kubeconfig), "--timeout", "30s"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "DynamoGraphDeployment team-a/llm: Frontend: 1/1 ready"
    assert out[1].startswith("DynamoGraphDeployment team-a/llm: decode: 0/2 ready (Deployment llm-decode-2e1c9d5a: 2 updated, "
                             "0 available of 2): ")
    assert out[-2:] == ["DynamoGraphDeployment team-a/llm: decode: 2/2 ready",
                        "DynamoGraphDeployment team-a/llm is ready (all_resources_are_ready)"]


def test_wait_exits_1_with_reasons_on_timeout(server, files, capsys):
    graph, kubeconfig = files
    _ready_graph(server, decode_ready=0)
    server.on_list(POD, NS, listing([recording("pod-crash-loop")]))
    server.on_list(EVENT, NS, listing([]))
    assert main(["wait", str(graph), "--kubeconfig", str(kubeconfig), "--timeout", "1s"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: DynamoGraphDeployment team-a/llm not ready after 1s:\n")
    assert "  decode: 0/2 ready (Deployment llm-decode-2e1c9d5a: 2 updated, 0 available of 2): CrashLoopBackOff: container main last exit code 1 (Error)" in err
    assert "Traceback" not in err


def test_status_prints_the_table_once(server, files, capsys):
    graph, kubeconfig = files
    _ready_graph(server, decode_ready=1)
    server.on_list(POD, NS, listing([recording("pod-unschedulable")]))
    server.on_list(EVENT, NS, listing([]))
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "DynamoGraphDeployment team-a/llm: not ready (state pending, some_resources_are_not_ready)"
    assert out[1].split() == ["COMPONENT", "KIND", "READY", "UPDATED", "DESIRED", "REASON"]
    assert out[2].split()[:5] == ["Frontend", "Deployment", "1/1", "1", "1"]
    assert out[3].split()[:6] == ["decode", "Deployment", "1/2", "2", "2", "Unschedulable:"]
    assert server.requests_to(DEPLOYMENT.path(NS), watch=True) == []


def test_status_in_operator_mode_reads_the_dgd(server, files, capsys):
    graph, kubeconfig = files
    server.on_list(DGD, NS, listing([recording("dgd-ready")], "20"))
    server.on_list(POD, NS, listing([]))
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 0
    assert capsys.readouterr().out.startswith("DynamoGraphDeployment team-a/llm: ready (state successful, all_resources_are_ready)")


def test_a_missing_crd_is_one_line(server, files, capsys):
    graph, kubeconfig = files
    server.on_list(DGD, NS, status_error(404, "NotFound", "the server could not find the requested resource"))
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig), "--mode", "operator"]) == 1
    err = capsys.readouterr().err
    assert err == ("error: DynamoGraphDeployment (nvidia.com/v1beta1) is not served by this cluster: "
                   "is its CRD (or operator) installed?\n")


def test_an_unreachable_cluster_is_one_line(tmp_path, capsys):
    graph = tmp_path / "graph.yaml"
    graph.write_text(yaml.safe_dump(graph_doc()))
    replay = ReplayServer()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(replay.kubeconfig())
    replay.httpd.server_close()
    assert main(["status", str(graph), "--kubeconfig", str(kubeconfig)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: cannot reach the API server at http://127.0.0.1:")


def test_a_bad_kubeconfig_or_timeout_is_one_line(files, tmp_path, capsys):
    graph, _ = files
    assert main(["wait", str(graph), "--kubeconfig", str(tmp_path / "missing")]) == 1
    assert capsys.readouterr().err.startswith("error: kubeconfig file ")
    broken = tmp_path / "broken"
    broken.write_text("kind: Config\n")
    assert main(["wait", str(graph), "--kubeconfig", str(broken)]) == 1
    assert capsys.readouterr().err.startswith("error: kubeconfig")
    assert main(["wait", str(graph), "--kubeconfig", str(broken), "--timeout", "soon"]) == 64  # a usage error
    assert "argument --timeout: timeout must be a duration" in capsys.readouterr().err
