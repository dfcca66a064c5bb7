"""The custom resource definitions the local cluster serves.

The Dynamo CRDs (DGD, DCD, ...) and Grove's come from ``../shared/conformance/crds/`` (the test
data beside the repository; absent, those kinds are simply not served and the tests that need
them skip), LeaderWorkerSet's from the pinned ``sigs.k8s.io/lws`` module, and the kinds the
operator renders beyond its own (InferencePool, Istio's VirtualService and DestinationRule) from
the modules ``tools/crds`` pins: with them a dry run judges every object we render.
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


def rendered_kind_crds(tools: ToolSet) -> tuple[Path, ...]:
    d = tools.share("crds")
    return tuple(sorted(d.glob("*.yaml"))) if d.is_dir() else ()


def cluster_crds(tools: ToolSet) -> tuple[Path, ...]:
    return shared_crds() + lws_crds(tools) + rendered_kind_crds(tools)
