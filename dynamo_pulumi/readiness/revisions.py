"""Which pods belong to a workload's current revision, so a problem is blamed on the right one.

After a worker change the namespace holds pods of two generations: the old ReplicaSet's (still
serving, or still failing) and the new one's. pulumi-kubernetes reports only pods of the active
ReplicaSet (``await/deployment.go``); matching pods by component label alone blames an old pod's
ImagePullBackOff on the new generation. Each controller marks its pods with its revision:

* Deployment: the active ReplicaSet is the one whose ``deployment.kubernetes.io/revision``
  annotation equals the Deployment's; its pods carry its ``pod-template-hash`` label and an
  owner reference to it. Without the ReplicaSets (the waiter watches none) a pod is current when
  it was made from the Deployment's *current* template: every template container with the same
  image, command and args, and the template's labels and annotations on the pod;
* LeaderWorkerSet: the same template match against the leader and worker templates;
* Grove PodClique: ``grove.io/pod-template-hash`` equal to the hash the clique expects (its own
  label first, then the update in progress, then ``status.currentPodTemplateHash``), as Grove
  counts ``updatedReplicas`` (``podclique/reconcilestatus.go`` ``mutateUpdatedReplica``).

Pure; pods, workloads and ReplicaSets are API-server JSON dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.readiness._fields import dig, int_at, name_of
from dynamo_pulumi.readiness.object_status import active_replica_set

POD_TEMPLATE_HASH: Final = "pod-template-hash"
GROVE_POD_TEMPLATE_HASH: Final = "grove.io/pod-template-hash"

Pod = Mapping[str, Any]


def _labels(obj: Mapping[str, Any] | None, *path: str) -> Mapping[str, Any]:
    value = dig(obj, *path)
    return value if isinstance(value, Mapping) else {}


def _of_replica_set(pod: Pod, replica_set: Mapping[str, Any]) -> bool:
    """Owned by the ReplicaSet, or labelled with its pod-template-hash."""
    owners = dig(pod, "metadata", "ownerReferences") or []
    if any(isinstance(o, Mapping) and o.get("kind") == "ReplicaSet" and o.get("name") == name_of(replica_set) for o in owners):
        return True
    rs_hash = _labels(replica_set, "metadata", "labels").get(POD_TEMPLATE_HASH)
    return rs_hash is not None and _labels(pod, "metadata", "labels").get(POD_TEMPLATE_HASH) == rs_hash


def _subset(wanted: Mapping[str, Any], have: Mapping[str, Any]) -> bool:
    return all(have.get(key) == value for key, value in wanted.items())


def made_from(pod: Pod, template: Mapping[str, Any]) -> bool:
    """Was ``pod`` created from pod ``template``? Admission may add containers, labels, env and
    annotations to a pod, never change what the template set, so the template must be a subset."""
    if not _subset(_labels(template, "metadata", "labels"), _labels(pod, "metadata", "labels")):
        return False
    if not _subset(_labels(template, "metadata", "annotations"), _labels(pod, "metadata", "annotations")):
        return False
    containers = {str(c.get("name")): c for c in dig(pod, "spec", "containers") or [] if isinstance(c, Mapping)}
    for wanted in dig(template, "spec", "containers") or []:
        have = containers.get(str(wanted.get("name")))
        if have is None or any(have.get(key) != wanted.get(key) for key in ("image", "command", "args")):
            return False
    return True


def _templates(kind: str, workload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if kind == "LeaderWorkerSet":
        lwt = dig(workload, "spec", "leaderWorkerTemplate") or {}
        return [t for t in (lwt.get("leaderTemplate"), lwt.get("workerTemplate")) if isinstance(t, Mapping)]
    template = dig(workload, "spec", "template")
    return [template] if isinstance(template, Mapping) else []


def expected_grove_hash(pod_clique: Mapping[str, Any]) -> str | None:
    """The pod-template hash Grove counts a PodClique's pods as updated against (None: unknown)."""
    label = _labels(pod_clique, "metadata", "labels").get(GROVE_POD_TEMPLATE_HASH)
    if label:
        return str(label)
    progress = dig(pod_clique, "status", "updateProgress")
    if isinstance(progress, Mapping) and progress.get("podTemplateHash"):
        return str(progress["podTemplateHash"])
    current = dig(pod_clique, "status", "currentPodTemplateHash")
    return str(current) if current else None


def grove_updated_pods(pod_clique: Mapping[str, Any], pods: Sequence[Pod]) -> list[Pod]:
    """The PodClique's pods Grove counts as updated (none while the expected hash is unknown)."""
    expected = expected_grove_hash(pod_clique)
    if expected is None:
        return []
    return [p for p in pods if _labels(p, "metadata", "labels").get(GROVE_POD_TEMPLATE_HASH) == expected]


def current_pods(
    kind: str, workload: Mapping[str, Any] | None, pods: Sequence[Pod], replica_sets: Sequence[Mapping[str, Any]] = ()
) -> list[Pod]:
    """The pods of ``workload``'s current revision among ``pods`` (the component's pods).

    Falls back to every pod when the revision cannot be told: no live workload, a kind without
    a revision mark (a PodCliqueScalingGroup, whose member cliques we do not read), a Grove
    clique with no hash yet, or a template match that finds no pod although the controller
    reports updated replicas (an admission webhook rewrote the image, say).
    """
    if workload is None:
        return list(pods)
    if kind == "Deployment":
        replica_set = active_replica_set(workload, replica_sets)
        if replica_set is not None:
            return [p for p in pods if _of_replica_set(p, replica_set)]
    if kind in ("Deployment", "LeaderWorkerSet"):
        templates = _templates(kind, workload)
        matched = [p for p in pods if any(made_from(p, t) for t in templates)]
        if matched or int_at(workload, "status", "updatedReplicas") == 0:
            return matched
        return list(pods)
    if kind == "PodClique" and expected_grove_hash(workload) is not None:
        return grove_updated_pods(workload, pods)
    return list(pods)
