"""No stand-in value ever reaches a user (issue 23, item 1).

Planning parks a ``pulumi.Output`` as a token, and at an integer model field as a stand-in
integer of about 10**9 (``planning/unknowns.py``). A typed program with
``ComponentSpec(replicas=pulumi.Output.from_input(2))`` once previewed ``GPUs requested:
1007318818`` and diffed ``spec.replicas: 1007318817 => 3``.

Here a Pulumi program puts an Output at **every integer field of the models** (found by walking
them, so a new field without a case fails :func:`test_every_integer_field_has_a_case`), plus the
integer leaves of a pod template and a GPU quantity, and **every CLI command and public helper**
runs over it: ``preview`` (text, JSON), ``diff`` against the same program with another value
(text, JSON), ``validate``, ``render``, ``status`` and ``wait`` (which take YAML, and must say so
cleanly), ``preview_program`` (``gpus``, the recording, the plans, the log lines) and the
component's own outputs. Nothing they print or return may hold a token or a stand-in integer;
where the Output's value is known (every Output of these programs under mocks) the counts are the
real ones, and where it is not (an Output of a resource created in the same preview) the count
says ``unknown``.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from pydantic import BaseModel

from dynamo_pulumi.api import v1beta1 as beta
from dynamo_pulumi.mocks import shown_inputs
from dynamo_pulumi.planning.outputs import summarize
from dynamo_pulumi.planning.unknowns import _INT_BASE, _PROBE_OFFSET
from dynamo_pulumi.user_program import preview_program

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
MARK = "__OUTPUT__"  # where a program puts its Output
SPAN = 2**24  # stand-ins are _INT_BASE (+ _PROBE_OFFSET) + 24 bits of the Output's id
TOKEN = re.compile(r"__dynamo_pulumi_output_")
BIG_NUMBER = re.compile(r"\d{10}")


def stand_ins(text: str) -> list[str]:
    """Every parked token and every number in a stand-in range found in ``text``."""
    found = TOKEN.findall(text)
    for number in BIG_NUMBER.findall(text):
        value = int(number)
        if any(base <= value < base + SPAN for base in (_INT_BASE, _INT_BASE + _PROBE_OFFSET)):
            found.append(number)
    return found


def no_stand_in(what: str, value: Any) -> None:
    text = value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
    assert not stand_ins(text), f"{what} shows stand-ins {stand_ins(text)[:3]}:\n{text[:3000]}"


# --- the graphs ---------------------------------------------------------------------------------


def _main(**extra: Any) -> dict[str, Any]:
    return {"name": "main", "image": IMAGE, "command": ["python3", "-m", "dynamo.vllm"],
            "args": ["--model", "Qwen/Qwen3-0.6B"], "resources": {"limits": {"nvidia.com/gpu": "1"}}, **extra}


def _graph(decode: dict[str, Any] | None = None, spec: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    worker = {"name": "decode", "type": "worker", "replicas": 1, "podTemplate": {"spec": {"containers": [_main()]}},
              **(decode or {})}
    worker = {k: v for k, v in worker.items() if v is not None}
    frontend = {"name": "Frontend", "type": "frontend",
                "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g", **meta},
            "spec": {"backendFramework": "vllm", "components": [frontend, worker], **(spec or {})}}


GROVE = {"orchestrators": {"grove": {"enabled": True}}}
LWS = {"orchestrators": {"lws": {"enabled": True}}}
LPX_AGENT = [{"name": "agent", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "lpx-agent:1.0.0"}]}}}]
IDENTITY = {"model": "m", "backendFramework": "vllm", "tensorParallelSize": 1, "pipelineParallelSize": 1,
            "maxModelLen": 4096}


def _identity(key: str) -> dict[str, Any]:
    return {"experimental": {"checkpoint": {"enabled": True, "identity": {**IDENTITY, key: MARK}}}}


def _lpx(scheduling: Any = None, ids: Any = None) -> dict[str, Any]:
    lpx: dict[str, Any] = {"buildId": "b"}
    if scheduling is not None:
        lpx["scheduling"] = {"attemptDeadlineSeconds": scheduling}
    if ids is not None:
        lpx["experimental"] = {"localPartitions": {"mode": "IDs", "ids": [ids]}}
    return {"type": "lpx", "lpx": lpx, "roles": LPX_AGENT, "podTemplate": None}


@dataclass(frozen=True)
class Case:
    """A graph with :data:`MARK` at the field, the Output's value and another for ``diff``."""

    graph: dict[str, Any]
    value: Any
    other: Any
    platform: dict[str, Any] = field(default_factory=dict)
    mode: str = "render"
    #: GPUs ``preview`` requests with the value (None: the graph is refused, with its error).
    gpus: int | None = 1
    kind: str = "DynamoGraphDeployment"


