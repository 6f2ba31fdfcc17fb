#!/usr/bin/env bash
# Check the Lean companion with the wasm Lean checker (see lean/README.md, "How to check").
# Installs the pinned checker on first use (npm ci into a cache under /tmp or /home), compiles
# every module in import order, prints PASS/FAIL per module, time, peak memory and the axioms of
# the main theorems.  Exit status non-zero on any failure.  Options: see `lean/check.py --help`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ulimit -s unlimited 2>/dev/null || ulimit -s "$(ulimit -H -s)" 2>/dev/null || true
py="$(command -v python3 || command -v python)"
exec "$py" "$here/check.py" "$@"
