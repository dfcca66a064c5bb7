"""The API server as the verdict's oracle (issue 21, section 3).

1. Every object rendered from every corpus graph and every example, at each platform setting
   that applies (component pathway with Deployments, with LeaderWorkerSet, Grove), and every
   custom resource operator mode sends, is created with ``dryRun=All`` and
   ``fieldValidation=Strict`` on the local cluster's kube-apiserver: all accepted. Kinds the
   cluster cannot judge are listed and pinned.
2. A seeded differential run: mutations drawn from the rule families of
   ``dynamo_pulumi/validation/apiserver/``, object metadata and the CRD's CEL rules, each judged
   by our verdict and by the API server; every disagreement is documented
   (``oracle_differential.DOCUMENTED``, ``STAGE_REASONS``) or the test fails.

Both need the Dynamo CRDs of ``../shared/conformance/crds`` (and the corpus beside them): without
``../shared`` the module skips. ``bench/bench_apiserver_oracle.py`` runs a longer exploration.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from e2e import oracle_differential as differential
from e2e import oracle_mutations as mutations
from e2e import oracle_sweep as sweep
from localcluster.cluster import LocalCluster
from localcluster.crds import SHARED_CRDS
from localcluster.dryrun import DryRunner, Endpoint

pytestmark = pytest.mark.skipif(not SHARED_CRDS.is_dir(), reason="../shared/conformance (CRDs, corpus) is not present")

#: Mutations of the differential run in the e2e tier (the bench runs more).
MUTATIONS = 300
#: What the cluster cannot judge, and why (anything else unjudged fails the sweep): the operator
#: creates scaling adapters in nvidia.com/v1alpha1, which its own conversion webhook turns into the
#: stored v1beta1; the local cluster runs no operator.
EXPECTED_NOT_JUDGED = {
    ("nvidia.com/v1alpha1", "DynamoGraphDeploymentScalingAdapter", "needs a conversion webhook the cluster does not run"),
}


@pytest.fixture(scope="module")
def runner(cluster: LocalCluster) -> Iterator[DryRunner]:
    r = DryRunner.connect(Endpoint.from_kubeconfig(cluster.kubeconfig))
    yield r
    r.close()


def _report(capsys: pytest.CaptureFixture[str], title: str, text: str) -> None:
    with capsys.disabled():
        sys.stderr.write(f"\n[e2e] {title}\n{text}\n")


def test_every_rendered_object_and_custom_resource_is_accepted_by_the_api_server(
    runner: DryRunner, namespace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    batches = sweep.all_batches(namespace)
    report = sweep.sweep(runner, batches)
    elapsed = time.monotonic() - started
    _report(capsys, f"dry run of {len(report.outcomes)} distinct objects from {len(batches)} batches "
                    f"in {elapsed:.1f} s", sweep.summary_tables(report) + "\n\ngraphs our verdict refuses, "
            "their custom resource sent anyway:\n" + "\n".join(sweep.refused_by_us_lines(report)))

    assert len(sweep.corpus_sources()) == 70
    assert {b.source for b in batches if b.source.startswith("examples/")} >= {
        "examples/aggregated-vllm/graph.yaml", "examples/multinode-grove/graph.yaml",
        "examples/eks-gpu-node-group (program)", "examples/operator-mode (program)"}
    refused = sweep.refusal_lines(report)
    assert refused == [], "the API server refuses objects of graphs our verdict accepts:\n" + "\n".join(refused)
    assert set(report.not_judged()) == EXPECTED_NOT_JUDGED
    judged_kinds = {o.kind for o in report.outcomes.values() if o.accepted}
    assert judged_kinds >= {"Deployment", "Service", "LeaderWorkerSet", "PodCliqueSet", "DynamoGraphDeployment",
                            "DynamoComponentDeployment", "InferencePool", "VirtualService", "Ingress", "Role"}
    for setting in sweep.SETTINGS:
        assert any(b.setting == setting.name and b.objects and not b.refused_by_us for b in batches), setting


def test_our_verdict_and_the_api_server_agree_on_seeded_mutations_or_the_difference_is_documented(
    runner: DryRunner, namespace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    drawn = list(mutations.mutations(MUTATIONS, mutations.SEED))
    judgements = differential.judge_all(runner, drawn, mutations.base_document(), namespace)
    elapsed = time.monotonic() - started
    _report(capsys, f"differential run: {len(drawn)} mutations, {len(judgements)} judgements in {elapsed:.1f} s",
            differential.agreement_table(judgements))

    undocumented = differential.disagreement_lines(judgements, documented=False)
    assert undocumented == [], "undocumented disagreements:\n" + "\n".join(undocumented)
    counts = Counter((j.mutation.family, j.category) for j in judgements)
    for family in mutations.FAMILIES:
        assert counts[(family, differential.BOTH_ACCEPT)] or family == "strict-fields", family
        assert counts[(family, differential.SAME_FIELD)], family
    assert len(judgements) > 500


def test_the_base_graph_is_accepted_by_both_in_both_modes(runner: DryRunner, namespace: str) -> None:
    """The differential's starting point: an unmutated graph is no disagreement."""
    unchanged = mutations.Mutation(0, "none", "unchanged", "no change", ("render", "operator"), lambda doc: None)
    judgements = differential.judge_all(runner, [unchanged], mutations.base_document(), namespace)
    assert [(j.mode, j.category) for j in judgements] == [("render", differential.BOTH_ACCEPT),
                                                          ("operator", differential.BOTH_ACCEPT)]
