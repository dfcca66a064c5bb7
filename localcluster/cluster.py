"""The local cluster: etcd, the Kubernetes control plane and kwok on loopback, started and stopped.

The flags follow what controller-runtime's envtest gives the API server (loopback binding,
generated certificates, RBAC) plus the controller manager and scheduler, which envtest lacks and
which we need: the Deployment and ReplicaSet controllers write the status our readiness reads,
the garbage collector makes ``pulumi destroy`` cascade, and only the scheduler binds pods (kwok
does not). Everything listens on 127.0.0.1; pod and node IPs are API data that nothing dials.
"""

from __future__ import annotations

import http.client
import json
import ssl
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .certs import ClusterCerts, make_cluster_certs
from .nodes import DEFAULT_POOLS, NodePool, node_manifests
from .processes import Children, free_port
from .tools import ToolSet

# The delay kwok waits before a bound pod is Running and Ready, unless the pod says otherwise
# with the annotation kwok's own general stages read.
POD_READY_DELAY_ANNOTATION = "pod-ready.stage.kwok.x-k8s.io/delay"
DEFAULT_POD_READY_DELAY_MS = 500
SERVICE_CIDR = "10.96.0.0/16"
POD_CIDR = "10.244.0.0/16"


class ClusterError(RuntimeError):
    """A component did not start or the cluster did not become ready; the message says which."""


@dataclass
class Timings:
    """Seconds from the start of ``start()`` to each milestone, for the notes and the README."""

    marks: dict[str, float] = field(default_factory=dict)

    def mark(self, name: str, since: float) -> None:
        self.marks[name] = round(time.monotonic() - since, 2)


