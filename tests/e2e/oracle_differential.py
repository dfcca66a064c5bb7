"""The differential run: each mutation judged by our verdict and by the API server.

Ours is what ``dynamo-pulumi validate --mode M`` answers (each document loaded, then
:func:`dynamo_pulumi.verdict.deployability.judge`). The API server's is a dry-run create, with strict field
validation, of what that mode sends: in render mode every object the rendering makes (rendered
whatever our verdict says, so a refusal of ours can be compared), in operator mode the
DynamoGraphDeployment itself.

A field is compared where both sides name it: the path inside the pod template (the user's
``spec.components[i].podTemplate.spec...`` and a Deployment's ``spec.template.spec...`` are one
place), list items by their ``name`` (rendering adds containers, env and ports, so indexes differ),
a trailing map key dropped (``requests[nvidia.com/gpu]`` is ``requests``). Every disagreement is
either documented here, with the reason (:data:`DOCUMENTED`, :data:`STAGE_REASONS`), or a bug.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.api.v1beta1_helpers import GraphHelpers
from dynamo_pulumi.errors import DynamoPulumiError, ErrorType, FieldError, GraphValidationError
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.loading.documents import load_each
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.verdict.deployability import judge
from e2e.oracle_mutations import Doc, Mutation
from e2e.oracle_sweep import custom_resource, table
from localcluster.dryrun import DryRunner, Outcome

PLATFORM = Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}})

BOTH_ACCEPT = "both accept"
SAME_FIELD = "both refuse, same field"
WE_ACCEPT = "we accept, it refuses"
WE_REFUSE = "we refuse, it accepts"
DIFFERENT_FIELDS = "both refuse, different fields"
CATEGORIES = (BOTH_ACCEPT, SAME_FIELD, WE_ACCEPT, WE_REFUSE, DIFFERENT_FIELDS)
AGREEING = (BOTH_ACCEPT, SAME_FIELD)

#: Where a pod spec sits in each object a mode sends.
_POD_PREFIXES = (
    "spec.template.spec.", "spec.template.metadata.",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.", "spec.leaderWorkerTemplate.workerTemplate.spec.",
)
_USER_POD = re.compile(r"^spec\.components\[(\d+)\]\.podTemplate\.(spec|metadata)(\..*)?$")
_RENDERED = re.compile(r'^(\w+) "([^"]*)"\.(.*)$')
#: A refusal whose field the API server does not name (a value its decoder cannot read).
UNNAMED = "?"


@dataclass(frozen=True)
class Finding:
    """One refusal: its field (normalised for comparison), the text, and, for ours, the stage."""

    where: str
    text: str
    stage: str = ""


@dataclass
class Judgement:
    mutation: Mutation
    mode: str
    ours: list[Finding]
    theirs: list[Finding]
    #: The rendering refused the graph, so render mode sends nothing.
    nothing_sent: bool = False

    @property
    def category(self) -> str:
        if not self.ours and not self.theirs:
            return BOTH_ACCEPT
        if self.ours and (self.nothing_sent or not self.theirs):
            return WE_REFUSE
        if not self.ours:
            return WE_ACCEPT
        if _same_field(self.ours, self.theirs):
            return SAME_FIELD
        return DIFFERENT_FIELDS

    @property
    def documented(self) -> str:
        """Why a disagreement is expected ("" for an agreement or an undocumented one)."""
        if self.category in AGREEING:
            return ""
        reason = DOCUMENTED.get((self.mode, self.mutation.rule))
        if reason and (self.category in reason[0]):
            return reason[1]
        if self.category == WE_REFUSE and self.ours and all(f.stage in STAGE_REASONS[self.mode] for f in self.ours):
            return "; ".join(sorted({STAGE_REASONS[self.mode][f.stage] for f in self.ours}))
        return ""


def _parent(where: str) -> str:
    """``where`` one step up: ``a.b[k]`` -> ``a.b``, ``a.b.c`` -> ``a.b``."""
    return re.sub(r"(\[[^\]]*\]|\.[^.\[]+)$", "", where)


def _same_field(ours: Sequence[Finding], theirs: Sequence[Finding]) -> bool:
    """Some field both name, up to one step: the API server reports a duplicate at the list item
    (``containers[2]``) where we name its key (``containers[2].name``), a request at the map
    (``resources.requests``) where we name the resource. A refusal that names no field (a value
    the decoder could not read) agrees with any of ours."""
    if any(f.where == UNNAMED for f in theirs):
        return True
    mine = {f.where for f in ours} | {_parent(f.where) for f in ours}
    return any(f.where in mine or _parent(f.where) in {f.where for f in ours} for f in theirs)


# --- what we say ---------------------------------------------------------------------------------


def _named(path: str, spec: Any) -> str:
    """``path`` (inside a pod spec, or ``metadata...``) with each list index replaced by the
    item's name where it has one, so a container is the same container before and after
    rendering reorders them."""
    out, node = "", spec
    for token in re.finditer(r"\[([^\]]*)\]|\.?([^.\[]+)", path):
        index, name = token.group(1), token.group(2)
        if index is not None and index.isdigit() and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
            label = node.get("name") if isinstance(node, Mapping) and isinstance(node.get("name"), str) else index
            out += f"[{label}]"
        elif index is not None:
            out += f"[{index}]"
            node = node.get(index) if isinstance(node, Mapping) else None
        else:
            out += f".{name}" if out else name
            node = node.get(name) if isinstance(node, Mapping) else None
    return out


def _pod_spec_of(obj: Mapping[str, Any], path: str) -> tuple[str, Any] | None:
    """The pod-relative path (``spec.<...>`` / ``metadata.<...>``) of ``path`` in ``obj``."""
    for prefix in _POD_PREFIXES:
        if path.startswith(prefix):
            holder = prefix.rsplit(".", 2)[0]  # spec.template / ...workerTemplate
            node: Any = obj
            for part in holder.split("."):
                node = node.get(part) if isinstance(node, Mapping) else None
            return f"{prefix.rsplit('.', 2)[1]}.{path[len(prefix):]}", node
    return None


#: A CRD schema error names a map key after a dot (``annotations.example.com/x``), the built-in
#: validation and we in brackets (``annotations[example.com/x]``).
_DOTTED_KEY = re.compile(r"(\.(?:labels|annotations|nodeSelector|limits|requests))\.(.+)$")


def normalised(path: str, obj: Mapping[str, Any]) -> str:
    """Where an error on ``obj`` at ``path`` is, in terms both sides share."""
    path = _DOTTED_KEY.sub(r"\1[\2]", path)
    match = _USER_POD.match(path)
    if match and obj.get("kind") == "DynamoGraphDeployment":
        return user_pod_where(obj, int(match.group(1)), match.group(2), match.group(3) or "")
    found = _pod_spec_of(obj, path)
    if found is not None:
        rel, template = found
        return _named(rel, template)
    if path.startswith("metadata.") or path == "metadata":
        return re.sub(r"^metadata\.(name|namespace)$", r"metadata.name", path)
    return f"{obj.get('kind', '?')}:{_named(path, obj)}"


def user_pod_where(doc: Mapping[str, Any], i: int, part: str, rest: str) -> str:
    """A field of component ``i``'s pod template in the graph, pod-relative and named."""
    components = (doc.get("spec") or {}).get("components") or []
    template = (components[i].get("podTemplate") or {}) if i < len(components) else {}
    return _named(_DOTTED_KEY.sub(r"\1[\2]", f"{part}{rest}"), template)


