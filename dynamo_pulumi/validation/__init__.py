"""Admission parity: what the API server and the Dynamo operator's webhooks would say.

Admission runs in the API server's order:

1. the mutating (defaulting) webhook (:mod:`dynamo_pulumi.defaulting.webhooks`);
2. the CRD's schema for what the models cannot enforce themselves, the embedded core/v1 types
   (pod templates, ``spec.env``: :func:`dynamo_pulumi.api.pod_schema.object_errors`), then its
   CEL rules (:mod:`.cel`), transition rules included on update; a failure of either rejects the
   request before a validating webhook sees it (a schema failure before CEL runs);
3. the validating webhook: DGD metadata (:mod:`.metadata`), DGD spec (:mod:`.graph`, which runs
   the shared component rules of :mod:`.component` per component) and, on update, the transition
   rules (:mod:`.graph_update`). For a DGD update the webhook first validates the new object on
   its own and stops there if that fails; a DCD update reports both passes together.

CREATE admission and the entry points live in :mod:`.admission`, UPDATE admission in
:mod:`.update_admission`, what both share (request, contexts, stages) in :mod:`.admission_common`.

``validate_update(old, new)`` treats ``old`` as the object the user applied before (or, when it
already carries the provider or origin-version annotation, as the stored object). What the
defaulting webhook added to it (the ``nvidia.com/workload-provider`` and origin-version
annotations, a DCD's ``spec.name``) is carried into ``new`` when ``new`` leaves it out, as a
client-side ``kubectl apply`` or a Pulumi update keeps fields it never set. An operator-owned
annotation that ``old`` itself carried (a stored object, or ``old_stored=True``) is not carried:
dropping it from ``new`` is a removal, which rule 14 rejects for the workload provider.

Updates of an object that is being deleted (``metadata.deletionTimestamp`` set) are admitted
without validation, so finalizers can be removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.validation.admission import admit, check, validate, validate_update
from dynamo_pulumi.validation.admission_common import component_context as component_context
from dynamo_pulumi.validation.admission_common import graph_context as graph_context

if TYPE_CHECKING:
    from dynamo_pulumi.validation.admission_common import AdmissionObject as AdmissionObject
    from dynamo_pulumi.validation.update_admission import stored_graph as stored_graph


def __getattr__(name: str) -> Any:
    """``stored_graph`` loads with the update rules, which a create never needs (PEP 562)."""
    if name == "stored_graph":
        from dynamo_pulumi.validation.update_admission import stored_graph

        return stored_graph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["admit", "check", "validate", "validate_update"]
