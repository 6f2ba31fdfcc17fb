"""Helpers shared by the Lean correspondence tests (tests/test_lean*.py): the generators
(derive/lean.py), and Python's scans driven on small digit rows."""

from __future__ import annotations

from pathlib import Path

from derive import lean as derive_lean
from sketchpad.reference import ReferenceStepper
from sketchpad.runtime import PARALLEL, Run, scan
from sketchpad.sheet import INPUT, Cell, Sheet
from sketchpad.symbols import MUL

ROOT = Path(__file__).resolve().parent.parent
LEAN = ROOT / "lean"


def _gen():
    return derive_lean


def _row(sheet: Sheet, name: str, digits_lsb: list[str]):
    return sheet.input_row(name, "".join(reversed(digits_lsb)))


def _drive(gen, parallel: bool):
    try:
        run = Run(ReferenceStepper(), trace=True, parallel=parallel)
    except TypeError:  # a runtime without the parallel switch
        run = Run(ReferenceStepper(), trace=True)
    token = PARALLEL.set(parallel)
    try:
        run.drive(gen)
    finally:
        PARALLEL.reset(token)
    return [pair for batch in run.trace for pair in batch]


def _python_rows(op: str, xs: list[str], ys: list[str], parallel: bool = False):
    """(trace, out row text, carry row text) of Python's `scan` on two digit rows."""
    sheet = Sheet("t")
    x, y = _row(sheet, "x", xs), _row(sheet, "y", ys)
    carry, out = sheet.row("carry"), sheet.row("out")
    trace = _drive(scan(op, x, y, carry, out), parallel)
    return trace, out.text(), carry.text()


def _python_mul_row(xs: list[str], d: str):
    sheet = Sheet("t")
    x = _row(sheet, "x", xs)
    carry, out = sheet.row("carry"), sheet.row("out")
    trace = _drive(scan(MUL, x, None, carry, out, fixed=Cell(d, INPUT)), False)
    return trace, out.text(), carry.text()


def _sheet_of(trace):
    """What the Lean model says the scan writes: `rowOf` (and the carries, shifted by one)."""
    out = "".join(s.sym for _, s in trace if s.sym != "_")
    flags = ["_"] + [s.flag for _, s in trace]
    while flags and flags[-1] == "_":
        flags.pop()
    return out[::-1], "".join(flags)[::-1]
