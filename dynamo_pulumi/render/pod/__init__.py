"""Pod template assembly: the operator's ``GenerateBasePodSpec`` and ``generatePodTemplateSpec``.

:func:`build_pod_spec` follows the operator's build order step by step (rendering-core section
2.3), because the order is observable: which defaults the user can override, where env entries
land, which mounts a frontend sidecar inherits, and the final volume order all depend on it.

1. component defaults for the (workload) type and runtime version -> base container;
2. the user's ``main`` merged over it (Dynamo sidecar mode: ``main`` stays the user's);
3. compilation-cache mount; 4. platform env (user wins), then the frontend-sidecar mounts are
   captured; 5. backend ``update_container``; 6-7. base pod spec, user pod spec merged over it;
8. ``fsGroup: 1000`` unless the user set a securityContext; 9. discovery ServiceAccount;
10. compilation-cache volume; 11. ``/dev/shm``; 12. ``[main] + other containers``;
13. frontend sidecar; 14. backend ``update_pod_spec``; 15. volumes in main-mount order;
16. image pull secrets; 17. intra-pod GMS, then intra-pod failover;
18. component pathway: the fallback ServiceAccount.

The context (:class:`~dynamo_pulumi.render.context.ComponentRenderContext`) must hold the DCD
*after* the DGD->DCD stage (graph env, kvTransferPolicy and propagated annotations applied).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor import records
from dynamo_pulumi.floor.constants import (
    DEFAULT_SECURITY_CONTEXT_FS_GROUP,
    DEFAULT_SERVICE_ACCOUNT_NAME,
    DISCOVERY_BACKEND_KUBERNETES,
    KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    MAIN_CONTAINER_NAME,
    ROLE_MAIN,
    WORKER_COMPONENT_TYPES,
    WORKLOAD_PROVIDER_COMPONENT,
)
from dynamo_pulumi.floor.naming import discovery_service_account_name
from dynamo_pulumi.model.runtime_version import resolve_runtime_version
from dynamo_pulumi.render import dcd_identity
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.pod import failover, gms, metadata, sidecars, volumes
from dynamo_pulumi.render.pod.defaults import DefaultsContext, defaults_for
from dynamo_pulumi.render.pod.defaults.common import KUBE_DISCOVERY_MODE_POD, standard_env
from dynamo_pulumi.render.pod.merge import add_env_user_wins, clone, merge_container, merge_pod_spec
from dynamo_pulumi.render.pod.pull_secrets import apply_image_pull_secrets
from dynamo_pulumi.render.pod.quantity import canonicalize_pod_quantities

__all__ = ["build_pod_spec", "build_pod_template", "defaults_context"]


# --- context --------------------------------------------------------------------------------------


def for_role(ctx: ComponentRenderContext) -> ComponentRenderContext:
    """The context whose DCD carries the pod template this role is rendered from.

    A multinode component may give complete per-role templates (``roles[].podTemplate``, then
    without a component ``podTemplate``); the leader and worker pods are built from their own
    role's template, which replaces the component template for everything below (metadata,
    runtime version, defaults merge, sidecars). Single-template components are unchanged.
    """
    if ctx.role == ROLE_MAIN:
        return ctx
    spec = ctx.dcd.spec
    role = next((r for r in spec.roles or [] if r.name == ctx.role and r.pod_template is not None), None)
    if role is None:
        return ctx
    view = ctx.dcd.model_copy(update={"spec": spec.model_copy(update={"pod_template": role.pod_template})})
    return records.replace(ctx, dcd=view)


def parent_name(ctx: ComponentRenderContext) -> str:
    """The graph a pod belongs to; a standalone DCD stands for its own graph."""
    return ctx.graph_name or ctx.dcd_name


def component_type(ctx: ComponentRenderContext) -> str:
    """The type the pod is rendered as: legacy-preserving on the component pathway."""
    if ctx.pathway == WORKLOAD_PROVIDER_COMPONENT:
        return dcd_identity.workload_component_type(ctx.dcd)
    return ctx.dcd.spec.type or ""


def discovery_mode_of(ctx: ComponentRenderContext) -> str:
    """``GetKubeDiscoveryMode``: the pod-template annotation, else ``pod``."""
    annotations = pods.pod_annotations(ctx.dcd.spec.pod_template)
    return annotations.get(KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE) or KUBE_DISCOVERY_MODE_POD


def _runtime_version(ctx: ComponentRenderContext) -> Any:
    spec = ctx.dcd.spec
    version = resolve_runtime_version(spec)
    if spec.runtime_version_override and version is None:
        raise RenderError(
            f'invalid runtimeVersionOverride "{spec.runtime_version_override}": must be MAJOR.MINOR.PATCH',
            "spec.runtimeVersionOverride",
        )
    return version


def defaults_context(ctx: ComponentRenderContext) -> DefaultsContext:
    """The operator's ``ComponentContext`` for the pod's main (or runtime) container."""
    spec = ctx.dcd.spec
    ctype = component_type(ctx)
    worker_hash = dcd_identity.effective_worker_hash(ctx.dcd, ctx.worker_hash) if ctype in WORKER_COMPONENT_TYPES else ""
    return DefaultsContext(
        dynamo_namespace=ctx.dynamo_namespace,
        component_type=ctype,
        parent_name=parent_name(ctx),
        parent_namespace=ctx.namespace,
        discovery_backend=ctx.discovery_backend,
        discovery_mode=ctx.discovery_mode or discovery_mode_of(ctx),
        number_of_nodes=spec.number_of_nodes,
        epp_config=spec.epp_config,
        worker_hash_suffix=worker_hash,
        runtime_version=_runtime_version(ctx),
        replicas=spec.effective_replicas,
    )


# --- backends -------------------------------------------------------------------------------------


def _backend_input(ctx: ComponentRenderContext, annotations: dict[str, Any], cache_path: str | None) -> Any:
    try:
        from dynamo_pulumi.render.backends.base import BackendInput
    except ImportError:  # the backends package is written beside this one
        return None
    return BackendInput(
        framework=ctx.backend_framework,
        role=ctx.role,
        component=ctx.dcd.spec,
        dgd_name=parent_name(ctx),
        namespace=ctx.namespace,
        number_of_nodes=ctx.dcd.spec.number_of_nodes,
        component_name=dcd_identity.dcd_component_name(ctx.dcd),
        annotations=annotations,
        compilation_cache_mount_path=cache_path,
        platform=ctx.platform,
        wiring=ctx.multinode_wiring,
        dra=ctx.dra,
    )


def _backend_hook(name: str) -> Any:
    try:
        from dynamo_pulumi.render import backends
    except ImportError:
        return None
    return getattr(backends, name, None)


def _run_backend(hook_name: str, target: dict[str, Any], backend_input: Any) -> dict[str, Any]:
    """Call a backend hook; hooks may rewrite ``target`` in place or return a new dict."""
    hook = _backend_hook(hook_name)
    if hook is None or backend_input is None:
        return target
    result = hook(target, backend_input)
    return result if isinstance(result, dict) else target


# --- build steps ----------------------------------------------------------------------------------


def _apply_intra_pod_features(pod: dict[str, Any], ctx: ComponentRenderContext) -> None:
    """Step 17, last in ``GenerateBasePodSpec`` on both pathways (ERRATA 2.35): intra-pod GPU
    memory service (DRA claim + ``gms-server`` sidecar), then intra-pod failover (two engine
    containers). No-ops for components without those blocks or with the inter-pod layout."""
    spec = ctx.dcd.spec
    gms.apply_intra_pod_gms(pod, spec, parent_name(ctx), dcd_identity.dcd_component_name(ctx.dcd))
    if failover.is_intra_pod_failover(spec):
        failover.build_intra_pod_failover(pod, spec.number_of_nodes, ctx.backend_framework)


def _refuse_checkpoint(ctx: ComponentRenderContext) -> None:
    """With the platform's Checkpoint feature on, the DCD controller resolves the component's
    checkpoint from the cluster (identity, storage, readiness) and injects restore wiring into the
    pod; none of that can be known offline, so the pod is not guessed."""
    checkpoint = ctx.dcd.spec.checkpoint
    if ctx.pathway != WORKLOAD_PROVIDER_COMPONENT or not ctx.platform.checkpoint.on:
        return
    if checkpoint is not None and checkpoint.enabled:
        raise RenderError(
            f'component "{dcd_identity.dcd_component_name(ctx.dcd)}" uses experimental.checkpoint: its pod depends on '
            "checkpoint state in the cluster, which offline rendering cannot read",
            "spec.experimental.checkpoint",
        )


def _main_container(dctx: DefaultsContext, user_spec: dict[str, Any], sidecar_mode: bool) -> dict[str, Any]:
    """Steps 1-2: the base container for the type, the user's ``main`` merged over it.

    In Dynamo sidecar mode the defaults belong to the ``runtime`` init container instead, and
    ``main`` is the user's engine container as written.
    """
    user_main = next((c for c in user_spec.get("containers") or [] if c.get("name") == MAIN_CONTAINER_NAME), None)
    if sidecar_mode:
        main = clone(user_main) if user_main is not None else {}
        main["name"] = MAIN_CONTAINER_NAME
    else:
        main = merge_container(defaults_for(dctx.component_type).base_container(dctx), user_main, MAIN_CONTAINER_NAME)
    return main


def _apply_cache_mount(main: dict[str, Any], ctx: ComponentRenderContext) -> str | None:
    cache = ctx.dcd.spec.compilation_cache
    path = volumes.compilation_cache_mount_path(cache, ctx.backend_framework)
    if cache is not None and path is not None:
        main["volumeMounts"] = volumes.apply_compilation_cache_mount(main.get("volumeMounts") or [], cache.pvc_name, path)
    volumes.validate_volume_mounts(main.get("volumeMounts") or [])
    return path


def _apply_pod_defaults(pod: dict[str, Any], ctx: ComponentRenderContext, user_spec: dict[str, Any]) -> None:
    """Steps 8-10: fsGroup, discovery ServiceAccount, compilation-cache volume."""
    if user_spec.get("securityContext") is None:
        security = pod.setdefault("securityContext", {})
        security.setdefault("fsGroup", DEFAULT_SECURITY_CONTEXT_FS_GROUP)
    if ctx.discovery_backend == DISCOVERY_BACKEND_KUBERNETES and not pod.get("serviceAccountName"):
        pod["serviceAccountName"] = discovery_service_account_name(parent_name(ctx))
    cache = ctx.dcd.spec.compilation_cache
    if cache is not None:
        pod["volumes"] = volumes.apply_compilation_cache_volume(pod.get("volumes") or [], cache.pvc_name)


def _tidy(pod: dict[str, Any]) -> dict[str, Any]:
    """Serialise as the operator's Go types do: no empty lists (``omitempty``), and quantities in
    their canonical text."""
    for key in ("containers", "initContainers"):
        for container in pod.get(key) or []:
            for field in ("command", "args", "env", "volumeMounts", "ports"):
                if container.get(field) == []:
                    del container[field]
    for key in ("volumes", "imagePullSecrets", "initContainers"):
        if pod.get(key) == []:
            del pod[key]
    canonicalize_pod_quantities(pod)
    return pod


def build_pod_spec(ctx: ComponentRenderContext) -> dict[str, Any]:
    """The pod spec the operator renders for one component and role (see the module docstring)."""
    ctx = for_role(ctx)
    _refuse_checkpoint(ctx)
    spec = ctx.dcd.spec
    template = clone(spec.pod_template or {})
    user_spec = pods.pod_spec(template)
    annotations = pods.pod_annotations(template)
    dctx = defaults_context(ctx)
    sidecar_mode = dctx.component_type in WORKER_COMPONENT_TYPES and pods.is_sidecar_mode(template)

    main = _main_container(dctx, user_spec, sidecar_mode)
    cache_path = _apply_cache_mount(main, ctx)
    if not sidecar_mode:
        add_env_user_wins(main, standard_env(ctx.platform))
    frontend_mounts = clone(main.get("volumeMounts") or [])
    backend_input = _backend_input(ctx, annotations, cache_path)
    main = _run_backend("update_container", main, backend_input)

    pod = merge_pod_spec(defaults_for(dctx.component_type).base_pod_spec(dctx), user_spec)
    pod.pop("containers", None)
    if sidecar_mode:
        pod["initContainers"] = sidecars.merge_runtime_sidecar(pod.get("initContainers") or [], dctx, ctx.platform)
    _apply_pod_defaults(pod, ctx, user_spec)
    pod["volumes"], main["volumeMounts"] = volumes.apply_shared_memory(
        pod.get("volumes") or [], main.get("volumeMounts") or [], spec.shared_memory_size
    )
    others = [c for c in user_spec.get("containers") or [] if c.get("name") != MAIN_CONTAINER_NAME]
    pod["containers"] = [main, *others]
    if spec.frontend_sidecar is not None:
        pod["containers"] = sidecars.merge_frontend_sidecar(
            pod["containers"], spec.frontend_sidecar, dctx, ctx.platform, frontend_mounts
        )
    pod = _run_backend("update_pod_spec", pod, backend_input)
    pod["volumes"] = volumes.order_volumes_by_mounts(pod.get("volumes") or [], pod["containers"][0].get("volumeMounts") or [])
    apply_image_pull_secrets(pod, ctx.platform, annotations, include_init_containers=sidecar_mode)
    _apply_intra_pod_features(pod, ctx)
    if ctx.pathway == WORKLOAD_PROVIDER_COMPONENT and not pod.get("serviceAccountName"):
        pod["serviceAccountName"] = ctx.fallback_service_account or DEFAULT_SERVICE_ACCOUNT_NAME
    return _tidy(pod)


def _check_multinode_main(pod: dict[str, Any]) -> None:
    """``checkMainContainer``: an LWS pod's main container needs a command and args."""
    main = next((c for c in pod.get("containers") or [] if c.get("name") == MAIN_CONTAINER_NAME), None)
    path = "spec.podTemplate.spec.containers[main]"
    if main is None:
        raise RenderError("main container not found in pod spec", path)
    if not main.get("command"):
        raise RenderError("container Command cannot be nil for LWS pod", f"{path}.command")
    if not main.get("args"):
        raise RenderError("container Args cannot be empty for LWS pod", f"{path}.args")


def build_pod_template(ctx: ComponentRenderContext) -> dict[str, Any]:
    """``{metadata: {labels, annotations}, spec}`` of a component-pathway pod template.

    Labels and annotations are the DCD controller's (section 2.3); leader/worker roles carry
    ``role`` and no ``nvidia.com/selector``, and their main container must have command and args.
    """
    ctx = for_role(ctx)
    annotations = metadata.dcd_kube_annotations(ctx.dcd)
    computed = dcd_identity.computed_dynamo_namespace(ctx.dcd, ctx.namespace)
    labels = metadata.pod_template_labels(ctx, annotations, computed)
    spec = build_pod_spec(ctx)
    if ctx.role != ROLE_MAIN and ctx.pathway == WORKLOAD_PROVIDER_COMPONENT:
        _check_multinode_main(spec)
    meta: dict[str, Any] = {"labels": labels}
    if annotations:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": spec}
