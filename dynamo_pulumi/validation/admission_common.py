"""What CREATE and UPDATE admission share: the request, the validation contexts, and the stages.

The stages the API server runs before the validating webhook (the CRD schema of the embedded
core/v1 types, then CEL) and the webhook's stateless pass over a DGD and the v1alpha1
compatibility pass (rule 47) are the same on create and update; only the CEL rules differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dynamo_pulumi.api.kinds import API_VERSION, DCD_KIND, DGD_KIND
from dynamo_pulumi.api.pod_schema import object_errors
from dynamo_pulumi.errors import FieldError, Findings
from dynamo_pulumi.floor.constants import DYNAMO_API_GROUP, KUBE_ANNOTATION_WORKLOAD_PROVIDER
from dynamo_pulumi.floor.constants import DYNAMO_API_VERSION_V1ALPHA1 as ALPHA_API_VERSION
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.graph import grove_pathway, validate_graph_spec
from dynamo_pulumi.validation.metadata import validate_graph_metadata

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        DynamoComponentDeployment,
        DynamoGraphDeployment,
        DynamoGraphDeploymentScalingAdapter,
        ObjectMeta,
    )
    from dynamo_pulumi.platform import Platform

    AdmissionObject = DynamoGraphDeployment | DynamoComponentDeployment | DynamoGraphDeploymentScalingAdapter



@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class Request:
    """What admission needs to know about the request beyond the objects."""

    source_api_version: str = API_VERSION
    namespace: str | None = None
    #: A converted v1alpha1 object whose alpha CRD schema, CEL rules and compatibility pass ran
    #: on its alpha form when it was loaded: only defaulting and the webhook's rules are left.
    alpha_checked: bool = False

    @property
    def beta_cel(self) -> bool:
        """The request was sent in v1beta1, so the v1beta1 CRD's CEL rules apply."""
        return self.source_api_version == API_VERSION

    @property
    def alpha_source(self) -> bool:
        return self.source_api_version == ALPHA_API_VERSION


# --- contexts -------------------------------------------------------------------------------------


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


# --- stages ---------------------------------------------------------------------------------------


def rejected_before_webhook(
    obj: AdmissionObject, request: Request, cel_errors: Callable[[], list[FieldError]]
) -> Findings | None:
    """The API server's own stages: the CRD schema, then (only if it passes) the CEL rules.

    The first that fails rejects the request with its errors before a validating webhook sees
    it; ``None`` when both pass.
    """
    errors = schema_errors(obj, request) or cel_errors()
    return Findings(errors=errors) if errors else None


def schema_errors(obj: AdmissionObject, request: Request) -> list[FieldError]:
    """The v1beta1 CRD schema of the embedded core/v1 types and of the EPP config, for a request
    sent in v1beta1.

    The models enforce the rest of the schema when they are built. A v1alpha1 request meets
    the alpha CRD's schema instead, at alpha paths, when it is loaded
    (:func:`dynamo_pulumi.api.conversion.parse_alpha`); its conversion is not schema-checked.
    """
    if not request.beta_cel:
        return []
    from dynamo_pulumi.api.epp_schema import object_epp_errors  # late: most graphs have no EPP config

    return [*object_errors(obj), *object_epp_errors(obj)]


def graph_stateless(dgd: DynamoGraphDeployment, ctx: ValidationContext, request: Request) -> Findings:
    """The webhook's ``Validate``: metadata, spec, then the compatibility pass over alpha data."""
    findings = Findings(errors=validate_graph_metadata(dgd))
    findings.extend(validate_graph_spec(dgd, ctx))
    findings.extend(compat(dgd, request))
    return findings


def compat(obj: AdmissionObject, request: Request) -> Findings:
    """Rule 47 over the alpha-only data ``obj`` carries (api-and-validation.md 4.6)."""
    from dynamo_pulumi.api.preservation import has_preserved_spec

    if request.alpha_checked or not has_preserved_spec(obj):
        return Findings()  # nothing to check, and the alpha models need not be built
    # late: alpha imports this module
    from dynamo_pulumi.validation.alpha import preserved_compat_findings

    return preserved_compat_findings(obj, request.namespace, alpha_source=request.alpha_source)
