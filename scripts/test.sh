#!/usr/bin/env bash
# Install the package with its test extras into .venv and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
.venv/bin/ruff check dynamo_pulumi tests bench examples __main__.py
.venv/bin/python -m pytest "$@"
