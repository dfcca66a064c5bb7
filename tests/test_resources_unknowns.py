"""Parking ``pulumi.Output`` leaves as tokens for the pure renderer, and putting them back."""

from __future__ import annotations

import pulumi
import pytest

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.unknowns import OutputTable, park, restore


def _out(value: str) -> pulumi.Output:
    return pulumi.Output.from_input(value)


def in_program(test):
    """Outputs only exist inside a Pulumi program: run the test body under mocks."""

    def wrapper(*args, **kwargs):
        run_program(lambda: test(*args, **kwargs))

    wrapper.__name__ = test.__name__
    return wrapper


@in_program
def test_tokens_depend_on_the_path_not_on_other_outputs():
    image = _out("img")
    alone = park({"spec": {"b": {"image": image}}}, OutputTable())
    with_other = park({"spec": {"a": {"extra": _out("x")}, "b": {"image": image}}}, OutputTable())
    assert alone["spec"]["b"]["image"] == with_other["spec"]["b"]["image"]
    assert alone["spec"]["b"]["image"].startswith("__dynamo_pulumi_output_")


@in_program
def test_restore_puts_the_same_output_back_and_splices_substrings():
    image = _out("img")
    table = OutputTable()
    parked = park({"image": image, "n": 3}, table)
    rendered = {"image": parked["image"], "args": [f"--image={parked['image']}"], "n": 3}
    restored = restore(rendered, table)
    assert restored["image"] is image
    assert isinstance(restored["args"][0], pulumi.Output)
    assert restored["n"] == 3


@in_program
def test_paths_are_reported_in_wire_form():
    table = OutputTable()
    park({"spec": {"components": [{"podTemplate": {"x": _out("v")}}]}}, table)
    assert list(table.paths.values()) == ["spec.components[0].podTemplate.x"]


def test_an_output_as_a_mapping_key_is_refused():
    with pytest.raises(InputError, match="mapping key"):
        run_program(lambda: park({"labels": {_out("k"): "v"}}, OutputTable()))


def test_without_outputs_nothing_is_touched():
    table = OutputTable()
    value = {"a": ["b", {"c": 1}]}
    assert park(value, table) == value and not table
    assert restore(value, table) is value


def test_a_run_is_not_blocked_by_outputs_made_outside_it():
    import asyncio

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        _out("made outside any program")
        rec, _ = run_program(lambda: _out("inside"))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert rec.resources == []
