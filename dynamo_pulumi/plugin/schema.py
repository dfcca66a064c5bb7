"""The ``dynamo`` package schema, generated from the code that serves it.

Property names come from the code (the readiness provider's ``INPUTS``/``OUTPUTS``, the
component output tables of :mod:`.components`), so the schema cannot list a property the plugin
does not read. ``schema.json`` at the repository root is this function's output, kept in step by
a test; regenerate it with ``python -m dynamo_pulumi.plugin.schema > schema.json``. Codegen
(``pulumi package add``) reads it to make the TypeScript, Go, C# and Python SDKs.
"""

from __future__ import annotations

import json
from typing import Any, Final

from dynamo_pulumi.cluster.provider import INPUTS, OUTPUTS
from dynamo_pulumi.plugin.tokens import DCD_OUTPUTS, DCD_TYPE, DGD_OUTPUTS, DGD_TYPE, PACKAGE, READINESS_TYPE

#: The Go SDK's import path and module (``pulumi package gen-sdk --language go`` writes the module to
#: ``<out>/go``, the package to ``<out>/go/dynamo``; a program points the module at it with
#: ``go mod edit -replace``: README, "From TypeScript, Go, C# or YAML").
GO_MODULE: Final = "github.com/dynamo-pulumi/dynamo-pulumi/sdks/go"
GO_IMPORT: Final = f"{GO_MODULE}/dynamo"
ANY: Final = {"$ref": "pulumi.json#/Any"}
STRING: Final = {"type": "string"}
INTEGER: Final = {"type": "integer"}
BOOLEAN: Final = {"type": "boolean"}
STRINGS: Final = {"type": "array", "items": STRING}
OBJECT: Final = {"type": "object", "additionalProperties": ANY}
OBJECTS: Final = {"type": "array", "items": OBJECT}

#: Type and description of every GraphReadiness property (inputs and outputs).
READINESS_PROPERTIES: Final[dict[str, tuple[dict[str, Any], str]]] = {
    "mode": (STRING, '"render" (watch the rendered workloads) or "operator" (watch the DGD/DCD itself).'),
    "kind": (STRING, "DynamoGraphDeployment or DynamoComponentDeployment."),
    "graph": (STRING, "The graph's name."),
    "namespace": (STRING, "The graph's Kubernetes namespace."),
    "targets": (OBJECTS, "The objects whose status decides readiness: {api_version, kind, namespace, name, component, group}."),
    "revision": (STRING, "Digest of what is deployed; a change waits again."),
    "pod_selector": (STRING, "Label selector of the graph's pods (their problems explain a wait)."),
    "timeout_seconds": (INTEGER, "Deadline of one wait, in seconds (at most 604800: 7 days); the resource's customTimeouts, when shorter, wins."),
    "wait": (BOOLEAN, "False: never wait and never read the cluster."),
    "kubeconfig": (ANY, "Kubeconfig contents, path or parsed document (secret); default: the provider's."),
    "context": (STRING, "Kubeconfig context; default: the provider's."),
    "expansion": (OBJECTS, "Operator mode: the predicted objects, {apiVersion, kind, name, digest}."),
    "predicted": (OBJECTS, "Operator mode: the full predicted objects (drift check)."),
    "state": (STRING, "The graph's state as the operator would write it (successful, pending, failed)."),
    "ready": (OBJECT, "The Ready condition."),
    "components": ({"type": "object", "additionalProperties": OBJECT}, "Per component: kind, names and replica counts."),
    "drift": (OBJECTS, "Operator mode: where the operator's objects differ from the prediction."),
}
REQUIRED_INPUTS: Final = ["graph", "namespace", "targets", "revision"]

COMPONENT_INPUTS: Final[dict[str, tuple[dict[str, Any], str]]] = {
    "spec": (ANY, "The DynamoGraphDeployment/DynamoComponentDeployment: an object (whole or bare spec), a YAML file path, or YAML text."),
    "platform": (ANY, "Operator configuration and cluster facts: an object, a YAML file path, or YAML text."),
    "namespace": (STRING, "Kubernetes namespace (default: the spec's, else \"default\")."),
    "mode": (STRING, '"render" (default: create the rendered objects) or "operator" (create the custom resource).'),
    "adopt": (BOOLEAN, "Operator mode: import an existing custom resource."),
    "placement": ({"$ref": "#/types/dynamo:index:GpuPlacement"}, "Put GPU components on a GPU node pool."),
    "readiness": ({"$ref": "#/types/dynamo:index:ReadinessOptions"}, "Whether and how long `pulumi up` waits."),
}
OUTPUT_TYPES: Final[dict[str, dict[str, Any]]] = {
    "dynamoNamespace": STRING, "frontendUrl": STRING, "totalGpus": INTEGER, "components": OBJECT,
    "expansion": OBJECTS, "workloadKind": STRING, "workloadNames": STRINGS, "serviceName": STRING,
    "replicas": INTEGER, "gpus": INTEGER, "state": STRING,
}


