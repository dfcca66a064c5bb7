"""``dynamo-pulumi wait`` as a process: SIGINT and SIGTERM end it (130, 143) with the client's
decoded credentials removed from a private ``$TMPDIR``; a slow server with a ready graph exits 0
(no daemon thread waking during interpreter shutdown, which aborted with 134); a hung server ends
the command at its deadline, in one line without urllib3 text.

The API server is the loopback replay server (HTTPS with a throw-away certificate made by the
``openssl`` command for the credential cases: the client decodes ``client-key-data`` into a temp
file only for an https cluster); skipped where ``openssl`` is absent.
"""

from __future__ import annotations

import base64
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from replay_support import ReplayServer, listing
from resources_fixtures import NS, graph_doc
from test_cli_wait import _ready_graph
from test_cluster_waiter import DEPLOYMENT

from dynamo_pulumi.cluster.waiter import POD

REPO = Path(__file__).resolve().parent.parent
#: Start-up (imports, render) on a loaded 2-core machine, before the first request.
START_SECONDS = 90.0


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture
def tls_server(certificate):
    replay = ReplayServer(tls=certificate).start()
    yield replay
    replay.close()


def _b64(path: str) -> str:
    return base64.b64encode(Path(path).read_bytes()).decode()


#: ``-c`` code that runs the CLI as ``python -m dynamo_pulumi`` does, after a prelude.
#: The command, with SIGINT at Python's default as a user's shell starts it: a test run started in
#: the background of a non-interactive shell (``cmd &``) ignores SIGINT, children inherit that, and
#: a CLI started so keeps ignoring it (as POSIX has it), which is not what these tests are about.
CLI = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
       "from dynamo_pulumi.cli import main\nsys.argv[0] = 'dynamo-pulumi'\nsys.exit(main())\n")
#: A prelude that makes the waiter's judgement raise: a bug of ours, in the middle of a wait.
BUG = ("from dynamo_pulumi.cluster import waiter\n"
       "def evaluate(self):\n"
       "    raise RuntimeError('a bug')\n"
       "waiter.Waiter.evaluate = evaluate\n")


def _start(tmp_path: Path, server: ReplayServer, kubeconfig: str, timeout: str,
           prelude: str = "") -> tuple[subprocess.Popen[str], Path]:
    private = tmp_path / "tmp"
    private.mkdir()
    graph = tmp_path / "graph.yaml"
    graph.write_text(yaml.safe_dump(graph_doc()))
    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig)
    env = {**os.environ, "TMPDIR": str(private), "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", prelude + CLI, "wait", str(graph), "--kubeconfig", str(config),
                              "--timeout", timeout], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return child, private


def _first_line(child: subprocess.Popen[str]) -> str:
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], START_SECONDS)
    assert ready, "no progress line"
    return child.stdout.readline()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_ends_the_wait_with_no_credential_file_left(tmp_path, tls_server, certificate, signum, code):
    cert, key = certificate
    _ready_graph(tls_server, decode_ready=0)  # not ready; the watches stay open and idle
    tls_server.on_list(POD, NS, listing([]))
    user = {"client-certificate-data": _b64(cert), "client-key-data": _b64(key)}
    child, private = _start(tmp_path, tls_server, tls_server.kubeconfig(user=user), "60s")
    try:
        assert _first_line(child).startswith("DynamoGraphDeployment team-a/llm: ")
        (folder,) = private.iterdir()  # one private directory, the decoded certificate and key in it
        assert folder.name.startswith("dynamo-pulumi-credentials-") and folder.stat().st_mode & 0o777 == 0o700
        decoded = sorted(folder.iterdir())
        assert sorted(p.suffix for p in decoded) == [".crt", ".key"]
        assert all(p.stat().st_mode & 0o777 == 0o600 for p in decoded)
        child.send_signal(signum)
        sent = time.monotonic()
        child.wait(timeout=20)
        assert time.monotonic() - sent < 5
    finally:
        child.kill()
        child.communicate()
    assert child.returncode == code
    assert list(private.iterdir()) == []


def _client_kubeconfig(server: ReplayServer, certificate: tuple[str, str]) -> str:
    cert, key = certificate
    return server.kubeconfig(user={"client-certificate-data": _b64(cert), "client-key-data": _b64(key)})


def test_a_wait_that_succeeds_leaves_no_credential_file(tmp_path, tls_server, certificate):
    _ready_graph(tls_server)
    tls_server.on_list(POD, NS, listing([]))
    child, private = _start(tmp_path, tls_server, _client_kubeconfig(tls_server, certificate), "60s")
    _out, err = child.communicate(timeout=START_SECONDS + 60)
    assert child.returncode == 0, err
    assert list(private.iterdir()) == []


def test_a_bug_in_the_middle_of_a_wait_leaves_no_credential_file(tmp_path, tls_server, certificate):
    _ready_graph(tls_server, decode_ready=0)
    tls_server.on_list(POD, NS, listing([]))
    child, private = _start(tmp_path, tls_server, _client_kubeconfig(tls_server, certificate), "60s", prelude=BUG)
    _out, err = child.communicate(timeout=START_SECONDS + 60)
    assert child.returncode == 1 and "RuntimeError: a bug" in err  # the traceback of our bug, for its report
    assert list(private.iterdir()) == []


def test_a_slow_server_and_a_ready_graph_exit_0(tmp_path, server):
    server.latency = 2.0
    _ready_graph(server)
    server.on_list(POD, NS, listing([]))
    child, _ = _start(tmp_path, server, server.kubeconfig(), "60s")
    out, err = child.communicate(timeout=START_SECONDS + 60)
    assert child.returncode == 0, err
    assert out.splitlines()[-1] == "DynamoGraphDeployment team-a/llm is ready (all_resources_are_ready)"
    assert "Fatal Python error" not in err


def test_a_hung_server_ends_the_command_at_its_deadline_in_one_line(tmp_path, server):
    server.hang_all = True
    child, _ = _start(tmp_path, server, server.kubeconfig(), "5s")
    _out, err = child.communicate(timeout=START_SECONDS + 60)
    ended = time.monotonic()
    assert child.returncode == 1
    assert err == (f"error: DynamoGraphDeployment team-a/llm not ready after 5s: the API server at {server.url} "
                   "did not answer in time\n")
    assert ended - server.times[0] < 5 + 5
    assert len(server.log) <= 20 * (ended - server.times[0])
    assert server.requests_to(DEPLOYMENT.path(NS))
