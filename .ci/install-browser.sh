#!/usr/bin/env bash
# What the browser tests, the browser certification backend and the browser benchmark need:
# Debian's chromium (Playwright drives it; no browser is downloaded) and the npm packages in
# package-lock.json (onnxruntime-web, whose JS and wasm the server serves from node_modules,
# and playwright-core).  Called from .ci/run; safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
npm ci --no-audit --no-fund --loglevel=error     # exactly the lock file's versions (~5 s)
/usr/bin/chromium --version 2>/dev/null | grep -v 'unexpected operator' || true
node -e "console.log('onnxruntime-web', require('./node_modules/onnxruntime-web/package.json').version)"
