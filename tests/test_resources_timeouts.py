"""The component's ``custom_timeouts`` bound the waits (issue 25, item 7), under mocks: the readiness
deadline per operation and the awaited children's ``customTimeouts``; the readiness provider
picks the update's deadline for an update."""

from __future__ import annotations

import pulumi
import pytest
from resources_fixtures import graph_doc

from dynamo_pulumi.cluster.provider import deadline_of, wait_request
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions
from dynamo_pulumi.resources.timeouts import Deadlines, deadlines

READINESS = "pulumi-python:dynamic/dynamo:GraphReadiness"


def _run(custom: pulumi.CustomTimeouts | None = None, readiness: ReadinessOptions | None = None):
    rec, _ = run_program(lambda: DynamoGraphDeployment(
        "llm", graph_doc(), opts=pulumi.ResourceOptions(custom_timeouts=custom), readiness=readiness), preview=False)
    readiness_reg = rec.by_type(READINESS)[0]
    frontend = next(r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "frontend" in r.name)
    return readiness_reg, frontend


def test_a_create_timeout_on_the_component_is_the_deadline_of_the_wait():
    readiness, frontend = _run(pulumi.CustomTimeouts(create="5m"))
    assert readiness.inputs["timeout_seconds"] == 300 and "update_timeout_seconds" in readiness.inputs
    assert readiness.inputs["update_timeout_seconds"] == 3600
    assert frontend.custom_timeouts == ("300s", "3600s", "3600s")
    assert readiness.custom_timeouts == ("300s", "3600s", "")


def test_create_update_and_delete_each_bound_their_own_operation():
    readiness, frontend = _run(pulumi.CustomTimeouts(create="10m", update="20m", delete="2m"))
    assert (readiness.inputs["timeout_seconds"], readiness.inputs["update_timeout_seconds"]) == (600, 1200)
    assert frontend.custom_timeouts == ("600s", "1200s", "120s")


def test_the_shorter_of_the_readiness_timeout_and_the_custom_timeout_wins():
    readiness, _ = _run(pulumi.CustomTimeouts(create="5m", update="5m"), ReadinessOptions(timeout="2m"))
    assert readiness.inputs["timeout_seconds"] == 120 and "update_timeout_seconds" not in readiness.inputs
    readiness, _ = _run(pulumi.CustomTimeouts(create="5m", update="5m"), ReadinessOptions(timeout="1h"))
    assert readiness.inputs["timeout_seconds"] == 300


def test_without_custom_timeouts_the_readiness_timeout_or_the_default_decides():
    readiness, frontend = _run()
    assert readiness.inputs["timeout_seconds"] == 3600 and "update_timeout_seconds" not in readiness.inputs
    assert frontend.custom_timeouts == ("3600s", "3600s", "3600s")
    readiness, _ = _run(readiness=ReadinessOptions(timeout="90m"))
    assert readiness.inputs["timeout_seconds"] == 5400


@pytest.mark.parametrize("field", ["create", "update", "delete"])
def test_a_bad_custom_timeout_names_the_component_and_the_field(field):
    with pytest.raises(InputError, match=rf'^DynamoGraphDeployment "llm": custom_timeouts.{field}: timeout must be'):
        _run(pulumi.CustomTimeouts(**{field: "soon"}))


def test_deadlines_rules():
    assert deadlines(None, None, "x") == Deadlines(3600, 3600, 3600)
    assert deadlines(None, pulumi.CustomTimeouts(create="2h"), "x") == Deadlines(7200, 3600, 3600)
    assert deadlines(1800, pulumi.CustomTimeouts(create="2h"), "x") == Deadlines(1800, 1800, 1800)
    assert deadlines(1800, pulumi.CustomTimeouts(delete="1m"), "x") == Deadlines(1800, 1800, 60)
    assert deadlines(None, pulumi.CustomTimeouts(create="", update="", delete=""), "x") == Deadlines()  # "" = not given
    assert not Deadlines(5, 5, 9).differ and Deadlines(5, 6, 5).differ


def test_the_provider_waits_an_update_by_its_own_deadline():
    props = {"graph": "g", "namespace": "n", "targets": [], "timeout_seconds": 300, "update_timeout_seconds": 1200}
    assert wait_request(props).timeout_seconds == 300 and wait_request(props, "update").timeout_seconds == 1200
    assert deadline_of({"timeout_seconds": 300}, "update") == 300
