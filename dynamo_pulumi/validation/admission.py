"""Admission entry points and CREATE admission of one object.

:func:`admit` runs a request through the API server's stages; an update (``old`` given) is
handed to :mod:`.update_admission`. A create is defaulted, checked against the CRD schema and
CEL rules, then meets the validating webhook and the v1alpha1 compatibility pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import API_VERSION
from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.defaulting.webhooks import default_component_deployment, default_graph
from dynamo_pulumi.errors import FieldError, Findings, GraphValidationError, Path
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
    request = Request(source_api_version, namespace)
    stored_obj, findings = _admit(obj, platform or default_platform(), old, request, old_stored)
    return stored_obj, Findings(errors=_unique(findings.errors), warnings=findings.warnings)


def _admit(
    obj: AdmissionObject,
    platform: Platform,
    old: AdmissionObject | None,
    request: Request,
    old_stored: bool,
) -> tuple[Any, Findings]:
    if old is not None:
        from dynamo_pulumi.validation.update_admission import admit_update  # late: a create never loads it

        return admit_update(old, obj, platform, request, old_stored)
    if isinstance(obj, GraphHelpers):
        return _admit_graph_create(obj, platform, request)  # type: ignore[arg-type]
    if isinstance(obj, ComponentDeploymentHelpers):
        return _admit_component_create(obj, platform, request)
    # DynamoGraphDeploymentScalingAdapter: no CEL or webhook rules beyond its schema.
    return obj, Findings()


def _admit_graph_create(
    dgd: DynamoGraphDeployment, platform: Platform, request: Request
) -> tuple[DynamoGraphDeployment, Findings]:
    defaulted = default_graph(dgd, platform, "create")
    rejected = rejected_before_webhook(
        defaulted,
        request,
        lambda: validate_graph_cel(defaulted) if request.beta_cel else restart_on_create_errors(defaulted),
    )
    if rejected is not None:
        return defaulted, rejected
    return defaulted, graph_stateless(defaulted, graph_context(defaulted, platform, "create"), request)


def _admit_component_create(
    dcd: DynamoComponentDeployment, platform: Platform, request: Request
) -> tuple[DynamoComponentDeployment, Findings]:
    defaulted = default_component_deployment(dcd)
    rejected = rejected_before_webhook(
        defaulted, request, lambda: validate_component_deployment_cel(defaulted) if request.beta_cel else []
    )
    if rejected is not None:
        return defaulted, rejected
    ctx = component_context(defaulted, platform, "create")
    findings = validate_component(defaulted.spec, Path("spec"), ctx)
    findings.extend(compat(defaulted, request))
    return defaulted, findings


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
