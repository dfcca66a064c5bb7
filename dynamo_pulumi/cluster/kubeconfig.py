"""A kubeconfig as users hand it over, decoded once, with one clear error per malformed part.

Four forms are accepted: a parsed mapping (pulumi-eks' ``Cluster.kubeconfig`` is an object
Output), YAML or JSON text, the path of a file, and the whole file as one base64 line (how
pulumi-eks stack outputs, ``az aks get-credentials``-style tooling and CI secrets often carry
it). One-line text is a path only when a file is there; otherwise it is tried as base64.

Every error names the part and the rule and never the value: a kubeconfig carries tokens and
private keys, and a one-line string that is neither a file nor base64 may well be a token pasted
into the wrong field. Only a value that looks like a path (``/``, ``~``, ``./``, ``../``) is
quoted back, as the file that does not exist.

The credentials a kubeconfig carries inline (``certificate-authority-data``,
``client-certificate-data``, ``client-key-data``) must be files for TLS; :func:`chosen_credentials`
names those of the context in use and :func:`with_files` rewrites an entry to point at files the
caller wrote (:mod:`.credentials`), so the Kubernetes client never decodes them into its own
temp files.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import yaml

from dynamo_pulumi.cluster.errors import ClusterError
from dynamo_pulumi.floor.records import record

#: Fields holding base64 data the client decodes (users[].user / clusters[].cluster).
USER_DATA: Final = ("client-certificate-data", "client-key-data")
CLUSTER_DATA: Final = ("certificate-authority-data",)
#: Each data field -> the file field the client reads when the data field is absent.
DATA_FILES: Final = {
    "certificate-authority-data": "certificate-authority",
    "client-certificate-data": "client-certificate",
    "client-key-data": "client-key",
}
_PATH_PREFIXES: Final = ("/", "~", "./", "../")


@record
class Kubeconfig:
    """The decoded kubeconfig: its document, and the file it came from (None for text/mapping:
    relative file references then resolve against the working directory)."""

    document: dict[str, Any]
    path: Path | None = None


def _yaml_error(exc: yaml.YAMLError) -> str:
    """Where YAML broke, without the snippet of the input PyYAML prints."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or "cannot be parsed"
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"kubeconfig is not valid YAML ({where}{problem})"


