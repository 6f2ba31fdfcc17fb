"""The `sketchpad solve` command: plain, --json, --trace, --sheet, standard input."""

import io
import json
import random
import sys

from PIL import Image

from sketchpad.cli import main
from sketchpad.digits import to_digits, to_int


def test_solve_json(capsys):
    assert main(["solve", "--stepper", "reference", "--json", "12345 * -678 + gcd(84, 36)"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == str(12345 * -678 + 12)
    assert out["forward_passes"] >= out["batches"] > 0 and out["distinct_views"] > 0
    assert out["seconds"] >= 0 and out["stepper"] == "reference"


def test_solve_sequential_has_one_view_per_batch(capsys):
    assert main(["solve", "--stepper", "reference", "--sequential", "--json", "999 + 1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "1000" and out["forward_passes"] == out["batches"]


def test_trace_lists_every_view_and_step(capsys):
    assert main(["solve", "--stepper", "reference", "--sequential", "--trace", "47 + 85"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "132"
    assert lines[0].split()[2:] == ["SGN+", "++_", "->", "+_", "ADD"]
    assert any("ADD   75_  ->  21 ADD" in line for line in lines)


def test_sheet_png(tmp_path, capsys):
    png = tmp_path / "sheet.png"
    assert main(["solve", "--stepper", "reference", "--sheet", str(png), "-1234 // 7"]) == 0
    assert capsys.readouterr().out.strip() == str(-1234 // 7)
    img = Image.open(png)
    assert img.size[0] > 100 and img.size[1] > 100
    colours = img.convert("RGB").getcolors(1 << 20)
    assert any(c == (255, 224, 138) for _, c in colours)  # the highlighted view


def test_stdin_for_operands_too_long_for_a_command_line(monkeypatch, capsys):
    rnd = random.Random(3)
    a, b = rnd.randrange(10**4999, 10**5000), rnd.randrange(10**4999, 10**5000)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{to_digits(a)} - {to_digits(b)}\n"))
    assert main(["solve", "--stepper", "reference", "-"]) == 0
    got = capsys.readouterr().out.strip()
    assert got[0] == "-" and to_int(got[1:]) == b - a