#: Every integer field of the models (``fields`` walks them; ``[]`` a list item), then the integer
#: leaves of a pod template and a GPU quantity (free-form core/v1: tokens, not stand-ins).
CASES: dict[str, Case] = {
    "spec.components[].replicas": Case(_graph({"replicas": MARK}), 2, 3, gpus=2),
    # CEL compares it with replicas while validating: refused, naming the field
    "spec.components[].minAvailable": Case(_graph({"replicas": 3, "minAvailable": MARK}), 2, 1, GROVE, gpus=None),
    # the node count sizes the launch: refused, naming the field, with no stand-in in the error
    "spec.components[].multinode.nodeCount": Case(_graph({"multinode": {"nodeCount": MARK}}), 2, 3, LWS, gpus=None),
    "spec.components[].roles[].replicas": Case(
        _graph({"multinode": {"nodeCount": 2}, "roles": [{"name": "leader", "replicas": MARK}, {"name": "worker"}]}),
        1, 1, LWS, gpus=None),
    # the rendering reads it (0: no /dev/shm volume): refused, naming the field
    "spec.components[].sharedMemorySize": Case(_graph({"sharedMemorySize": MARK}), 8 * 2**30, 16 * 2**30, gpus=None),
    "spec.components[].experimental.failover.numShadows": Case(
        _graph({"experimental": {"failover": {"mode": "IntraPod", "numShadows": MARK},
                                 "gpuMemoryService": {"mode": "IntraPod"}}},
               annotations={"nvidia.com/dynamo-kube-discovery-mode": "container"}), 1, 1, gpus=None),
    "spec.components[].experimental.checkpoint.identity.tensorParallelSize": Case(
        _graph(_identity("tensorParallelSize")), 1, 2, {"checkpoint": {"enabled": True}}, "operator", gpus=0),
    "spec.components[].experimental.checkpoint.identity.pipelineParallelSize": Case(
        _graph(_identity("pipelineParallelSize")), 1, 2, {"checkpoint": {"enabled": True}}, "operator", gpus=0),
    "spec.components[].experimental.checkpoint.identity.maxModelLen": Case(
        _graph(_identity("maxModelLen")), 4096, 8192, {"checkpoint": {"enabled": True}}, "operator", gpus=0),
    "spec.components[].lpx.scheduling.attemptDeadlineSeconds": Case(
        _graph(_lpx(scheduling=MARK)), 30, 60, {"lpx": {"enabled": True}, **GROVE}, "operator", gpus=0),
    "spec.components[].lpx.experimental.localPartitions.ids[]": Case(
        _graph(_lpx(ids=MARK)), 0, 1, {"lpx": {"enabled": True}, **GROVE}, "operator", gpus=0),
    "spec.experimental.componentGroups[].replicas": Case(
        _graph(spec={"experimental": {"componentGroups": [{"name": "pd", "replicas": MARK, "components": [{"name": "decode"}]}]}}),
        2, 3, mode="operator", gpus=0),
    "metadata.generation": Case(_graph(generation=MARK), 1, 2, mode="operator"),
    # a standalone DCD's own replicas
    "DCD spec.replicas": Case(
        {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "w"},
         "spec": {"type": "worker", "backendFramework": "vllm", "replicas": MARK,
                  "podTemplate": {"spec": {"containers": [_main()]}}}}, 2, 4, gpus=2, kind="DynamoComponentDeployment"),
    # pod template integers and a GPU quantity
    "podTemplate terminationGracePeriodSeconds": Case(
        _graph({"podTemplate": {"spec": {"terminationGracePeriodSeconds": MARK, "containers": [_main()]}}}), 30, 60),
    "podTemplate containerPort": Case(
        _graph({"podTemplate": {"spec": {"containers": [_main(ports=[{"name": "metrics", "containerPort": MARK}])]}}}),
        9090, 9091),
    "podTemplate GPU limit": Case(
        _graph({"podTemplate": {"spec": {"containers": [_main(resources={"limits": {"nvidia.com/gpu": MARK}})]}}}),
        "2", "4", gpus=2),
}
#: Walked fields that need no case of their own: the DCD's spec shares the component model
#: (covered by the DGD's cases and by ``DCD spec.replicas``).
MODEL_ONLY = "DCD"


