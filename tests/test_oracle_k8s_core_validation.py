"""The API server's pod-spec rules, translated from Kubernetes' own tables
(``kubernetes/kubernetes`` ``pkg/apis/core/validation/validation_test.go``: ``TestValidatePorts``,
``TestValidateEnv``, ``TestValidateEnvFrom``, ``TestValidateVolumeMounts``, ``TestValidateProbe``,
``TestValidateHandler``, ``TestValidatePullPolicy``, ``TestValidateContainers``,
``TestValidateRestartPolicy``, ``TestValidateDNSPolicy``, ``TestValidatePodSpec`` and the toleration
cases of ``TestValidatePod``).

Each case calls :func:`dynamo_pulumi.validation.apiserver.pod.pod_spec_errors` on a pod spec
holding the Go case's value and checks what the Go case checks (error type, field, a detail
substring). Where we differ on purpose the case says why:

* the API server *defaults* a template before validating it (``protocol: TCP``,
  ``imagePullPolicy``, ``restartPolicy: Always``, ``dnsPolicy: ClusterFirst``, probe timings), so an
  absent or empty enum is no error for a rendered template ("protocol required", ``""`` restart
  policy);
* environment variable names follow the relaxed rule of the Kubernetes versions we target (1.32+,
  ``RelaxedEnvironmentVariableValidation`` on): ``a!b``, ``.``, ``..abc`` and ``ev.1`` are valid there.
"""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.errors import ErrorType, FieldError, Path
from dynamo_pulumi.validation.apiserver.pod import pod_spec_errors


def _spec(**fields: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "ctr", "image": "image"}]}
    spec.update(fields)
    return spec


def _container(**fields: Any) -> dict[str, Any]:
    return _spec(containers=[{"name": "abc", "image": "image", **fields}])


def _errors(spec: dict[str, Any]) -> list[FieldError]:
    return pod_spec_errors(spec, Path("spec"))


def _assert_one_of(errors: list[FieldError], kind: ErrorType, field: str, detail: str) -> None:
    assert errors, "expected a failure"
    assert any(e.type is kind and field in e.path and detail in str(e) for e in errors), [str(e) for e in errors]


# --- TestValidatePorts --------------------------------------------------------------------------

PORT_SUCCESS = [
    {"name": "abc", "containerPort": 80, "hostPort": 80, "protocol": "TCP"},
    {"name": "easy", "containerPort": 82, "protocol": "TCP"},
    {"name": "as", "containerPort": 83, "protocol": "UDP"},
    {"name": "do-re-me", "containerPort": 84, "protocol": "UDP"},
    {"containerPort": 85, "protocol": "TCP"},
]


def test_validate_ports_success_case() -> None:
    """TestValidatePorts: successCase and nonCanonicalCase."""
    assert _errors(_container(ports=PORT_SUCCESS)) == []
    assert _errors(_container(ports=[{"containerPort": 80, "protocol": "TCP"}])) == []


PORT_ERRORS = {
    "name > 15 characters": ([{"name": "a" * 16, "containerPort": 80, "protocol": "TCP"}], ErrorType.INVALID, "name", "15"),
    "name contains invalid characters": ([{"name": "a.b.c", "containerPort": 80, "protocol": "TCP"}], ErrorType.INVALID, "name", "alpha-numeric"),
    "name is a number": ([{"name": "80", "containerPort": 80, "protocol": "TCP"}], ErrorType.INVALID, "name", "at least one letter"),
    "name not unique": ([{"name": "abc", "containerPort": 80, "protocol": "TCP"}, {"name": "abc", "containerPort": 81, "protocol": "TCP"}],
                        ErrorType.DUPLICATE, "[1].name", ""),
    "zero container port": ([{"containerPort": 0, "protocol": "TCP"}], ErrorType.REQUIRED, "containerPort", ""),
    "invalid container port": ([{"containerPort": 65536, "protocol": "TCP"}], ErrorType.INVALID, "containerPort", "between"),
    "invalid host port": ([{"containerPort": 80, "hostPort": 65536, "protocol": "TCP"}], ErrorType.INVALID, "hostPort", "between"),
    "invalid protocol case": ([{"containerPort": 80, "protocol": "tcp"}], ErrorType.NOT_SUPPORTED, "protocol", '"TCP", "UDP"'),
    "invalid protocol": ([{"containerPort": 80, "protocol": "ICMP"}], ErrorType.NOT_SUPPORTED, "protocol", '"TCP", "UDP"'),
}


