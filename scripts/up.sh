#!/usr/bin/env bash
# The main job on the embedded default graph, for real: install, build the pinned tools on first
# use (progress shown; see the README for how long), start the local cluster with fake GPU nodes
# (.localcluster/), then `pulumi up` the root program with the real engine, which returns when
# the graph serves. Run it again to update; `bash scripts/down.sh` destroys the stack and stops
# the cluster. Extra arguments are stack settings: `bash scripts/up.sh dynamo-pulumi:graph=g.yaml`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c tools/python-constraints.txt -e .
.venv/bin/python -m localcluster start
eval "$(.venv/bin/python -m localcluster env)"
config=(--config "kubernetes:kubeconfig=$KUBECONFIG")
for setting in "$@"; do config+=(--config "$setting"); done
.venv/bin/python -m localcluster.project up . --stack local "${config[@]}" >/dev/null
echo
echo "Deployed. Look:     eval \"\$(.venv/bin/python -m localcluster env)\" && kubectl get deploy,svc,pods"
echo "Destroy and stop:   bash scripts/down.sh"
