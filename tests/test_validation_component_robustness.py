"""A malformed pod template is a user mistake: the rules report it or ignore it, never crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from validation_component_support import dgd_ctx, errors, grove_ctx, update_errors, worker

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6))
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=12,
)
_KEYS = ["name", "image", "command", "args", "resources", "livenessProbe", "restartPolicy", "env"]
_container = st.dictionaries(st.sampled_from(_KEYS), _json, max_size=5).map(lambda c: {"name": "main"} | c)
_pod_spec = st.fixed_dictionaries(
    {},
    optional={
        "containers": st.one_of(st.lists(_container, max_size=3), _json),
        "initContainers": st.one_of(st.lists(_container, max_size=2), _json),
        "affinity": _json,
    },
)
_template = st.fixed_dictionaries({"spec": _pod_spec}, optional={"metadata": _json})


@settings(max_examples=150, deadline=None)
@given(template=_template, component_type=st.sampled_from(["worker", "frontend", "epp", "planner"]))
def test_arbitrary_pod_templates_never_raise(template: dict[str, Any], component_type: str) -> None:
    wire = worker(
        type=component_type,
        podTemplate=template,
        frontendSidecar="main",
        experimental={"gpuMemoryService": {"extraClientContainers": ["x"]}, "failover": {"mode": "InterPod"}},
    )
    assert isinstance(errors(wire, dgd_ctx(backend_framework="vllm")), list)
    assert isinstance(errors(wire, grove_ctx()), list)
    assert isinstance(update_errors(worker(), wire), list)
