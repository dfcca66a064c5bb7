"""Every field of the models does something (issue 23, item 2): never accepted and ignored.

``spec.experimental.componentGroups`` used to parse, pass validation and leave the render as it
was. This test walks every leaf field of the v1beta1 DynamoGraphDeployment model (the
DynamoComponentDeployment's spec is the same component model) and holds each to one of:

* **rendered**: two values of the field (or the field unset and set) give two different
  renderings (``render_graph``'s objects and DCDs) of one graph;
* **operator-only**: render mode refuses a graph that sets it, naming operator mode (the
  feature needs the operator's controllers; operator mode sends it as written);
* **status-only**: written by the API server or a controller, or names objects of one cluster;
  never an input of the operator's rendering (the reason says which);
* **object type**: ``apiVersion``/``kind``, which choose the model itself.

A field added to the models without an entry fails :func:`test_every_field_has_an_entry`; an
entry whose two values render alike fails :func:`test_a_rendered_field_changes_the_render`.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import typing
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from dynamo_pulumi.api import v1beta1 as beta
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.verdict.deployability import judge

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
UNSET = object()


def _main(**extra: Any) -> dict[str, Any]:
    return {"name": "main", "image": IMAGE, "command": ["python3", "-m", "dynamo.vllm"],
            "args": ["--model", "Qwen/Qwen3-0.6B"], "resources": {"limits": {"nvidia.com/gpu": "1"}}, **extra}


def base_graph() -> dict[str, Any]:
    """A frontend and one vLLM worker (``spec.components[1]``), on the component pathway."""
    return {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
        "spec": {"backendFramework": "vllm", "components": [
            {"name": "Frontend", "type": "frontend",
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
            {"name": "decode", "type": "worker", "replicas": 1, "podTemplate": {"spec": {"containers": [_main()]}}},
        ]},
    }


GROVE = {"orchestrators": {"grove": {"enabled": True}}}
LWS = {"orchestrators": {"lws": {"enabled": True}}}
TOPOLOGY = {**GROVE, "cluster": {"clusterTopologies": {"gb200": ["zone", "block", "rack", "host"]}}}
W = "spec.components[1]"  # the worker
OVERRIDE = {"apiVersion": "grove.io/v1alpha1", "value": {"rollingUpdate": {"maxUnavailable": 1}}}
ROOT_OVERRIDE = {"apiVersion": "grove.io/v1alpha1", "value": {"spec": {"template": {"topologyConstraint": {"packDomain": "rack"}}}}}
#: Role overrides take a topology constraint only.
ROLE_OVERRIDE = {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "rack"}}}
ROLE_OVERRIDE_HOST = {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "host"}}}
TOPOLOGY_SPEC = {"spec.topologyConstraint": {"clusterTopologyName": "gb200", "packDomain": "zone"}}
MULTINODE = {f"{W}.multinode": {"nodeCount": 2}}
GMS_INTRA = {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod"}}
GMS_INTER = {f"{W}.experimental.gpuMemoryService": {"mode": "InterPod"}}
EPP_CONFIG = {"plugins": [{"type": "a"}], "schedulingProfiles": [{"name": "p", "plugins": [{"pluginRef": "a", "weight": 1}]}]}
EPP = {"spec.components[2]": {"name": "epp", "type": "epp", "eppConfig": {"config": EPP_CONFIG},
                              "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}}
EPP_PLATFORM = {"cluster": {"inferencePoolAvailable": True}}


@dataclass(frozen=True)
class Rendered:
    """``first`` and ``second`` (path -> value; :data:`UNSET` removes it) applied to
    ``base`` (path -> value) give different renderings on ``platform``."""

    first: dict[str, Any]
    second: dict[str, Any]
    base: dict[str, Any] = field(default_factory=dict)
    platform: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NotRendered:
    category: str  # one of CATEGORIES
    reason: str
    #: operator-only: a graph setting the field, which render mode must refuse naming operator mode.
    example: dict[str, Any] = field(default_factory=dict)
    platform: dict[str, Any] = field(default_factory=dict)


#: Multinode with per-role pod templates (all or none), the component's own template left out.
ROLES = {**MULTINODE, f"{W}.podTemplate": UNSET}


def _roles(leader: str = "a", worker: str = "a", override: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A leader and a worker role, each with a whole pod template labelled ``role: <value>``."""
    def role(name: str, label: str) -> dict[str, Any]:
        entry = {"name": name, "podTemplate": {"metadata": {"labels": {"role": label}}, "spec": {"containers": [_main()]}}}
        return {**entry, "providerOverride": override} if override else entry

    return [role("leader", leader), role("worker", worker)]


