"""``diff`` says which replacements keep serving (create, wait, then delete) and which cannot
(fixed-name objects deleted before their replacement exists)."""

from __future__ import annotations

import copy

from resources_fixtures import GRAPH, NS, small_plan
from test_resources_tree import _grove_plan

from dynamo_pulumi.diff.diffing import diff_plans
from dynamo_pulumi.planning.plan import plan_from_rendered


def test_a_worker_revision_is_replaced_without_downtime():
    diff = diff_plans(small_plan(), small_plan(image="nvcr.io/dynamo/vllm:1.0.1", worker_hash="99999999"))
    change = diff.find(":Deployment", f"{NS}/{GRAPH}-decode")
    assert change.delete_before_replace is False
    assert change.reasons[0].endswith("created and waited for before the old one is deleted (no downtime)")


def test_a_fixed_name_replacement_says_it_is_not_zero_downtime():
    old = _grove_plan(scaling_adapter=False)
    objects = [copy.deepcopy(p.obj) for p in old.all_objects()]
    pcs = next(o for o in objects if o["kind"] == "PodCliqueSet")
    pcs["spec"]["template"]["cliques"][1]["spec"]["minAvailable"] = 2
    new = plan_from_rendered(old.graph, objects, [], NS)
    change = diff_plans(old, new).find(":PodCliqueSet", f"{NS}/{GRAPH}")
    assert change.action == "replace" and change.delete_before_replace is True
    assert "not zero-downtime: it stops serving until the replacement is ready" in change.reasons[0]
