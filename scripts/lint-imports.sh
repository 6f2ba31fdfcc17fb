#!/usr/bin/env bash
# Check the import-linter contracts (pyproject.toml) on the package as it installs: certify/,
# export/, web/ and benchmarks/problems/ live at the top of the checkout but install inside
# sketchpad/, so the import graph is read from a throw-away non-editable install.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python -m pip install --quiet --no-deps --no-build-isolation --target "$tmp/site" . 2>/dev/null
(cd "$tmp" && PYTHONPATH="$tmp/site" lint-imports "$OLDPWD/pyproject.toml")
