"""The few API-server requests the waiter makes, over the official client's generated APIs.

Only three request shapes are needed: list a kind in a namespace, watch it from a
resourceVersion, and get one object. They go through ``CoreV1Api`` (core group) and
``CustomObjectsApi`` (every other group, built-in ones included) with ``_preload_content=False``,
so authentication, TLS, proxies and exec plugins are whatever the kubeconfig says, CRDs
(LeaderWorkerSet, Grove, Dynamo) need no generated models, and no discovery request is made
(plurals are derived here). Responses stay plain JSON dicts, the form the predicates read.

API errors become :class:`ApiFailure` with the status code, so callers can tell "retry"
(connection drop, 5xx, 429) from "give up" (404 on a list: the CRD is missing; 401/403).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from dynamo_pulumi.constants import CLUSTER_SCOPED_KINDS

#: Kinds whose plural is not ``lower(kind) + "s"``.
_IRREGULAR_PLURALS: Final = {"Ingress": "ingresses", "NetworkPolicy": "networkpolicies"}
#: Seconds to wait for a connection, and for each read of a non-watch response.
CONNECT_TIMEOUT: Final = 10.0
READ_TIMEOUT: Final = 30.0


@dataclass(frozen=True)
class ResourceRef:
    """Where a kind lives in the REST API."""

    api_version: str
    kind: str

    @property
    def plural(self) -> str:
        if self.kind in _IRREGULAR_PLURALS:
            return _IRREGULAR_PLURALS[self.kind]
        lower = self.kind.lower()
        if lower.endswith("s"):
            return lower + "es"
        if lower.endswith("y"):
            return lower[:-1] + "ies"
        return lower + "s"

    @property
    def snake(self) -> str:
        """The kind as the generated client names its methods (``ConfigMap`` -> ``config_map``)."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.kind).lower()

    def path(self, namespace: str, name: str = "") -> str:
        """The REST path of the kind (or one object), as the API server serves it."""
        prefix = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        scope = "" if self.kind in CLUSTER_SCOPED_KINDS else f"/namespaces/{namespace}"
        return f"{prefix}{scope}/{self.plural}" + (f"/{name}" if name else "")

    def __str__(self) -> str:
        return f"{self.kind} ({self.api_version})"


class ApiFailure(Exception):
    """A failed request: HTTP ``status`` (0 when the connection itself failed) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def retryable(self) -> bool:
        return self.status == 0 or self.status == 429 or self.status >= 500


def _message_of(body: bytes | str | None, fallback: str) -> str:
    try:
        status = json.loads(body or b"")
    except (ValueError, TypeError):
        return fallback
    return str(status.get("message") or fallback) if isinstance(status, dict) else fallback


class ClusterApi:
    """Typed access to one cluster: ``client`` is a ``kubernetes.client.ApiClient``.

    ``requests`` counts every request issued (lists, watches, gets), for the benchmark.
    """

    def __init__(self, client: Any) -> None:
        self._client = client
        self.requests = 0

    @property
    def host(self) -> str:
        return str(getattr(self._client.configuration, "host", ""))

    def _call(self, ref: ResourceRef, namespace: str, name: str, query: dict[str, Any], read_timeout: float) -> Any:
        """Issue one GET through the client's generated API and return the raw urllib3 response.

        ``CoreV1Api`` serves the core group, ``CustomObjectsApi`` every other group (its path
        template ``/apis/{group}/{version}/...`` fits built-in groups such as ``apps`` as well);
        both exist with these arguments in every supported client release.
        """
        from kubernetes import client

        options = {"_preload_content": False, "_request_timeout": (CONNECT_TIMEOUT, read_timeout)}
        scoped = ref.kind not in CLUSTER_SCOPED_KINDS
        group, _, version = ref.api_version.rpartition("/")
        if not group:
            core = client.CoreV1Api(self._client)
            verb = "read" if name else "list"
            method = getattr(core, f"{verb}_namespaced_{ref.snake}" if scoped else f"{verb}_{ref.snake}", None)
            if method is None:
                raise ApiFailure(404, f"{ref} is not a core kind this client knows")
            args = ([name] if name else []) + ([namespace] if scoped else [])
            return method(*args, **query, **options)
        custom = client.CustomObjectsApi(self._client)
        if name:
            if scoped:
                return custom.get_namespaced_custom_object(group, version, namespace, ref.plural, name, **options)
            return custom.get_cluster_custom_object(group, version, ref.plural, name, **options)
        if scoped:
            return custom.list_namespaced_custom_object(group, version, namespace, ref.plural, **query, **options)
        return custom.list_cluster_custom_object(group, version, ref.plural, **query, **options)

    def _open(self, ref: ResourceRef, namespace: str, name: str, query: dict[str, Any], read_timeout: float) -> Any:
        """:meth:`_call`, counted, with every failure turned into :class:`ApiFailure`."""
        from kubernetes.client.exceptions import ApiException

        self.requests += 1
        try:
            return self._call(ref, namespace, name, {k: v for k, v in query.items() if v not in (None, "")},
                              read_timeout)
        except ApiException as exc:
            raise ApiFailure(int(exc.status or 0), _message_of(exc.body, str(exc.reason))) from None
        except ApiFailure:
            raise
        except Exception as exc:  # urllib3 / socket / TLS errors: the connection itself failed
            raise ApiFailure(0, f"cannot reach the API server at {self.host}: {type(exc).__name__}: {exc}") from None

    def _json(self, ref: ResourceRef, namespace: str, name: str = "", query: dict[str, Any] | None = None) -> dict[str, Any]:
        raw = self._open(ref, namespace, name, query or {}, READ_TIMEOUT)
        try:
            data: dict[str, Any] = json.loads(raw.data)
        except Exception as exc:
            raise ApiFailure(0, f"unreadable response for {ref.plural}: {exc}") from None
        return data

    def list(self, ref: ResourceRef, namespace: str, field_selector: str = "", label_selector: str = "") -> dict[str, Any]:
        """One list response (``items`` and ``metadata.resourceVersion``)."""
        return self._json(ref, namespace, query={"field_selector": field_selector, "label_selector": label_selector})

    def get(self, ref: ResourceRef, namespace: str, name: str) -> dict[str, Any] | None:
        """One object, or None when the API server has none of that name."""
        try:
            return self._json(ref, namespace, name)
        except ApiFailure as failure:
            if failure.status == 404:
                return None
            raise

    def watch(
        self,
        ref: ResourceRef,
        namespace: str,
        resource_version: str,
        timeout_seconds: int,
        field_selector: str = "",
        label_selector: str = "",
        on_open: Any = None,
    ) -> Iterator[dict[str, Any]]:
        """Watch events (``{"type", "object"}``) from ``resource_version`` until the server ends
        the stream (``timeout_seconds``) or the connection drops (raises :class:`ApiFailure` 0).

        ``on_open(response)`` receives the live response so another thread can shut it down.
        """
        from kubernetes.watch.watch import iter_resp_lines

        query = {"watch": True, "resource_version": resource_version, "allow_watch_bookmarks": True,
                 "timeout_seconds": timeout_seconds, "field_selector": field_selector, "label_selector": label_selector}
        raw = self._open(ref, namespace, "", query, timeout_seconds + READ_TIMEOUT)
        if on_open is not None:
            on_open(raw)
        try:
            for line in iter_resp_lines(raw):
                if line.strip():
                    yield json.loads(line)
        except ApiFailure:
            raise
        except Exception as exc:  # dropped connection, truncated chunk, bad JSON
            raise ApiFailure(0, f"watch of {ref.plural} interrupted: {type(exc).__name__}") from None
        finally:
            raw.release_conn()
