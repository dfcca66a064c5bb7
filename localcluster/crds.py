"""The custom resource definitions the local cluster serves.

The Dynamo CRDs (DGD, DCD, ...) and Grove's come from ``../shared/conformance/crds/`` (the test
data beside the repository; absent, those kinds are simply not served and the tests that need
them skip), LeaderWorkerSet's from the pinned ``sigs.k8s.io/lws`` module.
"""

from __future__ import annotations

from pathlib import Path

from .tools import REPO, ToolSet

SHARED_CRDS = REPO.parent / "shared" / "conformance" / "crds"


def shared_crds() -> tuple[Path, ...]:
    if not SHARED_CRDS.is_dir():
        return ()
    return tuple(sorted(SHARED_CRDS.glob("*.yaml")))


def lws_crds(tools: ToolSet) -> tuple[Path, ...]:
    d = tools.share("lws")
    return tuple(sorted(d.glob("*_*.yaml"))) if d.is_dir() else ()


def cluster_crds(tools: ToolSet) -> tuple[Path, ...]:
    return shared_crds() + lws_crds(tools)
