"""What a change costs in GPUs: per component and in total, before and after, with the GPU product.

A reviewer of a pull request wants the cost at a glance: ``+8 nvidia.com/gpu
(NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4``. The counts are the outputs' own
(:func:`dynamo_pulumi.planning.outputs.summarize`, the operator's GPU rule over every rendered
pod), so ``diff``, ``preview`` and the ``gpus``/``totalGpus`` outputs never disagree.

The GPU *product* is read where the spec or the placement names it: the pods' node selector or
required node affinity under the labels clouds and the GPU operator put on GPU nodes (GPU feature
discovery's ``nvidia.com/gpu.product``, GKE's accelerator, Karpenter's GPU name, the instance
type EKS and AKS nodes carry). A value only known at deploy time (a ``pulumi.Output``) is shown as
``known after deploy``; nothing named, no product.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from dynamo_pulumi.floor.constants import KUBE_LABEL_DYNAMO_COMPONENT
from dynamo_pulumi.floor.placeholders import contains_output_token
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.planning.outputs import ComponentSummary, summarize
from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan
from dynamo_pulumi.render.backends.gpus import is_gpu_resource_name

#: Node labels that name the GPU product (or the machine that carries it), most precise first.
PRODUCT_LABELS: tuple[str, ...] = (
    "nvidia.com/gpu.product",  # NVIDIA GPU feature discovery
    "cloud.google.com/gke-accelerator",  # GKE
    "karpenter.k8s.aws/instance-gpu-name",  # Karpenter on EKS
    "node.kubernetes.io/instance-type",  # EKS, AKS, GKE: the instance type
    "beta.kubernetes.io/instance-type",
)
#: What a GPU count is called when no extended resource names it (DRA claims).
DEFAULT_RESOURCE = "nvidia.com/gpu"
UNKNOWN_PRODUCT = "known after deploy"


#: How a count that waits for a ``pulumi.Output`` not known at preview is shown, in text and JSON.
UNKNOWN = "unknown"
Count = int | None  # None: not known at preview (it depends on an Output's value)


def _count_text(count: Count) -> int | str:
    return UNKNOWN if count is None else count


def _known_sum(counts: Iterable[Count]) -> int:
    return sum(c for c in counts if c is not None)


@record
class ComponentGpus:
    """One component's GPUs before and after (0 on the side where it does not exist; None where
    the count depends on a ``pulumi.Output`` whose value is not known at preview)."""

    component: str
    before: Count
    after: Count
    resource: str = DEFAULT_RESOURCE
    product: str = ""
    #: What moved the count: ``replicas 2 => 4``, ``GPUs per replica 1 => 2``, ``added``, ``removed``.
    cause: str = ""
    #: The Outputs (spec paths) an unknown count waits for.
    waits_for: tuple[str, ...] = ()

    @property
    def delta(self) -> Count:
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def changed(self) -> bool:
        return self.delta != 0

    def as_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "component": self.component, "before": _count_text(self.before), "after": _count_text(self.after),
            "delta": _count_text(self.delta), "resource": self.resource,
        }
        entry.update({k: v for k, v in (("product", self.product), ("cause", self.cause)) if v})
        if self.waits_for:
            entry["waitsFor"] = list(self.waits_for)
        return entry


@record
class GpuDelta:
    """Every component's GPUs and the totals: the sum of the known counts, partial when a count
    is not known at preview."""

    components: tuple[ComponentGpus, ...]

    @property
    def before(self) -> int:
        return _known_sum(c.before for c in self.components)

    @property
    def after(self) -> int:
        return _known_sum(c.after for c in self.components)

    @property
    def partial_before(self) -> bool:
        return any(c.before is None for c in self.components)

    @property
    def partial_after(self) -> bool:
        return any(c.after is None for c in self.components)

    @property
    def changed(self) -> tuple[ComponentGpus, ...]:
        return tuple(c for c in self.components if c.changed)

    def as_json(self) -> dict[str, Any]:
        partial = self.partial_before or self.partial_after
        return {
            "before": self.before, "after": self.after,
            "delta": UNKNOWN if partial else self.after - self.before,
            "partial": partial,
            "components": [c.as_json() for c in self.components],
        }

    def requested_json(self) -> dict[str, Any]:
        """What NEW requests (``preview``): the total of the known counts (``partial`` when some
        component's is unknown), and per component its GPUs (``"unknown"``, with the Outputs it
        waits for, when not known at preview)."""
        components = []
        for c in self.components:
            entry: dict[str, Any] = {"component": c.component, "gpus": _count_text(c.after), "resource": c.resource}
            if c.product:
                entry["product"] = c.product
            if c.after is None:
                entry["waitsFor"] = list(c.waits_for)
            components.append(entry)
        return {"total": self.after, "partial": self.partial_after, "components": components}


# --- where a component's pods are -----------------------------------------------------------------


def _pod_specs(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every pod spec (a mapping with ``containers``) anywhere under ``value``."""
    if isinstance(value, Mapping):
        if isinstance(value.get("containers"), list):
            yield value
        for item in value.values():
            yield from _pod_specs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _pod_specs(item)


