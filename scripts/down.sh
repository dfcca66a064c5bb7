#!/usr/bin/env bash
# Destroy what `bash scripts/up.sh` deployed, then stop the local cluster (its processes only;
# .localcluster/ keeps the state and logs until you delete it).
set -euo pipefail
cd "$(dirname "$0")/.."
if .venv/bin/python -m localcluster status >/dev/null 2>&1; then
    eval "$(.venv/bin/python -m localcluster env)"
    .venv/bin/python -m localcluster.project destroy . --stack local \
        --config "kubernetes:kubeconfig=$KUBECONFIG" >/dev/null
fi
.venv/bin/python -m localcluster stop
