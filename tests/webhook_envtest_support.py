"""Builders and the one admission call behind the translated webhook envtests
(``tests/test_oracle_webhook_*``).

The Go envtests (``deploy/operator/internal/webhook/validation/*_envtest_test.go``) send each
object through a real API server with the operator's webhooks installed and compare the
``path: message`` causes of the refusal. Here the same object, written as the wire dict the Go
builders produce, goes through what ``dynamo-pulumi validate [--old]`` runs in operator mode
(load: schema, v1alpha1 conversion; then :func:`dynamo_pulumi.verdict.deployability.judge`), and the errors are
compared in the same ``path: message`` form (the Go harness strips the ``"object": `` of CEL
values, as :func:`envtest_text` does).

The Go fixtures: a topology ``grove-topology`` (zone, rack) exists unless ``withoutTopology``;
Grove and checkpoints are enabled unless the case turns them off.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from dynamo_pulumi.errors import FieldError, GraphValidationError
from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.verdict.deployability import judge

Wire = dict[str, Any]
Mutate = Callable[[Wire], None] | None

IMAGE = "registry.example/runtime:1.1.0"
CUSTOM_IMAGE = "registry.example/runtime:custom"
TOPOLOGY = {"grove-topology": ["zone", "rack"]}


def platform(grove: bool = True, checkpoint: bool = True, topology: bool = True,
             username: str | None = None, operator: bool = False) -> Platform:
    """The envtest's operator configuration and cluster facts."""
    cluster: dict[str, Any] = {"clusterTopologies": TOPOLOGY if topology else {}}
    if username is not None:
        cluster["requester"] = username
    if operator and username is not None:
        cluster["operatorPrincipals"] = [username]
    return Platform.model_validate({
        "orchestrators": {"grove": {"enabled": grove}, "lws": {"enabled": True}},
        "checkpoint": {"enabled": checkpoint},
        "cluster": cluster,
    })


def _main(image: str = IMAGE) -> Wire:
    return {"spec": {"containers": [{"name": "main", "image": image}]}}


def beta_dgd(mutate: Mutate = None) -> Wire:
    """``betaDGDForAdmission``: a vLLM graph of a frontend (1 replica) and a worker (2 replicas)."""
    dgd: Wire = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "test-graph", "namespace": "default"},
        "spec": {"backendFramework": "vllm", "components": [
            {"name": "frontend", "type": "frontend", "runtimeVersionOverride": "1.1.0", "replicas": 1,
             "podTemplate": _main()},
            {"name": "worker", "type": "worker", "runtimeVersionOverride": "1.1.0", "replicas": 2,
             "podTemplate": _main()},
        ]},
    }
    if mutate is not None:
        mutate(dgd)
    return dgd


def alpha_dgd(mutate: Mutate = None) -> Wire:
    """``alphaDGDForAdmission``: a vLLM graph of one worker service (1 replica)."""
    dgd: Wire = {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "test-graph", "namespace": "default"},
        "spec": {"backendFramework": "vllm", "services": {
            "worker": {"componentType": "worker", "runtimeVersionOverride": "1.1.0", "replicas": 1,
                       "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
        }},
    }
    if mutate is not None:
        mutate(dgd)
    return dgd


def beta_dcd(mutate: Mutate = None) -> Wire:
    """``betaDCDForAdmission``: a vLLM worker DCD."""
    dcd: Wire = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker", "namespace": "default"},
        "spec": {"backendFramework": "vllm", "name": "worker", "runtimeVersionOverride": "1.1.0",
                 "type": "worker", "podTemplate": _main()},
    }
    if mutate is not None:
        mutate(dcd)
    return dcd


