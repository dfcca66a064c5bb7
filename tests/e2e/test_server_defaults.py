"""The defaults the comparison with the recorded operator adds (``localcluster/server_defaults.py``)
are the ones the API server adds: rendered objects go through a server-side dry run (built-in
defaulting, CRD schema defaults, LWS's live defaulting webhook) and come back equal to what the
rules predict. A default the rules miss, or one they invent, fails here.

One dry run per platform setting, of every object several graphs render: the component pathway
(Deployments, Services, RBAC, claim templates), LWS (LeaderWorkerSets through the webhook) and
Grove (PodCliqueSets against their CRD's schema).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dynamo_pulumi.cli.validate_cmd import load_contents
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.loading.documents import GRAPH_KINDS
from dynamo_pulumi.verdict.deployability import judge
from localcluster.agreement import crd_schemas, drop_empty, leaves
from localcluster.cluster import LocalCluster
from localcluster.operators import Controller
from localcluster.oracle_sources import prepared_file
from localcluster.recorder import platform_for
from localcluster.server_defaults import with_defaults
from localcluster.stored import stripped
from localcluster.tools import REPO

CORPUS = REPO.parent / "shared" / "conformance" / "corpus"
GRAPHS = {
    "pathway": [REPO / "examples/aggregated-vllm/graph.yaml", REPO / "examples/disaggregated-planner/graph.yaml",
                CORPUS / "vllm-agg_failover.yaml", CORPUS / "sglang-agg.yaml", CORPUS / "vllm-lora-agg_lora.yaml"],
    "lws": [REPO / "examples/multinode-grove/graph.yaml", CORPUS / "trtllm-disagg-multinode.yaml"],
    "grove": [REPO / "examples/multinode-grove/graph.yaml", CORPUS / "vllm-disagg.yaml"],
}
# Dynamo custom resources: their v1alpha1 forms need the operator's conversion webhook (the
# recorded comparison holds them to the operator itself).
SKIP_KINDS = {"DynamoComponentDeployment", "DynamoGraphDeploymentScalingAdapter"}


def _render(path: Path, setting: str, namespace: str) -> list[dict]:
    text = yaml.safe_dump_all(prepared_file(path), sort_keys=False)  # placeholder tags pinned
    contents = load_contents(SourceText(text, str(path)), str(path))
    out = []
    for _, loaded in contents.loaded:
        if loaded.object.kind not in GRAPH_KINDS:
            continue
        verdict = judge(loaded, platform_for(setting), namespace, mode="render", objects=contents.others,
                        for_expansion=True)
        assert verdict.rendered is not None, [e.message for e in verdict.errors]
        out += [o for o in verdict.rendered.objects if o["kind"] not in SKIP_KINDS]
    return out


def _json_stream(text: str) -> list[dict]:
    """kubectl prints one JSON document per created object, one after the other."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)
    return out


@pytest.mark.parametrize("setting", sorted(GRAPHS))
def test_the_api_server_adds_exactly_the_defaults_the_comparison_adds(
        setting: str, cluster: LocalCluster, lws_controller: Controller, namespace: str):
    graphs = [g for g in GRAPHS[setting] if g.is_file()]
    if not graphs:
        pytest.skip("../shared/conformance/corpus is not present")
    rendered = [o for g in graphs for o in _render(g, setting, namespace)]
    by_key = {(o["kind"], o["metadata"]["name"]): o for o in rendered}
    payload = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(by_key.values())})
    result = cluster.kubectl_result("create", "--dry-run=server", "-n", namespace, "-o", "json", "-f", "-",
                                    input=payload)
    assert result.returncode == 0, result.stderr
    stored = _json_stream(result.stdout)
    crds = crd_schemas()
    compared = 0
    for obj in stored:
        ours = by_key[(obj["kind"], obj["metadata"]["name"])]
        predicted = dict(leaves(drop_empty(stripped(with_defaults(ours, crds)))))
        actual = dict(leaves(drop_empty(stripped(obj))))
        assert predicted == actual, {p: (predicted.get(p), actual.get(p)) for p in set(predicted) | set(actual)
                                     if predicted.get(p) != actual.get(p)}
        compared += 1
    assert compared == len(by_key) >= 5
