"""Seeded mutations of one small graph, drawn from the rule families our verdict implements.

Each template names the family of ``dynamo_pulumi/validation/apiserver/`` it exercises (or the
DGD CRD's CEL rules, strict field validation, object metadata) and the rule; drawing a mutation
picks the template round-robin and its parameters (which component, which value) from one
``random.Random(seed)``, so a seed gives the same mutations on every machine. About a third of
the templates make a change the API server accepts, so agreement is tested both ways.

A mutation edits the v1beta1 document of ``examples/aggregated-vllm/graph.yaml`` (a CPU
frontend and a one-GPU vLLM worker): the pod template of one component, the graph's metadata, or
a field the CRD's CEL rules read. CEL and the graph's own schema are judged in operator mode
only (in render mode the graph itself never reaches the API server).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

BASE_GRAPH = Path(__file__).resolve().parents[2] / "examples" / "aggregated-vllm" / "graph.yaml"
#: The seed of every run unless told otherwise (the e2e tier always uses it).
SEED = 2026
POD_MODES = ("render", "operator")
OPERATOR_ONLY = ("operator",)

Doc = dict[str, Any]
Apply = Callable[[Doc], None]


@dataclass(frozen=True)
class Mutation:
    """One concrete change: its family, rule, what it does, the modes it is judged in."""

    index: int
    family: str
    rule: str
    description: str
    modes: tuple[str, ...]
    apply: Apply

    @property
    def ident(self) -> str:
        return f"{self.family}/{self.rule}#{self.index}"

    def document(self, base: Doc) -> Doc:
        doc = copy.deepcopy(base)
        self.apply(doc)
        return doc


@dataclass(frozen=True)
class Template:
    family: str
    rule: str
    make: Callable[[random.Random], tuple[str, Apply]]
    modes: tuple[str, ...] = POD_MODES


def base_document() -> Doc:
    doc = yaml.safe_load(BASE_GRAPH.read_text())
    assert isinstance(doc, dict)
    return doc


# --- where a mutation writes ----------------------------------------------------------------------

COMPONENTS = (0, 1)  # Frontend, VllmWorker


def _spec(doc: Doc, i: int) -> Doc:
    template = doc["spec"]["components"][i].setdefault("podTemplate", {})
    return template.setdefault("spec", {})


def _meta(doc: Doc, i: int) -> Doc:
    return doc["spec"]["components"][i].setdefault("podTemplate", {}).setdefault("metadata", {})


def _main(doc: Doc, i: int) -> Doc:
    containers = _spec(doc, i)["containers"]
    return next(c for c in containers if c.get("name") == "main")


def _sidecar(doc: Doc, i: int, **fields: Any) -> Doc:
    container = {"name": "sidecar", "image": "busybox:1.36", **fields}
    _spec(doc, i)["containers"].append(container)
    return container


def _init(doc: Doc, i: int, **fields: Any) -> Doc:
    container = {"name": "setup", "image": "busybox:1.36", **fields}
    _spec(doc, i).setdefault("initContainers", []).append(container)
    return container


def _volume(doc: Doc, i: int, volume: Doc) -> None:
    _spec(doc, i).setdefault("volumes", []).append(volume)


def _mount(doc: Doc, i: int, mount: Doc) -> None:
    _main(doc, i).setdefault("volumeMounts", []).append(mount)


def _pick(rng: random.Random, values: list[Any] | tuple[Any, ...]) -> Any:
    return values[rng.randrange(len(values))]


def _component(rng: random.Random) -> int:
    return _pick(rng, COMPONENTS)


def pod_change(describe: str, change: Callable[[Doc, int], None]) -> Callable[[random.Random], tuple[str, Apply]]:
    """A template body that applies ``change`` to one component's pod template, chosen by ``rng``."""

    def make(rng: random.Random) -> tuple[str, Apply]:
        i = _component(rng)
        return f"components[{i}]: {describe}", lambda doc: change(doc, i)

    return make


def choice_change(describe: str, values: list[Any], change: Callable[[Doc, int, Any], None]
                  ) -> Callable[[random.Random], tuple[str, Apply]]:
    """A template whose value is one of ``values`` (the pool of this rule), on one component."""

    def make(rng: random.Random) -> tuple[str, Apply]:
        i, value = _component(rng), _pick(rng, values)
        return f"components[{i}]: {describe} = {value!r}", lambda doc: change(doc, i, value)

    return make


