"""Services: ``ValidateService``'s port rules (``validateServicePort``): at least one port unless
headless without selector, each port a valid number, names required when there are several, valid
and unique, a known protocol, a valid ``targetPort``; unique (port, protocol) pairs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, duplicate, invalid, required
from dynamo_pulumi.floor.kube_names import dns1123_label_problems
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.enums import PROTOCOLS, enum_errors
from dynamo_pulumi.validation.apiserver.ports import port_num_or_name_errors, port_number_problems


def service_errors(service: Mapping[str, Any]) -> list[FieldError]:
    """The port rules of one Service object, at ``spec.ports[i]...``."""
    spec = mapping(service.get("spec"))
    ports = items(spec.get("ports"))
    path = Path("spec", "ports")
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and spec.get("type") != "ExternalName":
        return [required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    pairs: set[tuple[int, str]] = set()
    for i, raw in enumerate(ports):
        port, at = mapping(raw), path.index(i)
        errors += _name_errors(port.get("name"), len(ports) > 1, names, at.child("name"))
        number = integer(port.get("port"))
        if number is not None:
            errors += [invalid(at.child("port"), number, p) for p in port_number_problems(number)]
            protocol = text(port.get("protocol")) or "TCP"
            if (number, protocol) in pairs:
                errors.append(duplicate(at, {"port": number, "protocol": protocol}))
            pairs.add((number, protocol))
        errors += enum_errors(port.get("protocol"), at.child("protocol"), PROTOCOLS)
        if port.get("targetPort") not in (None, 0, ""):
            errors += port_num_or_name_errors(port.get("targetPort"), at.child("targetPort"))
    return errors


def _name_errors(name: Any, several: bool, names: set[str], path: Path) -> list[FieldError]:
    if name is None or name == "":
        return [required(path)] if several else []
    known = text(name)
    if known is None:
        return []
    errors = [invalid(path, known, p) for p in dns1123_label_problems(known)]
    if known in names:
        errors.append(duplicate(path, known))
    names.add(known)
    return errors
