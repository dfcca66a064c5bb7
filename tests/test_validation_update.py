"""UPDATE admission: rules 14, 41-46 and the DGD-level immutable fields of section 5."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from validation_graph_support import IMAGE, component, graph

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation import check, graph_context, validate, validate_update
from dynamo_pulumi.validation.graph_update import workload_provider_update_errors

PROVIDER = "nvidia.com/workload-provider"
PROVIDER_PATH = f"metadata.annotations[{PROVIDER}]"
OPERATOR = "system:serviceaccount:dynamo-system:dynamo-operator"


def update(
    old: DynamoGraphDeployment, new: DynamoGraphDeployment, platform: Platform | None = None
) -> list[FieldError]:
    return validate_update(old, new, platform).errors


def test_unchanged_graph_is_a_valid_update() -> None:
    assert update(graph(), graph()) == []


def test_mutable_fields_may_change() -> None:
    new = graph(component(replicas=4, sharedMemorySize="1Gi"), priorityClassName="", labels={"a": "b"})
    assert update(graph(), new) == []


# --- rule 14 -------------------------------------------------------------------------------------


def test_operator_owned_annotations_are_carried_from_the_previous_apply() -> None:
    # The user never writes the provider; the stored object has it, the update keeps it.
    assert update(graph(), graph(annotations={"team": "a"})) == []


def test_workload_provider_cannot_change_once_set() -> None:
    old = graph(annotations={PROVIDER: "component"})
    assert update(old, graph(annotations={PROVIDER: "grove"})) == [
        FieldError(ErrorType.INVALID, PROVIDER_PATH, "field is immutable", "grove")
    ]


def test_workload_provider_cannot_be_removed_once_present() -> None:
    """Rule 14: once present the provider annotation cannot change or be removed. An old object that
    carries it is the stored object, so dropping it from new is a removal, not an omission."""
    stored = graph(annotations={PROVIDER: "grove"})
    expected = [FieldError(ErrorType.INVALID, PROVIDER_PATH, "field is immutable", None)]
    assert update(stored, graph()) == expected
    assert validate_update(stored, graph(), old_stored=True).errors == expected
    # The live object given as such: no create-time defaulting is carried either.
    assert validate_update(stored, graph(annotations={PROVIDER: "grove"}), old_stored=True).errors == []


def test_materializing_the_provider_is_reserved_for_the_operator() -> None:
    # A stored legacy object: stamped with an origin version by an older operator, no provider.
    legacy = graph(annotations={"nvidia.com/dynamo-operator-origin-version": "0.9.0"})
    platform = Platform.model_validate({"cluster": {"operatorPrincipals": [OPERATOR], "requester": "alice"}})
    errors = update(legacy, graph(annotations={PROVIDER: "component"}), platform)
    assert errors == [
        FieldError(ErrorType.FORBIDDEN, PROVIDER_PATH, "may only be materialized by the Dynamo operator")
    ]


def test_materializing_the_provider_by_the_operator_is_allowed() -> None:
    platform = Platform.model_validate({"cluster": {"operatorPrincipals": [OPERATOR], "requester": OPERATOR}})
    new = graph(annotations={PROVIDER: "component"})
    ctx = graph_context(new, platform, "update")
    assert workload_provider_update_errors(new, graph(), ctx) == []
    user = Platform.model_validate({"cluster": {"operatorPrincipals": [OPERATOR], "requester": "alice"}})
    assert workload_provider_update_errors(new, graph(), graph_context(new, user, "update")) == [
        FieldError(ErrorType.FORBIDDEN, PROVIDER_PATH, "may only be materialized by the Dynamo operator")
    ]
    # No configured principal: the check is skipped.
    assert workload_provider_update_errors(new, graph(), graph_context(new, Platform(), "update")) == []


# --- rule 41 -------------------------------------------------------------------------------------


def test_components_may_be_reordered() -> None:
    old = graph(component("a"), component("b"))
    assert update(old, graph(component("b"), component("a"))) == []


def test_adding_and_removing_components_is_forbidden() -> None:
    old = graph(component("a"), component("b"))
    new = graph(component("a"), component("d"), component("c"))
    assert update(old, new)[0] == FieldError(
        ErrorType.FORBIDDEN,
        "spec.components",
        "component topology is immutable and cannot be modified after creation: components added: [c d], "
        "components removed: [b]",
    )


def test_removing_only_reports_removed() -> None:
    [error] = update(graph(component("a"), component("b")), graph(component("a")))
    assert error.detail.endswith("cannot be modified after creation: components removed: [b]")


# --- rule 42 -------------------------------------------------------------------------------------


def test_backend_framework_is_immutable_with_a_warning() -> None:
    findings = validate_update(graph(), graph(backendFramework="sglang"))
    assert findings.errors == [
        FieldError(
            ErrorType.INVALID,
            "spec.backendFramework",
            "is immutable and cannot be changed after creation",
            "sglang",
        )
    ]
    assert findings.warnings == ["Changing spec.backendFramework may cause unexpected behavior"]


def test_dcd_backend_framework_is_immutable_too() -> None:
    def dcd(backend: str) -> DynamoComponentDeployment:
        spec = {"backendFramework": backend} | component()
        del spec["name"]
        return DynamoComponentDeployment.model_validate({"metadata": {"name": "w"}, "spec": spec})

    findings = validate_update(dcd("vllm"), dcd("trtllm"))
    assert (
        FieldError(
            ErrorType.INVALID,
            "spec.backendFramework",
            "is immutable and cannot be changed after creation",
            "trtllm",
        )
        in findings.errors
    )
    assert validate_update(dcd("vllm"), dcd("vllm")).errors == []


# --- rule 43 -------------------------------------------------------------------------------------


TOPO = {"clusterTopologyName": "t", "packDomain": "rack"}
TOPO_MSG = (
    "is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
    "DynamoGraphDeployment to change topology constraints"
)


def test_spec_topology_constraint_unchanged_is_valid() -> None:
    assert update(graph(topologyConstraint=TOPO), graph(topologyConstraint=TOPO)) == []


def test_spec_topology_constraint_cannot_be_added_changed_or_removed() -> None:
    changed = TOPO | {"packDomain": "host"}
    assert update(graph(), graph(topologyConstraint=TOPO)) == [
        FieldError(ErrorType.INVALID, "spec.topologyConstraint", TOPO_MSG, TOPO)
    ]
    assert update(graph(topologyConstraint=TOPO), graph(topologyConstraint=changed)) == [
        FieldError(ErrorType.INVALID, "spec.topologyConstraint", TOPO_MSG, changed)
    ]
    assert update(graph(topologyConstraint=TOPO), graph()) == [
        FieldError(ErrorType.INVALID, "spec.topologyConstraint", TOPO_MSG, None)
    ]


# --- rule 44 -------------------------------------------------------------------------------------


KVT_MSG = (
    "is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
    "DynamoGraphDeployment to change the KV transfer policy"
)


def kvt(**policy: Any) -> dict[str, Any]:
    return {"kvTransferPolicy": {"labelKey": "topology.kubernetes.io/zone", "domain": "zone"} | policy}


def test_kv_transfer_policy_with_defaulted_enforcement_is_unchanged() -> None:
    assert update(graph(experimental=kvt()), graph(experimental=kvt(enforcement="required"))) == []


def test_kv_transfer_policy_is_immutable() -> None:
    path = "spec.experimental.kvTransferPolicy"
    new_policy = kvt(domain="rack")["kvTransferPolicy"] | {"enforcement": "required"}
    assert update(graph(experimental=kvt()), graph(experimental=kvt(domain="rack"))) == [
        FieldError(ErrorType.INVALID, path, KVT_MSG, new_policy)
    ]
    assert update(graph(experimental=kvt()), graph()) == [FieldError(ErrorType.INVALID, path, KVT_MSG, None)]


# --- rule 45 -------------------------------------------------------------------------------------


def test_restart_id_is_frozen_during_a_rolling_update() -> None:
    old = graph(restart={"id": "r1"}, status={"rollingUpdate": {"phase": "InProgress"}})
    assert update(old, graph(restart={"id": "r2"})) == [
        FieldError(
            ErrorType.INVALID,
            "spec.restart.id",
            "cannot be changed while a rolling update is InProgress",
            "r2",
        )
    ]


def test_restart_id_may_change_after_the_rolling_update() -> None:
    old = graph(restart={"id": "r1"}, status={"rollingUpdate": {"phase": "Completed"}})
    assert update(old, graph(restart={"id": "r2"})) == []


# --- rule 46 -------------------------------------------------------------------------------------


def test_update_of_a_deleting_object_skips_validation() -> None:
    deleting = graph(component("other"), metadata={"deletionTimestamp": "2026-01-01T00:00:00Z"})
    assert update(graph(), deleting) == []


# --- CEL transition rules and shared component transitions ---------------------------------------


def test_component_type_change_is_rejected_by_cel_before_the_webhook() -> None:
    errors = update(graph(), graph(component(type="decode"), component("extra")))
    assert errors == [
        FieldError(ErrorType.INVALID, "spec.components[0]", "type is immutable after it is set", "object")
    ]


def test_scaling_adapter_owns_replicas() -> None:
    old = graph(component(scalingAdapter={}))
    errors = update(old, graph(component(scalingAdapter={}, replicas=3)))
    assert errors == [
        FieldError(
            ErrorType.FORBIDDEN,
            "spec.components[0].replicas",
            "cannot be modified directly when scaling adapter is enabled; scale or update the related "
            "DynamoGraphDeploymentScalingAdapter instead",
        )
    ]
    planner = Platform.model_validate(
        {"cluster": {"requester": "system:serviceaccount:ns:planner-serviceaccount"}}
    )
    assert update(old, graph(component(scalingAdapter={}, replicas=3)), planner) == []


def test_stateless_errors_stop_a_dgd_update_before_transition_rules() -> None:
    bad = component(
        podTemplate={"spec": {"containers": [{"name": "main", "image": IMAGE}]}}, sharedMemorySize="-1"
    )
    errors = update(graph(), graph(bad, backendFramework="sglang"))
    assert errors and all(e.path != "spec.backendFramework" for e in errors)


def test_check_raises_with_every_error_and_kubectl_text() -> None:
    old = graph(component("a"), component("b"))
    try:
        check(graph(component("a"), backendFramework="sglang"), old=old)
    except GraphValidationError as exc:
        assert len(exc.errors) == 2
        assert str(exc).startswith('The DynamoGraphDeployment "g" is invalid: \n* spec.components: Forbidden')
        assert exc.warnings == ["Changing spec.backendFramework may cause unexpected behavior"]
    else:
        raise AssertionError("check() admitted an invalid update")


def test_check_returns_warnings_of_a_valid_object() -> None:
    assert check(graph()) == []


GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
MIN_IMMUTABLE = (
    "effective minAvailable is immutable after creation, including when migrating to the native "
    "providerOverride form"
)


def test_effective_min_available_is_immutable_on_update() -> None:
    """Seed: the effective minimum (legacy field, else native override value, else 1) is immutable.

    A new Grove DGD gets no stamped minAvailable, so adding a different legacy value later is
    caught by the webhook's effective comparison (CEL only compares two set legacy values)."""
    assert update(graph(), graph(component(replicas=2)), GROVE) == []
    assert update(graph(), graph(component(replicas=2, minAvailable=1)), GROVE) == []
    assert update(graph(), graph(component(replicas=2, minAvailable=2)), GROVE) == [
        FieldError(ErrorType.INVALID, "spec.components[0].minAvailable", f"{MIN_IMMUTABLE} (was 1)", 2)
    ]


