"""The Pulumi engine's environment for the local cluster: a private home, a file backend, no downloads.

The CLI finds the Kubernetes provider in its plugin cache (the pinned build, installed there by
``scripts/tools.sh``), its language hosts on ``PATH`` (the pinned builds), and
``pulumi-resource-dynamo`` on ``PATH`` in the virtual environment or where a project's
``plugins:`` says; ``PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION`` makes a missing plugin an error
instead of a download, which is what CI must see.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .tools import ToolSet

PASSPHRASE = "dynamo-pulumi-local"


@dataclass(frozen=True)
class Engine:
    """Where one engine keeps its state (``workdir``) and which cluster its programs target."""

    tools: ToolSet
    workdir: Path
    kubeconfig: Path
    python_bin: Path = Path(sys.executable).parent

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        home = self.workdir / "pulumi-home"
        state = self.workdir / "state"
        home.mkdir(parents=True, exist_ok=True)
        state.mkdir(parents=True, exist_ok=True)
        plugins = home / "plugins"
        if not plugins.exists():  # the set's plugin cache, shared: installing copies 170 MB
            plugins.symlink_to(self.tools.plugin_cache, target_is_directory=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "KUBE"))}
        env.update({
            "PATH": os.pathsep.join([str(self.tools.engine_bin), str(self.python_bin), env.get("PATH", "")]),
            "PULUMI_HOME": str(home),
            "PULUMI_BACKEND_URL": f"file://{state}",
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "PULUMI_PYTHON_CMD": str(self.python_bin / "python"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "KUBECONFIG": str(self.kubeconfig),
            "NO_COLOR": "1",
        })
        if extra:
            env.update(extra)
        return env

    def cli(self, *args: str, cwd: Path, check: bool = True, timeout: float = 900.0,
            extra_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run the pinned ``pulumi`` with this engine's environment."""
        result = subprocess.run(
            [str(self.tools.program("pulumi")), *args, "--non-interactive"], cwd=cwd,
            env=self.env(extra_env), capture_output=True, text=True, timeout=timeout, check=False,
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"pulumi {' '.join(args)} failed ({result.returncode}):\n"
                               f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
        return result
