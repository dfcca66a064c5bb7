"""The API server's pod-spec rules one by one, as pure functions (fast: the mutation run's
selection); the verdict and the commands are in ``test_apiserver_verdict.py``."""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.errors import ErrorType, Path
from dynamo_pulumi.validation.apiserver import rendered_object_errors
from dynamo_pulumi.validation.apiserver.containers import containers_errors
from dynamo_pulumi.validation.apiserver.enums import toleration_errors
from dynamo_pulumi.validation.apiserver.selectors import (
    label_selector_errors,
    node_affinity_errors,
    pod_affinity_errors,
)
from dynamo_pulumi.validation.apiserver.services import service_errors


def _strs(errors: list[Any]) -> list[str]:
    return [str(e) for e in errors]


# --- tolerations ---------------------------------------------------------------------------------


def test_valid_tolerations() -> None:
    assert toleration_errors([
        {"key": "a", "operator": "Equal", "value": "b", "effect": "NoSchedule"},
        {"key": "a", "value": "b"},
        {"operator": "Exists"},
        {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5},
        {"key": "a", "operator": "Exists", "tolerationSeconds": 5},
        {"key": "a", "operator": "Equal", "value": "", "effect": ""},
    ], Path("t")) == []


def test_toleration_messages() -> None:
    assert _strs(toleration_errors([{"key": "a", "operator": "Exists", "value": "b"}], Path("t"))) == [
        't[0].operator: Invalid value: {"key":"a","operator":"Exists","value":"b"}: value must be empty when `operator` is \'Exists\'']
    assert _strs(toleration_errors([{"value": "b"}], Path("t"))) == [
        't[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"']
    assert _strs(toleration_errors([{"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 1}], Path("t"))) == [
        't[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set']
    assert _strs(toleration_errors([{"key": "a", "operator": "In"}], Path("t"))) == [
        't[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"']
    (bad_value,) = toleration_errors([{"key": "a", "value": "-x-"}], Path("t"))
    assert bad_value.path == "t[0].operator" and bad_value.value == "-x-" and "a valid label must be" in bad_value.detail
    (bad_key,) = toleration_errors([{"key": "a b", "operator": "Exists"}], Path("t"))
    assert bad_key.path == "t[0].key" and bad_key.value == "a b"


# --- containers ----------------------------------------------------------------------------------


def test_init_containers() -> None:
    spec = {"containers": [{"name": "main", "image": "i"}], "initContainers": [
        {"name": "main", "image": "i"},
        {"name": "prep", "image": "i", "restartPolicy": "OnFailure"},
        {"name": "probe", "image": "i", "readinessProbe": {"exec": {"command": ["x"]}}, "lifecycle": {}},
        {"name": "side", "image": "i", "restartPolicy": "Always", "readinessProbe": {"exec": {"command": ["x"]}}},
        {"name": "side", "image": "i"},
    ]}
    assert _strs(containers_errors(spec, set(), Path("s"))) == [
        's.initContainers[0].name: Duplicate value: "main"',
        's.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
        "s.initContainers[2].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always",
        "s.initContainers[2].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
        's.initContainers[4].name: Duplicate value: "side"',
    ]


def test_regular_container_restart_policy_and_probe_rules() -> None:
    spec = {"containers": [{"name": "main", "image": "i", "restartPolicy": "Always",
                            "livenessProbe": {"exec": {"command": ["x"]}, "successThreshold": 2},
                            "startupProbe": {"exec": {"command": ["x"]}, "successThreshold": 1},
                            "readinessProbe": {"exec": {"command": ["x"]}, "successThreshold": 3, "terminationGracePeriodSeconds": 5}}]}
    assert _strs(containers_errors(spec, set(), Path("s"))) == [
        "s.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
        "s.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes",
        "s.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
    ]


def test_probe_grace_period_and_handler_scheme() -> None:
    spec = {"containers": [{"name": "main", "image": "i", "livenessProbe": {
        "httpGet": {"port": "http", "scheme": "FTP"}, "terminationGracePeriodSeconds": 0, "failureThreshold": -1}}]}
    assert _strs(containers_errors(spec, set(), Path("s"))) == [
        's.containers[0].livenessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"',
        "s.containers[0].livenessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0",
        "s.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
    ]


def test_mounts_with_unknown_volumes_are_not_judged() -> None:
    spec = {"containers": [{"name": "main", "image": "i", "volumeMounts": [{"name": "x", "mountPath": "/x"}]}]}
    assert containers_errors(spec, None, Path("s")) == []
    assert [e.type for e in containers_errors(spec, set(), Path("s"))] == [ErrorType.NOT_FOUND]


def test_sub_path_and_sub_path_expr_are_exclusive() -> None:
    spec = {"containers": [{"name": "main", "image": "i", "volumeMounts": [
        {"name": "v", "mountPath": "/x", "subPath": "a", "subPathExpr": "$(B)"}]}]}
    assert _strs(containers_errors(spec, {"v"}, Path("s"))) == [
        's.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(B)": subPathExpr and subPath are mutually exclusive']


# --- selectors -----------------------------------------------------------------------------------


def test_label_selector() -> None:
    selector = {"matchLabels": {"a": "-b"}, "matchExpressions": [
        {"key": "a", "operator": "In", "values": ["x"]},
        {"key": "a", "operator": "In"},
        {"key": "a", "operator": "Exists", "values": ["x"]},
        {"key": "a", "operator": "Gt", "values": ["1"]},
        {"key": "a/b/c", "operator": "DoesNotExist"},
    ]}
    errors = _strs(label_selector_errors(selector, Path("sel")))
    assert errors[0].startswith('sel.matchLabels[a]: Invalid value: "-b": a valid label must be')
    assert errors[1:] == [
        "sel.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "sel.matchExpressions[2].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        'sel.matchExpressions[3].operator: Invalid value: "Gt": not a valid selector operator',
        "sel.matchExpressions[4].key: Invalid value: \"a/b/c\": a qualified name may contain at most one '/'",
    ]
    assert label_selector_errors(None, Path("sel")) == []


def test_node_affinity() -> None:
    affinity = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1", "2"]},
                                  {"key": "a", "operator": "Near", "values": ["x"]},
                                  {"key": "a", "operator": "NotIn", "values": ["-bad-"]},
                                  {"key": "a", "operator": "DoesNotExist", "values": ["x"]}],
             "matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["x"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}},
            {"weight": 100, "preference": {"matchExpressions": [{"key": "a", "operator": "Lt", "values": ["3"]}]}},
        ]}}
    errors = _strs(node_affinity_errors(affinity, Path("aff")))
    req = "aff.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    assert errors[0] == f"{req}.matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
    assert errors[1] == (f'{req}.matchExpressions[1].operator: Unsupported value: "Near": supported values: '
                         '"DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"')
    assert errors[2] == f"{req}.matchExpressions[3].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
    assert errors[3] == f'{req}.matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key'
    assert errors[4:] == [
        "aff.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"]
    empty = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}
    assert _strs(node_affinity_errors(empty, Path("aff"))) == [
        "aff.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: "
        "must have at least one node selector term"]


