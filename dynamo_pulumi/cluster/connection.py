"""How to reach the cluster: an explicit kubeconfig, context or cluster, else what pulumi-kubernetes uses.

pulumi-kubernetes resolves its connection from provider arguments (a default provider's from
the stack config ``kubernetes:kubeconfig``, ``kubernetes:context``, ``kubernetes:cluster``), then
``$KUBECONFIG``, then ``~/.kube/config``, then the in-cluster service account. The readiness
resource must talk to the same cluster; the program side passes the children's provider's
settings as (secret) inputs (:mod:`dynamo_pulumi.resources.kube_provider`), and the provider
process resolves the rest, the ambient connection, the same way here.

A :class:`Connection` is plain data (picklable, printable without secrets); the official
client's ``ApiClient`` is built from it only when needed, inside the process that talks to the
cluster, and never kept on a provider instance. Every failure to build it is a one-line
:class:`ClusterError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dynamo_pulumi.cluster.errors import ClusterError
from dynamo_pulumi.cluster.kubeconfig import decode
from dynamo_pulumi.floor.records import record

#: Seconds a single non-watch request may take before it counts as a failure.
REQUEST_TIMEOUT = 30.0


@record
class Connection:
    """Where the cluster is. ``kubeconfig`` is the file's *contents* (YAML, JSON or one base64
    line), a path to it, or the parsed document (pulumi-eks' ``Cluster.kubeconfig`` is an object
    Output, not text); :mod:`.kubeconfig` decodes it. ``cluster`` is pulumi-kubernetes' provider
    setting of the same name: the kubeconfig cluster the active context is pointed at."""

    kubeconfig: str | Mapping[str, Any] | None = None
    context: str | None = None
    cluster: str | None = None

    def __repr__(self) -> str:  # never print a kubeconfig (it holds credentials)
        shown = "<given>" if self.kubeconfig else None
        return f"Connection(kubeconfig={shown}, context={self.context!r}, cluster={self.cluster!r})"


def _from_kubeconfig(connection: Connection) -> Any:
    """A client for the given kubeconfig (or the ambient files), its inline credentials decoded
    into the process's private directory (:mod:`.credentials`) and held by the client."""
    from kubernetes import client
    from kubernetes.config.config_exception import ConfigException

    from dynamo_pulumi.cluster.credentials import bind, load_configuration

    configuration = client.Configuration()
    configuration.retries = False  # retrying is the watch layer's job (see cluster.api)
    try:
        given = decode(connection.kubeconfig) if connection.kubeconfig else None
        lease = load_configuration(configuration, given, connection.context, cluster=connection.cluster)
    except ConfigException as exc:
        raise ClusterError(f"kubeconfig: {str(exc).splitlines()[0]}") from None
    except ClusterError:
        raise
    except Exception as exc:  # the client's own decoding; its text may quote the input
        raise ClusterError(f"kubeconfig cannot be used by the Kubernetes client ({type(exc).__name__})") from None
    api = client.ApiClient(configuration)
    bind(api, lease)
    return api


def _ambient_file_exists() -> bool:
    paths = os.environ.get("KUBECONFIG", "")
    candidates = [p for p in paths.split(os.pathsep) if p] or [str(Path("~/.kube/config").expanduser())]
    return any(Path(p).expanduser().is_file() for p in candidates)


def _in_cluster() -> Any:
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except ConfigException:
        raise ClusterError(
            "no cluster connection: give a kubeconfig or context, set KUBECONFIG or the stack config "
            "kubernetes:kubeconfig, or run inside a cluster"
        ) from None
    return client.ApiClient(configuration)


def api_client(connection: Connection) -> Any:
    """An official-client ``ApiClient`` for ``connection`` (``Any``: the client is untyped)."""
    if connection.kubeconfig or connection.context or connection.cluster or _ambient_file_exists():
        return _from_kubeconfig(connection)
    return _in_cluster()


def remove_client_files() -> None:
    """Delete every credential file decoded for a client: the process's private directory
    (:mod:`.credentials`) and whatever the client's own loader wrote (it removes those only from
    an ``atexit`` hook, which a signal's default action skips). The CLI calls this on every way
    out; clients built afterwards write them again."""
    from kubernetes.config import kube_config

    from dynamo_pulumi.cluster.credentials import remove_all

    remove_all()
    kube_config._cleanup_temp_files()
