"""Gang-scheduler integrations for Grove cliques (rendering-grove section 2.4).

With the KAI scheduler integration on, every clique whose pod names no scheduler (or already names
``kai-scheduler``) runs under ``kai-scheduler`` and carries the queue label; the queue is the DGD
annotation ``nvidia.com/kai-scheduler-queue`` (trimmed) or ``dynamo``. The operator also checks
that the queue exists, which needs the cluster; offline the named queue is trusted. With the
Volcano integration on, such cliques run under ``volcano`` and the PCS carries the queue
annotation. Both at once is an operator error.

The switches are the operator configuration's ``orchestrators.kaiScheduler.enabled`` and
``orchestrators.volcanoScheduler.enabled`` (read once into :class:`.settings.GroveSettings`); a
platform model without them has both off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    DEFAULT_KAI_SCHEDULER_QUEUE,
    KAI_SCHEDULER_NAME,
    KUBE_ANNOTATION_KAI_SCHEDULER_QUEUE,
    KUBE_ANNOTATION_VOLCANO_QUEUE,
    KUBE_LABEL_KAI_SCHEDULER_QUEUE,
    VOLCANO_SCHEDULER_NAME,
)

if TYPE_CHECKING:
    from dynamo_pulumi.render.grove.settings import GroveSettings


def check_scheduler_integrations(settings: GroveSettings) -> None:
    """``resolveGroveSchedulerQueue``: the two integrations exclude each other."""
    if settings.kai_scheduler and settings.volcano_scheduler:
        raise RenderError("kai-scheduler and volcano scheduler integrations cannot both be enabled for Grove")


def kai_queue(annotations: dict[str, str]) -> str:
    """The trimmed ``nvidia.com/kai-scheduler-queue`` annotation, else ``dynamo``."""
    value = annotations.get(KUBE_ANNOTATION_KAI_SCHEDULER_QUEUE, "").strip()
    return value or DEFAULT_KAI_SCHEDULER_QUEUE


def volcano_queue(annotations: dict[str, str], settings: GroveSettings) -> str:
    """The Volcano queue the PCS announces ("" when the integration is off or no queue is named)."""
    if not settings.volcano_scheduler:
        return ""
    return annotations.get(KUBE_ANNOTATION_VOLCANO_QUEUE, "").strip()


def inject_schedulers(clique: dict[str, Any], settings: GroveSettings, annotations: dict[str, str]) -> None:
    """Set the clique's scheduler (and KAI queue label) unless the user chose another scheduler."""
    pod_spec = clique["spec"]["podSpec"]
    current = pod_spec.get("schedulerName") or ""
    if settings.kai_scheduler and current in ("", KAI_SCHEDULER_NAME):
        pod_spec["schedulerName"] = KAI_SCHEDULER_NAME
        clique.setdefault("labels", {})[KUBE_LABEL_KAI_SCHEDULER_QUEUE] = kai_queue(annotations)
        current = KAI_SCHEDULER_NAME
    if settings.volcano_scheduler and current in ("", VOLCANO_SCHEDULER_NAME):
        pod_spec["schedulerName"] = VOLCANO_SCHEDULER_NAME
