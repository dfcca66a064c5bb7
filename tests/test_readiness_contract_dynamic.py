"""The readiness contract (``readiness_contract``) held against the dynamic transport, through
the SDK's own dynamic-provider host (``python -m pulumi.dynamic``) exactly as the engine starts
it: the same checks the plugin passes (``test_plugin_grpc.py``).

The host formats every failure with ``traceback.format_exc()``; since the readiness provider
gives it a ``traceback`` that formats our errors as their message (cluster/host_errors.py), a
failed wait is one message here too (it was a traceback above it, issue 17, and the real engine
printed it, tests/e2e/test_engine_failure.py).
"""

from __future__ import annotations

import pytest
import readiness_contract as contract
from plugin_support import DYNAMIC_HOST, DynamicDriver, FakeEngine, Plugin


@pytest.fixture(scope="module")
def driver():
    engine = FakeEngine().start()
    host = Plugin(engine, DYNAMIC_HOST)
    yield DynamicDriver(host)
    host.close()
    engine.stop()


@pytest.mark.parametrize("check", contract.PURE, ids=lambda f: f.__name__)
def test_pure_contract(driver, check):
    check(driver)


@pytest.mark.parametrize("check", contract.WITH_CLUSTER, ids=lambda f: f.__name__)
def test_cluster_contract(driver, server, check):
    check(driver, server)
