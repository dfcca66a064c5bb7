"""Backend-specific rewrites of worker pods: vLLM, SGLang, TRT-LLM (rendering-core section 4).

The pod assembler calls :func:`update_container` on the merged main container (build step 5)
and :func:`update_pod_spec` on the assembled pod spec (step 14), with one :class:`BackendInput`
per role. Both mutate only what they are given. Framework selection
(:func:`select_backend_framework`) follows the operator: only worker-class components get a
backend; a framework detected from the main command line wins over the explicit one, and the
two disagreeing is an error.

**Role templates own the launch.** A multinode component that supplies complete role templates
(``roles[].podTemplate``, :attr:`BackendInput.manual_launch`) transfers the backend-specific
leader/worker commands and topology arguments to the user (reference page, ``roles[].podTemplate``;
the operator calls this manual flag injection). The split, per backend:

* skipped, the *role-dependent launch rewrites*: every change to ``command``/``args`` that
  encodes the topology or the role's process. vLLM: the mp flags (``--nnodes``,
  ``--master-addr``, ``--node-rank``, ``--headless``), the Ray head/join wrappers, the elastic-EP
  Ray wrappers and the DP hybrid-LB flags. SGLang: ``--dist-init-addr/--nnodes/--node-rank``.
  TRT-LLM: the leader's SSH-key + ``mpirun`` script and the worker's ``sshd`` script. None of
  these read the GPU count, so it is not resolved either.
* kept, the *multinode pod wiring*: whatever every multinode pod of that backend needs no matter
  who wrote its command. Worker probe removal (vLLM, SGLang) and TRT-LLM's worker probes
  (readiness on SSH port 2222), because a non-leader rank never serves Dynamo's health endpoints;
  vLLM's ``VLLM_NIXL_SIDE_CHANNEL_HOST`` (chosen by annotation, not by the command); the
  ``wait-for-leader-mp`` init container of vLLM mp workers (it keys on the command line the
  user wrote); TRT-LLM's SSH-key Secret volume and mount and ``OMPI_MCA_orte_keep_fqdn_hostnames``
  (the user's mpirun/sshd still need the operator-distributed key pair); inter-pod GMS flags,
  compilation-cache env and SGLang NIXL exporter ports (not launch topology at all).
* added, vLLM multiprocessing only: a command line that selects mp
  (``--distributed-executor-backend mp``) gets ``--master-port 29500`` unless that exact pair is
  there (the operator's ``ManualMP`` mutation), so the leader listens on the port the workers'
  wait-for-leader init container probes. It is a flag, as in the automatic mp launch; no
  container port or env var is declared (the operator declares none in either mode).

The operator's mutation catalogs (``mutation/{vllm,sglang,trtllm}/catalog.go``) draw the same
line: ``MultinodePodWiring`` "remains active when backend flag injection is manual".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    BACKEND_FRAMEWORK_SGLANG,
    BACKEND_FRAMEWORK_TRTLLM,
    BACKEND_FRAMEWORK_VLLM,
    WORKER_COMPONENT_TYPES,
)
from dynamo_pulumi.render.backends.base import BackendInput, MultinodeWiring, Role
from dynamo_pulumi.render.backends.gpus import resolve_gpu_count
from dynamo_pulumi.render.backends.multinode import grove_wiring, lws_wiring
from dynamo_pulumi.render.backends.wait_leader import (
    build_wait_leader_configmap,
    wait_leader_config_map_name,
)

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "BackendInput",
    "MultinodeWiring",
    "Role",
    "build_wait_leader_configmap",
    "detect_backend_framework",
    "grove_wiring",
    "lws_wiring",
    "resolve_gpu_count",
    "select_backend_framework",
    "update_container",
    "update_pod_spec",
    "wait_leader_config_map_name",
]



def _backend(framework: str) -> ModuleType | None:
    """The module of one backend's rewrites, imported when a component first renders with it
    (a graph uses one backend; the others' rules are never loaded)."""
    if framework == BACKEND_FRAMEWORK_VLLM:
        from dynamo_pulumi.render.backends import vllm as module
    elif framework == BACKEND_FRAMEWORK_SGLANG:
        from dynamo_pulumi.render.backends import sglang as module
    elif framework == BACKEND_FRAMEWORK_TRTLLM:
        from dynamo_pulumi.render.backends import trtllm as module
    else:
        return None
    return module

#: ``python ... -m ... dynamo.<framework>`` within one ``|&;``-free stretch (Go ``\s`` is ASCII).
_DETECTION_PATTERNS: dict[str, re.Pattern[str]] = {
    fw: re.compile(rf"python[0-9.]*[\t\n\f\r ]+[^|&;]*-m[\t\n\f\r ]+[^|&;]*dynamo\.{fw}[^|&;]*")
    for fw in (BACKEND_FRAMEWORK_SGLANG, BACKEND_FRAMEWORK_TRTLLM, BACKEND_FRAMEWORK_VLLM)
}


def update_container(container: dict[str, Any], inp: BackendInput) -> None:
    """Apply the backend's container rewrite; other frameworks (``""``) change nothing."""
    backend = _backend(inp.framework)
    if backend is not None:
        backend.update_container(container, inp)


def update_pod_spec(pod_spec: dict[str, Any], inp: BackendInput) -> None:
    """Apply the backend's pod-level additions (wait-for-leader init container, SSH volume)."""
    backend = _backend(inp.framework)
    if backend is not None:
        backend.update_pod_spec(pod_spec, inp)


def _joined_command_line(container: dict[str, Any] | None) -> str:
    tokens = [*((container or {}).get("command") or []), *((container or {}).get("args") or [])]
    return " ".join(t for t in tokens if isinstance(t, str))


def detect_backend_framework(container: dict[str, Any] | None) -> str | None:
    """The framework named by ``python -m dynamo.<fw>`` on the command line, or None.

    Two different frameworks on one command line is a RenderError.
    """
    line = _joined_command_line(container)
    found = sorted(fw for fw, pattern in _DETECTION_PATTERNS.items() if pattern.search(line))
    if len(found) > 1:
        raise RenderError(
            f"multiple backend frameworks detected from command: [{' '.join(found)}] in {line!r}"
        )
    return found[0] if found else None


def select_backend_framework(
    component_type: str | None, container: dict[str, Any] | None, explicit: str | None
) -> str:
    """The backend a component renders with (``determineBackendFramework``); ``""`` = none.

    Detection wins over ``explicit`` and must agree with it; a detection that found two
    frameworks only fails when there is no explicit value to fall back on.
    """
    if component_type not in WORKER_COMPONENT_TYPES:
        return ""
    detected: str | None = None
    detection_error: RenderError | None = None
    if (container or {}).get("command") or (container or {}).get("args"):
        try:
            detected = detect_backend_framework(container)
        except RenderError as exc:
            detection_error = exc
    if detected and explicit and detected != explicit:
        raise RenderError(
            f'backend framework mismatch: detected "{detected}" from command but explicitly '
            f'configured as "{explicit}"'
        )
    if detected:
        return detected
    if explicit:
        return explicit
    if detection_error is not None:
        raise RenderError(f"could not determine backend framework: {detection_error}")
    return ""
