"""The Lean companion (lean/): hygiene, freshness of the generated table, the correspondence of
the Lean runtime model with the Python runtime, and (marked `lean`) `lake build` where a native
toolchain exists.  The wasm-checker run is in tests/test_lean_check.py and lean/check.sh."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lean_helpers import LEAN, _gen, _python_mul_row, _python_rows, _sheet_of

from sketchpad import views as views_mod
from sketchpad.reference import reference_step
from sketchpad.symbols import ADD, MUL, SUB, View


def _lean_sources() -> list[Path]:
    return sorted(p for p in LEAN.rglob("*.lean") if ".lake" not in p.parts)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/-.*?-/", " ", text, flags=re.S)
    return re.sub(r"--[^\n]*", " ", text)


def test_lean_project_layout():
    assert (LEAN / "lean-toolchain").read_text().strip().startswith("leanprover/lean4:v4.")
    lakefile = (LEAN / "lakefile.toml").read_text()
    assert 'defaultTargets = ["Sketchpad"]' in lakefile
    top = (LEAN / "Sketchpad.lean").read_text()
    modules = sorted(p.stem for p in (LEAN / "Sketchpad").glob("*.lean"))
    for m in modules:
        assert f"import Sketchpad.{m}" in top, f"Sketchpad.lean does not import {m}"


@pytest.mark.parametrize("path", _lean_sources(), ids=lambda p: str(p.relative_to(LEAN)))
def test_no_escape_hatches(path):
    raw = path.read_text()
    for text in (raw, _strip_comments(raw)):
        assert not re.search(r"\bsorry\b", text), f"sorry in {path}"
        assert not re.search(r"\badmit\b", text), f"admit in {path}"
        assert "native_decide" not in text, f"native_decide in {path}"
        assert not re.search(r"(?m)^\s*(private\s+|protected\s+|noncomputable\s+)*axiom\s", text), (
            f"axiom declaration in {path}"
        )
        assert "implemented_by" not in text and "extern" not in text, f"trusted code in {path}"


def _parse_table(text: str):
    """Read the generated Table.lean back: the nested `match` arms of every `step<OP>` and
    the `V_<OP>` lists (an independent reading of the emitted file, not of the generator)."""
    steps, lists = {}, {}
    fn = a = b = None
    for line in text.splitlines():
        m = re.match(r"^def step(\w+) \(a b c : Cell\) : Step :=$", line)
        if m:
            fn = m.group(1)
            continue
        if fn is None:
            continue
        if line and not line.startswith(" "):
            fn = None
            continue
        m = re.match(r"^  \| \.(\w+) =>$", line)
        if m:
            a = m.group(1)
            continue
        m = re.match(r"^    \| \.(\w+) =>$", line)
        if m:
            b = m.group(1)
            continue
        m = re.match(r"^      \| \.(\w+) => (Step\.mk [^\n]*)$", line)
        if m:
            steps[(fn, a, b, m.group(1))] = m.group(2)
    for m in re.finditer(r"^def V_(\w+) : List View := \[\n(.*?)\n\]", text, flags=re.M | re.S):
        lists[m.group(1)] = [x.strip().rstrip(",") for x in m.group(2).splitlines()]
    return steps, lists


def test_generated_table_matches_reference_and_view_set():
    text = (LEAN / "Sketchpad" / "Table.lean").read_text()
    entries = views_mod.load()
    gen = _gen()
    steps, lists = _parse_table(text)
    assert len(steps) == len(entries) == 1436
    assert sum(len(v) for v in lists.values()) == len(entries)
    cell_name = {sym: lean[1:] for sym, lean in gen.CELL.items()}
    for e in entries:
        v = e["view"]
        key = (gen.lean_ident(v.op), cell_name[v.a], cell_name[v.b], cell_name[v.c])
        assert steps[key] == gen.step_lean(reference_step(v)), v
        assert gen.view_lean(v) in lists[gen.lean_ident(v.op)]
    assert f"def V_count : Nat := {len(entries)}" in text


def test_generated_view_lists_follow_the_grids():
    """`V_ADD_grid`, `V_SUB_grid`, `V_MUL_grid` (Sketchpad/Facts.lean) compare the generated lists
    with grids built from Basic.lean's cell lists, element by element: the orders must agree."""
    gen = _gen()
    D = [str(d) for d in range(10)]
    db, carries, mul_carries = D + ["_"], ["1", "_"], [str(d) for d in range(1, 9)] + ["_"]
    basic = (LEAN / "Sketchpad" / "Basic.lean").read_text()
    assert "def carries : List Cell := [.d1, .blank]" in basic
    assert "def mulCarries : List Cell := [.d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8, .blank]" in basic
    val = lambda c: int(c) if c in D else 0  # noqa: E731
    _, lists = _parse_table((LEAN / "Sketchpad" / "Table.lean").read_text())
    for op in (ADD, SUB):
        grid = [gen.view_lean(View(op, a, b, c)) for a in db for b in db for c in carries]
        assert lists[op] == grid
    grid = [
        gen.view_lean(View(MUL, a, b, c)) for a in db for b in D for c in mul_carries if c == "_" or val(c) < val(b)
    ]
    assert lists["MUL"] == grid


