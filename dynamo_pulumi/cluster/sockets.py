"""Every connection one Kubernetes client opened, so another thread can cut them all at once.

A cancelled wait must end now, not when its requests time out: a first list to a hung API
server blocks its thread in ``recv`` for up to the read timeout (30 s), a TLS handshake that is
never answered for up to the connect timeout. urllib3 keeps no list of the connections in use
(its pool holds only idle ones), so :class:`Connections` installs pool classes on the client's
``PoolManager`` whose connections register themselves when they connect; :meth:`Connections.cut`
shuts every registered socket down (a blocked ``recv`` or handshake in another thread then fails
at once) and any connection completed after the cut is shut down as it connects.

Only a TCP connect still in progress (an address that drops SYNs) cannot be cut: it ends at the
connect timeout (:data:`dynamo_pulumi.cluster.api.CONNECT_TIMEOUT`, bounded by the deadline).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import weakref
from typing import Any


def _shut(sock: Any) -> None:
    """Shut ``sock`` down for reading and writing (a TLS socket at its TCP level, without touching
    the TLS state another thread may be using)."""
    raw = sock if isinstance(sock, socket.socket) else getattr(sock, "socket", None)
    if isinstance(raw, socket.socket):
        with contextlib.suppress(OSError):
            socket.socket.shutdown(raw, socket.SHUT_RDWR)


class Connections:
    """The connections of one client (thread-safe); ``cut`` once set stays set."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: weakref.WeakSet[Any] = weakref.WeakSet()
        self.cut_done = False

    def install(self, api_client: Any) -> None:
        """Make ``api_client``'s pool manager open tracked connections (its idle pools are dropped
        first, so no untracked connection is reused)."""
        manager = api_client.rest_client.pool_manager
        manager.clear()
        manager.pool_classes_by_scheme = self._pool_classes()

    def _pool_classes(self) -> dict[str, type]:
        from urllib3.connection import HTTPConnection, HTTPSConnection
        from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

        owner = self

        def tracked(base: Any) -> type:
            def connect(conn: Any) -> None:
                owner._register(conn)
                base.connect(conn)
                if owner.cut_done:  # cut while this one was connecting: it must not be used either
                    _shut(conn.sock)

            return type(f"Tracked{base.__name__}", (base,), {"connect": connect})

        return {
            "http": type("TrackedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": tracked(HTTPConnection)}),
            "https": type("TrackedHTTPSConnectionPool", (HTTPSConnectionPool,),
                          {"ConnectionCls": tracked(HTTPSConnection)}),
        }

    def _register(self, conn: Any) -> None:
        with self._lock:
            self._live.add(conn)

    def cut(self) -> None:
        """Shut down every connection's socket, now and as any later one connects."""
        with self._lock:
            self.cut_done = True
            live = list(self._live)
        for conn in live:
            sock = getattr(conn, "sock", None)
            if sock is not None:
                _shut(sock)

    def count(self) -> int:
        """Connections with an open socket (tests and the benchmark)."""
        with self._lock:
            return sum(1 for conn in self._live if getattr(conn, "sock", None) is not None)