def _lpx(**lpx: Any) -> dict[str, Any]:
    return {W: {"name": "decode", "type": "lpx", "lpx": {"buildId": "b", **lpx}, "roles": [
        {"name": "agent", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "lpx-agent:1.0.0"}]}}}]}}


CHECKPOINT = {f"{W}.experimental.checkpoint": {
    "enabled": True, "identity": {"model": "m", "backendFramework": "vllm", "tensorParallelSize": 1}}}
LPX_PLATFORM = {"lpx": {"enabled": True}, **GROVE}
CHECKPOINT_PLATFORM = {"checkpoint": {"enabled": True}}
CHECKPOINT_REASON = ("acts only with checkpoint.enabled: true, a restore the operator and the Snapshot operator "
                     "run (the DynamoCheckpoint, its job); render mode refuses that")
LPX_REASON = "an LPX component is built by the operator's LPX controller from its build registry"
GROUPS = {"spec.experimental.componentGroups": [{"name": "pd", "replicas": 2, "components": [{"name": "decode"}]}]}
GROUPS_REASON = "component groups: no operator code we follow renders them; render mode refuses them"
SERVER = "written by the API server (or its clients' bookkeeping), never an input of the operator's rendering"

ENTRIES: dict[str, Rendered | NotRendered] = {
    "apiVersion": NotRendered("object type", "chooses the model (v1alpha1 input is converted to this one)"),
    "kind": NotRendered("object type", "chooses the model (DynamoGraphDeployment here)"),
    "metadata.name": Rendered({"metadata.name": "g"}, {"metadata.name": "h"}),
    "metadata.generateName": NotRendered("status-only", "the API server picks a name from it; a graph is rendered "
                                         "from metadata.name, which offline rendering requires"),
    "metadata.namespace": Rendered({"metadata.namespace": "a"}, {"metadata.namespace": "b"}),
    "metadata.selfLink": NotRendered("status-only", SERVER),
    "metadata.uid": NotRendered("status-only", SERVER),
    "metadata.resourceVersion": NotRendered("status-only", SERVER),
    "metadata.creationTimestamp": NotRendered("status-only", SERVER),
    "metadata.deletionTimestamp": NotRendered("status-only", SERVER),
    "metadata.deletionGracePeriodSeconds": NotRendered("status-only", SERVER),
    "metadata.generation": NotRendered("status-only", SERVER),
    "metadata.managedFields": NotRendered("status-only", SERVER),
    "metadata.finalizers": NotRendered("status-only", "the operator's own deletion bookkeeping on the DGD"),
    "metadata.ownerReferences": NotRendered(
        "status-only", "uids of objects of one cluster, for its garbage collector; a DGD's children are parented by "
        "Pulumi (a standalone DCD's DGD owner does render: its parent graph)"),
    "metadata.labels": NotRendered(
        "object metadata", "labels of the DynamoGraphDeployment object itself: operator mode applies them to the "
        "custom resource, and the operator copies none to what it creates (spec.labels does); render mode, which "
        "creates no DGD object, warns that they label nothing"),
    "metadata.annotations": Rendered({"metadata.annotations": {}},
                                     {"metadata.annotations": {"nvidia.com/enable-grove": "false"}}, platform=GROVE),
    "status": NotRendered("status-only", "written by the operator's controller"),
    "spec.providerOverride.apiVersion": Rendered(
        {"spec.providerOverride": UNSET}, {"spec.providerOverride": ROOT_OVERRIDE}, platform=TOPOLOGY),
    "spec.providerOverride.target": Rendered(
        {"spec.providerOverride": UNSET}, {"spec.providerOverride": {**ROOT_OVERRIDE, "target": "PodCliqueSet"}},
        platform=TOPOLOGY),
    "spec.providerOverride.value": Rendered(
        {"spec.providerOverride": ROOT_OVERRIDE},
        {"spec.providerOverride": {**ROOT_OVERRIDE, "value": {"spec": {"template": {"topologyConstraint": {"packDomain": "zone"}}}}}},
        platform=TOPOLOGY),
    "spec.annotations": Rendered({"spec.annotations": {"a": "1"}}, {"spec.annotations": {"a": "2"}}),
    "spec.labels": Rendered({"spec.labels": {"a": "1"}}, {"spec.labels": {"a": "2"}}),
    "spec.priorityClassName": Rendered({"spec.priorityClassName": "high"}, {"spec.priorityClassName": "low"},
                                       platform=GROVE),
    "spec.components.providerOverride.apiVersion": Rendered(
        {f"{W}.providerOverride": UNSET}, {f"{W}.providerOverride": OVERRIDE}, platform=GROVE),
    "spec.components.providerOverride.target": Rendered(
        {f"{W}.providerOverride": UNSET}, {f"{W}.providerOverride": {**OVERRIDE, "target": "PodCliqueTemplateSpec"}},
        platform=GROVE),
    "spec.components.providerOverride.value": Rendered(
        {f"{W}.providerOverride": OVERRIDE},
        {f"{W}.providerOverride": {**OVERRIDE, "value": {"rollingUpdate": {"maxUnavailable": 2}}}},
        {f"{W}.replicas": 3}, GROVE),
    "spec.components.type": Rendered({f"{W}.type": "worker"}, {f"{W}.type": "decode"}),
    "spec.components.lpx.buildId": NotRendered("operator-only", LPX_REASON, _lpx(), LPX_PLATFORM),
    "spec.components.lpx.scheduling.attemptDeadlineSeconds": NotRendered(
        "operator-only", LPX_REASON, _lpx(scheduling={"attemptDeadlineSeconds": 30}), LPX_PLATFORM),
    "spec.components.lpx.experimental.localPartitions.mode": NotRendered(
        "operator-only", LPX_REASON, _lpx(experimental={"localPartitions": {"mode": "All"}}), LPX_PLATFORM),
    "spec.components.lpx.experimental.localPartitions.ids": NotRendered(
        "operator-only", LPX_REASON, _lpx(experimental={"localPartitions": {"mode": "IDs", "ids": [0]}}), LPX_PLATFORM),
    "spec.components.runtimeVersionOverride": Rendered(
        {f"{W}.runtimeVersionOverride": UNSET}, {f"{W}.runtimeVersionOverride": "0.9.0"}),
    "spec.components.globalDynamoNamespace": Rendered(
        {f"{W}.globalDynamoNamespace": False}, {f"{W}.globalDynamoNamespace": True}),
    "spec.components.podTemplate": Rendered(
        {f"{W}.podTemplate.spec.containers[0].args": ["--a"]}, {f"{W}.podTemplate.spec.containers[0].args": ["--b"]}),
    "spec.components.replicas": Rendered({f"{W}.replicas": 1}, {f"{W}.replicas": 2}),
    "spec.components.minAvailable": Rendered({f"{W}.minAvailable": 1}, {f"{W}.minAvailable": 2},
                                             {f"{W}.replicas": 3}, GROVE),
    "spec.components.multinode.nodeCount": Rendered({f"{W}.multinode": {"nodeCount": 2}},
                                                    {f"{W}.multinode": {"nodeCount": 3}}, platform=LWS),
    "spec.components.multinode.leader.providerOverride.apiVersion": Rendered(
        {f"{W}.multinode.leader": UNSET}, {f"{W}.multinode.leader": {"providerOverride": ROLE_OVERRIDE}},
        MULTINODE, TOPOLOGY),
    "spec.components.multinode.leader.providerOverride.target": Rendered(
        {f"{W}.multinode.leader": UNSET},
        {f"{W}.multinode.leader": {"providerOverride": {**ROLE_OVERRIDE, "target": "PodCliqueTemplateSpec"}}},
        MULTINODE, TOPOLOGY),
    "spec.components.multinode.leader.providerOverride.value": Rendered(
        {f"{W}.multinode.leader": {"providerOverride": ROLE_OVERRIDE}},
        {f"{W}.multinode.leader": {"providerOverride": ROLE_OVERRIDE_HOST}}, MULTINODE, TOPOLOGY),
    "spec.components.multinode.worker.providerOverride.apiVersion": Rendered(
        {f"{W}.multinode.worker": UNSET}, {f"{W}.multinode.worker": {"providerOverride": ROLE_OVERRIDE}},
        MULTINODE, TOPOLOGY),
    "spec.components.multinode.worker.providerOverride.target": Rendered(
        {f"{W}.multinode.worker": UNSET},
        {f"{W}.multinode.worker": {"providerOverride": {**ROLE_OVERRIDE, "target": "PodCliqueTemplateSpec"}}},
        MULTINODE, TOPOLOGY),
    "spec.components.multinode.worker.providerOverride.value": Rendered(
        {f"{W}.multinode.worker": {"providerOverride": ROLE_OVERRIDE}},
        {f"{W}.multinode.worker": {"providerOverride": ROLE_OVERRIDE_HOST}}, MULTINODE, TOPOLOGY),
    "spec.components.roles.name": Rendered(
        {f"{W}.roles": _roles(leader="a", worker="b")}, {f"{W}.roles": _roles(leader="b", worker="a")}, ROLES, LWS),
    "spec.components.roles.replicas": NotRendered(
        "checked-only", "admission accepts only the count the rendering derives itself (leader 1, worker "
        "nodeCount - 1 for multinode; LPX roles are operator-only), so no admitted value renders differently"),
    "spec.components.roles.providerOverride.apiVersion": Rendered(
        {f"{W}.roles": _roles()}, {f"{W}.roles": _roles(override=ROLE_OVERRIDE)}, ROLES, TOPOLOGY),
    "spec.components.roles.providerOverride.target": Rendered(
        {f"{W}.roles": _roles()},
        {f"{W}.roles": _roles(override={**ROLE_OVERRIDE, "target": "PodCliqueTemplateSpec"})},
        ROLES, TOPOLOGY),
    "spec.components.roles.providerOverride.value": Rendered(
        {f"{W}.roles": _roles(override=ROLE_OVERRIDE)}, {f"{W}.roles": _roles(override=ROLE_OVERRIDE_HOST)},
        ROLES, TOPOLOGY),
    "spec.components.roles.podTemplate": Rendered(
        {f"{W}.roles": _roles(leader="a", worker="a")}, {f"{W}.roles": _roles(leader="a", worker="b")}, ROLES, LWS),
    "spec.components.sharedMemorySize": Rendered({f"{W}.sharedMemorySize": "8Gi"}, {f"{W}.sharedMemorySize": "16Gi"}),
    "spec.components.modelRef.name": Rendered({f"{W}.modelRef": {"name": "a/b"}}, {f"{W}.modelRef": {"name": "c/d"}}),
    "spec.components.modelRef.revision": Rendered({f"{W}.modelRef": {"name": "a/b"}},
                                                  {f"{W}.modelRef": {"name": "a/b", "revision": "v2"}}),
    "spec.components.scalingAdapter": Rendered({f"{W}.scalingAdapter": UNSET}, {f"{W}.scalingAdapter": {}}),
    "spec.components.eppConfig.configMapRef.name": Rendered(
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "a", "key": "k"}}},
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "b", "key": "k"}}}, EPP, EPP_PLATFORM),
    "spec.components.eppConfig.configMapRef.key": Rendered(
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "a", "key": "x"}}},
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "a", "key": "y"}}}, EPP, EPP_PLATFORM),
    "spec.components.eppConfig.configMapRef.optional": Rendered(
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "a", "key": "k"}}},
        {"spec.components[2].eppConfig": {"configMapRef": {"name": "a", "key": "k", "optional": True}}}, EPP, EPP_PLATFORM),
    "spec.components.eppConfig.config": Rendered(
        {"spec.components[2].eppConfig": {"config": EPP_CONFIG}},
        {"spec.components[2].eppConfig": {"config": {**EPP_CONFIG, "plugins": [{"type": "b"}]}}}, EPP, EPP_PLATFORM),
    "spec.components.frontendSidecar": Rendered(
        {f"{W}.frontendSidecar": UNSET},
        {f"{W}.frontendSidecar": "sidecar",
         f"{W}.podTemplate.spec.containers[1]": {"name": "sidecar", "image": IMAGE}}),
    "spec.components.compilationCache.pvcName": Rendered(
        {f"{W}.compilationCache": {"pvcName": "a"}}, {f"{W}.compilationCache": {"pvcName": "b"}}),
    "spec.components.compilationCache.mountPath": Rendered(
        {f"{W}.compilationCache": {"pvcName": "a"}}, {f"{W}.compilationCache": {"pvcName": "a", "mountPath": "/c"}}),
    "spec.components.topologyConstraint.packDomain": Rendered(
        {f"{W}.topologyConstraint": {"packDomain": "rack"}}, {f"{W}.topologyConstraint": {"packDomain": "host"}},
        TOPOLOGY_SPEC, TOPOLOGY),
    "spec.components.experimental.gpuMemoryService.mode": Rendered(
        {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod"}},
        {f"{W}.experimental.gpuMemoryService": {"mode": "InterPod"}}, platform=GROVE),
    "spec.components.experimental.gpuMemoryService.deviceClassName": Rendered(
        {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod"}},
        {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod", "deviceClassName": "other.nvidia.com"}}),
    "spec.components.experimental.gpuMemoryService.extraClientContainers": Rendered(
        {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod"},
         f"{W}.podTemplate.spec.containers[1]": {"name": "helper", "image": IMAGE}},
        {f"{W}.experimental.gpuMemoryService": {"mode": "IntraPod", "extraClientContainers": ["helper"]},
         f"{W}.podTemplate.spec.containers[1]": {"name": "helper", "image": IMAGE}}),
    "spec.components.experimental.gpuMemoryService.extraClientPods.name": NotRendered(
        "status-only", "reserved: the CRD refuses it (\"extraClientPods is reserved for inter-pod GMS and is not "
        "implemented yet\"), so no admitted graph carries it"),
    "spec.components.experimental.gpuMemoryService.extraClientPods.podTemplate": NotRendered(
        "status-only", "reserved: the CRD refuses extraClientPods, so no admitted graph carries it"),
    "spec.components.experimental.failover.mode": Rendered(
        {f"{W}.experimental.failover": UNSET}, {f"{W}.experimental.failover": {"mode": "IntraPod"}},
        {**GMS_INTRA, "metadata.annotations": {"nvidia.com/dynamo-kube-discovery-mode": "container"}}),
    "spec.components.experimental.failover.numShadows": Rendered(
        {f"{W}.experimental.failover": {"mode": "InterPod"}},
        {f"{W}.experimental.failover": {"mode": "InterPod", "numShadows": 1}}, GMS_INTER, GROVE),
    "spec.components.experimental.grove.forceScalingGroup": Rendered(
        {f"{W}.experimental.grove": {"forceScalingGroup": False}},
        {f"{W}.experimental.grove": {"forceScalingGroup": True}}, platform=GROVE),
    **{f"spec.components.experimental.checkpoint.{name}": NotRendered(
        "operator-only", CHECKPOINT_REASON, CHECKPOINT, CHECKPOINT_PLATFORM)
       for name in ("enabled", "mode", "startupPolicy", "deletionPolicy", "checkpointRef", "targetContainerName",
                    "job.gmsClientContainers", "job.podTemplate")},
    **{f"spec.components.experimental.checkpoint.identity.{name}": NotRendered(
        "operator-only", CHECKPOINT_REASON, CHECKPOINT, CHECKPOINT_PLATFORM)
       for name in ("model", "backendFramework", "dynamoVersion", "tensorParallelSize", "pipelineParallelSize",
                    "dtype", "maxModelLen", "extraParameters")},
    "spec.components.name": Rendered({f"{W}.name": "decode"}, {f"{W}.name": "worker"}),
    "spec.env": Rendered({"spec.env": [{"name": "A", "value": "1"}]}, {"spec.env": [{"name": "A", "value": "2"}]}),
    "spec.backendFramework": Rendered(
        {"spec.backendFramework": "vllm"},
        {"spec.backendFramework": "sglang", f"{W}.podTemplate.spec.containers[0].command": ["python3", "-m", "dynamo.sglang"]}),
    **{f"spec.restart.{name}": NotRendered(
        "operator-only", "spec.restart must be unset on create (CEL) and render mode applies every graph as a "
        "create: a restart is the operator's controller acting on an existing DGD (its converged objects carry "
        "nvidia.com/restartAt, which render_graph renders for the operator's prediction)",
        {"spec.restart": {"id": "a", "strategy": {"type": "Sequential", "order": ["Frontend", "decode"]}}})
       for name in ("id", "strategy.type", "strategy.order")},
    "spec.topologyConstraint.clusterTopologyName": Rendered(
        {"spec.topologyConstraint": UNSET}, TOPOLOGY_SPEC, platform=TOPOLOGY),
    "spec.topologyConstraint.packDomain": Rendered(
        TOPOLOGY_SPEC, {"spec.topologyConstraint": {"clusterTopologyName": "gb200", "packDomain": "rack"}},
        platform=TOPOLOGY),
    "spec.experimental.kvTransferPolicy.clusterTopologyName": Rendered(
        {"spec.experimental": UNSET},
        {"spec.experimental": {"kvTransferPolicy": {"clusterTopologyName": "gb200", "domain": "rack"}}},
        platform=TOPOLOGY),
    "spec.experimental.kvTransferPolicy.labelKey": Rendered(
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone"}}},
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "b/zone", "domain": "zone"}}}),
    "spec.experimental.kvTransferPolicy.domain": Rendered(
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone"}}},
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "rack"}}}),
    "spec.experimental.kvTransferPolicy.enforcement": Rendered(
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone"}}},
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone",
                                                    "enforcement": "preferred", "preferredWeight": 0.5}}}),
    "spec.experimental.kvTransferPolicy.preferredWeight": Rendered(
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone",
                                                    "enforcement": "preferred", "preferredWeight": 0.5}}},
        {"spec.experimental": {"kvTransferPolicy": {"labelKey": "a/zone", "domain": "zone",
                                                    "enforcement": "preferred", "preferredWeight": 0.7}}}),
    **{f"spec.experimental.componentGroups.{name}": NotRendered("operator-only", GROUPS_REASON, GROUPS)
       for name in ("name", "replicas", "scalingAdapter", "components.name")},
}


