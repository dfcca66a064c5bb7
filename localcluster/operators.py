"""Controllers beside the local cluster, started on demand: LeaderWorkerSet, Grove, the Dynamo operator.

Each runs out of cluster as a child process of the cluster (stopped with it, or on its own to be
restarted with other settings), talks to the API server with the admin kubeconfig, binds its
metrics, health and webhook ports to 127.0.0.1 and serves its webhooks with a certificate of the
cluster's CA (``webhooks.py`` registers them on loopback). LWS is one of the pinned tools and
runs in CI; Grove and the Dynamo operator are not served by the module proxy, so they run only
when a binary is given (``GROVE_OPERATOR_BIN``, ``DYNAMO_OPERATOR_BIN``; see
``tests/fixtures/operator_recordings/README.md`` for how the recorded ones were built).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .cluster import ClusterError, LocalCluster
from .processes import Child, free_port
from .webhooks import ServingCerts, on_loopback, rule, serving_certs, webhook_configuration

GROVE_BINARY_ENV = "GROVE_OPERATOR_BIN"
DYNAMO_BINARY_ENV = "DYNAMO_OPERATOR_BIN"
# Grove's PodClique pods get an init container with this image when a clique waits for others
# (startsAfter); kwok never pulls it, any name will do, but Grove refuses to sync pods without one.
GROVE_INIT_IMAGE = "ghcr.io/ai-dynamo/grove/grove-initc:local"
LWS_POD_SELECTOR = {"matchExpressions": [{"key": "leaderworkerset.sigs.k8s.io/name", "operator": "Exists"}]}


@dataclass
class Controller:
    """One running controller: its process, the ports it serves and how long it took to be ready."""

    name: str
    child: Child
    cluster: LocalCluster
    health_port: int
    webhook_port: int
    started: float = field(default_factory=time.monotonic)
    ready_after: float | None = None
    #: What the controller registered in the cluster, undone when it stops: webhook
    #: configurations to delete (``kind/name``) and patches to apply (``resource``, merge patch).
    registered: list[str] = field(default_factory=list)
    restore: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def ready(self) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.health_port, timeout=2)
            conn.request("GET", "/readyz")
            status = conn.getresponse().status
            conn.close()
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and _tls_listening(self.webhook_port)

    def wait_ready(self, timeout: float = 90.0) -> Controller:
        deadline = time.monotonic() + timeout
        while not self.ready():
            if not self.child.alive():
                raise ClusterError(f"{self.name} exited with {self.child.process.returncode} before it was "
                                   f"ready; the end of {self.child.log}:\n{self.child.tail()}")
            if time.monotonic() > deadline:
                raise ClusterError(f"{self.name} was not ready after {timeout:.0f} s; the end of "
                                   f"{self.child.log}:\n{self.child.tail()}")
            time.sleep(0.2)
        self.ready_after = round(time.monotonic() - self.started, 2)
        return self

    def register(self, docs: list[dict[str, Any]]) -> None:
        """Apply webhook configurations that call this controller, to be deleted when it stops
        (a ``Fail`` webhook left behind would refuse every later create it matches)."""
        self.cluster.apply(docs)
        self.registered += [f"{d['kind'].lower()}/{d['metadata']['name']}" for d in docs]

    def stop(self) -> None:
        if self.registered:
            self.cluster.kubectl("delete", "--ignore-not-found", *self.registered, check=False)
        for resource, patch in self.restore:
            self.cluster.kubectl("patch", resource, "--type=merge", "-p", json.dumps(patch), check=False)
        self.cluster.children.stop_one(self.child)


def _tls_listening(port: int) -> bool:
    """The webhook server completes a TLS handshake (its certificate is loaded, it serves)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as raw, ctx.wrap_socket(raw):
            return True
    except (OSError, ssl.SSLError):
        return False


def controller_dir(cluster: LocalCluster, name: str) -> Path:
    d = cluster.workdir / "controllers" / name
    d.mkdir(parents=True, exist_ok=True)
    return d


def cluster_certs(cluster: LocalCluster, name: str) -> ServingCerts:
    if cluster.certs is None:
        raise ClusterError("start the cluster before its controllers")
    return serving_certs(controller_dir(cluster, name) / "certs", cluster.certs.ca, name)


