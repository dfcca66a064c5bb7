#!/usr/bin/env bash
# Build the pinned upstream programs of the end-to-end tier from the Go module proxy, once.
#
#   bash scripts/tools.sh [TOOL...]      build what is missing, print the bin directory
#   bash scripts/tools.sh --list         the tools, their pins and whether they are cached
#
# Each tool is a wrapper module under tools/<name>/ (go.mod and go.sum committed): upstream
# modules with `replace` directives cannot be `go install`ed, and one module per tool keeps
# minimal version selection from raising one tool's dependencies to another's. A tool is built
# into $DYNAMO_TOOLS_CACHE/<name>-<key>/, where <key> hashes its wrapper files, its recipe below
# and the Go version, so a changed pin rebuilds that tool only and a clean checkout reuses the
# rest. Progress and the time each build took go to stderr; the one line on stdout is a
# directory of links to this set of builds: bin/, share/, and what the Pulumi engine is given
# (engine-bin/ for its PATH, pulumi-plugins/ as its plugin cache).
#
# Nothing is downloaded at test time: this script is the only step that reaches the proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${DYNAMO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-pulumi/tools}
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-trimpath -mod=readonly"

ALL_TOOLS=(pulumi pulumi-codegen kubernetes-provider pulumi-yaml kube etcd kwok lws)

# The versions each recipe stamps into its binaries (the wrappers' go.mod pin the same ones).
PULUMI_VERSION=v3.274.1
K8S_PROVIDER_VERSION=4.25.0
PULUMI_YAML_VERSION=v1.25.0
KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.14
KWOK_VERSION=v0.8.0
LWS_VERSION=v0.9.0
# Bump a tool's recipe number when its build steps below change.
declare -A RECIPE=([pulumi]=1 [pulumi-codegen]=1 [kubernetes-provider]=1 [pulumi-yaml]=1 [kube]=1 [etcd]=1 [kwok]=1 [lws]=1)

say() { printf '[tools] %s\n' "$*" >&2; }
die() { printf '[tools] error: %s\n' "$*" >&2; exit 1; }

