"""UPDATE admission: what the one pipeline (:func:`dynamo_pulumi.validation.admission.admit`)
needs from ``old`` when ``new`` replaces it, as the API server and the webhooks see it
(:class:`Prior`).

``old`` is the object the user applied before (or, when it already carries the provider or
origin-version annotation, the stored object); it is replayed through create-time defaulting
unless ``old_stored``. What the defaulting webhook added to it (the
``nvidia.com/workload-provider`` and origin-version annotations, a DCD's ``spec.name``) is
carried into ``new`` when ``new`` leaves it out. Updates of an object that is being deleted are
admitted without validation, so finalizers can be removed.

For a DGD update the webhook first validates the new object on its own and stops there if that
fails; a DCD update reports both passes together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.defaulting.webhooks import default_component_deployment, default_graph
from dynamo_pulumi.errors import FieldError, Findings, Path, invalid
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.validation.admission_common import Request, rejected_before_webhook
from dynamo_pulumi.validation.cel import validate_component_deployment_cel, validate_graph_cel
from dynamo_pulumi.validation.component import validate_component_update
from dynamo_pulumi.validation.graph_update import (
    BACKEND_FRAMEWORK_WARNING,
    MSG_BACKEND_IMMUTABLE,
    validate_graph_update,
)
from dynamo_pulumi.validation.power import ratchet_product_errors

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment, ObjectMeta
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.validation.admission_common import AdmissionObject
    from dynamo_pulumi.validation.context import ValidationContext

#: Annotations only the defaulting webhook writes on a DGD, kept across a user's update.
_OPERATOR_OWNED_ANNOTATIONS = (
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
)


@record(eq=False, repr=False)  # a context: never compared or printed
class Prior:
    """What an update's pipeline (:func:`dynamo_pulumi.validation.admission.admit`) needs from
    ``old``: the object as stored, and what the defaulting webhook added to it that ``new``
    carries (annotations of a DGD, ``spec.name`` of a DCD)."""

    stored: Any
    #: DGD: the operator-owned annotation keys create-time defaulting added to the applied ``old``.
    carried: tuple[str, ...] = ()
    #: ``stored`` when it is ``old`` as create admission stores it (else None): what the
    #: replacement trigger's identity of ``old`` starts from, so it is not defaulted again.
    created: Any = None

    def submitted(self, new: Any) -> Any:
        """``new`` as the update sends it, with what ``old``'s defaulting added and ``new`` left out."""
        if isinstance(new, GraphHelpers):
            return _carry_operator_annotations(new, self.stored, self.carried)  # type: ignore[arg-type]
        if not new.spec.name and self.stored.spec.name:
            return new.model_copy(update={"spec": new.spec.model_copy(update={"name": self.stored.spec.name})})
        return new

    def rejected_before_webhook(self, submitted: AdmissionObject, request: Request) -> Findings | None:
        """An object being deleted is admitted as is; else the schema and transition CEL stages."""
        if _is_deleting(submitted.metadata):
            return Findings()
        return rejected_before_webhook(submitted, request, lambda: _transition_cel(submitted, self.stored, request))

    def graph_findings(
        self, defaulted: DynamoGraphDeployment, ctx: ValidationContext, stateless: Findings
    ) -> Findings:
        """The webhook on a DGD update: the new object alone first (stopping there if it fails,
        after the ratchet of rules a stored object already broke), then the transition rules."""
        errors, ratchet_warnings = ratchet_product_errors(stateless.errors, defaulted, self.stored)
        warnings = stateless.warnings + ratchet_warnings
        if errors:
            return Findings(errors=errors, warnings=warnings)
        transition = validate_graph_update(defaulted, self.stored, ctx)
        return Findings(errors=transition.errors, warnings=warnings + transition.warnings)

    def component_findings(self, submitted: DynamoComponentDeployment, ctx: ValidationContext) -> Findings:
        """The webhook on a DCD update, reported together with the new object's own findings."""
        spec_path = Path("spec")
        findings = Findings()
        if submitted.spec.backend_framework != self.stored.spec.backend_framework:
            findings.warnings.append(BACKEND_FRAMEWORK_WARNING)
            findings.errors.append(
                invalid(spec_path.child("backendFramework"), submitted.spec.backend_framework or "",
                        MSG_BACKEND_IMMUTABLE)
            )
        findings.extend(validate_component_update(self.stored.spec, submitted.spec, spec_path, ctx))
        return findings