def test_pod_affinity_terms() -> None:
    affinity = {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"},
            {"labelSelector": {"matchLabels": {"a": "b"}}},
            {"topologyKey": "a/b/c"}],
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 101, "podAffinityTerm": {"topologyKey": "zone", "namespaceSelector": {"matchLabels": {"x": "-"}}}},
            {"weight": 1, "podAffinityTerm": {"topologyKey": "zone"}}]}}
    errors = _strs(pod_affinity_errors(affinity, Path("aff")))
    req = "aff.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    pref = "aff.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    assert errors[0] == f"{req}[1].topologyKey: Required value: can not be empty"
    assert errors[1] == f"{req}[2].topologyKey: Invalid value: \"a/b/c\": a qualified name may contain at most one '/'"
    assert errors[2] == f"{pref}[0].weight: Invalid value: 101: must be in the range 1-100"
    assert errors[3].startswith(f'{pref}[0].podAffinityTerm.namespaceSelector.matchLabels[x]: Invalid value: "-"')
    assert len(errors) == 4


# --- services ------------------------------------------------------------------------------------


def _service(ports: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "spec": {"ports": ports, **spec}}


def test_service_port_rules() -> None:
    assert service_errors(_service([{"name": "http", "port": 80, "targetPort": "http"}, {"name": "grpc", "port": 81, "protocol": "UDP"}])) == []
    assert service_errors(_service([{"port": 80, "targetPort": 8080}])) == []  # one port needs no name
    assert service_errors(_service([], clusterIP="None")) == []
    assert service_errors(_service([], type="ExternalName")) == []
    assert _strs(service_errors(_service([{"name": "Http", "port": 0, "protocol": "ICMP", "targetPort": "way-too-long-port-name"}]))) == [
        'spec.ports[0].name: Invalid value: "Http": a lowercase RFC 1123 label must consist of lower case alphanumeric characters '
        "or '-', and must start and end with an alphanumeric character (regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.ports[0].targetPort: Invalid value: "way-too-long-port-name": must be no more than 15 characters',
    ]
    assert _strs(service_errors(_service([{"name": "a", "port": 80}, {"name": "b", "port": 80, "protocol": "UDP"},
                                          {"name": "c", "port": 80, "protocol": "TCP"}]))) == [
        'spec.ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}']


