"""Every object we render from every corpus graph and example, judged by a real API server.

Each graph is rendered as ``dynamo-pulumi render --stage all`` renders it (the verdict's
rendering, features only operator mode deploys included) at each platform setting that applies
to it: the component pathway with Deployments, the component pathway with LeaderWorkerSet, and
Grove. A setting applies when rendering accepts the graph there (a multinode graph has no
orchestrator without LWS or Grove; a standalone DCD never goes to Grove); a refusal is listed with
its reason. In operator mode the custom resource itself, as Pulumi sends it, is judged instead.
The Python example programs run under Pulumi mocks and every Kubernetes object they register is
judged as registered.

Identical objects (a graph that renders alike under two settings) are sent once. Kinds the
cluster does not serve are counted and listed as not judged, never guessed.
"""

from __future__ import annotations

import json
import runpy
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dynamo_pulumi.api.v1beta1 import API_VERSION
from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.cli.validate_cmd import load_contents
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.loading.documents import GRAPH_KINDS, LoadedObject
from dynamo_pulumi.model.deploy_mode import without_unsent_metadata
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.verdict.deployability import Verdict, judge
from localcluster.dryrun import DryRunner, Outcome

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "conformance" / "corpus"
EXAMPLES = REPO / "examples"
#: The version every placeholder-image component is pinned to (``my-tag``, ``${VERSION}``): what a
#: user adds before applying a published file, and the only change made to any input.
PINNED_RUNTIME_VERSION = "1.4.0"
#: The topology the Grove docs' examples name, declared so their constraints are admitted.
TOPOLOGIES = {"my-cluster-topology": ["region", "zone", "block", "rack", "host"]}
#: An ingress controller and an Istio gateway, so every frontend also renders its Ingress and
#: VirtualService (and an EPP its DestinationRule, with Istio as the service mesh).
INGRESS = {"controllerClassName": "nginx", "controllerTLSSecretName": "dynamo-tls", "hostSuffix": "example.com",
           "virtualServiceGateway": "istio-system/ingress-gateway"}


@dataclass(frozen=True)
class Setting:
    """One platform setting: the orchestrators the operator has, on top of a graph's own platform."""

    name: str
    grove: bool
    lws: bool

    def platform(self, base: Platform) -> Platform:
        wire = base.to_wire()
        wire.setdefault("orchestrators", {})
        wire["orchestrators"]["grove"] = {**wire["orchestrators"].get("grove", {}), "enabled": self.grove}
        wire["orchestrators"]["lws"] = {"enabled": self.lws}
        wire.setdefault("checkpoint", {"enabled": True})
        cluster = wire.setdefault("cluster", {})
        cluster["clusterTopologies"] = {**TOPOLOGIES, **cluster.get("clusterTopologies", {})}
        wire["ingress"] = {**INGRESS, **wire.get("ingress", {})}
        wire.setdefault("serviceMesh", {"provider": "istio"})
        return Platform.model_validate(wire)


SETTINGS = (Setting("component", grove=False, lws=False), Setting("lws", grove=False, lws=True),
            Setting("grove", grove=True, lws=True))


@dataclass(frozen=True)
class Source:
    """One input: a YAML file of graphs (with the platform file beside it, for an example) or a
    Python example program."""

    label: str
    path: Path
    platform: Path | None = None
    program: bool = False


def corpus_sources() -> list[Source]:
    if not CORPUS.is_dir():
        return []
    return [Source(f"corpus/{p.name}", p) for p in sorted(CORPUS.glob("*.yaml"))]


def example_sources() -> list[Source]:
    """Every example: its graph files (with its ``platform.yaml``) and its Python program."""
    found: list[Source] = []
    for d in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        platform = d / "platform.yaml"
        for graph in sorted(d.glob("*.yaml")):
            if graph.name not in ("platform.yaml", "Pulumi.yaml") and not graph.name.startswith("Pulumi."):
                found.append(Source(f"examples/{d.name}/{graph.name}", graph, platform if platform.is_file() else None))
        if (d / "__main__.py").is_file():
            found.append(Source(f"examples/{d.name} (program)", d / "__main__.py", program=True))
    return found


@dataclass(frozen=True)
class Batch:
    """The objects one (source, graph, setting, mode) sends, or why it sends none."""

    source: str
    graph: str
    setting: str
    mode: str
    objects: tuple[Mapping[str, Any], ...] = ()
    #: Why nothing is sent: our verdict refuses the graph, or the setting does not apply.
    skipped: str = ""
    #: Our verdict refused the graph (the custom resource is sent anyway in operator mode, to
    #: learn whether the API server refuses it too).
    refused_by_us: tuple[str, ...] = ()
    pinned: bool = False


