"""`sketchpad certify --backend browser`: the page's own suite in headless Chromium, from the CLI,
writes a certificate that `--verify` accepts against the shipped model's files."""

import json
import os

import pytest

from sketchpad.cli import main

pytestmark = pytest.mark.skipif(
    not os.path.exists("/usr/bin/chromium"), reason="Debian's chromium is not installed (/usr/bin/chromium)"
)


def test_cli_browser_certificate_passes_and_verifies(tmp_path, capsys):
    out = tmp_path / "browser.json"
    assert main(["certify", "--backend", "browser", "--out", str(out)]) == 0
    pred = json.loads(out.read_text())["predicate"]
    assert pred["result"]["passed"] and pred["result"]["views"] == 1436
    assert pred["backend"]["name"] == "browser" and pred["environment"]["library"]["browser"]
    assert main(["certify", "--verify", str(out)]) == 0
    assert "environment not compared" in capsys.readouterr().out


def test_browser_backend_refuses_other_gates(capsys):
    assert main(["certify", "--backend", "browser", "--gate", "0", "--out", "/dev/null"]) == 2
