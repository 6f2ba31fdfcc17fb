"""The JavaScript runtime's Node tests (golden-trace replay, altered traces, properties) run as
part of the one test command."""

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_suite_passes():
    r = subprocess.run(["node", "--test", "web/tests/"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "# fail 0" in r.stdout and "# pass " in r.stdout
