"""Server-side dry runs against a live API server: the API server as an oracle.

A create with ``dryRun=All`` runs every stage a real create runs (decoding with strict field
validation, defaulting, the built-in validation of ``pkg/apis/.../validation``, the CRD's
OpenAPI schema and CEL rules, admission) and stores nothing, so the same object can be judged
any number of times, in any order, in one namespace. :class:`DryRunner` sends many objects at
once over a few kept-alive connections (one TLS handshake per worker thread, not per object):
a few hundred objects take about a second on a loopback API server.

What is judged is only what the cluster serves: a kind without a served resource (a CRD the
cluster lacks) is an outcome with ``served=False``, never a guess.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

#: The query every dry run carries: run all stages, store nothing, refuse unknown and duplicate
#: fields (what ``kubectl apply --validate=strict`` asks for).
DRY_RUN_QUERY = "dryRun=All&fieldValidation=Strict&fieldManager=dynamo-pulumi-oracle"


@dataclass(frozen=True)
class Endpoint:
    """Where the API server is and the client certificate to reach it with."""

    host: str
    port: int
    ca: Path
    cert: Path
    key: Path

    @classmethod
    def from_kubeconfig(cls, path: Path, context: str | None = None) -> Endpoint:
        """The endpoint of a kubeconfig whose user has certificate *files* (the local cluster's)."""
        config = yaml.safe_load(path.read_text())
        name = context or config["current-context"]
        ctx = next(c["context"] for c in config["contexts"] if c["name"] == name)
        cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == ctx["cluster"])
        user = next(u["user"] for u in config["users"] if u["name"] == ctx["user"])
        url = urlsplit(cluster["server"])
        return cls(url.hostname or "127.0.0.1", url.port or 443, Path(cluster["certificate-authority"]),
                   Path(user["client-certificate"]), Path(user["client-key"]))

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.ca))
        ctx.load_cert_chain(str(self.cert), str(self.key))
        return ctx


@dataclass(frozen=True)
class Resource:
    """One served resource: what a create of ``kind`` in ``api_version`` is POSTed to."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool

    def collection(self, namespace: str) -> str:
        base = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        return f"{base}/namespaces/{namespace}/{self.plural}" if self.namespaced else f"{base}/{self.plural}"


@dataclass(frozen=True)
class Cause:
    """One cause of a refusal, as the API server's ``Status`` details list it."""

    field: str
    message: str
    reason: str = ""


@dataclass(frozen=True)
class Outcome:
    """The API server's answer to one dry-run create."""

    api_version: str
    kind: str
    namespace: str
    name: str
    served: bool
    status: int = 0
    message: str = ""
    causes: tuple[Cause, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def not_judged(self) -> str:
        """Why the API server could not judge the object ("" when it did): the kind is not
        served, or the version needs a conversion webhook the cluster does not run."""
        if not self.served:
            return "no served resource"
        if self.status == 500 and "conversion webhook for" in self.message:
            return "needs a conversion webhook the cluster does not run"
        return ""

    @property
    def accepted(self) -> bool:
        return not self.not_judged and 200 <= self.status < 300

    @property
    def refused(self) -> bool:
        return not self.not_judged and not self.accepted

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.namespace + '/' if self.namespace else ''}{self.name}"


class ApiClient:
    """JSON requests as the admin over one kept-alive connection per thread."""

    def __init__(self, endpoint: Endpoint, timeout: float = 30.0) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._ssl = endpoint.ssl_context()
        self._local = threading.local()
        self._opened: list[http.client.HTTPSConnection] = []
        self._lock = threading.Lock()

    def _connection(self) -> http.client.HTTPSConnection:
        conn: http.client.HTTPSConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection(self.endpoint.host, self.endpoint.port, context=self._ssl,
                                               timeout=self.timeout)
            self._local.conn = conn
            with self._lock:
                self._opened.append(conn)
        return conn

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any, tuple[str, ...]]:
        """The status, the decoded JSON answer (or text) and the ``Warning`` headers."""
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        for attempt in (1, 2):  # a kept-alive connection the server closed is retried once, fresh
            conn = self._connection()
            try:
                conn.request(method, path, body=payload, headers=headers)
                resp = conn.getresponse()
                data = resp.read().decode()
            except (http.client.HTTPException, OSError):  # incl. a TLS EOF on a connection the server closed
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
                continue
            warnings = tuple(_warning_text(w) for w in resp.headers.get_all("Warning") or ())
            try:
                return resp.status, json.loads(data), warnings
            except json.JSONDecodeError:
                return resp.status, data, warnings
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            for conn in self._opened:
                conn.close()
            self._opened.clear()


