"""``dynamo-pulumi render`` held against what the real Dynamo operator created, field by field.

    python -m localcluster.agreement [--recordings DIR] [--report docs/OPERATOR-AGREEMENT.md] [--only ID]

Each recording (``tests/fixtures/operator_recordings/<id>.yaml``, written by
``localcluster.recorder``) holds the documents submitted and, per platform setting, what the
operator stored. The same documents are rendered with the same platform and namespace (what
``render --stage all`` prints: the DCDs, then the objects), both sides get the API server's
defaults (``server_defaults.py``) and lose what the recording stripped (``stored.py``) and what
rendering leaves out on purpose (``DOCUMENTED``), and every object is matched by kind and name and
compared leaf by leaf. Empty values (``null``, ``{}``, ``[]``) count as absent on both sides: the
operator's Go structs write some that a client omits, with the same meaning.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import recording_format
from .crds import SHARED_CRDS
from .server_defaults import CrdSchemas, with_defaults
from .stored import object_key, stripped
from .tools import REPO

RECORDINGS = REPO / "tests" / "fixtures" / "operator_recordings"
PLATFORMS = ("pathway", "lws", "grove")
# Left out on both sides, each for a reason written down where rendering decides it: (kind or "*", path).
_BOOKKEEPING = "the operator's sync bookkeeping (rendering-core.md §0; dynamo_pulumi/render/__init__.py)"
DOCUMENTED_PATHS: dict[tuple[str, tuple[str, ...]], str] = {
    ("*", ("metadata", "ownerReferences")): "owner references: the Pulumi layer parents resources, UIDs do not "
                                            "exist before creation (dynamo_pulumi/render/__init__.py; ARCHITECTURE.md)",
    ("*", ("metadata", "annotations", "nvidia.com/last-applied-hash")): _BOOKKEEPING,
    ("*", ("metadata", "annotations", "nvidia.com/last-applied-generation")): _BOOKKEEPING,
    ("DynamoComponentDeployment", ("metadata", "finalizers")):
        "the DCD controller adds its finalizer when it first reconciles the DCD (HandleFinalizer); runtime state, "
        "not what the DGD controller creates",
    ("DynamoComponentDeployment", ("metadata", "annotations", "nvidia.com/dcd-spec")):
        "the DGD controller round-trips each component through v1alpha1 to carry alpha-only data on the DCD "
        "(graph.go applyDGDComponentAlphaCompatibilityToDCD); our pipeline hands the alpha data to the DCD stage "
        "directly (render/pod/metadata.py, the alpha view) and render mode never creates DCDs",
    ("ConfigMap", ("data", "wait-for-leader.py")):
        "the wait-for-leader script is our own implementation of what rendering-core.md §4.1 describes (the "
        "operator's script is its code, not copied); key, name, labels and mounts are compared",
}
DOCUMENTED_OBJECTS: dict[tuple[str, str], str] = {
    ("Secret", "mpirun-ssh-key"): "the generated MPI SSH key: random key material is not rendered, the Secret "
                                  "named by mpi.sshSecretName must exist (dynamo_pulumi/render/__init__.py)",
}
WORKER_HASH_LABEL = "nvidia.com/dynamo-worker-hash"
GRAPH_LABEL = "nvidia.com/dynamo-graph-deployment-name"
WORKER_HASH_REASON = ("the worker hash: same inputs as the operator's hash.go, but Kubernetes structs are not "
                      "serialised in Go's field order, so its 8 hex characters differ (ARCHITECTURE.md \"Worker "
                      "hash\"); ours is substituted by the operator's before comparing")


@dataclass(frozen=True)
class DocumentedDifference:
    """A difference rendering makes on purpose: newer behaviour than the operator snapshot that was
    recorded (``../shared/spec/ERRATA.md`` [NEWER] items), with the spec line that says so.
    ``applies(theirs, ours, path)`` says whether one differing field is of this class."""

    kinds: tuple[str, ...]
    path: str  # a regular expression the whole dotted path must match
    reason: str
    applies: Callable[[Mapping[str, Any], Mapping[str, Any], str], bool]

    def matches(self, kind: str, theirs: Mapping[str, Any], ours: Mapping[str, Any], path: str) -> bool:
        return kind in self.kinds and re.fullmatch(self.path, path) is not None and self.applies(theirs, ours, path)


def _pod_at(obj: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The pod spec a dotted path of a workload lies in (Deployment, LWS template, PCS clique)."""
    clique = re.match(r"spec\.template\.cliques\[(\d+)\]\.spec\.podSpec\.", path)
    if clique:
        cliques = ((obj.get("spec") or {}).get("template") or {}).get("cliques") or []
        index = int(clique.group(1))
        return (cliques[index].get("spec") or {}).get("podSpec") or {} if index < len(cliques) else {}
    for prefix, keys in (("spec.template.spec.", ("template", "spec")),
                         ("spec.leaderWorkerTemplate.workerTemplate.spec.", ("leaderWorkerTemplate", "workerTemplate",
                                                                             "spec"))):
        if path.startswith(prefix):
            node: Any = obj.get("spec") or {}
            for key in keys:
                node = (node or {}).get(key) if isinstance(node, dict) else None
            return node if isinstance(node, dict) else {}
    return {}


