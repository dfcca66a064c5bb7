"""DRA-only graphs shared by the DRA tests: one worker whose main container asks for GPUs only
through a pod ResourceClaim of a ResourceClaimTemplate (no scalar ``nvidia.com/gpu``)."""

from __future__ import annotations


def claim_template(name: str = "one-gpu", gpus: int = 1, namespace: str = "default") -> str:
    """A ResourceClaimTemplate of ``gpus`` devices of the NVIDIA DRA driver's DeviceClass."""
    return f"""
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: gpu.nvidia.com, allocationMode: ExactCount, count: {gpus}}}
"""


ONE_GPU = claim_template()


def dra_graph(framework: str, args: list[str], annotations: str = "{}", template: str = "one-gpu",
              nodes: int = 2) -> str:
    """Graph ``dra-test`` with component ``agg`` (multinode on ``nodes`` > 1) claiming ``template``."""
    multinode = f"    multinode: {{nodeCount: {nodes}}}\n" if nodes > 1 else ""
    return f"""
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {{name: dra-test, namespace: default, annotations: {annotations}}}
spec:
  backendFramework: {framework}
  components:
  - name: agg
    type: worker
{multinode}    podTemplate:
      spec:
        resourceClaims: [{{name: gpu, resourceClaimTemplateName: {template}}}]
        containers:
        - name: main
          image: test:1.0.0
          command: [python3]
          args: {args}
          resources: {{claims: [{{name: gpu}}]}}
"""
