"""The few API-server requests the waiter makes, over the official client's generated APIs.

Only three request shapes are needed: list a kind in a namespace, watch it from a
resourceVersion, and get one object. They go through ``CoreV1Api`` (core group) and
``CustomObjectsApi`` (every other group, built-in ones included) with ``_preload_content=False``,
so authentication, TLS, proxies and exec plugins are whatever the kubeconfig says, CRDs
(LeaderWorkerSet, Grove, Dynamo) need no generated models, and no discovery request is made
(plurals are derived here). Responses stay plain JSON dicts, the form the predicates read.

API errors become :class:`ApiFailure` with the status code, so callers can tell "retry"
(connection drop, read timeout, truncated or undecodable body, 5xx, 429 with its Retry-After) from
"give up" (404 on a list: the CRD is missing; 401/403; a server that cannot be connected to at
all). The client's own urllib3 retries are switched off (:func:`without_client_retries`): they
retried a hung read three times behind our back (a 20 s deadline became 40 s) and surfaced as
urllib3 text; retrying is the watch layer's job, with backoff and within the deadline. Every
request's connect and read timeouts are bounded by the ``budget`` (seconds left) it is given (an
infinite budget is no bound, a NaN one none left: neither reaches ``int()``).

A wait can be cancelled from another thread (:meth:`ClusterApi.abort`): every connection of the
client is cut at once (:mod:`.sockets`) and no new request is sent. :attr:`ClusterApi.health`
records what the server answered (:mod:`.health`), for a heartbeat line while it does not.
:meth:`ClusterApi.close` releases what the client holds: its idle connections and its decoded
credential files (:mod:`.credentials`).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterator
from typing import Any, Final

from dynamo_pulumi.cluster.health import Health
from dynamo_pulumi.cluster.retry import retry_after_seconds
from dynamo_pulumi.cluster.sockets import Connections
from dynamo_pulumi.floor.constants import CLUSTER_SCOPED_KINDS
from dynamo_pulumi.floor.records import record

#: Kinds whose plural is not ``lower(kind) + "s"``.
_IRREGULAR_PLURALS: Final = {"Ingress": "ingresses", "NetworkPolicy": "networkpolicies"}
#: Seconds to wait for a connection, and for each read of a non-watch response.
CONNECT_TIMEOUT: Final = 10.0
READ_TIMEOUT: Final = 30.0
#: Shortest timeout a request gets, even when the budget is (nearly) spent.
MIN_TIMEOUT: Final = 0.2


@record
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
    """A failed request: HTTP ``status`` (0 when no HTTP answer was read) and a message.

    ``connected`` is False when no connection could be opened at all (refused, unknown host,
    TLS refused): fatal on the first list (a wrong address will not fix itself), retried once
    the watches run (an API server restarting). ``retry_after`` is the server's Retry-After.
    """

    def __init__(self, status: int, message: str, *, connected: bool = True, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.connected = connected
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Worth asking again after a backoff: 429, 5xx, or a connection that broke after it opened."""
        return self.status == 429 or self.status >= 500 or (self.status == 0 and self.connected)


def without_client_retries(api_client: Any) -> Any:
    """Switch off urllib3's implicit retries (three, by default) on a client ``ApiClient``: a
    failed request then fails once, as itself. The client reads ``Configuration.retries`` when
    it builds its pool, so the pool is rebuilt when it was built with them."""
    from kubernetes.client import rest

    configuration = api_client.configuration
    if configuration.retries is not False:
        configuration.retries = False
        api_client.rest_client = rest.RESTClientObject(configuration)
    return api_client


def usable_budget(budget: float | None) -> float | None:
    """``budget`` as a bound: None or infinite is no bound, NaN is nothing left (a bug upstream
    must end a request early, never make ``int()`` raise inside a watch thread)."""
    if budget is None or budget == math.inf:
        return None
    return 0.0 if math.isnan(budget) else budget


def _timeouts(budget: float | None, read: float) -> tuple[float, float]:
    """(connect, read) timeouts, neither beyond the budget."""
    budget = usable_budget(budget)
    if budget is None:
        return CONNECT_TIMEOUT, read
    budget = max(MIN_TIMEOUT, budget)
    return min(CONNECT_TIMEOUT, budget), min(read, budget)


