"""Selectors: ``ValidateLabelSelector`` (``matchLabels`` and ``matchExpressions`` with their
operators), the pod's ``nodeSelector`` (``ValidateLabels``), and the node affinity terms
(``ValidateNodeSelector``, ``ValidateNodeSelectorRequirement``, ``ValidatePreferredSchedulingTerms``)
and pod (anti-)affinity terms' label selectors and topology keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, not_supported, required
from dynamo_pulumi.floor.kube_names import label_key_problems
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.object_meta import label_errors

SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_SELECTOR_OPERATORS = ("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")


def label_selector_errors(selector: Any, path: Path) -> list[FieldError]:
    """``ValidateLabelSelector``."""
    if not isinstance(selector, Mapping):
        return []
    errors = label_errors(selector.get("matchLabels"), path.child("matchLabels"))
    for i, raw in enumerate(items(selector.get("matchExpressions"))):
        errors += _selector_requirement_errors(mapping(raw), path.child("matchExpressions").index(i))
    return errors


def _selector_requirement_errors(requirement: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement``."""
    operator, values = text(requirement.get("operator")), items(requirement.get("values"))
    errors: list[FieldError] = []
    if operator in ("In", "NotIn") and not values:
        errors.append(required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist") and values:
        errors.append(forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif operator is not None and operator not in SELECTOR_OPERATORS:
        errors.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    key = text(requirement.get("key"))
    if key is not None:
        errors += [invalid(path.child("key"), key, p) for p in label_key_problems(key)]
    return errors


def node_selector_errors(node_selector: Any, path: Path) -> list[FieldError]:
    """The pod's ``nodeSelector``: a label map (``ValidateLabels``)."""
    return label_errors(node_selector, path)


def node_affinity_errors(affinity: Any, path: Path) -> list[FieldError]:
    """``validateNodeAffinity``: required terms (``ValidateNodeSelector``) and preferred ones."""
    node = mapping(mapping(affinity).get("nodeAffinity"))
    errors: list[FieldError] = []
    required_terms = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required_terms, Mapping):
        at = path.child("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
        terms = items(required_terms.get("nodeSelectorTerms"))
        if not terms:
            errors.append(required(at.child("nodeSelectorTerms"), "must have at least one node selector term"))
        for i, term in enumerate(terms):
            errors += _term_errors(mapping(term), at.child("nodeSelectorTerms").index(i))
    preferred_path = path.child("nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
    for i, raw in enumerate(items(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        errors += _preferred_errors(mapping(raw), preferred_path.index(i))
    return errors


def _preferred_errors(term: Mapping[str, Any], path: Path) -> list[FieldError]:
    weight = integer(term.get("weight"))
    errors: list[FieldError] = []
    if weight is not None and not 1 <= weight <= 100:
        errors.append(invalid(path.child("weight"), weight, "must be in the range 1-100"))
    return errors + _term_errors(mapping(term.get("preference")), path.child("preference"))


def _term_errors(term: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``ValidateNodeSelectorTerm``."""
    errors: list[FieldError] = []
    for i, raw in enumerate(items(term.get("matchExpressions"))):
        errors += _node_requirement_errors(mapping(raw), path.child("matchExpressions").index(i))
    for i, raw in enumerate(items(term.get("matchFields"))):
        at = path.child("matchFields").index(i)
        requirement = mapping(raw)
        errors += _node_operator_errors(requirement, at)
        key = text(requirement.get("key"))
        if key is not None and key != "metadata.name":
            errors.append(invalid(at.child("key"), key, "not a valid field selector key"))
    return errors


def _node_requirement_errors(requirement: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``: operator/values agreement, a qualified key (values are
    not label values there: any string a node label could be matched against)."""
    errors = _node_operator_errors(requirement, path)
    key = text(requirement.get("key"))
    if key is not None:
        errors += [invalid(path.child("key"), key, p) for p in label_key_problems(key)]
    return errors


def _node_operator_errors(requirement: Mapping[str, Any], path: Path) -> list[FieldError]:
    operator, values = text(requirement.get("operator")), items(requirement.get("values"))
    if operator in ("In", "NotIn") and not values:
        return [required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'")]
    if operator in ("Exists", "DoesNotExist") and values:
        return [forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")]
    if operator in ("Gt", "Lt") and len(values) != 1:
        return [required(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")]
    if operator is not None and operator not in NODE_SELECTOR_OPERATORS:
        return [not_supported(path.child("operator"), operator, NODE_SELECTOR_OPERATORS)]
    return []


def pod_affinity_errors(affinity: Any, path: Path) -> list[FieldError]:
    """``validatePodAffinity`` / ``validatePodAntiAffinity``: each term's label selector and a
    non-empty qualified ``topologyKey``."""
    errors: list[FieldError] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        block = mapping(mapping(affinity).get(kind))
        at = path.child(kind)
        for i, raw in enumerate(items(block.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            errors += _pod_term_errors(mapping(raw), at.child("requiredDuringSchedulingIgnoredDuringExecution").index(i))
        for i, raw in enumerate(items(block.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            weighted, wat = mapping(raw), at.child("preferredDuringSchedulingIgnoredDuringExecution").index(i)
            weight = integer(weighted.get("weight"))
            if weight is not None and not 1 <= weight <= 100:
                errors.append(invalid(wat.child("weight"), weight, "must be in the range 1-100"))
            errors += _pod_term_errors(mapping(weighted.get("podAffinityTerm")), wat.child("podAffinityTerm"))
    return errors


def _pod_term_errors(term: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors = label_selector_errors(term.get("labelSelector"), path.child("labelSelector"))
    errors += label_selector_errors(term.get("namespaceSelector"), path.child("namespaceSelector"))
    key = term.get("topologyKey")
    if key is None or key == "":
        errors.append(required(path.child("topologyKey"), "can not be empty"))
    elif (known := text(key)) is not None:
        errors += [invalid(path.child("topologyKey"), known, p) for p in label_key_problems(known)]
    return errors
