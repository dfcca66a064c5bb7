"""``pulumi_kubernetes`` input classes (``PodTemplateSpecArgs``, ``ContainerArgs``, ...) as plain
Kubernetes mappings.

A Pulumi user already holds pod templates as these typed objects; the models accept them wherever
a core/v1 mapping goes (``pod_template=``) and turn them into the wire mapping the API server
reads (camelCase keys, nested ``*Args`` converted too, ``pulumi.Output`` leaves kept). An input
class is recognised by the marker Pulumi's ``@input_type`` decorator sets, so this module does
not import ``pulumi``; the conversion imports it only when such an object is given (and then the
user's program has imported it already).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The attribute ``@pulumi.input_type`` puts on a class.
_INPUT_TYPE_MARKER = "_pulumi_input_type"


def is_input_object(value: Any) -> bool:
    """``value`` is an instance of a Pulumi ``@input_type`` class (an ``*Args`` object)."""
    return hasattr(type(value), _INPUT_TYPE_MARKER)


def plain(value: Any) -> Any:
    """``value`` with every ``*Args`` object (at any depth) as a wire mapping; unset fields left out."""
    if is_input_object(value):
        from pulumi._types import input_type_to_dict

        return {k: plain(v) for k, v in input_type_to_dict(value).items() if v is not None}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
