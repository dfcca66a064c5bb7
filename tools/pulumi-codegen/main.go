// Command pulumi-gen-sdk writes a provider's SDK for one language with Pulumi's own code
// generators, the ones `pulumi package gen-sdk` reaches through the language host.
//
//	pulumi-gen-sdk --language nodejs|python|go [--local] SCHEMA.json OUT_DIR
//
// is `pulumi package gen-sdk SCHEMA.json --language L [--local] --out OUT` with OUT_DIR in place of
// OUT/L: the host's GeneratePackage binds the schema and calls the same <lang>.GeneratePackage
// with the same arguments (tool name aside, which only appears in the "do not edit" headers).
// --local (nodejs) is the CLI's flag of that name, what `pulumi package add` passes: the
// package.json gets `main: bin/index.js`, typescript as a dependency and a postinstall that
// compiles the SDK, so `npm install` of a `file:` dependency on it yields a usable package.
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

func generate(language string, pkg *schema.Package, local bool) (map[string][]byte, error) {
	if local && language != "nodejs" {
		return nil, fmt.Errorf("--local is implemented for nodejs only here, not %q", language)
	}
	switch language {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, local, noPackages{})
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noPackages{})
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	}
	return nil, fmt.Errorf("unknown language %q (nodejs, python or go)", language)
}

func run(language, schemaPath, out string, local bool) error {
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
	files, err := generate(language, pkg, local)
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
	local := flag.Bool("local", false, "an SDK for local use (nodejs): compiled by npm's postinstall")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s --language nodejs|python|go [--local] SCHEMA.json OUT_DIR\n", tool)
		os.Exit(2)
	}
	if err := run(*language, flag.Arg(0), flag.Arg(1), *local); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
}
