"""The Pulumi program face: ``from dynamo_pulumi.program import deploy`` in a user's program.

``graph_program`` holds the program; this face loads it on first use, so a submodule of this
package (``cloud_mocks``, ``git_revision``) can be imported without the Pulumi SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.floor.lazy import lazy_getattr

if TYPE_CHECKING:
    from dynamo_pulumi.program.graph_program import (
        CONFIG_NAMESPACE,
        DEFAULT_GRAPH,
        default_graph_path,
        deploy,
        main,
        plan,
    )

_PUBLIC = {name: ("graph_program", name) for name in (
    "CONFIG_NAMESPACE", "DEFAULT_GRAPH", "default_graph_path", "deploy", "main", "plan")}

__getattr__ = lazy_getattr(__name__, _PUBLIC, globals())

__all__ = ["CONFIG_NAMESPACE", "DEFAULT_GRAPH", "default_graph_path", "deploy", "main", "plan"]
