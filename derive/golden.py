"""Golden traces: the Python runtime's record of fixed problems, replayed by the JavaScript
runtime (web/tests/) so that the two stay one machine by test, not by care.

A trace holds, for one expression and one mode (parallel carry-select or sequential): every
batch (its views, the reference steps, and the sheet position each view was read from), the
final worksheet (every row's symbols, sign, offset and where each cell came from), the
counters, and the result or the InputError message.  `python -m derive golden` rewrites the
files (web/golden/trace-*.json, witnesses.json, index.json; expr-vectors.json is derive/expr_vectors.py's);
tests/test_derived.py checks the committed files equal a fresh generation.
"""

from __future__ import annotations

import json
from pathlib import Path

from sketchpad.digits import to_digits
from sketchpad.errors import InputError
from sketchpad.expr import Limits
from sketchpad.reference import ReferenceStepper
from sketchpad.sheet import INPUT
from sketchpad.solve import solve
from sketchpad.views import load
from sketchpad.web import ROOT as WEB_ROOT

OUT = WEB_ROOT / "golden"

# Both modes run each of these: every procedure, every sign combination, the floor-division
# adjustment, errors raised mid-solve, and nested expressions that pass numbers between blocks.
PROBLEMS = [
    "0 + 0",
    "7 + 5",
    "999 + 1",
    "-25 + 9",
    "25 + -9",
    "-25 + -9",
    "9 + -25",
    "12 + -12",
    "5 - 8",
    "-5 - 8",
    "-5 - -8",
    "1000 - 1",
    "100 - 100",
    "-0 - 0",
    "0 * 5",
    "7 * 8",
    "-12 * 34",
    "-12 * -34",
    "999 * 99",
    "1234 * 5",
    "5 * 1234",
    "17 // 5",
    "-17 // 5",
    "17 // -5",
    "-17 // -5",
    "17 % 5",
    "-17 % 5",
    "17 % -5",
    "-17 % -5",
    "3 // 7",
    "0 // 9",
    "1000 // 8",
    "99999 // 99",
    "12345 % 123",
    "5 // 0",
    "-5 % 0",
    "sqrt(0)",
    "sqrt(1)",
    "sqrt(99)",
    "sqrt(100)",
    "isqrt(12345)",
    "sqrt(-0)",
    "sqrt(-4)",
    "gcd(0, 0)",
    "gcd(12, 18)",
    "gcd(-84, 36)",
    "gcd(17, 0)",
    "gcd(0, -17)",
    "gcd(1071, 462)",
    "-7",
    "-(3 + 4)",
    "-(-(2 * 3))",
    "+5",
    "--5",
    "(12 + 34) * (56 - 78) // 9",
    "gcd(2 * 3 * 5, 3 * 5 * 7) + sqrt(1000) % 7",
    "-(sqrt(50)) * -2",
]

# Long problems, parallel mode only (sequential traces of these would be large and add no
# kind of view): a 1,000-digit sum, a 20 x 20-digit product, long division, root and gcd.
LONG_PROBLEMS = [
    "9" * 1000 + " + 1",
    "-" + "31415926535897932384" + " * " + "27182818284590452353",
    "98765432109876543210987654321098765432 // 1234567",
    "sqrt(" + "2" + "0" * 29 + ")",
    "gcd(12200160415121876738, 7540113804746346429)",  # consecutive Fibonacci numbers
    "-" + "5" * 300 + " - " + "4" * 300,
]
SEQUENTIAL_LONG = ["31415926535897932384 * 27182818284590452353", "9" * 60 + " + 1"]


def witness_cover(covered: set) -> list[str]:
    """Witness problems of V (parallel mode) chosen greedily until, together with the traces
    above, every view of V is replayed: so the JS runtime is checked on all of V."""
    witnesses = list(dict.fromkeys(r["witness"] for r in load()))
    presents = {w: {v.key() for v in solve(w, "reference").views} for w in witnesses}
    want = {r["view"].key() for r in load()} - covered
    chosen = []
    while want:
        best = max(witnesses, key=lambda w: len(presents[w] & want))  # first best: deterministic
        if not presents[best] & want:
            raise AssertionError(f"no witness presents {sorted(want)[:3]}")
        chosen.append(best)
        want -= presents[best]
    return chosen


def _position(pos, rows: dict):
    """A sheet position as [block, row, column]: column is an int, "sign" or None.  A row
    that is not drawn on the sheet (a shifted copy made for an addition) or a lone cell (a
    sequential product's multiplier digit) has no position: None."""
    if pos is None:
        return None
    row, col = pos
    at = rows.get(id(row))
    return None if at is None else [at[0], at[1], col]