def graph_change(describe: str, values: list[Any], change: Callable[[Doc, Any], None]
                 ) -> Callable[[random.Random], tuple[str, Apply]]:
    def make(rng: random.Random) -> tuple[str, Apply]:
        value = _pick(rng, values)
        return f"{describe} = {value!r}" if values != [None] else describe, lambda doc: change(doc, value)

    return make


# --- the families ------------------------------------------------------------------------------------


def _set_limits(doc: Doc, i: int, limits: Doc, requests: Doc | None = None) -> None:
    resources = _main(doc, i).setdefault("resources", {})
    resources["limits"] = {**resources.get("limits", {}), **limits}
    if requests is not None:
        resources["requests"] = {**resources.get("requests", {}), **requests}


RESOURCES = [
    Template("resources", "gpu-whole-number", choice_change(
        "limits nvidia.com/gpu", ["0.5", "1.5", "500m", "2", "1"],
        lambda d, i, v: _set_limits(d, i, {"nvidia.com/gpu": v}))),
    Template("resources", "gpu-requests-equal-limits", choice_change(
        "requests nvidia.com/gpu (limit 1)", ["2", "1", "0"],
        lambda d, i, v: _set_limits(d, i, {"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": v}))),
    Template("resources", "extended-needs-limit", choice_change(
        "requests only", [{"nvidia.com/gpu": "1"}, {"example.com/widget": "2"}],
        lambda d, i, v: _main(d, i).update(resources={"requests": v}))),
    Template("resources", "requests-at-most-limits", choice_change(
        "cpu requests/limits", [("2", "1"), ("500m", "1"), ("1", "1"), ("1001m", "1")],
        lambda d, i, v: _set_limits(d, i, {"cpu": v[1]}, {"cpu": v[0]}))),
    Template("resources", "memory-requests-at-most-limits", choice_change(
        "memory requests/limits", [("2Gi", "1Gi"), ("1Gi", "2Gi"), ("1024Mi", "1Gi")],
        lambda d, i, v: _set_limits(d, i, {"memory": v[1]}, {"memory": v[0]}))),
    Template("resources", "non-negative", choice_change(
        "limits", [{"cpu": "-1"}, {"memory": "-1Gi"}, {"ephemeral-storage": "-5"}, {"cpu": "0"}],
        lambda d, i, v: _set_limits(d, i, v))),
    Template("resources", "quantity-syntax", choice_change(
        "limits cpu", ["1.5.5", "abc", "1Q", "2e3", "1.25"],
        lambda d, i, v: _set_limits(d, i, {"cpu": v}))),
    Template("resources", "resource-name", choice_change(
        "limits", [{"gpu": "1"}, {"example.com/widget": "1"}, {"Example.com/Widget": "1"}, {"example.com/a/b": "1"},
                   {"kubernetes.io/widget": "1"}],
        lambda d, i, v: _set_limits(d, i, v, dict(v)))),
    Template("resources", "extended-whole-number", choice_change(
        "example.com/widget limits=requests", ["1", "0.5", "100m"],
        lambda d, i, v: _set_limits(d, i, {"example.com/widget": v}, {"example.com/widget": v}))),
    Template("resources", "hugepages", choice_change(
        "resources", [{"limits": {"hugepages-2Mi": "1Gi"}},
                      {"limits": {"hugepages-2Mi": "1Gi", "memory": "2Gi"}, "requests": {"hugepages-2Mi": "1Gi"}},
                      {"limits": {"hugepages-2Mi": "1Gi", "memory": "2Gi"}, "requests": {"hugepages-2Mi": "512Mi"}}],
        lambda d, i, v: _main(d, i).update(resources=v))),
]


