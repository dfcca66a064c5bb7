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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynamo_pulumi.cluster.errors import ClusterError
from dynamo_pulumi.cluster.kubeconfig import check_context, decode

#: Seconds a single non-watch request may take before it counts as a failure.
REQUEST_TIMEOUT = 30.0


@dataclass(frozen=True)
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


def _entry(item: Any) -> Any:
    """A kubeconfig list item, whether the client's merger wrapped it or not."""
    return getattr(item, "value", item)


def with_cluster(source: Any, context: str | None, cluster: str) -> Any:
    """``source`` (a kubeconfig document, or the client's merged one) with its active context
    pointed at ``cluster``, as pulumi-kubernetes' ``cluster`` setting overrides it."""
    document = _entry(source)
    name = context or document.get("current-context")
    clusters = [_entry(c).get("name") for c in document.get("clusters") or []]
    if cluster not in clusters:
        raise ClusterError(f"kubeconfig has no cluster {cluster!r} (the provider's cluster setting)")
    for item in document.get("contexts") or []:
        entry = _entry(item)
        if entry.get("name") == name:
            entry["context"] = {**(entry.get("context") or {}), "cluster": cluster}
            return source
    raise ClusterError(f"kubeconfig has no context {name!r} to point at cluster {cluster!r}")


def _cluster_loader(connection: Connection, cluster: str) -> Any:
    """The client's loader for a connection with a ``cluster`` override (no token refresh is
    written back: the document is changed in memory)."""
    import copy

    from kubernetes.config import kube_config

    if connection.kubeconfig:
        given = decode(connection.kubeconfig)
        check_context(given.document, connection.context)
        source: Any = (kube_config.KubeConfigMerger(str(given.path)).config if given.path is not None
                       else copy.deepcopy(given.document))
    else:
        source = kube_config.KubeConfigMerger(kube_config.KUBE_CONFIG_DEFAULT_LOCATION).config
        if source is None:
            raise ClusterError(f"no kubeconfig file to select cluster {cluster!r} in ($KUBECONFIG, ~/.kube/config)")
    return kube_config.KubeConfigLoader(config_dict=with_cluster(source, connection.context, cluster),
                                        active_context=connection.context)


def _from_kubeconfig(connection: Connection) -> Any:
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    configuration.retries = False  # retrying is the watch layer's job (see cluster.api)
    try:
        if connection.cluster:
            _cluster_loader(connection, connection.cluster).load_and_set(configuration)
        elif connection.kubeconfig:
            given = decode(connection.kubeconfig)
            check_context(given.document, connection.context)
            if given.path is not None:  # the client resolves relative file references against it
                config.load_kube_config(str(given.path), context=connection.context, client_configuration=configuration)
            else:
                config.load_kube_config_from_dict(given.document, context=connection.context,
                                                  client_configuration=configuration)
        else:
            config.load_kube_config(context=connection.context, client_configuration=configuration)
    except ConfigException as exc:
        raise ClusterError(f"kubeconfig: {str(exc).splitlines()[0]}") from None
    except ClusterError:
        raise
    except Exception as exc:  # the client's own decoding; its text may quote the input
        raise ClusterError(f"kubeconfig cannot be used by the Kubernetes client ({type(exc).__name__})") from None
    return client.ApiClient(configuration)


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
    """Delete the files the client's kubeconfig loader decoded ``client-key-data`` /
    ``client-certificate-data`` / ``certificate-authority-data`` into. The client removes them
    only from an ``atexit`` hook, which a signal's default action skips; the CLI calls this on
    every way out. Clients built afterwards write them again."""
    from kubernetes.config import kube_config

    kube_config._cleanup_temp_files()