@pytest.mark.parametrize("case", PORT_ERRORS, ids=list(PORT_ERRORS))
def test_validate_ports_error_cases(case: str) -> None:
    """TestValidatePorts errorCases: every error has the case's type, field and detail."""
    ports, kind, field, detail = PORT_ERRORS[case]
    errors = _errors(_container(ports=ports))
    assert all(e.type is kind and field in e.path and detail in str(e) for e in errors), [str(e) for e in errors]
    assert errors


def test_validate_ports_protocol_required_is_defaulted() -> None:
    """TestValidatePorts errorCases["protocol required"] differs on purpose: the API server defaults
    ``protocol: TCP`` on a template before validating it."""
    assert _errors(_container(ports=[{"name": "abc", "containerPort": 80}])) == []


# --- TestValidateEnv / TestValidateEnvFrom --------------------------------------------------------

FIELD_REF = {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}
SECRET_REF = {"secretKeyRef": {"name": "a-secret", "key": "a-key"}}
CONFIG_MAP_REF = {"configMapKeyRef": {"name": "some-config-map", "key": "some-key"}}


def test_validate_env_success_case() -> None:
    """TestValidateEnv successCase (value names, fieldRef/secretKeyRef/configMapKeyRef sources)."""
    env = [{"name": n, "value": "value"} for n in ("abc", "ABC", "AbC_123", "a.b.c", "a-b-c")]
    env += [{"name": "abc", "value": ""}, {"name": "abc", "valueFrom": FIELD_REF},
            {"name": "secret_value", "valueFrom": SECRET_REF}, {"name": "ENV_VAR_1", "valueFrom": CONFIG_MAP_REF}]
    assert _errors(_container(env=env)) == []


ENV_ERRORS = {
    "zero-length name": ([{"name": ""}], "[0].name: Required value"),
    "value and valueFrom specified": ([{"name": "abc", "value": "foo", "valueFrom": FIELD_REF}],
                                      '[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'),
    "valueFrom without a source": ([{"name": "abc", "valueFrom": {}}],
                                   '[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, '
                                   "`configMapKeyRef` or `secretKeyRef`"),
    "valueFrom.fieldRef and valueFrom.secretKeyRef specified": (
        [{"name": "abc", "valueFrom": {**FIELD_REF, **SECRET_REF}}],
        '[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'),
    "valueFrom.fieldRef and valueFrom.configMapKeyRef set": (
        [{"name": "some_var_name", "valueFrom": {**FIELD_REF, **CONFIG_MAP_REF}}],
        '[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'),
    "valueFrom.fieldRef and valueFrom.secretKeyRef and valueFrom.configMapKeyRef specified": (
        [{"name": "abc", "valueFrom": {**FIELD_REF, **SECRET_REF, **CONFIG_MAP_REF}}],
        '[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'),
}


@pytest.mark.parametrize("case", ENV_ERRORS, ids=list(ENV_ERRORS))
def test_validate_env_error_cases(case: str) -> None:
    """TestValidateEnv errorCases: every error contains the case's expectedError."""
    env, expected = ENV_ERRORS[case]
    errors = _errors(_container(env=env))
    assert errors and all(expected in str(e) for e in errors), [str(e) for e in errors]


@pytest.mark.parametrize("name", ["a!b", ".", "..", "..abc", "ev.1"])
def test_validate_env_relaxed_names_are_valid(name: str) -> None:
    """TestValidateEnv errorCases "illegal character", "dot only", "double dots only", "leading double
    dots" and TestValidateContainers "invalid env var name" differ on purpose: the targeted versions
    validate names with ``IsRelaxedEnvVarName`` (the relaxed cases of TestValidateEnv)."""
    assert _errors(_container(env=[{"name": name, "value": "x"}])) == []


def test_validate_env_relaxed_name_refuses_equals_sign() -> None:
    """TestValidateEnv (relaxed): a name holding '=' is refused with the relaxed message."""
    _assert_one_of(_errors(_container(env=[{"name": "a=b", "value": "x"}])), ErrorType.INVALID, "env[0].name",
                   "a valid environment variable name must consist only of printable ASCII characters other than '='")


def test_validate_env_from_cases() -> None:
    """TestValidateEnvFrom: successCase prefixes ``pre_`` and ``a.b``; an entry with no source and
    one with both are refused."""
    ok = [{"prefix": "pre_", "configMapRef": {"name": "abc"}}, {"prefix": "a.b", "secretRef": {"name": "abc"}}]
    assert _errors(_container(envFrom=ok)) == []
    _assert_one_of(_errors(_container(envFrom=[{"prefix": "x"}])), ErrorType.INVALID, "envFrom",
                   "must specify one of: `configMapRef` or `secretRef`")
    both = [{"configMapRef": {"name": "abc"}, "secretRef": {"name": "abc"}}]
    _assert_one_of(_errors(_container(envFrom=both)), ErrorType.INVALID, "envFrom",
                   "may not have more than one field specified at a time")