def test_only_core_services_and_pod_templates_are_judged() -> None:
    assert rendered_object_errors({"apiVersion": "x/v1", "kind": "Service", "spec": {}}) == []
    assert rendered_object_errors({"apiVersion": "v1", "kind": "ConfigMap", "data": {"containers": []}}) == []
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"containers": [{"name": "X"}]},
                  "spec": {"template": {"spec": {"containers": [{"name": "ok", "image": "i"}]}}}}
    assert rendered_object_errors(deployment) == []
    pcs = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "spec": {"template": {"cliques": [
        {"spec": {"podSpec": {"containers": [{"name": "a", "image": "i"}]}}},
        {"spec": {"podSpec": {"containers": [{"name": "B", "image": "i"}]}}}]}}}
    assert [e.path for e in rendered_object_errors(pcs)] == ["spec.template.cliques[1].spec.podSpec.containers[0].name"]


def test_node_selector_requirement_operators_one_by_one() -> None:
    def errors(requirement: dict[str, Any]) -> list[str]:
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [requirement]}]}}}
        prefix = "aff.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
        return [e.removeprefix(prefix) for e in _strs(node_affinity_errors(affinity, Path("aff")))]

    required_values = "values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
    forbidden_values = "values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
    single = "values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
    assert errors({"key": "a", "operator": "In"}) == [required_values]
    assert errors({"key": "a", "operator": "NotIn"}) == [required_values]
    assert errors({"key": "a", "operator": "Exists", "values": ["x"]}) == [forbidden_values]
    assert errors({"key": "a", "operator": "DoesNotExist", "values": ["x"]}) == [forbidden_values]
    assert errors({"key": "a", "operator": "Lt", "values": []}) == [single]
    assert errors({"key": "a", "operator": "Gt", "values": ["1"]}) == []
    assert errors({"key": "a", "operator": "Exists"}) == []
    assert errors({"key": "a", "operator": "In", "values": ["ok", "any string"]}) == []  # values are no label values
    assert errors({"key": "bad key!", "operator": "Exists"})[0].startswith('key: Invalid value: "bad key!": name part must')


def test_node_selector_field_requirements() -> None:
    def errors(requirement: dict[str, Any]) -> list[str]:
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [requirement]}]}}}
        return _strs(node_affinity_errors(affinity, Path("a")))

    assert errors({"key": "metadata.name", "operator": "In", "values": ["n"]}) == []
    assert errors({"key": "metadata.name", "operator": "In"}) == [
        "a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: "
        "Required value: must be specified when `operator` is 'In' or 'NotIn'"]


def test_preferred_terms_weights_and_preference_path() -> None:
    def errors(weight: int, requirement: dict[str, Any]) -> list[str]:
        affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": weight, "preference": {"matchExpressions": [requirement]}}]}}
        return _strs(node_affinity_errors(affinity, Path("a")))

    ok = {"key": "a", "operator": "Exists"}
    assert errors(1, ok) == [] and errors(100, ok) == []
    assert errors(101, ok) == ["a.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"]
    assert errors(50, {"key": "a", "operator": "In"}) == [
        "a.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values: "
        "Required value: must be specified when `operator` is 'In' or 'NotIn'"]


def test_label_selector_requirements_one_by_one() -> None:
    def errors(requirement: dict[str, Any]) -> list[str]:
        return _strs(label_selector_errors({"matchExpressions": [requirement]}, Path("s")))

    assert errors({"key": "a", "operator": "NotIn"}) == [
        "s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]
    assert errors({"key": "a", "operator": "DoesNotExist", "values": ["x"]}) == [
        "s.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]
    assert errors({"key": "a", "operator": "NotIn", "values": ["x"]}) == []


def test_service_port_names_and_defaulted_protocol() -> None:
    assert _strs(service_errors(_service([{"name": "a", "port": 80}, {"port": 81}]))) == ["spec.ports[1].name: Required value"]
    assert _strs(service_errors(_service([{"name": "a", "port": 80}, {"name": "a", "port": 81}]))) == [
        'spec.ports[1].name: Duplicate value: "a"']
    assert _strs(service_errors(_service([{"name": "a", "port": 80}, {"name": "b", "port": 80, "protocol": "TCP"}]))) == [
        'spec.ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}']
    assert service_errors(_service([{"name": "a", "port": 80, "targetPort": 0}, {"name": "b", "port": 81, "targetPort": ""}])) == []
    assert _strs(service_errors(_service([{"name": "a", "port": 80, "targetPort": 1}, {"name": "b", "port": 81, "targetPort": 70000}]))) == [
        "spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"]
    assert _strs(service_errors({"apiVersion": "v1", "kind": "Service", "spec": {"clusterIP": "10.0.0.1"}})) == ["spec.ports: Required value"]
