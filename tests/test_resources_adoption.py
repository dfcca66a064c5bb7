"""``adopt=True`` and ``opts.import_`` (issue 25, item 6), under mocks: in render mode every rendered
object is imported by its Kubernetes id (never silently ignored), with the await directives
of a created object (the import is followed by an update anyway); ``import_`` on the
component, which Pulumi ignores on a component, is one error naming ``adopt``."""

from __future__ import annotations

import pulumi
import pytest
from resources_fixtures import graph_doc

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.resources import DynamoComponentDeployment, DynamoGraphDeployment


def _run(adopt: bool, mode: str = "render") -> Recording:
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", graph_doc(), mode=mode, adopt=adopt), preview=True)
    return rec


def test_adopt_in_render_mode_imports_every_rendered_object_by_namespace_and_name():
    rec = _run(adopt=True)
    objects = [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:")]
    imported = {r.type: r.import_id for r in objects if not r.type.endswith("Patch")}
    assert imported and all(r.import_id == f"team-a/{r.object_name}" for r in objects if not r.type.endswith("Patch"))
    assert len(imported) >= 4  # Deployments, Services, RBAC
    # a shared patch is not imported: server-side apply takes the object over, shared with other graphs
    assert {r.import_id for r in objects if r.type.endswith("Patch")} == {""}
    assert {r.import_id for r in rec.resources if not r.custom or not r.type.startswith("kubernetes:")} == {""}


def test_adopted_objects_carry_the_same_await_directives_as_created_ones():
    # seen with the real engine: the import reads the live object's defaults as inputs, so an
    # update follows it anyway; without skipAwait that update ran pulumi-kubernetes' Service await
    adopted = {(r.type, r.name): r for r in _run(adopt=True).resources}
    skipped = 0
    for registration in _run(adopt=False).resources:
        annotations = (registration.inputs.get("metadata") or {}).get("annotations") or {}
        mine = (adopted[registration.type, registration.name].inputs.get("metadata") or {}).get("annotations") or {}
        assert mine.get("pulumi.com/skipAwait") == annotations.get("pulumi.com/skipAwait"), registration.name
        skipped += annotations.get("pulumi.com/skipAwait") == "true"
    assert skipped >= 2  # the selector Services and the hash-named worker


def test_without_adopt_nothing_is_imported():
    assert {r.import_id for r in _run(adopt=False).resources} == {""}


def test_adopt_in_operator_mode_imports_the_custom_resource_only():
    rec = _run(adopt=True, mode="operator")
    assert {(r.type, r.import_id) for r in rec.resources if r.import_id} == {
        ("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment", "team-a/llm")}


@pytest.mark.parametrize("component", [DynamoGraphDeployment, DynamoComponentDeployment])
def test_import_on_the_component_is_refused_naming_adopt(component):
    from test_resources_tree import DCD_DOC

    doc = graph_doc() if component is DynamoGraphDeployment else DCD_DOC
    recording = Recording()
    with pytest.raises(InputError, match=r"opts.import_ imports one custom resource by its id, and Pulumi ignores it on a "
                                         r"component .* adopt=True imports what the graph creates"):
        run_program(lambda: component("x", doc, opts=pulumi.ResourceOptions(import_="team-a/x")), recording=recording)
    assert recording.resources == []


def test_the_server_assigned_cluster_ip_is_ignored_so_an_import_is_no_replacement():
    # seen with the real engine: the imported Service's inputs hold the clusterIP the server
    # assigned, the rendered Service has none, and the provider replaces a Service to change it
    for adopt in (True, False):  # also without adopt: a later up that drops adopt must not replace it
        services = _run(adopt=adopt).by_type("kubernetes:core/v1:Service")
        assert services and all(s.ignore_changes == ("spec.clusterIP",) for s in services), adopt


def test_a_rendered_cluster_ip_is_diffed_as_before():
    from dynamo_pulumi.planning.plan import PlannedObject
    from dynamo_pulumi.resources.children import child_options

    headless = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "n"},
                "spec": {"clusterIP": "None"}}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "n"},
             "spec": {"storageClassName": "fast"}}
    no_parent: pulumi.Resource = None  # type: ignore[assignment]  # the options only name it
    assert child_options(PlannedObject(headless, "n/s"), no_parent).ignore_changes is None
    assert child_options(PlannedObject(claim, "n/c"), no_parent).ignore_changes == ["spec.volumeName"]
