"""``pulumi.com/`` annotations: directives to the Pulumi Kubernetes provider, not data of the graph.

pulumi-kubernetes reads the annotations with the ``pulumi.com/`` prefix on an object it applies
(``skipAwait``, ``timeoutSeconds``, ``waitFor``, ``patchForce``, ``patchFieldManager``,
``deletionPropagationPolicy``, ``replaceUnready``). The operator knows nothing of them: it copies
a graph's ``spec.annotations`` and a component's pod-template annotations into every pod
template and hashes them into the worker names, so a changed ``timeoutSeconds`` would rename,
and replace, every worker. So the plan takes them out before rendering (:func:`split`) and puts
them on the objects they are set on (:func:`apply_directives`), never into a pod template:

* ``spec.annotations`` (annotations "copied onto every child object"): every object the graph
  registers;
* a component's ``podTemplate.metadata.annotations`` (and a v1alpha1 service's ``annotations``,
  kept in the conversion annotation): every object of that component, over the graph's;
* the DGD/DCD's own ``metadata.annotations`` direct the custom resource, which only operator
  mode registers (sent as written); in render mode no object stands for it: a warning says so.

In operator mode the custom resource is the one object Pulumi registers: the directives of its
spec are not sent (the operator would copy and hash them), and a warning says where they belong.
A user's directive wins over the ones we add (:mod:`dynamo_pulumi.resources.awaits`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from dynamo_pulumi.api.preservation import DCD_SPEC_ANNOTATION, DGD_SPEC_ANNOTATION
from dynamo_pulumi.floor.records import field, record

if TYPE_CHECKING:
    from dynamo_pulumi.planning.plan import GraphPlan

PREFIX: Final = "pulumi.com/"


def is_directive(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(PREFIX)


@record(frozen=False)
class Directives:
    """The directives taken out of a graph's spec, by where they were written."""

    #: From ``spec.annotations``: every object of the graph.
    graph: dict[str, Any] = field(default_factory=dict)
    #: From a component's pod template (or v1alpha1 service): component name -> directives.
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: On the DGD/DCD's own ``metadata.annotations`` (left there; named in render mode's warning).
    own: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.graph or self.components)

    def spec_keys(self) -> list[str]:
        return sorted({*self.graph, *(k for d in self.components.values() for k in d)})


def _take(annotations: Any) -> dict[str, Any]:
    """Remove and return the directives of one annotation map (in place)."""
    if not isinstance(annotations, dict):
        return {}
    taken = {key: annotations.pop(key) for key in [k for k in annotations if is_directive(k)]}
    return taken


def _take_template(holder: Mapping[str, Any]) -> dict[str, Any]:
    metadata = (holder.get("podTemplate") or {}).get("metadata")
    return _take(metadata.get("annotations")) if isinstance(metadata, dict) else {}


def _take_preserved(metadata: dict[str, Any], key: str, dgd: bool) -> dict[str, dict[str, Any]]:
    """The directives of v1alpha1 service annotations kept in the conversion annotation (the
    JSON envelope rewritten without them); DGD: by service name, DCD: under ``""``."""
    annotations = metadata.get("annotations") or {}
    raw = annotations.get(key)
    if not isinstance(raw, str):
        return {}
    try:
        envelope = json.loads(raw)
    except ValueError:
        return {}
    spec = envelope.get("spec") if isinstance(envelope, dict) else None
    if not isinstance(spec, dict):
        return {}
    holders = (spec.get("services") or {}) if dgd else {"": spec}
    taken = {name: _take(service.get("annotations")) for name, service in holders.items() if isinstance(service, dict)}
    taken = {name: found for name, found in taken.items() if found}
    if taken:
        annotations[key] = json.dumps(envelope, separators=(",", ":"))
    return taken


def split(wire: Mapping[str, Any]) -> tuple[dict[str, Any], Directives]:
    """A copy of a DGD/DCD wire document without the directives in its spec, and the directives."""
    document = copy.deepcopy(dict(wire))
    spec = document.get("spec") or {}
    metadata = document.get("metadata") or {}
    directives = Directives(own={k: v for k, v in (metadata.get("annotations") or {}).items() if is_directive(k)})
    if document.get("kind") == "DynamoComponentDeployment":
        name = str(spec.get("name") or metadata.get("name") or "")
        found = {**_take_preserved(metadata, DCD_SPEC_ANNOTATION, dgd=False).get("", {}), **_take_template(spec)}
        if found:
            directives.components[name] = found
        return document, directives
    directives.graph = _take(spec.get("annotations"))
    preserved = _take_preserved(metadata, DGD_SPEC_ANNOTATION, dgd=True)
    for component in spec.get("components") or []:
        name = str(component.get("name") or "")
        found = {**preserved.get(name, {}), **_take_template(component)}
        if found:
            directives.components[name] = found
    return document, directives


def _annotate(obj: dict[str, Any], directives: Mapping[str, Any]) -> None:
    if not directives:
        return
    metadata = obj.setdefault("metadata", {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), **directives}


def apply_directives(plan: GraphPlan, directives: Directives) -> list[str]:
    """Put the directives on the objects they direct (render mode), or leave them off the
    custom resource's spec (operator mode); returns the warnings to show."""
    warnings: list[str] = []
    if plan.mode == "operator":
        if directives:
            warnings.append(
                f"{', '.join(directives.spec_keys())} in the spec: in operator mode Pulumi registers only "
                f"the {plan.kind} itself, so no object takes these directives and they are not sent (the "
                "operator would copy them into every pod template and hash them into the worker names); "
                f"put them on the {plan.kind}'s metadata.annotations to direct the custom resource"
            )
        return warnings
    if directives.own:
        warnings.append(
            f"{', '.join(sorted(directives.own))} on the {plan.kind}'s metadata.annotations: in render mode "
            f"no registered object stands for the {plan.kind}, so nothing takes them; put them in "
            "spec.annotations for every rendered object, or in a component's podTemplate for its objects"
        )
    for planned in plan.graph_objects:  # (a standalone DCD's objects are its component's)
        _annotate(planned.obj, directives.graph)
    for component in plan.components:
        own = {**directives.graph, **directives.components.get(component.name, {})}
        for planned in component.objects:
            _annotate(planned.obj, own)
    return warnings
