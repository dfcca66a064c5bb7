"""Rules 22 and 23: typed topology placement and the KV-transfer topology policy.

The operator checks domains against the Grove ``ClusterTopologyBinding`` it reads from the live
cluster, and only on create (``metadata.generation <= 1``) on the Grove pathway. Offline, the
bindings are stated in ``platform.cluster.cluster_topologies`` (name -> level domains, broad to
narrow); a binding missing from that map is reported exactly as a NotFound would be.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from dynamo_pulumi.defaulting.webhooks import (
    SCOPE_COMPONENT,
    SCOPE_ROLES_LEADER,
    SCOPE_ROLES_WORKER,
    SCOPE_ROOT,
    TARGET_POD_CLIQUE_SET,
    expected_target,
    role_scope,
)
from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.constants import ROLE_LEADER, ROLE_WORKER, WORKLOAD_PROVIDER_GROVE
from dynamo_pulumi.floor.records import record

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        DynamoGraphDeployment,
        KvTransferPolicy,
        ProviderOverride,
        SpecTopologyConstraint,
    )

MSG_BINDING_NOT_FOUND = "references a ClusterTopologyBinding resource that was not found"
MSG_TYPED_VS_OVERRIDE = (
    "cannot be combined with spec.topologyConstraint or components[].topologyConstraint; use either the "
    "typed topology API or provider-native Grove topology overrides"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class TopologyInfo:
    """A ClusterTopologyBinding's levels: position of each domain (broad = 0) and sorted names."""

    name: str
    index: Mapping[str, int]

    @classmethod
    def of(cls, name: str, levels: Sequence[str]) -> TopologyInfo:
        return cls(name, {domain: i for i, domain in enumerate(levels)})

    @property
    def domains(self) -> str:
        """Go's ``%v`` of the sorted domain list: ``[a b c]``."""
        return "[" + " ".join(sorted(self.index)) + "]"


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class TopologyOptions:
    """What the rules need to know about the request."""

    workload_provider: str | None
    grove_pathway: bool
    grove_pathway_reason: str
    #: Read bindings (create on the Grove pathway only).
    check_bindings: bool
    bindings: Mapping[str, Sequence[str]]


# --- rule 22 ------------------------------------------------------------------------------------


def validate_topology(dgd: DynamoGraphDeployment, opts: TopologyOptions) -> list[FieldError]:
    """Typed topology: composition with provider overrides, required parts, binding domains."""
    spec = dgd.spec
    has_component_constraint = any(c.topology_constraint is not None for c in dgd.components)
    if spec.topology_constraint is None and not has_component_constraint:
        return []
    errors = _override_composition_errors(dgd, opts.workload_provider)
    constraint_path = Path("spec", "topologyConstraint")
    constraint = spec.topology_constraint
    if constraint is None:
        errors.append(required(constraint_path, "is required when any component topology constraint is set"))
        return errors
    if not constraint.pack_domain and not has_component_constraint:
        errors.append(
            required(
                constraint_path.child("packDomain"), "is required when no component topologyConstraint is set"
            )
        )
    info: TopologyInfo | None = None
    if opts.check_bindings and opts.grove_pathway:
        info, binding_errors = _read_binding(
            constraint.cluster_topology_name, constraint_path.child("clusterTopologyName"), opts.bindings
        )
        errors += binding_errors
    if info is not None:
        errors += _spec_domain_errors(constraint, constraint_path, info)
        errors += _component_domain_errors(dgd, constraint, info)
    return errors


def _read_binding(
    name: str, path: Path, bindings: Mapping[str, Sequence[str]]
) -> tuple[TopologyInfo | None, list[FieldError]]:
    if name not in bindings:
        return None, [invalid(path, name, MSG_BINDING_NOT_FOUND)]
    return TopologyInfo.of(name, bindings[name]), []


def _spec_domain_errors(
    constraint: SpecTopologyConstraint, path: Path, info: TopologyInfo
) -> list[FieldError]:
    domain = constraint.pack_domain
    if not domain or domain in info.index:
        return []
    return [
        invalid(
            path.child("packDomain"),
            domain,
            f'does not exist in ClusterTopologyBinding "{info.name}"; available domains: {info.domains}',
        )
    ]


