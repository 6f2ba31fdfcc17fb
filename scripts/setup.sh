#!/usr/bin/env bash
# Set up a fresh machine for Sketchpad: a virtual environment with the package and its test
# tools, and (for the browser tests) Debian's Chromium and the npm packages.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[test]'
if [ "${SKETCHPAD_NO_BROWSER:-0}" != "1" ]; then
  if [ -f .ci/install-browser.sh ]; then bash .ci/install-browser.sh; fi
fi
echo "setup done: activate with '. .venv/bin/activate'"
