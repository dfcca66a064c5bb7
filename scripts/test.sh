#!/usr/bin/env bash
# Install the package with its test extras into .venv, then run ruff, the unit suite, and the
# end-to-end tier: the pinned tools built from tools/ on first use (scripts/tools.sh, progress on
# stderr), one local cluster on loopback and the real pulumi CLI (tests/e2e/). With arguments,
# ruff and then pytest with those arguments only (a developer's quick loop).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c tools/python-constraints.txt -e ".[test]"
.venv/bin/ruff check dynamo_pulumi localcluster tests bench examples __main__.py
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest "$@"
fi
.venv/bin/python -m pytest -m "not e2e"
DYNAMO_TOOLS=$(bash scripts/tools.sh)
export DYNAMO_TOOLS
exec .venv/bin/python -m pytest -m e2e tests/e2e
