"""The readiness resource reaches no cluster when it must not: under ``pulumi preview`` (the
program, and the provider's ``check``/``diff``, the only operations preview runs) and with
waiting off (``create``, ``update`` and ``read``, i.e. ``pulumi refresh`` too)."""

from __future__ import annotations

from typing import Any

import kubernetes.client
import pytest
from resources_fixtures import GRAPH, small_plan
from update_rule_cases import BASE, PLATFORM

from dynamo_pulumi.cluster.provider import NOT_WAITED, ReadinessProvider
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

READINESS_TYPE = "pulumi-python:dynamic/dynamo:GraphReadiness"
KUBECONFIG = {"kubernetes:kubeconfig": "apiVersion: v1\nclusters: []\n"}


@pytest.fixture
def no_cluster(monkeypatch) -> list[str]:
    """Every way to a cluster refuses, and says who tried."""
    attempts: list[str] = []

    def refuse(what: str):
        def refused(*_args: Any, **_kwargs: Any) -> Any:
            attempts.append(what)
            raise AssertionError(f"{what}: the cluster was contacted")
        return refused

    # session first: importing it while connection.api_client is patched would bind the patch into
    # session for good (monkeypatch then restores session's name to the patch, failing later tests)
    monkeypatch.setattr("dynamo_pulumi.cluster.session.api_client", refuse("session.api_client"))
    monkeypatch.setattr("dynamo_pulumi.cluster.connection.api_client", refuse("connection.api_client"))
    monkeypatch.setattr(kubernetes.client.ApiClient, "__init__", refuse("kubernetes ApiClient"))
    return attempts


def _preview(program) -> dict[str, Any]:
    rec, _ = run_program(program, preview=True, config=KUBECONFIG)
    (readiness,) = rec.by_type(READINESS_TYPE)
    return readiness.inputs


def test_previewing_a_render_mode_program_builds_no_cluster_client(no_cluster):
    inputs = _preview(lambda: DynamoGraphDeployment(GRAPH, small_plan()))
    assert inputs["wait"] is True and no_cluster == []


def test_previewing_an_operator_mode_program_builds_no_cluster_client(no_cluster):
    inputs = _preview(lambda: DynamoGraphDeployment("g", BASE, platform=PLATFORM, mode="operator"))
    assert inputs["predicted"] and no_cluster == []


def _known(inputs: dict[str, Any]) -> dict[str, Any]:
    """Inputs as the provider receives them (Outputs resolved or the engine's unknown marker)."""
    return {k: v for k, v in inputs.items() if k not in ("state", "ready", "components", "drift")}


def test_check_and_diff_the_operations_preview_runs_never_contact_the_cluster(no_cluster):
    inputs = _known(_preview(lambda: DynamoGraphDeployment(GRAPH, small_plan())))
    provider = ReadinessProvider()
    assert provider.check({}, inputs).failures == []
    changed = {**inputs, "revision": "another"}
    assert provider.diff("team-a/llm", inputs, changed).changes is True
    assert no_cluster == []


def test_with_waiting_off_create_update_and_read_never_contact_the_cluster(no_cluster):
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, small_plan(), readiness=ReadinessOptions(wait=False)),
                         preview=False, config=KUBECONFIG)
    (readiness,) = rec.by_type(READINESS_TYPE)
    inputs = _known(readiness.inputs)
    provider = ReadinessProvider()
    created = provider.create(inputs)
    assert {k: created.outs[k] for k in NOT_WAITED} == NOT_WAITED
    updated = provider.update(created.id, created.outs, {**inputs, "revision": "another"})
    assert {k: updated.outs[k] for k in NOT_WAITED} == NOT_WAITED
    refreshed = provider.read(created.id, created.outs)
    assert refreshed.id == created.id and refreshed.outs == created.outs
    assert no_cluster == []


def test_with_waiting_on_refresh_does_reach_for_the_cluster(no_cluster):
    """The guard itself: the same read with waiting on tries to connect."""
    inputs = _known(_preview(lambda: DynamoGraphDeployment(GRAPH, small_plan())))
    with pytest.raises(AssertionError, match="the cluster was contacted"):
        ReadinessProvider().read("team-a/llm", {**inputs, **NOT_WAITED})
    assert no_cluster