@dataclass
class LocalCluster:
    """One cluster in ``workdir``; ``start()`` returns when nodes, CRDs and the default SA exist."""

    workdir: Path
    tools: ToolSet
    crds: tuple[Path, ...] = ()
    pools: tuple[NodePool, ...] = DEFAULT_POOLS
    pod_ready_delay_ms: int = DEFAULT_POD_READY_DELAY_MS
    timings: Timings = field(default_factory=Timings)

    def __post_init__(self) -> None:
        self.workdir = self.workdir.resolve()
        self.children = Children(self.workdir / "logs")
        self.kubeconfig = self.workdir / "kubeconfig"
        self.apiserver_port = 0
        self.certs: ClusterCerts | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> None:
        t0 = time.monotonic()
        deadline = t0 + timeout
        try:
            self._start(t0, deadline)
        except BaseException:
            self.stop()
            raise
        self.timings.mark("ready", t0)

    def _start(self, t0: float, deadline: float) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.certs = make_cluster_certs(self.workdir / "pki")
        self.timings.mark("certificates", t0)
        etcd_port = free_port()
        self._start_etcd(etcd_port)
        self.apiserver_port = free_port()
        self._start_apiserver(etcd_port)
        self._write_kubeconfig()
        self._wait("kube-apiserver /readyz", deadline, self._apiserver_ready)
        self.timings.mark("apiserver", t0)
        self._start_controllers()
        if self.crds:
            self.apply_files(self.crds, server_side=True)
        self.apply(node_manifests(self.pools))
        if self.crds:
            self.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
        self.timings.mark("crds", t0)
        self._wait("the default ServiceAccount", deadline, self._default_service_account)
        self.kubectl("wait", "--for=condition=Ready", "node", "--all", "--timeout=60s")
        self.timings.mark("nodes", t0)

    def stop(self) -> None:
        self.children.stop()

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- components ------------------------------------------------------------------------

    def _start_etcd(self, port: int) -> None:
        peer = free_port()
        self.children.start("etcd", [
            str(self.tools.program("etcd")),
            f"--data-dir={self.workdir / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{port}",
            f"--advertise-client-urls=http://127.0.0.1:{port}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ])

    def _start_apiserver(self, etcd_port: int) -> None:
        c = self._certs()
        self.children.start("kube-apiserver", [
            str(self.tools.program("kube-apiserver")),
            f"--etcd-servers=http://127.0.0.1:{etcd_port}",
            f"--secure-port={self.apiserver_port}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--cert-dir={self.workdir / 'pki' / 'apiserver-generated'}",
            f"--tls-cert-file={c.apiserver.cert}",
            f"--tls-private-key-file={c.apiserver.key}",
            f"--client-ca-file={c.ca.cert}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            f"--service-account-issuer=https://127.0.0.1:{self.apiserver_port}",
            f"--service-account-key-file={c.service_account_pub}",
            f"--service-account-signing-key-file={c.service_account_key}",
            "--authorization-mode=RBAC",
            "--allow-privileged=true",
            "--profiling=false",
            "--v=1",
        ])

    def _start_controllers(self) -> None:
        c = self._certs()
        kc = str(self.kubeconfig)
        self.children.start("kube-controller-manager", [
            str(self.tools.program("kube-controller-manager")),
            f"--kubeconfig={kc}", f"--authentication-kubeconfig={kc}", f"--authorization-kubeconfig={kc}",
            "--leader-elect=false", "--bind-address=127.0.0.1", f"--secure-port={free_port()}",
            "--controllers=*",
            f"--service-account-private-key-file={c.service_account_key}",
            f"--root-ca-file={c.ca.cert}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            "--use-service-account-credentials=false",
            "--v=1",
        ])
        self.children.start("kube-scheduler", [
            str(self.tools.program("kube-scheduler")),
            f"--kubeconfig={kc}", f"--authentication-kubeconfig={kc}", f"--authorization-kubeconfig={kc}",
            "--leader-elect=false", "--bind-address=127.0.0.1", f"--secure-port={free_port()}",
            "--v=1",
        ])
        stages = self.workdir / "kwok-stages.yaml"
        stages.write_text(kwok_stages(self.tools.share("kwok") / "stages.yaml", self.pod_ready_delay_ms))
        self.children.start("kwok", [
            str(self.tools.program("kwok")),
            f"--kubeconfig={kc}",
            "--manage-all-nodes=false",
            "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
            f"--cidr={POD_CIDR}",
            "--node-ip=10.0.0.1",
            "--node-lease-duration-seconds=40",
            "--server-address=",
            f"--config={stages}",
        ])

    # -- client side -----------------------------------------------------------------------

    def _certs(self) -> ClusterCerts:
        if self.certs is None:
            raise ClusterError("the cluster's certificates were not made: call start() first")
        return self.certs

    def _write_kubeconfig(self) -> None:
        c = self._certs()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "local", "cluster": {
                "server": self.server, "certificate-authority": str(c.ca.cert)}}],
            "users": [{"name": "admin", "user": {
                "client-certificate": str(c.admin.cert), "client-key": str(c.admin.key)}}],
            "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
            "current-context": "local",
        }
        self.kubeconfig.write_text(yaml.safe_dump(config, sort_keys=False))
        self.kubeconfig.chmod(0o600)

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.apiserver_port}"

    def _ssl(self) -> ssl.SSLContext:
        c = self._certs()
        ctx = ssl.create_default_context(cafile=str(c.ca.cert))
        ctx.load_cert_chain(str(c.admin.cert), str(c.admin.key))
        return ctx

    def request(self, method: str, path: str, body: Any = None, timeout: float = 10.0) -> tuple[int, Any]:
        """One request to the API server as the admin; the JSON answer (or text) and the status."""
        conn = http.client.HTTPSConnection("127.0.0.1", self.apiserver_port, context=self._ssl(), timeout=timeout)
        try:
            payload = None if body is None else json.dumps(body).encode()
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            conn.request(method, path, body=payload, headers=headers)
            resp = conn.getresponse()
            data = resp.read().decode()
            try:
                return resp.status, json.loads(data)
            except json.JSONDecodeError:
                return resp.status, data
        finally:
            conn.close()

    def stream(self, path: str, timeout: float = 30.0) -> Iterator[dict[str, Any]]:
        """The events of one watch request (``path`` with ``watch=true`` and a ``timeoutSeconds``
        the server ends it by); the connection is closed when the caller stops iterating."""
        conn = http.client.HTTPSConnection("127.0.0.1", self.apiserver_port, context=self._ssl(), timeout=timeout)
        try:
            conn.request("GET", path, headers={"Accept": "application/json"})
            resp = conn.getresponse()
            while line := resp.readline():
                yield json.loads(line)
        finally:
            conn.close()

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, timeout: float = 120.0) -> str:
        result = self.kubectl_result(*args, input=input, timeout=timeout)
        if check and result.returncode != 0:
            raise ClusterError(f"kubectl {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
        return result.stdout

    def kubectl_result(self, *args: str, input: str | None = None,
                       timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        """``kubectl`` against this cluster, its exit code and both outputs (an admission refusal
        is an answer to read, not an error)."""
        return subprocess.run(
            [str(self.tools.program("kubectl")), f"--kubeconfig={self.kubeconfig}", *args],
            input=input, capture_output=True, text=True, timeout=timeout, check=False,
        )

    def apply(self, objects: Iterable[dict[str, Any]]) -> None:
        docs = list(objects)
        if docs:
            self.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(docs, sort_keys=False))

    def apply_files(self, paths: Iterable[Path], *, server_side: bool = False) -> None:
        args = ["apply"] + (["--server-side", "--force-conflicts"] if server_side else [])
        for p in paths:
            args += ["-f", str(p)]
        self.kubectl(*args)

    # -- readiness of the cluster itself ---------------------------------------------------

    def _wait(self, what: str, deadline: float, ready: Any) -> None:
        while True:
            dead = [child for child in self.children.started if not child.alive()]
            if dead:
                child = dead[0]
                raise ClusterError(f"{child.name} exited with {child.process.returncode} while waiting for "
                                   f"{what}; the end of {child.log}:\n{child.tail()}")
            if ready():
                return
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- {c.name}\n{c.tail(8)}" for c in self.children.started)
                raise ClusterError(f"timed out waiting for {what}\n{logs}")
            time.sleep(0.1)

    def _apiserver_ready(self) -> bool:
        try:
            status, _ = self.request("GET", "/readyz", timeout=2)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200

    def _default_service_account(self) -> bool:
        try:
            status, _ = self.request("GET", "/api/v1/namespaces/default/serviceaccounts/default", timeout=2)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200


def kwok_stages(upstream: Path, pod_ready_delay_ms: int) -> str:
    """kwok's fast stages, with the pod-ready stage waiting a delay a pod's annotation may set.

    Without a delay, a pod is Ready the moment it is bound, and a rollout is never observed in
    between; with one (half a second by default), the real controllers pass through the states a
    user sees on a real cluster, and a test can hold one pod back with the annotation.
    """
    docs = [d for d in yaml.safe_load_all(upstream.read_text()) if d]
    for doc in docs:
        if doc.get("kind") == "Stage" and doc["metadata"]["name"] == "pod-ready":
            doc["spec"]["delay"] = {
                "durationMilliseconds": pod_ready_delay_ms,
                "durationFrom": {"expressionFrom": f'.metadata.annotations["{POD_READY_DELAY_ANNOTATION}"]'},
            }
    return yaml.safe_dump_all(docs, sort_keys=False)