def our_where(error: FieldError, doc: Doc, rendered: Sequence[Mapping[str, Any]]) -> str:
    path = str(error.path)
    match = _USER_POD.match(path)
    if match:
        return user_pod_where(doc, int(match.group(1)), match.group(2), match.group(3) or "")
    match = _RENDERED.match(path)
    if match:
        kind, name, rest = match.groups()
        obj = next((o for o in rendered if o.get("kind") == kind and (o.get("metadata") or {}).get("name") == name), None)
        # In operator mode the rendered object is the prediction, not what is sent: its kind
        # still tells where its pod template is.
        return normalised(rest, obj if obj is not None else {"kind": kind})
    if path.startswith("metadata."):
        return path
    return f"DynamoGraphDeployment:{_named(path, doc)}"


def _our_errors(doc: Doc, mode: str, namespace: str) -> tuple[list[FieldError], str]:
    """What ``validate --mode`` refuses, and the stage that refused it (``load``: the document
    could not be loaded; ``verdict``: see :func:`stage_of`)."""
    (outcome,) = load_each(SourceText(yaml.safe_dump(doc, sort_keys=False), "graph.yaml"))
    if isinstance(outcome.error, GraphValidationError):
        return list(outcome.error.errors), "load"
    if outcome.error is not None:
        return [FieldError(ErrorType.INVALID, "", str(outcome.error))], "load"
    assert outcome.loaded is not None
    verdict = judge(outcome.loaded, PLATFORM, namespace, mode=mode, client="kubectl")
    return verdict.validate_errors(), "verdict"


