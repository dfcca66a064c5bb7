"""No child gives up before the graph: await timeouts, skipped redundant awaits, and the
PodCliqueSet composition trigger, as registered under Pulumi mocks."""

from __future__ import annotations

import copy

from resources_fixtures import GRAPH, small_plan
from test_resources_tree import _grove_plan

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions
from dynamo_pulumi.resources.triggers import replacement_trigger


def _run(plan, readiness=None):
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, plan, readiness=readiness), preview=False)
    return rec


def test_awaited_workloads_get_the_graphs_timeout_for_create_update_and_delete():
    rec = _run(small_plan(), ReadinessOptions(timeout="45m"))
    deployments = rec.by_type("kubernetes:apps/v1:Deployment")
    assert deployments and all(d.custom_timeouts == ("2700s", "2700s", "2700s") for d in deployments)


def test_the_default_child_timeout_is_sixty_minutes_not_ten():
    rec = _run(small_plan())
    assert all(d.custom_timeouts == ("3600s",) * 3 for d in rec.by_type("kubernetes:apps/v1:Deployment"))


def test_selector_services_skip_their_endpoint_wait_and_keep_no_timeout():
    rec = _run(small_plan())
    services = rec.by_type("kubernetes:core/v1:Service")
    assert services
    for service in services:
        assert service.inputs["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"
        assert service.custom_timeouts == ("", "", "")


def test_deployments_never_skip_await_so_their_delete_wait_stays():
    rec = _run(small_plan())
    for deployment in rec.by_type("kubernetes:apps/v1:Deployment"):
        assert "pulumi.com/skipAwait" not in (deployment.inputs["metadata"].get("annotations") or {})


def test_unawaited_kinds_get_no_timeout():
    rec = _run(small_plan())
    assert all(r.custom_timeouts == ("", "", "") for r in rec.by_type("kubernetes:core/v1:ServiceAccount"))


def test_a_podcliqueset_carries_a_composition_trigger():
    rec = _run(_grove_plan(scaling_adapter=False))
    (pcs,) = rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet")
    assert isinstance(pcs.replacement_trigger, str) and pcs.replacement_trigger.startswith("pcs-composition:")
    assert all(r.replacement_trigger is None for r in rec.by_type("kubernetes:apps/v1:Deployment"))


def _pcs(plan):
    return next(p.obj for p in plan.all_objects() if p.kind == "PodCliqueSet")


def test_appending_a_clique_changes_the_trigger():
    pcs = _pcs(_grove_plan(scaling_adapter=False))
    grown = copy.deepcopy(pcs)
    grown["spec"]["template"]["cliques"].append({"name": "prefill", "spec": {"replicas": 1}})
    assert replacement_trigger("grove.io/v1alpha1", "PodCliqueSet", pcs) != replacement_trigger(
        "grove.io/v1alpha1", "PodCliqueSet", grown)


def test_replica_or_image_changes_keep_the_trigger():
    pcs = _pcs(_grove_plan(scaling_adapter=False))
    scaled = copy.deepcopy(pcs)
    scaled["spec"]["template"]["cliques"][1]["spec"]["replicas"] = 8
    scaled["spec"]["template"]["cliques"][1]["spec"]["podSpec"]["containers"][0]["image"] = "other"
    assert replacement_trigger("grove.io/v1alpha1", "PodCliqueSet", pcs) == replacement_trigger(
        "grove.io/v1alpha1", "PodCliqueSet", scaled)
