// Command pulumi-resource-kubernetes serves the pinned Pulumi Kubernetes provider.
//
// The upstream command embeds schema-embed.json and terraform-mapping-embed.json, which its
// `go generate` step derives from the committed schema.json (stamping the version) and which
// the module zip therefore does not carry. scripts/tools.sh derives them the same way into a
// copy of this module before `go build`, so this file only wires the embeds to the provider.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var schema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, schema, terraformMapping)
}