def stage_of(doc: Doc, mode: str, namespace: str, errors: Sequence[FieldError]) -> dict[str, str]:
    """For each of our error texts, the stage of the verdict that reports it: ``schema/CEL`` (the
    API server's own stages for the graph), ``webhook`` (the operator's admission), ``rendering``
    (the API server's rules over the objects rendered, or a refusal of rendering)."""
    from dynamo_pulumi.defaulting.webhooks import default_graph
    from dynamo_pulumi.validation.admission_common import Request, schema_errors
    from dynamo_pulumi.validation.cel import validate_graph_cel
    from dynamo_pulumi.validation.object_meta import object_meta_errors
    from dynamo_pulumi.verdict.update import create_verdict

    (outcome,) = load_each(SourceText(yaml.safe_dump(doc, sort_keys=False), "graph.yaml"))
    loaded = outcome.loaded
    assert loaded is not None
    graph = loaded.object
    defaulted = default_graph(graph, PLATFORM, "create") if isinstance(graph, GraphHelpers) else graph
    request = Request(loaded.source_api_version, namespace)
    api_server = {str(e) for e in schema_errors(defaulted, request) or validate_graph_cel(defaulted)}  # type: ignore[arg-type]
    admission = {str(e) for e in create_verdict(loaded, PLATFORM, mode, namespace).errors}
    metadata = {str(e) for e in object_meta_errors(graph.to_wire())}
    stages = {}
    for e in errors:
        text = str(e)
        stages[text] = ("object metadata" if text in metadata else "schema/CEL" if text in api_server
                        else "webhook" if text in admission else "rendering")
    return stages


# --- what the API server is sent -------------------------------------------------------------------