def _leaf_types(annotation: Any) -> set[Any]:
    found: set[Any] = set()

    def walk(t: Any) -> None:
        if isinstance(t, type):
            found.add(t)
        for arg in typing.get_args(t):
            walk(arg)

    walk(annotation)
    return found


def _is_list(annotation: Any) -> bool:
    """A list of items, possibly optional or annotated (``Annotated[list[X], ...] | None``)."""
    if typing.get_origin(annotation) is list:
        return True
    return typing.get_origin(annotation) is not None and any(
        _is_list(a) for a in typing.get_args(annotation) if not isinstance(a, (str, int)))


def integer_fields(model: type[BaseModel], prefix: str = "", seen: tuple[type, ...] = ()) -> list[str]:
    """Wire paths of every field of ``model`` (and its sub-models) that takes an integer."""
    paths = []
    for name, info in model.model_fields.items():
        leaves = _leaf_types(info.annotation)
        path = f"{prefix}{info.alias or name}{'[]' if _is_list(info.annotation) else ''}"
        for sub in (t for t in leaves if issubclass(t, BaseModel) and t not in seen):
            paths += integer_fields(sub, f"{path}.", (*seen, sub))
        if int in leaves and bool not in leaves:
            paths.append(path)
    return paths


def test_every_integer_field_has_a_case() -> None:
    walked = set(integer_fields(beta.DynamoGraphDeployment)) | {
        f"spec.components[].{p.removeprefix('spec.')}" for p in integer_fields(beta.DynamoComponentDeployment)
        if p.startswith("spec.") and p != "spec.replicas"
    }
    assert walked == {name for name in CASES if " " not in name}


# --- the programs -------------------------------------------------------------------------------

PROGRAM = '''\
import json
from pathlib import Path

import pulumi

from dynamo_pulumi.resources import DynamoComponentDeployment, DynamoGraphDeployment

CASE = json.loads(Path("case.json").read_text())


class Pool(pulumi.CustomResource):
    """A resource of this program whose output is not known at preview."""

    def __init__(self, name):
        super().__init__("test:index:Pool", name, {"size": None})


def value():
    if CASE["unknown"]:
        return Pool("pool").size
    return pulumi.Output.from_input(CASE["value"])


def fill(node):
    if node == "__OUTPUT__":
        return value()
    if isinstance(node, dict):
        return {k: fill(v) for k, v in node.items()}
    if isinstance(node, list):
        return [fill(v) for v in node]
    return node


component = DynamoGraphDeployment if CASE["kind"] == "DynamoGraphDeployment" else DynamoComponentDeployment
graph = component(CASE["name"], fill(CASE["graph"]), namespace="llm", platform=CASE["platform"], mode=CASE["mode"])
shown = {"gpus": graph.gpus if CASE["kind"] != "DynamoGraphDeployment" else graph.total_gpus,
         "replicas": getattr(graph, "replicas", None),
         "components": getattr(graph, "component_outputs", None), "expansion": graph.expansion}
pulumi.Output.all(**{k: v for k, v in shown.items() if v is not None}).apply(
    lambda values: Path("outputs.json").write_text(json.dumps(values, default=str)))
'''


def write_program(directory: Path, case: Case, value: Any, unknown: bool = False) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "Pulumi.yaml").write_text("name: stand-ins\nruntime: python\n")
    (directory / "__main__.py").write_text(PROGRAM)
    name = case.graph["metadata"]["name"]
    (directory / "case.json").write_text(json.dumps({
        "graph": case.graph, "platform": case.platform, "mode": case.mode, "kind": case.kind, "name": name,
        "value": value, "unknown": unknown}))
    return directory


def _commands(program: Path, other: Path) -> list[list[str]]:
    return [
        ["preview", str(program)], ["preview", str(program), "-o", "json"],
        ["diff", str(program), str(other)], ["diff", str(program), str(other), "-o", "json"],
        ["diff", str(other), str(program), "--detailed-exitcode"],
        ["validate", str(program)], ["validate", str(program), "-o", "json"], ["render", str(program)],
        ["status", str(program)], ["wait", str(program), "--timeout", "1s"],
    ]


@dataclass
class Seen:
    """What one program showed: every command's output and every helper's return value."""

    outputs: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    helpers: dict[str, Any] = field(default_factory=dict)