def _needs_pin(verdict: Verdict) -> bool:
    return bool(verdict.errors) and all(str(e.path).endswith("runtimeVersionOverride") for e in verdict.errors)


def _pinned(loaded: LoadedObject) -> LoadedObject:
    """The graph with ``runtimeVersionOverride`` on each component that lacks one."""
    obj = loaded.object

    def pin(component: Any) -> Any:
        if component.runtime_version_override:
            return component
        return component.model_copy(update={"runtime_version_override": PINNED_RUNTIME_VERSION})

    if isinstance(obj, GraphHelpers):  # a model or its twin (what the CLI's loading builds)
        spec = obj.spec.model_copy(update={"components": [pin(c) for c in obj.components]})
    else:
        spec = pin(obj.spec)
    return replace(loaded, object=obj.model_copy(update={"spec": spec}))


def judged(loaded: LoadedObject, platform: Platform, namespace: str, mode: str,
           objects: Sequence[Mapping[str, Any]], for_expansion: bool) -> tuple[Verdict, LoadedObject, bool]:
    """Our verdict, pinning placeholder images when that is the only refusal."""
    verdict = judge(loaded, platform, namespace, mode=mode, objects=objects, for_expansion=for_expansion)
    if not _needs_pin(verdict):
        return verdict, loaded, False
    pinned = _pinned(loaded)
    return judge(pinned, platform, namespace, mode=mode, objects=objects, for_expansion=for_expansion), pinned, True


def custom_resource(loaded: LoadedObject, namespace: str) -> dict[str, Any]:
    """The DGD/DCD as operator mode sends it (``planning.operator_mode.custom_resource_document``):
    v1beta1, the user's metadata without what is never sent, in the target namespace."""
    wire = without_unsent_metadata(loaded.object).to_wire()  # type: ignore[arg-type]
    metadata = {**(wire.get("metadata") or {}), "namespace": namespace}
    return {"apiVersion": API_VERSION, "kind": loaded.object.kind, "metadata": metadata, "spec": wire.get("spec") or {}}


def _messages(verdict: Verdict) -> tuple[str, ...]:
    return tuple(str(e) for e in verdict.errors)


def file_batches(source: Source, namespace: str) -> list[Batch]:
    """Every batch of one YAML input: render mode per setting, then operator mode."""
    contents = load_contents(SourceText(source.path.read_text(), str(source.path)), str(source.path))
    base = load_platform(source.platform) if source.platform else Platform()
    batches = [Batch(source.label, f"document {r.document or 1}", "-", "load", skipped="; ".join(
        p.message for p in r.problems)) for r in contents.failed]
    for _, loaded in contents.loaded:
        if loaded.object.kind not in GRAPH_KINDS:
            continue
        batches += _render_batches(source, loaded, base, namespace, contents.others)
        batches.append(_operator_batch(source, loaded, base, namespace, contents.others))
    return batches


def _graph_label(loaded: LoadedObject) -> str:
    return f"{loaded.object.kind}/{loaded.object.name}"


def _render_batches(source: Source, loaded: LoadedObject, base: Platform, namespace: str,
                    others: Sequence[Mapping[str, Any]]) -> list[Batch]:
    batches = []
    for setting in SETTINGS:
        label = _graph_label(loaded)
        if setting.grove and isinstance(loaded.object, ComponentDeploymentHelpers):
            batches.append(Batch(source.label, label, setting.name, "render",
                                 skipped="a standalone DynamoComponentDeployment has no Grove pathway"))
            continue
        verdict, _, pinned = judged(loaded, setting.platform(base), namespace, "render", others, for_expansion=True)
        if verdict.errors or verdict.rendered is None:
            batches.append(Batch(source.label, label, setting.name, "render", skipped="; ".join(_messages(verdict)),
                                 refused_by_us=_messages(verdict), pinned=pinned))
            continue
        rendered = verdict.rendered
        objects = (*rendered.components, *rendered.objects)
        batches.append(Batch(source.label, label, setting.name, "render", tuple(objects), pinned=pinned))
    return batches