def _native(minimum: int) -> dict[str, Any]:
    return {
        "apiVersion": "grove.io/v1alpha1",
        "target": "PodCliqueTemplateSpec",
        "value": {"spec": {"minAvailable": minimum}},
    }


def test_min_available_may_migrate_to_the_native_form_with_the_same_value() -> None:
    stored = graph(component(replicas=3, minAvailable=2), annotations={PROVIDER: "grove"})
    same = graph(component(replicas=3, providerOverride=_native(2)), annotations={PROVIDER: "grove"})
    assert update(stored, same, GROVE) == []
    other = graph(component(replicas=3, providerOverride=_native(3)), annotations={PROVIDER: "grove"})
    assert update(stored, other, GROVE) == [
        FieldError(
            ErrorType.INVALID,
            "spec.components[0].providerOverride.value.spec.minAvailable",
            f"{MIN_IMMUTABLE} (was 2)",
            3,
        )
    ]


def test_dropping_a_legacy_minimum_without_migrating_it_is_rejected() -> None:
    stored = graph(component(replicas=3, minAvailable=2), annotations={PROVIDER: "grove"})
    dropped = graph(component(replicas=3), annotations={PROVIDER: "grove"})
    assert update(stored, dropped, GROVE) == [
        FieldError(ErrorType.INVALID, "spec.components[0].minAvailable", f"{MIN_IMMUTABLE} (was 2)", 1)
    ]


