"""What the platform settings derive (a switch that is on, the pathways they allow), for the
pydantic models (:mod:`dynamo_pulumi.platform`) and their pydantic-free twins alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dynamo_pulumi.platform import NamespaceConfig, Orchestrators, Toggle


class ToggleHelpers:
    """An orchestrator or feature switch: ``None`` (the operator's "auto-detect") counts as off,
    since nothing is detected offline."""

    if TYPE_CHECKING:
        enabled: bool | None

    @property
    def on(self) -> bool:
        return bool(self.enabled)


class PlatformHelpers:
    if TYPE_CHECKING:
        orchestrators: Orchestrators
        namespace: NamespaceConfig
        dra: Toggle

    @property
    def grove_enabled(self) -> bool:
        return self.orchestrators.grove.on

    @property
    def lws_enabled(self) -> bool:
        return self.orchestrators.lws.on

    @property
    def dra_off(self) -> bool:
        """DRA is off only when ``dra.enabled: false`` is given: left unset, the
        ``resource.k8s.io/v1`` API is assumed served (Kubernetes 1.34+), unlike the orchestrator
        switches, which count as off until turned on."""
        return self.dra.enabled is False

    @property
    def cluster_wide(self) -> bool:
        return self.namespace.restricted == ""
