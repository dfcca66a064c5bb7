"""Record what a real Dynamo operator creates for each graph, at each platform setting.

    python -m localcluster.recorder --operator BIN --out tests/fixtures/operator_recordings \\
        [--upstream GIT_DIR --upstream-commit SHA] [--only SUBSTRING ...] [--platforms pathway,lws,grove]

For every platform setting a fresh local cluster is started (with the InferencePool CRD when
``--crd`` names it) and the operator binary beside it, configured from the same ``Platform`` the
comparison renders with. Graphs go in batches, one namespace each: companions first, then the
Dynamo objects (``kubectl create``, so admission's answer is recorded when it refuses), then the
recorder waits until the objects in the namespace stop changing and collects every object of the
kinds the operator creates, stripped of server fields (``stored.py``). Where LWS is enabled its
controller runs too: the operator leaves ``rolloutStrategy.type`` empty and relies on LWS's
defaulting webhook, without which the API server refuses the LeaderWorkerSet. No Grove
controller runs, so PodCliqueSets are stored as the operator sent them (plus their CRD's schema
defaults). The cluster has the NVIDIA DRA driver's DeviceClass, which the operator needs for
GMS claims. One YAML file per source is written; an LWS result equal to the component pathway's
is stored as ``same_as: pathway``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynamo_pulumi.floor.constants import DYNAMO_API_VERSION_V1ALPHA1 as ALPHA_API_VERSION
from dynamo_pulumi.platform import Platform

from .cluster import ClusterError, LocalCluster
from .crds import cluster_crds
from .dynamo_operator import OPERATOR_NAMESPACE, start_dynamo_operator
from .operators import start_lws
from .oracle_sources import (
    DYNAMO_KINDS,
    Source,
    corpus_sources,
    corpus_upstream_paths,
    example_sources,
    prepared,
    upstream_sources,
)
from .recording_format import UNPROCESSED, dump, load
from .stored import object_key, stripped
from .tools import ensure_tools

#: The platform settings every graph is recorded at (only the orchestrators differ).
PLATFORMS: dict[str, dict[str, Any]] = {
    "pathway": {"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": False}}},
    "lws": {"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}},
    "grove": {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}},
}
#: Resources the operator may create in a graph's namespace (those this cluster serves are listed).
OWNED_RESOURCES = (
    "dynamocomponentdeployments.nvidia.com", "dynamographdeploymentscalingadapters.nvidia.com",
    "dynamomodels.nvidia.com", "dynamocheckpoints.nvidia.com", "dynamoworkermetadatas.nvidia.com",
    "deployments.apps", "leaderworkersets.leaderworkerset.x-k8s.io",
    "podcliquesets.grove.io", "podcliquescalinggroups.grove.io", "podcliques.grove.io",
    "services", "serviceaccounts", "configmaps", "secrets", "persistentvolumeclaims",
    "roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io",
    "resourceclaimtemplates.resource.k8s.io", "resourceclaims.resource.k8s.io",
    "inferencepools.inference.networking.k8s.io", "ingresses.networking.k8s.io",
    "poddisruptionbudgets.policy", "horizontalpodautoscalers.autoscaling", "jobs.batch",
    "podgroups.scheduling.volcano.sh",
)
#: What every namespace holds without the operator.
NAMESPACE_DEFAULTS = {("", "ServiceAccount", "default"), ("", "ConfigMap", "kube-root-ca.crt")}
#: The DeviceClass the NVIDIA DRA driver registers; the operator refuses GMS claims without it.
GPU_DEVICE_CLASS: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"},
    "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]},
}
SETTLE_POLLS = 3
POLL_INTERVAL = 1.0


def namespace_for(source_id: str) -> str:
    """A short namespace of the source's own, the same in every recording of it."""
    return "o" + hashlib.sha1(source_id.encode()).hexdigest()[:8]


def platform_for(setting: str) -> Platform:
    return Platform.model_validate(PLATFORMS[setting])


@dataclass
class Submitted:
    source: Source
    namespace: str
    admission: list[dict[str, Any]]
    companions: set[tuple[str, str, str]]

    @property
    def accepted(self) -> list[dict[str, Any]]:
        return [a for a in self.admission if a["accepted"]]