def test_dcd_update_keeps_the_defaulted_name() -> None:
    spec = component()
    del spec["name"]
    dcd = DynamoComponentDeployment.model_validate({"metadata": {"name": "w"}, "spec": spec})
    assert validate_update(dcd, dcd).errors == []


# --- request context of a standalone DCD ---------------------------------------------------------


def _dcd_with_checkpoint_ref(owner: dict[str, Any] | None) -> DynamoComponentDeployment:
    spec = component(experimental={"checkpoint": {"enabled": True, "checkpointRef": "snap"}})
    del spec["name"]
    meta: dict[str, Any] = {"name": "w"}
    if owner is not None:
        meta["ownerReferences"] = [owner]
    return DynamoComponentDeployment.model_validate({"metadata": meta, "spec": spec})


def test_dcd_controlled_by_a_dgd_may_restore_a_checkpoint_ref() -> None:
    checkpoint_on = Platform.model_validate({"checkpoint": {"enabled": True}})
    ref_error = FieldError(
        ErrorType.FORBIDDEN,
        "spec.experimental.checkpoint.checkpointRef",
        "worker-class checkpointRef is supported only on DynamoGraphDeployment-managed components",
    )
    owner = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "name": "g",
        "uid": "u",
        "controller": True,
    }
    assert (
        ref_error
        in validate_update(
            _dcd_with_checkpoint_ref(None), _dcd_with_checkpoint_ref(None), checkpoint_on
        ).errors
    )
    assert (
        ref_error
        not in validate_update(
            _dcd_with_checkpoint_ref(owner), _dcd_with_checkpoint_ref(owner), checkpoint_on
        ).errors
    )
    not_controller = owner | {"controller": False}
    assert (
        ref_error
        in validate_update(
            _dcd_with_checkpoint_ref(not_controller), _dcd_with_checkpoint_ref(not_controller), checkpoint_on
        ).errors
    )