def _warning_text(header: str) -> str:
    """``299 - "text"`` (RFC 7234) as its text."""
    code, _, rest = header.partition(" ")
    _, _, quoted = rest.partition(" ")
    return quoted.strip().strip('"') if code == "299" else header


def discover(client: ApiClient) -> dict[tuple[str, str], Resource]:
    """Every served (apiVersion, kind) -> its resource (subresources left out)."""
    lists: list[tuple[str, str]] = [("v1", "/api/v1")]
    status, groups, _ = client.request("GET", "/apis")
    if status != 200:
        raise RuntimeError(f"GET /apis answered {status}: {groups}")
    for group in groups.get("groups", []):
        for version in group.get("versions", []):
            gv = version["groupVersion"]
            lists.append((gv, f"/apis/{gv}"))
    found: dict[tuple[str, str], Resource] = {}
    for gv, path in lists:
        status, body, _ = client.request("GET", path)
        if status != 200:
            continue
        for res in body.get("resources", []):
            if "/" in res["name"] or "create" not in res.get("verbs", []):
                continue
            found.setdefault((gv, res["kind"]), Resource(gv, res["kind"], res["name"], bool(res["namespaced"])))
    return found


@dataclass
class DryRunner:
    """Dry-run creates of many objects at once (``workers`` requests in flight)."""

    client: ApiClient
    workers: int = 6
    default_namespace: str = "default"
    resources: dict[tuple[str, str], Resource] = field(default_factory=dict)

    @classmethod
    def connect(cls, endpoint: Endpoint, workers: int = 6) -> DryRunner:
        client = ApiClient(endpoint)
        return cls(client, workers, resources=discover(client))

    def close(self) -> None:
        self.client.close()

    def served(self, api_version: str, kind: str) -> bool:
        return (api_version, kind) in self.resources

    def ensure_namespaces(self, names: Iterable[str]) -> None:
        """Create each namespace that does not exist yet (a dry run into a missing namespace is
        refused with NotFound, whatever the object)."""
        for name in sorted(set(names)):
            status, body, _ = self.client.request("POST", "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            if status not in (201, 409):
                raise RuntimeError(f"creating namespace {name} answered {status}: {body}")

    def delete_namespaces(self, names: Iterable[str]) -> None:
        for name in sorted(set(names)):
            self.client.request("DELETE", f"/api/v1/namespaces/{name}")

    def run(self, objects: Sequence[Mapping[str, Any]]) -> list[Outcome]:
        """The outcome of each object's dry-run create, in the order given."""
        if not objects:
            return []
        with ThreadPoolExecutor(max_workers=min(self.workers, len(objects))) as pool:
            return list(pool.map(self.one, objects))

    def one(self, obj: Mapping[str, Any]) -> Outcome:
        api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
        meta = obj.get("metadata") or {}
        name = str(meta.get("name", ""))
        resource = self.resources.get((api_version, kind))
        if resource is None:
            return Outcome(api_version, kind, str(meta.get("namespace", "")), name, served=False)
        namespace = str(meta.get("namespace") or self.default_namespace) if resource.namespaced else ""
        status, body, warnings = self.client.request(
            "POST", f"{resource.collection(namespace)}?{DRY_RUN_QUERY}", obj)
        message, causes = "", ()
        if not 200 <= status < 300:
            message, causes = _status_details(body)
        return Outcome(api_version, kind, namespace, name, True, status, message, causes, warnings)


#: Strict field validation refuses at decoding, before validation, with the fields only in the
#: message (``strict decoding error: unknown field "spec.x", duplicate field "spec.y"``).
_STRICT_FIELD = re.compile(r'(unknown|duplicate) field "([^"]*)"')


def _status_details(body: Any) -> tuple[str, tuple[Cause, ...]]:
    if not isinstance(body, dict):
        return str(body), ()
    message = str(body.get("message", ""))
    causes = tuple(
        Cause(str(c.get("field", "")), str(c.get("message", "")), str(c.get("reason", "")))
        for c in (body.get("details") or {}).get("causes") or ()
    )
    if not causes and "strict decoding error" in message:
        causes = tuple(
            Cause(path, f"{what} field", "FieldValueUnknown" if what == "unknown" else "FieldValueDuplicate")
            for what, path in _STRICT_FIELD.findall(message.partition("strict decoding error:")[2])
        )
    return message, causes


__all__ = ["ApiClient", "Cause", "DryRunner", "Endpoint", "Outcome", "Resource", "discover"]
