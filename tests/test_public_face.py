"""The command line, server and API as a new user meets them (issue 24): `serve` on a busy
port, the flags generated from Capacity, the help texts, one name for distinct views."""

import socket
import subprocess
import sys
from dataclasses import fields

from sketchpad.cli import build_parser, main
from sketchpad.server.service import Capacity


def test_serve_on_a_busy_port_is_one_line_and_exit_5_before_ready(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "sketchpad", "serve", "--port", str(port), "--db", str(tmp_path / "c.sqlite")],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert r.returncode == 5, (r.returncode, r.stdout, r.stderr)
    assert "ready" not in r.stdout and "loading" not in r.stdout  # nothing loaded, nothing announced
    line = r.stderr.strip()
    assert "\n" not in line and line.startswith(f"sketchpad: error: cannot listen on 127.0.0.1:{port}: "), line
    assert "Traceback" not in r.stderr


def test_exit_code_5_is_documented(capsys):
    for argv in (["--help"], ["serve", "--help"]):
        try:
            main(argv)
        except SystemExit:
            pass
        out = capsys.readouterr().out
        assert "5" in out and "listen" in out, argv


def _serve_parser():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sub.choices["serve"]


def test_serve_flags_are_generated_from_capacity():
    """Every Capacity field is a serve flag with its default, and a flag reaches its field."""
    p = _serve_parser()
    by_dest = {a.dest: a for a in p._actions}
    for f in fields(Capacity):
        a = by_dest[f.name]
        assert a.option_strings == [f.metadata["flag"]] and a.default == f.default, f.name
        assert f"{f.default:,g}" in a.help
    argv = [x for f in fields(Capacity) for x in (f.metadata["flag"], "7")]
    args = p.parse_args(argv)
    assert Capacity(**{f.name: getattr(args, f.name) for f in fields(Capacity)}).check() == Capacity(
        **{f.name: type(f.default)(7) for f in fields(Capacity)}
    )


def test_capacity_errors_name_the_flag():
    import pytest

    from sketchpad import InputError

    for f in fields(Capacity):
        with pytest.raises(InputError, match=f.metadata["flag"]):
            Capacity(**{f.name: -1}).check()