def _origin(cell) -> str:
    """Where a cell's symbol came from: i(nput), s(tep symbol), f(step flag), . never written."""
    if cell is None:
        return "."
    if cell.origin == INPUT:
        return "i"
    return "s" if cell.field == "sym" else "f"


def _worksheet(ws) -> list:
    out = []
    for sheet in ws.sheets:
        rows = []
        for r in sheet.rows:
            rows.append(
                {
                    "name": r.name,
                    "offset": r.offset,
                    "text": r.text(),
                    "origins": r.origins(),
                    "sign": None if r.sign is None else r.sign.sym,
                    "sign_origin": None if r.sign is None else _origin(r.sign),
                }
            )
        out.append({"title": sheet.title, "rows": rows, "text": sheet.text()})
    return out


def trace(expr: str, parallel: bool = True, max_digits: int | None = None) -> dict:
    """Solve `expr` with the reference stepper and record everything the JS runtime must match."""
    limits = Limits() if max_digits is None else Limits(max_digits=max_digits)
    raw = []

    def on_batch(probes, steps):
        raw.append([(p.view, p.where, s) for p, s in zip(probes, steps)])

    # solve() makes its worksheet internally, so rows are located after the solve (`raw`
    # keeps them alive, so their ids stay unique).  A solve that fails has no worksheet.
    out = {"expr": expr, "mode": "parallel" if parallel else "sequential"}
    if max_digits is not None:
        out["max_digits"] = max_digits
    ws = None
    try:
        sol = solve(expr, ReferenceStepper(), parallel=parallel, limits=limits, on_batch=on_batch)
        ws = sol.worksheet
        v = sol.value
        out["result"] = ("-" if v < 0 else "") + to_digits(v)
        out["counters"] = {
            "forward_passes": sol.forward_passes,
            "views_presented": sol.views_presented,
            "batches": sol.batches,
            "views_used": sol.distinct_views,  # the golden files keep their key
        }
    except InputError as e:
        out["error"] = str(e)
        out["counters"] = {
            "forward_passes": sum(len({v for v, _, _ in b}) for b in raw),
            "views_presented": sum(len(b) for b in raw),
            "batches": len(raw),
            "views_used": len({v for b in raw for v, _, _ in b}),
        }
    rows = {}
    if ws is not None:
        for k, sheet in enumerate(ws.sheets):
            for j, r in enumerate(sheet.rows):
                rows.setdefault(id(r), (k, j))
    out["batches"] = [
        {
            "views": [v.key() for v, _, _ in b],
            "steps": [s.key() for _, _, s in b],
            "where": [None if w is None else [_position(p, rows) for p in w] for _, w, _ in b],
        }
        for b in raw
    ]
    out["worksheet"] = _worksheet(ws) if ws is not None else None
    return out


def generate() -> dict[str, str]:
    """{file name: JSON text} for every golden file, deterministic."""
    texts = {}
    cases = [(e, True) for e in PROBLEMS] + [(e, False) for e in PROBLEMS]
    cases += [(e, True) for e in LONG_PROBLEMS] + [(e, False) for e in SEQUENTIAL_LONG]
    traces = [trace(e, p) for e, p in cases]
    traces.append(trace("9" * 15 + " * 9", True, max_digits=15))  # a result over the limit
    index = []
    for k, t in enumerate(traces):
        name = f"trace-{k:03d}.json"
        texts[name] = json.dumps(t, separators=(",", ":")) + "\n"
        index.append(
            {
                "file": name,
                "expr": t["expr"][:60],
                "mode": t["mode"],
                "batches": len(t["batches"]),
                "forward_passes": t["counters"]["forward_passes"],
            }
        )
    covered = {k for t in traces for b in t["batches"] for k in b["views"]}
    texts["witnesses.json"] = _lines([trace(w, True) for w in witness_cover(covered)])
    texts["index.json"] = json.dumps(index, indent=1) + "\n"
    return texts


def _lines(items: list) -> str:
    """A JSON list with one item a line: small diffs when a case changes."""
    return "[\n" + ",\n".join(json.dumps(x, separators=(",", ":")) for x in items) + "\n]\n"


def files() -> dict[Path, str]:
    return {OUT / name: text for name, text in generate().items()}


def extras(made: dict[Path, str]) -> list[Path]:
    """Trace files on disk that the generation no longer makes (a problem removed)."""
    return sorted(p for p in OUT.glob("trace-*.json") if p not in made)
