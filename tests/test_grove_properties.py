"""Invariants of the PodCliqueSet structure over generated component shapes (hypothesis).

The pod assembly is replaced by a trivial builder so the search covers the Grove structure only:
every scaling group and startsAfter name exists, names stay in Grove's budget, each component's
cliques are contiguous and in expansion order, and rendering is deterministic.
"""

from __future__ import annotations

from typing import Any

from grove_fixtures import GROVE_PLATFORM, component, graph, main_container
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_pulumi.model.pcs_naming import pod_clique_names
from dynamo_pulumi.render.grove import render_pod_clique_set
from dynamo_pulumi.render.grove.pods import PodRequest

NAME = st.from_regex(r"[a-z][a-z0-9]{0,9}", fullmatch=True)  # within the admission name budget


def _trivial_pod(request: PodRequest) -> dict[str, Any]:
    main = dict(request.dcd["spec"]["podTemplate"]["spec"]["containers"][0])
    return {"containers": [main]}


@st.composite
def shapes(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.integers(1, 4))
    gms = draw(st.sampled_from([None, "InterPod"]))
    fields: dict[str, Any] = {"replicas": draw(st.integers(0, 4))}
    if nodes > 1:
        fields["multinode"] = {"nodeCount": nodes}
    experimental: dict[str, Any] = {}
    if gms:
        experimental["gpuMemoryService"] = {"mode": gms}
        if draw(st.booleans()):
            experimental["failover"] = {"mode": "InterPod"}
    elif nodes == 1 and draw(st.booleans()):
        experimental["grove"] = {"forceScalingGroup": True}
    if experimental:
        fields["experimental"] = experimental
    return fields


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(NAME, min_size=1, max_size=4, unique=True),
    data=st.data(),
    graph_name=st.from_regex(r"[a-z][a-z0-9-]{0,50}[a-z0-9]", fullmatch=True),
    backend=st.sampled_from(["vllm", "sglang", "trtllm"]),
)
def test_pcs_structure_is_consistent_for_any_component_shapes(
    names: list[str], data: st.DataObject, graph_name: str, backend: str
) -> None:
    comps = [component(n, container=main_container(gpus=2), **data.draw(shapes())) for n in names]
    dgd = graph(comps, name=graph_name, backendFramework=backend)
    pcs = render_pod_clique_set(dgd, GROVE_PLATFORM, "n", worker_hash="h", pod_spec_builder=_trivial_pod)
    template = pcs["spec"]["template"]
    rendered = [c["name"] for c in template["cliques"]]
    assert rendered == [n for c in dgd.components for n in pod_clique_names(c)]
    groups = template.get("podCliqueScalingGroups") or []
    assert [g["name"] for g in groups] == [c.name for c in dgd.components if c.uses_pcsg]
    for group in groups:
        assert set(group["cliqueNames"]) <= set(rendered)
        assert len(pcs["metadata"]["name"]) + len(group["name"]) + max(map(len, group["cliqueNames"])) <= 45
    for clique in template["cliques"]:
        assert set(clique["spec"].get("startsAfter") or []) <= set(rendered)
        assert clique["spec"]["minAvailable"] >= 1
    explicit = any("startsAfter" in c["spec"] for c in template["cliques"])
    assert template["cliqueStartupType"] == ("CliqueStartupTypeExplicit" if explicit else "CliqueStartupTypeAnyOrder")
    again = render_pod_clique_set(dgd, GROVE_PLATFORM, "n", worker_hash="h", pod_spec_builder=_trivial_pod)
    assert again == pcs

