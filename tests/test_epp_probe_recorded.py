"""The EPP config's edge cases, held to what the real Dynamo operator did with them.

``tests/fixtures/operator_probes/epp-config.yaml`` is written by ``python -m localcluster.epp_probe``
beside a build of the operator (the build of ``tests/fixtures/operator_recordings/README.md``):
each case of ``localcluster.epp_probe.CASES`` created as a v1beta1 and a v1alpha1 graph with
``kubectl create``, and what came back. For every one:

* our verdict refuses exactly the graphs the operator and its API server refused, and says it
  in their words: each of our errors is a line of the API server's listing, or carries the
  webhook's own text, or names the field strict decoding named (or, where it named the keys of
  an object written in place of a list, that list);
* for the graphs it accepted, our rendered ``<graph>-epp-config`` ConfigMap and the EPP DCD's
  ``eppConfig.config`` are the operator's, and our reading of the stored graph's config
  (``go_zero_filled`` with the webhook's additions only in v1beta1, the conversion webhook's full
  re-encoding in v1alpha1) is what the API server stored.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.epp_schema import go_zero_filled
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_documents, validate_loaded
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from localcluster.epp_probe import CASES
from localcluster.recorder import platform_for

PROBE = Path(__file__).parent / "fixtures" / "operator_probes" / "epp-config.yaml"
RECORD: dict[str, Any] = yaml.safe_load(PROBE.read_text())
OUTCOMES: list[dict[str, Any]] = RECORD["outcomes"]
ACCEPTED = [o for o in OUTCOMES if o["accepted"]]
_STRICT = re.compile(r'strict decoding error: unknown field "([^"]+)"')
_GO_FIELD = re.compile(r"into Go struct field \w+\.(\S+) of type")
_WEBHOOK = re.compile(r'(?:denied the request|Kind=DynamoGraphDeployment failed): (.+)$')


def _id(outcome: dict[str, Any]) -> str:
    return f"{outcome['case']}-{outcome['input']['apiVersion'].split('/')[1]}"


def _errors(doc: dict[str, Any]) -> list[str]:
    try:
        loaded = load_documents(yaml.safe_dump(doc, sort_keys=False)).loaded
    except GraphValidationError as exc:
        return [str(e) for e in exc.errors]
    return [str(e) for lo in loaded for e in validate_loaded(lo).errors]


def _unindexed(path: str) -> str:
    """A wire path as Go's encoding/json names a field: no list indices, no map keys."""
    path = re.sub(r"\[\d+\]", "", path)
    return path.replace("spec.services.epp.", "spec.services.")


def _said_alike(ours: str, theirs: str) -> bool:
    """One of our errors against the API server's refusal."""
    listing = [line[2:] for line in theirs.splitlines() if line.startswith("* ")]
    if listing:
        return ours in listing
    strict = _STRICT.findall(theirs)
    if strict:
        # An object where the schema has a list: strict decoding names each of its keys unknown,
        # we name the list's type; the field (or its parent) is the same.
        ours_field = ours.split(":", 1)[0]
        return ours in {f'unknown field "{field}"' for field in strict} or all(
            field.startswith(f"{ours_field}.") for field in strict)
    webhook = _WEBHOOK.search(theirs.strip())
    assert webhook, theirs
    go_field = _GO_FIELD.search(webhook.group(1))
    if go_field:
        return _unindexed(ours.split(":", 1)[0]) == go_field.group(1)
    return ours.endswith(webhook.group(1))


def test_every_case_was_probed_in_both_versions() -> None:
    assert sorted({o["case"] for o in OUTCOMES}) == sorted(CASES)
    assert [o["input"]["spec"].get("components", [{}])[0].get("eppConfig", {}).get("config") for o in OUTCOMES
            if o["input"]["apiVersion"].endswith("v1beta1")] == list(CASES.values())
    assert len(OUTCOMES) == 2 * len(CASES)
    assert 0 < len(ACCEPTED) < len(OUTCOMES)


@pytest.mark.parametrize("outcome", OUTCOMES, ids=_id)
def test_we_refuse_what_the_operator_refused_in_its_words(outcome: dict[str, Any]) -> None:
    ours = _errors(outcome["input"])
    if outcome["accepted"]:
        assert ours == []
        return
    assert ours, f"the operator refused it:\n{outcome['message']}"
    for error in ours:
        assert _said_alike(error, outcome["message"]), f"{error}\n  against the operator's:\n{outcome['message']}"


def _rendered(outcome: dict[str, Any]) -> dict[str, dict[str, Any]]:
    loaded = load_documents(yaml.safe_dump(outcome["input"], sort_keys=False)).loaded[0]
    platform: Platform = platform_for("pathway")
    result = render_graph(loaded.object, platform, outcome["input"]["metadata"]["namespace"])
    return {f"{o['kind']}/{o['metadata']['name']}": o for o in (*result.components, *result.objects)}


@pytest.mark.parametrize("outcome", ACCEPTED, ids=_id)
def test_the_rendered_config_map_and_dcd_config_are_the_operators(outcome: dict[str, Any]) -> None:
    name = outcome["input"]["metadata"]["name"]
    objects = _rendered(outcome)
    assert outcome["config_map"] is not None, "the operator wrote no ConfigMap within the probe's wait"
    assert objects[f"ConfigMap/{name}-epp-config"]["data"] == outcome["config_map"]
    if outcome.get("dcd_config") is not None:
        dcd = objects[f"DynamoComponentDeployment/{name}-epp"]
        assert dcd["spec"]["eppConfig"]["config"] == outcome["dcd_config"]


@pytest.mark.parametrize("outcome", ACCEPTED, ids=_id)
def test_the_stored_graph_config_is_the_webhooks_round_trip(outcome: dict[str, Any]) -> None:
    doc = outcome["input"]
    beta = doc["apiVersion"].endswith("v1beta1")
    config = doc["spec"]["components"][0]["eppConfig"]["config"] if beta else doc["spec"]["services"]["epp"]["eppConfig"]["config"]
    if beta:  # the mutating webhook's patch adds and replaces, never removes
        assert go_zero_filled(config, nulls=False) == outcome["stored"]
    else:  # the conversion webhook re-encodes the Go type whole
        assert go_zero_filled(config, nulls=False, whole=True) == outcome["stored"]