def binary_from_env(variable: str) -> Path | None:
    """The operator binary a person or CI job named in ``variable``, or None; a wrong path is an error."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ClusterError(f"{variable}={value} is not an executable file")
    return path


def _write_yaml(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


# -- LeaderWorkerSet -------------------------------------------------------------------------------


def start_lws(cluster: LocalCluster, timeout: float = 90.0) -> Controller:
    """The pinned ``lws-controller`` with its webhooks on loopback (the pod webhook only for LWS pods).

    Webhooks stay on: the pod mutating webhook writes the group-index, worker-index and subgroup
    labels multi-node LWS pods rely on. The pod webhooks get upstream's objectSelector
    (``config/webhook/mutating-patch.yaml``), or every pod create in the cluster would call them.
    """
    d = controller_dir(cluster, "lws")
    certs = cluster_certs(cluster, "lws")
    webhook, health = free_port(), free_port()
    config = _write_yaml(d / "config.yaml", {
        "apiVersion": "config.lws.x-k8s.io/v1alpha1",
        "kind": "Configuration",
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "webhook": {"host": "127.0.0.1", "port": webhook, "certDir": str(certs.directory)},
        "metrics": {"bindAddress": "0"},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health}"},
    })
    selectors = {"mpod.kb.io": LWS_POD_SELECTOR, "vpod.kb.io": LWS_POD_SELECTOR}
    manifests = cluster.tools.share("lws") / "webhook-manifests.yaml"
    docs = [on_loopback(doc, webhook, certs, name_prefix="lws-", object_selectors=selectors)
            for doc in yaml.safe_load_all(manifests.read_text()) if doc]
    child = cluster.children.start("lws-controller", [
        str(cluster.tools.program("lws-controller")), f"--config={config}", "--zap-log-level=info",
    ], env={**_base_env(), "KUBECONFIG": str(cluster.kubeconfig)})
    controller = Controller("lws-controller", child, cluster, health, webhook).wait_ready(timeout)
    controller.register(docs)
    return controller


# -- Grove -----------------------------------------------------------------------------------------

GROVE_WEBHOOKS = (
    ("MutatingWebhookConfiguration", "grove-podcliqueset-defaulting", [
        {"name": "pcs.defaulting.webhooks.grove.io", "path": "/webhooks/default-podcliqueset",
         "matchPolicy": "Exact", "rules": [rule("grove.io", ["v1alpha1"], ["podcliquesets"])]}]),
    ("ValidatingWebhookConfiguration", "grove-podcliqueset-validating", [
        {"name": "pcs.validating.webhooks.grove.io", "path": "/webhooks/validate-podcliqueset",
         "matchPolicy": "Exact", "rules": [rule("grove.io", ["v1alpha1"], ["podcliquesets"])]}]),
    ("ValidatingWebhookConfiguration", "grove-clustertopology-validating", [
        {"name": "clustertopology.validating.webhooks.grove.io", "path": "/webhooks/validate-clustertopology",
         "matchPolicy": "Exact",
         "rules": [rule("grove.io", ["v1alpha1"], ["clustertopologybindings"], scope="Cluster")]}]),
)


def start_grove(cluster: LocalCluster, binary: Path, timeout: float = 90.0) -> Controller:
    """A Grove operator binary with its (always registered) webhooks on loopback, manual certs,
    the authorizer off (it needs an in-cluster service account) and the default scheduler only."""
    d = controller_dir(cluster, "grove")
    certs = cluster_certs(cluster, "grove")
    webhook, health, metrics = free_port(), free_port(), free_port()
    config = _write_yaml(d / "config.yaml", {
        "apiVersion": "operator.config.grove.io/v1alpha1",
        "kind": "OperatorConfiguration",
        "runtimeClientConnection": {"qps": 100, "burst": 150},
        "leaderElection": {"enabled": False},
        "server": {
            "webhooks": {"bindAddress": "127.0.0.1", "port": webhook, "serverCertDir": str(certs.directory),
                         "certProvisionMode": "manual"},
            "healthProbes": {"bindAddress": "127.0.0.1", "port": health},
            "metrics": {"bindAddress": "127.0.0.1", "port": metrics},
        },
        "debugging": {"enableProfiling": False},
        "controllers": {"podCliqueSet": {"concurrentSyncs": 3}, "podClique": {"concurrentSyncs": 3},
                        "podCliqueScalingGroup": {"concurrentSyncs": 2}},
        "scheduler": {"profiles": [{"name": "default-scheduler"}], "defaultProfileName": "default-scheduler"},
        "logLevel": "info",
        "logFormat": "json",
        "authorizer": {"enabled": False},
        "topologyAwareScheduling": {"enabled": False},
        "network": {"autoMNNVLEnabled": False},
    })
    child = cluster.children.start("grove-operator", [str(binary), f"--config={config}"], env={
        **_base_env(), "KUBECONFIG": str(cluster.kubeconfig), "GROVE_INIT_CONTAINER_IMAGE": GROVE_INIT_IMAGE,
    })
    controller = Controller("grove-operator", child, cluster, health, webhook).wait_ready(timeout)
    controller.register([webhook_configuration(kind, name, hooks, webhook, certs) for kind, name, hooks in GROVE_WEBHOOKS])
    return controller


def _base_env() -> dict[str, str]:
    """The parent's environment without in-cluster or proxy settings a controller would pick up."""
    drop = ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy",
            "http_proxy", "KUBECONFIG")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env
