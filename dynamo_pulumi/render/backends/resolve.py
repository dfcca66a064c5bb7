"""Facts a backend resolves lazily from its input: GPU count and multinode wiring.

Lazily, because the operator only asks for them on the paths that need them (a single-node
pod with DRA-only GPUs must not fail for want of a count it never uses).
"""

from __future__ import annotations

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.render.backends.base import BackendInput
from dynamo_pulumi.render.backends.gpus import resolve_gpu_count
from dynamo_pulumi.render.backends.multinode import MultinodeWiring


def container_gpus(inp: BackendInput) -> int:
    """The component's main-container GPU count (``ResolveContainerGPUs``).

    Read from the component spec's ``main`` container, not the rendered one, as the operator
    does; DRA-only GPUs are counted from ``inp.dra``. An explicit ``inp.gpu_count`` wins.
    """
    if inp.gpu_count is not None:
        return inp.gpu_count
    main = pods.main_container(inp.component.pod_template)
    pod_spec = (inp.component.pod_template or {}).get("spec") or {}
    try:
        return resolve_gpu_count(main, pod_spec, inp.dra)
    except RenderError as exc:
        message = str(exc).removeprefix(f"{exc.path}: ") if exc.path else str(exc)
        # the component by name; the verdict reports it at its index (spec.components[i]...)
        where = f"spec.components[{inp.component_name}].podTemplate.spec.containers[main]" + (
            f".{exc.path}" if exc.path else ""
        )
        raise RenderError(f"component {inp.component_name!r}: {message}", where) from None


def require_wiring(inp: BackendInput) -> MultinodeWiring:
    """The multinode wiring; a multinode pod without one has no orchestrator to reach its leader."""
    if inp.wiring is None:
        raise RenderError(
            f"multinode {inp.role} pod of component {inp.component_name!r} has no multinode "
            "orchestrator wiring (LeaderWorkerSet or Grove)"
        )
    return inp.wiring
