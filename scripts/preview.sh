#!/usr/bin/env bash
# Install the package into .venv and run an offline preview of the embedded example graph: the
# fast first look (no cluster, no Pulumi CLI). `bash scripts/up.sh` deploys it for real.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c tools/python-constraints.txt -e .
exec .venv/bin/dynamo-pulumi preview "$@"