def _kind_name(doc: dict[str, Any]) -> tuple[str, str, str]:
    return (str(doc.get("apiVersion", "")).rpartition("/")[0], str(doc.get("kind", "")),
            str((doc.get("metadata") or {}).get("name", "")))


def _in_namespace(doc: dict[str, Any], namespace: str) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    meta = out.setdefault("metadata", {})
    meta["namespace"] = namespace
    return out


def submit(cluster: LocalCluster, source: Source) -> Submitted:
    """Companions, then each Dynamo object by itself, recording the API server's answer."""
    ns = namespace_for(source.id)
    cluster.kubectl("create", "namespace", ns)
    companions = [d for d in source.documents if d.get("kind") not in DYNAMO_KINDS]
    companions += prerequisite_pvcs(source.graphs, companions)
    for doc in companions:
        cluster.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(_in_namespace(doc, ns)), check=False)
    admission = []
    for doc in source.graphs:
        # JSON, not YAML: kubectl reads YAML 1.1, where an unquoted ``n`` or ``y`` is a boolean.
        out = cluster.kubectl_result("create", "-n", ns, "-f", "-", "-o", "name",
                                     input=json.dumps(_in_namespace(doc, ns)))
        _, kind, name = _kind_name(doc)
        entry: dict[str, Any] = {"kind": kind, "name": name, "accepted": out.returncode == 0}
        if out.returncode != 0:
            entry["message"] = out.stderr.strip()
        admission.append(entry)
    return Submitted(source, ns, admission, {_kind_name(d) for d in companions})


