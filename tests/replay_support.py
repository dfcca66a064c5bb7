"""A loopback API server that replays recorded responses, for tests that drive the real client.

``ReplayServer`` is a threaded ``http.server`` on 127.0.0.1 with an ephemeral port. Each
(path, watch?) route has a queue of scripted responses, served in order:

* :func:`body` - a JSON response (a list, an object, a ``Status`` error);
* :func:`stream` - a chunked watch stream of events, ending cleanly, or dropped mid-stream
  (the connection is closed without the terminating chunk).

When a watch route's queue is empty the server holds the stream open without events until the
test ends (``close``), like an idle API server, unless :meth:`ReplayServer.always` gave the route
a response to repeat; a non-watch route with an empty queue repeats its last response. Every
request is logged (method, path, query) with its time so tests and the benchmark can count them.
Everything is bounded: holds end on close, and the server thread is a daemon.

Fault modes (``tests/test_watch_faults.py``): :func:`status_error` with ``retry_after``;
:func:`truncated` (a body shorter than its Content-Length, then the connection closes);
:func:`hung` (the request is read and never answered); ``ReplayServer.latency`` (every answer
delayed, a slow server); ``ReplayServer.hang_all`` (accepts every connection, answers nothing).
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from dynamo_pulumi.cluster.api import ClusterApi, ResourceRef

HOLD_SECONDS = 20.0


@dataclass
class Scripted:
    status: int = 200
    payload: Any = None
    events: list[dict[str, Any]] = field(default_factory=list)
    drop: bool = False
    delay: float = 0.0
    streaming: bool = False
    #: Wait for this event before sending anything (lets a test order a stream after a step).
    gate: threading.Event | None = None
    #: After the events, keep the stream open (idle) instead of ending it.
    hold: bool = False
    #: Extra response headers (``Retry-After``).
    headers: dict[str, str] = field(default_factory=dict)
    #: Send only half of the body, then close the connection.
    truncate: bool = False
    #: Never answer (until the server closes).
    hang: bool = False


def body(payload: Any, status: int = 200) -> Scripted:
    return Scripted(status=status, payload=payload)


def status_error(code: int, reason: str, message: str, retry_after: int | None = None) -> Scripted:
    scripted = body({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
                     "reason": reason, "message": message}, code)
    if retry_after is not None:
        scripted.headers["Retry-After"] = str(retry_after)
    return scripted


def truncated(payload: Any) -> Scripted:
    """``payload``'s JSON cut in half (Content-Length still promises all of it)."""
    return Scripted(payload=payload, truncate=True)


def hung() -> Scripted:
    return Scripted(hang=True)


def stream(events: Iterable[Mapping[str, Any]], drop: bool = False, delay: float = 0.02,
           gate: threading.Event | None = None, hold: bool = False) -> Scripted:
    return Scripted(events=[dict(e) for e in events], drop=drop, delay=delay, streaming=True, gate=gate, hold=hold)


def event(kind: str, obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": kind, "object": dict(obj)}


def gone(resource_version: str = "1") -> dict[str, Any]:
    return {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410,
                                        "reason": "Expired", "message": f"too old resource version: {resource_version}"}}


def listing(items: Iterable[Mapping[str, Any]], resource_version: str = "100") -> Scripted:
    return body({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": resource_version},
                 "items": [dict(i) for i in items]})


