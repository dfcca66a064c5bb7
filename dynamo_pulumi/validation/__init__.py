"""Admission parity: what the API server and the Dynamo operator's webhooks would say.

Admission runs in the API server's order:

1. the mutating (defaulting) webhook (:mod:`dynamo_pulumi.defaulting`);
2. the CRD's schema for what the models cannot enforce themselves, the embedded core/v1 types
   (pod templates, ``spec.env``: :func:`dynamo_pulumi.api.pod_schema.object_errors`), then its
   CEL rules (:mod:`.cel`), transition rules included on update; a failure of either rejects the
   request before a validating webhook sees it (a schema failure before CEL runs);
3. the validating webhook: DGD metadata (:mod:`.metadata`), DGD spec (:mod:`.graph`, which runs
   the shared component rules of :mod:`.component` per component) and, on update, the transition
   rules (:mod:`.graph_update`). For a DGD update the webhook first validates the new object on
   its own and stops there if that fails; a DCD update reports both passes together.

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

from dataclasses import dataclass
from typing import Any

from dynamo_pulumi.api.pod_schema import object_errors
from dynamo_pulumi.api.v1alpha1 import ALPHA_API_VERSION
from dynamo_pulumi.api.v1beta1 import (
    API_VERSION,
    DCD_KIND,
    DGD_KIND,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
    DynamoGraphDeploymentScalingAdapter,
    ObjectMeta,
)
from dynamo_pulumi.constants import (
    DYNAMO_API_GROUP,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
)
from dynamo_pulumi.defaulting import default_component_deployment, default_graph
from dynamo_pulumi.errors import FieldError, Findings, GraphValidationError, Path, invalid
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation.cel import (
    restart_on_create_errors,
    validate_component_deployment_cel,
    validate_graph_cel,
)
from dynamo_pulumi.validation.component import validate_component, validate_component_update
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.graph import grove_pathway, validate_graph_spec
from dynamo_pulumi.validation.graph_update import (
    BACKEND_FRAMEWORK_WARNING,
    MSG_BACKEND_IMMUTABLE,
    validate_graph_update,
)
from dynamo_pulumi.validation.metadata import validate_graph_metadata
from dynamo_pulumi.validation.power import ratchet_product_errors

__all__ = ["admit", "check", "validate", "validate_update"]

AdmissionObject = DynamoGraphDeployment | DynamoComponentDeployment | DynamoGraphDeploymentScalingAdapter

#: Annotations only the defaulting webhook writes on a DGD, kept across a user's update.
_OPERATOR_OWNED_ANNOTATIONS = (
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
)


def validate(
    obj: AdmissionObject,
    platform: Platform | None = None,
    *,
    source_api_version: str = API_VERSION,
    namespace: str | None = None,
) -> Findings:
    """CREATE admission of one object: every error of the first failing stage, and warnings.

    ``source_api_version`` is the version the user wrote: a converted ``nvidia.com/v1alpha1``
    object was already checked against the alpha CRD's CEL when it was loaded, so of the v1beta1
    CEL rules only the create-time ``spec.restart`` rule (common to both CRDs) runs for it.

    An object carrying preserved alpha data (the ``nvidia.com/dgd-spec``/``dcd-spec``
    annotation) also meets the v1alpha1 compatibility pass (rule 47) after the webhook rules;
    ``namespace`` (else the object's, else ``default``) names its deprecated-dynamoNamespace
    replacement.
    """
    return admit(obj, platform, source_api_version=source_api_version, namespace=namespace)[1]


def validate_update(
    old: AdmissionObject,
    new: AdmissionObject,
    platform: Platform | None = None,
    *,
    source_api_version: str = API_VERSION,
    old_stored: bool = False,
    namespace: str | None = None,
) -> Findings:
    """UPDATE admission of ``new`` replacing ``old``.

    ``old`` is the object as previously applied; with ``old_stored=True`` it is taken as the
    live object exactly as the API server holds it (no create-time defaulting is replayed).
    For an update sent in v1alpha1 the alpha CRD's transition rule (``minAvailable is
    immutable after creation``) runs instead of the v1beta1 CEL rules, at alpha paths; the
    compatibility pass runs on ``new``'s preserved alpha data as on create.
    """
    return admit(
        new,
        platform,
        old=old,
        source_api_version=source_api_version,
        old_stored=old_stored,
        namespace=namespace,
    )[1]


def check(
    obj: AdmissionObject,
    platform: Platform | None = None,
    old: AdmissionObject | None = None,
    *,
    source_api_version: str = API_VERSION,
    old_stored: bool = False,
    namespace: str | None = None,
) -> list[str]:
    """Admit or raise :class:`GraphValidationError` with every error; returns the warnings."""
    findings = admit(
        obj,
        platform,
        old=old,
        source_api_version=source_api_version,
        old_stored=old_stored,
        namespace=namespace,
    )[1]
    if findings.errors:
        raise GraphValidationError(findings.errors, obj.kind, obj.name, findings.warnings)
    return findings.warnings


def admit(
    obj: AdmissionObject,
    platform: Platform | None = None,
    old: AdmissionObject | None = None,
    *,
    source_api_version: str = API_VERSION,
    old_stored: bool = False,
    namespace: str | None = None,
) -> tuple[Any, Findings]:
    """The object as stored after defaulting, and what admission found.

    Identical errors are reported once, as the API server's aggregated message shows them.
    """
    request = _Request(source_api_version, namespace)
    stored_obj, findings = _admit(obj, platform or Platform(), old, request, old_stored)
    return stored_obj, Findings(errors=_unique(findings.errors), warnings=findings.warnings)


@dataclass(frozen=True)
class _Request:
    """What admission needs to know about the request beyond the objects."""

    source_api_version: str = API_VERSION
    namespace: str | None = None

    @property
    def beta_cel(self) -> bool:
        """The request was sent in v1beta1, so the v1beta1 CRD's CEL rules apply."""
        return self.source_api_version == API_VERSION

    @property
    def alpha_source(self) -> bool:
        return self.source_api_version == ALPHA_API_VERSION