def _component_pods(component: ComponentPlan, plan: GraphPlan) -> list[Mapping[str, Any]]:
    """The component's own pod specs; on Grove, those of its cliques in the graph's PodCliqueSet."""
    pods = [pod for planned in component.objects for pod in _pod_specs(planned.obj)]
    if pods:
        return pods
    cliques = [
        clique for planned in plan.graph_objects if planned.kind == "PodCliqueSet"
        for clique in ((planned.obj.get("spec") or {}).get("template") or {}).get("cliques") or []
        if (clique.get("labels") or {}).get(KUBE_LABEL_DYNAMO_COMPONENT) == component.name
    ]
    return [pod for clique in cliques for pod in _pod_specs(clique)]


def gpu_resource(pods: Iterable[Mapping[str, Any]]) -> str:
    """The extended resource the pods ask GPUs by (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb``,
    ``amd.com/gpu``); :data:`DEFAULT_RESOURCE` when none does (DRA claims)."""
    for pod in pods:
        for container in pod.get("containers") or []:
            resources = container.get("resources") or {}
            for section in ("limits", "requests"):
                names = sorted(n for n in resources.get(section) or {} if is_gpu_resource_name(str(n)))
                if names:
                    return str(names[0])
    return DEFAULT_RESOURCE


def _affinity_values(pod: Mapping[str, Any], label: str) -> list[Any]:
    node = ((pod.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    return [
        value
        for term in node.get("nodeSelectorTerms") or []
        for expression in term.get("matchExpressions") or []
        if expression.get("key") == label and expression.get("operator") == "In"
        for value in expression.get("values") or []
    ]


def _shown(value: Any) -> str:
    return UNKNOWN_PRODUCT if contains_output_token(value) or not isinstance(value, str) else value


def gpu_product(pods: Iterable[Mapping[str, Any]]) -> str:
    """The GPU product the pods are placed on ("" when nothing names one)."""
    pods = list(pods)
    for label in PRODUCT_LABELS:
        for pod in pods:
            selected = (pod.get("nodeSelector") or {}).get(label)
            if selected is not None:
                return _shown(selected)
            values = _affinity_values(pod, label)
            if values:
                return " | ".join(dict.fromkeys(_shown(v) for v in values))
    return ""


# --- before and after ------------------------------------------------------------------------------


@record
class _Side:
    summary: ComponentSummary
    resource: str
    product: str


def _sides(plan: GraphPlan | None) -> dict[str, _Side]:
    if plan is None:
        return {}
    summaries = summarize(plan).components
    sides = {}
    for component in plan.components:
        pods = _component_pods(component, plan)
        sides[component.name] = _Side(summaries[component.name], gpu_resource(pods), gpu_product(pods))
    return sides


def _cause(before: _Side | None, after: _Side | None) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    old, new = before.summary, after.summary
    if old.known_gpus == new.known_gpus is not None:
        return ""
    causes = []
    if old.known_replicas != new.known_replicas or old.known_replicas is None:
        causes.append(f"replicas {_count_text(old.known_replicas)} => {_count_text(new.known_replicas)}")
    per_old, per_new = per_replica(old), per_replica(new)
    if per_old is not None and per_new is not None and per_old != per_new:
        causes.append(f"GPUs per replica {per_old} => {per_new}")
    return ", ".join(causes)


def per_replica(summary: ComponentSummary) -> int | str | None:
    """GPUs per replica (``1.5`` when the pods of a replica differ); None without replicas, or
    while either count is not known."""
    gpus, replicas = summary.known_gpus, summary.known_replicas
    if gpus is None or replicas is None or replicas <= 0:
        return None
    per, rest = divmod(gpus, replicas)
    return per if not rest else f"{gpus / replicas:g}"


def _waits_for(side: _Side | None, paths: dict[str, str]) -> tuple[str, ...]:
    if side is None or not side.summary.unknown_gpus:
        return ()
    return tuple(sorted({paths.get(i, "<spec>") for i in side.summary.unknown_gpus}))


def gpu_delta(old: GraphPlan | None, new: GraphPlan | None) -> GpuDelta:
    """GPUs of every component of OLD and NEW (either may be None: a graph created or deleted)."""
    before, after = _sides(old), _sides(new)
    paths = {**(old.outputs.paths if old else {}), **(new.outputs.paths if new else {})}
    names = [*after, *(n for n in before if n not in after)]
    components = []
    for name in names:
        b, a = before.get(name), after.get(name)
        shown = a or b
        assert shown is not None
        components.append(ComponentGpus(
            component=name,
            before=b.summary.known_gpus if b else 0,
            after=a.summary.known_gpus if a else 0,
            resource=shown.resource,
            product=shown.product,
            cause=_cause(b, a),
            waits_for=tuple(dict.fromkeys([*_waits_for(b, paths), *_waits_for(a, paths)])),
        ))
    return GpuDelta(tuple(components))


# --- text -------------------------------------------------------------------------------------------


def _what(resource: str, product: str) -> str:
    return f"{resource} ({product})" if product else resource


def _waiting(paths: tuple[str, ...]) -> str:
    return f"(not known at preview: it depends on the pulumi.Output at {', '.join(paths)})"


def change_line(change: ComponentGpus) -> str:
    """``+8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4``; ``? ...`` with
    the Outputs it waits for when a side is not known at preview."""
    cause = f": {change.cause}" if change.cause else ""
    delta = "?" if change.delta is None else f"{change.delta:+d}"
    waiting = f" {_waiting(change.waits_for)}" if change.delta is None and change.waits_for else ""
    return f"{delta} {_what(change.resource, change.product)} on {change.component}{cause}{waiting}"


def total_text(total: int, partial: bool) -> str:
    """A total of known counts; ``3 + unknown`` when some count is not known at preview."""
    return f"{total} + {UNKNOWN}" if partial else str(total)


def diff_lines(delta: GpuDelta) -> list[str]:
    """The changed components, then the total before and after."""
    lines = [change_line(c) for c in delta.changed]
    before, after = total_text(delta.before, delta.partial_before), total_text(delta.after, delta.partial_after)
    if delta.partial_before or delta.partial_after:
        lines.append(f"GPUs: {before} => {after} (partial: some counts are not known at preview)")
    elif delta.after - delta.before or delta.changed:
        lines.append(f"GPUs: {before} => {after} ({delta.after - delta.before:+d})")
    else:
        lines.append(f"GPUs: {after} (unchanged)")
    return lines


def summary_lines(delta: GpuDelta) -> list[str]:
    """What a fresh deployment requests, per GPU component (preview)."""
    return [
        f"  {c.component}: {UNKNOWN} {_what(c.resource, c.product)} {_waiting(c.waits_for)}" if c.after is None
        else f"  {c.component}: {c.after} {_what(c.resource, c.product)}"
        for c in delta.components if c.after != 0
    ]
