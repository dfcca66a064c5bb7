"""One OLD -> NEW pair per update rule of the operator's webhook (api-and-validation.md 4.4, 4.5,
section 5), each side valid on its own, plus pairs the webhook accepts in place. Wire dicts, so
the same cases drive the model-level tests and the CLI files."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"
LEVELS = ["region", "zone", "block", "rack", "host"]
#: Grove and LWS on, one cluster topology: every rule below has a valid OLD and NEW here.
PLATFORM: dict[str, Any] = {
    "orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}},
    "cluster": {"clusterTopologies": {"topo": LEVELS}},
}


def worker(name: str = "decode", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": "decode",
        "replicas": 2,
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE,
                                                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}},
    } | fields


def frontend() -> dict[str, Any]:
    return {"name": "Frontend", "type": "frontend", "replicas": 1,
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}


def dgd(*components: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ns"},
        "spec": {"backendFramework": "vllm", "components": list(components) or [frontend(), worker()]} | spec,
    }


@dataclass(frozen=True)
class RuleCase:
    """``rule``: the words of the webhook's refusal (a substring of the error line)."""

    id: str
    rule: str
    old: dict[str, Any]
    new: dict[str, Any]


def _changed(old: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    new = copy.deepcopy(old)
    edit(new)
    return new


def _decode(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["components"][1]


def _pod_annotations(doc: dict[str, Any]) -> dict[str, Any]:
    return _decode(doc)["podTemplate"].setdefault("metadata", {}).setdefault("annotations", {})


BASE = dgd()
MULTINODE = dgd(frontend(), worker(multinode={"nodeCount": 2}))
TOPOLOGY = dgd(frontend(), worker(), topologyConstraint={"clusterTopologyName": "topo", "packDomain": "rack"})


def _power(doc: dict[str, Any]) -> None:
    _pod_annotations(doc)["dynamo.nvidia.com/gpu-power-limit"] = "300"
    _decode(doc)["podTemplate"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}


POWER = _changed(BASE, _power)
ADAPTED = _changed(BASE, lambda d: _decode(d).update(scalingAdapter={}))
PROVIDER = "nvidia.com/workload-provider"

IMMUTABLE_CASES: list[RuleCase] = [
    RuleCase("component-added", "components added: [Extra]", BASE,
             _changed(BASE, lambda d: d["spec"]["components"].append(worker("Extra")))),
    RuleCase("component-removed", "components removed: [decode]", BASE,
             _changed(BASE, lambda d: d["spec"]["components"].pop())),
    RuleCase("type", "type is immutable", BASE, _changed(BASE, lambda d: _decode(d).update(type="prefill"))),
    RuleCase("backend", "spec.backendFramework", BASE, _changed(BASE, lambda d: d["spec"].update(backendFramework="sglang"))),
    RuleCase("multinode-presence", "between single-node and multi-node", BASE, MULTINODE),
    RuleCase("node-count", "multinode.nodeCount", MULTINODE,
             _changed(MULTINODE, lambda d: _decode(d).update(multinode={"nodeCount": 4}))),
    RuleCase("spec-topology", "spec.topologyConstraint", TOPOLOGY,
             _changed(TOPOLOGY, lambda d: d["spec"]["topologyConstraint"].update(packDomain="block"))),
    RuleCase("kv-transfer-policy", "kvTransferPolicy", TOPOLOGY,
             _changed(TOPOLOGY, lambda d: d["spec"].update(
                 experimental={"kvTransferPolicy": {"clusterTopologyName": "topo", "domain": "rack"}}))),
    RuleCase("min-available", "minAvailable", BASE, _changed(BASE, lambda d: _decode(d).update(minAvailable=2))),
    RuleCase("force-scaling-group", "forceScalingGroup", BASE,
             _changed(BASE, lambda d: _decode(d).update(experimental={"grove": {"forceScalingGroup": True}}))),
    RuleCase("power-limit", "gpu-power-limit", BASE, POWER),
    RuleCase("component-topology", "topologyConstraint", TOPOLOGY,
             _changed(TOPOLOGY, lambda d: _decode(d).update(topologyConstraint={"packDomain": "host"}))),
    RuleCase("workload-provider", PROVIDER,
             _changed(BASE, lambda d: d["metadata"].update(annotations={PROVIDER: "grove"})),
             _changed(BASE, lambda d: d["metadata"].update(annotations={PROVIDER: "component"}))),
]

#: Changes the webhook accepts in place (no replacement in operator mode).
MUTABLE_CASES: list[RuleCase] = [
    RuleCase("image", "", BASE, _changed(BASE, lambda d: _decode(d)["podTemplate"]["spec"]["containers"][0].update(
        image="nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.1"))),
    RuleCase("replicas", "", BASE, _changed(BASE, lambda d: _decode(d).update(replicas=3))),
    RuleCase("adapter-owned-replicas", "", ADAPTED, _changed(ADAPTED, lambda d: _decode(d).update(replicas=5))),
    RuleCase("env", "", BASE, _changed(BASE, lambda d: _decode(d)["podTemplate"]["spec"]["containers"][0].update(
        env=[{"name": "X", "value": "1"}]))),
]

#: "Immutable once set" values set where none was: the webhook accepts, the replacement trigger
#: changes (a pure function of NEW cannot tell "set" from "changed"), so Pulumi replaces the DGD.
#: ``rule`` is the trigger key's rule name.
ONCE_SET_CASES: list[RuleCase] = [
    RuleCase("type-set", "type (immutable once set)",
             _changed(BASE, lambda d: _decode(d).pop("type")), BASE),
    RuleCase("workload-provider-set", f"metadata.annotations[{PROVIDER}]",
             BASE, _changed(BASE, lambda d: d["metadata"].update(annotations={PROVIDER: "grove"}))),
]