def _legacy_epp_cache(theirs: Mapping[str, Any], ours: Mapping[str, Any], path: str) -> bool:
    """Their pod is a legacy Go EPP with the snapshot's ``hf-cache`` volume, and ours has none."""
    pod, mine = _pod_at(theirs, path), _pod_at(ours, path)
    names = {v.get("name") for v in pod.get("volumes") or []}
    return {"epp-config", "hf-cache"} <= names and "hf-cache" not in {v.get("name") for v in mine.get("volumes") or []}


def _leaf(obj: Mapping[str, Any], path: str) -> Any:
    node: Any = obj
    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        if index:
            node = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
        else:
            node = node.get(key) if isinstance(node, dict) else None
    return node


def _env_named(name: str) -> Callable[[Mapping[str, Any], Mapping[str, Any], str], bool]:
    def applies(theirs: Mapping[str, Any], ours: Mapping[str, Any], path: str) -> bool:
        entry = path.rsplit(".value", 1)[0]
        return (_leaf(ours, entry) or {}).get("name") == name == (_leaf(theirs, entry) or {}).get("name")
    return applies


def _gated_liveness(theirs: Mapping[str, Any], ours: Mapping[str, Any], path: str) -> bool:
    return _leaf(theirs, path) == 1 and _leaf(ours, path) == 3


_POD = r"(spec\.template\.spec|spec\.template\.cliques\[\d+\]\.spec\.podSpec)"
DOCUMENTED_DIFFERENCES: tuple[DocumentedDifference, ...] = (
    DocumentedDifference(
        ("Deployment", "PodCliqueSet"), _POD + r"\.(volumes\[\d+\]\..*|containers\[0\]\.volumeMounts\[\d+\]\..*)",
        "legacy Go EPP without the snapshot's hf-cache emptyDir at /home/nonroot/.cache: rendering-core.md "
        "section 3.5 (\"Legacy (eppConfig present, even {}): no hf-cache mount or volume\"); ERRATA.md section 2 "
        "item 25 [NEWER]", _legacy_epp_cache),
    DocumentedDifference(
        ("Deployment", "PodCliqueSet", "LeaderWorkerSet"), r".*\.containers\[\d+\]\.env\[\d+\]\.value",
        "worker DYN_HEALTH_CHECK_ENABLED=true from runtime 1.5.0 (rendering-core.md line 764, gate "
        "CanaryHealthChecks 1.5.0); the snapshot writes \"false\" at every version (ERRATA.md section 2 item 17 [NEWER])",
        _env_named("DYN_HEALTH_CHECK_ENABLED")),
    DocumentedDifference(
        ("Deployment", "PodCliqueSet", "LeaderWorkerSet"), r".*\.containers\[\d+\]\.livenessProbe\.failureThreshold",
        "worker liveness failureThreshold 3 from runtime 1.5.0 (rendering-core.md line 765, gate "
        "IncreasedWorkerFailureThreshold 1.5.0); the snapshot has 1 at every version (ERRATA.md section 2 item 22 [NEWER])",
        _gated_liveness),
)
DOCUMENTED_DIFFERENCES += (
    DocumentedDifference(
        ("Deployment", "PodCliqueSet", "LeaderWorkerSet"), r".*\.containers\[\d+\]\.ports\[\d+\]\.[a-zA-Z]+",
        "SGLang per-rank nixl-<i> ports at 19090+i (rendering-core.md line 629); absent from the snapshot "
        "(ERRATA.md section 2 item 23 [NEWER])",
        lambda theirs, ours, path: str((_leaf(ours, path.rsplit(".", 1)[0]) or {}).get("name", "")).startswith("nixl-")
        and _leaf(theirs, path.rsplit(".", 1)[0]) is None),
)
DOCUMENTED_DIFFERENCES += (
    DocumentedDifference(
        ("DynamoComponentDeployment", "DynamoGraphDeploymentScalingAdapter", "PodCliqueSet"),
        r"spec\.replicas|spec\.template\.cliques\[\d+\]\.spec\.replicas",
        "operator mode's prediction leaves out the replicas a scaling adapter owns: Pulumi sends them once and then "
        "ignores them, the adapter (or the planner through it) decides (dynamo_pulumi/planning/operator_mode.py, "
        "README \"Render mode or operator mode\")",
        # Only the prediction ever lacks these replicas (rendering writes them on every DCD and clique).
        lambda theirs, ours, path: _leaf(ours, path) is None),
)
#: Graph verdicts that differ on purpose: (a pattern ours matches from its start, what the
#: operator's contains) -> why.
DOCUMENTED_VERDICTS: dict[tuple[str, str], str] = {
    (r'refused: .*componentType: Unsupported value: "main"', "objects"):
        "operator mode sends the custom resource as nvidia.com/v1beta1, and a v1alpha1 componentType the v1beta1 "
        "type enum lacks (main) is refused there by the API server (seen in tests/e2e/test_apiserver_oracle.py's "
        "dry run of the gpt-oss recipe); the recording applied the manifest as v1alpha1, which the API server "
        "validates against the v1alpha1 schema and stores through the conversion webhook, so the operator ran it",
}

