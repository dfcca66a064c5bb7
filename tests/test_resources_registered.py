"""Readiness follows the objects as registered (issue 25, item 5): a transformation that changes a
workload changes what the wait waits for, because the targets and the revision come from the
children's outputs. Under mocks the SDK runs ``transformations=[...]`` (the mock echoes what it
received as the outputs, as the provider returns the object it applied); ``transforms=[...]``
run in the engine and are covered end to end."""

from __future__ import annotations

import copy

import pulumi
from resources_fixtures import graph_doc

from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.resources import DynamoGraphDeployment
from dynamo_pulumi.resources.registered import plain

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
READINESS = "pulumi-python:dynamic/dynamo:GraphReadiness"
MIRROR = "mirror.example.com/"


def mirror(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    """A registry mirror, the common rewrite: every container image of every Deployment."""
    if args.type_ != DEPLOYMENT:
        return None
    props = copy.deepcopy(args.props)
    for container in props["spec"]["template"]["spec"]["containers"]:
        container["image"] = MIRROR + container["image"]
    return pulumi.ResourceTransformationResult(props, args.opts)


def renamed(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    """A naming convention applied afterwards: workloads get a suffix and lose our labels."""
    if args.type_ != DEPLOYMENT:
        return None
    props = copy.deepcopy(args.props)
    props["metadata"]["name"] += "-x"
    props["metadata"]["labels"] = {"team": "ml"}
    props["spec"]["template"]["metadata"]["labels"] = {"team": "ml"}
    return pulumi.ResourceTransformationResult(props, args.opts)


def unnamespaced(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    """A transformation that drops metadata.namespace (the provider then applies its default)."""
    if args.type_ != DEPLOYMENT:
        return None
    props = copy.deepcopy(args.props)
    props["metadata"].pop("namespace")
    return pulumi.ResourceTransformationResult(props, args.opts)


def _run(*transformations, scaling_adapter: bool = False, mode: str = "render") -> Recording:
    opts = pulumi.ResourceOptions(transformations=list(transformations)) if transformations else None
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", graph_doc(scaling_adapter=scaling_adapter),
                                                       mode=mode, opts=opts), preview=False)
    return rec


def _readiness(rec: Recording) -> dict:
    return rec.by_type(READINESS)[0].inputs


def test_a_transformation_of_the_images_makes_the_wait_wait_for_the_new_rollout():
    plain_run, mirrored = _run(), _run(mirror)
    images = {c["image"] for r in mirrored.by_type(DEPLOYMENT) for c in r.inputs["spec"]["template"]["spec"]["containers"]}
    assert images and all(i.startswith(MIRROR) for i in images)  # the engine received the mirror ...
    assert _readiness(mirrored)["revision"] != _readiness(plain_run)["revision"]  # ... and so does the wait
    assert _readiness(mirrored)["targets"] == _readiness(plain_run)["targets"]


def test_a_transformation_that_renames_a_workload_moves_the_watch_to_the_new_name():
    rec = _run(renamed)
    names = {t["name"] for t in _readiness(rec)["targets"]}
    assert names == {r.object_name for r in rec.by_type(DEPLOYMENT)} and all(n.endswith("-x") for n in names)
    components = {t["name"]: t["component"] for t in _readiness(rec)["targets"]}
    assert sorted(components.values()) == ["Frontend", "decode"]  # the plan still says which component


def test_a_workload_registered_without_a_namespace_is_watched_in_the_graphs():
    assert {t["namespace"] for t in _readiness(_run(unnamespaced))["targets"]} == {"team-a"}


def test_a_workload_moved_to_another_namespace_is_watched_there():
    def moved(args):
        if args.type_ != DEPLOYMENT:
            return None
        props = copy.deepcopy(args.props)
        props["metadata"]["namespace"] = "elsewhere"
        return pulumi.ResourceTransformationResult(props, args.opts)

    assert {t["namespace"] for t in _readiness(_run(moved))["targets"]} == {"elsewhere"}


def test_the_same_program_twice_gives_the_same_revision():
    assert _readiness(_run(mirror))["revision"] == _readiness(_run(mirror))["revision"]


def test_replicas_an_autoscaler_owns_are_not_part_of_the_revision():
    def scaled(args):
        if args.type_ != DEPLOYMENT or "decode" not in args.name:
            return None
        props = copy.deepcopy(args.props)
        props["spec"]["replicas"] = 7  # what a refresh reads back after the HPA scaled
        return pulumi.ResourceTransformationResult(props, args.opts)

    assert _readiness(_run(scaled, scaling_adapter=True))["revision"] == _readiness(_run(scaling_adapter=True))["revision"]
    assert _readiness(_run(scaled))["revision"] != _readiness(_run())["revision"]
    # everything else of the autoscaled workload still counts
    def decode_image(args):
        if args.type_ != DEPLOYMENT or "decode" not in args.name:
            return None
        return mirror(args)

    assert _readiness(_run(decode_image, scaling_adapter=True))["revision"] != _readiness(_run(scaling_adapter=True))["revision"]


def test_operator_mode_watches_the_custom_resource_as_registered():
    def transformed(args):
        if args.type_ != "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment":
            return None
        props = copy.deepcopy(args.props)
        props["spec"]["components"][0]["replicas"] = 3
        return pulumi.ResourceTransformationResult(props, args.opts)

    before, after = _readiness(_run(mode="operator")), _readiness(_run(transformed, mode="operator"))
    assert after["revision"] != before["revision"]
    assert after["targets"] == before["targets"] == [{"api_version": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                                                     "namespace": "team-a", "name": "llm", "component": "", "group": "llm"}]


def test_typed_outputs_are_read_as_plain_data():
    class Requirement(dict):  # what a typed output is: a dict whose properties shadow dict methods
        @property
        def values(self):  # the shape of pulumi_kubernetes' LabelSelectorRequirement
            return dict.__getitem__(self, "values")

    value = {"matchExpressions": [Requirement(key="a", operator="In", values=["b"])], "replicas": 2.0}
    assert plain(value) == {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}], "replicas": 2}
    assert type(plain(value)["matchExpressions"][0]) is dict
