"""``python -m localcluster start|stop|status|env``: the local cluster for a person at a shell.

``start`` builds the tools if needed (progress on stderr), starts the cluster in ``--dir``
(default ``.localcluster`` in the repository) and returns, leaving its processes running; ``stop``
stops them and removes nothing but the processes; ``env`` prints the exports that point
``kubectl``, ``pulumi`` and the Kubernetes provider at it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .cluster import ClusterError, LocalCluster
from .crds import cluster_crds
from .engine import Engine
from .processes import stop_group
from .tools import REPO, ToolsError, ensure_tools

DEFAULT_DIR = REPO / ".localcluster"


def _state_file(d: Path) -> Path:
    return d / "state.json"


def _running(d: Path) -> dict[str, object] | None:
    try:
        state = json.loads(_state_file(d).read_text())
    except (OSError, ValueError):
        return None
    pids = [int(p) for p in state.get("pids", [])]
    alive = [p for p in pids if _alive(p)]
    return state if alive and len(alive) == len(pids) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start(d: Path) -> int:
    if (state := _running(d)) is not None:
        print(f"the local cluster in {d} is already running ({state['server']})", file=sys.stderr)
        return 0
    stop(d, quiet=True)
    tools = ensure_tools()
    cluster = LocalCluster(d, tools, crds=cluster_crds(tools))
    print("[cluster] starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok ...",
          file=sys.stderr)
    try:
        cluster.start()
    except ClusterError as e:
        print(f"[cluster] error: {e}", file=sys.stderr)
        return 1
    state = {"server": cluster.server, "kubeconfig": str(cluster.kubeconfig), "tools": str(tools.root),
             "pids": [c.pid for c in cluster.children.started], "timings": cluster.timings.marks}
    _state_file(d).write_text(json.dumps(state, indent=2))
    nodes = ", ".join(f"{p.count} x {p.name}" + (f" ({p.gpus} GPUs)" if p.gpus else "") for p in cluster.pools)
    print(f"[cluster] ready in {cluster.timings.marks['ready']} s at {cluster.server}; nodes: {nodes}",
          file=sys.stderr)
    print(f"[cluster] kubeconfig: {cluster.kubeconfig}   (stop: python -m localcluster stop)", file=sys.stderr)
    return 0


def stop(d: Path, quiet: bool = False) -> int:
    try:
        state = json.loads(_state_file(d).read_text())
    except (OSError, ValueError):
        if not quiet:
            print(f"no local cluster state in {d}", file=sys.stderr)
        return 0
    for pid in reversed([int(p) for p in state.get("pids", [])]):
        stop_group(pid)
    _state_file(d).unlink(missing_ok=True)
    if not quiet:
        print(f"[cluster] stopped ({d})", file=sys.stderr)
    return 0


def env(d: Path) -> int:
    state = _running(d)
    if state is None:
        print(f"the local cluster in {d} is not running: python -m localcluster start", file=sys.stderr)
        return 1
    from .tools import ToolSet

    engine = Engine(ToolSet(Path(str(state["tools"]))), d, Path(str(state["kubeconfig"])))
    keep = ("PATH", "PULUMI_HOME", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_SKIP_UPDATE_CHECK",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "KUBECONFIG")
    values = engine.env()
    for key in keep:
        print(f"export {key}='{values[key]}'")
    return 0


def status(d: Path) -> int:
    state = _running(d)
    if state is None:
        print(f"not running ({d})")
        return 1
    print(f"running at {state['server']} (kubeconfig {state['kubeconfig']})")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m localcluster", description=__doc__.splitlines()[0])
    p.add_argument("command", choices=("start", "stop", "status", "env"))
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the cluster keeps its state")
    args = p.parse_args(argv)
    d = args.dir.resolve()
    try:
        return {"start": start, "stop": stop, "status": status, "env": env}[args.command](d)
    except ToolsError as e:
        print(f"[tools] error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