# --- TestValidateVolumeMounts ---------------------------------------------------------------------

VOLUMES = [{"name": n, "emptyDir": {}} for n in ("abc", "123", "abc-123")]


def test_validate_volume_mounts_success_case() -> None:
    """TestValidateVolumeMounts successCase (two mounts of different volumes may not share a path in
    newer releases: the mounts here use distinct paths)."""
    mounts = [{"name": "abc", "mountPath": "/foo"}, {"name": "123", "mountPath": "/baz"},
              {"name": "abc-123", "mountPath": "/bar"}]
    assert _errors(_container(volumeMounts=mounts) | {"volumes": VOLUMES}) == []


@pytest.mark.parametrize(("case", "mount", "field"), [
    ("empty name", {"name": "", "mountPath": "/foo"}, "volumeMounts[0].name"),
    ("name not found", {"name": "not-there", "mountPath": "/foo"}, "volumeMounts[0].name"),
    ("empty mountpath", {"name": "abc", "mountPath": ""}, "volumeMounts[0].mountPath"),
])
def test_validate_volume_mounts_error_cases(case: str, mount: dict[str, str], field: str) -> None:
    """TestValidateVolumeMounts errorCases ("name not found" names a volume the pod lacks)."""
    errors = _errors(_container(volumeMounts=[mount]) | {"volumes": VOLUMES})
    assert any(field in e.path for e in errors), [str(e) for e in errors]


def test_validate_volume_mounts_same_path_twice() -> None:
    """ValidateVolumeMounts: ``mountPath`` ``must be unique`` within a container."""
    mounts = [{"name": "abc", "mountPath": "/foo"}, {"name": "123", "mountPath": "/foo"}]
    _assert_one_of(_errors(_container(volumeMounts=mounts) | {"volumes": VOLUMES}), ErrorType.INVALID,
                   "volumeMounts[1].mountPath", "must be unique")


# --- TestValidateProbe / TestValidateHandler ------------------------------------------------------

EXEC = {"exec": {"command": ["echo"]}}


@pytest.mark.parametrize("probe", [
    {"timeoutSeconds": 10, "initialDelaySeconds": 0, **EXEC},
    {"timeoutSeconds": 0, "initialDelaySeconds": 10, **EXEC},
])
def test_validate_probe_success_cases(probe: dict[str, Any]) -> None:
    """TestValidateProbe successCases."""
    assert _errors(_container(readinessProbe=probe)) == []


@pytest.mark.parametrize("probe", [
    {"timeoutSeconds": 10, "initialDelaySeconds": 10},
    {"timeoutSeconds": 10, "initialDelaySeconds": -10, **EXEC},
    {"timeoutSeconds": -10, "initialDelaySeconds": 10, **EXEC},
    {"timeoutSeconds": -10, "initialDelaySeconds": -10, **EXEC},
])
def test_validate_probe_error_cases(probe: dict[str, Any]) -> None:
    """TestValidateProbe errorCases (no handler; negative delays and timeouts)."""
    assert _errors(_container(readinessProbe=probe))


@pytest.mark.parametrize("handler", [
    EXEC,
    {"httpGet": {"path": "/", "port": 1, "host": "", "scheme": "HTTP"}},
    {"httpGet": {"path": "/foo", "port": 65535, "host": "host", "scheme": "HTTP"}},
    {"httpGet": {"path": "/", "port": "port", "host": "", "scheme": "HTTP"}},
])
def test_validate_handler_success_cases(handler: dict[str, Any]) -> None:
    """TestValidateHandler successCases (as a preStop hook)."""
    assert _errors(_container(lifecycle={"preStop": handler})) == []


@pytest.mark.parametrize("handler", [
    {},
    {"exec": {"command": []}},
    {"httpGet": {"path": "", "port": 0, "host": ""}},
    {"httpGet": {"path": "/foo", "port": 65536, "host": "host"}},
    {"httpGet": {"path": "", "port": "", "host": ""}},
])
def test_validate_handler_error_cases(handler: dict[str, Any]) -> None:
    """TestValidateHandler errorCases."""
    assert _errors(_container(lifecycle={"preStop": handler}))


# --- TestValidatePullPolicy / TestValidateRestartPolicy / TestValidateDNSPolicy ------------------


@pytest.mark.parametrize("policy", ["IfNotPresent", "Always", "Never"])
def test_validate_pull_policy_cases(policy: str) -> None:
    """TestValidatePullPolicy testCases (NotPresent1/2, Always1/2, Never1/2)."""
    assert _errors(_container(imagePullPolicy=policy)) == []


