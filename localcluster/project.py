"""Run a Pulumi project through the real ``pulumi`` CLI, with its Python program served in-process.

    python -m localcluster.project up DIR [--stack S] [--config KEY=VALUE ...] [--events FILE]
    python -m localcluster.project preview|refresh|destroy|outputs DIR ...

The Go language host ``pulumi-language-python`` is not served by the module proxy (its module
is untagged upstream and the proxy here refuses its pseudo-versions), so a Python project runs
the way the Automation API runs inline programs: the CLI is started with ``--client`` and talks
to the language server of the ``pulumi`` SDK in this process, which runs the project's
``__main__.py`` (in its directory, with its ``Pulumi.yaml`` and ``Pulumi.<stack>.yaml``). The
engine, the plan, the providers and every plugin are the real ones; only the process that hosts
the program differs from a ``pulumi up`` typed in the project directory.

Each engine event is written as one JSON line to ``--events`` (with the wall-clock second it
arrived), so a test can read the steps the engine took, in order, and when.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pulumi import automation as auto

OPS = ("up", "preview", "refresh", "destroy", "outputs")


def _program(project_dir: Path) -> Callable[[], None]:
    main = project_dir / "__main__.py"

    def program() -> None:
        runpy.run_path(str(main), run_name="__main__")

    return program


def _event_json(event: auto.EngineEvent) -> dict[str, Any]:
    """The parts of an engine event a test reads, as plain data."""
    out: dict[str, Any] = {"t": time.time(), "sequence": event.sequence}
    if event.resource_pre_event is not None:
        m = event.resource_pre_event.metadata
        out["pre"] = _step(m)
    if event.res_outputs_event is not None:
        out["outputs"] = _step(event.res_outputs_event.metadata)
    if event.res_op_failed_event is not None:
        out["failed"] = _step(event.res_op_failed_event.metadata)
    if event.diagnostic_event is not None:
        d = event.diagnostic_event
        out["diagnostic"] = {"severity": d.severity, "message": d.message, "urn": d.urn,
                             "ephemeral": bool(d.ephemeral)}
    if event.summary_event is not None:
        out["summary"] = {str(k): v for k, v in (event.summary_event.resource_changes or {}).items()}
    return out


def _step(m: auto.StepEventMetadata) -> dict[str, Any]:
    return {
        "op": str(m.op.value if hasattr(m.op, "value") else m.op),
        "urn": m.urn,
        "type": m.type,
        "diffs": list(m.diffs or []),
        "keys": list(m.keys or []),
        "detailed_diff": {k: str(v.diff_kind.value) for k, v in (m.detailed_diff or {}).items()},
    }


def _stack(project_dir: Path, stack_name: str) -> auto.Stack:
    opts = auto.LocalWorkspaceOptions(work_dir=str(project_dir), env_vars=dict(os.environ))
    return auto.create_or_select_stack(stack_name=stack_name, project_name="", program=_program(project_dir),
                                       opts=opts)


def run(op: str, project_dir: Path, stack_name: str, config: dict[str, str], events: TextIO | None,
        diff: bool, log: TextIO) -> dict[str, Any]:
    project_dir = project_dir.resolve()
    os.chdir(project_dir)
    sys.path.insert(0, str(project_dir))
    stack = _stack(project_dir, stack_name)
    if config:
        stack.set_all_config({k: auto.ConfigValue(v) for k, v in config.items()})

    def on_event(event: auto.EngineEvent) -> None:
        if events is not None:
            events.write(json.dumps(_event_json(event)) + "\n")
            events.flush()

    def on_output(line: str) -> None:
        log.write(line + "\n")
        log.flush()

    common: dict[str, Any] = {"on_output": on_output, "on_event": on_event}
    if op == "up":
        result = stack.up(diff=diff, **common)
        return {"summary": result.summary.resource_changes, "outputs": _outputs(result.outputs)}
    if op == "preview":
        pre = stack.preview(diff=diff, **common)
        return {"summary": pre.change_summary}
    if op == "refresh":
        ref = stack.refresh(**common)
        return {"summary": ref.summary.resource_changes}
    if op == "destroy":
        des = stack.destroy(**common)
        return {"summary": des.summary.resource_changes}
    return {"outputs": _outputs(stack.outputs())}


def _outputs(outputs: dict[str, auto.OutputValue]) -> dict[str, Any]:
    return {k: ("[secret]" if v.secret else v.value) for k, v in outputs.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m localcluster.project", description=__doc__.splitlines()[0])
    p.add_argument("op", choices=OPS)
    p.add_argument("project", type=Path)
    p.add_argument("--stack", default="local")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--events", type=Path, help="write each engine event as a JSON line here")
    p.add_argument("--diff", action="store_true", help="show the detailed diff, as `pulumi up --diff`")
    args = p.parse_args(argv)
    config = dict(item.split("=", 1) for item in args.config)
    events = args.events.open("a") if args.events else None
    try:
        result = run(args.op, args.project, args.stack, config, events, args.diff, sys.stderr)
    except auto.CommandError as e:
        # The engine's output was streamed as it came; what is left is what it wrote to stderr.
        detail = str(e).split(" stderr: ", 1)[-1].strip()
        sys.stderr.write(f"{detail}\npulumi {args.op} failed\n" if detail else f"pulumi {args.op} failed\n")
        return 1
    finally:
        if events is not None:
            events.close()
    print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
