"""The wait-for-leader script and its ConfigMap (rendering-core 4.1, mp launches).

A vLLM mp worker started before its leader's master port is open fails torch's rendezvous, and
LWS / Grove start every pod of a group together. So mp worker pods get an init container that
runs this script: resolve ``LEADER_HOST``, ask the Kubernetes API whether the pod owning that IP
is Running and not terminating (a stale DNS record may still name a dead leader), then open a
TCP connection to ``LEADER_PORT``; retry every 5 seconds. Without API access (no RBAC) it falls
back to the TCP check alone.

One ConfigMap per graph, owned by the DGD, created whenever any component is multinode.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME

WAIT_LEADER_CONFIG_MAP_SUFFIX = "wait-leader-script"
WAIT_LEADER_SCRIPT_KEY = "wait-for-leader.py"
WAIT_LEADER_VOLUME_NAME = "wait-leader-script"
WAIT_LEADER_MOUNT_PATH = "/scripts"
WAIT_LEADER_INIT_CONTAINER_NAME = "wait-for-leader-mp"

WAIT_LEADER_SCRIPT = '''\
"""Block until the multinode leader is Running and accepts connections on LEADER_PORT."""
import json
import os
import socket
import ssl
import sys
import time
import urllib.parse
import urllib.request

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
API_SERVER = "https://kubernetes.default.svc"
RETRY_SECONDS = 5
REPORT_EVERY_SECONDS = 30

LEADER_HOST = os.environ["LEADER_HOST"]
LEADER_PORT = int(os.environ["LEADER_PORT"])


def read_sa_file(name):
    with open(os.path.join(SERVICE_ACCOUNT_DIR, name)) as handle:
        return handle.read().strip()


def pods_with_ip(ip):
    """The pods in this namespace whose status.podIP is ip (raises when the API is unusable)."""
    namespace = read_sa_file("namespace")
    query = urllib.parse.urlencode({"fieldSelector": "status.podIP=" + ip})
    request = urllib.request.Request(
        API_SERVER + "/api/v1/namespaces/" + namespace + "/pods?" + query,
        headers={"Authorization": "Bearer " + read_sa_file("token")},
    )
    context = ssl.create_default_context(cafile=os.path.join(SERVICE_ACCOUNT_DIR, "ca.crt"))
    with urllib.request.urlopen(request, context=context, timeout=5) as response:
        return json.loads(response.read()).get("items", [])


def leader_state():
    """(ready_to_probe, leader ip or None, why not ready)."""
    try:
        ip = socket.gethostbyname(LEADER_HOST)
    except OSError as exc:
        return False, None, "cannot resolve %s: %s" % (LEADER_HOST, exc)
    try:
        pods = pods_with_ip(ip)
    except Exception as exc:  # no token, no RBAC, API down: the TCP check alone decides
        return True, ip, "pod lookup unavailable (%s); checking TCP only" % exc
    if not pods:
        return False, ip, "no pod has IP " + ip
    pod = pods[0]
    meta, status = pod.get("metadata", {}), pod.get("status", {})
    name = meta.get("name", "?")
    if meta.get("deletionTimestamp"):
        return False, ip, "leader pod %s is terminating" % name
    if status.get("phase") != "Running":
        return False, ip, "leader pod %s is %s" % (name, status.get("phase"))
    return True, ip, "leader pod %s is Running" % name


def port_open(ip):
    try:
        with socket.create_connection((ip, LEADER_PORT), timeout=2):
            return True, ""
    except OSError as exc:
        return False, "port %d not open: %s" % (LEADER_PORT, exc)


def main():
    print("waiting for leader %s:%d" % (LEADER_HOST, LEADER_PORT), flush=True)
    started = last_report = time.monotonic()
    while True:
        ready, ip, why = leader_state()
        if ready:
            is_open, why_closed = port_open(ip)
            if is_open:
                print("leader %s:%d is ready after %.0fs (%s)"
                      % (LEADER_HOST, LEADER_PORT, time.monotonic() - started, why), flush=True)
                return 0
            why = why_closed
        now = time.monotonic()
        if now - last_report >= REPORT_EVERY_SECONDS:
            print("still waiting for %s:%d after %.0fs: %s"
                  % (LEADER_HOST, LEADER_PORT, now - started, why), flush=True)
            last_report = now
        time.sleep(RETRY_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
'''


def wait_leader_config_map_name(dgd_name: str) -> str:
    """``<dgd>-wait-leader-script``."""
    return f"{dgd_name}-{WAIT_LEADER_CONFIG_MAP_SUFFIX}"


def build_wait_leader_configmap(dgd_name: str, namespace: str) -> dict[str, Any]:
    """The DGD-owned ConfigMap holding the script (the pipeline adds ownership and hashes)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": wait_leader_config_map_name(dgd_name),
            "namespace": namespace,
            "labels": {KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: dgd_name},
        },
        "data": {WAIT_LEADER_SCRIPT_KEY: WAIT_LEADER_SCRIPT},
    }
