#!/usr/bin/env bash
# Set up a fresh machine for Sketchpad: a virtual environment with the package and its test
# tools, (for the browser tests) Debian's Chromium and the npm packages, and (for the registry
# tests on PostgreSQL) Debian's PostgreSQL binaries.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[test,train]'
if [ "${SKETCHPAD_NO_BROWSER:-0}" != "1" ]; then
  if [ -f .ci/install-browser.sh ]; then bash .ci/install-browser.sh; fi
fi
if [ "${SKETCHPAD_NO_POSTGRES:-0}" != "1" ]; then bash .ci/install-postgres.sh; fi
echo "setup done: activate with '. .venv/bin/activate'"