def _admit(
    obj: AdmissionObject,
    platform: Platform,
    old: AdmissionObject | None,
    request: _Request,
    old_stored: bool,
) -> tuple[Any, Findings]:
    if old is not None and type(old) is not type(obj):
        return obj, Findings(errors=[_kind_mismatch(old, obj)])
    if isinstance(obj, DynamoGraphDeployment):
        if old is None:
            return _admit_graph_create(obj, platform, request)
        stored = old if old_stored else stored_graph(old, platform)  # type: ignore[arg-type]
        # Only what create-time defaulting added on top of the user's applied ``old`` is carried;
        # an annotation the given ``old`` already held (a stored object) and ``new`` drops is a removal.
        carried = () if old_stored else _defaulted_annotation_keys(old, stored)  # type: ignore[arg-type]
        return _admit_graph_update(stored, obj, platform, request, carried)
    if isinstance(obj, DynamoComponentDeployment):
        if old is None:
            return _admit_component_create(obj, platform, request)
        stored_dcd = old if old_stored else default_component_deployment(old)  # type: ignore[arg-type]
        return _admit_component_update(stored_dcd, obj, platform, request)
    # DynamoGraphDeploymentScalingAdapter: no CEL or webhook rules beyond its schema.
    return obj, Findings()


# --- DGD ------------------------------------------------------------------------------------------


def graph_context(dgd: DynamoGraphDeployment, platform: Platform, operation: str) -> ValidationContext:
    """The request context of a (defaulted) DGD."""
    on_grove, reason = grove_pathway(dgd, platform)
    return ValidationContext(
        kind=DGD_KIND,
        operation=operation,  # type: ignore[arg-type]
        platform=platform,
        backend_framework=dgd.spec.backend_framework,
        annotations=dgd.annotations,
        workload_provider=dgd.annotations.get(KUBE_ANNOTATION_WORKLOAD_PROVIDER),
        grove_pathway=on_grove,
        grove_pathway_reason=reason,
    )