BOTH_REFUSE = ("the operator fails the graph but syncs its shared objects first (ERRATA.md item 10); "
               "we refuse it before creating anything")
MAX_SHOWN = 160


@dataclass
class Difference:
    kind: str
    name: str
    path: str
    ours: Any
    theirs: Any

    def line(self) -> str:
        return f"{self.kind}/{self.name} {self.path}: ours {_short(self.ours)}, operator {_short(self.theirs)}"


@dataclass
class KindCount:
    objects: int = 0
    missing: int = 0  # the operator has it, we do not
    extra: int = 0  # we render it, the operator does not
    fields: int = 0
    differing: int = 0
    documented: int = 0  # fields differing on purpose (DOCUMENTED_DIFFERENCES)


@dataclass
class GraphReport:
    id: str
    platform: str
    ours: str  # rendered | refused: <first error>
    theirs: str  # objects | refused: <message> | failed: <reason>
    kinds: dict[str, KindCount] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    #: (what, why): each value left out of the comparison and the reason it is left out.
    documented: list[tuple[str, str]] = field(default_factory=list)
    mode: str = "render"
    #: Why the verdicts differ on purpose (DOCUMENTED_VERDICTS); then no object is compared.
    verdict_documented: str = ""

    @property
    def agrees(self) -> bool:
        return not (self.differences or self.missing or self.extra) and self.verdicts_agree

    @property
    def verdicts_agree(self) -> bool:
        return bool(self.verdict_documented) or \
            self.ours.startswith("refused") == self.theirs.startswith(("refused", "failed"))


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if value is not None else "(absent)"
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


# -- the two sides ---------------------------------------------------------------------------------


def load_recording(path: Path) -> dict[str, Any]:
    return recording_format.load(path)


def operator_side(recording: Mapping[str, Any], platform: str) -> dict[str, Any]:
    return recording["platforms"][platform]


def operator_verdict(result: Mapping[str, Any]) -> str:
    refused = [a for a in result["admission"] if not a["accepted"]]
    if refused:
        return f"refused: {refused[0].get('message', '')}"
    failed = [s for s in result["status"] if s.get("state") == "failed"]
    if failed:
        ready = [c for c in failed[0]["conditions"] if c.get("type") == "Ready"]
        return f"failed: {ready[0].get('reason')}: {ready[0].get('message')}" if ready else "failed"
    errors = unbuilt_component_errors(result)
    if errors:  # a DCD its controller cannot build: the error is in the log, the status stays pending
        first = errors[0]
        return f"failed: reconcile error of {first['controller']} {first['name']}: {first['error']}"
    return "objects"


_UNPROCESSED = re.compile(rf"([a-z0-9][a-z0-9.-]*): {recording_format.UNPROCESSED}")


