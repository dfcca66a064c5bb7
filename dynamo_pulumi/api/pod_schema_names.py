"""The names of the core/v1 schema the CRDs embed: its Kubernetes version, the definitions the
checks start from, the CRD's quantity pattern.

Its own module so that :mod:`dynamo_pulumi.api.pod_schema`, which every ``validate`` runs, reads
them without importing :mod:`dynamo_pulumi.api.pod_schema_build` (the derivation, which only a
regeneration and its test run).
"""

from __future__ import annotations

#: The kubernetes-validate schema folder (non-strict: unknown fields are allowed).
KUBERNETES_SCHEMA_VERSION = "v1.36.0"
POD_TEMPLATE_SPEC = "io.k8s.api.core.v1.PodTemplateSpec"
POD_SPEC = "io.k8s.api.core.v1.PodSpec"
CONTAINER = "io.k8s.api.core.v1.Container"
PROBE = "io.k8s.api.core.v1.Probe"
ENV_VAR = "io.k8s.api.core.v1.EnvVar"
RESOURCE_CLAIM = "io.k8s.api.core.v1.ResourceClaim"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
#: Every definition the checks start from; the shipped table holds only what they reach.
ROOTS = (POD_TEMPLATE_SPEC, POD_SPEC, CONTAINER, PROBE, ENV_VAR, RESOURCE_CLAIM)
#: The ObjectMeta fields the CRD keeps in an embedded template's metadata.
KEPT_METADATA = ("name", "namespace", "labels", "annotations", "finalizers")
#: The CRD's pattern for resource.Quantity strings (``x-kubernetes-int-or-string`` + pattern).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