def run_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: Case, unknown: bool = False) -> Seen:
    program = write_program(tmp_path / "program", case, case.value, unknown)
    other = write_program(tmp_path / "other", case, case.other)
    seen = Seen()
    for argv in _commands(program, other):
        seen.outputs[" ".join(argv)] = run_cli(capsys, *argv)
    if case.gpus is None:
        return seen  # refused: the commands' errors are what there is to see
    run = preview_program(program)
    name = case.graph["metadata"]["name"]
    seen.helpers["gpus"] = run.gpus(name)
    seen.helpers["recording"] = [(r.type, r.name, shown_inputs(r.inputs)) for r in run.recording.resources]
    seen.helpers["plans"] = [[o.obj for o in p.all_objects()] + [c.dcd for c in p.components] for p in run.plans]
    if not unknown:  # the admitted model keeps the placeholder of a value unknown at preview
        seen.helpers["graph"] = [p.graph.to_wire() for p in run.plans]
    seen.helpers["summaries"] = [{n: (s.as_dict(), s.known_gpus) for n, s in summarize(p).components.items()}
                                 for p in run.plans]
    seen.helpers["logs"] = run.log_lines()
    outputs = program / "outputs.json"
    seen.helpers["component outputs"] = json.loads(outputs.read_text()) if outputs.exists() else None
    return seen


def _assert_clean(seen: Seen) -> None:
    for command, (_code, out, err) in seen.outputs.items():
        no_stand_in(f"`{command}` stdout", out)
        no_stand_in(f"`{command}` stderr", err)
        assert "Traceback" not in err, f"`{command}`: {err}"
    for helper, value in seen.helpers.items():
        no_stand_in(helper, value)


@pytest.mark.parametrize("name", list(CASES))
def test_no_command_or_helper_shows_a_stand_in(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    case = CASES[name]
    seen = run_everything(tmp_path, capsys, case)
    _assert_clean(seen)
    preview = seen.outputs[f"preview {tmp_path / 'program'} -o json"]
    if case.gpus is None:  # refused like a YAML file: one error naming the field, exit 1
        assert preview[0] == 1 and "pulumi.Output" in preview[2]
        return
    assert preview[0] == 0, preview[2]
    [graph] = json.loads(preview[1])["graphs"]
    assert (graph["gpus"]["total"], graph["gpus"]["partial"]) == (case.gpus, False)
    assert sum(v for v in seen.helpers["gpus"].values()) == case.gpus
    outputs = seen.helpers["component outputs"]
    assert outputs is not None and outputs["gpus"] == case.gpus


def test_the_counts_follow_the_outputs_values_in_a_diff(tmp_path, capsys) -> None:
    seen = run_everything(tmp_path, capsys, CASES["spec.components[].replicas"])
    code, out, _ = seen.outputs[f"diff {tmp_path / 'program'} {tmp_path / 'other'}"]
    assert code == 0
    assert "spec.replicas: 2 => 3" in out and "+1 nvidia.com/gpu on decode: replicas 2 => 3" in out
    assert "GPUs: 2 => 3 (+1)" in out
    code, out, _ = seen.outputs[f"diff {tmp_path / 'program'} {tmp_path / 'other'} -o json"]
    gpus = json.loads(out)["gpus"]
    assert (gpus["before"], gpus["after"], gpus["delta"], gpus["partial"]) == (2, 3, 1, False)


UNKNOWN_CASES: dict[str, Callable[[], Case]] = {
    "replicas": lambda: CASES["spec.components[].replicas"],
    "GPU limit": lambda: CASES["podTemplate GPU limit"],
}


@pytest.mark.parametrize("name", list(UNKNOWN_CASES))
def test_a_value_not_known_at_preview_is_unknown_not_a_stand_in(tmp_path, capsys, name: str) -> None:
    case = UNKNOWN_CASES[name]()
    seen = run_everything(tmp_path, capsys, case, unknown=True)
    _assert_clean(seen)
    code, out, _ = seen.outputs[f"preview {tmp_path / 'program'}"]
    assert code == 0
    assert "GPUs requested:   0 + unknown (partial" in out
    assert "decode: unknown nvidia.com/gpu (not known at preview: it depends on the pulumi.Output at " in out
    code, out, _ = seen.outputs[f"preview {tmp_path / 'program'} -o json"]
    gpus = json.loads(out)["graphs"][0]["gpus"]
    assert (gpus["total"], gpus["partial"]) == (0, True)
    assert [c["gpus"] for c in gpus["components"]] == [0, "unknown"]
    assert seen.helpers["gpus"] == {"Frontend": 0, "decode": "unknown"}
    code, out, _ = seen.outputs[f"diff {tmp_path / 'program'} {tmp_path / 'other'}"]
    assert "GPUs: 0 + unknown => " in out and "(partial: some counts are not known at preview)" in out