def test_validate_pull_policy_unknown_value() -> None:
    """validatePullPolicy: any other value is NotSupported."""
    _assert_one_of(_errors(_container(imagePullPolicy="Sometimes")), ErrorType.NOT_SUPPORTED,
                   "imagePullPolicy", '"Always", "IfNotPresent", "Never"')


@pytest.mark.parametrize("policy", ["Always", "OnFailure", "Never"])
def test_validate_restart_policy_success_cases(policy: str) -> None:
    """TestValidateRestartPolicy successCases."""
    assert _errors(_spec(restartPolicy=policy)) == []


def test_validate_restart_policy_error_cases() -> None:
    """TestValidateRestartPolicy errorCases: "newpolicy" is refused; "" differs on purpose (the
    API server defaults an empty restartPolicy of a template to Always before validating)."""
    _assert_one_of(_errors(_spec(restartPolicy="newpolicy")), ErrorType.NOT_SUPPORTED, "restartPolicy", "Always")
    assert _errors(_spec(restartPolicy="")) == []


@pytest.mark.parametrize("policy", ["ClusterFirst", "Default", "ClusterFirstWithHostNet", "None"])
def test_validate_dns_policy_success_cases(policy: str) -> None:
    """TestValidateDNSPolicy successCases (``validateDNSPolicy`` alone: a whole pod spec with
    ``None`` also needs a nameserver, ``validatePodDNSConfig``, so it is given one)."""
    dns_config = {"dnsConfig": {"nameservers": ["10.0.0.10"]}} if policy == "None" else {}
    assert _errors(_spec(dnsPolicy=policy, **dns_config)) == []


def test_validate_dns_policy_error_cases() -> None:
    """TestValidateDNSPolicy errorCases: "invalid"."""
    _assert_one_of(_errors(_spec(dnsPolicy="invalid")), ErrorType.NOT_SUPPORTED, "dnsPolicy", "ClusterFirst")


# --- TestValidateContainers ----------------------------------------------------------------------