def sent_objects(doc: Doc, mode: str, namespace: str) -> list[dict[str, Any]] | None:
    """What ``mode`` creates for ``doc``, rendered regardless of our verdict (None when the
    rendering refuses it: nothing is sent)."""
    from dynamo_pulumi.defaulting.webhooks import default_graph
    from dynamo_pulumi.loading.documents import LoadedObject
    from dynamo_pulumi.render import render_graph_deployment

    doc = {**doc, "metadata": {**doc.get("metadata", {}), "namespace": namespace}}
    try:
        graph = DynamoGraphDeployment.model_validate(doc)
    except ValueError:
        graph = None
    if mode == "operator":
        if graph is None:  # a document our models refuse is sent as written
            return [{**doc, "apiVersion": "nvidia.com/v1beta1"}]
        return [custom_resource(LoadedObject(object=graph), namespace)]
    if graph is None:
        return None
    try:
        # The rendering without its own name and label checks (render_graph's last step): a name
        # it would refuse is sent, so the API server's answer can be compared with that refusal.
        result = render_graph_deployment(default_graph(graph, PLATFORM), PLATFORM, namespace)
    except (DynamoPulumiError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return list(result.objects)


def _their_findings(objects: Sequence[Mapping[str, Any]], outcomes: Sequence[Outcome]) -> list[Finding]:
    findings = []
    for obj, outcome in zip(objects, outcomes, strict=True):
        if not outcome.refused:
            continue
        if not outcome.causes:
            findings.append(Finding(UNNAMED, f"{outcome.label}: {outcome.message}"))
        for cause in outcome.causes:
            if cause.field == "<nil>":  # "some validation rules were not checked ...": no rule of its own
                continue
            where = normalised(cause.field, obj) if cause.field else UNNAMED
            findings.append(Finding(where, f"{outcome.label}: {cause.field}: {cause.message}"))
    return findings


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class Prepared:
    mutation: Mutation
    mode: str
    doc: Doc
    errors: list[FieldError]
    error_stage: str
    objects: list[dict[str, Any]] | None


def prepare(mutation: Mutation, base: Doc, namespace: str) -> list[Prepared]:
    doc = mutation.document(base)
    prepared = []
    for mode in mutation.modes:
        errors, stage = _our_errors(doc, mode, namespace)
        prepared.append(Prepared(mutation, mode, doc, errors, stage, sent_objects(doc, mode, namespace)))
    return prepared


def judge_all(runner: DryRunner, mutations: Sequence[Mutation], base: Doc, namespace: str) -> list[Judgement]:
    """Every mutation in every mode it applies to, the API server's side sent in one batch."""
    prepared = [p for m in mutations for p in prepare(m, base, namespace)]
    distinct: dict[str, dict[str, Any]] = {}
    for p in prepared:
        for obj in p.objects or ():
            distinct.setdefault(json.dumps(obj, sort_keys=True), obj)
    runner.ensure_namespaces([namespace])
    keys = list(distinct)
    answers = dict(zip(keys, runner.run([distinct[k] for k in keys]), strict=True))
    judgements = []
    for p in prepared:
        objects = p.objects or []
        outcomes = [answers[json.dumps(o, sort_keys=True)] for o in objects]
        stages = stage_of(p.doc, p.mode, namespace, p.errors) if p.errors and p.error_stage == "verdict" else {}
        ours = [Finding(our_where(e, p.doc, objects), str(e), stages.get(str(e), p.error_stage)) for e in p.errors]
        judgements.append(Judgement(p.mutation, p.mode, ours, _their_findings(objects, outcomes), p.objects is None))
    return judgements


# --- documented disagreements -----------------------------------------------------------------------

#: Our stages the API server does not run for what a mode sends, and why we refuse there anyway.
STAGE_REASONS: dict[str, dict[str, str]] = {
    "operator": {
        "webhook": "the operator's validating webhook refuses it (the local cluster runs no operator)",
        "rendering": "the API server checks only the schema of a pod template inside a custom resource; the "
                     "objects the operator creates from it would be refused, so we refuse before applying",
    },
    "render": {
        "webhook": "the operator's admission of the graph refuses it: render mode holds a graph to what the "
                   "operator admits, so switching modes never turns a valid graph invalid",
        "schema/CEL": "the graph's own CRD schema or CEL refuses it: render mode holds a graph to what the "
                      "operator admits, so switching modes never turns a valid graph invalid",
        "load": "the graph's own CRD schema refuses it (strict field validation of the graph file): render mode "
                "holds a graph to what kubectl apply of the graph accepts",
        "object metadata": "the graph's own metadata is one the API server refuses on any object: render mode "
                           "never sends the graph, but holds it to what kubectl apply of the file accepts",
    },
}

#: (mode, rule) -> (the categories it explains, why). Each is a known difference between our
#: verdict and Kubernetes v1.35's API server, kept on purpose.
_RESTART_RULES = (
    "Kubernetes 1.35 accepts a container restartPolicy beyond init containers' Always (ContainerRestartRules: "
    "alpha in 1.34, beta and on by default in 1.35); older API servers, and 1.35 with the gate off, refuse it. "
    "We refuse it on purpose: the operator runs on clusters older than 1.35"
)
_LEFT_OUT = "not judged offline (docs/ARCHITECTURE.md, the API server's rules, 'Left out': {})"
DOCUMENTED: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("render", "regular-restart-policy"): ((WE_REFUSE,), _RESTART_RULES),
    ("render", "init-restart-policy"): ((WE_REFUSE,), _RESTART_RULES),
    ("render", "mount-path"): ((WE_REFUSE,), "rendering refuses a volume mount without a mountPath as the operator's "
                               "pod builder does (nothing is created), so there is nothing to send"),
    ("render", "sub-path"): ((DIFFERENT_FIELDS,), "the API server reports a subPath at containers[i].volumeMounts.subPath, "
                             "without the mount's index (validateLocalDescendingPath is given the list's path); we name "
                             "the mount"),
    ("render", "dns-config"): ((WE_ACCEPT,), _LEFT_OUT.format("DNS config")),
    ("render", "host-aliases"): ((WE_ACCEPT,), _LEFT_OUT.format("host aliases")),
    ("render", "security-context"): ((WE_ACCEPT,), _LEFT_OUT.format("security contexts, sysctls")),
    ("render", "source-details"): ((WE_ACCEPT,), _LEFT_OUT.format("the details inside each volume source")),
    ("operator", "epp-config-schema"): ((WE_REFUSE, WE_ACCEPT), "the operator's defaulting webhook decodes "
        "eppConfig.config into its Go type and writes it back before the API server's schema runs: a missing weight "
        "(no omitempty) comes back null and is refused, a missing plugin type comes back \"\" and passes the schema's "
        "required. The local cluster runs no operator, so its API server judges the config as written. Both probed on "
        "the real operator in both versions (tests/fixtures/operator_probes/epp-config.yaml, cases no-weight and "
        "no-type-no-profiles; api/epp_schema.py)"),
    ("operator", "schema-bounds"): ((WE_ACCEPT, DIFFERENT_FIELDS), "type: lpx is in the newest operator's enum "
        "(api-and-validation.md: LPX exists only in the newest files); this cluster's CRD snapshot predates it"),
}


