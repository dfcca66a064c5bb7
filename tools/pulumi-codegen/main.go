// Command pulumi-gen-sdk writes a provider's SDK for one language with Pulumi's own code
// generators, the ones `pulumi package gen-sdk` reaches through the language host.
//
//	pulumi-gen-sdk --language nodejs|python|go SCHEMA.json OUT_DIR
//
// `pulumi package gen-sdk` asks the language host plugin (pulumi-language-nodejs, ...) to run
// the generator. Those hosts are untagged nested modules of pulumi/pulumi and the module proxy
// here refuses them, so this command calls the same generator packages of the pinned
// github.com/pulumi/pulumi/pkg/v3 directly: bind the schema, generate, write the files.
// The dynamo schema references no other package, so binding needs no plugin loader.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-gen-sdk"

// noPackages refuses every reference to another package: our schema has none, and a
// reference would otherwise need the engine's plugin host.
type noPackages struct{}

func (noPackages) fail(name string) error {
	return fmt.Errorf("the schema references package %q; %s generates only self-contained schemas", name, tool)
}
func (l noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.fail(pkg)
}
func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.fail(d.Name)
}
func (l noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.fail(pkg)
}
func (l noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, l.fail(d.Name)
}

func generate(language string, pkg *schema.Package) (map[string][]byte, error) {
	switch language {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noPackages{})
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	}
	return nil, fmt.Errorf("unknown language %q (nodejs, python or go)", language)
}

func run(language, schemaPath, out string) error {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	files, err := generate(language, pkg)
	if err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	language := flag.String("language", "nodejs", "the SDK language: nodejs, python or go")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s --language nodejs|python|go SCHEMA.json OUT_DIR\n", tool)
		os.Exit(2)
	}
	if err := run(*language, flag.Arg(0), flag.Arg(1)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
}