def test_live_legacy_object_without_annotations_cannot_be_given_a_provider_by_a_user() -> None:
    platform = Platform.model_validate({"cluster": {"operatorPrincipals": [OPERATOR], "requester": "alice"}})
    new = graph(annotations={PROVIDER: "component"})
    assert validate_update(graph(), new, platform, old_stored=True).errors == [
        FieldError(ErrorType.FORBIDDEN, PROVIDER_PATH, "may only be materialized by the Dynamo operator")
    ]
    operator = Platform.model_validate({"cluster": {"operatorPrincipals": [OPERATOR], "requester": OPERATOR}})
    assert validate_update(graph(), new, operator, old_stored=True).errors == []


# --- property: re-applying an admitted graph is an admitted update -------------------------------

_TOPOLOGIES = {"topo": ["zone", "rack", "host"]}
_PLATFORMS = [
    Platform.model_validate(
        {"orchestrators": {"grove": {"enabled": on}}, "cluster": {"clusterTopologies": _TOPOLOGIES}}
    )
    for on in (True, False)
]


@st.composite
def _components(draw: st.DrawFn, name: str) -> dict[str, Any]:
    image = draw(st.sampled_from([IMAGE, IMAGE, "img:latest", "img:1.5.0"]))
    comp = component(
        name, type=draw(st.sampled_from(["worker", "prefill", "decode", "frontend", "planner", "epp"]))
    )
    comp["podTemplate"] = {"spec": {"containers": [{"name": "main", "image": image}]}}
    optional: dict[str, Any] = {
        "replicas": draw(st.integers(0, 4)),
        "minAvailable": draw(st.integers(1, 3)),
        "multinode": {"nodeCount": draw(st.integers(2, 3))},
        "roles": [{"name": "leader"}, {"name": "worker"}],
        "experimental": {"gpuMemoryService": {"mode": draw(st.sampled_from(["IntraPod", "InterPod"]))}},
        "providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {}}},
        "scalingAdapter": {},
        "topologyConstraint": {"packDomain": "host"},
        "eppConfig": {"config": {}},
    }
    for key, value in optional.items():
        if draw(st.integers(0, 4)) == 0:  # each optional field in about one graph of five
            comp[key] = value
    return comp