def _admit_graph_create(
    dgd: DynamoGraphDeployment, platform: Platform, request: _Request
) -> tuple[DynamoGraphDeployment, Findings]:
    defaulted = default_graph(dgd, platform, "create")
    schema_errors = _schema_errors(defaulted, request)
    if schema_errors:
        return defaulted, Findings(errors=schema_errors)
    cel_errors = validate_graph_cel(defaulted) if request.beta_cel else restart_on_create_errors(defaulted)
    if cel_errors:
        return defaulted, Findings(errors=cel_errors)
    return defaulted, _graph_stateless(defaulted, graph_context(defaulted, platform, "create"), request)


def _graph_stateless(dgd: DynamoGraphDeployment, ctx: ValidationContext, request: _Request) -> Findings:
    """The webhook's ``Validate``: metadata, spec, then the compatibility pass over alpha data."""
    findings = Findings(errors=validate_graph_metadata(dgd))
    findings.extend(validate_graph_spec(dgd, ctx))
    findings.extend(_compat(dgd, request))
    return findings


def _compat(obj: AdmissionObject, request: _Request) -> Findings:
    """Rule 47 over the alpha-only data ``obj`` carries (api-and-validation.md 4.6)."""
    from dynamo_pulumi.validation.alpha import preserved_compat_findings  # late: alpha imports this module

    return preserved_compat_findings(obj, request.namespace, alpha_source=request.alpha_source)


def _schema_errors(obj: AdmissionObject, request: _Request) -> list[FieldError]:
    """The v1beta1 CRD schema of the embedded core/v1 types, for a request sent in v1beta1.

    The models enforce the rest of the schema when they are built. A v1alpha1 request meets
    the alpha CRD's schema instead, at alpha paths, when it is loaded
    (:func:`dynamo_pulumi.api.conversion.parse_alpha`); its conversion is not schema-checked.
    """
    return object_errors(obj) if request.beta_cel else []


def _transition_cel(new: AdmissionObject, stored: AdmissionObject, request: _Request) -> list[FieldError]:
    """The CEL transition rules of the request's version: v1beta1's, or the alpha CRD's."""
    if request.beta_cel:
        if isinstance(new, DynamoGraphDeployment):
            return validate_graph_cel(new, old=stored)  # type: ignore[arg-type]
        return validate_component_deployment_cel(new, old=stored)  # type: ignore[arg-type]
    if request.alpha_source:
        from dynamo_pulumi.validation.alpha import alpha_transition_errors

        return alpha_transition_errors(new, stored)
    return []


def _admit_graph_update(
    stored: DynamoGraphDeployment,
    new: DynamoGraphDeployment,
    platform: Platform,
    request: _Request,
    carried: tuple[str, ...] = (),
) -> tuple[DynamoGraphDeployment, Findings]:
    defaulted = default_graph(_carry_operator_annotations(new, stored, carried), platform, "update")
    if _is_deleting(defaulted.metadata):
        return defaulted, Findings()
    schema_errors = _schema_errors(defaulted, request)
    if schema_errors:
        return defaulted, Findings(errors=schema_errors)
    cel_errors = _transition_cel(defaulted, stored, request)
    if cel_errors:
        return defaulted, Findings(errors=cel_errors)
    ctx = graph_context(defaulted, platform, "update")
    stateless = _graph_stateless(defaulted, ctx, request)
    errors, ratchet_warnings = ratchet_product_errors(stateless.errors, defaulted, stored)
    warnings = stateless.warnings + ratchet_warnings
    if errors:
        return defaulted, Findings(errors=errors, warnings=warnings)
    transition = validate_graph_update(defaulted, stored, ctx)
    return defaulted, Findings(errors=transition.errors, warnings=warnings + transition.warnings)