def test_lean_runtime_model_matches_python_scan():
    """The Lean `trace` (mirrored in derive/lean.py, whose witnesses Lean re-checks) presents the
    same views and takes the same steps as the Python runtime's `scan`, at every length."""
    gen = _gen()
    rnd = random.Random(6)
    for _ in range(300):
        xs = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 40))]
        ys = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 40))]
        for op in (ADD, SUB):
            lean = gen.rows_trace(op, xs, ys)
            trace, out, carry = _python_rows(op, xs, ys, parallel=False)
            assert lean == trace
            assert _sheet_of(lean) == (out, carry)
            # the carry-select (parallel) scan writes the same sheet (Lean: select_add_exact)
            _, out_p, carry_p = _python_rows(op, xs, ys, parallel=True)
            assert (out_p, carry_p) == (out, carry)
        d = rnd.choice("0123456789")
        lean = gen.mul_row_trace(xs, d)
        trace, out, carry = _python_mul_row(xs, d)
        assert lean == trace
        assert _sheet_of(lean) == (out, carry)


def test_lean_model_presents_only_views_of_V():
    gen = _gen()
    V = views_mod.view_set()
    rnd = random.Random(7)
    for _ in range(200):
        xs = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 60))]
        ys = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 60))]
        for op in (ADD, SUB):
            assert all(v in V for v, _ in gen.rows_trace(op, xs, ys))
        assert all(v in V for v, _ in gen.mul_row_trace(xs, rnd.choice("0123456789")))


def test_readme_names_every_main_theorem():
    readme = (LEAN / "README.md").read_text()
    axioms = (LEAN / "Sketchpad" / "Axioms.lean").read_text()
    names = re.findall(r"``Sketchpad\.(\w+)", axioms)
    assert len(names) >= 10
    sources = "\n".join(p.read_text() for p in _lean_sources())
    for name in names:
        assert f"`{name}`" in readme, f"{name} missing from lean/README.md"
        assert re.search(rf"^theorem {name}\b", sources, flags=re.M), f"no theorem {name}"


@pytest.mark.lean
@pytest.mark.skipif(shutil.which("lake") is None, reason="no Lean toolchain (lake) on PATH")
def test_lake_build():
    """With a native toolchain: `lake build` (marked `lean`, like the wasm check, so that the
    default run does not build the proofs a second time)."""
    proc = subprocess.run(["lake", "build"], cwd=LEAN, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    assert "sorryAx" not in out and "ofReduceBool" not in out


def test_finite_facts_hold():
    """The finite facts Sketchpad/Facts.lean checks with `decide +kernel`, checked here too, so a
    change of the reference or of V that would break the Lean build fails without a toolchain."""
    gen = _gen()
    V = views_mod.view_set()
    D = "0123456789"
    db, carries, mul_carries = list(D) + ["_"], ["_", "1"], ["_"] + list("12345678")
    val = lambda c: int(c) if c in D else 0  # noqa: E731
    digit = lambda n: str(n) if n < 10 else "_"  # noqa: E731
    carry = lambda n: "_" if n == 0 else digit(n)  # noqa: E731
    mul_ok = lambda b, c: c == "_" or val(c) < val(b)  # noqa: E731
    scan_ops = {"ADD", "SUB", "CMP=", "CMP<", "CMP>", "MUL", "ZT", "INC", "ADD2"}
    for a in db:
        for b in db:
            for c in carries:
                for op in (ADD, SUB):
                    v = View(op, a, b, c)
                    s = reference_step(v)
                    assert v in V and s.sym in db
                    if s.next in scan_ops:
                        assert s.next == op and s.flag in carries
                s = reference_step(View(ADD, a, b, c))
                if (a, b, c) != ("_", "_", "_"):
                    t = val(a) + val(b) + val(c)
                    assert tuple(s) == (digit(t % 10), carry(t // 10), ADD)
                s = reference_step(View(SUB, a, b, c))
                if (a, b) != ("_", "_"):
                    assert s.next == SUB and s.sym in D and s.flag in carries
                    assert val(s.sym) + val(b) + val(c) == val(a) + 10 * val(s.flag)
                else:
                    assert tuple(s) == ("_", c, "HALT")
    for a in db:
        for b in D:
            for c in mul_carries:
                if not mul_ok(b, c):
                    continue
                v = View(MUL, a, b, c)
                s = reference_step(v)
                assert v in V and s.sym in db
                if s.next in scan_ops:
                    assert s.next == MUL and s.flag in mul_carries and mul_ok(b, s.flag)
                if a != "_":
                    p = val(a) * val(b) + val(c)
                    assert tuple(s) == (digit(p % 10), carry(p // 10), MUL)
                    assert p // 10 < 10 and carry(p // 10) in mul_carries and mul_ok(b, carry(p // 10))
                elif c != "_":
                    assert tuple(s) == (c, "_", MUL)
                else:
                    assert tuple(s) == ("_", "_", "HALT")
    # the generated witnesses present their views in the Lean model (W_*_ok)
    for op in (ADD, SUB):
        wanted = [v for v in V if v.op == op]
        for v, (xs, ys) in gen.find_row_witnesses(op, wanted).items():
            assert v in [w for w, _ in gen.rows_trace(op, xs, ys)]
    wanted = [v for v in V if v.op == MUL]
    for v, (xs, d) in gen.find_mul_witnesses(wanted).items():
        assert v in [w for w, _ in gen.mul_row_trace(xs, d)]
