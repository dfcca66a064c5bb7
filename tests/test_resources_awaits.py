"""No child gives up before the graph, and a stuck worker fails in the graph's words: fixed-name
Deployments keep pulumi-kubernetes' await with the graph's timeout, hash-named worker Deployments
and selector Services skip it (the readiness resource waits for them), no delete-before-replace
object skips it; and the PodCliqueSet composition trigger, as registered under Pulumi mocks."""

from __future__ import annotations

import copy
from pathlib import Path

from resources_fixtures import GRAPH, HASH, NS, graph_doc, rendered, small_plan
from test_readiness_resource import READINESS_TYPE
from test_resources_tree import DCD_DOC, _grove_plan

from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.options import delete_before_replace
from dynamo_pulumi.planning.plan import plan_from_rendered, plan_graph
from dynamo_pulumi.resources import DynamoComponentDeployment, DynamoGraphDeployment, ReadinessOptions
from dynamo_pulumi.resources.awaits import skips_await
from dynamo_pulumi.resources.triggers import replacement_trigger


def _run(plan, readiness=None):
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, plan, readiness=readiness), preview=False)
    return rec


SKIP = "pulumi.com/skipAwait"


def _annotations(reg) -> dict:
    return reg.inputs["metadata"].get("annotations") or {}


def _deployments(rec) -> tuple[list, list]:
    """(hash-named worker Deployments, fixed-name Deployments) as registered."""
    deployments = rec.by_type("kubernetes:apps/v1:Deployment")
    workers = [d for d in deployments if d.object_name.endswith(HASH)]
    return workers, [d for d in deployments if d not in workers]


def test_fixed_name_deployments_get_the_graphs_timeout_for_create_update_and_delete():
    rec = _run(small_plan(), ReadinessOptions(timeout="45m"))
    _, fixed = _deployments(rec)
    assert [d.object_name for d in fixed] == [f"{GRAPH}-frontend"]
    assert all(d.custom_timeouts == ("2700s", "2700s", "2700s") for d in fixed)


def test_the_default_child_timeout_is_sixty_minutes_not_ten():
    _, fixed = _deployments(_run(small_plan()))
    assert fixed and all(d.custom_timeouts == ("3600s",) * 3 for d in fixed)


def test_fixed_name_deployments_keep_their_await_so_their_delete_wait_stays():
    _, fixed = _deployments(_run(small_plan()))
    assert fixed and all(SKIP not in _annotations(d) for d in fixed)


def test_hash_named_worker_deployments_skip_the_providers_await_for_the_readiness_resource():
    rec = _run(small_plan(), ReadinessOptions(timeout="45m"))
    workers, _ = _deployments(rec)
    assert [w.object_name for w in workers] == [f"{GRAPH}-decode-{HASH}"]
    for worker in workers:
        assert _annotations(worker)[SKIP] == "true"
        assert worker.custom_timeouts == ("", "", "")
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert all(w.urn in readiness.dependencies for w in workers)


def test_skipping_the_await_leaves_the_rendered_object_untouched():
    plan = small_plan()
    _run(plan)
    worker = next(p for c in plan.components for p in c.objects if p.kind == "Deployment" and p.generation_named)
    assert SKIP not in (worker.obj["metadata"].get("annotations") or {})


def test_a_rendered_graph_skips_exactly_its_worker_deployments():
    rec = _run(plan_graph(graph_doc(), namespace=NS))
    by_name = {d.object_name: d for d in rec.by_type("kubernetes:apps/v1:Deployment")}
    frontend = by_name.pop(f"{GRAPH}-frontend")
    (decode,) = by_name.values()
    assert decode.object_name.startswith(f"{GRAPH}-decode-") and _annotations(decode)[SKIP] == "true"
    assert SKIP not in _annotations(frontend) and frontend.custom_timeouts == ("3600s",) * 3


def test_a_standalone_component_deployment_is_fixed_name_and_awaited():
    rec, _ = run_program(lambda: DynamoComponentDeployment("solo", DCD_DOC), preview=False)
    (deployment,) = rec.by_type("kubernetes:apps/v1:Deployment")
    assert SKIP not in _annotations(deployment) and deployment.custom_timeouts == ("3600s",) * 3


def test_selector_services_skip_their_endpoint_wait_and_keep_no_timeout():
    rec = _run(small_plan())
    services = rec.by_type("kubernetes:core/v1:Service")
    assert services
    for service in services:
        assert _annotations(service)[SKIP] == "true"
        assert service.custom_timeouts == ("", "", "")


def _delete_first_plans():
    """A Grove graph (its PodCliqueSet) and a component graph with a fixed-name LeaderWorkerSet
    and ResourceClaimTemplate beside its Deployments: every kind replaced delete-first."""
    yield "PodCliqueSet", _grove_plan(scaling_adapter=False)
    objects, dcds = rendered()
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": f"{GRAPH}-decode-0", "namespace": NS,
                     "labels": {"nvidia.com/dynamo-component": "decode"}},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"containers": []}}}},
    }
    rct = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "gpus", "namespace": NS, "labels": {"nvidia.com/dynamo-component": "decode"}},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}},
    }
    yield "LeaderWorkerSet", plan_from_rendered(load_graph(graph_doc()), [*objects, lws, rct], dcds, NS)


def test_no_delete_before_replace_object_skips_its_await():
    for kind, plan in _delete_first_plans():
        rec = _run(plan)
        delete_first = [r for r in rec.resources if r.delete_before_replace]
        assert kind in {r.type.rsplit(":", 1)[-1] for r in delete_first}
        for reg in delete_first:
            assert SKIP not in _annotations(reg), reg.name


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


def _corpus_plans(corpus: Path):
    for path in sorted(corpus.glob("*.yaml")):
        for platform in ({"orchestrators": {"lws": {"enabled": True}}},
                         {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}}):
            try:
                yield path.name, plan_graph(path, platform, "corpus")
            except DynamoPulumiError:
                continue


def test_across_the_corpus_only_hash_named_deployments_selecting_by_their_own_name_skip(conformance_dir):
    """The premise of skipping: a skipped Deployment's name carries the worker hash and its
    selector is that name, so the provider can only replace it under a new name (create first);
    and no kind we replace delete-first ever skips."""
    skipped = 0
    for name, plan in _corpus_plans(conformance_dir / "corpus"):
        for planned in plan.all_objects():
            if delete_before_replace(planned.api_version, planned.kind):
                assert not skips_await(planned), (name, planned.name)
            if planned.kind != "Deployment" or not skips_await(planned):
                continue
            skipped += 1
            assert planned.generation_named, (name, planned.name)
            owner = next(c for c in plan.components if planned in c.objects)
            assert owner.worker_hash and owner.worker_hash in planned.name, (name, planned.name)
            assert planned.name in planned.obj["spec"]["selector"]["matchLabels"].values(), (name, planned.name)
    assert skipped > 10


def test_with_waiting_off_worker_deployments_keep_their_await_so_the_old_generation_still_waits():
    rec = _run(small_plan(), ReadinessOptions(wait=False, timeout="45m"))
    workers, fixed = _deployments(rec)
    assert workers and fixed
    for deployment in [*workers, *fixed]:
        assert SKIP not in _annotations(deployment)
        assert deployment.custom_timeouts == ("2700s",) * 3
    assert all(_annotations(s)[SKIP] == "true" for s in rec.by_type("kubernetes:core/v1:Service"))
