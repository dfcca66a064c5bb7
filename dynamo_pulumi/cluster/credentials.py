"""Inline kubeconfig credentials as files in a private directory this process owns and removes.

TLS needs the client certificate, its key and the cluster's CA as files. The Kubernetes client,
given ``client-key-data``, decodes it into ``$TMPDIR`` itself, into a process-wide cache that has
no lock (concurrent loads each wrote their own copies: 3-11 files where 3 were needed) and that
it empties only from an ``atexit`` hook (skipped by a signal's default action: the private key
stayed on disk). So the data fields of the context in use are decoded here, once per content,
into files of a directory made with ``mkdtemp`` (mode 0700, each file 0600), and the document
the client loads names those files instead (:func:`load_configuration`).

Files are reference-counted: every client holds a :class:`Lease` on the files of its
kubeconfig, released by :meth:`ClusterApi.close <dynamo_pulumi.cluster.api.ClusterApi.close>`
(or when the client is garbage-collected); a file is removed when its last lease goes, so no
credential stays on disk between waits. :func:`remove_all` removes the whole directory: the
plugin calls it on every way out (Cancel, SIGINT, SIGTERM), the CLI in its ``finally``, and an
``atexit`` hook covers a normal exit. Anything the client still writes itself (certificates an
``exec`` plugin returns) goes into the same directory. Only SIGKILL leaves files behind.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dynamo_pulumi.cluster.errors import ClusterError
from dynamo_pulumi.cluster.kubeconfig import (
    CLUSTER_DATA,
    USER_DATA,
    Kubeconfig,
    check_context,
    chosen_names,
    inline_credentials,
    with_files,
)
from dynamo_pulumi.floor.records import field, record

#: File suffix of each data field (only for a person who looks into the directory).
SUFFIXES: Final = {"certificate-authority-data": ".ca.crt", "client-certificate-data": ".crt", "client-key-data": ".key"}


class CredentialStore:
    """The private directory and its reference-counted files (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder: Path | None = None
        self._holders: dict[Path, int] = {}
        self._hooked = False
        #: Set by a final :meth:`remove_all`: the process is exiting, nothing is written again.
        self._closed = False

    @property
    def folder(self) -> Path:
        """The directory, made on first use (mode 0700)."""
        with self._lock:
            return self._made()

    def _made(self) -> Path:
        if self._closed:
            raise ClusterError("no credential file is written any more: the process is exiting")
        if self._folder is None or not self._folder.is_dir():
            self._folder = Path(tempfile.mkdtemp(prefix="dynamo-pulumi-credentials-"))
            self._holders.clear()
            if not self._hooked:
                atexit.register(self.remove_all, final=True)
                self._hooked = True
        return self._folder

    def hold(self, data: bytes, suffix: str) -> Path:
        """The file holding ``data`` (written now, mode 0600, if no one holds it yet)."""
        with self._lock:
            folder = self._made()
            path = folder / f"{hashlib.sha256(data).hexdigest()[:32]}{suffix}"
            if self._holders.get(path, 0) == 0:
                _write_private(path, data)
            self._holders[path] = self._holders.get(path, 0) + 1
            return path

    def drop(self, path: Path) -> None:
        """One holder of ``path`` fewer; the last one removes the file."""
        with self._lock:
            left = self._holders.get(path, 0) - 1
            if left > 0:
                self._holders[path] = left
                return
            self._holders.pop(path, None)
            with contextlib.suppress(OSError):
                path.unlink()

    def remove_all(self, final: bool = False) -> None:
        """Remove the directory and everything in it. The next use makes a new one, unless
        ``final`` (the process is exiting: a wait thread still loading a kubeconfig must not
        write a new directory after this cleanup)."""
        with self._lock:
            folder, self._folder = self._folder, None
            self._holders.clear()
            self._closed = self._closed or final
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def files(self) -> list[Path]:
        """The files in the directory now (tests and the benchmark)."""
        with self._lock:
            folder = self._folder
        return sorted(p for p in folder.iterdir() if p.is_file()) if folder is not None and folder.is_dir() else []


def _write_private(path: Path, data: bytes) -> None:
    """``data`` at ``path``, readable by this user only, never seen half-written."""
    partial = path.with_name(f".{path.name}.{threading.get_ident()}")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
    os.replace(partial, path)


#: The process's store.
STORE: Final = CredentialStore()


@record(frozen=False)
class Lease:
    """The files one client uses; :meth:`release` once (later calls do nothing)."""

    store: CredentialStore
    paths: list[Path] = field(default_factory=list)

    def release(self) -> None:
        paths, self.paths = self.paths, []
        for path in paths:
            self.store.drop(path)


def remove_all(final: bool = False) -> None:
    """:meth:`CredentialStore.remove_all` of the process's store."""
    STORE.remove_all(final)


# --- a client configuration loaded with the files ----------------------------------------------

def _entries(config: Any, key: str) -> list[Any]:
    from kubernetes.config.kube_config import ConfigNode

    value = config.value if isinstance(config, ConfigNode) else config
    return value.setdefault(key, []) if isinstance(value, dict) else []


def _body(entry: Any) -> Any:
    from kubernetes.config.kube_config import ConfigNode

    return entry.value if isinstance(entry, ConfigNode) else entry


def plain_view(config: Any) -> dict[str, Any]:
    """The (possibly merged) configuration as plain mappings, for :func:`check_context`."""
    from kubernetes.config.kube_config import ConfigNode

    value = config.value if isinstance(config, ConfigNode) else config
    lists = {key: [_body(e) for e in _entries(config, key)] for key in ("clusters", "contexts", "users")}
    return {**value, **lists}


def _rewrite(config: Any, key: str, body_key: str, name: str, fields: tuple[str, ...], lease: Lease) -> None:
    """Replace the entry ``name`` of ``config[key]`` by a copy whose data fields name files."""
    from kubernetes.config.kube_config import ConfigNode

    entries = _entries(config, key)
    for index, entry in enumerate(entries):
        item = _body(entry)
        if not isinstance(item, Mapping) or item.get("name") != name or not isinstance(item.get(body_key), Mapping):
            continue
        data = inline_credentials(item[body_key], fields)
        if not data:
            return
        files = {}
        for data_field, content in data.items():
            path = lease.store.hold(content, SUFFIXES[data_field])
            lease.paths.append(path)
            files[data_field] = str(path)
        copy = {**item, body_key: with_files(item[body_key], files)}
        entries[index] = ConfigNode(entry.name, copy, entry.path) if isinstance(entry, ConfigNode) else copy
        return


def _uses_tls(view: Mapping[str, Any], cluster: str) -> bool:
    for entry in view.get("clusters") or []:
        if isinstance(entry, Mapping) and entry.get("name") == cluster:
            body = entry.get("cluster")
            return isinstance(body, Mapping) and str(body.get("server") or "").startswith("https")
    return False


def _source(given: Kubeconfig | None) -> tuple[Any, Any]:
    """(configuration the loader reads, the merger that persists refreshed tokens or None)."""
    from kubernetes.config.kube_config import KubeConfigMerger

    if given is not None and given.path is None:
        document = dict(given.document)
        for key in ("clusters", "contexts", "users"):
            document[key] = list(document.get(key) or [])
        return document, None
    paths = str(given.path) if given is not None else os.environ.get("KUBECONFIG") or "~/.kube/config"
    merger = KubeConfigMerger(paths)
    if merger.config is None:
        raise ClusterError("kubeconfig: no kubeconfig file found (KUBECONFIG, ~/.kube/config)")
    return merger.config, merger


def point_at_cluster(config: Any, context: str | None, cluster: str) -> None:
    """Point the active (or named) context of ``config`` at ``cluster``, as pulumi-kubernetes'
    ``cluster`` provider setting overrides it. The context entry is replaced by a changed copy,
    so the files the client's merger read (and may persist a refreshed token into) keep theirs."""
    from kubernetes.config.kube_config import ConfigNode

    view = plain_view(config)
    if cluster not in [c.get("name") for c in view.get("clusters") or [] if isinstance(c, Mapping)]:
        raise ClusterError(f"kubeconfig has no cluster {cluster!r} (the provider's cluster setting)")
    name = context or view.get("current-context")
    entries = _entries(config, "contexts")
    for index, entry in enumerate(entries):
        item = _body(entry)
        if isinstance(item, Mapping) and item.get("name") == name:
            body = item.get("context") if isinstance(item.get("context"), Mapping) else {}
            copy = {**item, "context": {**body, "cluster": cluster}}
            entries[index] = ConfigNode(entry.name, copy, entry.path) if isinstance(entry, ConfigNode) else copy
            return
    raise ClusterError(f"kubeconfig has no context {name!r} to point at cluster {cluster!r}")


def load_configuration(configuration: Any, given: Kubeconfig | None, context: str | None,
                       store: CredentialStore | None = None, cluster: str | None = None) -> Lease:
    """Fill the client ``configuration`` from ``given`` (or the ambient ``$KUBECONFIG`` /
    ``~/.kube/config``, merged as the client merges them), the context pointed at ``cluster``
    when given, its inline credentials written to ``store``'s files; the caller releases the
    returned lease when done."""
    from kubernetes.config.kube_config import KubeConfigLoader

    store = store or STORE
    config, merger = _source(given)
    check_context(plain_view(config), context)
    if cluster:
        point_at_cluster(config, context, cluster)
    view = plain_view(config)
    cluster, user = chosen_names(view, context)
    lease = Lease(store)
    try:
        if _uses_tls(view, cluster):  # the client reads these files for an https server only
            _rewrite(config, "clusters", "cluster", cluster, CLUSTER_DATA, lease)
            if user is not None:
                _rewrite(config, "users", "user", user, USER_DATA, lease)
        options: dict[str, Any] = {"config_persister": merger.save_changes} if merger is not None else {}
        loader = KubeConfigLoader(config_dict=config, active_context=context, config_base_path=None,
                                  temp_file_path=str(store.folder), **options)
        loader.load_and_set(configuration)
    except BaseException:
        lease.release()
        raise
    return lease


# --- leases held by clients --------------------------------------------------------------------

_held: weakref.WeakKeyDictionary[Any, weakref.finalize[Any, Any]] = weakref.WeakKeyDictionary()
_held_lock = threading.Lock()


def bind(client: Any, lease: Lease) -> None:
    """``client`` holds ``lease`` until :func:`release` (or until it is garbage-collected)."""
    with _held_lock:
        _held[client] = weakref.finalize(client, lease.release)


def release(client: Any) -> None:
    """Release the lease ``client`` holds, if any (its files go when no one else holds them)."""
    with _held_lock:
        finalizer = _held.pop(client, None)
    if finalizer is not None:
        finalizer()
