#!/usr/bin/env bash
# Install the package with its test extras into .venv and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# editable_mode=compat: a plain path entry, so mypy and pyright see the package (and its py.typed)
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]" --config-settings editable_mode=compat
.venv/bin/ruff check dynamo_pulumi tests bench examples __main__.py
.venv/bin/python -m pytest "$@"