def _component_domain_errors(
    dgd: DynamoGraphDeployment, spec_constraint: SpecTopologyConstraint, info: TopologyInfo
) -> list[FieldError]:
    """Each component domain must exist and be equal to or narrower than the deployment's."""
    errors: list[FieldError] = []
    spec_index = info.index.get(spec_constraint.pack_domain or "")
    for i, comp in enumerate(dgd.components):
        if comp.topology_constraint is None:
            continue
        path = Path("spec", "components").index(i).child("topologyConstraint", "packDomain")
        domain = comp.topology_constraint.pack_domain
        index = info.index.get(domain)
        if index is None:
            errors.append(
                invalid(
                    path,
                    domain,
                    f'does not exist in ClusterTopology "{info.name}"; available domains: {info.domains}',
                )
            )
        elif spec_index is not None and index < spec_index:
            errors.append(
                invalid(
                    path,
                    domain,
                    f'must be equal to or narrower than the deployment-level domain "{spec_constraint.pack_domain}"',
                )
            )
    return errors


def _override_composition_errors(dgd: DynamoGraphDeployment, provider: str | None) -> list[FieldError]:
    """Typed topology and Grove overrides that write ``topologyConstraint`` exclude each other."""
    if provider != WORKLOAD_PROVIDER_GROVE:
        return []
    errors: list[FieldError] = []
    spec_path = Path("spec")
    if _writes_topology(dgd.spec.provider_override, provider, SCOPE_ROOT, None):
        errors.append(forbidden(spec_path.child("providerOverride", "value"), MSG_TYPED_VS_OVERRIDE))
    for i, comp in enumerate(dgd.components):
        path = spec_path.child("components").index(i)
        if _writes_topology(comp.provider_override, provider, SCOPE_COMPONENT, comp):
            errors.append(forbidden(path.child("providerOverride", "value"), MSG_TYPED_VS_OVERRIDE))
        for j, role in enumerate(comp.roles or []):
            scope = role_scope(role.name)
            if scope is not None and _writes_topology(role.provider_override, provider, scope, comp):
                errors.append(
                    forbidden(
                        path.child("roles").index(j).child("providerOverride", "value"), MSG_TYPED_VS_OVERRIDE
                    )
                )
        for role_name, scope in ((ROLE_LEADER, SCOPE_ROLES_LEADER), (ROLE_WORKER, SCOPE_ROLES_WORKER)):
            # The snapshot spelling of a role override, ``multinode.<role>.providerOverride``.
            spec = getattr(comp.multinode, role_name, None) if comp.multinode is not None else None
            po = spec.provider_override if spec is not None else None
            if _writes_topology(po, provider, scope, comp):
                errors.append(
                    forbidden(
                        path.child("multinode", role_name, "providerOverride", "value"), MSG_TYPED_VS_OVERRIDE
                    )
                )
    return errors


def _writes_topology(
    po: ProviderOverride | None, provider: str, scope: str, comp: ComponentSpecFields | None
) -> bool:
    """Whether a registered Grove override value carries a ``topologyConstraint`` subtree."""
    if po is None:
        return False
    target = po.target
    if not target:
        target, _reason = expected_target(provider, po.api_version, scope, comp)
        if target is None:
            return False
    value = po.value
    if target == TARGET_POD_CLIQUE_SET:
        spec = value.get("spec")
        template = spec.get("template") if isinstance(spec, dict) else None
        return isinstance(template, dict) and "topologyConstraint" in template
    return "topologyConstraint" in value


# --- rule 23 ------------------------------------------------------------------------------------


def validate_kv_transfer_topology(policy: KvTransferPolicy, opts: TopologyOptions) -> list[FieldError]:
    """``clusterTopologyName``: DNS-1123 subdomain, Grove pathway, binding with ``domain`` on create."""
    name = policy.cluster_topology_name
    if not name:
        return []
    path = Path("spec", "experimental", "kvTransferPolicy")
    name_path = path.child("clusterTopologyName")
    errors: list[FieldError] = []
    subdomain_errors = dns1123_subdomain_errors(name)
    if subdomain_errors:
        errors.append(invalid(name_path, name, "; ".join(subdomain_errors)))
    if not opts.grove_pathway:
        errors.append(forbidden(name_path, opts.grove_pathway_reason))
    if errors or not opts.check_bindings:
        return errors
    info, binding_errors = _read_binding(name, name_path, opts.bindings)
    if info is None:
        return binding_errors
    if policy.domain not in info.index:
        errors.append(
            invalid(
                path.child("domain"),
                policy.domain,
                f'does not exist in ClusterTopologyBinding "{info.name}"; available domains: {info.domains}',
            )
        )
    return errors


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``'s messages."""
    errors: list[str] = []
    if len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} characters")
    if not _DNS1123_SUBDOMAIN.match(value):
        errors.append(_DNS1123_SUBDOMAIN_MSG)
    return errors