# --- the walk -------------------------------------------------------------------------------------


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []

    def walk(t: Any) -> None:
        if isinstance(t, type) and issubclass(t, BaseModel):
            found.append(t)
        for arg in typing.get_args(t):
            walk(arg)

    walk(annotation)
    return found


def leaf_fields(model: type[BaseModel], prefix: str = "", seen: tuple[type, ...] = ()) -> list[str]:
    """Wire paths (list items without an index) of every leaf field of ``model``; a model with
    no fields (``scalingAdapter: {}``) is a leaf."""
    paths = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{info.alias or name}"
        subs = [m for m in _models_in(info.annotation) if m not in seen and m.model_fields]
        if subs:
            for sub in subs:
                paths += leaf_fields(sub, f"{path}.", (*seen, sub))
        else:
            paths.append(path)
    return paths


def _dcd_only_fields() -> set[str]:
    """The DCD's fields the DGD's component model does not have (at the DCD's own paths)."""
    return {p for p in leaf_fields(beta.DynamoComponentDeployment, seen=(beta.DynamoComponentDeployment,))
            if (p.replace("spec.", "spec.components.", 1) if p.startswith("spec.") else p) not in ENTRIES}


def test_every_field_has_an_entry() -> None:
    walked = leaf_fields(beta.DynamoGraphDeployment, seen=(beta.DynamoGraphDeployment,))
    assert set(walked) == set(ENTRIES), "every model field needs an entry (rendered, or why not)"
    assert _dcd_only_fields() == set(DCD_ENTRIES), "a DCD field the DGD component model lacks needs an entry"