def alpha_dcd(mutate: Mutate = None) -> Wire:
    """``alphaDCDForAdmission``: a vLLM worker DCD in v1alpha1."""
    dcd: Wire = {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker", "namespace": "default"},
        "spec": {"backendFramework": "vllm", "serviceName": "worker", "runtimeVersionOverride": "1.1.0",
                 "componentType": "worker", "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
    }
    if mutate is not None:
        mutate(dcd)
    return dcd


def worker(dgd: Wire) -> Wire:
    """``betaWorkerComponent`` (beta) or the ``worker`` service (alpha)."""
    if "services" in dgd["spec"]:
        return dgd["spec"]["services"]["worker"]  # type: ignore[no-any-return]
    return next(c for c in dgd["spec"]["components"] if c["name"] == "worker")


def with_(base: Callable[[Mutate], Wire], *edits: Callable[[Wire], None]) -> Wire:
    """``base`` with ``edits`` applied in order."""
    def mutate(obj: Wire) -> None:
        for edit in edits:
            edit(obj)
    return base(mutate)


def envtest_text(error: FieldError) -> str:
    """An error as the Go harness prints a cause: ``path: message``, CEL's ``"object": `` dropped."""
    text = str(error)
    for kind in ('"object": ', '"array": '):
        text = text.replace(f"Invalid value: {kind}", "Invalid value: ", 1)
    return text


def admission(new: Wire, old: Wire | None = None, *, plat: Platform | None = None) -> tuple[list[str], list[str]]:
    """The errors and warnings of ``validate [--old] --mode operator`` for ``new`` (sent as written,
    as the envtest's client sends it: ``--client kubectl``)."""
    plat = plat or platform()
    try:
        loaded = load_documents(copy.deepcopy(new)).loaded[0]
        old_obj = load_documents(copy.deepcopy(old)).loaded[0].object if old is not None else None
    except GraphValidationError as exc:
        return [envtest_text(e) for e in exc.errors], list(exc.warnings)
    verdict = judge(loaded, plat, old=old_obj, mode="operator", client="kubectl")
    # Operator mode's own notes on what it leaves out of the request are not admission warnings.
    warnings = [w for w in verdict.warnings if " is not sent in operator mode " not in w]
    return [envtest_text(e) for e in verdict.validate_errors()], warnings


def admission_errors(new: Wire, old: Wire | None = None, **platform_args: Any) -> list[str]:
    return admission(new, old, plat=platform(**platform_args))[0]


# --- the Go file's setters -----------------------------------------------------------------------

POWER = "dynamo.nvidia.com/gpu-power-limit"
IMMUTABLE = "field is immutable"


#: A reviewed product whose range (200-700 W) holds every wattage the Go power cases use.
PRODUCT = "NVIDIA-H100-80GB-HBM3"


def set_beta_power(dgd: Wire, watts: str, gpus: str, node_count: int, product: str | None = None) -> None:
    """``setBetaWorkerPowerInputs``; ``product`` adds the ``nvidia.com/gpu.product`` node selector
    the newer power rules require."""
    w = worker(dgd)
    w["podTemplate"].setdefault("metadata", {})["annotations"] = {POWER: watts}
    w["podTemplate"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    if product:
        w["podTemplate"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": product}
    w["multinode"] = {"nodeCount": node_count}


def set_alpha_power(dgd: Wire, watts: str, gpus: str, node_count: int, product: str | None = None) -> None:
    """``setAlphaWorkerPowerInputs`` (``product`` as for :func:`set_beta_power`)."""
    w = worker(dgd)
    w["extraPodMetadata"] = {"annotations": {POWER: watts}}
    w["resources"] = {"limits": {"gpu": gpus}}
    if product:
        w["extraPodSpec"]["nodeSelector"] = {"nvidia.com/gpu.product": product}
    w["multinode"] = {"nodeCount": node_count}


def set_beta_claim(dgd: Wire, claim: Wire) -> None:
    """``setBetaWorkerResourceClaim``."""
    spec = worker(dgd)["podTemplate"]["spec"]
    spec["containers"][0].setdefault("resources", {})["claims"] = [{"name": claim["name"]}]
    spec["resourceClaims"] = [claim]


def gpu_main() -> Wire:
    return {"spec": {"containers": [{"name": "main", "image": IMAGE,
                                     "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}


def enable_beta_gms(component: Wire, mode: str) -> None:
    """``enableBetaIntraPodGMS`` / ``enableBetaInterPodGMS``."""
    component["experimental"] = {"gpuMemoryService": {"mode": mode}}
    component["podTemplate"] = gpu_main()


def enable_beta_inter_failover(component: Wire, shadows: int) -> None:
    """``enableBetaInterPodFailover``."""
    component.setdefault("experimental", {})["failover"] = {"mode": "InterPod", "numShadows": shadows}


def enable_alpha_inter_failover(component: Wire, shadows: int) -> None:
    """``enableAlphaInterPodGMSFailover``."""
    component["resources"] = {"limits": {"gpu": "1"}}
    component["gpuMemoryService"] = {"enabled": True, "mode": "interPod"}
    component["failover"] = {"enabled": True, "mode": "interPod", "numShadows": shadows}


def labelled(obj: Wire) -> Wire:
    """``dgdAdmissionWithLabel``: the same object with ``updated: "true"``."""
    out = copy.deepcopy(obj)
    out["metadata"]["labels"] = {"updated": "true"}
    return out


def alpha_with_services(*names: str) -> Wire:
    """``alphaDGDForAdmissionWithServiceNames``."""
    def mutate(dgd: Wire) -> None:
        service = dgd["spec"]["services"]["worker"]
        dgd["spec"]["services"] = {n: copy.deepcopy(service) for n in names}
    return alpha_dgd(mutate)


# --- one table row -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One Go table entry: the Go test name, the request, and what the API server answers.

    ``newer`` names the ``../shared/spec`` rule we follow instead of the Go expectation (the case
    is a strict xfail, listed in docs/ARCHITECTURE.md)."""

    name: str
    new: Wire
    old: Wire | None = None
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] | None = None
    grove: bool = True
    checkpoint: bool = True
    topology: bool = True
    username: str | None = None
    operator: bool = False
    newer: str | None = None


def params(cases: list[Case], go_test: str) -> list[Any]:
    """The cases as pytest params named ``<Go test>/<case>``; newer-behaviour cases as strict xfails."""
    out = []
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason=f"newer behaviour: {case.newer}")] if case.newer else []
        out.append(pytest.param(case, id=f"{go_test}/{case.name}", marks=marks))
    return out


def check(case: Case) -> None:
    """Assert ``validate --mode operator`` answers as the Go case's API server does."""
    plat = platform(case.grove, case.checkpoint, case.topology, case.username, case.operator)
    errors, warnings = admission(case.new, case.old, plat=plat)
    assert errors == list(case.errors), errors
    if case.warnings is not None:
        assert warnings == list(case.warnings), warnings