@st.composite
def _graphs(draw: st.DrawFn) -> DynamoGraphDeployment:
    comps = [draw(_components(f"c{i}")) for i in range(draw(st.integers(1, 3)))]
    spec: dict[str, Any] = {"backendFramework": draw(st.sampled_from(["vllm", "sglang"]))}
    if draw(st.booleans()):
        spec["topologyConstraint"] = {"clusterTopologyName": "topo", "packDomain": "rack"}
    if draw(st.booleans()):
        spec["priorityClassName"] = "p"
    annotations = {"nvidia.com/enable-grove": "false"} if draw(st.booleans()) else {}
    return graph(*comps, annotations=annotations, **spec)


@settings(max_examples=150, deadline=None)
@given(dgd=_graphs(), platform=st.sampled_from(_PLATFORMS))
def test_reapplying_an_admitted_graph_is_an_admitted_update(
    dgd: DynamoGraphDeployment, platform: Platform
) -> None:
    created = validate(dgd, platform)
    updated = validate_update(dgd, dgd, platform)
    if not created.errors:
        assert updated.errors == []


def _alpha_converted(services: dict[str, Any]) -> DynamoGraphDeployment:
    """The stored (v1beta1) form of an alpha graph: alpha-only data in ``nvidia.com/dgd-spec``."""
    from dynamo_pulumi.loading.documents import load_graph_entry

    obj = load_graph_entry(
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": "g"},
            "spec": {"backendFramework": "vllm", "services": services},
        }
    ).object
    return DynamoGraphDeployment.model_validate(obj.to_wire())


def _alpha_frontend(**extra: Any) -> dict[str, Any]:
    return {"componentType": "frontend", "extraPodSpec": {"mainContainer": {"image": IMAGE}}, **extra}


def test_compat_pass_on_preserved_alpha_data_fails_the_stateless_pass_of_an_update() -> None:
    # The webhook's Validate(new) includes the v1alpha1 compatibility pass; when it fails, the
    # transition rules (here: a component added) are never reached.
    old = _alpha_converted({"F": _alpha_frontend()})
    new = _alpha_converted({"F": _alpha_frontend(ingress={"enabled": True}), "W": _alpha_frontend()})
    assert [e.path for e in validate_update(old, new).errors] == ["spec.services[F].ingress.host"]
    fixed = _alpha_converted({"F": _alpha_frontend(ingress={"enabled": True, "host": "h"}), "W": _alpha_frontend()})
    assert [e.path for e in validate_update(old, fixed).errors] == ["spec.components"]
