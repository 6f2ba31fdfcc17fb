"""Every file derived from the specification is fresh: `python -m derive --check` (derive/),
the one staleness test for the view set, the golden traces, the parsers' vectors, the page's
generated constants and the Lean definitions and theorems.  The check's own guard is tested on
copies: a changed, a missing and a no-longer-generated file are each named, and exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from derive import golden, js_constants, runner
from derive.__main__ import main
from derive.jobs import Job

ROOT = Path(__file__).resolve().parents[1]


def test_every_derived_file_is_fresh():
    stale = runner.check()
    assert stale == [], "stale derived files (run python -m derive):\n" + "\n".join(stale)


@pytest.fixture
def js_copy(tmp_path, monkeypatch):
    """The page's generated constants, copied to tmp_path, with the js job writing there."""
    for path in js_constants.files():
        (tmp_path / path.name).write_text(path.read_text())
    monkeypatch.setattr(js_constants, "OUT", tmp_path)
    return tmp_path


def test_check_names_a_changed_file_and_exits_1(js_copy, capsys):
    assert main(["--check", "js"]) == 0
    rule = js_copy / "certificate-rule.json"
    rule.write_text(rule.read_text().replace('"margin_floor"', '"margin_floor_"'))
    assert main(["--check", "js"]) == 1
    err = capsys.readouterr().err
    assert f"stale: {rule} (js)" in err and "constants.json" not in err
    assert main(["js"]) == 0 and main(["--check", "js"]) == 0  # writing makes it fresh again
    assert rule.read_text() == js_constants.files()[js_constants.OUT / rule.name]


def test_check_names_a_missing_file(js_copy, capsys):
    (js_copy / "constants.json").unlink()
    assert main(["--check", "js"]) == 1
    assert f"stale: {js_copy / 'constants.json'} (js)" in capsys.readouterr().err


def test_a_file_no_longer_generated_is_stale_and_writing_removes_it(tmp_path, monkeypatch):
    monkeypatch.setattr(golden, "OUT", tmp_path)
    kept, leftover = tmp_path / "trace-000.json", tmp_path / "trace-999.json"
    kept.write_text("{}\n")
    leftover.write_text("{}\n")
    job = Job("golden", "two traces, one no longer made", lambda: {kept: "{}\n"}, golden.extras)
    assert runner.run([job], check=True) == ([f"{leftover} (golden: no longer generated)"], 1)
    assert leftover.exists()
    runner.run([job], check=False)
    assert kept.exists() and not leftover.exists()


def test_unknown_job_is_one_line_and_exit_2(capsys):
    assert main(["--check", "no-such-job"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown job 'no-such-job'" in err and "golden" in err


def test_the_command_line_runs_from_the_checkout():
    out = subprocess.run(
        [sys.executable, "-m", "derive", "--check", "js", "expr-vectors"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "up to date: 3 derived files, 2 jobs"


def test_the_package_imports_no_derive_module():
    """Imports go one way (also a lint-imports contract): no module of sketchpad/ names derive."""
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("sketchpad", "certify", "export", "web")
        for p in (ROOT / folder).rglob("*.py")
        if any(line.startswith(("import derive", "from derive")) for line in p.read_text().splitlines())
    ]
    assert offenders == []