CONTAINERS = [
    Template("containers", "name-dns-label", choice_change(
        "sidecar name", ["Sidecar", "side_car", "s" * 64, "sidecar-2", "-x"],
        lambda d, i, v: _sidecar(d, i).update(name=v))),
    Template("containers", "name-unique", pod_change(
        "two sidecars named alike", lambda d, i: (_sidecar(d, i), _sidecar(d, i)))),
    Template("containers", "name-unique-with-init", pod_change(
        "an init container named like a sidecar", lambda d, i: (_sidecar(d, i), _init(d, i, name="sidecar")))),
    Template("containers", "image-required", choice_change(
        "sidecar image", ["", "   ", "busybox"],
        lambda d, i, v: _sidecar(d, i).update(image=v))),
    Template("containers", "termination-message-policy", choice_change(
        "main terminationMessagePolicy", ["Sometimes", "File", "FallbackToLogsOnError", "file"],
        lambda d, i, v: _main(d, i).update(terminationMessagePolicy=v))),
    Template("containers", "init-restart-policy", choice_change(
        "init container restartPolicy", ["Never", "OnFailure", "Always", "always"],
        lambda d, i, v: _init(d, i, restartPolicy=v))),
    Template("containers", "regular-restart-policy", choice_change(
        "sidecar restartPolicy", ["Always", "Never"],
        lambda d, i, v: _sidecar(d, i, restartPolicy=v))),
    Template("containers", "init-probes", choice_change(
        "init container probe", ["readinessProbe", "livenessProbe", "startupProbe"],
        lambda d, i, v: _init(d, i, **{v: {"exec": {"command": ["true"]}}}))),
    Template("containers", "native-sidecar-probes", pod_change(
        "restartable init container with a readiness probe",
        lambda d, i: _init(d, i, restartPolicy="Always", readinessProbe={"exec": {"command": ["true"]}}))),
    Template("containers", "lifecycle-handler", choice_change(
        "main lifecycle", [{"preStop": {}}, {"postStart": {"exec": {"command": ["true"]}}},
                           {"preStop": {"sleep": {"seconds": 5}}}, {"preStop": {"sleep": {"seconds": -1}}}],
        lambda d, i, v: _main(d, i).update(lifecycle=v))),
]


PORTS = [
    Template("ports", "port-name", choice_change(
        "sidecar port name", ["metrics-endpoint-x", "Metrics", "123", "m-1", "a--b", "http"],
        lambda d, i, v: _sidecar(d, i, ports=[{"name": v, "containerPort": 9400}]))),
    Template("ports", "port-number", choice_change(
        "sidecar containerPort", [0, 65536, -1, 9400],
        lambda d, i, v: _sidecar(d, i, ports=[{"containerPort": v}]))),
    Template("ports", "host-port-unique", choice_change(
        "two hostPorts", [(8080, 8080), (8080, 8081)],
        lambda d, i, v: _sidecar(d, i, ports=[{"containerPort": 1, "hostPort": v[0]},
                                              {"containerPort": 2, "hostPort": v[1]}]))),
    Template("ports", "protocol", choice_change(
        "sidecar port protocol", ["ICMP", "tcp", "UDP", "SCTP"],
        lambda d, i, v: _sidecar(d, i, ports=[{"containerPort": 9400, "protocol": v}]))),
    Template("ports", "port-name-unique", pod_change(
        "two ports named alike", lambda d, i: _sidecar(d, i, ports=[{"name": "m", "containerPort": 1},
                                                                    {"name": "m", "containerPort": 2}]))),
    Template("ports", "host-port-number", choice_change(
        "sidecar hostPort", [70000, -5, 8080],
        lambda d, i, v: _sidecar(d, i, ports=[{"containerPort": 9400, "hostPort": v}]))),
]


