"""How the dynamic-provider host formats what a provider method raises (cluster/host_errors.py).

The real host is driven in tests/test_readiness_sdk_host.py and, through the engine, in
tests/e2e/test_engine_failure.py; here a stand-in ``__main__`` with the host's module name shows
the rule itself: our errors as their message, anything else with its traceback, and nothing
changed in any other process.
"""

from __future__ import annotations

import importlib.machinery
import sys
import traceback
import types

import pytest

from dynamo_pulumi.cluster import host_errors
from dynamo_pulumi.cluster.errors import WaitTimeout


def _module(name: str) -> types.ModuleType:
    module = types.ModuleType("__main__")
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    module.traceback = traceback  # type: ignore[attr-defined]
    return module


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = _module(host_errors.HOST_MODULE)
    monkeypatch.setitem(sys.modules, "__main__", module)
    return module


def _formatted(host: types.ModuleType, error: Exception) -> str:
    try:
        raise error
    except Exception:  # the host catches everything, as here
        return str(host.traceback.format_exc())


def test_our_error_is_its_message_alone_in_the_host(host):
    assert host_errors.install() is True
    text = _formatted(host, WaitTimeout("DynamoGraphDeployment ns/g not ready after 20s:\n  VllmWorker: 0/1 ready"))
    assert text == "DynamoGraphDeployment ns/g not ready after 20s:\n  VllmWorker: 0/1 ready"


def test_any_other_error_keeps_its_traceback(host):
    host_errors.install()
    text = _formatted(host, KeyError("graph"))
    assert text.startswith("Traceback (most recent call last):") and text.rstrip().endswith("KeyError: 'graph'")


def test_limit_and_chain_reach_the_real_formatter(host):
    host_errors.install()
    try:
        try:
            raise KeyError("cause")
        except KeyError as cause:
            raise ValueError("effect") from cause
    except ValueError:
        whole, unchained = host.traceback.format_exc(), host.traceback.format_exc(chain=False)
        shallow = host.traceback.format_exc(limit=0)
    assert "KeyError" in whole and "KeyError" not in unchained
    assert "File " not in shallow.split("direct cause")[-1] and "File " in whole.split("direct cause")[-1]


def test_install_is_idempotent_and_the_rest_of_traceback_is_untouched(host):
    assert host_errors.install() is True
    installed = host.traceback
    assert host_errors.install() is True and host.traceback is installed
    assert installed.format_exception is traceback.format_exception


@pytest.mark.parametrize("name", ["pulumi.dynamic", "__main__", "pytest"])
def test_outside_the_host_nothing_changes(monkeypatch, name):
    module = _module(name)
    monkeypatch.setitem(sys.modules, "__main__", module)
    assert host_errors.install() is False
    assert module.traceback is traceback


def test_a_host_without_traceback_is_left_alone(host):
    del host.traceback
    assert host_errors.install() is False and not hasattr(host, "traceback")


def test_a_host_whose_traceback_someone_else_replaced_is_left_alone(host):
    other = types.SimpleNamespace(format_exc=lambda: "theirs")
    host.traceback = other
    assert host_errors.install() is False and host.traceback is other
