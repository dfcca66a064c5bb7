"""Kubernetes name and label syntax, as ``k8s.io/apimachinery/pkg/util/validation`` checks it.

One place for the regexes and limits the API server applies to object names, namespaces and
labels, so the renderer's post-render check (:mod:`dynamo_pulumi.render.name_checks`) and the
``--namespace`` check of ``render_graph`` and the CLIs say the same thing. Each ``*_problems``
function returns the API server's messages for one value (empty when the value is valid).
"""

from __future__ import annotations

import re

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.constants import DNS1123_LABEL_MAX_LENGTH, LABEL_VALUE_MAX_LENGTH

#: ``IsDNS1123Label``: lower-case alphanumerics and '-', alphanumeric at both ends.
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#: ``IsDNS1123Subdomain``: dot-separated DNS-1123 labels.
DNS1123_SUBDOMAIN_FMT = rf"{DNS1123_LABEL_FMT}(\.{DNS1123_LABEL_FMT})*"
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
#: ``IsDNS1035Label`` (Service names): like a DNS-1123 label but starting with a letter.
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_MAX_LENGTH = 63
#: ``IsValidLabelValue``: empty, or alphanumerics, '-', '_', '.', alphanumeric at both ends.
LABEL_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
#: ``IsQualifiedName``: the name part of a label key (after an optional ``<subdomain>/``).
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_MAX_LENGTH = 63
#: ``IsValidPathSegmentName`` (RBAC object names): no '/' or '%', not '.' or '..'.
PATH_SEGMENT_FORBIDDEN = ("/", "%")

_DNS1123_LABEL = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL = re.compile(DNS1035_LABEL_FMT)
_LABEL_VALUE = re.compile(LABEL_VALUE_FMT)
_QUALIFIED_NAME = re.compile(QUALIFIED_NAME_FMT)

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    f"start and end with an alphanumeric character (regex used for validation is '{DNS1123_LABEL_FMT}')"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    f"must start and end with an alphanumeric character (regex used for validation is '{DNS1123_SUBDOMAIN_FMT}')"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    f"alphabetic character, and end with an alphanumeric character (regex used for validation is '{DNS1035_LABEL_FMT}')"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    f"must start and end with an alphanumeric character (regex used for validation is '{LABEL_VALUE_FMT}')"
)
_QUALIFIED_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    f"alphanumeric character (regex used for validation is '{QUALIFIED_NAME_FMT}')"
)


def _too_long(limit: int) -> str:
    return f"must be no more than {limit} characters"


def _problems(value: str, pattern: re.Pattern[str], message: str, limit: int) -> list[str]:
    problems = [_too_long(limit)] if len(value) > limit else []
    if pattern.fullmatch(value) is None:
        problems.append(message)
    return problems


def dns1123_label_problems(value: str) -> list[str]:
    """``IsDNS1123Label`` (namespaces, hostnames)."""
    return _problems(value, _DNS1123_LABEL, _DNS1123_LABEL_MSG, DNS1123_LABEL_MAX_LENGTH)


def dns1123_subdomain_problems(value: str) -> list[str]:
    """``IsDNS1123Subdomain`` (most object names, label key prefixes)."""
    return _problems(value, _DNS1123_SUBDOMAIN, _DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_MAX_LENGTH)


def dns1035_label_problems(value: str) -> list[str]:
    """``IsDNS1035Label`` (Service names)."""
    return _problems(value, _DNS1035_LABEL, _DNS1035_LABEL_MSG, DNS1035_LABEL_MAX_LENGTH)


def path_segment_problems(value: str) -> list[str]:
    """``IsValidPathSegmentName`` (Role, RoleBinding, ClusterRole names)."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in PATH_SEGMENT_FORBIDDEN if c in value]


def label_value_problems(value: str) -> list[str]:
    """``IsValidLabelValue``."""
    return _problems(value, _LABEL_VALUE, _LABEL_VALUE_MSG, LABEL_VALUE_MAX_LENGTH)


def label_key_problems(key: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS-1123 subdomain prefix and '/', then a 63-character name."""
    prefix, sep, name = key.rpartition("/")
    problems: list[str] = []
    if sep:
        if "/" in prefix:
            return ["a qualified name may contain at most one '/'"]
        if not prefix:
            return ["prefix part must be non-empty"]
        problems += [f"prefix part {p}" for p in dns1123_subdomain_problems(prefix)]
    if not name:
        return [*problems, "name part must be non-empty"]
    if len(name) > QUALIFIED_NAME_MAX_LENGTH:
        problems.append(f"name part {_too_long(QUALIFIED_NAME_MAX_LENGTH)}")
    if _QUALIFIED_NAME.fullmatch(name) is None:
        problems.append(_QUALIFIED_NAME_MSG)
    return problems


def annotation_key_problems(key: str) -> list[str]:
    """``ValidateAnnotations``' key rule: a qualified name, case aside (the key is lower-cased
    before ``IsQualifiedName``)."""
    return label_key_problems(key.lower())


def check_namespace(namespace: str | None) -> str | None:
    """The target namespace, unchanged, if it is a DNS-1123 label (or None); else an InputError."""
    if namespace is None:
        return None
    problems = dns1123_label_problems(namespace) if namespace else ["must not be empty"]
    if problems:
        raise InputError(
            f"namespace {namespace!r} is not a valid Kubernetes namespace (DNS-1123 label): " + "; ".join(problems)
        )
    return namespace