def _connection_failure(host: str, exc: Exception) -> ApiFailure:
    """A urllib3/socket error as one line without urllib3's text (it may be long and says
    nothing the user can act on beyond what is named here)."""
    from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, ProtocolError, ReadTimeoutError

    if isinstance(exc, MaxRetryError) and isinstance(exc.reason, Exception):
        exc = exc.reason
    if isinstance(exc, ConnectTimeoutError):  # refused, unknown host, connect timeout
        return ApiFailure(0, f"cannot reach the API server at {host}: {type(exc).__name__}", connected=False)
    if isinstance(exc, ReadTimeoutError):
        return ApiFailure(0, f"the API server at {host} did not answer in time")
    if isinstance(exc, ProtocolError):
        return ApiFailure(0, f"the connection to the API server at {host} broke")
    return ApiFailure(0, f"cannot reach the API server at {host}: {type(exc).__name__}", connected=False)


def _message_of(body: bytes | str | None, fallback: str) -> str:
    try:
        status = json.loads(body or b"")
    except (ValueError, TypeError):
        return fallback
    return str(status.get("message") or fallback) if isinstance(status, dict) else fallback


#: The message of a request refused because the wait was cancelled.
CANCELLED: Final = "cancelled"


def _describe(ref: ResourceRef, namespace: str, name: str, query: dict[str, Any]) -> str:
    """``list of deployments (apps/v1) in team-a`` (what the heartbeat says is retried)."""
    verb = "watch" if query.get("watch") else "read" if name else "list"
    where = "" if ref.kind in CLUSTER_SCOPED_KINDS else f" in {namespace}"
    target = f"{ref.kind} {name}" if name else ref.plural
    return f"{verb} of {target} ({ref.api_version}){where}"