def _limited(payload: Any, query: Mapping[str, str]) -> Any:
    """A list answer as the API server gives it for ``fieldSelector=type=...`` (events) and
    ``limit`` (the first page only)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("items"), list):
        return payload
    items = payload["items"]
    wanted = query.get("fieldSelector", "")
    if wanted.startswith("type="):
        items = [i for i in items if i.get("type") == wanted[len("type="):]]
    if query.get("limit"):
        items = items[: int(query["limit"])]
    return {**payload, "items": items} if items is not payload["items"] else payload


class _Quiet(ThreadingHTTPServer):
    """A client that went away mid-request (its connection cut by a cancelled wait, TLS included)
    is no server error worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class ReplayServer:
    """``tls=(certfile, keyfile)`` serves HTTPS (the client then decodes a kubeconfig's
    ``client-key-data`` into a temp file, as it does for a real cluster)."""

    def __init__(self, tls: tuple[str, str] | None = None) -> None:
        self.routes: dict[tuple[str, bool], deque[Scripted]] = {}
        self.last: dict[tuple[str, bool], Scripted] = {}
        self.log: list[tuple[str, str, dict[str, str]]] = []
        #: When each logged request arrived (``time.monotonic``), in log order.
        self.times: list[float] = []
        self.defaults: dict[tuple[str, bool], Scripted] = {}
        #: Seconds every answer is delayed by (a slow API server).
        self.latency = 0.0
        #: Read every request and answer none (a hung API server).
        self.hang_all = False
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self.httpd = _Quiet(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- scripting ---------------------------------------------------------------------------

    def on(self, path: str, *responses: Scripted, watch: bool = False) -> None:
        with self._lock:
            self.routes.setdefault((path, watch), deque()).extend(responses)

    def on_list(self, ref: ResourceRef, namespace: str, *responses: Scripted) -> None:
        self.on(ref.path(namespace), *responses)

    def on_watch(self, ref: ResourceRef, namespace: str, *responses: Scripted) -> None:
        self.on(ref.path(namespace), *responses, watch=True)

    def always(self, ref: ResourceRef, namespace: str, response: Scripted, watch: bool = False) -> None:
        """``response`` for every request to the route once its queue is empty."""
        with self._lock:
            self.defaults[(ref.path(namespace), watch)] = response

    def requests_to(self, path: str, watch: bool | None = None) -> list[dict[str, str]]:
        return [q for _, p, q in self.log if p == path and (watch is None or ("watch" in q) == watch)]

    def api(self) -> ClusterApi:
        from kubernetes import client

        configuration = client.Configuration()
        configuration.host = self.url
        configuration.retries = False
        return ClusterApi(client.ApiClient(configuration))

    def kubeconfig(self, context: str = "replay", user: Mapping[str, Any] | None = None) -> str:
        cluster: dict[str, Any] = {"server": self.url}
        if self.scheme == "https":
            cluster["insecure-skip-tls-verify"] = True
        return json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": context,
            "clusters": [{"name": "replay", "cluster": cluster}],
            "users": [{"name": "u", "user": dict(user or {"token": "t"})}],
            "contexts": [{"name": context, "context": {"cluster": "replay", "user": "u"}}],
        }, indent=1)

    def _next(self, path: str, watch: bool) -> Scripted | None:
        with self._lock:
            queue = self.routes.get((path, watch))
            if queue:
                scripted = queue.popleft()
                self.last[(path, watch)] = scripted
                return scripted
            if (path, watch) in self.defaults:
                return self.defaults[(path, watch)]
            if watch:
                return None  # hold an idle stream
            return self.last.get((path, watch))

    # --- serving -----------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                return None

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                watch = query.get("watch") in ("true", "1")
                with server._lock:
                    server.log.append(("GET", parts.path, query))
                    server.times.append(time.monotonic())
                if server.hang_all:
                    self._never_answer()
                    return
                if server.latency and server.closing.wait(server.latency):
                    return
                scripted = server._next(parts.path, watch)
                if scripted is not None and scripted.hang:
                    self._never_answer()
                elif scripted is not None and scripted.truncate:
                    self._truncated(scripted.payload)
                elif scripted is None and watch:
                    self._hold()
                elif scripted is None:
                    self._json(404, {"kind": "Status", "code": 404, "reason": "NotFound", "message": "not found"})
                elif scripted.streaming:
                    self._stream(scripted)
                else:
                    self._json(scripted.status, _limited(scripted.payload, query), scripted.headers)

            def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _truncated(self, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True

            def _never_answer(self) -> None:
                server.closing.wait(HOLD_SECONDS)
                self.close_connection = True

            def _start_chunks(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _stream(self, scripted: Scripted) -> None:
                if scripted.gate is not None:
                    scripted.gate.wait(HOLD_SECONDS)
                self._start_chunks()
                try:
                    for item in scripted.events:
                        if server.closing.wait(scripted.delay):
                            break
                        self._chunk(json.dumps(item).encode() + b"\n")
                    if scripted.drop:
                        self._chunk(b'{"type": "MODIFIED", "obj')  # half an event, then the line dies
                        self.close_connection = True
                        return
                    if scripted.hold:
                        server.closing.wait(HOLD_SECONDS)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:  # the client went away (a broken pipe, a reset, TLS cut short)
                    self.close_connection = True

            def _hold(self) -> None:
                self._start_chunks()
                server.closing.wait(HOLD_SECONDS)
                with contextlib.suppress(OSError):  # the client went away
                    self.wfile.write(b"0\r\n\r\n")
                self.close_connection = True

        return Handler
