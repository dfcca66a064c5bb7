"""A package face whose names load on first use (PEP 562).

A package's ``__init__`` runs whenever any of its submodules is imported, so a face that imported
its public names eagerly would make every stage that needs one small submodule pay for the
heavy ones (pydantic models, the Pulumi SDK). A face built here maps each public name to the
submodule that defines it and imports that submodule only when the name is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(package: str, public: Mapping[str, tuple[str, str]], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``public`` maps a name to (submodule, attribute);
    the value found is stored in ``namespace`` (the package's globals) so later reads are plain."""

    def __getattr__(name: str) -> Any:
        found = public.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{found[0]}"), found[1])
        namespace[name] = value
        return value

    return __getattr__