class ClusterApi:
    """Typed access to one cluster: ``client`` is a ``kubernetes.client.ApiClient``.

    ``requests`` counts every request issued (lists, watches, gets), for the benchmark.
    """

    def __init__(self, client: Any) -> None:
        from kubernetes import client as generated

        self._client = without_client_retries(client)
        self.connections = Connections()
        self.connections.install(self._client)
        self.health = Health(self.host)
        #: Set by :meth:`abort`: every connection was cut and no request is sent any more.
        self.aborted = False
        self.requests = 0
        # Import the generated APIs now (seconds of model imports on a busy machine), not inside
        # the first request, where it would eat into the wait's deadline.
        self._apis = (generated.CoreV1Api, generated.CustomObjectsApi)

    @property
    def host(self) -> str:
        return str(getattr(self._client.configuration, "host", ""))

    def abort(self) -> None:
        """Cut every connection now (a request blocked in another thread fails at once) and refuse
        every later request: the wait using this client was cancelled."""
        self.aborted = True
        self.connections.cut()

    def close(self) -> None:
        """Drop the idle connections and release the client's decoded credential files (removed
        when no other client uses them). The client must not be used afterwards."""
        from dynamo_pulumi.cluster.credentials import release

        with contextlib.suppress(Exception):  # a pool already closed has nothing left to drop
            self._client.rest_client.pool_manager.clear()
        release(self._client)

    def _call(self, ref: ResourceRef, namespace: str, name: str, query: dict[str, Any],
              timeout: tuple[float, float]) -> Any:
        """Issue one GET through the client's generated API and return the raw urllib3 response.

        ``CoreV1Api`` serves the core group, ``CustomObjectsApi`` every other group (its path
        template ``/apis/{group}/{version}/...`` fits built-in groups such as ``apps`` as well);
        both exist with these arguments in every supported client release.
        """
        core_api, custom_api = self._apis
        options = {"_preload_content": False, "_request_timeout": timeout}
        scoped = ref.kind not in CLUSTER_SCOPED_KINDS
        group, _, version = ref.api_version.rpartition("/")
        if not group:
            core = core_api(self._client)
            verb = "read" if name else "list"
            method = getattr(core, f"{verb}_namespaced_{ref.snake}" if scoped else f"{verb}_{ref.snake}", None)
            if method is None:
                raise ApiFailure(404, f"{ref} is not a core kind this client knows")
            args = ([name] if name else []) + ([namespace] if scoped else [])
            return method(*args, **query, **options)
        custom = custom_api(self._client)
        if name:
            if scoped:
                return custom.get_namespaced_custom_object(group, version, namespace, ref.plural, name, **options)
            return custom.get_cluster_custom_object(group, version, ref.plural, name, **options)
        if scoped:
            return custom.list_namespaced_custom_object(group, version, namespace, ref.plural, **query, **options)
        return custom.list_cluster_custom_object(group, version, ref.plural, **query, **options)

    def _open(self, ref: ResourceRef, namespace: str, name: str, query: dict[str, Any],
              timeout: tuple[float, float]) -> Any:
        """:meth:`_call`, counted, with every failure turned into :class:`ApiFailure`."""
        from kubernetes.client.exceptions import ApiException

        if self.aborted:
            raise ApiFailure(0, CANCELLED, connected=False)
        self.requests += 1
        what = _describe(ref, namespace, name, query)
        token = self.health.started(what)
        try:
            response = self._call(ref, namespace, name, {k: v for k, v in query.items() if v not in (None, "")},
                                  timeout)
        except ApiException as exc:
            status = int(exc.status or 0)
            headers = exc.headers or {}
            message = _message_of(exc.body, str(exc.reason).splitlines()[0] if exc.reason else "no reason given")
            failure = ApiFailure(status, message, connected=status != 0,
                                 retry_after=retry_after_seconds(headers.get("Retry-After")))
            self._judged(token, what, failure)
            raise failure from None
        except ApiFailure:
            self.health.finished(token)
            raise
        except Exception as exc:  # urllib3 / socket / TLS errors
            failure = _connection_failure(self.host, exc)
            self._judged(token, what, failure)
            raise failure from None
        self.health.answered(token)
        return response

    def _judged(self, token: int, what: str, failure: ApiFailure) -> None:
        """Record ``failure`` of ``what``: silence (retried: 429, 5xx, no answer) or an answer."""
        if self.aborted:
            self.health.finished(token)
        elif failure.retryable or failure.status == 0:
            message = failure.message if failure.status == 0 else f"HTTP {failure.status}: {failure.message}"
            self.health.failed(what, message, token)
        else:
            self.health.answered(token)

    def _failed_read(self, what: str, failure: ApiFailure) -> ApiFailure:
        """A response whose body could not be read: the server is not serving it (silence)."""
        if not self.aborted:
            self.health.failed(what, failure.message)
        return failure

    def _json(self, ref: ResourceRef, namespace: str, name: str = "", query: dict[str, Any] | None = None,
              budget: float | None = None) -> dict[str, Any]:
        raw = self._open(ref, namespace, name, query or {}, _timeouts(budget, READ_TIMEOUT))
        try:
            data = json.loads(raw.data)
        except Exception:  # truncated body, broken chunk, read timeout mid-body, not JSON
            failure = ApiFailure(0, f"truncated or unreadable response for {ref.plural}")
            raise self._failed_read(_describe(ref, namespace, name, query or {}), failure) from None
        finally:
            raw.release_conn()
        if not isinstance(data, dict):
            raise ApiFailure(0, f"unreadable response for {ref.plural}: not a JSON object")
        return data

    def list(self, ref: ResourceRef, namespace: str, field_selector: str = "", label_selector: str = "",
             limit: int | None = None, budget: float | None = None) -> dict[str, Any]:
        """One list response (``items`` and ``metadata.resourceVersion``); at most ``limit``
        items when given (the rest is not read); the request ends within ``budget`` seconds."""
        query = {"field_selector": field_selector, "label_selector": label_selector, "limit": limit}
        return self._json(ref, namespace, query=query, budget=budget)

    def get(self, ref: ResourceRef, namespace: str, name: str, budget: float | None = None) -> dict[str, Any] | None:
        """One object, or None when the API server has none of that name."""
        try:
            return self._json(ref, namespace, name, budget=budget)
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
        budget: float | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Watch events (``{"type", "object"}``) from ``resource_version`` until the server ends
        the stream (``timeout_seconds``, shortened to the ``budget``) or the connection drops
        (raises :class:`ApiFailure` 0). No read outlives the budget by more than a second.

        ``on_open(response)`` receives the live response so another thread can shut it down.
        """
        from kubernetes.watch.watch import iter_resp_lines

        budget = usable_budget(budget)
        if budget is not None:
            timeout_seconds = max(1, min(timeout_seconds, int(budget)))
        query = {"watch": True, "resource_version": resource_version, "allow_watch_bookmarks": True,
                 "timeout_seconds": timeout_seconds, "field_selector": field_selector, "label_selector": label_selector}
        read = timeout_seconds + READ_TIMEOUT
        raw = self._open(ref, namespace, "", query, _timeouts(None if budget is None else budget + 1, read))
        if on_open is not None:
            on_open(raw)
        try:
            for line in iter_resp_lines(raw):
                if line.strip():
                    yield json.loads(line)
        except ApiFailure:
            raise
        except Exception as exc:  # dropped connection, truncated chunk, bad JSON
            failure = ApiFailure(0, f"watch of {ref.plural} interrupted: {type(exc).__name__}")
            raise self._failed_read(_describe(ref, namespace, "", query), failure) from None
        finally:
            raw.release_conn()
