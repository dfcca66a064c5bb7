"""The verdict of any graph is a list of field errors, never an exception: whatever admission
lets through, rendering either renders or refuses with a field error (so no entry point can show
a traceback)."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_pulumi.errors import DynamoPulumiError, FieldError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.verdict.deployability import judge

BASE = yaml.safe_load(default_graph_path().read_text())
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
PLATFORMS = [
    Platform(),
    Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}}),
    Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}}),
]

_text = st.text(alphabet="abc-_.=/ 1", max_size=12)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-2, 9), _text)
_args = st.one_of(st.lists(_text, max_size=5), st.just(["--tensor-parallel-size", "2"]), _scalar)
_gpus = st.one_of(st.sampled_from(["1", "2", "8", "0", "x", 4]), st.none())
_command = st.sampled_from(
    [["python3", "-m", "dynamo.vllm"], ["python3", "-m", "dynamo.sglang"], ["python3", "-m", "dynamo.trtllm"],
     ["/bin/sh", "-c"], None, []]
)
_component_type = st.sampled_from(["worker", "prefill", "decode", "frontend", "planner"])
_multinode = st.one_of(st.none(), st.fixed_dictionaries({"nodeCount": st.integers(2, 3)}))
_backend = st.sampled_from([None, "vllm", "sglang", "trtllm"])


def _graph(command: Any, args: Any, gpus: Any, ctype: str, multinode: Any, backend: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    worker = doc["spec"]["components"][1]
    worker["type"] = ctype
    main = worker["podTemplate"]["spec"]["containers"][0]
    main.pop("command", None)
    main.pop("args", None)
    main["resources"] = {"limits": {"nvidia.com/gpu": gpus}} if gpus is not None else {}
    if command is not None:
        main["command"] = command
    if args is not None:
        main["args"] = args
    if multinode is not None:
        worker["multinode"] = multinode
    if backend is None:
        doc["spec"].pop("backendFramework", None)
    else:
        doc["spec"]["backendFramework"] = backend
    return doc


@settings(max_examples=120, deadline=None)
@given(command=_command, args=_args, gpus=_gpus, ctype=_component_type, multinode=_multinode, backend=_backend,
       platform=st.sampled_from(PLATFORMS))
def test_the_verdict_never_raises(
    command: Any, args: Any, gpus: Any, ctype: str, multinode: Any, backend: Any, platform: Platform
) -> None:
    document = _graph(command, args, gpus, ctype, multinode, backend)
    try:
        graph = load_graph(document)
    except DynamoPulumiError:
        return  # refused at its schema, with field errors
    verdict = judge(graph, platform)
    assert all(isinstance(e, FieldError) and e.path for e in verdict.errors)
    assert verdict.deployable == (verdict.rendered is not None)