def _load_text(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ClusterError(_yaml_error(exc)) from None


def _from_base64(text: str) -> Any | None:
    """The document when ``text`` is base64 of a kubeconfig; None when it is not base64 at all."""
    try:
        decoded = base64.b64decode("".join(text.split()), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return _load_text(decoded)


def _looks_like_path(text: str) -> bool:
    return text.startswith(_PATH_PREFIXES) and not any(c.isspace() for c in text)


def _from_one_line(text: str) -> Kubeconfig:
    try:
        path = Path(text).expanduser()
        is_file = path.is_file()
    except (OSError, ValueError, RuntimeError):  # far too long for a path, NUL bytes, no home
        path, is_file = Path(), False
    if is_file:
        try:
            return Kubeconfig(_document(_load_text(path.read_text(encoding="utf-8"))), path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ClusterError(f"kubeconfig file {str(path)!r} cannot be read: {type(exc).__name__}") from None
    decoded = _from_base64(text)
    if decoded is not None:
        return Kubeconfig(_document(decoded, " (decoded from base64)"))
    if _looks_like_path(text):
        if path.is_dir():
            raise ClusterError(f"kubeconfig {str(path)!r} is a directory; --kubeconfig takes a kubeconfig file")
        raise ClusterError(f"kubeconfig file {str(path)!r} does not exist")
    raise ClusterError(
        "kubeconfig is not the path of an existing file, kubeconfig YAML, or base64 of one "
        "(the value is not shown: it may hold credentials)"
    )


def _document(loaded: Any, how: str = "") -> dict[str, Any]:
    if not isinstance(loaded, Mapping):
        raise ClusterError(f"kubeconfig{how} is not a mapping with clusters, users and contexts")
    document = dict(loaded)
    for key in ("clusters", "contexts"):
        if not isinstance(document.get(key), list) or not document[key]:
            raise ClusterError(f"kubeconfig{how} has no '{key}' list")
    if document.get("users") is not None and not isinstance(document["users"], list):
        raise ClusterError(f"kubeconfig{how} 'users' is not a list")
    return document


def decode(kubeconfig: str | Mapping[str, Any]) -> Kubeconfig:
    """The kubeconfig in any of the four forms, decoded (see the module docstring)."""
    if isinstance(kubeconfig, Mapping):
        return Kubeconfig(_document(kubeconfig))
    if not isinstance(kubeconfig, str):
        raise ClusterError(f"kubeconfig must be the file's contents, its path or a mapping, not {type(kubeconfig).__name__}")
    text = kubeconfig.strip()
    if "\n" in text or text.startswith("{"):
        return Kubeconfig(_document(_load_text(text)))
    return _from_one_line(text)


def _named(document: Mapping[str, Any], key: str, name: str) -> Mapping[str, Any] | None:
    for entry in document.get(key) or []:
        if isinstance(entry, Mapping) and entry.get("name") == name:
            return entry
    return None


def _check_data(entry: Mapping[str, Any], body_key: str, fields: tuple[str, ...], where: str) -> None:
    body = entry.get(body_key) or {}
    if not isinstance(body, Mapping):
        raise ClusterError(f"kubeconfig {where}.{body_key} is not a mapping")
    for name in fields:
        value = body.get(name)
        if value is None:
            continue
        try:
            base64.b64decode("".join(str(value).split()), validate=True)
        except (binascii.Error, ValueError):
            raise ClusterError(f"kubeconfig {where}.{body_key}.{name} is not base64") from None


def check_context(document: Mapping[str, Any], context: str | None) -> None:
    """The context to use exists, names a cluster and user that exist, and their ``*-data``
    fields are base64: the parts the client would otherwise fail on with a traceback."""
    chosen = context or document.get("current-context")
    if not chosen:
        raise ClusterError("kubeconfig sets no current-context and no context was given")
    entry = _named(document, "contexts", str(chosen))
    if entry is None or not isinstance(entry.get("context"), Mapping):
        raise ClusterError(f"kubeconfig has no context named {str(chosen)!r}")
    cluster_name, user_name = entry["context"].get("cluster"), entry["context"].get("user")
    cluster = _named(document, "clusters", str(cluster_name))
    if cluster is None:
        raise ClusterError(f"kubeconfig context {str(chosen)!r} names cluster {str(cluster_name)!r}, which is not listed")
    _check_data(cluster, "cluster", CLUSTER_DATA, f"clusters[{cluster_name}]")
    if user_name is not None:
        user = _named(document, "users", str(user_name))
        if user is None:
            raise ClusterError(f"kubeconfig context {str(chosen)!r} names user {str(user_name)!r}, which is not listed")
        _check_data(user, "user", USER_DATA, f"users[{user_name}]")


def chosen_names(document: Mapping[str, Any], context: str | None) -> tuple[str, str | None]:
    """The cluster and user names of the context in use (checked by :func:`check_context`)."""
    chosen = context or document.get("current-context")
    entry = _named(document, "contexts", str(chosen)) or {}
    body = entry.get("context") or {}
    user = body.get("user")
    return str(body.get("cluster")), None if user is None else str(user)


def inline_credentials(body: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, bytes]:
    """The decoded bytes of each of ``fields`` ``body`` holds (base64 checked before)."""
    found = {}
    for name in fields:
        value = body.get(name)
        if value:
            found[name] = base64.b64decode("".join(str(value).split()))
    return found


def with_files(body: Mapping[str, Any], files: Mapping[str, str]) -> dict[str, Any]:
    """``body`` with each data field of ``files`` (data field -> path) replaced by its file field."""
    rewritten = {key: value for key, value in body.items() if key not in files}
    for data_field, path in files.items():
        rewritten[DATA_FILES[data_field]] = path
    return rewritten
