"""One pod spec as ``ValidatePodSpec`` judges it (the parts beyond the OpenAPI schema that a
rendered workload can break), and where the pod specs of a rendered object are.

Covered: volumes, containers and init containers (:mod:`.containers`), ``restartPolicy``,
``dnsPolicy``, ``nodeSelector``, ``tolerations``, ``affinity``, ``activeDeadlineSeconds``, the
``serviceAccountName``/``hostname``/``subdomain`` names, scheduling (:mod:`.scheduling`); and
what a workload controller's template must be (:func:`controller_template_errors`). A negative
``terminationGracePeriodSeconds`` is not refused: the API server accepts it (a pod created with
one is given 1 second).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, not_supported, required
from dynamo_pulumi.floor.kube_names import dns1123_label_problems, dns1123_subdomain_problems
from dynamo_pulumi.floor.placeholders import contains_output_token
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.containers import containers_errors
from dynamo_pulumi.validation.apiserver.enums import (
    DNS_POLICIES,
    RESTART_POLICIES,
    enum_errors,
    toleration_errors,
)
from dynamo_pulumi.validation.apiserver.scheduling import scheduling_errors
from dynamo_pulumi.validation.apiserver.selectors import (
    node_affinity_errors,
    node_selector_errors,
    pod_affinity_errors,
)
from dynamo_pulumi.validation.apiserver.volumes import volume_errors


def pod_spec_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    """The API server's semantic rules for one pod spec at ``path``."""
    names, errors = volume_errors(spec.get("volumes"), path.child("volumes"))
    volumes = None if _has_unknown_volume(spec.get("volumes")) else names
    errors += containers_errors(spec, volumes, path)
    errors += enum_errors(spec.get("restartPolicy"), path.child("restartPolicy"), RESTART_POLICIES)
    errors += enum_errors(spec.get("dnsPolicy"), path.child("dnsPolicy"), DNS_POLICIES)
    errors += dns_none_errors(spec, path)
    errors += node_selector_errors(spec.get("nodeSelector"), path.child("nodeSelector"))
    errors += toleration_errors(spec.get("tolerations"), path.child("tolerations"))
    errors += node_affinity_errors(spec.get("affinity"), path.child("affinity"))
    errors += pod_affinity_errors(mapping(spec.get("affinity")), path.child("affinity"))
    errors += _seconds_errors(spec, path)
    errors += _name_errors(spec, path)
    errors += scheduling_errors(spec, path)
    errors += host_network_port_errors(spec, path)
    return errors


def dns_none_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validatePodDNSConfig``'s first rule: ``dnsPolicy: None`` needs a ``dnsConfig`` with a
    nameserver. (The rest of the DNS config is not judged.)"""
    if spec.get("dnsPolicy") != "None":
        return []
    config = spec.get("dnsConfig")
    if config is None:
        return [required(path.child("dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None")]
    if isinstance(config, Mapping) and not items(config.get("nameservers")):
        return [required(path.child("dnsConfig", "nameservers"),
                         "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    return []


def host_network_port_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validatePodHostNetworkDeps`` for a pod template (not a pod): with ``hostNetwork``, a
    container port's ``hostPort`` is 0 (defaulted when the pod is made) or its ``containerPort``."""
    if spec.get("hostNetwork") is not True:
        return []
    errors: list[FieldError] = []
    for i, container in enumerate(items(spec.get("containers"))):
        for j, raw in enumerate(items(mapping(container).get("ports"))):
            port = mapping(raw)
            host, target = integer(port.get("hostPort")), integer(port.get("containerPort"))
            if host not in (None, 0) and target is not None and host != target:
                at = path.child("containers").index(i).child("ports").index(j).child("hostPort")
                errors.append(invalid(at, host, "must match `containerPort` when `hostNetwork` is true"))
    return errors


#: Names in a pod spec and the rule of each: ``ValidateServiceAccountName`` (a DNS-1123
#: subdomain), the pod's own ``hostname`` and ``subdomain`` (DNS-1123 labels).
_NAMES = (("serviceAccountName", dns1123_subdomain_problems), ("hostname", dns1123_label_problems),
          ("subdomain", dns1123_label_problems))


def _name_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    for key, problems in _NAMES:
        if (name := text(spec.get(key))):
            errors += [invalid(path.child(key), name, p) for p in problems(name)]
    return errors


def _has_unknown_volume(volumes: Any) -> bool:
    """A parked Output anywhere in the volumes (its name is not known yet)."""
    return any(isinstance(v, str) and contains_output_token(v) for v in items(volumes)) or any(
        isinstance(v, Mapping) and isinstance(v.get("name"), str) and contains_output_token(v["name"])
        for v in items(volumes)
    )


def _seconds_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    deadline = integer(spec.get("activeDeadlineSeconds"))
    if deadline is not None and deadline <= 0:
        errors.append(invalid(path.child("activeDeadlineSeconds"), deadline, "must be between 1 and 2147483647, inclusive"))
    return errors


#: The controller whose pods each workload kind's templates become, as the API server names it in
#: ``ValidatePodTemplateSpecForReplicaSet`` / ``...ForStatefulSet`` (a LeaderWorkerSet's leader and
#: worker templates become StatefulSets).
TEMPLATE_CONTROLLERS = {("apps/v1", "Deployment"): "ReplicaSet",
                        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): "StatefulSet"}


def controller_template_errors(spec: Mapping[str, Any], path: Path, controller: str) -> list[FieldError]:
    """A ReplicaSet's or StatefulSet's pod template: ``restartPolicy`` Always (an empty one is
    defaulted to it), no ``activeDeadlineSeconds``."""
    errors: list[FieldError] = []
    policy = spec.get("restartPolicy")
    if isinstance(policy, str) and policy not in ("", "Always"):
        errors.append(not_supported(path.child("restartPolicy"), policy, ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        errors.append(forbidden(path.child("activeDeadlineSeconds"), f"activeDeadlineSeconds in {controller} is not Supported"))
    return errors


def pod_specs(obj: Any, path: Path | None = None) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every pod spec inside a rendered object (a mapping with a ``containers`` list), with its
    path: a Deployment's ``spec.template.spec``, a LeaderWorkerSet's leader and worker templates,
    each PodClique template of a PodCliqueSet."""
    here = path if path is not None else Path()
    if isinstance(obj, Mapping):
        if isinstance(obj.get("containers"), list):
            yield here, obj
            return
        for key, value in obj.items():
            if key not in ("metadata", "status"):
                yield from pod_specs(value, here.child(str(key)))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from pod_specs(value, here.index(i))
