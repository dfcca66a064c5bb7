"""Where the pinned upstream programs are: built by ``scripts/tools.sh`` into a cache, found here.

``scripts/tools.sh`` is the only step that reaches the Go module proxy; everything else reads its
output. A program that is missing after the build is an error that names it, never a skip: the
end-to-end tier is part of every CI run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS_SCRIPT = REPO / "scripts" / "tools.sh"

# Every program a tier may run, by the tool (wrapper module under tools/) that builds it.
PROGRAMS: dict[str, tuple[str, ...]] = {
    "pulumi": ("pulumi", "pulumi-resource-pulumi-python"),
    "pulumi-codegen": ("pulumi-gen-sdk",),
    "kubernetes-provider": ("pulumi-resource-kubernetes",),
    "pulumi-yaml": ("pulumi-language-yaml",),
    "kube": ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"),
    "etcd": ("etcd",),
    "kwok": ("kwok",),
    "lws": ("lws-controller",),
}


class ToolsError(RuntimeError):
    """A pinned program could not be built or found."""


@dataclass(frozen=True)
class ToolSet:
    """One set of builds: ``bin/`` holds the programs, ``share/<tool>/`` their data files."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def program(self, name: str) -> Path:
        path = self.bin / name
        if not path.exists():
            raise ToolsError(f"{name} is not in {self.bin}: run `bash scripts/tools.sh`")
        return path

    def share(self, tool: str) -> Path:
        return self.root / "share" / tool

    @property
    def engine_bin(self) -> Path:
        """The CLI, the language hosts and kubectl, without any resource provider (see tools.sh)."""
        return self.root / "engine-bin"

    @property
    def plugin_cache(self) -> Path:
        """A Pulumi plugin cache holding the pinned Kubernetes provider."""
        return self.root / "pulumi-plugins"


def ensure_tools(tools: tuple[str, ...] = tuple(PROGRAMS), *, quiet: bool = False) -> ToolSet:
    """Build (or reuse from the cache) the given tools and return their set.

    ``DYNAMO_TOOLS`` names an existing set directory and skips the build step (CI builds once,
    then every test process reuses it). Progress of a build goes to stderr unless ``quiet``.
    """
    given = os.environ.get("DYNAMO_TOOLS")
    if given:
        root = Path(given)
    else:
        result = subprocess.run(
            ["bash", str(TOOLS_SCRIPT), *tools], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if quiet else sys.stderr, text=True, check=False,
        )
        if result.returncode != 0:
            raise ToolsError(f"scripts/tools.sh {' '.join(tools)} failed (exit {result.returncode})")
        root = Path(result.stdout.strip().splitlines()[-1])
    toolset = ToolSet(root)
    for tool in tools:
        for program in PROGRAMS[tool]:
            toolset.program(program)
    return toolset