ENV = [
    Template("env", "name", choice_change(
        "env name", ["1BAD", "A=B", "", "my.var", "a b", "ÄB", "HF_TOKEN"],
        lambda d, i, v: _main(d, i).setdefault("env", []).append({"name": v, "value": "x"}))),
    Template("env", "value-from-one-source", choice_change(
        "env valueFrom", [
            {"fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}},
            {"secretKeyRef": {"name": "s", "key": "k"}},
            {}],
        lambda d, i, v: _main(d, i).setdefault("env", []).append({"name": "X", "valueFrom": v}))),
    Template("env", "value-and-value-from", pod_change(
        "env with value and valueFrom", lambda d, i: _main(d, i).setdefault("env", []).append(
            {"name": "X", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}))),
    Template("env", "field-path", choice_change(
        "env fieldRef.fieldPath", ["metadata.foo", "spec.nodeName", "status.podIP", "metadata.labels['app']",
                                   "metadata.annotations['a b']"],
        lambda d, i, v: _main(d, i).setdefault("env", []).append({"name": "X", "valueFrom": {"fieldRef": {"fieldPath": v}}}))),
    Template("env", "resource-field-ref", choice_change(
        "env resourceFieldRef", [{"resource": "limits.cpu"}, {"resource": "limits.widgets"},
                                 {"resource": "requests.memory", "divisor": "1Mi"}],
        lambda d, i, v: _main(d, i).setdefault("env", []).append({"name": "X", "valueFrom": {"resourceFieldRef": v}}))),
    Template("env", "env-from-prefix", choice_change(
        "envFrom prefix", ["A=", "1X_", "PRE_", "a b"],
        lambda d, i, v: _main(d, i).setdefault("envFrom", []).append({"prefix": v, "configMapRef": {"name": "c"}}))),
    Template("env", "env-from-source", choice_change(
        "envFrom entry", [{"configMapRef": {"name": "c"}, "secretRef": {"name": "s"}}, {"prefix": "P_"},
                          {"secretRef": {"name": "s"}}],
        lambda d, i, v: _main(d, i).setdefault("envFrom", []).append(v))),
    Template("env", "key-ref-syntax", choice_change(
        "secretKeyRef", [{"name": "s", "key": "bad key"}, {"name": "", "key": "k"}, {"name": "Bad_Name", "key": "k"},
                         {"name": "s", "key": "ok.key-1"}],
        lambda d, i, v: _main(d, i).setdefault("env", []).append({"name": "X", "valueFrom": {"secretKeyRef": v}}))),
]


VOLUMES = [
    Template("volumes", "mount-needs-volume", choice_change(
        "mount of volume", ["missing", "cache"],
        lambda d, i, v: (_volume(d, i, {"name": "cache", "emptyDir": {}}), _mount(d, i, {"name": v, "mountPath": "/c"})))),
    Template("volumes", "volume-name-unique", pod_change(
        "two volumes named alike", lambda d, i: (_volume(d, i, {"name": "v", "emptyDir": {}}),
                                                  _volume(d, i, {"name": "v", "emptyDir": {}})))),
    Template("volumes", "one-source", choice_change(
        "volume sources", [{"emptyDir": {}, "configMap": {"name": "c"}}, {}, {"configMap": {"name": "c"}}],
        lambda d, i, v: _volume(d, i, {"name": "v", **v}))),
    Template("volumes", "volume-name", choice_change(
        "volume name", ["Bad_Name", "v" * 64, "ok-name"],
        lambda d, i, v: _volume(d, i, {"name": v, "emptyDir": {}}))),
    Template("volumes", "mount-path", choice_change(
        "mountPath", ["", "/data", "/data/../etc"],
        lambda d, i, v: (_volume(d, i, {"name": "v", "emptyDir": {}}), _mount(d, i, {"name": "v", "mountPath": v})))),
    Template("volumes", "mount-path-unique", pod_change(
        "two mounts at one path", lambda d, i: (_volume(d, i, {"name": "v", "emptyDir": {}}),
                                                 _volume(d, i, {"name": "w", "emptyDir": {}}),
                                                 _mount(d, i, {"name": "v", "mountPath": "/d"}),
                                                 _mount(d, i, {"name": "w", "mountPath": "/d"})))),
    Template("volumes", "sub-path", choice_change(
        "subPath", ["/abs", "../up", "ok/sub"],
        lambda d, i, v: (_volume(d, i, {"name": "v", "emptyDir": {}}),
                         _mount(d, i, {"name": "v", "mountPath": "/d", "subPath": v})))),
    Template("volumes", "source-details", choice_change(
        "volume", [{"configMap": {"name": "c", "defaultMode": 999999}}, {"hostPath": {"path": ""}},
                   {"secret": {"secretName": "s", "items": [{"key": "k", "path": "../x"}]}},
                   {"persistentVolumeClaim": {"claimName": ""}}, {"emptyDir": {"sizeLimit": "1Gi"}}],
        lambda d, i, v: _volume(d, i, {"name": "v", **v}))),
]


def _probe(doc: Doc, i: int, probe: Doc, kind: str = "readinessProbe") -> None:
    _main(doc, i)[kind] = probe


PROBES = [
    Template("probes", "one-handler", choice_change(
        "readinessProbe", [{}, {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}},
                           {"periodSeconds": 5}, {"tcpSocket": {"port": 8000}}],
        lambda d, i, v: _probe(d, i, v))),
    Template("probes", "http-get-port", choice_change(
        "readinessProbe httpGet.port", [0, 70000, "http", "Bad_Port", "sixteen-chars-xx"],
        lambda d, i, v: _probe(d, i, {"httpGet": {"path": "/", "port": v}}))),
    Template("probes", "numbers", choice_change(
        "readinessProbe", [{"periodSeconds": -1}, {"timeoutSeconds": -2}, {"failureThreshold": -1},
                           {"initialDelaySeconds": -1}, {"periodSeconds": 3}],
        lambda d, i, v: _probe(d, i, {"exec": {"command": ["true"]}, **v}))),
    Template("probes", "liveness-success-threshold", choice_change(
        "probe successThreshold", [("livenessProbe", 2), ("startupProbe", 3), ("readinessProbe", 3),
                                   ("livenessProbe", 1)],
        lambda d, i, v: _probe(d, i, {"exec": {"command": ["true"]}, "successThreshold": v[1]}, v[0]))),
    Template("probes", "grpc-port", choice_change(
        "livenessProbe grpc.port", [0, 65536, 9000],
        lambda d, i, v: _probe(d, i, {"grpc": {"port": v}}, "livenessProbe"))),
    Template("probes", "exec-command", choice_change(
        "readinessProbe exec", [{}, {"command": []}, {"command": ["true"]}],
        lambda d, i, v: _probe(d, i, {"exec": v}))),
    Template("probes", "termination-grace", choice_change(
        "livenessProbe terminationGracePeriodSeconds", [0, -1, 10],
        lambda d, i, v: _probe(d, i, {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": v},
                               "livenessProbe"))),
    Template("probes", "http-get-scheme", choice_change(
        "readinessProbe httpGet.scheme", ["HTTPS", "https", "FTP"],
        lambda d, i, v: _probe(d, i, {"httpGet": {"path": "/", "port": 80, "scheme": v}}))),
]


ENUMS = [
    Template("enums", "image-pull-policy", choice_change(
        "main imagePullPolicy", ["Sometimes", "Always", "IfNotPresent", "never"],
        lambda d, i, v: _main(d, i).update(imagePullPolicy=v))),
    Template("enums", "pod-restart-policy", choice_change(
        "pod restartPolicy", ["Never", "OnFailure", "Always", "Sometimes"],
        lambda d, i, v: _spec(d, i).update(restartPolicy=v))),
    Template("enums", "dns-policy", choice_change(
        "dnsPolicy", ["Bogus", "None", "Default", "ClusterFirstWithHostNet"],
        lambda d, i, v: _spec(d, i).update(dnsPolicy=v))),
    Template("enums", "toleration", choice_change(
        "toleration", [{"key": "k", "operator": "In", "value": "v"}, {"key": "k", "effect": "NoWhere"},
                       {"key": "k", "operator": "Exists", "value": "v"}, {"operator": "Equal", "value": "v"},
                       {"key": "k", "effect": "NoSchedule", "tolerationSeconds": 5},
                       {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                       {"key": "bad key", "operator": "Exists"}],
        lambda d, i, v: _spec(d, i).setdefault("tolerations", []).append(v))),
    Template("enums", "preemption-policy", choice_change(
        "preemptionPolicy", ["Never", "PreemptLowerPriority", "Sometimes"],
        lambda d, i, v: _spec(d, i).update(preemptionPolicy=v))),
]


def _affinity(doc: Doc, i: int, affinity: Doc) -> None:
    _spec(doc, i)["affinity"] = affinity


def _node_terms(*terms: Doc) -> Doc:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


SELECTORS = [
    Template("selectors", "node-selector", choice_change(
        "nodeSelector", [{"bad key": "v"}, {"k": "v" * 64}, {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
                         {"k": "bad value!"}, {"": "v"}],
        lambda d, i, v: _spec(d, i).update(nodeSelector=v))),
    Template("selectors", "node-selector-requirement", choice_change(
        "node affinity expression", [
            {"key": "k", "operator": "Equals", "values": ["v"]}, {"key": "k", "operator": "In", "values": []},
            {"key": "k", "operator": "Exists", "values": ["v"]}, {"key": "k", "operator": "Gt", "values": ["x"]},
            {"key": "k", "operator": "Gt", "values": ["1", "2"]}, {"key": "k", "operator": "In", "values": ["a"]},
            {"key": "bad key", "operator": "Exists"}],
        lambda d, i, v: _affinity(d, i, _node_terms({"matchExpressions": [v]})))),
    Template("selectors", "node-selector-terms", choice_change(
        "nodeSelectorTerms", [[], [{}], [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}],
                              [{"matchFields": [{"key": "spec.nodeName", "operator": "In", "values": ["n"]}]}]],
        lambda d, i, v: _affinity(d, i, _node_terms(*v)))),
    Template("selectors", "preferred-terms", choice_change(
        "preferred node term weight", [0, 101, 50],
        lambda d, i, v: _affinity(d, i, {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": v, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}}))),
    Template("selectors", "pod-affinity-term", choice_change(
        "podAntiAffinity term", [
            {"topologyKey": "", "labelSelector": {"matchLabels": {"a": "b"}}},
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"bad key": "b"}}},
            {"topologyKey": "kubernetes.io/hostname",
             "labelSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"a": "b"}}},
            {"topologyKey": "bad key!", "labelSelector": {"matchLabels": {"a": "b"}}}],
        lambda d, i, v: _affinity(d, i, {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [v]}}))),
    Template("selectors", "topology-spread", choice_change(
        "topologySpreadConstraint", [
            {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Sometimes"},
            {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}],
        lambda d, i, v: _spec(d, i).setdefault("topologySpreadConstraints", []).append(v))),
]


POD = [
    Template("pod", "termination-grace-period", choice_change(
        "terminationGracePeriodSeconds", [-1, 0, 30],
        lambda d, i, v: _spec(d, i).update(terminationGracePeriodSeconds=v))),
    Template("pod", "active-deadline", choice_change(
        "activeDeadlineSeconds", [0, -5, 600],
        lambda d, i, v: _spec(d, i).update(activeDeadlineSeconds=v))),
    Template("pod", "host-network-ports", choice_change(
        "hostNetwork with a port", [(9400, 9400), (9400, 9401)],
        lambda d, i, v: (_spec(d, i).update(hostNetwork=True),
                         _sidecar(d, i, ports=[{"containerPort": v[0], "hostPort": v[1]}])))),
    Template("pod", "dns-config", choice_change(
        "dnsConfig", [{"nameservers": ["not-an-ip"]}, {"nameservers": ["1.1.1.1"]},
                      {"options": [{"name": ""}]}, {"searches": ["a" * 254]}],
        lambda d, i, v: _spec(d, i).update(dnsConfig=v))),
    Template("pod", "dns-none", choice_change(
        "dnsPolicy None with dnsConfig", [None, {"searches": ["svc.cluster.local"]}, {"nameservers": ["10.0.0.10"]}],
        lambda d, i, v: _spec(d, i).update({"dnsPolicy": "None", **({"dnsConfig": v} if v is not None else {})}))),
    Template("pod", "host-aliases", choice_change(
        "hostAliases", [[{"ip": "bad", "hostnames": ["h"]}], [{"ip": "10.0.0.1", "hostnames": ["h"]}],
                        [{"ip": "10.0.0.1", "hostnames": ["Bad_Host"]}]],
        lambda d, i, v: _spec(d, i).update(hostAliases=v))),
    Template("pod", "security-context", choice_change(
        "securityContext", [{"runAsUser": -1}, {"fsGroupChangePolicy": "Sometimes"}, {"runAsNonRoot": True},
                            {"sysctls": [{"name": "bad name", "value": "1"}]}],
        lambda d, i, v: _spec(d, i).update(securityContext=v))),
    Template("pod", "scheduling", choice_change(
        "pod field", [{"schedulerName": "Bad Name"}, {"priorityClassName": "Bad_Name"},
                      {"serviceAccountName": "Bad_SA"}, {"hostname": "Bad_Host"}, {"subdomain": "ok-sub"},
                      {"nodeName": "Node_1"}, {"preemptionPolicy": ""}],
        lambda d, i, v: _spec(d, i).update(v))),
]


def _labels(doc: Doc, i: int, labels: Doc) -> None:
    _meta(doc, i).setdefault("labels", {}).update(labels)


METADATA = [
    Template("metadata", "pod-label-key", choice_change(
        "pod template label", [{"bad key": "v"}, {"a/b/c": "v"}, {"x" * 64: "v"}, {"example.com/ok": "v"}],
        _labels)),
    Template("metadata", "pod-label-value", choice_change(
        "pod template label value", ["v" * 64, "bad value", "-v", "ok.value_1"],
        lambda d, i, v: _labels(d, i, {"team": v}))),
    Template("metadata", "pod-annotation-key", choice_change(
        "pod template annotation", [{"bad key": "v"}, {"example.com/ok": "any value at all"}, {"/x": "v"}],
        lambda d, i, v: _meta(d, i).setdefault("annotations", {}).update(v))),
    Template("metadata", "annotation-size", choice_change(
        "pod template annotation bytes", [300_000, 100_000],
        lambda d, i, v: _meta(d, i).setdefault("annotations", {}).update({"example.com/blob": "x" * v}))),
    Template("metadata", "graph-name", graph_change(
        "metadata.name", ["Vllm-Agg", "vllm.agg", "v" * 64, "vllm-agg-2", "a" * 40],
        lambda d, v: d["metadata"].update(name=v))),
    Template("metadata", "graph-labels", graph_change(
        "graph label", [{"bad key": "v"}, {"team": "v" * 64}, {"team": "inference"}],
        lambda d, v: d["metadata"].setdefault("labels", {}).update(v))),
    Template("metadata", "graph-annotations", graph_change(
        "graph annotation", [{"bad key": "v"}, {"example.com/owner": "me"}],
        lambda d, v: d["metadata"].setdefault("annotations", {}).update(v))),
]


STRICT = [
    Template("strict-fields", "unknown-pod-field", choice_change(
        "unknown field", [("container", "imagePullPolcy"), ("spec", "nodeSelectr"), ("metadata", "lables"),
                          ("container", "resource")],
        lambda d, i, v: {"container": _main(d, i), "spec": _spec(d, i), "metadata": _meta(d, i)}[v[0]].update(
            {v[1]: {} if v[1] != "imagePullPolcy" else "Always"}))),
    Template("strict-fields", "wrong-type", choice_change(
        "type", [("replicas", "two"), ("containerPort", "80x"), ("env", "X=1")],
        lambda d, i, v: _wrong_type(d, i, *v))),
]


def _wrong_type(doc: Doc, i: int, what: str, value: Any) -> None:
    if what == "replicas":
        doc["spec"]["components"][i]["replicas"] = value
    elif what == "containerPort":
        _sidecar(doc, i, ports=[{"containerPort": value}])
    else:
        _main(doc, i)["env"] = value


def _components(doc: Doc) -> list[Doc]:
    components: list[Doc] = doc["spec"]["components"]
    return components


CEL = [
    Template("cel", "epp-config-only-on-epp", graph_change(
        "eppConfig on the worker", [None],
        lambda d, _: _components(d)[1].update(eppConfig={"config": {"a": 1}})), OPERATOR_ONLY),
    Template("cel", "epp-config-exactly-one", graph_change(
        "epp eppConfig", [{}, {"config": {"a": 1}, "configMapRef": {"name": "c", "key": "k"}}],
        lambda d, v: _components(d).append({"name": "Epp", "type": "epp", "eppConfig": v, "podTemplate": {
            "spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"}]}}})),
        OPERATOR_ONLY),
    Template("cel", "epp-config-schema", graph_change(
        "epp eppConfig.config", [{"plugins": [{"type": "queue-scorer"}]},
                                 {"plugins": [{"type": "queue-scorer"}],
                                  "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "queue-scorer"}]}]},
                                 {"plugins": [{"name": "no-type"}], "schedulingProfiles": []}],
        lambda d, v: _components(d).append({"name": "Epp", "type": "epp", "eppConfig": {"config": v}, "podTemplate": {
            "spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"}]}}})),
        OPERATOR_ONLY),
    Template("cel", "one-epp", graph_change(
        "two epp components", [None],
        lambda d, _: _components(d).extend({"name": n, "type": "epp", "podTemplate": {"spec": {"containers": [
            {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0"}]}}} for n in ("EppA", "EppB"))),
        OPERATOR_ONLY),
    Template("cel", "names-unique-case-insensitively", graph_change(
        "component renamed", ["frontend", "VLLMWORKER", "Frontend2"],
        lambda d, v: _components(d)[1].update(name=v)), OPERATOR_ONLY),
    Template("cel", "min-available", graph_change(
        "worker replicas/minAvailable", [(2, 3), (0, 3), (2, 2)],
        lambda d, v: _components(d)[1].update(replicas=v[0], minAvailable=v[1])), OPERATOR_ONLY),
    Template("cel", "sidecar-image", graph_change(
        "sidecar without image", [None],
        lambda d, _: _spec(d, 1)["containers"].append({"name": "sidecar"})), OPERATOR_ONLY),
    Template("cel", "init-container-image", graph_change(
        "init container image", [None, ""],
        lambda d, v: _spec(d, 1).setdefault("initContainers", []).append(
            {"name": "setup"} if v is None else {"name": "setup", "image": v})), OPERATOR_ONLY),
    Template("cel", "backend-annotation", graph_change(
        "vllm backend annotation", ["bogus", "RAY", "mp"],
        lambda d, v: _meta(d, 1).setdefault("annotations", {}).update(
            {"nvidia.com/vllm-distributed-executor-backend": v})), OPERATOR_ONLY),
    Template("cel", "restart-on-create", graph_change(
        "spec.restart", [{"id": "r1"}],
        lambda d, v: d["spec"].update(restart=v)), OPERATOR_ONLY),
    Template("cel", "kv-transfer-policy", graph_change(
        "experimental.kvTransferPolicy", [
            {"domain": "zone", "labelKey": "topology.kubernetes.io/zone", "clusterTopologyName": "t"},
            {"domain": "zone"},
            {"domain": "zone", "labelKey": "topology.kubernetes.io/zone", "enforcement": "preferred"},
            {"domain": "zone", "labelKey": "topology.kubernetes.io/zone", "preferredWeight": 0.5},
            {"domain": "zone", "labelKey": "topology.kubernetes.io/zone", "enforcement": "preferred",
             "preferredWeight": 0.5},
            {"domain": "zone", "labelKey": "a" * 254 + "/zone"}],
        lambda d, v: d["spec"].setdefault("experimental", {}).update(kvTransferPolicy=v)), OPERATOR_ONLY),
    Template("cel", "gms-client-mode", graph_change(
        "gpuMemoryService", [{"mode": "InterPod", "extraClientContainers": ["main"]},
                             {"mode": "IntraPod", "extraClientPods": [{"name": "p"}]}],
        lambda d, v: _components(d)[1].setdefault("experimental", {}).update(gpuMemoryService=v)), OPERATOR_ONLY),
    Template("cel", "schema-bounds", graph_change(
        "worker field", [("replicas", -1), ("type", "gateway"), ("replicas", 3), ("type", "lpx")],
        lambda d, v: _components(d)[1].update({v[0]: v[1]})), OPERATOR_ONLY),
]

TEMPLATES: tuple[Template, ...] = (*RESOURCES, *CONTAINERS, *PORTS, *ENV, *VOLUMES, *PROBES, *ENUMS,
                                   *SELECTORS, *POD, *METADATA, *STRICT, *CEL)
FAMILIES = tuple(dict.fromkeys(t.family for t in TEMPLATES))


def mutations(count: int, seed: int = SEED) -> Iterator[Mutation]:
    """``count`` mutations: templates round-robin, parameters from ``random.Random(seed)``."""
    rng = random.Random(seed)
    for index in range(count):
        template = TEMPLATES[index % len(TEMPLATES)]
        description, apply = template.make(rng)
        yield Mutation(index, template.family, template.rule, description, template.modes, apply)