def stored_graph(old: DynamoGraphDeployment, platform: Platform) -> DynamoGraphDeployment:
    """``old`` as the API server stored it.

    An object carrying an annotation only the create-time defaulting writes (the provider, or
    the origin version an older operator stamped alone) already is a stored object; anything
    else is what the user applied, which the API server defaulted on create.
    """
    if any(key in old.annotations for key in _OPERATOR_OWNED_ANNOTATIONS):
        return default_graph(old, platform, "update")
    return default_graph(old, platform, "create")


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


# --- DCD ------------------------------------------------------------------------------------------


def component_context(
    dcd: DynamoComponentDeployment, platform: Platform, operation: str
) -> ValidationContext:
    return ValidationContext(
        kind=DCD_KIND,
        operation=operation,  # type: ignore[arg-type]
        platform=platform,
        backend_framework=dcd.spec.backend_framework,
        annotations=dcd.annotations,
        owner_is_dgd=_controlled_by_dgd(dcd.metadata),
    )


def _admit_component_create(
    dcd: DynamoComponentDeployment, platform: Platform, request: _Request
) -> tuple[DynamoComponentDeployment, Findings]:
    defaulted = default_component_deployment(dcd)
    schema_errors = _schema_errors(defaulted, request)
    if schema_errors:
        return defaulted, Findings(errors=schema_errors)
    cel_errors = validate_component_deployment_cel(defaulted) if request.beta_cel else []
    if cel_errors:
        return defaulted, Findings(errors=cel_errors)
    ctx = component_context(defaulted, platform, "create")
    findings = validate_component(defaulted.spec, Path("spec"), ctx)
    findings.extend(_compat(defaulted, request))
    return defaulted, findings


def _admit_component_update(
    stored: DynamoComponentDeployment, new: DynamoComponentDeployment, platform: Platform, request: _Request
) -> tuple[DynamoComponentDeployment, Findings]:
    submitted = new
    if not new.spec.name and stored.spec.name:
        submitted = new.model_copy(update={"spec": new.spec.model_copy(update={"name": stored.spec.name})})
    if _is_deleting(submitted.metadata):
        return submitted, Findings()
    schema_errors = _schema_errors(submitted, request)
    if schema_errors:
        return submitted, Findings(errors=schema_errors)
    cel_errors = _transition_cel(submitted, stored, request)
    if cel_errors:
        return submitted, Findings(errors=cel_errors)
    ctx = component_context(submitted, platform, "update")
    spec_path = Path("spec")
    findings = validate_component(submitted.spec, spec_path, ctx)
    findings.extend(_compat(submitted, request))
    if submitted.spec.backend_framework != stored.spec.backend_framework:
        findings.warnings.append(BACKEND_FRAMEWORK_WARNING)
        findings.errors.append(
            invalid(
                spec_path.child("backendFramework"),
                submitted.spec.backend_framework or "",
                MSG_BACKEND_IMMUTABLE,
            )
        )
    findings.extend(validate_component_update(stored.spec, submitted.spec, spec_path, ctx))
    return submitted, findings


def _controlled_by_dgd(metadata: ObjectMeta) -> bool:
    """The controller ownerReference is a DynamoGraphDeployment of group nvidia.com."""
    refs = (metadata.model_extra or {}).get("ownerReferences")
    if not isinstance(refs, list):
        return False
    for ref in refs:
        if not isinstance(ref, dict) or ref.get("controller") is not True:
            continue
        group = str(ref.get("apiVersion", "")).split("/", 1)[0]
        return group == DYNAMO_API_GROUP and ref.get("kind") == DGD_KIND
    return False


# --- shared ---------------------------------------------------------------------------------------


def _unique(errors: list[FieldError]) -> list[FieldError]:
    """``ErrorList.ToAggregate``: the first of each identical message, in order."""
    seen: set[str] = set()
    unique: list[FieldError] = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.add(text)
            unique.append(error)
    return unique


def _is_deleting(metadata: ObjectMeta) -> bool:
    return bool((metadata.model_extra or {}).get("deletionTimestamp"))


def _kind_mismatch(old: AdmissionObject, new: AdmissionObject) -> FieldError:
    return invalid(Path("kind"), new.kind, f"cannot replace a {old.kind} with a {new.kind}")
