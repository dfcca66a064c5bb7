// Pins the CRDs of kinds the operator renders that neither the Dynamo chart nor Kubernetes
// serves: the Gateway API Inference Extension's InferencePool (v1.2.0, the version the
// operator's go.mod requires) and Istio's VirtualService and DestinationRule (istio.io/api
// v1.23.1, likewise). No program is built: scripts/tools.sh copies the CRD manifests into
// share/crds/ so the local cluster serves these kinds and a dry run can judge them.
module dynamo-pulumi.invalid/tools/crds

go 1.26.0

require (
	istio.io/api v1.23.1
	sigs.k8s.io/gateway-api-inference-extension v1.2.0
)