def _limits(cpu: str, memory: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": memory}


CONTAINER_SUCCESS = [
    {"name": "abc", "image": "image", "imagePullPolicy": "IfNotPresent"},
    {"name": "123", "image": "image", "imagePullPolicy": "IfNotPresent"},
    {"name": "abc-123", "image": "image", "imagePullPolicy": "IfNotPresent"},
    {"name": "life-123", "image": "image", "lifecycle": {"preStop": {"exec": {"command": ["ls", "-l"]}}}},
    {"name": "resources-test", "image": "image", "resources": {"limits": {"cpu": "10", "memory": "10G", "my.org/resource": "10"}}},
    {"name": "resources-request-limit-simple", "image": "image", "resources": {"requests": {"cpu": "8"}, "limits": {"cpu": "10"}}},
    {"name": "resources-request-limit-edge", "image": "image", "resources": {
        "requests": {"cpu": "10", "memory": "10G", "my.org/resource": "10"},
        "limits": {"cpu": "10", "memory": "10G", "my.org/resource": "10"}}},
    {"name": "resources-request-limit-partials", "image": "image", "resources": {
        "requests": {"cpu": "9.5", "memory": "10G"}, "limits": {"cpu": "10", "my.org/resource": "10"}}},
    {"name": "resources-request", "image": "image", "resources": {"requests": {"cpu": "9.5", "memory": "10G"}}},
    {"name": "same-host-port-different-protocol", "image": "image", "ports": [
        {"containerPort": 80, "hostPort": 80, "protocol": "TCP"}, {"containerPort": 80, "hostPort": 80, "protocol": "UDP"}]},
]


def test_validate_containers_success_case() -> None:
    """TestValidateContainers successCase (the extended resource ``my.org/resource`` is a whole
    number: the Go case's ``10m`` predates the integer rule that newer releases apply)."""
    assert _errors(_spec(containers=CONTAINER_SUCCESS)) == []


CONTAINER_ERRORS: dict[str, list[dict[str, Any]]] = {
    "zero-length name": [{"name": "", "image": "image"}],
    "name > 63 characters": [{"name": "a" * 64, "image": "image"}],
    "name not a DNS label": [{"name": "a.b.c", "image": "image"}],
    "name not unique": [{"name": "abc", "image": "image"}, {"name": "abc", "image": "image"}],
    "zero-length image": [{"name": "abc", "image": ""}],
    "host port not unique": [
        {"name": "abc", "image": "image", "ports": [{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]},
        {"name": "def", "image": "image", "ports": [{"containerPort": 81, "hostPort": 80, "protocol": "TCP"}]}],
    "unknown volume name": [{"name": "abc", "image": "image", "volumeMounts": [{"name": "anything", "mountPath": "/foo"}]}],
    "invalid lifecycle, no exec command.": [{"name": "life-123", "image": "image", "lifecycle": {"preStop": {"exec": {}}}}],
    "invalid lifecycle, no tcp socket port.": [{"name": "life-123", "image": "image", "lifecycle": {"preStop": {"tcpSocket": {}}}}],
    "invalid lifecycle, zero tcp socket port.": [
        {"name": "life-123", "image": "image", "lifecycle": {"preStop": {"tcpSocket": {"port": 0}}}}],
    "invalid lifecycle, no action.": [{"name": "life-123", "image": "image", "lifecycle": {"preStop": {}}}],
    "invalid liveness probe, no tcp socket port.": [{"name": "life-123", "image": "image", "livenessProbe": {"tcpSocket": {}}}],
    "invalid liveness probe, no action.": [{"name": "life-123", "image": "image", "livenessProbe": {}}],
    "invalid compute resource": [{"name": "abc-123", "image": "image", "resources": {"limits": {"disk": "10G"}}}],
    "Resource CPU invalid": [{"name": "abc-123", "image": "image", "resources": {"limits": _limits("-10", "0")}}],
    "Resource Requests CPU invalid": [{"name": "abc-123", "image": "image", "resources": {"requests": _limits("-10", "0")}}],
    "Resource Memory invalid": [{"name": "abc-123", "image": "image", "resources": {"limits": _limits("0", "-10")}}],
    "Request limit simple invalid": [{"name": "abc-123", "image": "image", "resources": {
        "limits": _limits("5", "3"), "requests": _limits("6", "3")}}],
    "Request limit multiple invalid": [{"name": "abc-123", "image": "image", "resources": {
        "limits": _limits("5", "3"), "requests": _limits("6", "4")}}],
}


@pytest.mark.parametrize("case", CONTAINER_ERRORS, ids=list(CONTAINER_ERRORS))
def test_validate_containers_error_cases(case: str) -> None:
    """TestValidateContainers errorCases (all but "privilege disabled": security contexts are not
    judged here)."""
    assert _errors(_spec(containers=CONTAINER_ERRORS[case])), case


# --- TestValidatePodSpec, TestValidatePod (tolerations) -------------------------------------------


def test_validate_pod_spec_failure_cases() -> None:
    """TestValidatePodSpec failureCases "bad volume" (a volume with no name and no source) and
    "bad active deadline seconds" (0).

    The Go case calls ``ValidatePodSpec`` on an undefaulted object; through the API server,
    ``SetDefaults_Volume`` first gives a volume without a source an ``emptyDir`` (a dry run of a
    Deployment with such a volume is accepted: tests/e2e/test_apiserver_oracle.py), so only the
    missing name is refused."""
    errors = _errors(_spec(volumes=[{}]))
    _assert_one_of(errors, ErrorType.REQUIRED, "volumes[0].name", "")
    assert not any("must specify a volume type" in str(e) for e in errors), [str(e) for e in errors]
    _assert_one_of(_errors(_spec(activeDeadlineSeconds=0)), ErrorType.INVALID, "activeDeadlineSeconds", "")


TOLERATION_ERRORS = {
    "invalid toleration key": ({"key": "nospecialchars^=@", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
                               "tolerations[0].key"),
    "invalid toleration operator": ({"key": "foo", "operator": "In", "value": "bar", "effect": "NoSchedule"},
                                    "tolerations[0].operator"),
    "value must be empty when `operator` is 'Exists'": (
        {"key": "foo", "operator": "Exists", "value": "bar", "effect": "NoSchedule"}, "tolerations[0].operator"),
    "operator must be 'Exists' when `key` is empty": (
        {"operator": "Equal", "value": "bar", "effect": "NoSchedule"}, "tolerations[0].operator"),
    "effect must be 'NoExecute' when `TolerationSeconds` is set": (
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 20},
        "tolerations[0].effect"),
}


@pytest.mark.parametrize("case", TOLERATION_ERRORS, ids=list(TOLERATION_ERRORS))
def test_validate_pod_toleration_error_cases(case: str) -> None:
    """TestValidatePod errorCases (tolerations): the error is at the case's field."""
    toleration, field = TOLERATION_ERRORS[case]
    errors = _errors(_spec(tolerations=[toleration]))
    assert any(e.path == f"spec.{field}" for e in errors), [str(e) for e in errors]
