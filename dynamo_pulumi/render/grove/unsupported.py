"""Features whose Grove rendering depends on live cluster state or on other controllers.

* **Checkpoint** (``experimental.checkpoint``, only when the platform's Checkpoint feature is on):
  with ``startupPolicy: WaitForCheckpoint`` the engine cliques and the scaling group are held at
  zero replicas until the DynamoCheckpoint is Ready. A fresh render has no checkpoint yet, so the
  gated state is what the operator creates and needs no cluster. The ``Immediate`` policy restores
  from a checkpoint the operator looks up in the cluster (identity hash, storage, readiness); that
  is refused rather than guessed.
* **DRA**: GMS and inter-pod failover claim GPUs through ``resource.k8s.io/v1``; with the
  operator's ``dra.enabled`` explicitly false the graph fails (left unset, the API is assumed
  served, as on Kubernetes 1.34+). The check is shared with the component pathway
  (:func:`dynamo_pulumi.render.pod.gms.require_dra`).
* **LPX** components are delegated to the LPX controller, which resolves a compiled build from
  the operator's build registry; nothing offline can render them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import COMPONENT_TYPE_LPX
from dynamo_pulumi.render.pod.gms import require_dra

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
    from dynamo_pulumi.render.grove.settings import GroveSettings

CHECKPOINT_STARTUP_POLICY_WAIT = "WaitForCheckpoint"


def checkpoint_gated(component: DynamoComponentDeploymentSharedSpec, settings: GroveSettings) -> bool:
    """True when the component's engines wait (0 replicas) for a checkpoint that is not Ready yet."""
    checkpoint = component.checkpoint
    if not settings.checkpoints or checkpoint is None or not checkpoint.enabled:
        return False
    return checkpoint.effective_startup_policy == CHECKPOINT_STARTUP_POLICY_WAIT


def refuse_cluster_dependent(dgd: DynamoGraphDeployment, settings: GroveSettings) -> None:
    """Raise a RenderError for the first component that cannot be rendered offline."""
    require_dra(dgd, dra_off=settings.dra_off)
    for i, component in enumerate(dgd.components):
        path = f"spec.components[{i}]"
        if component.type == COMPONENT_TYPE_LPX or component.lpx is not None:
            raise RenderError(
                f'component "{component.name}" is an LPX component: it is rendered by the LPX controller '
                "from a compiled build in the operator's build registry, which offline rendering cannot "
                "reach",
                f"{path}.lpx",
            )
        checkpoint = component.checkpoint
        if not settings.checkpoints or checkpoint is None or not checkpoint.enabled:
            continue
        if checkpoint.effective_startup_policy != CHECKPOINT_STARTUP_POLICY_WAIT:
            raise RenderError(
                f'component "{component.name}" restores from a checkpoint with startupPolicy '
                f'"{checkpoint.effective_startup_policy}": the restore target comes from the cluster\'s '
                "DynamoCheckpoint objects, which offline rendering cannot read; use "
                f"startupPolicy {CHECKPOINT_STARTUP_POLICY_WAIT} or disable the checkpoint",
                f"{path}.experimental.checkpoint.startupPolicy",
            )