def prerequisite_pvcs(graphs: list[dict[str, Any]], companions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The PVCs a published v1alpha1 manifest expects the user to have made: a top-level
    ``spec.pvcs`` entry without ``create: true`` names a claim the operator requires to exist
    (ERRATA section 1 item 17) and mounts as it is. Made here, as a user would before applying,
    so the operator renders the graph instead of failing it; they count as companions (not the
    operator's). A minimal claim: the operator reads only its name."""
    have = {(d.get("metadata") or {}).get("name") for d in companions if d.get("kind") == "PersistentVolumeClaim"}
    made: list[dict[str, Any]] = []
    for graph in graphs:
        spec = graph.get("spec") if graph.get("apiVersion") == ALPHA_API_VERSION else None
        for pvc in (spec or {}).get("pvcs") or []:
            name = pvc.get("name") if isinstance(pvc, dict) else None
            if not name or pvc.get("create") is True or name in have:
                continue
            have.add(name)
            made.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
                         "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}})
    return made


def available_resources(cluster: LocalCluster) -> list[str]:
    served = set()
    for line in cluster.kubectl("api-resources", "--namespaced=true", "--verbs=list", "-o", "name").split():
        served.add(line.strip())
    return [r for r in OWNED_RESOURCES if r in served]


def collect(cluster: LocalCluster, resources: list[str], namespaces: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Every object of ``resources`` in each namespace, stripped, in a stable order."""
    wanted = set(namespaces)
    items = json.loads(cluster.kubectl("get", ",".join(resources), "-A", "-o", "json", timeout=300))["items"]
    out: dict[str, list[dict[str, Any]]] = {ns: [] for ns in wanted}
    for item in items:
        ns = item["metadata"].get("namespace", "")
        if ns in wanted:
            out[ns].append(stripped(item))
    for objs in out.values():
        objs.sort(key=object_key)
    return out


def graph_objects(cluster: LocalCluster, sub: Submitted) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Dynamo objects as stored (after the mutating webhook) and a summary of their status."""
    stored, status = [], []
    for entry in sub.accepted:
        resource = {"DynamoGraphDeployment": "dynamographdeployments.nvidia.com",
                    "DynamoComponentDeployment": "dynamocomponentdeployments.nvidia.com"}[entry["kind"]]
        obj = json.loads(cluster.kubectl("get", resource, entry["name"], "-n", sub.namespace, "-o", "json"))
        st = obj.get("status") or {}
        status.append({"kind": entry["kind"], "name": entry["name"], "state": st.get("state"),
                       "conditions": [{k: c.get(k) for k in ("type", "status", "reason", "message")}
                                      for c in st.get("conditions") or []]})
        stored.append(stripped(obj))
    return stored, status


def _owned(sub: Submitted, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    graph_names = {(e["kind"], e["name"]) for e in sub.accepted}
    out = []
    for obj in objs:
        group, kind, _, name = object_key(obj)
        if (group, kind, name) in sub.companions or (group, kind, name) in NAMESPACE_DEFAULTS:
            continue
        if (kind, name) in graph_names:  # a standalone DCD is the input, not an owned object
            continue
        if not _operator_made(obj):
            continue
        out.append(obj)
    return out


def _operator_made(obj: dict[str, Any]) -> bool:
    """Made by the operator: owned by a Dynamo object, or by nothing (the namespace-shared RBAC,
    the copied SSH Secret). Objects another controller made (the headless Service and the
    StatefulSets of an LWS, the ResourceClaim of a pod) have that controller's object as owner."""
    owners = (obj.get("metadata") or {}).get("ownerReferences") or []
    return all(str(o.get("apiVersion", "")).startswith("nvidia.com/") for o in owners)


def settle(cluster: LocalCluster, resources: list[str], subs: list[Submitted], timeout: float) -> dict[str, Any]:
    """Poll until no namespace of the batch changes for ``SETTLE_POLLS`` polls and no graph waits
    for its DCD controller (a quiet spell of a busy operator is not the end); the last collection
    (or the one at the deadline)."""
    namespaces = [s.namespace for s in subs]
    last, same, deadline = None, 0, time.monotonic() + timeout
    while True:
        got = collect(cluster, resources, namespaces)
        digest = hashlib.sha256(json.dumps(got, sort_keys=True).encode()).hexdigest()
        same = same + 1 if digest == last else 0
        last = digest
        if time.monotonic() > deadline or (same >= SETTLE_POLLS and not _waiting_for_components(cluster, subs)):
            return got
        time.sleep(POLL_INTERVAL)


def _waiting_for_components(cluster: LocalCluster, subs: list[Submitted]) -> bool:
    """Does a graph of the batch still report a DCD whose spec its controller has not processed?"""
    for sub in subs:
        for entry in sub.accepted:
            if entry["kind"] != "DynamoGraphDeployment":
                continue
            out = cluster.kubectl("get", "dynamographdeployments.nvidia.com", entry["name"], "-n", sub.namespace,
                                  "-o", "json", check=False)
            try:
                conditions = (json.loads(out).get("status") or {}).get("conditions") or []
            except (ValueError, AttributeError):
                continue
            if any(UNPROCESSED in str(c.get("message", "")) for c in conditions):
                return True
    return False


#: A reconcile error the controller retries at once (optimistic concurrency), not a failure.
_CONFLICT = "the object has been modified"


def reconcile_errors(log: Path | None, namespace: str) -> list[dict[str, str]]:
    """The operator's reconcile errors for the objects of ``namespace`` so far (its ``Reconciler
    error`` log lines), distinct and in order: a DCD it cannot build fails only there, while the
    graph's status stays pending ("spec not yet processed")."""
    if log is None or not log.is_file():
        return []
    found: list[dict[str, str]] = []
    for line in log.read_text(errors="replace").splitlines():
        parts = line.split("\t", 3)
        if len(parts) < 4 or parts[2] != "Reconciler error":
            continue
        try:
            fields = json.loads(parts[3])
        except ValueError:
            continue
        if fields.get("namespace") != namespace or _CONFLICT in str(fields.get("error", "")):
            continue
        entry = {"controller": str(fields.get("controller", "")), "name": str(fields.get("name", "")),
                 "error": str(fields.get("error", ""))}
        if entry not in found:
            found.append(entry)
    return found


def record_setting(cluster: LocalCluster, setting: str, sources: list[Source], batch: int,
                   timeout: float, log: Path | None = None) -> dict[str, dict[str, Any]]:
    resources = available_resources(cluster)
    results: dict[str, dict[str, Any]] = {}
    for start in range(0, len(sources), batch):
        chunk = sources[start:start + batch]
        subs = [submit(cluster, s) for s in chunk]
        got = settle(cluster, resources, subs, timeout)
        for sub in subs:
            stored, status = graph_objects(cluster, sub)
            results[sub.source.id] = {"admission": sub.admission, "graphs": stored, "status": status,
                                      "objects": _owned(sub, got[sub.namespace])}
            errors = reconcile_errors(log, sub.namespace)  # read before the namespace's deletion adds its own
            if errors:
                results[sub.source.id]["reconcile_errors"] = errors
        for sub in subs:
            cluster.kubectl("delete", "namespace", sub.namespace, "--wait=false", check=False)
        print(f"[recorder] {setting}: {min(start + batch, len(sources))}/{len(sources)}", file=sys.stderr, flush=True)
    return results


def recording(source: Source, operator: dict[str, str], per_setting: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One source's recording, whole (``recording_format.dump`` writes it compact)."""
    doc = {"id": source.id, "origin": source.origin, "provenance": source.provenance,
           "namespace": namespace_for(source.id), "operator": operator, "pinned": source.pinned,
           "input": source.documents, "platforms": per_setting}
    companions = [d for d in source.documents if d.get("kind") not in DYNAMO_KINDS]
    made = prerequisite_pvcs(source.graphs, companions)
    if made:  # applied before the input, as its user would (not part of the manifest)
        doc["made_before"] = made
    return doc


def gather(args: argparse.Namespace) -> list[Source]:
    sources = [*corpus_sources(), *example_sources()]
    if args.upstream:
        sources += upstream_sources(Path(args.upstream), args.upstream_commit, corpus_upstream_paths())
    if args.only:
        sources = [s for s in sources if any(o in s.id for o in args.only)]
    return [prepared(s) for s in sources]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m localcluster.recorder", description=__doc__.splitlines()[0])
    p.add_argument("--operator", type=Path, required=True, help="the Dynamo operator binary")
    p.add_argument("--operator-commit", required=True, help="the commit it was built from (recorded)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--upstream", help="a git directory of ai-dynamo/dynamo to gather manifests from")
    p.add_argument("--upstream-commit", default="HEAD")
    p.add_argument("--crd", type=Path, action="append", default=[], help="extra CRD files (InferencePool)")
    p.add_argument("--only", action="append", default=[], help="record only ids containing this")
    p.add_argument("--platforms", default=",".join(PLATFORMS))
    p.add_argument("--batch", type=int, default=12)
    p.add_argument("--settle-timeout", type=float, default=60.0)
    p.add_argument("--workdir", type=Path, default=Path("/tmp/dynamo-pulumi-recorder"))
    p.add_argument("--merge", action="store_true",
                   help="keep the other platforms of a recording already in --out (re-record one setting)")
    args = p.parse_args(argv)
    sources = gather(args)
    tools = ensure_tools(("kube", "etcd", "kwok", "lws"))
    per_source: dict[str, dict[str, dict[str, Any]]] = {s.id: {} for s in sources}
    timings: dict[str, float] = {}
    for setting in args.platforms.split(","):
        shutil.rmtree(args.workdir / setting, ignore_errors=True)  # a fresh etcd: no earlier run's CRDs
        cluster = LocalCluster(args.workdir / setting, tools, crds=(*cluster_crds(tools), *args.crd))
        cluster.start()
        try:
            platform = platform_for(setting)
            cluster.apply([GPU_DEVICE_CLASS])
            if platform.lws_enabled:
                start_lws(cluster)  # its webhook defaults the LWS fields the operator leaves empty
            operator = start_dynamo_operator(cluster, args.operator, platform)
            timings[setting] = operator.ready_after or 0.0
            cluster.kubectl("get", "namespace", OPERATOR_NAMESPACE)
            for sid, result in record_setting(cluster, setting, sources, args.batch, args.settle_timeout,
                                              operator.child.log).items():
                per_source[sid][setting] = result
        except ClusterError as e:
            print(f"[recorder] {setting}: {e}", file=sys.stderr)
            return 1
        finally:
            cluster.stop()
    operator_info = {"commit": args.operator_commit, "version": Platform().operator_version}
    args.out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        target = args.out / f"{source.id}.yaml"
        results = per_source[source.id]
        if args.merge and target.is_file():
            results = {**load(target)["platforms"], **results}
        target.write_text(dump(recording(source, operator_info, results)))
    print(f"[recorder] {len(sources)} recordings in {args.out}; operator ready after {timings} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
