"""`sketchpad bench` checks every answer against Python and reports failures honestly."""
import json

from sketchpad.cli import main


def test_bench_reference_on_a_prefix(tmp_path, capsys):
    out, md = tmp_path / "r.json", tmp_path / "t.md"
    assert main(["bench", "mixed-200", "--backend", "reference", "--limit", "16",
                 "--out", str(out), "--md", str(md)]) == 0
    res = json.loads(out.read_text())
    assert res["summary"]["solved"] == res["summary"]["total"] == 16
    assert "16/16" in md.read_text()


def test_bench_reports_a_wrong_stepper(tmp_path, monkeypatch, capsys):
    from sketchpad import bench
    from sketchpad.faults import OneWrongStepper
    from sketchpad.solve import solve
    from sketchpad.symbols import View
    wrong = OneWrongStepper(View("ADD", "1", "1", "_"))
    rows = bench.run_set([{"id": "p", "expr": "11 + 11"}, {"id": "q", "expr": "5 + 3"}],
                         lambda e: solve(e, wrong).as_dict(), progress=False)
    assert [r["ok"] for r in rows] == [False, True]


def test_unknown_set_is_a_clear_error(capsys):
    assert main(["bench", "no-such-set", "--backend", "reference"]) == 2
    assert "no problem set" in capsys.readouterr().err
