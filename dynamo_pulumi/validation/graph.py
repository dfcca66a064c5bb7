"""DGD spec rules (api-and-validation.md 4.3, rules 15-24), run after defaulting and CEL.

Per component the DGD webhook checks the graph-level constraints first (Grove name budget,
inter-pod GMS requirements, the power annotation) and then the shared component rules of
:mod:`dynamo_pulumi.validation.component`; graph-wide rules (restart order, topology, KV-transfer
policy, LPX composition) follow the component loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.errors import FieldError, Findings, Path, forbidden, invalid, not_supported, required
from dynamo_pulumi.floor.constants import (
    BACKEND_FRAMEWORK_VLLM,
    KUBE_ANNOTATION_ENABLE_GROVE,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    KUBE_LABEL_VALUE_FALSE,
    MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH,
    WORKLOAD_PROVIDER_COMPONENT,
    WORKLOAD_PROVIDER_GROVE,
)
from dynamo_pulumi.model.pcs_naming import combined_name_length, longest_pod_clique_name, pcs_name_for_dgd
from dynamo_pulumi.validation.component import validate_component
from dynamo_pulumi.validation.component_common import COMPONENT_TYPE_LPX, GMS_MODE_INTER_POD
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.power import validate_power
from dynamo_pulumi.validation.provider_override import validate_root_provider_override
from dynamo_pulumi.validation.topology import (
    TopologyOptions,
    validate_kv_transfer_topology,
    validate_topology,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment, Restart
    from dynamo_pulumi.platform import Platform

RESTART_STRATEGY_PARALLEL = "Parallel"
UNSET_VALUE = "<unset>"
MSG_LPX_TOPOLOGY = "LPX does not support Grove topologyConstraint"
MSG_LPX_KV_TRANSFER = "is not supported when an LPX component is selected"


def grove_pathway(dgd: DynamoGraphDeployment, platform: Platform) -> tuple[bool, str]:
    """Whether the DGD is on the Grove pathway, and the reason given when it is not.

    A durable ``nvidia.com/workload-provider`` selection wins over the operator configuration
    and the ``nvidia.com/enable-grove`` opt-out.
    """
    annotations = dgd.annotations
    provider = annotations.get(KUBE_ANNOTATION_WORKLOAD_PROVIDER)
    if provider is not None:
        if provider == WORKLOAD_PROVIDER_GROVE:
            return True, ""
        if provider == WORKLOAD_PROVIDER_COMPONENT:
            return False, f'requires the Grove pathway, but workload provider "{provider}" is selected'
        return False, (
            f'requires the Grove pathway, but annotation "{KUBE_ANNOTATION_WORKLOAD_PROVIDER}" has '
            f'unsupported value "{provider}"'
        )
    if not platform.grove_enabled:
        return False, "requires the Grove pathway, but Grove is disabled in the operator configuration"
    opt_out = annotations.get(KUBE_ANNOTATION_ENABLE_GROVE, "")
    if opt_out.lower() == KUBE_LABEL_VALUE_FALSE:
        return False, (
            f'requires the Grove pathway; remove or unset annotation "{KUBE_ANNOTATION_ENABLE_GROVE}" '
            f'(currently "{opt_out}")'
        )
    return True, ""


def validate_graph_spec(dgd: DynamoGraphDeployment, ctx: ValidationContext) -> Findings:
    """Rules 15-24 plus the shared rules of every component."""
    reason = ctx.grove_pathway_reason
    findings = Findings()
    spec = dgd.spec
    spec_path = Path("spec")
    if spec.provider_override is not None:
        findings.errors += validate_root_provider_override(
            spec.provider_override, spec_path.child("providerOverride"), ctx
        )
    if spec.priority_class_name and not ctx.grove_pathway:
        findings.errors.append(forbidden(spec_path.child("priorityClassName"), reason))
    if not dgd.components:
        findings.errors.append(required(spec_path.child("components"), "must have at least one component"))
    pcs = pcs_name_for_dgd(dgd) if ctx.grove_pathway else ""
    for i, comp in enumerate(dgd.components):
        path = spec_path.child("components").index(i)
        if ctx.grove_pathway:
            findings.errors += name_length_errors(dgd, pcs, i)
        findings.errors += _inter_pod_gms_errors(dgd, i, ctx)
        findings.errors += validate_power(comp, path)
        findings.extend(validate_component(comp, path, ctx))
    if spec.restart is not None:
        findings.errors += restart_order_errors(spec.restart, dgd)
    findings.errors += _topology_errors(dgd, ctx)
    return findings


def name_length_errors(dgd: DynamoGraphDeployment, pcs: str, index: int) -> list[FieldError]:
    """Rule 17: Grove pod names must fit; the PCS name already absorbed what truncation can."""
    comp = dgd.components[index]
    length = combined_name_length(pcs, comp)
    detail = "PCS name + component name"
    if comp.uses_pcsg:
        detail = f'PCS name + PCSG name + longest PodClique name "{longest_pod_clique_name(comp)}"'
    if length <= MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH:
        return []
    message = (
        f"combined resource name length {length} exceeds the {MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH}-character "
        f'pod-name limit ({detail}); shorten DynamoGraphDeployment name "{dgd.name}" or component name "{comp.name}"'
    )
    return [invalid(Path("spec", "components").index(index).child("name"), comp.name, message)]


def _inter_pod_gms_errors(dgd: DynamoGraphDeployment, index: int, ctx: ValidationContext) -> list[FieldError]:
    """Rule 18: the inter-pod GMS layout needs the Grove pathway and vLLM."""
    gms = dgd.components[index].gms
    if gms is None or gms.effective_mode != GMS_MODE_INTER_POD:
        return []
    path = Path("spec", "components").index(index).child("experimental", "gpuMemoryService", "mode")
    errors: list[FieldError] = []
    if not ctx.grove_pathway:
        errors.append(forbidden(path, ctx.grove_pathway_reason))
    backend = dgd.spec.backend_framework
    if backend != BACKEND_FRAMEWORK_VLLM:
        detected = backend or UNSET_VALUE
        errors.append(
            invalid(
                path,
                gms.mode,
                f"the inter-pod GMS layout is currently supported only for vLLM (detected backend: {detected})",
            )
        )
    return errors


def restart_order_errors(restart: Restart, dgd: DynamoGraphDeployment) -> list[FieldError]:
    """Rule 21: a sequential restart order names every component exactly once."""
    strategy = restart.strategy
    if strategy is None or not strategy.order:
        return []
    order = strategy.order
    path = Path("spec", "restart", "strategy", "order")
    if strategy.type == RESTART_STRATEGY_PARALLEL:
        return [forbidden(path, "cannot be specified when strategy is parallel")]
    names = {c.name for c in dgd.components}
    errors: list[FieldError] = []
    unique = set(order)
    if len(unique) != len(order):
        errors.append(invalid(path, order, "must be unique"))
    if len(unique) != len(names):
        errors.append(
            invalid(path, order, "must have the same number of unique components as the deployment")
        )
    for i, name in enumerate(order):
        if name not in names:
            errors.append(not_supported(path.index(i), name, sorted(names)))
    return errors


def _topology_errors(dgd: DynamoGraphDeployment, ctx: ValidationContext) -> list[FieldError]:
    """Rules 22-24: LPX graphs reject both topology APIs; others validate them against bindings."""
    opts = TopologyOptions(
        workload_provider=ctx.workload_provider,
        grove_pathway=ctx.grove_pathway,
        grove_pathway_reason=ctx.grove_pathway_reason,
        check_bindings=ctx.is_create and (dgd.metadata.generation or 0) <= 1,
        bindings=ctx.platform.cluster.cluster_topologies,
    )
    experimental = dgd.spec.experimental
    policy = experimental.kv_transfer_policy if experimental is not None else None
    if any(c.type == COMPONENT_TYPE_LPX for c in dgd.components):
        return _lpx_graph_errors(dgd, ctx)
    errors = validate_topology(dgd, opts)
    if policy is not None:
        errors += validate_kv_transfer_topology(policy, opts)
    return errors


def _lpx_graph_errors(dgd: DynamoGraphDeployment, ctx: ValidationContext) -> list[FieldError]:
    """Rule 24: LPX composes only with Grove and without graph-wide topology or KV policy."""
    spec_path = Path("spec")
    errors: list[FieldError] = []
    if dgd.spec.topology_constraint is not None:
        errors.append(forbidden(spec_path.child("topologyConstraint"), MSG_LPX_TOPOLOGY))
    experimental = dgd.spec.experimental
    if experimental is not None and experimental.kv_transfer_policy is not None:
        errors.append(forbidden(spec_path.child("experimental", "kvTransferPolicy"), MSG_LPX_KV_TRANSFER))
    if not ctx.grove_pathway:
        errors.append(forbidden(spec_path.child("components"), ctx.grove_pathway_reason))
    return errors
