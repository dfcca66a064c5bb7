"""Plausible placeholder outputs for the cloud resources a Dynamo program usually builds on.

Under plain mocks a resource's outputs are its inputs; the values a cloud assigns (an ARN, a
cluster endpoint, the node group a remote EKS component creates, a kubeconfig) are missing, so
everything computed from them is unknown and a program that reads one (``gpu_group.node_group.labels``)
sees nothing. :class:`CloudMocks` fills the usual ones with obviously fake but well-formed
values (account ``123456789012``, documentation IP ranges), so ``dynamo-pulumi preview PROGRAM``
shows the whole program with its Dynamo objects placed as they would be.

Resource types not listed keep the plain behaviour (inputs echoed, ``<name>-id``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dynamo_pulumi.mocks import DynamoMocks

ACCOUNT = "123456789012"
REGION = "us-west-2"
ENDPOINT = "203.0.113.10"  # TEST-NET-3 (RFC 5737): never a real address
CERTIFICATE = "TU9DSy1DRVJUSUZJQ0FURQ=="  # base64 "MOCK-CERTIFICATE"


def kubeconfig(name: str) -> dict[str, Any]:
    """A kubeconfig naming a cluster that does not exist (nothing offline connects to it)."""
    return {
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": {"server": f"https://{ENDPOINT}", "certificate-authority-data": CERTIFICATE}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "users": [{"name": name, "user": {}}],
    }


def _arn(type_: str, name: str) -> str:
    """``aws:iam/role:Role`` -> ``arn:aws:iam::123456789012:role/<name>`` (IAM has no region)."""
    service, _, resource = type_.split(":")[1].partition("/")
    region = "" if service == "iam" else REGION
    return f"arn:aws:{service}:{region}:{ACCOUNT}:{resource.lower()}/{name}"


class CloudMocks(DynamoMocks):
    """:class:`DynamoMocks` plus placeholder outputs for AWS, EKS and GKE resources."""

    def __init__(self, project: str = "dynamo", stack: str = "dev") -> None:
        super().__init__()
        self.project, self.stack = project, stack
        self._by_type: dict[str, Callable[[Any], tuple[str | None, dict[str, Any]]]] = {
            "eks:index:Cluster": self._eks_cluster,
            "eks:index:ManagedNodeGroup": self._eks_node_group,
            "gcp:container/cluster:Cluster": self._gke_cluster,
        }

    def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        handler = self._by_type.get(args.typ)
        if handler is not None:
            return handler(args)
        resource_id, state = super().new_resource(args)
        if args.custom and args.typ.startswith("aws:"):
            name = state.get("name") or args.name
            state = {"name": name, "arn": _arn(args.typ, name), **state}
        elif args.custom and args.typ.startswith("gcp:"):
            state = {"name": args.name, **state}
        return resource_id, state

    def _urn(self, type_: str, name: str) -> str:
        return f"urn:pulumi:{self.stack}::{self.project}::{type_}::{name}"

    def _eks_cluster(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        config = kubeconfig(args.name)
        return None, {"kubeconfig": config, "kubeconfigJson": json.dumps(config)}

    def _eks_node_group(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        """A remote component: returns a reference to the ``aws.eks.NodeGroup`` it creates, with
        the labels, taints and scaling it was given."""
        state = {key: args.inputs.get(key) for key in ("labels", "taints", "scalingConfig", "instanceTypes")}
        state["nodeGroupName"] = args.name
        urn = self._urn("eks:index:ManagedNodeGroup$aws:eks/nodeGroup:NodeGroup", args.name)
        return None, {"nodeGroup": self.resource_reference(urn, f"{args.name}-id", state)}

    def _gke_cluster(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        state = {"name": args.name, **args.inputs, "endpoint": ENDPOINT,
                 "masterAuth": {"clusterCaCertificate": CERTIFICATE}}
        return f"{args.name}-id", state
