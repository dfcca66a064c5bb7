"""A malformed pod template is a user mistake: the rules report it or ignore it, never crash.

Whatever is reported must be a well-formed field error about this component: a :class:`FieldError`
of a known type, at a path under the component, whose kubectl-style line carries a message.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from validation_component_support import (
    DGD_PATH,
    dgd_comp,
    dgd_ctx,
    grove_ctx,
    worker,
)

from dynamo_pulumi.api.parse import UnknownFieldError
from dynamo_pulumi.api.pod_schema import component_errors
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.validation.component import validate_component, validate_component_update
from dynamo_pulumi.validation.context import ValidationContext

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6))
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
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


COMPONENT = str(DGD_PATH)


def _assert_well_formed(found: list[FieldError]) -> None:
    for error in found:
        assert isinstance(error, FieldError)
        assert isinstance(error.type, ErrorType)
        assert error.path == COMPONENT or error.path.startswith((f"{COMPONENT}.", f"{COMPONENT}[")), (
            error.path
        )
        line = str(error)
        if isinstance(error, UnknownFieldError):  # kubectl's strict-decoding form
            assert line.startswith(f'unknown field "{error.path}"'), line
            continue
        assert line.startswith(f"{error.path}: {error.type.value}"), line
        # Something after the "path: Type" prefix: a value, a detail or the supported values;
        # or nothing for a bare "Required value", the API server's word for a missing field of
        # the schema.
        if error.type is not ErrorType.REQUIRED:
            assert len(line) > len(f"{error.path}: {error.type.value}"), line


def _stateless(wire: dict[str, Any], ctx: ValidationContext) -> list[FieldError]:
    return validate_component(dgd_comp(wire), DGD_PATH, ctx).errors


@settings(max_examples=150, deadline=None)
@given(template=_template, component_type=st.sampled_from(["worker", "frontend", "epp", "planner"]))
def test_arbitrary_pod_templates_never_raise(template: dict[str, Any], component_type: str) -> None:
    wire = worker(
        type=component_type,
        podTemplate=template,
        frontendSidecar="main",
        experimental={"gpuMemoryService": {"extraClientContainers": ["x"]}, "failover": {"mode": "InterPod"}},
    )
    found = _stateless(wire, dgd_ctx(backend_framework="vllm"))
    # The failover/GMS combination configured above is always wrong (modes differ), so the rules
    # must say so whatever the template looks like.
    assert any(e.path == f"{COMPONENT}.experimental.failover.mode" for e in found), found
    _assert_well_formed(found)
    _assert_well_formed(_stateless(wire, grove_ctx()))
    # The schema stage (which runs before the webhook in admission) never raises either.
    _assert_well_formed(component_errors(dgd_comp(wire), COMPONENT))
    transition = validate_component_update(dgd_comp(worker()), dgd_comp(wire), DGD_PATH, dgd_ctx("update"))
    _assert_well_formed(transition.errors)


def test_non_list_command_or_args_do_not_crash_the_elastic_ep_rule() -> None:
    from dynamo_pulumi.validation.image import is_elastic_ep_ray_launch

    assert is_elastic_ep_ray_launch({"name": "main", "args": True, "command": 5}) is False