def _operator_batch(source: Source, loaded: LoadedObject, base: Platform, namespace: str,
                    others: Sequence[Mapping[str, Any]]) -> Batch:
    """The custom resource as sent, admitted by our verdict under some setting (else refused by
    us, and sent anyway to see whether the API server refuses it too)."""
    refusals: tuple[str, ...] = ()
    for setting in SETTINGS:
        verdict, sent, pinned = judged(loaded, setting.platform(base), namespace, "operator", others, False)
        if not verdict.errors:
            return Batch(source.label, _graph_label(loaded), setting.name, "operator",
                         (custom_resource(sent, namespace),), pinned=pinned)
        refusals = refusals or _messages(verdict)
    return Batch(source.label, _graph_label(loaded), "-", "operator", (custom_resource(loaded, namespace),),
                 refused_by_us=refusals)


# --- example programs -----------------------------------------------------------------------------

#: Pulumi types whose inputs are not a Kubernetes object (the provider, a Helm release).
_NOT_OBJECTS = ("pulumi:providers:", "kubernetes:helm.sh/")


def _object_of(type_token: str, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Kubernetes object a ``kubernetes:<group>/<version>:<Kind>`` registration sends."""
    if not type_token.startswith("kubernetes:") or type_token.startswith(_NOT_OBJECTS):
        return None
    _, gv, kind = type_token.split(":")
    obj = dict(inputs)
    if gv != "apiextensions.k8s.io" or kind != "CustomResource":
        group, _, version = gv.rpartition("/")
        obj["apiVersion"] = version if group in ("core", "") else f"{group}/{version}"
        obj["kind"] = kind.removesuffix("Patch")
    return obj


def program_batch(source: Source, namespace: str,
                  run: Callable[[Path], Iterable[tuple[str, Mapping[str, Any]]]]) -> Batch:
    """Every Kubernetes object an example program registers under mocks, in ``namespace``."""
    objects = []
    for type_token, inputs in run(source.path):
        obj = _object_of(type_token, inputs)
        if obj is None or obj.get("kind") == "Namespace":
            continue
        meta = dict(obj.get("metadata") or {})
        meta["namespace"] = namespace
        obj["metadata"] = meta
        objects.append(obj)
    mode = "operator" if any(o["apiVersion"].startswith("nvidia.com/") for o in objects) else "render"
    return Batch(source.label, "program", "program", mode, tuple(objects))


def run_example_program(main: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """(type, inputs) of every resource ``main`` registers under Pulumi mocks."""
    from dynamo_pulumi.mocks import DynamoMocks, run_program

    mocks = _eks_mocks() if main.parent.name == "eks-gpu-node-group" else DynamoMocks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        recording, _ = run_program(lambda: runpy.run_path(str(main), run_name="__main__"), mocks=mocks)
    return [(r.type, r.inputs) for r in recording.resources if r.custom]


def _eks_mocks() -> Any:
    """``eks.ManagedNodeGroup`` is a remote component: under mocks it answers as the real one
    does, with a reference to its node group carrying the labels and taints it was given."""
    from dynamo_pulumi.mocks import DynamoMocks

    class EksMocks(DynamoMocks):
        def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
            if args.typ != "eks:index:ManagedNodeGroup":
                return super().new_resource(args)
            urn = f"urn:pulumi:dev::dynamo::eks:index:ManagedNodeGroup$aws:eks/nodeGroup:NodeGroup::{args.name}"
            state = {"labels": args.inputs.get("labels"), "taints": args.inputs.get("taints"),
                     "nodeGroupName": args.name}
            return None, {"nodeGroup": self.resource_reference(urn, f"{args.name}-id", state)}

    return EksMocks()


# --- judging and reporting ------------------------------------------------------------------------


def _key(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@dataclass
class SweepReport:
    """The batches, the API server's outcome of each distinct object, and the tables."""

    batches: list[Batch]
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def batch_outcomes(self, batch: Batch) -> list[Outcome]:
        return [self.outcomes[_key(o)] for o in batch.objects]

    def sent(self) -> list[Batch]:
        return [b for b in self.batches if b.objects and not b.refused_by_us]

    def refusals(self) -> list[tuple[Batch, Outcome]]:
        """Every object of a graph our verdict accepts that the API server refuses: our bugs."""
        return [(b, o) for b in self.sent() for o in self.batch_outcomes(b) if o.refused]

    def not_judged(self) -> Counter[tuple[str, str, str]]:
        """(apiVersion, kind, why) the API server could not judge -> how many distinct objects."""
        kinds: Counter[tuple[str, str, str]] = Counter()
        for outcome in self.outcomes.values():
            if outcome.not_judged:
                kinds[(outcome.api_version, outcome.kind, outcome.not_judged)] += 1
        return kinds

    def refused_by_us(self) -> list[tuple[Batch, list[Outcome]]]:
        """Graphs our verdict refuses whose custom resource was sent anyway (operator mode)."""
        return [(b, self.batch_outcomes(b)) for b in self.batches if b.refused_by_us and b.objects]


def sweep(runner: DryRunner, batches: list[Batch]) -> SweepReport:
    """Dry-run every distinct object of ``batches`` (namespaces created first)."""
    distinct: dict[str, Mapping[str, Any]] = {}
    for batch in batches:
        for obj in batch.objects:
            distinct.setdefault(_key(obj), obj)
    namespaces = {str((o.get("metadata") or {}).get("namespace")) for o in distinct.values()
                  if (o.get("metadata") or {}).get("namespace")}
    runner.ensure_namespaces(namespaces)
    keys = list(distinct)
    outcomes = runner.run([distinct[k] for k in keys])
    return SweepReport(batches, dict(zip(keys, outcomes, strict=True)))


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """A plain-text table with aligned columns."""
    cells = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_tables(report: SweepReport) -> str:
    """The dry-run tables: per setting and mode; kinds judged; what was not judged and why."""
    per: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    rendered = {(b.source, b.graph) for b in report.batches if b.mode == "render" and b.objects}
    for b in report.batches:
        row = per[(b.mode, b.setting)]
        if b.refused_by_us and b.mode == "render" and (b.source, b.graph) in rendered:
            row["setting does not apply"] += 1  # refused here (no orchestrator, ...), rendered under another
        elif b.refused_by_us:
            row["graphs refused by our verdict"] += 1
        elif b.skipped:
            row["setting does not apply"] += 1
        else:
            row["graphs"] += 1
            outcomes = report.batch_outcomes(b)
            row["objects"] += len(outcomes)
            row["accepted"] += sum(o.accepted for o in outcomes)
            row["refused"] += sum(o.refused for o in outcomes)
            row["not judged"] += sum(bool(o.not_judged) for o in outcomes)
    cols = ("graphs", "objects", "accepted", "refused", "not judged", "setting does not apply",
            "graphs refused by our verdict")
    rows = [(mode, setting, *(per[(mode, setting)][c] for c in cols)) for mode, setting in sorted(per)]
    out = [table(rows, ("mode", "setting", *cols))]
    kinds: Counter[tuple[str, str]] = Counter()
    for o in report.outcomes.values():
        kinds[(o.kind, "accepted" if o.accepted else "refused" if o.refused else "not judged")] += 1
    kind_rows = sorted({k for k, _ in kinds})
    out.append(table([(k, kinds[(k, "accepted")], kinds[(k, "refused")], kinds[(k, "not judged")]) for k in kind_rows],
                     ("kind (distinct objects)", "accepted", "refused", "not judged")))
    missing = report.not_judged()
    if missing:
        out.append("not judged: " + "; ".join(
            f"{kind} {gv} x{n} ({why})" for (gv, kind, why), n in sorted(missing.items())))
    return "\n\n".join(out)


def refused_by_us_lines(report: SweepReport) -> list[str]:
    """Graphs our verdict refuses, and what the API server said of their custom resource (the
    operator's webhook, which is not running, refuses most of what we refuse)."""
    lines = []
    for b, outcomes in report.refused_by_us():
        answer = "; ".join("accepted" if o.accepted else f"refused ({o.message[:160]})" for o in outcomes)
        lines.append(f"{b.source} {b.graph}: ours: {b.refused_by_us[0][:160]} | the API server: {answer}")
    return lines


def refusal_lines(report: SweepReport) -> list[str]:
    return [f"{b.source} {b.graph} [{b.mode}/{b.setting}] {o.label}: {o.status} {o.message}"
            for b, o in report.refusals()]


def all_batches(namespace: str, sources: Iterable[Source] | None = None,
                run: Callable[[Path], Iterable[tuple[str, Mapping[str, Any]]]] = run_example_program) -> list[Batch]:
    batches: list[Batch] = []
    for source in sources if sources is not None else [*corpus_sources(), *example_sources()]:
        try:
            batches += [program_batch(source, namespace, run)] if source.program else file_batches(source, namespace)
        except DynamoPulumiError as exc:
            batches.append(Batch(source.label, "-", "-", "load", skipped=str(exc)))
    return batches
