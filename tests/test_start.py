"""Parse first, load later; inference without torch.  Structural checks of what a command
imports (no timing: the start-up figures are benchmarks/bench_start.py's, in the README)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from sketchpad.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
heavy = ["torch", "transformers", "peft", "fastapi", "onnxruntime", "numpy"]
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}), file=sys.stderr)
"""


def _probe(*args):
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=600)
    return json.loads(out.stderr.strip().splitlines()[-1])


def test_bad_input_is_refused_before_anything_heavy_loads():
    for expr in ("1/0", "0x1F", "2 ** 3", ""):
        r = _probe("solve", expr)
        assert r["code"] == 2 and r["loaded"] == [], (expr, r)
    r = _probe("poly", "factor", "x^y")
    assert r["code"] == 2 and r["loaded"] == [], r
    r = _probe("bench", "no-such-set")
    assert r["code"] == 2 and r["loaded"] == [], r


def test_help_loads_nothing_heavy():
    r = _probe("--help")
    assert r["code"] == 0 and r["loaded"] == []


def test_solving_on_onnx_runtime_imports_no_torch():
    r = _probe("solve", "123 * 456")
    assert r["code"] == 0
    assert "onnxruntime" in r["loaded"] and not {"torch", "transformers", "peft"} & set(r["loaded"]), r
