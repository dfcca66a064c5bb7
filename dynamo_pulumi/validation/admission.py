"""Admission entry points and the one pipeline every object goes through.

:func:`admit` runs a request through the API server's stages, once per object: it is defaulted
once, checked against the CRD schema and CEL rules, then meets the validating webhook over one
context and the v1alpha1 compatibility pass. An update (``old`` given) runs the same pipeline;
what it needs from ``old`` (the stored object, the transition rules) comes from
:mod:`.update_admission`, which a create never loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import API_VERSION
from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.defaulting.webhooks import default_component_deployment, default_graph
from dynamo_pulumi.errors import FieldError, Findings, GraphValidationError, Path
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.model.platform_file import default_platform
from dynamo_pulumi.validation.admission_common import (
    Request,
    compat,
    component_context,
    graph_context,
    graph_stateless,
    rejected_before_webhook,
)
from dynamo_pulumi.validation.cel import (
    restart_on_create_errors,
    validate_component_deployment_cel,
    validate_graph_cel,
)
from dynamo_pulumi.validation.component import validate_component

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.validation.admission_common import AdmissionObject
    from dynamo_pulumi.validation.update_admission import Prior


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
    alpha_checked: bool = False,
) -> tuple[Any, Findings]:
    """The object as stored after defaulting, and what admission found.

    ``alpha_checked``: ``obj`` is a converted v1alpha1 object whose alpha CRD schema, CEL rules
    and compatibility pass already ran on its alpha form when it was loaded, so only defaulting
    and the validating webhook's rules run here.
    """
    request = Request(source_api_version, namespace, alpha_checked)
    admitted = _admit(obj, platform or default_platform(), old, request, old_stored)
    return admitted.stored, admitted.findings


@record(eq=False, repr=False)  # a result read field by field, never compared
class Admitted:
    """One admission: the object as stored, what was found, and for an update ``old`` as create
    admission stores it when that is what the update started from (else None)."""

    stored: Any
    findings: Findings
    old_created: Any = None


def admit_update(
    old: AdmissionObject,
    new: AdmissionObject,
    platform: Platform | None = None,
    *,
    source_api_version: str = API_VERSION,
    namespace: str | None = None,
) -> Admitted:
    """UPDATE admission of ``new`` replacing ``old`` (as applied before), keeping ``old`` as
    defaulted for the caller's next question about it (the replacement trigger's identity)."""
    return _admit(new, platform or default_platform(), old, Request(source_api_version, namespace), False)


def _admit(
    obj: AdmissionObject,
    platform: Platform,
    old: AdmissionObject | None,
    request: Request,
    old_stored: bool,
) -> Admitted:
    """One pipeline per object, create or update: default once, the API server's stages, then the
    webhook's rules over one context; an update adds its transition rules against ``old``.
    Identical errors are reported once, as the API server's aggregated message shows them."""
    prior = None
    if old is not None:
        from dynamo_pulumi.validation.update_admission import prior_object  # late: a create never loads it

        prior = prior_object(old, obj, platform, old_stored)
        if isinstance(prior, Findings):
            return Admitted(obj, prior)
    stored, findings = _admit_object(obj, platform, request, prior)
    unique = Findings(errors=_unique(findings.errors), warnings=findings.warnings)
    return Admitted(stored, unique, prior.created if prior is not None else None)


def _admit_object(obj: AdmissionObject, platform: Platform, request: Request, prior: Prior | None) -> tuple[Any, Findings]:
    if isinstance(obj, GraphHelpers):
        return _admit_graph(obj, platform, request, prior)  # type: ignore[arg-type]
    if isinstance(obj, ComponentDeploymentHelpers):
        return _admit_component(obj, platform, request, prior)  # type: ignore[arg-type]
    # DynamoGraphDeploymentScalingAdapter: no CEL or webhook rules beyond its schema.
    return obj, Findings()


def _admit_graph(
    dgd: DynamoGraphDeployment, platform: Platform, request: Request, prior: Prior | None
) -> tuple[DynamoGraphDeployment, Findings]:
    operation = "create" if prior is None else "update"
    defaulted = default_graph(dgd if prior is None else prior.submitted(dgd), platform, operation)
    rejected = _rejected_before_webhook(defaulted, request, prior)
    if rejected is not None:
        return defaulted, rejected
    ctx = graph_context(defaulted, platform, operation)
    findings = graph_stateless(defaulted, ctx, request)
    if prior is None:
        return defaulted, findings
    return defaulted, prior.graph_findings(defaulted, ctx, findings)


def _admit_component(
    dcd: DynamoComponentDeployment, platform: Platform, request: Request, prior: Prior | None
) -> tuple[DynamoComponentDeployment, Findings]:
    """A create is defaulted; an update is judged as sent (the stored ``spec.name`` carried)."""
    operation = "create" if prior is None else "update"
    submitted = default_component_deployment(dcd) if prior is None else prior.submitted(dcd)
    rejected = _rejected_before_webhook(submitted, request, prior)
    if rejected is not None:
        return submitted, rejected
    ctx = component_context(submitted, platform, operation)
    findings = validate_component(submitted.spec, Path("spec"), ctx)
    findings.extend(compat(submitted, request))
    if prior is not None:
        findings.extend(prior.component_findings(submitted, ctx))
    return submitted, findings


def _rejected_before_webhook(obj: AdmissionObject, request: Request, prior: Prior | None) -> Findings | None:
    """The API server's stages before the webhook: the schema, then the create or transition CEL
    rules of the request's version (none left for an alpha object checked when loaded)."""
    if request.alpha_checked:
        return None
    if prior is not None:
        return prior.rejected_before_webhook(obj, request)
    return rejected_before_webhook(obj, request, lambda: _create_cel(obj, request))


def _create_cel(obj: AdmissionObject, request: Request) -> list[FieldError]:
    """v1beta1's CEL rules; for a v1alpha1 request only the create-time restart rule both CRDs share."""
    if isinstance(obj, GraphHelpers):
        return validate_graph_cel(obj) if request.beta_cel else restart_on_create_errors(obj)  # type: ignore[arg-type]
    return validate_component_deployment_cel(obj) if request.beta_cel else []  # type: ignore[arg-type]


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
