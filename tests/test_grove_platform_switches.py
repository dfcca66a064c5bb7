"""Operator switches the Grove pathway reads: KAI / Volcano gang-scheduler integration, DRA,
set through the platform YAML under the operator's own key names."""

from __future__ import annotations

from typing import Any

import pytest
from grove_fixtures import component, graph

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_pod_clique_set

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})


def _with(kai: bool = False, volcano: bool = False) -> Platform:
    return Platform.model_validate(
        {
            "orchestrators": {
                "grove": {"enabled": True},
                "kaiScheduler": {"enabled": kai},
                "volcanoScheduler": {"enabled": volcano},
            }
        }
    )


def _cliques(platform: Platform, annotations: dict[str, str] | None = None,
             scheduler: str | None = None) -> list[dict[str, Any]]:
    worker = component("worker")
    if scheduler:
        worker["podTemplate"]["spec"]["schedulerName"] = scheduler
    pcs = render_pod_clique_set(graph([worker], annotations=annotations), platform, "n", worker_hash="h")
    return pcs["spec"]["template"]["cliques"]


def test_without_integrations_no_scheduler_is_set() -> None:
    (clique,) = _cliques(GROVE)
    assert "schedulerName" not in clique["spec"]["podSpec"]
    assert "kai.scheduler/queue" not in clique["labels"]


def test_kai_integration_sets_scheduler_and_default_queue_label() -> None:
    (clique,) = _cliques(_with(kai=True))
    assert clique["spec"]["podSpec"]["schedulerName"] == "kai-scheduler"
    assert clique["labels"]["kai.scheduler/queue"] == "dynamo"


def test_kai_queue_comes_from_the_trimmed_graph_annotation() -> None:
    (clique,) = _cliques(_with(kai=True), annotations={"nvidia.com/kai-scheduler-queue": "  team-a "})
    assert clique["labels"]["kai.scheduler/queue"] == "team-a"


def test_user_chosen_scheduler_is_respected() -> None:
    (clique,) = _cliques(_with(kai=True), scheduler="my-scheduler")
    assert clique["spec"]["podSpec"]["schedulerName"] == "my-scheduler"
    assert "kai.scheduler/queue" not in clique["labels"]


def test_volcano_integration_sets_scheduler_and_pcs_queue_annotation() -> None:
    platform = _with(volcano=True)
    dgd = graph([component("worker")], annotations={"nvidia.com/volcano-queue": " q1 "})
    pcs = render_pod_clique_set(dgd, platform, "n", worker_hash="h")
    assert pcs["metadata"]["annotations"] == {"scheduling.grove.io/volcano-queue": "q1"}
    assert pcs["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["schedulerName"] == "volcano"


def test_kai_and_volcano_together_are_a_render_error() -> None:
    with pytest.raises(RenderError, match="cannot both be enabled"):
        _cliques(_with(kai=True, volcano=True))


def test_gms_with_dra_explicitly_disabled_is_a_render_error() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": False}})
    dgd = graph([component("worker", experimental={"gpuMemoryService": {}})])
    with pytest.raises(RenderError, match="requires DRA"):
        render_pod_clique_set(dgd, platform, "n", worker_hash="h")


@pytest.mark.parametrize(("configured", "expected"), [("30m", "30m0s"), ("2h", "2h0m0s"), ("0s", None)])
def test_configured_termination_delay_is_rendered_or_omitted_when_zero(configured: str, expected: str | None) -> None:
    platform = Platform.model_validate(
        {"orchestrators": {"grove": {"enabled": True, "terminationDelay": configured}}}
    )
    template = render_pod_clique_set(graph([component("worker")]), platform, "n", worker_hash="h")["spec"]["template"]
    assert template.get("terminationDelay") == expected
