"""Shared shape of the readiness oracles (``tests/test_oracle_{kubectl_rollout_status,pulumi_await,
kstatus,lws_status,grove_status,dgd_status}.py``).

Each upstream case becomes an :class:`OracleCase`: the object as the API server would return it
(a dict), the upstream verdict (``upstream_ready``) and ours. They differ only where upstream
sources disagree and we keep the stricter "ready" (``stricter`` names why). ``bench/oracle_agreement.py``
imports the same tables to count agreement of any checkout.

Objects are judged through the public entry points the waiter uses: :func:`render_status` for a
workload (render mode) and :func:`operator_status` for a DGD/DCD (operator mode).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_pulumi.readiness import InMemoryReader
from dynamo_pulumi.readiness.operator_mode import operator_status
from dynamo_pulumi.readiness.status import ComponentState, GraphStatus, render_status
from dynamo_pulumi.readiness.targets import WatchTarget

NS = "default"


@dataclass(frozen=True)
class OracleCase:
    """One upstream test case: ``source`` is the upstream file, ``name`` the Go test and case."""

    source: str
    name: str
    obj: Mapping[str, Any] | None
    upstream_ready: bool
    #: Our ``ObjectState`` value (``Current``, ``InProgress``, ``Failed``, ``Terminating``, ...).
    state: str
    #: Text our reason must contain where upstream asserts a message or reason ("" = no check).
    text: str = ""
    #: Why we are stricter than upstream here (empty when we agree).
    stricter: str = ""
    #: Extra objects the case needs (a PodCliqueSet for its children, ReplicaSets, pods).
    others: tuple[Mapping[str, Any], ...] = field(default=())

    @property
    def ready(self) -> bool:
        """Our verdict: upstream's, except where we keep a stricter one."""
        return self.upstream_ready and not self.stricter

    @property
    def id(self) -> str:
        """A pytest id that can be passed back on a command line (no ``::`` nor brackets)."""
        text = f"{self.source.rsplit('/', 1)[-1]} {self.name}"
        text = text.replace("::", " ").replace("[", "(").replace("]", ")").replace("\u2014", "-")
        return text.encode("ascii", "replace").decode()


def judge_workload(obj: Mapping[str, Any], *others: Mapping[str, Any], component: str = "worker",
                   group: str = "") -> ComponentState:
    """Our render-mode verdict on one workload (Deployment, LWS, PodClique, PCSG)."""
    meta = obj["metadata"]
    target = WatchTarget(api_version=str(obj["apiVersion"]), kind=str(obj["kind"]), namespace=meta.get("namespace", NS),
                         name=meta["name"], component=component, group=group or meta["name"])
    targets = [target]
    for other in others:
        if other.get("kind") == "PodCliqueSet":
            targets.insert(0, WatchTarget(api_version=str(other["apiVersion"]), kind="PodCliqueSet",
                                          namespace=other["metadata"].get("namespace", NS), name=other["metadata"]["name"],
                                          group=other["metadata"]["name"]))
    status = render_status(targets, InMemoryReader([obj, *others], default_namespace=NS))
    (state,) = status.components
    return state


def judge_custom_resource(obj: Mapping[str, Any] | None, kind: str = "DynamoGraphDeployment") -> GraphStatus:
    """Our operator-mode verdict on a DGD or DCD custom resource."""
    return operator_status(kind, obj)


def ready_of(case: OracleCase) -> bool:
    """Our ready verdict for a case, through whichever entry point fits its object."""
    if case.obj is None or case.obj.get("kind") in ("DynamoGraphDeployment", "DynamoComponentDeployment"):
        kind = str(case.obj.get("kind")) if case.obj else "DynamoGraphDeployment"
        return judge_custom_resource(case.obj, kind).is_ready
    return judge_workload(case.obj, *case.others).ready


def merged(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``patch`` merged in (mappings recursively, anything else replaced)."""
    out = copy.deepcopy(dict(base))
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out