def dcd_base() -> dict[str, Any]:
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "w"},
            "spec": {"type": "worker", "backendFramework": "vllm", "podTemplate": {"spec": {"containers": [_main()]}}}}


#: A standalone DynamoComponentDeployment's own fields (the rest is the component model, above).
DCD_ENTRIES: dict[str, Rendered] = {
    "spec.backendFramework": Rendered(
        {"spec.backendFramework": "vllm"},
        {"spec.backendFramework": "sglang", "spec.podTemplate.spec.containers[0].command": ["python3", "-m", "dynamo.sglang"]}),
}


@pytest.mark.parametrize("name", list(DCD_ENTRIES))
def test_a_rendered_dcd_field_changes_the_render(name: str) -> None:
    entry = DCD_ENTRIES[name]
    documents = [dcd_base(), dcd_base()]
    for document, patch in zip(documents, (entry.first, entry.second), strict=True):
        for path, value in patch.items():
            _set(document, path, value)
        assert judge(load_graph(document)).deployable
    assert _rendering(documents[0], {}) != _rendering(documents[1], {})


# --- applying an entry ------------------------------------------------------------------------------

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [int(index) if index else name for name, index in _STEP.findall(path)]


def _set(document: dict[str, Any], path: str, value: Any) -> None:
    steps = _steps(path)
    node: Any = document
    for step, following in itertools.pairwise(steps):
        if isinstance(step, int):
            while len(node) <= step:
                node.append({})
            node = node[step]
        else:
            node = node.setdefault(step, [] if isinstance(following, int) else {})
    last = steps[-1]
    if value is UNSET:
        if isinstance(last, str):
            node.pop(last, None)
        return
    if isinstance(last, int):
        while len(node) <= last:
            node.append({})
    node[last] = copy.deepcopy(value)