need_go() {
    command -v go >/dev/null || die "Go is not on PATH; the end-to-end tools are built with Go >= 1.26.6"
    local v; v=$(go env GOVERSION); v=${v#go}
    [ "$(printf '%s\n1.26.6\n' "$v" | sort -V | head -1)" = 1.26.6 ] \
        || die "Go $v is too old: the pinned modules need Go >= 1.26.6 (GOTOOLCHAIN=local, no toolchain download)"
}

key_of() {  # the cache key of one tool: its wrapper files, its recipe number, the Go version
    local name=$1
    { (cd "tools/$name" && find . -type f | LC_ALL=C sort | xargs sha256sum)
      echo "recipe ${RECIPE[$name]} $(go env GOVERSION)"; } | sha256sum | cut -c1-16
}

moddir() { go list -m -f '{{.Dir}}' "$1"; }  # a module's directory in the module cache

stamp_k8s() {  # -X flags that make a Kubernetes binary report its release, as kwok and clients read it
    local v=$KUBE_VERSION minor; minor=${v#v1.}; minor=${minor%%.*}
    local p
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        printf -- '-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s -X %s.gitTreeState=clean -X %s.buildDate=2026-01-01T00:00:00Z ' \
            "$p" "$v" "$p" "$p" "$minor" "$p" "$p"
    done
}

build_pulumi() {
    go build -tags osusergo,grpcnotrace \
        -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
        -o "$1/bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
    # The Python SDK's dynamic-provider launcher ships with the CLI (the engine looks for it on PATH
    # or beside `pulumi`); it is a file of the sdk module, copied with its exec bit back.
    install -m 0755 "$(moddir github.com/pulumi/pulumi/sdk/v3)/python/dist/pulumi-resource-pulumi-python" "$1/bin/"
}

build_pulumi-codegen() {
    go build -ldflags "-s -w" -o "$1/bin/pulumi-gen-sdk" .
}

build_kubernetes-provider() {
    local src; src=$(moddir github.com/pulumi/pulumi-kubernetes/provider/v4)/cmd/pulumi-resource-kubernetes
    # What the provider's generate.go does: the schema with its version set, both files compacted.
    jq -c --arg v "$K8S_PROVIDER_VERSION" '.version = $v' "$src/schema.json" > schema-embed.json
    jq -c . "$src/terraform-mapping.json" > terraform-mapping-embed.json
    go build -ldflags "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$K8S_PROVIDER_VERSION" \
        -o "$1/bin/pulumi-resource-kubernetes" .
}

build_pulumi-yaml() {
    go build -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$PULUMI_YAML_VERSION" \
        -o "$1/bin/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
}

build_kube() {
    local flags; flags="-s -w $(stamp_k8s)"
    local cmd
    for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
        say "  $cmd"
        go build -ldflags "$flags" -o "$1/bin/$cmd" "k8s.io/kubernetes/cmd/$cmd"
    done
}

build_etcd() {
    go build -ldflags "-s -w" -o "$1/bin/etcd" go.etcd.io/etcd/server/v3
}

build_kwok() {
    go build -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" \
        -o "$1/bin/kwok" sigs.k8s.io/kwok/cmd/kwok
    # kwok has no built-in stages (kwokctl embeds them): keep the module's fast node and pod
    # lifecycle stages beside the binary, as one multi-document file.
    local st; st=$(moddir sigs.k8s.io/kwok)/kustomize/stage
    mkdir -p "$1/share/kwok"
    local f
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
             pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
        printf -- '---\n'; cat "$st/$f"
    done > "$1/share/kwok/stages.yaml"
}

build_lws() {
    go build -ldflags "-s -w" -o "$1/bin/lws-controller" sigs.k8s.io/lws/cmd
    local m; m=$(moddir sigs.k8s.io/lws)
    mkdir -p "$1/share/lws"
    cp "$m"/config/crd/bases/*.yaml "$1/share/lws/"
    cp "$m/config/webhook/manifests.yaml" "$1/share/lws/webhook-manifests.yaml"
    chmod u+w "$1"/share/lws/*
}

build_one() {  # build tool $1 into its cache directory unless it is there
    local name=$1 key dir tmp start
    key=$(key_of "$name"); dir=$CACHE/$name-$key
    if [ -f "$dir/.complete" ]; then
        say "$name: cached ($dir)"
        echo "$dir"; return
    fi
    say "$name: building (first use; see README for typical times) ..."
    start=$(date +%s)
    tmp=$(mktemp -d "$CACHE/.build-$name.XXXXXX")
    rm -rf "$dir"; mkdir -p "$dir/bin"
    cp -r "tools/$name/." "$tmp/"
    ( cd "$tmp" && go mod download && "build_$name" "$dir" ) >&2 \
        || { rm -rf "$tmp" "$dir"; die "$name: the build failed (output above)"; }
    rm -rf "$tmp"
    touch "$dir/.complete"
    say "$name: built in $(( $(date +%s) - start )) s"
    echo "$dir"
}

list_tools() {
    local name key
    for name in "${ALL_TOOLS[@]}"; do
        key=$(key_of "$name")
        local state=missing; [ -f "$CACHE/$name-$key/.complete" ] && state=cached
        printf '%-20s %-8s %s\n' "$name" "$state" "$(grep -E '^\s*(require\s+)?[a-z0-9.-]+\.[a-z]+/[^ ]+ v' "tools/$name/go.mod" | grep -v '//' | head -1 | sed 's/^[[:space:]]*require[[:space:]]*//; s/^[[:space:]]*//')"
    done
}

main() {
    need_go
    mkdir -p "$CACHE"
    if [ "${1:-}" = --list ]; then list_tools; return; fi
    local tools=("$@"); [ ${#tools[@]} -gt 0 ] || tools=("${ALL_TOOLS[@]}")
    local dirs=() name
    for name in "${tools[@]}"; do
        [ -d "tools/$name" ] || die "no tool '$name' (tools: ${ALL_TOOLS[*]})"
        dirs+=("$(build_one "$name")")
    done
    # One directory of links to this set of builds, named after their keys: bin/ holds every
    # program, share/<tool>/ the data files some of them need (kwok's stages, LWS's manifests).
    local set; set=$CACHE/set-$(printf '%s\n' "${dirs[@]}" | sha256sum | cut -c1-16)
    if [ ! -f "$set/.complete" ]; then
        rm -rf "$set" "$set.tmp"; mkdir -p "$set.tmp/bin" "$set.tmp/share"
        local d f
        for d in "${dirs[@]}"; do
            for f in "$d"/bin/*; do ln -s "$f" "$set.tmp/bin/"; done
            if [ -d "$d/share" ]; then for f in "$d"/share/*; do ln -s "$f" "$set.tmp/share/"; done; fi
        done
        engine_view "$set.tmp"
        touch "$set.tmp/.complete"
        mv "$set.tmp" "$set"
    fi
    echo "$set"
}

# What the Pulumi engine sees: engine-bin/ (for its PATH) holds the CLI, the language hosts and
# kubectl but no resource provider, and pulumi-plugins/ is a plugin cache holding the Kubernetes
# provider, installed from the local build as `pulumi plugin install --file` does. The engine then
# loads the provider at the version the SDK asks for, as from a real install, instead of taking
# whatever is on PATH (and warning about it in every update's output).
engine_view() {
    local set=$1 f
    mkdir -p "$set/engine-bin"
    for f in pulumi pulumi-language-yaml pulumi-resource-pulumi-python kubectl; do
        [ -e "$set/bin/$f" ] && ln -s "$(readlink "$set/bin/$f")" "$set/engine-bin/$f"
    done
    if [ -e "$set/bin/pulumi" ] && [ -e "$set/bin/pulumi-resource-kubernetes" ]; then
        say "installing pulumi-resource-kubernetes $K8S_PROVIDER_VERSION into the set's plugin cache"
        PULUMI_HOME="$set/pulumi-home" PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
            "$set/bin/pulumi" plugin install resource kubernetes "$K8S_PROVIDER_VERSION" \
            --file "$set/bin/pulumi-resource-kubernetes" >&2
        mv "$set/pulumi-home/plugins" "$set/pulumi-plugins"
        rm -rf "$set/pulumi-home"
    fi
}

main "$@"
