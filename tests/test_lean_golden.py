"""The golden traces as Lean theorems (derive/leangen/golden.py -> lean/Sketchpad/Golden*.lean): the
generated modules are fresh, every committed golden trace has its theorem, and the numbers in a
theorem decode (as Sketchpad/GoldenCheck.lean decodes them) to exactly the trace's views and steps.
The kernel's check of the theorems is `bash lean/check.sh` (CI)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from derive.leangen import corpus, golden
from sketchpad.symbols import CELL_SYMBOLS, NEXT_WORDS

ROOT = Path(__file__).resolve().parent.parent
LEAN = ROOT / "lean"


@pytest.fixture(scope="module")
def gen():
    return golden


def test_golden_modules_are_all_committed_and_imported(gen):
    # Their freshness is tests/test_derived.py's (`python -m derive --check`).
    files = gen.files()
    committed = set((LEAN / "Sketchpad").glob("Golden[SPW]*.lean"))
    assert committed == set(files)
    top = (LEAN / "Sketchpad.lean").read_text()
    for path in files:
        assert f"import Sketchpad.{path.stem}\n" in top


def test_every_golden_trace_has_its_theorem(gen):
    text = "".join(p.read_text() for p in gen.files())
    index = json.loads((gen.GOLDEN / "index.json").read_text())
    witnesses = json.loads((gen.GOLDEN / "witnesses.json").read_text())
    assert len(index) > 100 and len(witnesses) > 50
    names = [f"golden_{e['file'][6:9]}" for e in index] + [f"golden_w{k:02d}" for k in range(len(witnesses))]
    for name in names:
        assert re.search(rf"(?m)^theorem {name} :$", text), name
    assert len(re.findall(r"(?m)^theorem golden_(?:\d{3}|w\d\d) :$", text)) == len(names)
    modes = {json.loads((gen.GOLDEN / e["file"]).read_text())["mode"] for e in index}
    assert modes == {"parallel", "sequential"}


def _codes_in_lean(name: str) -> list[str]:
    text = (LEAN / "Sketchpad" / "Batch.lean").read_text()
    body = text[text.index(f"def {name} :") :]
    body = body[: body.index("\n\n")]
    pairs = re.findall(r"\| \.(\w+) => (\d+)", body)
    return [c for c, _ in sorted(pairs, key=lambda p: int(p[1]))]


def test_codes_are_the_lean_codes():
    """`pair_code` numbers cells and operations as `Cell.code`/`Op.code` (Batch.lean) do."""
    lean_cells = _codes_in_lean("Cell.code")
    names = {str(d): f"d{d}" for d in range(10)} | {
        "_": "blank",
        "+": "plus",
        "-": "minus",
        "<": "less",
        "=": "equal",
        ">": "greater",
        "Z": "zero",
        "N": "nonzero",
    }
    assert lean_cells == [names[c] for c in CELL_SYMBOLS]
    lean_ops = _codes_in_lean("Op.code")
    assert lean_ops == [
        w.replace("CMP=", "CMPEQ")
        .replace("CMP<", "CMPLT")
        .replace("CMP>", "CMPGT")
        .replace("SGN+", "SGNADD")
        .replace("SGN-", "SGNSUB")
        .replace("SGN*", "SGNMUL")
        .replace("SGN/", "SGNDIV")
        for w in NEXT_WORDS
    ]


def _decode(n: int) -> list[tuple[str, str]]:
    """`dec 64` of GoldenCheck.lean, in Python: the (view, step) keys of one number."""
    out = []
    while n > 1:
        code, n = n % 2**35, n >> 35
        f = [(code >> (5 * k)) % 32 for k in range(6, -1, -1)]
        view = f"{NEXT_WORDS[f[0]]} {CELL_SYMBOLS[f[1]]}{CELL_SYMBOLS[f[2]]}{CELL_SYMBOLS[f[3]]}"
        step = f"{CELL_SYMBOLS[f[4]]}{CELL_SYMBOLS[f[5]]} {NEXT_WORDS[f[6]]}"
        out.append((view, step))
    return out


@pytest.mark.parametrize("name", ["trace-001.json", "trace-021.json", "trace-088.json", "trace-115.json"])
def test_theorem_numbers_decode_to_the_trace(gen, name):
    """The numbers a theorem states are the trace itself: decoded, every batch's views and steps."""
    trace = json.loads((gen.GOLDEN / name).read_text())
    for batch in trace["batches"]:
        decoded = [pair for n in gen.chunks(batch) for pair in _decode(n)]
        assert decoded == list(zip(batch["views"], batch["steps"]))
    thm = gen.theorem("golden_x", name, trace)
    assert all(hex(c) in thm for b in trace["batches"] for c in gen.chunks(b))


def test_an_edited_trace_changes_its_theorem(gen):
    trace = json.loads((gen.GOLDEN / "trace-021.json").read_text())
    before = gen.theorem("golden_021", "x", trace)
    trace["batches"][2]["steps"][5] = "9_ SUB" if trace["batches"][2]["steps"][5] != "9_ SUB" else "8_ SUB"
    assert gen.theorem("golden_021", "x", trace) != before
    trace["result"] = "4"
    assert "(.ok (4 : Int))" in gen.theorem("golden_021", "x", trace)


def test_long_gcd_rounds_cover_the_trace(gen):
    """trace-118 (a gcd of two 20-digit numbers) is checked round by round: the rounds the
    generator cuts are Euclid's, and together they are every batch after the ABS view."""
    trace = json.loads((gen.GOLDEN / "trace-118.json").read_text())
    rounds = gen.gcd_rounds(trace)
    assert sum(len(b) for _, _, b in rounds) == len(trace["batches"]) - 1
    x, y = rounds[0][0], rounds[0][1]
    for (a, b, _), (c, d, _) in zip(rounds, rounds[1:]):
        assert (c, d) == (b, a % b)
    assert rounds[-1][1] == 0 and rounds[-1][0] == int(trace["result"]) == __import__("math").gcd(x, y)
    for _, _, batches in rounds:
        assert batches[0]["views"][0].startswith("ZT ")  # each round opens with the zero test
    text = (LEAN / "Sketchpad" / "GoldenPar4.lean").read_text()
    assert text.count("theorem golden_118_r") == len(rounds)


def test_the_corpus_module_covers_every_operation():
    """The differential corpus (derive/leangen/corpus.py; its freshness is tests/test_derived.py's) has
    every operation, both signs, 30+-digit operands and both modes."""
    problems = corpus.problems()
    joined = " ".join(problems)
    for op in (" + ", " - ", " * ", " // ", " % ", "sqrt(", "gcd(", "-("):
        assert op in joined, op
    assert any(d for p in problems for d in p.replace("-", " ").split() if d.isdigit() and len(d) >= 30)
    assert "-" in joined
    text = (LEAN / "Sketchpad" / "Corpus.lean").read_text()
    assert text.count("(parallel;") == text.count("(sequential;") == len(problems)