def _props(table: dict[str, tuple[dict[str, Any], str]], names: Any) -> dict[str, Any]:
    return {name: {**table[name][0], "description": table[name][1]} for name in names}


def _readiness() -> dict[str, Any]:
    outputs = [*INPUTS, *OUTPUTS]
    return {
        "description": "Waits, during `pulumi up`, until a Dynamo graph serves (the readiness of the components).",
        "inputProperties": _props(READINESS_PROPERTIES, INPUTS),
        "requiredInputs": REQUIRED_INPUTS,
        "properties": _props(READINESS_PROPERTIES, outputs),
        "required": [*REQUIRED_INPUTS, *OUTPUTS],
    }


def _component(description: str, outputs: dict[str, str]) -> dict[str, Any]:
    names = [*outputs, "state"]
    return {
        "isComponent": True,
        "description": description,
        "inputProperties": _props(COMPONENT_INPUTS, COMPONENT_INPUTS),
        "requiredInputs": ["spec"],
        "properties": {name: dict(OUTPUT_TYPES[name]) for name in names},
        "required": [n for n in names if n not in ("frontendUrl", "serviceName")],
    }


def _types() -> dict[str, Any]:
    return {
        "dynamo:index:GpuPlacement": {"type": "object", "properties": {
            "nodeSelector": {"type": "object", "additionalProperties": STRING},
            "tolerations": OBJECTS,
            "gpuResourceName": {**STRING, "description": "The pool's GPU resource (default nvidia.com/gpu)."},
            "components": {**STRINGS, "description": "Components to place (default: the GPU components)."},
        }},
        "dynamo:index:ReadinessOptions": {"type": "object", "properties": {
            "wait": BOOLEAN,
            "timeout": {**ANY, "description": 'Seconds or a Go duration ("45m"); default 60 minutes.'},
            "kubeconfig": {**ANY, "secret": True},
            "context": STRING,
        }},
    }


def package_schema(version: str = "0.1.0") -> dict[str, Any]:
    """The package schema the plugin answers ``GetSchema`` with."""
    return {
        "name": PACKAGE,
        "displayName": "NVIDIA Dynamo",
        "version": version,
        "description": "NVIDIA Dynamo inference graphs, expanded as the Dynamo operator would, from any Pulumi language.",
        "keywords": ["pulumi", "kubernetes", "nvidia", "dynamo", "kind/component"],
        "license": "Apache-2.0",
        "config": {"variables": {
            "kubeconfig": {**ANY, "description": "Kubeconfig contents, path or parsed document.", "secret": True},
            "context": {**STRING, "description": "Kubeconfig context."},
        }},
        "provider": {
            "description": "The dynamo provider: where the cluster the graphs wait on is.",
            "inputProperties": {"kubeconfig": {**ANY, "secret": True}, "context": STRING},
        },
        "resources": {
            DGD_TYPE: _component("A whole Dynamo inference graph, expanded into what the operator would create.", DGD_OUTPUTS),
            DCD_TYPE: _component("One Dynamo component: its workload and Services.", DCD_OUTPUTS),
            READINESS_TYPE: _readiness(),
        },
        "types": _types(),
        # respectSchemaVersion: the generated Node.js SDK names this version in its package.json and
        # asks the engine for this plugin version; without it, `pulumi package gen-sdk` (outside
        # `package add`) writes the placeholder "${VERSION}" and every resource fails "No Major.Minor.Patch".
        "language": {
            "go": {"importBasePath": GO_IMPORT, "modulePath": GO_MODULE, "generateResourceContainerTypes": True},
            "nodejs": {"packageName": "@pulumi/dynamo", "respectSchemaVersion": True},
        },
    }


def schema_text(version: str = "0.1.0") -> str:
    """``schema.json``'s exact text (sorted keys: a change in the code is a readable diff)."""
    return json.dumps(package_schema(version), indent=2, sort_keys=True) + "\n"


def main() -> None:
    print(schema_text(), end="")


if __name__ == "__main__":
    main()
