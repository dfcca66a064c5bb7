"""The ``dynamo`` provider: configuration, schema, the readiness resource and the components.

An :class:`pulumi.provider.experimental.Provider` (every method a coroutine on the server's
event loop). Resource calls go to :class:`.readiness.ReadinessResource` (the only custom
resource), ``Construct`` to :mod:`.components`. Configuration is the cluster connection, like
the kubernetes provider's ``kubeconfig`` and ``context``: the engine sends it again whenever it
changes, and the next read or wait uses it.

The engine starts the plugin for every ``pulumi preview``/``up`` and first asks for its info,
schema and configuration: the readiness core, the Kubernetes client and the components
(``pulumi_kubernetes``) are imported at their first use, not at start.

``Cancel`` (``pulumi cancel``, Ctrl-C in ``pulumi up``) and a signal to the plugin end every wait
in flight, and every later one, with a "cancelled" message (:meth:`DynamoProvider.cancel_all`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pulumi.provider.experimental import provider as sdk

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.plugin.engine_log import EngineLog
from dynamo_pulumi.plugin.tokens import PACKAGE, READINESS_TYPE
from dynamo_pulumi.plugin.values import UNKNOWN, plain_map, program_value

#: Why the waits end on the engine's ``Cancel``.
CANCELLED_BY_ENGINE = "the engine cancelled the operation (pulumi cancel, or Ctrl-C in pulumi up)"

if TYPE_CHECKING:
    from dynamo_pulumi.plugin.readiness import ReadinessResource


def _setting(args: Mapping[str, Any], variables: Mapping[str, str], key: str) -> Any:
    """A config value from the typed args, else the legacy ``dynamo:config:<key>`` variables."""
    value = args.get(key)
    if value in (None, "", UNKNOWN):
        value = variables.get(f"{PACKAGE}:config:{key}") or variables.get(f"{PACKAGE}:{key}")
    return value or None


def _resource_type(urn: str) -> str:
    """The resource's own type token, from ``urn:pulumi:<stack>::<project>::<types>::<name>``.

    ``<types>`` is the parent's type chain joined by ``$``: a ``GraphReadiness`` a component
    creates is ``dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness`` (type tokens
    hold no ``$``, so the last segment is the resource's own type, what the wire request's
    ``type`` field says; the SDK's request objects drop that field and their ``type`` property
    takes the whole chain). The name may itself contain ``::``: the types are the third part.
    This is how the engine reads it (``URN.Type()`` of pulumi's ``sdk/go/common/resource/urn``).
    """
    parts = urn.split("::", 3)
    return parts[2].rsplit("$", 1)[-1] if len(parts) == 4 else ""


class DynamoProvider(sdk.Provider):
    """See the module docstring."""

    def __init__(self, version: str, engine_address: str | None) -> None:
        self.version = version
        self.log = EngineLog(engine_address)
        #: The configured connection (kubeconfig, context); None each when not configured.
        self.connection: tuple[Any, str | None] = (None, None)
        self._readiness: ReadinessResource | None = None
        #: Why every wait was cancelled (None while none was).
        self.cancelled: str | None = None

    async def cancel(self) -> None:
        """The engine's ``Cancel``: end every wait in flight, and any later one."""
        self.cancel_all(CANCELLED_BY_ENGINE)

    def cancel_all(self, reason: str) -> None:
        """End every wait and read in flight (and every later one) with ``reason``."""
        self.cancelled = self.cancelled or reason
        if self._readiness is not None:
            self._readiness.cancel_all(reason)

    @property
    def jobs(self) -> int:
        """Waits and reads in flight."""
        return self._readiness.jobs if self._readiness is not None else 0

    async def get_schema(self, request: sdk.GetSchemaRequest) -> sdk.GetSchemaResponse:
        from dynamo_pulumi.plugin.schema import schema_text

        return sdk.GetSchemaResponse(schema_text(self.version))

    async def configure(self, request: sdk.ConfigureRequest) -> sdk.ConfigureResponse:
        args = plain_map(request.args)
        kubeconfig = _setting(args, request.variables, "kubeconfig")
        context = _setting(args, request.variables, "context")
        self.connection = (kubeconfig, str(context) if context else None)
        if self._readiness is not None:
            self._readiness.configure(*self.connection)
        return sdk.ConfigureResponse(accept_secrets=True, supports_preview=True, accept_resources=True,
                                     accept_outputs=True)

    def _custom(self, urn: str) -> ReadinessResource:
        kind = _resource_type(urn)
        if kind != READINESS_TYPE:
            raise InputError(f"the dynamo provider has no custom resource {kind!r}")
        if self._readiness is None:
            from dynamo_pulumi.plugin.readiness import ReadinessResource

            self._readiness = ReadinessResource(self.log)
            self._readiness.configure(*self.connection)
            if self.cancelled is not None:
                self._readiness.cancel_all(self.cancelled)
        return self._readiness

    async def check(self, request: sdk.CheckRequest) -> sdk.CheckResponse:
        return await self._custom(request.urn).check(request)

    async def diff(self, request: sdk.DiffRequest) -> sdk.DiffResponse:
        return await self._custom(request.urn).diff(request)

    async def create(self, request: sdk.CreateRequest) -> sdk.CreateResponse:
        return await self._custom(request.urn).create(request)

    async def read(self, request: sdk.ReadRequest) -> sdk.ReadResponse:
        return await self._custom(request.urn).read(request)

    async def update(self, request: sdk.UpdateRequest) -> sdk.UpdateResponse:
        return await self._custom(request.urn).update(request)

    async def delete(self, request: sdk.DeleteRequest) -> None:
        await self._custom(request.urn).delete(request)

    async def construct(self, request: sdk.ConstructRequest) -> sdk.ConstructResponse:
        from dynamo_pulumi.plugin import components

        inputs = plain_map(request.inputs)
        if "spec" in request.inputs:  # unknown or secret leaves stay Outputs, as in a Python program
            inputs["spec"] = program_value(request.inputs["spec"])
        component = components.build(request.resource_type, request.name, inputs, request.options)
        outputs = components.outputs_of(component)
        state = {key: await components.settled(value) for key, value in outputs.items()}
        return sdk.ConstructResponse(urn=await component.urn.future() or "", state=state, state_dependencies={})
