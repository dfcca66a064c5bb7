"""The core/v1 types the CRDs embed (pod templates, env entries, alpha extraPodSpec), checked by
:mod:`dynamo_pulumi.api.pod_schema` as the API server's schema stage checks them.

Valid templates (every golden input, every v1beta1 corpus graph) pass; type errors, missing
required fields, bad quantities and out-of-range integers are reported at their wire paths with
the API server's wording; unknown fields, nulls, ``pulumi.Output`` leaves, parked Output tokens
and other non-JSON leaves are never errors. The check runs at load (with the models' own
schema errors; alpha objects at alpha paths) and in admission's schema stage for objects built
in Python, before CEL and the webhook, which do not run when it fails.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path as FsPath
from typing import Any

import pulumi
import pytest
import yaml
from validation_component_support import (
    DGD_PATH,
    IMAGE,
    dcd_spec,
    dgd_comp,
    dgd_ctx,
    errors,
    main,
    template,
    worker,
)

from dynamo_pulumi.api.parse import parse_object
from dynamo_pulumi.api.pod_schema import (
    QUANTITY_PATTERN,
    alpha_object_errors,
    component_errors,
    decoded_template_errors,
    object_errors,
    pod_template_errors,
)
from dynamo_pulumi.api.v1beta1 import (
    DynamoComponentDeployment,
    DynamoComponentDeploymentSharedSpec,
    DynamoGraphDeployment,
)
from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError, Path
from dynamo_pulumi.floor.placeholders import OUTPUT_TOKEN_RE
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.planning import unknowns
from dynamo_pulumi.validation import validate
from dynamo_pulumi.validation.component import validate_component

SHARED = FsPath(__file__).resolve().parent.parent.parent / "shared"
GOLDEN_INPUTS = sorted(SHARED.glob("conformance/golden/*/*/input.yaml"))
CORPUS = sorted((SHARED / "conformance" / "corpus").glob("*.yaml"))
TPL = "spec.components[0].podTemplate"
SPEC = f"{TPL}.spec"
C0 = f"{SPEC}.containers[0]"


def check(tpl: Any, path: str = TPL) -> list[str]:
    return [e.message for e in pod_template_errors(tpl, path)]


def type_error(path: str, got: str, expected: str) -> str:
    return f'{path}: Invalid value: "{got}": {path} in body must be of type {expected}: "{got}"'


def pod(**spec: Any) -> dict[str, Any]:
    """A valid template with one main container; keyword arguments are PodSpec fields."""
    return template(main(), **spec)


def make_output(value: Any) -> pulumi.Output[Any]:
    """A ``pulumi.Output`` made inside a private event loop (no global loop is set or closed)."""
    loop = asyncio.new_event_loop()

    async def make() -> pulumi.Output[Any]:
        out = pulumi.Output.from_input(value)
        await asyncio.sleep(0)
        return out

    try:
        return loop.run_until_complete(make())
    finally:
        loop.close()


# --- real templates pass ----------------------------------------------------------------------


def _templates(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    spec = doc.get("spec") or {}
    if doc.get("kind") == "DynamoComponentDeployment":
        comps = [("spec", spec)]
    else:
        comps = [(f"spec.components[{i}]", c) for i, c in enumerate(spec.get("components") or [])]
    found = []
    for path, comp in comps:
        if comp.get("podTemplate") is not None:
            found.append((f"{path}.podTemplate", comp["podTemplate"]))
        for j, role in enumerate(comp.get("roles") or []):
            if role.get("podTemplate") is not None:
                found.append((f"{path}.roles[{j}].podTemplate", role["podTemplate"]))
    return found


def _beta_documents(path: FsPath) -> list[dict[str, Any]]:
    docs = yaml.safe_load_all(path.read_text())
    return [d for d in docs if isinstance(d, dict) and d.get("apiVersion") == "nvidia.com/v1beta1"]


@pytest.mark.skipif(not GOLDEN_INPUTS, reason="conformance golden inputs not present")
@pytest.mark.parametrize("path", GOLDEN_INPUTS, ids=lambda p: "/".join(p.parts[-3:-1]))
def test_golden_input_templates_pass(path: FsPath) -> None:
    found = [t for doc in _beta_documents(path) for t in _templates(doc)]
    assert found
    for where, tpl in found:
        assert check(tpl, where) == []


BETA_CORPUS = [p for p in CORPUS if _beta_documents(p)]


@pytest.mark.skipif(not BETA_CORPUS, reason="conformance corpus not present")
@pytest.mark.parametrize("path", BETA_CORPUS, ids=lambda p: p.name)
def test_v1beta1_corpus_templates_pass(path: FsPath) -> None:
    for doc in _beta_documents(path):
        for where, tpl in _templates(doc):
            assert check(tpl, where) == [], where


def test_a_full_template_passes() -> None:
    tpl = {
        "metadata": {"labels": {"app": "x"}, "annotations": {"a": "b"}},
        "spec": {
            "containers": [
                main(
                    command=["python3"],
                    args=["-m", "dynamo"],
                    env=[
                        {"name": "A", "value": "1"},
                        {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}},
                    ],
                    ports=[{"containerPort": 8000, "name": "http", "protocol": "TCP"}],
                    resources={"limits": {"nvidia.com/gpu": 1, "memory": "8Gi"}, "requests": {"cpu": "500m"}},
                    livenessProbe={"httpGet": {"path": "/live", "port": "http"}, "periodSeconds": 5},
                    readinessProbe={"tcpSocket": {"port": 8000}},
                    volumeMounts=[{"name": "shm", "mountPath": "/dev/shm"}],
                )
            ],
            "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
            "nodeSelector": {"nvidia.com/gpu.product": "H100"},
            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "terminationGracePeriodSeconds": 60,
            "restartPolicy": "Always",
        },
    }
    assert check(tpl) == []


# --- type errors --------------------------------------------------------------------------------


def test_string_node_selector_is_rejected() -> None:
    assert check(pod(nodeSelector="${HW_NODE_SELECTOR}")) == [
        type_error(f"{SPEC}.nodeSelector", "string", "object")
    ]


def test_string_containers_list_is_rejected() -> None:
    assert check({"spec": {"containers": "main"}}) == [type_error(f"{SPEC}.containers", "string", "array")]


def test_integer_image_is_rejected() -> None:
    assert check(template(main(image=5))) == [type_error(f"{C0}.image", "integer", "string")]


def test_string_probe_period_is_rejected() -> None:
    probe = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": "10"}
    assert check(template(main(livenessProbe=probe))) == [
        type_error(f"{C0}.livenessProbe.periodSeconds", "string", "integer")
    ]


def test_errors_are_field_errors_with_the_type_name_as_value() -> None:
    [error] = pod_template_errors(pod(tolerations="${HW_TOLERATIONS}"), TPL)
    assert isinstance(error, FieldError)
    assert error.type is ErrorType.INVALID
    assert error.path == f"{SPEC}.tolerations"
    assert error.value == "string"  # kube-openapi prints the JSON type, not the value


def test_every_error_is_reported_in_path_order() -> None:
    tpl = {
        "metadata": {"labels": {"tier": 1}},
        "spec": {
            "containers": [main(image=5), {"image": "x:1", "ports": [{"containerPort": "80"}]}],
            "hostNetwork": "yes",
        },
    }
    assert check(tpl) == [
        type_error(f"{TPL}.metadata.labels.tier", "integer", "string"),
        type_error(f"{C0}.image", "integer", "string"),
        f"{SPEC}.containers[1].name: Required value",
        type_error(f"{SPEC}.containers[1].ports[0].containerPort", "string", "integer"),
        type_error(f"{SPEC}.hostNetwork", "string", "boolean"),
    ]


def test_a_template_that_is_not_an_object_is_rejected() -> None:
    assert check("podTemplate") == [type_error(TPL, "string", "object")]


# --- required fields ----------------------------------------------------------------------------


def test_required_fields_are_reported() -> None:
    tpl = {"spec": {"containers": [{"image": IMAGE, "env": [{"value": "x"}], "ports": [{"name": "http"}]}]}}
    assert check(tpl) == [
        f"{C0}.env[0].name: Required value",
        f"{C0}.name: Required value",
        f"{C0}.ports[0].containerPort: Required value",
    ]


def test_a_pod_spec_without_containers_is_rejected() -> None:
    assert check({"spec": {"nodeName": "n1"}}) == [f"{SPEC}.containers: Required value"]


def test_null_is_pruned_so_a_required_null_is_missing() -> None:
    assert check(pod(nodeSelector=None, tolerations=None)) == []
    assert check({"spec": {"containers": None}}) == [f"{SPEC}.containers: Required value"]


# --- what the embedded schema does not state -------------------------------------------------------


def test_enum_like_fields_are_not_enums_in_the_embedded_schema() -> None:
    # The CRD's copy of PodSpec (and kubernetes-validate's 1.34 schema) lists no enum values: the
    # API server admits these; only the Pod's own validation, later, refuses them.
    tpl = pod(restartPolicy="Sometimes", dnsPolicy="Whatever")
    tpl["spec"]["containers"][0]["imagePullPolicy"] = "Sometimes"
    assert check(tpl) == []


def test_unknown_fields_anywhere_are_errors_at_their_full_paths() -> None:
    # As kubectl apply's strict field validation reports them (issue 10; they used to be kept).
    tpl = pod(nodeSelecter={"a": "b"}, madeUpField=1)
    tpl["spec"]["containers"][0]["imagePullPolcy"] = "Always"
    tpl["madeUp"] = True
    assert check(tpl) == [
        f'unknown field "{TPL}.madeUp"',
        f'unknown field "{C0}.imagePullPolcy" (did you mean "imagePullPolicy"?)',
        f'unknown field "{SPEC}.madeUpField"',
        f'unknown field "{SPEC}.nodeSelecter" (did you mean "nodeSelector"?)',
    ]


def test_a_field_of_a_newer_kubernetes_is_known() -> None:
    assert check(pod(schedulingGroup={"podGroupName": "g"})) == []


def test_a_different_case_suggests_the_declared_spelling() -> None:
    assert check(pod(NodeSelector={"a": "b"})) == [f'unknown field "{SPEC}.NodeSelector" (did you mean "nodeSelector"?)']


def test_metadata_fields_the_crd_does_not_declare_are_unknown() -> None:
    tpl = pod()
    tpl["metadata"] = {"creationTimestamp": 5, "ownerReferences": "x", "labels": {"a": "b"}}
    assert check(tpl) == [
        f'unknown field "{TPL}.metadata.creationTimestamp"',
        f'unknown field "{TPL}.metadata.ownerReferences"',
    ]


def test_unknown_fields_in_schemaless_positions_are_dropped_by_decoding_not_reported() -> None:
    tpl = pod(madeUpField=1)
    assert [str(e) for e in pod_template_errors(tpl, TPL, embedded=False)] == []


# --- int-or-string, quantities, integer formats --------------------------------------------------


def test_int_or_string_fields_accept_both_forms() -> None:
    probes = {
        "livenessProbe": {"httpGet": {"port": "http"}},
        "readinessProbe": {"httpGet": {"port": 8000}},
        "startupProbe": {"tcpSocket": {"port": "8000"}},
    }
    assert check(template(main(**probes))) == []


def test_int_or_string_rejects_other_types() -> None:
    where = f"{C0}.livenessProbe.httpGet.port"
    assert check(template(main(livenessProbe={"httpGet": {"port": True}}))) == [
        f'{where}: Invalid value: "": "{where}" must validate at least one schema (anyOf)',
        type_error(where, "boolean", "integer"),
    ]


def test_quantities_accept_integers_and_quantity_strings() -> None:
    resources = {"limits": {"nvidia.com/gpu": 8, "memory": "80Gi", "cpu": "16"}, "requests": {"cpu": "500m"}}
    assert check(template(main(resources=resources), overhead={"cpu": "1"})) == []


def test_bad_quantity_string_is_rejected_with_the_crd_pattern() -> None:
    """kube-openapi's words (the JSON message) keep the pattern; the error sits at the resource's
    key, ``limits[memory]`` as every other resource error names it, and the text says what a
    quantity is instead of printing the pattern (issue 23, item 6)."""
    where, keyed = f"{C0}.resources.limits.memory", f"{C0}.resources.limits[memory]"
    [error] = pod_template_errors(template(main(resources={"limits": {"memory": "8GB"}})), TPL)
    assert str(error) == f"{keyed}: Invalid value: \"8GB\": {where} in body should match '{QUANTITY_PATTERN}'"
    assert error.message == (f'{keyed}: Invalid value: "8GB": is not a quantity; write a number with an optional '
                             'suffix, such as "2", "500m" or "8Gi" (GPUs: a whole number)')


def test_fractional_number_quantity_is_rejected_as_the_crd_does() -> None:
    # The CRD's quantity schema is anyOf [integer, string]: 0.5 is neither (write "500m").
    where = f"{C0}.resources.requests.cpu"
    assert check(template(main(resources={"requests": {"cpu": 0.5}}))) == [
        f'{where}: Invalid value: "": "{where}" must validate at least one schema (anyOf)',
        type_error(where, "number", "integer"),
    ]


def test_int32_range_is_checked() -> None:
    where = f"{C0}.livenessProbe.timeoutSeconds"
    probe = {"exec": {"command": ["true"]}, "timeoutSeconds": 2**31}
    assert check(template(main(livenessProbe=probe))) == [
        f'{where}: Invalid value: "": Checked value must be of type integer with format int32 in {where}'
    ]
    probe["timeoutSeconds"] = 2**31 - 1
    assert check(template(main(livenessProbe=probe))) == []


# --- values known only at deploy time -----------------------------------------------------------


def test_pulumi_output_leaves_are_unknown_not_errors() -> None:
    out = make_output("x")
    tpl = {
        "metadata": {"labels": out},
        "spec": {
            "nodeSelector": out,
            "containers": [{"name": out, "image": out, "ports": [{"containerPort": out}], "resources": out}],
            "tolerations": [out],
        },
    }
    assert check(tpl) == []
    assert check(make_output({"spec": {}})) == []
    assert check({"spec": {"containers": make_output([])}}) == []


def test_errors_beside_an_output_are_still_reported() -> None:
    out = make_output("img:1")
    tpl = {"spec": {"containers": [{"name": "main", "image": out}], "nodeSelector": "x"}}
    assert check(tpl) == [type_error(f"{SPEC}.nodeSelector", "string", "object")]


def test_parked_output_tokens_and_other_non_json_leaves_are_unknown() -> None:
    token = "__dynamo_pulumi_output_0123456789ab__"
    other = "__dynamo_pulumi_output_ba9876543210__"
    assert check(pod(nodeSelector=token, terminationGracePeriodSeconds=other)) == []
    assert check(pod(nodeSelector=object(), tolerations=(t for t in []))) == []
    # A string that merely contains a token is still a string.
    assert check(pod(nodeSelector=f"--x={token}")) == [type_error(f"{SPEC}.nodeSelector", "string", "object")]


def test_none_template_is_not_checked() -> None:
    assert check(None) == []


# --- every template position of a component ------------------------------------------------------


def test_role_templates_are_checked_at_their_paths() -> None:
    comp = dgd_comp(
        worker(
            podTemplate=None,
            multinode={"nodeCount": 2},
            roles=[
                {"name": "leader", "podTemplate": template(main(), nodeSelector="a")},
                {"name": "worker", "podTemplate": template(main(image=7))},
            ],
        )
    )
    base = "spec.components[0].roles"
    assert [str(e) for e in component_errors(comp, "spec.components[0]")] == [
        type_error(f"{base}[0].podTemplate.spec.nodeSelector", "string", "object"),
        type_error(f"{base}[1].podTemplate.spec.containers[0].image", "integer", "string"),
    ]


def test_dcd_template_is_checked_at_spec_pod_template() -> None:
    spec = dcd_spec(worker(podTemplate=template(main(), nodeSelector="a")) | {"backendFramework": "vllm"})
    assert [str(e) for e in component_errors(spec, "spec")] == [
        type_error("spec.podTemplate.spec.nodeSelector", "string", "object")
    ]


def test_schemaless_positions_are_type_checked_without_required_fields() -> None:
    # The CRD keeps checkpoint.job.podTemplate and extraClientPods[k].podTemplate schemaless;
    # only the webhook's decoding into corev1.PodTemplateSpec can fail there.
    job = {"podTemplate": {"spec": {"nodeName": "n1", "nodeSelector": "a", "containers": [{"image": 3}]}}}
    gms = {
        "mode": "InterPod",
        "extraClientPods": [{"name": "c", "podTemplate": {"spec": {"hostIPC": "yes"}}}],
    }
    experimental = {"checkpoint": {"enabled": True, "job": job}, "gpuMemoryService": gms}
    comp = dgd_comp(worker(experimental=experimental))
    exp = "spec.components[0].experimental"
    job_spec = f"{exp}.checkpoint.job.podTemplate.spec"
    assert [str(e) for e in decoded_template_errors(comp, Path("spec", "components").index(0))] == [
        type_error(f"{job_spec}.containers[0].image", "integer", "string"),
        type_error(f"{job_spec}.nodeSelector", "string", "object"),
        type_error(
            f"{exp}.gpuMemoryService.extraClientPods[0].podTemplate.spec.hostIPC", "string", "boolean"
        ),
    ]


def test_schemaless_positions_accept_fractional_quantities() -> None:
    # Go's Quantity decodes a JSON number such as 0.5; the CRD schema never sees these positions.
    job = {"podTemplate": {"spec": {"containers": [{"name": "h", "resources": {"requests": {"cpu": 0.5}}}]}}}
    comp = dgd_comp(worker(experimental={"checkpoint": {"enabled": True, "job": job}}))
    assert decoded_template_errors(comp, Path("spec", "components").index(0)) == []


def test_schemaless_positions_are_checked_by_the_webhook_stage() -> None:
    job = {"podTemplate": {"spec": {"nodeSelector": "a"}}}
    found = errors(worker(experimental={"checkpoint": {"enabled": True, "job": job}}))
    where = "spec.components[0].experimental.checkpoint.job.podTemplate.spec.nodeSelector"
    assert found[0] == type_error(where, "string", "object")


def test_embedded_templates_are_not_the_webhooks_business() -> None:
    # The webhook stage never sees a template that fails the CRD schema; it does not re-check it.
    found = errors(worker(podTemplate=template(main(), nodeSelector="${HW_NODE_SELECTOR}")))
    assert not any(".podTemplate.spec.nodeSelector" in e for e in found)


def test_validate_component_accepts_an_output_in_the_template() -> None:
    out = make_output("gpu-node")
    wire = worker(podTemplate=template(main(), nodeSelector={"kubernetes.io/hostname": out}, hostIPC=out))
    comp = DynamoComponentDeploymentSharedSpec.model_validate(wire)
    assert validate_component(comp, DGD_PATH, dgd_ctx()).errors == []


# --- admission: the schema stage, for objects built in Python ----------------------------------


def _dgd(components: list[dict[str, Any]], **spec: Any) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"backendFramework": "vllm", "components": components, **spec}}
    )


def test_admission_stops_at_the_schema_stage() -> None:
    # The template fails the CRD schema, and the graph also breaks a webhook rule (a frontend
    # sidecar naming no container): the webhook never runs, so only the schema error is reported.
    wire = worker(podTemplate=template(main(), nodeSelector="${HW_NODE_SELECTOR}"), frontendSidecar="nope")
    findings = validate(_dgd([wire]))
    assert [str(e) for e in findings.errors] == [type_error(f"{SPEC}.nodeSelector", "string", "object")]
    fixed = worker(podTemplate=template(main()), frontendSidecar="nope")
    assert validate(_dgd([fixed])).errors  # the webhook rule, once the schema passes


def test_admission_checks_roles_env_and_dcd_templates() -> None:
    comp = worker(
        podTemplate=None,
        multinode={"nodeCount": 2},
        roles=[{"name": "leader", "podTemplate": template(main(image=7))}],
    )
    found = [str(e) for e in validate(_dgd([comp], env=[{"value": "x"}])).errors]
    assert found == [
        "spec.env[0].name: Required value",
        type_error("spec.components[0].roles[0].podTemplate.spec.containers[0].image", "integer", "string"),
    ]
    dcd = DynamoComponentDeployment.model_validate(
        {
            "metadata": {"name": "d"},
            "spec": worker(podTemplate=template(main(), hostIPC="yes")) | {"backendFramework": "vllm"},
        }
    )
    assert [str(e) for e in validate(dcd).errors] == [
        type_error("spec.podTemplate.spec.hostIPC", "string", "boolean")
    ]


def test_admission_accepts_outputs_in_a_python_built_template() -> None:
    out = make_output("gpu-node")
    wire = worker(podTemplate=template(main(), nodeSelector=out, tolerations=[out]))
    assert object_errors(_dgd([wire])) == []


def test_loading_and_admission_report_the_same_error() -> None:
    wire = worker(podTemplate=template(main(), nodeSelector="a"))
    data = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"}}
    data["spec"] = {"backendFramework": "vllm", "components": [wire]}
    with pytest.raises(GraphValidationError) as info:
        parse_object(data)
    assert [str(e) for e in info.value.errors] == [str(e) for e in validate(_dgd([wire])).errors]


def test_admission_skips_the_beta_schema_for_an_alpha_request() -> None:
    # An alpha request meets the alpha CRD's schema at load (at alpha paths), not the beta one.
    wire = worker(podTemplate=template(main(), nodeSelector="a"))
    findings = validate(_dgd([wire]), source_api_version="nvidia.com/v1alpha1")
    assert type_error(f"{SPEC}.nodeSelector", "string", "object") not in [str(e) for e in findings.errors]


# --- v1alpha1 positions, at alpha paths ---------------------------------------------------------


def _alpha(service: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "a"},
        "spec": {"services": {"Worker": {"componentType": "worker", **service}}, **spec},
    }


def test_alpha_extra_pod_spec_needs_no_containers_and_main_container_no_name() -> None:
    extra = {"nodeName": "n1", "mainContainer": {"image": IMAGE}}
    assert alpha_object_errors(_alpha({"extraPodSpec": extra})) == []


def test_alpha_extra_pod_spec_unknown_fields_are_errors_at_alpha_paths() -> None:
    extra = {"mainContainer": {"image": IMAGE, "notAField": 1}, "madeUp": True}
    assert [str(e) for e in alpha_object_errors(_alpha({"extraPodSpec": extra}))] == [
        'unknown field "spec.services.Worker.extraPodSpec.madeUp"',
        'unknown field "spec.services.Worker.extraPodSpec.mainContainer.notAField"',
    ]


def test_alpha_positions_report_alpha_paths() -> None:
    svc = "spec.services.Worker"
    service = {
        "extraPodSpec": {
            "nodeSelector": "gpu",
            "containers": [{"image": IMAGE}],
            "mainContainer": {"resources": {"limits": {"memory": "8GB"}}},
        },
        "livenessProbe": {"periodSeconds": "10"},
        "envs": [{"value": "x"}],
        "frontendSidecar": {"envs": [{"name": 1}]},
        "resources": {"claims": [{}]},
    }
    mem = f"{svc}.extraPodSpec.mainContainer.resources.limits.memory"
    assert [str(e) for e in alpha_object_errors(_alpha(service, envs=[{"name": "A", "value": 2}]))] == [
        type_error("spec.envs[0].value", "integer", "string"),
        f"{svc}.extraPodSpec.containers[0].name: Required value",
        type_error(f"{svc}.extraPodSpec.nodeSelector", "string", "object"),
        f"{mem.replace('limits.memory', 'limits[memory]')}: Invalid value: \"8GB\": {mem} in body should match "
        f"'{QUANTITY_PATTERN}'",
        type_error(f"{svc}.livenessProbe.periodSeconds", "string", "integer"),
        f"{svc}.envs[0].name: Required value",
        type_error(f"{svc}.frontendSidecar.envs[0].name", "integer", "string"),
        f"{svc}.resources.claims[0].name: Required value",
    ]


def test_alpha_dcd_positions_are_under_spec() -> None:
    dcd = {"kind": "DynamoComponentDeployment", "spec": {"extraPodSpec": {"hostIPC": "yes"}}}
    assert [str(e) for e in alpha_object_errors(dcd)] == [
        type_error("spec.extraPodSpec.hostIPC", "string", "boolean")
    ]


def test_alpha_load_reports_alpha_paths_and_accepts_parked_outputs() -> None:
    token = unknowns.token("0123456789ab")
    doc = _alpha({"subComponentType": "decode", "extraPodSpec": {"mainContainer": {"image": IMAGE}}})
    doc["spec"]["services"]["Worker"]["extraPodSpec"]["nodeSelector"] = token
    load_graph(doc)
    doc["spec"]["services"]["Worker"]["extraPodSpec"]["nodeSelector"] = "gpu"
    with pytest.raises(GraphValidationError) as info:
        load_graph(doc)
    where = "spec.services.Worker.extraPodSpec.nodeSelector"
    assert [str(e) for e in info.value.errors] == [type_error(where, "string", "object")]


# --- one placeholder pattern ------------------------------------------------------------------


def test_the_placeholder_pattern_is_the_one_the_pulumi_layer_parks() -> None:
    assert unknowns._TOKEN_RE is OUTPUT_TOKEN_RE
    table = unknowns.OutputTable()
    parked = unknowns.park({"nodeSelector": make_output({"a": "b"})}, table, "podTemplate.spec")
    assert check(pod(**parked)) == []
    assert check(pod(nodeSelector="__dynamo_pulumi_output_3__")) == [  # not a token the layer writes
        type_error(f"{SPEC}.nodeSelector", "string", "object")
    ]


def test_a_string_with_a_token_inside_never_fails_a_pattern() -> None:
    token = unknowns.token("0123456789ab")
    assert check(template(main(resources={"limits": {"memory": f"{token}Gi"}}))) == []


# --- cost ---------------------------------------------------------------------------------------


def test_checking_25_realistic_templates_is_fast() -> None:
    tpl = {
        "metadata": {"labels": {"app": "x"}},
        "spec": {
            "containers": [
                main(
                    command=["python3", "-m", "dynamo.vllm"],
                    args=["--model", "Qwen/Qwen3-0.6B"],
                    env=[{"name": f"E{i}", "value": str(i)} for i in range(10)],
                    resources={"limits": {"nvidia.com/gpu": 1}, "requests": {"memory": "40Gi"}},
                    livenessProbe={"httpGet": {"path": "/live", "port": 9090}, "periodSeconds": 5},
                    volumeMounts=[{"name": "cache", "mountPath": "/cache"}],
                ),
                {"name": "sidecar", "image": "busybox:1", "args": ["sleep", "inf"]},
            ],
            "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": "c"}}],
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
        },
    }
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for i in range(25):
            assert pod_template_errors(tpl, f"spec.components[{i}].podTemplate") == []
        best = min(best, time.perf_counter() - start)
    assert best < 0.1, f"25 templates took {best * 1000:.1f} ms"
