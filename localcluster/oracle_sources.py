"""The graphs recorded through the real Dynamo operator: corpus, examples and upstream manifests.

Each source is one file's documents (a graph with its companion objects: PVCs, ConfigMaps,
claim templates), identified by a stable id that names its recording. Published manifests often
carry placeholder image tags (``my-tag``, ``${VERSION}``), which the operator's webhook refuses
without ``runtimeVersionOverride``; every component whose runtime image has no semver tag and no
override is pinned to ``PINNED_RUNTIME_VERSION``, the change a user has to make to apply the file
(the corpus tests pin the same way). The prepared documents are what the recording stores and the
comparison renders, so the rule is applied once, here.
"""

from __future__ import annotations

import copy
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .tools import REPO

PINNED_RUNTIME_VERSION = "1.4.0"
CORPUS = REPO.parent / "shared" / "conformance" / "corpus"
EXAMPLES = REPO / "examples"
DYNAMO_KINDS = ("DynamoGraphDeployment", "DynamoComponentDeployment")
UPSTREAM_REPO = "ai-dynamo/dynamo (mirror wxsms/dynamo)"


@dataclass
class Source:
    """One input file: its id (the recording's name), where it came from and its documents."""

    id: str
    origin: str  # corpus | example | upstream
    provenance: dict[str, str]
    documents: list[dict[str, Any]]
    pinned: list[str] = field(default_factory=list)

    @property
    def graphs(self) -> list[dict[str, Any]]:
        return [d for d in self.documents if d.get("kind") in DYNAMO_KINDS]


def _docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]


def slug(path: str) -> str:
    stem = re.sub(r"\.ya?ml$", "", path)
    return re.sub(r"[^a-z0-9.]+", "-", stem.lower()).strip("-")


def corpus_sources(corpus: Path = CORPUS) -> Iterator[Source]:
    index = _corpus_index(corpus)
    for path in sorted(corpus.glob("*.yaml")):
        row = index.get(path.name, {})
        yield Source(f"corpus-{slug(path.name)}", "corpus",
                     {"file": f"../shared/conformance/corpus/{path.name}", "repo": row.get("source_repo", ""),
                      "path": row.get("source_path", ""), "commit": row.get("commit", "")},
                     _docs(path.read_text()))


def _corpus_index(corpus: Path) -> dict[str, dict[str, str]]:
    index = corpus / "INDEX.tsv"
    if not index.is_file():
        return {}
    lines = index.read_text().splitlines()
    header = lines[0].split("\t")
    return {row[0]: dict(zip(header, row, strict=False)) for row in (line.split("\t") for line in lines[1:])}


def example_sources(examples: Path = EXAMPLES) -> Iterator[Source]:
    for path in sorted(examples.glob("*/graph.yaml")):
        rel = path.relative_to(REPO).as_posix()
        yield Source(f"example-{slug(path.parent.name)}", "example", {"file": rel}, _docs(path.read_text()))
    default = REPO / "dynamo_pulumi" / "data" / "default-graph.yaml"  # the root program's embedded graph
    rel = default.relative_to(REPO).as_posix()
    yield Source("example-root-default", "example", {"file": rel}, _docs(default.read_text()))


def upstream_sources(git_dir: Path, commit: str, skip_paths: set[str]) -> Iterator[Source]:
    """Every YAML file of the upstream repository at ``commit`` with a DGD or DCD document that
    parses as plain YAML (Helm templates do not), except the paths already in the corpus."""
    listed = subprocess.run(
        ["git", f"--git-dir={git_dir}", "grep", "-lE", r"^kind: *(DynamoGraphDeployment|DynamoComponentDeployment)\s*$",
         commit, "--", "*.yaml", "*.yml"], capture_output=True, text=True, check=False).stdout.split()
    for entry in sorted(listed):
        path = entry.split(":", 1)[1]
        if path in skip_paths:
            continue
        text = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        try:
            docs = _docs(text)
        except yaml.YAMLError:
            continue
        if any(d.get("kind") in DYNAMO_KINDS for d in docs):
            yield Source(f"upstream-{slug(path)}", "upstream",
                         {"repo": UPSTREAM_REPO, "path": path, "commit": commit}, docs)


def corpus_upstream_paths(corpus: Path = CORPUS) -> set[str]:
    return {row.get("source_path", "") for row in _corpus_index(corpus).values()}


# -- preparation -----------------------------------------------------------------------------------


def prepared_file(path: Path) -> list[dict[str, Any]]:
    """The documents of one YAML file as they would be submitted (``prepared``)."""
    return prepared(Source(slug(path.name), "file", {"file": str(path)}, _docs(path.read_text()))).documents


def prepared(source: Source) -> Source:
    """The documents as submitted: a runtime version pinned where admission needs one."""
    docs = copy.deepcopy(source.documents)
    pinned: list[str] = []
    for doc in docs:
        if doc.get("kind") in DYNAMO_KINDS:
            pinned += _pin(doc)
    return Source(source.id, source.origin, source.provenance, docs, pinned)


def _pin(doc: dict[str, Any]) -> list[str]:
    from dynamo_pulumi.errors import DynamoPulumiError
    from dynamo_pulumi.loading.documents import load_documents
    from dynamo_pulumi.model.runtime_version import resolve_runtime_version

    try:
        loaded = load_documents([copy.deepcopy(doc)]).loaded
    except (DynamoPulumiError, ValueError, TypeError):
        return []  # refused as written: submitted unchanged, the operator's answer is recorded
    if not loaded:
        return []
    obj = loaded[0].object
    alpha = str(doc.get("apiVersion", "")).endswith("v1alpha1")
    spec = doc.setdefault("spec", {})
    out: list[str] = []
    if obj.kind == "DynamoComponentDeployment":
        if resolve_runtime_version(obj.spec) is None and isinstance(spec, dict):
            spec["runtimeVersionOverride"] = PINNED_RUNTIME_VERSION
            out.append("spec.runtimeVersionOverride")
        return out
    for comp in getattr(obj.spec, "components", None) or []:
        if resolve_runtime_version(comp) is not None:
            continue
        target = _component_entry(spec, comp.name, alpha)
        if target is not None:
            target["runtimeVersionOverride"] = PINNED_RUNTIME_VERSION
            out.append(f"{comp.name}.runtimeVersionOverride")
    return out


def _component_entry(spec: dict[str, Any], name: str, alpha: bool) -> dict[str, Any] | None:
    if alpha:
        services = spec.get("services") or {}
        entry = services.get(name)
        return entry if isinstance(entry, dict) else None
    for entry in spec.get("components") or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None
