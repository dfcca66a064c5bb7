"""``dynamo:index:GraphReadiness``: the readiness resource as a real custom resource.

The second transport of the one readiness core. What the inputs mean, what a change replaces and
what the outputs are come from :mod:`dynamo_pulumi.cluster.provider` (the dynamic provider's own
functions, called here on the plain values); what is refused is :mod:`.inputs` (the core's rules
and the wire's: the plugin takes inputs from any language); waiting is
:mod:`dynamo_pulumi.cluster.aio` (the same :class:`Waiter`, on a pool sized for many graphs). What
this transport adds is what the dynamic host cannot give:

* every call is a coroutine on one event loop: any number of graphs wait at once; beyond the
  pool's size a wait queues and says where it is in the queue;
* progress lines are ephemeral status lines under the resource (:mod:`.engine_log`), and while
  the API server does not answer a heartbeat line says what is retried since when;
* the deadline is the engine's per-operation timeout (``customTimeouts``) when it is the
  shorter one, and the timeout's message says which of the two ended the wait;
* every wait can be cancelled: the engine's ``Cancel``, a dropped call, a signal to the plugin
  (:meth:`ReadinessResource.cancel_all`);
* the connection may be the provider's configuration (``dynamo:kubeconfig``/``dynamo:context``),
  read at each call, so a changed kubeconfig is used by the next read or wait, for a resource
  that names no connection and whose children do not use the ambient one (``ambient``);
* preview never touches the cluster: the status outputs are unknown until the wait;
* the kubeconfig (and any input sent as a secret) comes back as a secret.

A failed wait raises :class:`ReadinessFailure` with the waiter's one message (and the error it
came from, which the server maps to a gRPC status: :mod:`.server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from pulumi.provider.experimental import provider as sdk
from pulumi.provider.experimental.property_value import PropertyValue

from dynamo_pulumi.cluster.aio import WAIT_THREADS, ProviderConnection, WaitJob, observe_async, settle_async
from dynamo_pulumi.cluster.health import HEARTBEAT_CHECK_SECONDS, HEARTBEAT_SECONDS
from dynamo_pulumi.cluster.provider import (
    NOT_WAITED,
    OUTPUTS,
    UNKNOWN,
    ReadinessProvider,
    connection_only,
    kept_outputs,
    wait_request,
)
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.floor.go_duration import format_go_duration
from dynamo_pulumi.plugin import inputs
from dynamo_pulumi.plugin.engine_log import WARNING, EngineLog, ThreadProgress
from dynamo_pulumi.plugin.values import plain_map, secret_keys, wire_map
from dynamo_pulumi.readiness.targets import WaitRequest

#: The status outputs while previewing: decided by the wait, so unknown until then.
PREVIEWED: Final = dict.fromkeys(OUTPUTS, UNKNOWN)

#: The pure half of the dynamic provider (diff): stateless, shared by both transports.
_CORE = ReadinessProvider()


class ReadinessFailure(DynamoPulumiError):
    """A wait or read that ended without a ready graph: its message is all the user sees;
    ``cause`` is the error it came from (its class decides the gRPC status)."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


def _answer(props: Mapping[str, Any], outputs: Mapping[str, Any], secrets: set[str]) -> dict[str, PropertyValue]:
    return wire_map({**props, **outputs}, secrets)


def deadline_of(ours: float, engine: float, operation: str) -> tuple[float, str]:
    """The wait's deadline in seconds and, when the engine gave one too, which of the two it is
    (the timeout's headline says so): the engine's ``timeout`` is ``customTimeouts`` of the
    resource (0 when not set)."""
    if not engine or not math.isfinite(engine) or engine <= 0:
        return ours, ""
    theirs = f"customTimeouts.{operation} {format_go_duration(engine)}"
    if engine < ours:
        return engine, f"{theirs}, before timeout_seconds {format_go_duration(ours)}"
    return ours, f"timeout_seconds; {theirs}"