# --- reporting --------------------------------------------------------------------------------------


def agreement_table(judgements: Sequence[Judgement]) -> str:
    per: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for j in judgements:
        per[(j.mutation.family, j.mode)][j.category] += 1
        per[("all", j.mode)][j.category] += 1
    order = [*dict.fromkeys(j.mutation.family for j in judgements), "all"]
    rows = [(family, mode, sum(per[(family, mode)].values()), *(per[(family, mode)][c] for c in CATEGORIES))
            for family in order for mode in ("render", "operator") if per.get((family, mode))]
    return table(rows, ("family", "mode", "mutations", *CATEGORIES))


def disagreements(judgements: Sequence[Judgement]) -> list[Judgement]:
    return [j for j in judgements if j.category not in AGREEING]


def disagreement_lines(judgements: Sequence[Judgement], documented: bool | None = None) -> list[str]:
    lines = []
    for j in disagreements(judgements):
        if documented is not None and bool(j.documented) != documented:
            continue
        ours = "; ".join(f"[{f.stage}] {f.where}: {f.text}" for f in j.ours) or "-"
        theirs = "; ".join(f"{f.where}: {f.text}" for f in j.theirs) or ("nothing sent" if j.nothing_sent else "-")
        lines.append(f"{j.mutation.ident} [{j.mode}] {j.category}: {j.mutation.description}\n"
                     f"    ours:   {ours[:600]}\n    theirs: {theirs[:600]}"
                     + (f"\n    documented: {j.documented}" if j.documented else ""))
    return lines