def graph_with(*patches: dict[str, Any]) -> dict[str, Any]:
    document = base_graph()
    for patch in patches:
        for path, value in patch.items():
            _set(document, path, value)
    return document


def _rendering(document: dict[str, Any], platform: dict[str, Any]) -> str:
    result = render_graph(load_graph(document), load_platform(platform))  # the object's own namespace
    return json.dumps([result.components, result.objects], sort_keys=True, default=str)


CATEGORIES = ("operator-only", "status-only", "checked-only", "object metadata", "object type")
RENDERED = [name for name, entry in ENTRIES.items() if isinstance(entry, Rendered)]
OPERATOR_ONLY = [name for name, entry in ENTRIES.items()
                 if isinstance(entry, NotRendered) and entry.category == "operator-only" and entry.example]


@pytest.mark.parametrize("name", RENDERED)
def test_a_rendered_field_changes_the_render(name: str) -> None:
    entry = ENTRIES[name]
    assert isinstance(entry, Rendered)
    first, second = graph_with(entry.base, entry.first), graph_with(entry.base, entry.second)
    for document in (first, second):  # both graphs are deployable as they stand
        verdict = judge(load_graph(document), load_platform(entry.platform))
        assert verdict.deployable, [e.message for e in verdict.errors]
    assert _rendering(first, entry.platform) != _rendering(second, entry.platform)


