"""No silent skips in CI (tests/conftest.py): a test that would skip for a missing tool fails
under CI=true with a message naming the tool, and still skips (saying why) on a developer's
machine.  Simulated here for node, with a PATH on which there is none."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE_TEST = "tests/test_node.py::test_node_suite_passes"


def _pytest_without_node(tmp_path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = str(tmp_path)  # an empty directory: no node on it
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", NODE_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_ci_run_without_node_fails_naming_it(tmp_path, ci):
    r = _pytest_without_node(tmp_path, ci)
    assert r.returncode == 1, r.stdout[-2000:]
    assert ("1 error" in r.stdout or "1 failed" in r.stdout) and "node is not installed" in r.stdout
    assert "CI=true and this test would be skipped" in r.stdout


def test_without_ci_the_same_run_skips_and_says_why(tmp_path):
    r = _pytest_without_node(tmp_path, None)
    assert r.returncode == 0, r.stdout[-2000:]
    assert "1 skipped" in r.stdout and "node is not installed" in r.stdout
