"""Ports: ``validateContainerPorts``, ``ValidatePortNumOrName`` and the IANA service-name rule
(``IsValidPortName``) a named port must follow, and ``IsValidPortNum``."""

from __future__ import annotations

import re
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, duplicate, invalid, required
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.enums import PROTOCOLS, enum_errors

#: ``IsValidPortName``: at most 15 characters (an IANA service name).
PORT_NAME_MAX_LENGTH = 15
PORT_RANGE_MESSAGE = "must be between 1 and 65535, inclusive"
_PORT_NAME_CHARS = re.compile(r"^[-a-z0-9]+$")
_HAS_LETTER = re.compile(r"[a-z]")


def port_name_problems(name: str) -> list[str]:
    """``IsValidPortName`` (RFC 6335 service names), in the API server's words."""
    problems: list[str] = []
    if len(name) > PORT_NAME_MAX_LENGTH:
        problems.append(f"must be no more than {PORT_NAME_MAX_LENGTH} characters")
    if not _PORT_NAME_CHARS.match(name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _HAS_LETTER.search(name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def port_number_problems(port: int) -> list[str]:
    """``IsValidPortNum``."""
    return [] if 1 <= port <= 65535 else [PORT_RANGE_MESSAGE]


def port_num_or_name_errors(port: Any, path: Path) -> list[FieldError]:
    """``ValidatePortNumOrName`` (probe ports, Service ``targetPort``)."""
    number, name = (0 if port is None else integer(port)), text(port)
    if number is not None:
        return [invalid(path, number, p) for p in port_number_problems(number)]
    if name is not None:
        return [invalid(path, name, p) for p in port_name_problems(name)]
    return []


def container_port_errors(ports: Any, path: Path) -> list[FieldError]:
    """``validateContainerPorts``: valid unique names, port numbers, protocol."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, raw in enumerate(items(ports)):
        port, at = mapping(raw), path.index(i)
        name = text(port.get("name"))
        if name:
            problems = port_name_problems(name)
            if problems:
                errors += [invalid(at.child("name"), name, p) for p in problems]
            elif name in names:
                errors.append(duplicate(at.child("name"), name))
            names.add(name)
        errors += _number_errors(port, at)
        errors += enum_errors(port.get("protocol"), at.child("protocol"), PROTOCOLS)
    return errors


def _number_errors(port: Any, at: Path) -> list[FieldError]:
    container_port, host_port = integer(port.get("containerPort")), integer(port.get("hostPort"))
    errors: list[FieldError] = []
    if container_port == 0:
        errors.append(required(at.child("containerPort")))
    elif container_port is not None:
        errors += [invalid(at.child("containerPort"), container_port, p) for p in port_number_problems(container_port)]
    if host_port:
        errors += [invalid(at.child("hostPort"), host_port, p) for p in port_number_problems(host_port)]
    return errors
