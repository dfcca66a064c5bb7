"""``api/v1alpha1/dynamographdeployment_conversion_test.go`` and
``dynamographdeployment_conversion_bugs_test.go`` as an oracle for our v1alpha1 -> v1beta1
conversion (``ConvertTo``) and the ``nvidia.com/dgd-spec`` payload it writes.

We convert one way only: a user's v1alpha1 object into the v1beta1 hub the webhook and the
renderer judge. The Go tests' ``ConvertFrom`` half (v1beta1 hub -> v1alpha1 spoke, which the API
server runs to serve an object back in v1alpha1) has no counterpart here, so what they assert is
checked on the ``ConvertTo`` side: the hub and the sparse payload that makes the round trip
possible. Not applicable (``ConvertFrom``-only, or the status conversion, which we never write):
``TestIsDynamoGraphDeploymentConversionAnnotation``, ``TestDGD_RoundTrip_*`` from a v1beta1
source, ``TestDGD_Intermediate*``, ``TestDGD_FromExistingHubStatus*``, ``TestDGD_*Status*``,
``TestDGD_ApplyIdempotence_*``, ``TestDGD_JSONRoundTrip_Bytes``, ``TestDGD_ConvertFrom_*``,
``TestBugDGD_IntermediateHubAddsMainOnlyPodTemplateRoundTrips``,
``TestBugDGD_BetaPrefillDecodeConvertFromUsesAlphaSubComponentType``. Not yet translated (time):
the remaining ``TestDGD_FromV1alpha1_*`` cases.
"""

from __future__ import annotations

import json
from typing import Any

from dynamo_pulumi.api import v1alpha1 as alpha
from dynamo_pulumi.api.conversion import convert

DGD_SPEC = "nvidia.com/dgd-spec"


def _alpha(services: dict[str, Any], **spec: Any) -> alpha.DynamoGraphDeployment:
    return alpha.DynamoGraphDeployment.model_validate({
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ns"}, "spec": {**spec, "services": services}})


def _payload(src: alpha.DynamoGraphDeployment) -> dict[str, Any]:
    annotations = convert(src).object.metadata.annotations or {}
    assert DGD_SPEC in annotations, annotations
    return json.loads(annotations[DGD_SPEC])["spec"]  # type: ignore[no-any-return]


def test_spoke_save_carries_nil_services_sparsely() -> None:
    """TestDGD_SpokeSaveCarriesNilServicesSparsely: a null service is no component, but the
    payload keeps it (and only it) so the operator restores the null entry."""
    src = _alpha({"nil-service": None, "worker": {"componentType": "worker"}})
    hub = convert(src).object
    assert [c.name for c in hub.components] == ["worker"]
    assert _payload(src) == {"services": {"nil-service": None}}


def test_spoke_save_carries_alpha_only_fields_sparsely() -> None:
    """TestDGD_SpokeSaveCarriesAlphaOnlyFieldsSparsely: PVCs and a service's autoscaling (no v1beta1
    field) are in the payload, nothing else of the service."""
    pvc = {"create": True, "name": "models", "storageClass": "standard", "size": "10Gi",
           "volumeAccessMode": "ReadWriteOnce"}
    src = _alpha({"worker": {"componentType": "worker",
                             "autoscaling": {"enabled": True, "minReplicas": 1, "maxReplicas": 4}}}, pvcs=[pvc])
    saved = _payload(src)
    assert saved["pvcs"] == [pvc]
    assert saved["services"] == {"worker": {"autoscaling": {"enabled": True, "minReplicas": 1, "maxReplicas": 4}}}


def test_sub_component_type_survives_conversion() -> None:
    """TestDGD_FromV1alpha1_SubComponentType: a custom subComponentType is kept for the way back."""
    src = _alpha({"worker": {"componentType": "worker", "subComponentType": "custom-prefill"}})
    assert _payload(src) == {"services": {"worker": {"subComponentType": "custom-prefill"}}}
    assert convert(src).object.components[0].type == "worker"


def test_nil_service_beside_a_service_with_saved_fields() -> None:
    """TestDGD_SpokeSaveCarriesNilServicesSparsely's payload merged with another service's save."""
    src = _alpha({"ghost": None, "worker": {"componentType": "worker", "dynamoNamespace": "legacy"}})
    assert _payload(src) == {"services": {"ghost": None, "worker": {"dynamoNamespace": "legacy"}}}


NIL_SERVICE_FILE = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: nil-service-save, namespace: ns}
spec:
  services:
    nil-service: null
    worker:
      componentType: worker
      extraPodSpec: {mainContainer: {image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1, command: [python3, -m, dynamo.vllm]}}
"""


def test_nil_service_of_a_file_reaches_the_payload_operator_mode_sends() -> None:
    """TestDGD_SpokeSaveCarriesNilServicesSparsely through loading and operator mode: a null
    entry written in the file is converted as the webhook's ConvertTo sees it, and the custom
    resource we apply carries ``{"services": {"nil-service": null}}`` (it used to be pruned before
    conversion, so nothing was sent)."""
    from dynamo_pulumi.planning.operator_mode import custom_resource_document
    from dynamo_pulumi.planning.plan import plan_graph

    plan = plan_graph(NIL_SERVICE_FILE, mode="operator")
    assert [c.name for c in plan.graph.components] == ["worker"]
    sent = custom_resource_document(plan)
    assert sent["apiVersion"] == "nvidia.com/v1beta1"
    assert json.loads(sent["metadata"]["annotations"][DGD_SPEC])["spec"] == {"services": {"nil-service": None}}