def unbuilt_component_errors(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """The DCD controller's logged errors for the DCDs the graph still reports unprocessed at the
    end of the recording: those it could never build. An error of an object that was built after
    all (a retry that succeeded, a Secret the operator made a moment later) is not one."""
    unprocessed = {name for s in result["status"] for c in s.get("conditions") or []
                   for name in _UNPROCESSED.findall(str(c.get("message", "")))}
    return [e for e in result.get("reconcile_errors") or []
            if e.get("controller") == "DynamoComponentDeployment" and e.get("name") in unprocessed]


def submitted(recording: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The recorded documents as the recorder sent them: in the graph's own namespace (a manifest's
    ``metadata.namespace: <your-namespace>`` placeholder is replaced, as ``kubectl -n`` would)."""
    out = []
    for doc in recording["input"]:
        doc = copy.deepcopy(doc)
        if isinstance(doc, dict):
            doc.setdefault("metadata", {})["namespace"] = recording["namespace"]
        out.append(doc)
    return out


def rendered(recording: Mapping[str, Any], platform: str) -> tuple[str, list[dict[str, Any]]]:
    """What ``dynamo-pulumi render --stage all`` prints for the recorded documents."""
    from dynamo_pulumi.cli.validate_cmd import load_contents
    from dynamo_pulumi.floor.sources import SourceText
    from dynamo_pulumi.loading.documents import GRAPH_KINDS
    from dynamo_pulumi.verdict.deployability import judge

    from .recorder import platform_for

    text = yaml.safe_dump_all(submitted(recording), sort_keys=False)
    contents = load_contents(SourceText(text, recording["id"]), recording["id"])
    if contents.failed:
        return f"refused: {contents.failed[0].problems[0].message}", []
    docs: list[dict[str, Any]] = []
    for _, loaded in contents.loaded:
        if loaded.object.kind not in GRAPH_KINDS:
            continue
        verdict = judge(loaded, platform_for(platform), recording["namespace"], mode="render",
                        objects=contents.others, for_expansion=True)
        if not verdict.deployable or verdict.rendered is None:
            first = verdict.errors[0].message if verdict.errors else "not deployable"
            return f"refused: {first}", []
        docs += [*verdict.rendered.components, *verdict.rendered.objects]
    return "rendered", docs


def predicted(recording: Mapping[str, Any], platform: str) -> tuple[str, list[dict[str, Any]]]:
    """Operator mode's predicted expansion (``plan_prediction``) of each recorded graph."""
    from dynamo_pulumi.errors import DynamoPulumiError
    from dynamo_pulumi.floor.sources import SourceText
    from dynamo_pulumi.planning.operator_mode import plan_prediction
    from dynamo_pulumi.planning.plan import plan_graph

    from .recorder import platform_for

    docs_in = submitted(recording)
    text = yaml.safe_dump_all(docs_in, sort_keys=False)
    graphs = [(i, d) for i, d in enumerate(d for d in docs_in if isinstance(d, dict))
              if d.get("kind") in ("DynamoGraphDeployment", "DynamoComponentDeployment")]
    docs: list[dict[str, Any]] = []
    for index, doc in graphs:
        try:
            plan = plan_graph(SourceText(text, recording["id"], document=index), platform_for(platform),
                              recording["namespace"], mode="operator")
        except DynamoPulumiError as exc:
            return "refused: " + " ".join(line.strip() for line in str(exc).splitlines()), []
        prediction = plan_prediction(plan)
        if not prediction and plan.warnings:
            return f"refused: {plan.warnings[0]}", []
        name = (doc.get("metadata") or {}).get("name")
        docs += [o for o in prediction if not (o.get("kind") == doc.get("kind") and o["metadata"].get("name") == name)]
    return "rendered", docs


# -- normalisation ---------------------------------------------------------------------------------


def drop_empty(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: drop_empty(v) for k, v in node.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(node, list):
        return [drop_empty(v) for v in node]
    return node


def _drop_path(obj: dict[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = obj
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return isinstance(node, dict) and node.pop(path[-1], None) is not None


def served(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj`` as the API server hands it out: a DGDSA at v1beta1, the version a plain ``kubectl get``
    reads (the recorder's). The operator creates its adapters at v1alpha1
    (``dgd_scaling_adapters_reconciler.go``), as rendering does; the conversion webhook renames
    ``dgdRef.serviceName`` to ``componentName`` (``dynamographdeploymentscalingadapter_conversion.go``)."""
    if obj.get("kind") != "DynamoGraphDeploymentScalingAdapter" or obj.get("apiVersion") != "nvidia.com/v1alpha1":
        return obj
    out = copy.deepcopy(dict(obj))
    out["apiVersion"] = "nvidia.com/v1beta1"
    ref = (out.get("spec") or {}).get("dgdRef")
    if isinstance(ref, dict) and "serviceName" in ref:
        ref["componentName"] = ref.pop("serviceName")
    return out


def normalised(obj: Mapping[str, Any], crds: CrdSchemas,
               namespace: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``obj`` as stored, without what the comparison leaves out; the documented paths it had, each
    with its reason."""
    out = stripped(with_defaults(served(obj), crds))
    out.setdefault("metadata", {}).setdefault("namespace", namespace)
    kind = str(out.get("kind", ""))
    dropped = [(".".join(path), why) for (k, path), why in DOCUMENTED_PATHS.items()
               if k in ("*", kind) and _drop_path(out, path)]
    return drop_empty(out), dropped


# -- comparison ------------------------------------------------------------------------------------


def leaves(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict) and node:
        for k in sorted(node):
            yield from leaves(node[k], f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, node


def compare_object(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[int, list[tuple[str, Any, Any]]]:
    a, b = dict(leaves(ours)), dict(leaves(theirs))
    paths = sorted(set(a) | set(b))
    return len(paths), [(p, a.get(p), b.get(p)) for p in paths if a.get(p) != b.get(p)]


def compare(recording: Mapping[str, Any], platform: str, crds: CrdSchemas, mode: str = "render") -> GraphReport:
    """Ours (``render``: what render mode creates; ``operator``: operator mode's prediction) against
    what the operator stored for ``recording`` at ``platform``."""
    theirs_result = operator_side(recording, platform)
    ns = recording["namespace"]
    ours_verdict, ours_docs = (rendered if mode == "render" else predicted)(recording, platform)
    report = GraphReport(recording["id"], platform, ours_verdict, operator_verdict(theirs_result), mode=mode)
    if not report.ours.startswith("rendered") and not report.theirs.startswith("objects"):
        # Both refuse. The operator still syncs a failed graph's shared RBAC and ConfigMaps
        # (ERRATA item 10); we refuse the whole graph before anything is created.
        report.documented += [(f"{o['kind']}/{o['metadata']['name']}", BOTH_REFUSE) for o in theirs_result["objects"]]
        return report
    why = next((w for (o, t), w in DOCUMENTED_VERDICTS.items()
                if re.match(o, report.ours) and t in report.theirs), None)
    if why is not None:
        report.verdict_documented = why
        report.documented.append((f"verdict: operator {report.theirs[:80]}", why))
        return report
    ours_docs = _their_worker_hash(ours_docs, theirs_result["objects"], report)
    ours = _by_key(ours_docs, crds, ns, report)
    theirs = _by_key(theirs_result["objects"], crds, ns, report)
    for key in sorted(set(ours) | set(theirs)):
        kind, name = key[1], key[3]
        count = report.kinds.setdefault(kind, KindCount())
        count.objects += 1
        if key not in ours:
            count.missing += 1
            report.missing.append(f"{kind}/{name}")
            continue
        if key not in theirs:
            count.extra += 1
            report.extra.append(f"{kind}/{name}")
            continue
        fields, diffs = compare_object(ours[key], theirs[key])
        count.fields += fields
        for path, mine, their in diffs:
            rule = next((r for r in DOCUMENTED_DIFFERENCES if r.matches(kind, theirs[key], ours[key], path)), None)
            if rule is None:
                count.differing += 1
                report.differences.append(Difference(kind, name, path, mine, their))
            else:
                count.documented += 1
                report.documented.append((f"{kind}/{name} {path}", rule.reason))
    return report


def _hashes(docs: list[dict[str, Any]]) -> dict[str, str]:
    """graph name -> worker hash, from the hash label of each graph's objects."""
    out: dict[str, str] = {}
    for doc in docs:
        labels = (doc.get("metadata") or {}).get("labels") or {}
        if WORKER_HASH_LABEL in labels and GRAPH_LABEL in labels:
            out.setdefault(str(labels[GRAPH_LABEL]), str(labels[WORKER_HASH_LABEL]))
    return out


def _worker_hash(doc: Mapping[str, Any]) -> str:
    return str(((doc.get("metadata") or {}).get("labels") or {}).get(WORKER_HASH_LABEL) or "")


def _replace_strings(node: Any, pattern: re.Pattern[str], mapping: Mapping[str, str]) -> Any:
    """Every string below ``node`` with each key of ``mapping`` replaced by its value, all at once
    (one graph's hash may be another's in the same file: chained replacements would swap them)."""
    if isinstance(node, str):
        return pattern.sub(lambda m: mapping[m.group(0)], node)
    if isinstance(node, dict):
        return {_replace_strings(k, pattern, mapping): _replace_strings(v, pattern, mapping) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_strings(v, pattern, mapping) for v in node]
    return node


def _their_worker_hash(ours: list[dict[str, Any]], theirs: list[dict[str, Any]],
                       report: GraphReport) -> list[dict[str, Any]]:
    """Our objects with our worker hash replaced by the operator's, graph by graph."""
    mine, their = _hashes(ours), _hashes(theirs)
    mapping = {value: their[graph] for graph, value in mine.items() if their.get(graph) and their[graph] != value}
    # Objects without the graph label (Grove's Services) pair by kind and name, graph by graph.
    by_key = {object_key(o)[1::2]: _worker_hash(o) for o in theirs if _worker_hash(o)}
    for doc in ours:
        value, other = _worker_hash(doc), by_key.get(object_key(doc)[1::2])
        if value and other and other != value:
            mapping.setdefault(value, other)
    if not mapping:
        return ours
    report.documented += [(f"worker hash {a} => {b}", WORKER_HASH_REASON) for a, b in sorted(mapping.items())]
    return _replace_strings(ours, re.compile("|".join(re.escape(k) for k in sorted(mapping))), mapping)


def _by_key(docs: list[dict[str, Any]], crds: CrdSchemas, ns: str, report: GraphReport) -> dict[Any, dict[str, Any]]:
    out: dict[Any, dict[str, Any]] = {}
    for doc in docs:
        kind, name = doc.get("kind", ""), (doc.get("metadata") or {}).get("name", "")
        why = DOCUMENTED_OBJECTS.get((kind, name))
        if why is not None:
            report.documented.append((f"{kind}/{name}", why))
            continue
        norm, dropped = normalised(doc, crds, ns)
        report.documented += [(f"{kind}/{name} {path}", why) for path, why in dropped]
        out[object_key(norm)] = norm
    return out


def crd_schemas() -> CrdSchemas:
    return CrdSchemas(sorted(SHARED_CRDS.glob("*.yaml")) if SHARED_CRDS.is_dir() else [])


def recordings(directory: Path = RECORDINGS) -> list[Path]:
    return sorted(directory.glob("*.yaml"))


def compare_all(paths: list[Path], platforms: tuple[str, ...] = PLATFORMS, mode: str = "render") -> list[GraphReport]:
    crds = crd_schemas()
    reports = []
    for path in paths:
        rec = load_recording(path)
        for platform in platforms:
            if platform in rec["platforms"]:
                reports.append(compare(rec, platform, crds, mode))
    return reports


# -- report ----------------------------------------------------------------------------------------


def summary(reports: list[GraphReport]) -> dict[str, Any]:
    kinds: dict[str, KindCount] = defaultdict(KindCount)
    for r in reports:
        for kind, c in r.kinds.items():
            k = kinds[kind]
            k.objects += c.objects
            k.missing += c.missing
            k.extra += c.extra
            k.fields += c.fields
            k.differing += c.differing
            k.documented += c.documented
    return {"graphs": len({r.id for r in reports}), "comparisons": len(reports),
            "agree": sum(r.agrees for r in reports), "kinds": dict(sorted(kinds.items()))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m localcluster.agreement", description=__doc__.splitlines()[0])
    p.add_argument("--recordings", type=Path, default=RECORDINGS)
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--json", type=Path, help="write every report as JSON")
    p.add_argument("--mode", choices=("render", "operator"), default="render")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    paths = [x for x in recordings(args.recordings) if not args.only or any(o in x.stem for o in args.only)]
    reports = compare_all(paths, mode=args.mode)
    for r in reports:
        if r.agrees and not args.verbose:
            continue
        print(f"== {r.id} [{r.platform}] ours: {r.ours[:120]} | operator: {r.theirs[:120]}")
        for m in r.missing:
            print(f"   missing: {m}")
        for e in r.extra:
            print(f"   extra: {e}")
        for d in r.differences:
            print(f"   {d.line()}")
    s = summary(reports)
    print(json.dumps({k: v for k, v in s.items() if k != "kinds"}))
    for kind, c in s["kinds"].items():
        print(f"{kind:32} objects {c.objects:5} missing {c.missing:4} extra {c.extra:4} "
              f"fields {c.fields:7} differing {c.differing:5} documented {c.documented:5}")
    if args.json:
        args.json.write_text(json.dumps([copy.deepcopy(r.__dict__) for r in reports], default=lambda o: o.__dict__,
                                        indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
