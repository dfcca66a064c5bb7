"""The few API-server requests the waiter makes, over the official client's ``ApiClient``.

Only three request shapes are needed: list a kind in a namespace, watch it from a
resourceVersion, and get one object. They are issued through ``ApiClient.param_serialize`` /
``call_api``, so authentication, TLS, proxies and exec plugins are whatever the kubeconfig
says, and the same path serves built-in kinds and CRDs (LeaderWorkerSet, Grove, Dynamo) without
discovery requests (plurals are known here). Responses stay plain JSON dicts, the form the
readiness predicates read.

API errors become :class:`ApiFailure` with the status code, so callers can tell "retry"
(connection drop, 5xx, 429) from "give up" (404 on a list: the CRD is missing; 401/403).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

#: Kinds whose plural is not ``lower(kind) + "s"``.
_IRREGULAR_PLURALS: Final = {"Ingress": "ingresses", "NetworkPolicy": "networkpolicies"}
#: Cluster-scoped kinds among what a graph renders.
_CLUSTER_SCOPED: Final = frozenset({"ClusterRole", "ClusterRoleBinding", "Namespace", "DeviceClass", "PersistentVolume"})
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

    def path(self, namespace: str, name: str = "") -> str:
        prefix = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        scope = "" if self.kind in _CLUSTER_SCOPED else f"/namespaces/{namespace}"
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

    def _open(self, path: str, query: list[tuple[str, str]], read_timeout: float) -> Any:
        """Issue a GET and return the raw urllib3 response (2xx) or raise :class:`ApiFailure`."""
        from kubernetes.client.exceptions import ApiException

        self.requests += 1
        request = self._client.param_serialize(
            "GET", path, query_params=query, header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
        )
        try:
            response = self._client.call_api(*request, _request_timeout=(CONNECT_TIMEOUT, read_timeout))
        except ApiException as exc:
            raise ApiFailure(int(exc.status or 0), _message_of(exc.body, str(exc.reason))) from None
        except Exception as exc:  # urllib3 / socket / TLS errors: the connection itself failed
            raise ApiFailure(0, f"cannot reach the API server at {self.host}: {type(exc).__name__}: {exc}") from None
        if not 200 <= response.status <= 299:
            body = response.read()
            raise ApiFailure(int(response.status), _message_of(body, str(response.reason)))
        return response.response

    def _json(self, path: str, query: list[tuple[str, str]]) -> dict[str, Any]:
        raw = self._open(path, query, READ_TIMEOUT)
        try:
            data: dict[str, Any] = json.loads(raw.data)
        except Exception as exc:
            raise ApiFailure(0, f"unreadable response from {path}: {exc}") from None
        return data

    def list(self, ref: ResourceRef, namespace: str, field_selector: str = "", label_selector: str = "") -> dict[str, Any]:
        """One list response (``items`` and ``metadata.resourceVersion``)."""
        query = [(k, v) for k, v in (("fieldSelector", field_selector), ("labelSelector", label_selector)) if v]
        return self._json(ref.path(namespace), query)

    def get(self, ref: ResourceRef, namespace: str, name: str) -> dict[str, Any] | None:
        """One object, or None when the API server has none of that name."""
        try:
            return self._json(ref.path(namespace, name), [])
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

        query = [("watch", "true"), ("resourceVersion", resource_version), ("allowWatchBookmarks", "true"),
                 ("timeoutSeconds", str(timeout_seconds))]
        query += [(k, v) for k, v in (("fieldSelector", field_selector), ("labelSelector", label_selector)) if v]
        raw = self._open(ref.path(namespace), query, timeout_seconds + READ_TIMEOUT)
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