class ReadinessResource:
    """Serves the resource's lifecycle; holds the provider's connection, the log and the jobs
    in flight (so that they can all be cancelled)."""

    def __init__(self, log: EngineLog) -> None:
        self.log = log
        self.connection = ProviderConnection()
        self._jobs: set[WaitJob] = set()
        #: Why every wait was cancelled (None while none was): later waits end at once too.
        self.cancelled: str | None = None

    def configure(self, kubeconfig: Any, context: str | None) -> None:
        """The provider's connection (``dynamo:kubeconfig``, ``dynamo:context``) from now on."""
        self.connection = ProviderConnection(kubeconfig, context)

    def cancel_all(self, reason: str) -> None:
        """Cancel every wait and read in flight (queued ones included) and every later one."""
        self.cancelled = self.cancelled or reason
        for job in list(self._jobs):
            job.cancel(reason)

    @property
    def jobs(self) -> int:
        """Waits and reads in flight."""
        return len(self._jobs)

    # --- pure: never the cluster -------------------------------------------------------------

    async def check(self, request: sdk.CheckRequest) -> sdk.CheckResponse:
        news = plain_map(request.new_inputs)
        failures = [sdk.CheckFailure(prop, reason) for prop, reason in inputs.problems(news)]
        return sdk.CheckResponse(inputs=wire_map(news, secret_keys(request.new_inputs)), failures=failures)

    async def diff(self, request: sdk.DiffRequest) -> sdk.DiffResponse:
        result = _CORE.diff(request.resource_id, plain_map(request.old_state), plain_map(request.new_inputs))
        return sdk.DiffResponse(changes=result.changes, replaces=list(result.replaces or []),
                                delete_before_replace=False)

    async def delete(self, _request: sdk.DeleteRequest) -> None:
        return None  # owns no cluster object

    # --- waiting ------------------------------------------------------------------------------

    async def create(self, request: sdk.CreateRequest) -> sdk.CreateResponse:
        props = plain_map(request.properties)
        inputs.require_valid(props)
        outputs = PREVIEWED if request.preview else await self._settle(request.urn, props, request.timeout, "create")
        resource_id = "" if request.preview else f"{props['namespace']}/{props['graph']}"
        return sdk.CreateResponse(resource_id, _answer(props, outputs, secret_keys(request.properties)))

    async def update(self, request: sdk.UpdateRequest) -> sdk.UpdateResponse:
        news, olds = plain_map(request.news), plain_map(request.olds)
        inputs.require_valid(news)
        if connection_only(olds, news):  # recorded without a new wait, as the dynamic transport does
            return sdk.UpdateResponse(wire_map(kept_outputs(olds, news), secret_keys(request.news)))
        outputs = PREVIEWED if request.preview else await self._settle(request.urn, news, request.timeout, "update")
        return sdk.UpdateResponse(_answer(news, outputs, secret_keys(request.news)))

    async def read(self, request: sdk.ReadRequest) -> sdk.ReadResponse:
        props = plain_map(request.properties)
        inputs.require_valid(props, state=True)
        outputs: dict[str, Any] = {}
        if props.get("wait", True) is not False:  # waiting is off: no cluster, not even on refresh
            target = wait_request(props)
            async with self._job(target) as job:
                status = await observe_async(self.connection.applied_to(props), target, job)
            outputs = {**status, "drift": props.get("drift") or []}
        return sdk.ReadResponse(request.resource_id, _answer(props, outputs, secret_keys(request.properties)),
                                request.inputs)

    @contextlib.asynccontextmanager
    async def _job(self, target: WaitRequest, progress: ThreadProgress | None = None) -> AsyncIterator[WaitJob]:
        """A job in flight while inside: cancellable by :meth:`cancel_all`; its failure a
        :class:`ReadinessFailure`; its heartbeat (with ``progress``) running meanwhile."""
        job = WaitJob(target.label)
        if self.cancelled is not None:
            job.cancel(self.cancelled)
        self._jobs.add(job)
        beat = asyncio.create_task(self._heartbeat(job, progress)) if progress is not None else None
        try:
            yield job
        except DynamoPulumiError as exc:
            raise ReadinessFailure(str(exc), exc) from None
        finally:
            self._jobs.discard(job)
            if beat is not None:
                beat.cancel()

    async def _heartbeat(self, job: WaitJob, progress: ThreadProgress) -> None:
        """While the API server has not answered for :data:`HEARTBEAT_SECONDS`: a status line
        saying what is retried since when, again every :data:`HEARTBEAT_SECONDS`."""
        last = -math.inf
        while True:
            await asyncio.sleep(HEARTBEAT_CHECK_SECONDS)
            silence = job.silence()
            now = time.monotonic()
            if silence is not None and silence.seconds(now) >= HEARTBEAT_SECONDS and now - last >= HEARTBEAT_SECONDS:
                progress.say(silence.line(now))
                last = now

    async def _settle(self, urn: str, props: Mapping[str, Any], engine_timeout: float, operation: str) -> dict[str, Any]:
        """Wait (unless ``wait`` is false) and return the status outputs."""
        if props.get("wait", True) is False:
            return dict(NOT_WAITED)
        target = wait_request(props, operation)
        seconds, deadline_by = deadline_of(target.timeout_seconds, engine_timeout, operation)
        target = target.model_copy(update={"timeout_seconds": seconds})
        progress = self.log.from_thread(asyncio.get_running_loop(), urn, target.label)

        def queued(position: int, running: int) -> None:
            progress.say(f"queued: {running} waits are running (at most {WAIT_THREADS} at once), "
                         f"{position - 1} ahead of this one")

        try:
            async with self._job(target, progress) as job:
                settled = await settle_async(self.connection.applied_to(props), target, progress, job, deadline_by,
                                             queued)
        finally:
            await progress.drain()  # a bounded moment for the progress lines before the step's answer
        if settled.warning:
            await self.log.log(settled.warning, urn, severity=WARNING)
        return {**settled.status, "drift": settled.drift}

