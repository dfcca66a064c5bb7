"""Where a pod may run: ``validateTopologySpreadConstraints``, ``ValidatePreemptionPolicy``, and the
names ``ValidatePodSpec`` gives the scheduler (``priorityClassName``, ``nodeName``, both DNS-1123
subdomains).

Topology spread constraints: ``maxSkew`` and ``minDomains`` positive, ``minDomains`` only with
``DoNotSchedule``, a ``topologyKey``, a known ``whenUnsatisfiable`` and node inclusion policies,
one constraint per (topologyKey, whenUnsatisfiable), and a valid ``labelSelector``. Not judged:
``matchLabelKeys`` (its rules depend on feature gates and on the label selector's keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, duplicate, invalid, not_supported, required
from dynamo_pulumi.floor.kube_names import dns1123_subdomain_problems
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.selectors import label_selector_errors

#: ``supportedScheduleActions`` and ``supportedPodTopologySpreadNodePolicies``, sorted as the API
#: server lists them.
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
#: ``ValidatePreemptionPolicy``'s values, in its order.
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
POSITIVE_MESSAGE = "must be greater than zero"


def scheduling_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    """The scheduling rules of one pod spec at ``path``."""
    errors = topology_spread_errors(spec.get("topologySpreadConstraints"), path.child("topologySpreadConstraints"))
    errors += preemption_policy_errors(spec.get("preemptionPolicy"), path.child("preemptionPolicy"))
    for key in ("priorityClassName", "nodeName"):
        if (name := text(spec.get(key))):
            errors += [invalid(path.child(key), name, p) for p in dns1123_subdomain_problems(name)]
    return errors


def preemption_policy_errors(policy: Any, path: Path) -> list[FieldError]:
    """An empty value is not defaulted (only an absent one is): it is Required."""
    if policy is None or text(policy) is None:
        return []
    if policy == "":
        return [required(path)]
    return [] if policy in PREEMPTION_POLICIES else [not_supported(path, policy, PREEMPTION_POLICIES)]


def topology_spread_errors(constraints: Any, path: Path) -> list[FieldError]:
    """``validateTopologySpreadConstraints``."""
    listed = [mapping(c) for c in items(constraints)]
    errors: list[FieldError] = []
    for i, constraint in enumerate(listed):
        at = path.index(i)
        skew = integer(constraint.get("maxSkew"))
        if skew is not None and skew <= 0:
            errors.append(invalid(at.child("maxSkew"), skew, POSITIVE_MESSAGE))
        key, action = constraint.get("topologyKey"), constraint.get("whenUnsatisfiable")
        if key is None or key == "":
            errors.append(required(at.child("topologyKey"), "can not be empty"))
        if isinstance(action, str) and text(action) is not None and action not in WHEN_UNSATISFIABLE:
            errors.append(not_supported(at.child("whenUnsatisfiable"), action, WHEN_UNSATISFIABLE))
        if any(key == later.get("topologyKey") and action == later.get("whenUnsatisfiable") for later in listed[i + 1:]):
            errors.append(duplicate(at.child("{topologyKey, whenUnsatisfiable}"), f"{{{key}, {action}}}"))
        errors += _min_domains_errors(constraint.get("minDomains"), action, at.child("minDomains"))
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = text(constraint.get(policy))
            if value is not None and value not in NODE_INCLUSION_POLICIES:
                errors.append(not_supported(at.child(policy), value, NODE_INCLUSION_POLICIES))
        errors += label_selector_errors(constraint.get("labelSelector"), at.child("labelSelector"))
    return errors


def _min_domains_errors(min_domains: Any, action: Any, path: Path) -> list[FieldError]:
    value = integer(min_domains)
    if value is None:
        return []
    errors = [invalid(path, value, POSITIVE_MESSAGE)] if value <= 0 else []
    if action != "DoNotSchedule":
        errors.append(invalid(path, value, f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
    return errors