def test_solve_help_states_the_default_limits(capsys):
    try:
        main(["solve", "--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    for figure in ("20,000", "8,000", "3,000", "2,000"):
        assert figure in out


def test_certify_help_says_where_a_browser_certificate_goes(capsys):
    try:
        main(["certify", "--help"])
    except SystemExit:
        pass
    out = " ".join(capsys.readouterr().out.split())
    assert "always goes to this device's certificate cache" not in out
    assert "browser certificate is never cached" in out and "only --out keeps it" in out


def test_certify_and_train_share_one_certify_and_cache():
    """No fake argparse.Namespace: train calls the same function certify does."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    train = (root / "sketchpad" / "commands" / "train.py").read_text()
    assert "Namespace" not in train and "certify_model(" in train
    certify = (root / "sketchpad" / "commands" / "certify.py").read_text()
    assert "certify_and_cache(" in certify and "cache.store(" not in certify


def test_budget_seconds_used_is_in_seconds():
    """`budget.seconds_used` is seconds, like `budget.seconds`; the share is its own field."""
    from sketchpad.server.batcher import Ticket

    t = Ticket(seconds=1000, forward_passes=400)
    t.started -= 30  # as if the request had run for 30 s
    t.forward_passes = 100
    b = t.progress()["budget"]
    assert 30 <= b["seconds_used"] < 60 and b["seconds"] == 1000
    assert b["forward_passes_used"] == 100 and b["forward_passes"] == 400
    assert b["share_used"] == 0.25  # forward passes: 100/400 > 30/1000 of the time


def test_distinct_views_has_one_name(capsys, tmp_path):
    """The CLI's --json, the API's answer and the README all say distinct views."""
    import json
    from pathlib import Path

    from fastapi.testclient import TestClient

    from sketchpad.server.app import Settings, create_app

    assert main(["solve", "123 * 456", "--json", "--stepper", "reference"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["distinct_views"] > 0 and "views_used" not in out
    with TestClient(
        create_app(Settings(db_path=str(tmp_path / "c.sqlite"), stepper="reference")), base_url="http://127.0.0.1"
    ) as c:
        r = c.post("/api/solve", json={"expr": "123 * 456"}).json()
    assert r["distinct_views"] == out["distinct_views"] and "views_used" not in r
    root = Path(__file__).resolve().parents[1]
    assert "views_used" not in (root / "README.md").read_text()
    for js in (root / "web").glob("*.js"):
        assert "views_used" not in js.read_text() and "viewsUsed" not in js.read_text(), js


def test_one_error_shape_documented_and_one_rule_for_non_json(tmp_path):
    from fastapi.testclient import TestClient

    from sketchpad.server.app import Settings, create_app

    with TestClient(
        create_app(Settings(db_path=str(tmp_path / "c.sqlite"), stepper="reference")), base_url="http://127.0.0.1"
    ) as c:
        spec = c.get("/openapi.json").json()
        h = {"content-type": "application/json"}
        bad = [
            c.post("/api/solve", content=b'{"expr": "1+1"', headers=h),  # malformed
            c.post("/api/solve", content=b'{"expr": "1+1", "max_digits": NaN}', headers=h),  # NaN
            c.post("/api/solve", content=b'{"expr": "1+1", "max_digits": 1e999}', headers=h),  # Infinity
            c.post("/api/solve", content=b'\xff\xfe{"expr"', headers=h),  # not UTF-8
        ]
        wrong_shape = c.post("/api/solve", json={"expression": "1+1"})
    assert [r.status_code for r in bad] == [400] * 4, [r.text for r in bad]
    assert all(set(r.json()) == {"error"} and "invalid JSON" in r.json()["error"] for r in bad)
    assert wrong_shape.status_code == 422 and "error" in wrong_shape.json()
    text = str(spec)
    assert "HTTPValidationError" not in text and "'detail'" not in text.replace("'detail': {", "")
    assert spec["components"]["schemas"]["Error"]["required"] == ["error"]
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for code, answer in op["responses"].items():
                if code[0] in "45":
                    assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, (
                        path,
                        method,
                        code,
                    )
    assert "400" in spec["paths"]["/api/solve"]["post"]["responses"]


def _sheet(tmp_path, capsys, expr):
    from PIL import Image

    png = tmp_path / "sheet.png"
    assert main(["solve", "--stepper", "reference", "--sheet", str(png), expr]) == 0
    out = capsys.readouterr()
    return Image.open(png), out


def test_sheet_draws_a_long_sheet_whole(tmp_path, capsys):
    """A division of 500 rows and more was cut to its last 400, the operands and quotient out of
    the picture, silently; now every row is drawn."""
    from sketchpad import solve
    from sketchpad.render import CELL_H

    expr = f"{7**90} // {3**40}"
    rows = sum(1 + len(sh.rows) for sh in solve(expr, "reference").worksheet.sheets)
    assert rows > 400
    img, out = _sheet(tmp_path, capsys, expr)
    assert img.size[1] == CELL_H * (rows + 2) and out.err == ""
    assert out.out.strip() == str(7**90 // 3**40)


def test_sheet_over_the_size_limit_says_what_it_left_out(tmp_path, capsys, monkeypatch):
    import sketchpad.render as render

    monkeypatch.setattr(render, "MAX_PIXELS", 3_000_000)
    img, out = _sheet(tmp_path, capsys, f"{7**90} // {3**40}")
    line = out.err.strip()
    assert "\n" not in line and line.startswith("sketchpad: --sheet ") and "rows are not drawn" in line
    assert img.size[0] * img.size[1] <= 3_000_000
    # the operands (first rows of the block) are in the picture: the block's title row is drawn
    sheet, *_ = __import__("sketchpad").solve(f"{7**90} // {3**40}", "reference").worksheet.sheets
    lines, _, left, _ = render._plan(type("W", (), {"sheets": [sheet]})())
    kept = [obj.name for kind, obj in lines if kind == "row"]
    assert kept[:2] == ["a", "b"] and "q" in kept and left > 0 and lines[0][0] == "title"
