"""The one waiter, reachable from an asyncio server: the plugin's entry point to readiness.

The :class:`~dynamo_pulumi.cluster.waiter.Waiter` blocks (its watches are threads feeding a
Condition). The dynamic provider host runs it on one of its four worker threads; the plugin
serves every call on one event loop, so each wait runs on a thread of its own pool here.
``asyncio.to_thread`` would use the loop's default pool (CPU count + 4 threads: 6 on a 2-core
machine), so ten graphs would wait in two batches; :data:`WAIT_THREADS` is sized for the graphs
a program can hold, and a thread that only sleeps on a Condition costs a stack, not a core.

The connection is the resource's own ``kubeconfig``/``context``/``cluster`` when given (a
component's readiness carries its children's), else the ambient one when the resource says its
children use it (``ambient``), else the provider's configuration (``dynamo:kubeconfig``,
``dynamo:context``), else the ambient one (:func:`dynamo_pulumi.cluster.connection.api_client`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

from dynamo_pulumi.cluster.drift_check import operator_drift
from dynamo_pulumi.cluster.session import connection_of, open_waiter
from dynamo_pulumi.cluster.waiter import Progress
from dynamo_pulumi.readiness.drift import drift_summary
from dynamo_pulumi.readiness.targets import WaitRequest

#: Waits that may run at once before the next one queues (one thread each, mostly asleep).
WAIT_THREADS: Final = 256

_pool: ThreadPoolExecutor | None = None


def wait_pool() -> ThreadPoolExecutor:
    """The process's wait pool, made on first use (importing this module starts no thread)."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WAIT_THREADS, thread_name_prefix="dynamo-wait")
    return _pool


@dataclass(frozen=True)
class ProviderConnection:
    """The provider-level connection (``dynamo:kubeconfig``, ``dynamo:context``); plain data."""

    kubeconfig: str | Mapping[str, Any] | None = None
    context: str | None = None

    def __repr__(self) -> str:  # never print a kubeconfig (it holds credentials)
        return f"ProviderConnection(kubeconfig={'<given>' if self.kubeconfig else None}, context={self.context!r})"

    def applied_to(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """``props`` with the provider's connection filled in where the resource names none and
        does not say its children use the ambient one."""
        own = connection_of(props)
        if own.kubeconfig or own.context or own.cluster or props.get("ambient") is True:
            return dict(props)
        return {**props, "kubeconfig": self.kubeconfig, "context": self.context}


@dataclass(frozen=True)
class Settled:
    """What a finished wait yields: the status outputs, drift findings, and the drift warning."""

    status: dict[str, Any]
    drift: list[dict[str, Any]] = field(default_factory=list)
    warning: str = ""


def drift_warning(label: str, findings: list[dict[str, Any]], unread: list[str]) -> str:
    """The one warning the drift check gives ("" when the operator did as predicted)."""
    if not findings and not unread:
        return ""
    text = drift_summary(findings)
    lines = [text] if text else []
    return (f"{label}: the operator's objects differ from the prediction ({len(findings)} findings):\n"
            + "\n".join([*lines, *unread]))


def settle(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None) -> Settled:
    """Block until the graph is ready (raising the waiter's one-message errors otherwise)."""
    waiter = open_waiter(props, request, progress)
    status = waiter.wait()
    report = operator_drift(waiter, props.get("predicted") or [])
    return Settled(status.outputs(), report.findings, drift_warning(request.label, report.findings, report.unread))


def observe(props: Mapping[str, Any], request: WaitRequest) -> dict[str, Any]:
    """The graph's status now, without waiting (refresh)."""
    return open_waiter(props, request).status().outputs()


async def settle_async(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None) -> Settled:
    """:func:`settle` on the wait pool: the event loop keeps serving other graphs meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(wait_pool(), settle, props, request, progress)


async def observe_async(props: Mapping[str, Any], request: WaitRequest) -> dict[str, Any]:
    return await asyncio.get_running_loop().run_in_executor(wait_pool(), observe, props, request)
