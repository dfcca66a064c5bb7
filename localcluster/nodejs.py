"""A TypeScript Pulumi project against the local cluster: its SDK, its npm packages, its program.

The dynamo SDK is generated from ``schema.json`` by ``pulumi-gen-sdk --language nodejs --local``
(``tools/pulumi-codegen``), which is ``pulumi package gen-sdk schema.json --language nodejs
--local``: the CLI asks the pulumi-language-nodejs host, whose ``GeneratePackage`` calls the same
``codegen/nodejs.GeneratePackage`` of the pinned ``pkg/v3`` with the same arguments (the host is
not served by the module proxy here). The project's npm packages (``@pulumi/pulumi``,
``@pulumi/kubernetes``, ``typescript``, the generated SDK, as its ``package-lock.json`` pins them)
are installed once into a cache outside the work tree, keyed by the lock, ``package.json``, the
generated SDK and the Node.js and npm versions, so a warm run installs nothing; a project copy
links that ``node_modules``. ``npm ci`` reaches the npm registry, like ``pip install``; it runs
with ``--ignore-scripts`` (``@pulumi/kubernetes``' install script would ``pulumi plugin install``
a provider: nothing is downloaded but packages), then ``npm rebuild @pulumi/dynamo`` runs the
SDK's own postinstall, which compiles it, as ``npm install`` does for a user.

The program is compiled with the project's TypeScript and run by ``nodejs_project.js``: the Node.js
Automation API's inline program (``--client``), since the Node.js language host is not served either.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import yaml

from .engine import Engine
from .tools import REPO, ToolSet

DRIVER = Path(__file__).with_name("nodejs_project.js")
#: Where the SDK goes in a project, as `pulumi package gen-sdk --out sdks` writes it.
SDK_DIR = Path("sdks") / "nodejs"
#: The files of a TypeScript example a project copy takes (node_modules is linked, bin/ compiled).
PROJECT_FILES = ("Pulumi.yaml", "package.json", "package-lock.json", "tsconfig.json", "index.ts", "graph.yaml")


def npm_cache_root() -> Path:
    given = os.environ.get("DYNAMO_NPM_CACHE")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return Path(given) if given else base / "dynamo-pulumi" / "npm"


def _run(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 900.0) -> str:
    result = subprocess.run(argv, cwd=cwd, env=dict(env) if env else None, capture_output=True, text=True,
                            timeout=timeout, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}) in {cwd}:\n"
                           f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def generate_sdk(tools: ToolSet, out: Path, schema: Path = REPO / "schema.json") -> Path:
    """The nodejs SDK of ``schema`` in ``out`` (replaced), as ``pulumi package gen-sdk --local`` writes it."""
    shutil.rmtree(out, ignore_errors=True)
    _run([str(tools.program("pulumi-gen-sdk")), "--language", "nodejs", "--local", str(schema), str(out)], cwd=REPO)
    return out


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _install_key(example: Path, sdk: Path) -> str:
    h = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        h.update((example / name).read_bytes() + b"\0")
    h.update(_tree_digest(sdk).encode())
    for tool in ("node", "npm"):
        h.update(_run([tool, "--version"], cwd=example).strip().encode() + b"\0")
    return h.hexdigest()[:16]


def installed(example: Path, sdk: Path, log: TextIO | None = None) -> Path:
    """A directory holding ``node_modules`` for ``example`` with ``sdk`` as ``@pulumi/dynamo``.

    Built once per key under :func:`npm_cache_root` (in a scratch directory renamed into place, so
    a concurrent or interrupted build never leaves a half-installed cache entry).
    """
    root = npm_cache_root()
    entry = root / _install_key(example, sdk)
    if (entry / "node_modules").is_dir():
        return entry
    scratch = root / f".build-{uuid.uuid4().hex[:8]}"
    scratch.mkdir(parents=True)
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(example / name, scratch / name)
        shutil.copytree(sdk, scratch / SDK_DIR)
        if log is not None:
            log.write(f"[npm] installing {example.name}'s packages into {entry} (once per package-lock)\n")
        _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=scratch)
        _run(["npm", "rebuild", "@pulumi/dynamo"], cwd=scratch)  # the SDK's postinstall: tsc
        try:
            scratch.rename(entry)
        except OSError:  # another process finished the same entry first
            if not (entry / "node_modules").is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return entry


def project(example: Path, workdir: Path, tools: ToolSet, *, plugin_dir: Path, log: TextIO | None = None) -> Path:
    """A compiled copy of the TypeScript ``example`` in ``workdir``: SDK generated, packages linked
    from the cache, ``index.ts`` compiled to ``bin/``, the ``dynamo`` plugin found in ``plugin_dir``."""
    workdir.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        shutil.copy2(example / name, workdir / name)
    sdk = generate_sdk(tools, workdir / SDK_DIR)
    (workdir / "node_modules").symlink_to(installed(example, sdk, log) / "node_modules", target_is_directory=True)
    point_plugin(workdir / "Pulumi.yaml", plugin_dir)
    tsc = workdir / "node_modules" / "typescript" / "bin" / "tsc"
    _run(["node", str(tsc), "-p", str(workdir)], cwd=workdir)
    return workdir


def point_plugin(pulumi_yaml: Path, plugin_dir: Path) -> None:
    """Make the project's ``plugins: providers:`` entry for ``dynamo`` name ``plugin_dir`` (a copy
    of an example no longer sits two levels under the repository's ``.venv``)."""
    settings = yaml.safe_load(pulumi_yaml.read_text())
    for entry in settings.get("plugins", {}).get("providers", []):
        if entry.get("name") == "dynamo":
            entry["path"] = str(plugin_dir)
    pulumi_yaml.write_text(yaml.safe_dump(settings, sort_keys=False))


def run(engine: Engine, op: str, project_dir: Path, *, program: str = "bin/index.js", stack: str = "e2e",
        config: Mapping[str, str] | None = None, events: Path | None = None,
        timeout: float = 900.0) -> tuple[int, dict[str, Any], str]:
    """``op`` of the compiled project through the real CLI: exit code, result JSON, stderr."""
    argv = ["node", str(DRIVER), op, str(project_dir), "--program", program, "--stack", stack]
    for key, value in (config or {}).items():
        argv += ["--config", f"{key}={value}"]
    if events is not None:
        argv += ["--events", str(events)]
    proc = subprocess.run(argv, cwd=project_dir, env=engine.env(), capture_output=True, text=True,
                          timeout=timeout, check=False)
    lines = proc.stdout.strip().splitlines()
    result = json.loads(lines[-1]) if proc.returncode == 0 and lines else {}
    return proc.returncode, result, proc.stderr