@pytest.mark.parametrize("name", OPERATOR_ONLY)
def test_an_operator_only_field_is_refused_in_render_mode(name: str) -> None:
    entry = ENTRIES[name]
    assert isinstance(entry, NotRendered)
    document = graph_with(entry.example)
    refused = judge(load_graph(document), load_platform(entry.platform), mode="render")
    assert any("--mode operator" in e.fix for e in refused.errors), [e.message for e in refused.errors]
    accepted = judge(load_graph(document), load_platform(entry.platform), mode="operator",
                     old=load_graph(graph_with()) if "spec.restart" in entry.example else None)
    assert accepted.deployable, [e.message for e in accepted.errors]


def test_a_dgds_own_labels_are_said_to_label_nothing_in_render_mode() -> None:
    graph = load_graph(graph_with({"metadata.labels": {"team": "a"}}))
    assert any("use spec.labels" in w for w in judge(graph, mode="render").warnings)
    assert not any("spec.labels" in w for w in judge(graph, mode="operator").warnings)


def test_every_reason_is_given() -> None:
    for name, entry in ENTRIES.items():
        if isinstance(entry, NotRendered):
            assert entry.category in CATEGORIES and len(entry.reason) > 10, name


def test_a_platform_of_the_table_is_valid() -> None:
    for entry in ENTRIES.values():
        assert isinstance(load_platform(entry.platform), Platform)