def prior_object(old: AdmissionObject, new: AdmissionObject, platform: Platform, old_stored: bool) -> Prior | Findings:
    """``old`` as an update's pipeline needs it, or the refusal of replacing it with another kind."""
    if type(old) is not type(new):
        return Findings(errors=[_kind_mismatch(old, new)])
    if isinstance(new, GraphHelpers):
        if old_stored:
            return Prior(old)
        stored = stored_graph(old, platform)  # type: ignore[arg-type]
        # Only what create-time defaulting added on top of the user's applied ``old`` is carried;
        # an annotation the given ``old`` already held (a stored object) and ``new`` drops is a removal.
        created = None if _already_stored(old) else stored  # type: ignore[arg-type]
        return Prior(stored, _defaulted_annotation_keys(old, stored), created)  # type: ignore[arg-type]
    if isinstance(new, ComponentDeploymentHelpers):
        if old_stored:
            return Prior(old)
        stored_dcd = default_component_deployment(old)  # type: ignore[arg-type]
        return Prior(stored_dcd, created=stored_dcd)
    return Prior(old)


# --- DGD ------------------------------------------------------------------------------------------


def stored_graph(old: DynamoGraphDeployment, platform: Platform) -> DynamoGraphDeployment:
    """``old`` as the API server stored it.

    An object carrying an annotation only the create-time defaulting writes (the provider, or
    the origin version an older operator stamped alone) already is a stored object; anything
    else is what the user applied, which the API server defaulted on create.
    """
    return default_graph(old, platform, "update" if _already_stored(old) else "create")


def _already_stored(old: DynamoGraphDeployment) -> bool:
    """``old`` carries an annotation only create-time defaulting writes."""
    return any(key in old.annotations for key in _OPERATOR_OWNED_ANNOTATIONS)


def _defaulted_annotation_keys(old: DynamoGraphDeployment, stored: DynamoGraphDeployment) -> tuple[str, ...]:
    """Operator-owned annotations the create-time defaulting added to the user's ``old``."""
    return tuple(
        key for key in _OPERATOR_OWNED_ANNOTATIONS if key in stored.annotations and key not in old.annotations
    )


def _carry_operator_annotations(
    new: DynamoGraphDeployment, stored: DynamoGraphDeployment, carried: tuple[str, ...]
) -> DynamoGraphDeployment:
    """Keep in ``new`` the defaulted annotations the user never wrote (as an apply would).

    Only ``carried`` keys qualify: an annotation present in the object the caller passed as old
    was part of what ``new`` replaces, so its absence from ``new`` is a removal that rule 14
    must see.
    """
    missing = {key: stored.annotations[key] for key in carried if key not in new.annotations}
    if not missing:
        return new
    metadata = new.metadata.model_copy(update={"annotations": {**new.annotations, **missing}})
    return new.model_copy(update={"metadata": metadata})


# --- shared ---------------------------------------------------------------------------------------


def _transition_cel(new: AdmissionObject, stored: AdmissionObject, request: Request) -> list[FieldError]:
    """The CEL transition rules of the request's version: v1beta1's, or the alpha CRD's."""
    if request.beta_cel:
        if isinstance(new, GraphHelpers):
            return validate_graph_cel(new, old=stored)  # type: ignore[arg-type]
        return validate_component_deployment_cel(new, old=stored)  # type: ignore[arg-type]
    if request.alpha_source:
        from dynamo_pulumi.validation.alpha import alpha_transition_errors

        return alpha_transition_errors(new, stored)
    return []


def _is_deleting(metadata: ObjectMeta) -> bool:
    return bool((metadata.model_extra or {}).get("deletionTimestamp"))


def _kind_mismatch(old: AdmissionObject, new: AdmissionObject) -> FieldError:
    return invalid(Path("kind"), new.kind, f"cannot replace a {old.kind} with a {new.kind}")
