"""``dynamo:index:GraphReadiness``: the readiness resource as a real custom resource.

The second transport of the one readiness core. What the inputs mean, what is refused, what a
change replaces and what the outputs are come from :mod:`dynamo_pulumi.cluster.provider` (the
dynamic provider's own functions, called here on the plain values); waiting is
:mod:`dynamo_pulumi.cluster.aio` (the same :class:`Waiter`, on a pool sized for many graphs). What
this transport adds is what the dynamic host cannot give:

* every call is a coroutine on one event loop: any number of graphs wait at once;
* progress lines are ephemeral status lines under the resource (:mod:`.engine_log`);
* the connection may be the provider's configuration (``dynamo:kubeconfig``/``dynamo:context``),
  read at each call, so a changed kubeconfig is used by the next read or wait, for a resource
  that names no connection and whose children do not use the ambient one (``ambient``);
* preview never touches the cluster: the status outputs are unknown until the wait;
* the kubeconfig (and any input sent as a secret) comes back as a secret.

A failed wait raises :class:`ReadinessFailure` with the waiter's one message; the server turns it
into the gRPC status message alone (:mod:`.server`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Final

from pulumi.provider.experimental import provider as sdk
from pulumi.provider.experimental.property_value import PropertyValue

from dynamo_pulumi.cluster.aio import ProviderConnection, observe_async, settle_async
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
from dynamo_pulumi.plugin.engine_log import WARNING, EngineLog
from dynamo_pulumi.plugin.values import plain_map, secret_keys, wire_map

#: The status outputs while previewing: decided by the wait, so unknown until then.
PREVIEWED: Final = dict.fromkeys(OUTPUTS, UNKNOWN)

#: The pure half of the dynamic provider (check, diff): stateless, shared by both transports.
_CORE = ReadinessProvider()


class ReadinessFailure(DynamoPulumiError):
    """A wait or read that ended without a ready graph: its message is all the user sees."""


def _answer(props: Mapping[str, Any], outputs: Mapping[str, Any], secrets: set[str]) -> dict[str, PropertyValue]:
    return wire_map({**props, **outputs}, secrets)


class ReadinessResource:
    """Serves the resource's lifecycle; holds only the provider's connection and the log."""

    def __init__(self, log: EngineLog) -> None:
        self.log = log
        self.connection = ProviderConnection()

    def configure(self, kubeconfig: Any, context: str | None) -> None:
        """The provider's connection (``dynamo:kubeconfig``, ``dynamo:context``) from now on."""
        self.connection = ProviderConnection(kubeconfig, context)

    # --- pure: never the cluster -------------------------------------------------------------

    async def check(self, request: sdk.CheckRequest) -> sdk.CheckResponse:
        news = plain_map(request.new_inputs)
        failures = [sdk.CheckFailure(f.property, f.reason) for f in _CORE.check({}, news).failures or []]
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
        outputs = PREVIEWED if request.preview else await self._settle(request.urn, props)
        resource_id = "" if request.preview else f"{props['namespace']}/{props['graph']}"
        return sdk.CreateResponse(resource_id, _answer(props, outputs, secret_keys(request.properties)))

    async def update(self, request: sdk.UpdateRequest) -> sdk.UpdateResponse:
        news, olds = plain_map(request.news), plain_map(request.olds)
        if connection_only(olds, news):  # recorded without a new wait, as the dynamic transport does
            return sdk.UpdateResponse(wire_map(kept_outputs(olds, news), secret_keys(request.news)))
        outputs = PREVIEWED if request.preview else await self._settle(request.urn, news, "update")
        return sdk.UpdateResponse(_answer(news, outputs, secret_keys(request.news)))

    async def read(self, request: sdk.ReadRequest) -> sdk.ReadResponse:
        props = plain_map(request.properties)
        outputs: dict[str, Any] = {}
        if props.get("wait", True) is not False:  # waiting is off: no cluster, not even on refresh
            try:
                status = await observe_async(self.connection.applied_to(props), wait_request(props))
            except DynamoPulumiError as exc:
                raise ReadinessFailure(str(exc)) from None
            outputs = {**status, "drift": props.get("drift") or []}
        return sdk.ReadResponse(request.resource_id, _answer(props, outputs, secret_keys(request.properties)),
                                request.inputs)

    async def _settle(self, urn: str, props: Mapping[str, Any], operation: str = "create") -> dict[str, Any]:
        """Wait (unless ``wait`` is false) and return the status outputs."""
        if props.get("wait", True) is False:
            return dict(NOT_WAITED)
        target = wait_request(props, operation)
        progress = self.log.from_thread(asyncio.get_running_loop(), urn, target.label)
        try:
            settled = await settle_async(self.connection.applied_to(props), target, progress)
        except DynamoPulumiError as exc:
            raise ReadinessFailure(str(exc)) from None
        finally:
            await progress.drain()  # every progress line before the step's answer
        if settled.warning:
            await self.log.log(settled.warning, urn, severity=WARNING)
        return {**settled.status, "drift": settled.drift}
