"""Provenance is a proof: the runtime never writes a symbol of its own.

Every computed cell on every sheet was gathered from one row of the step array the stepper
returned for one batch, and records which (batch, row, field); here each is checked against
that row of that batch's output as the stepper returned it.  Every input cell is a sign or a
digit of a number written in the problem, at the position it claims, and no two cells claim
the same one.  Fault injection: runtimes that write one symbol themselves (through an input
cell, past the write path, or under a forged origin) fail the check.
"""

import pathlib
import re

import numpy as np
import pytest

from sketchpad import ReferenceStepper, solve
from sketchpad import procedures as P
from sketchpad.carry_select import SelectScan
from sketchpad.codes import STEPS, SYMBOLS
from sketchpad.expr import parse
from sketchpad.parts import FAMILIES
from sketchpad.sheet import Sheet, Worksheet
from sketchpad.symbols import ADD

ROOT = pathlib.Path(__file__).resolve().parents[1] / "sketchpad"


class RecordingList(ReferenceStepper):
    """The list interface: remembers every batch's steps as it returned them."""

    name = "recording-list"

    def __init__(self):
        super().__init__()
        self.outputs = []

    def __call__(self, views):
        steps = super().__call__(views)
        self.outputs.append(list(steps))
        return steps


class RecordingArray(ReferenceStepper):
    """The array interface (view codes in, step codes out), remembering every output array."""

    name = "recording-array"

    def __init__(self):
        super().__init__()
        self.outputs = []

    def step_codes(self, codes):
        out = super().step_codes(codes).copy()
        self.outputs.append([STEPS[c] for c in out.tolist()])
        return out


def literals(expr: str) -> list[str]:
    """The problem's numbers in the order solve() evaluates them: sign, then digits units first."""
    out = []

    def walk(node):
        if node[0] == "num":
            out.append(("-" if node[2] else "+") + (node[1].lstrip("0") or "0")[::-1])
        elif node[0] == "neg":
            walk(node[1])
        elif node[0] == "bin":
            walk(node[2])
            walk(node[3])
        else:
            for a in node[2]:
                walk(a)

    walk(parse(expr))
    return out


def provenance_errors(expr: str, sol, outputs: list) -> list[str]:
    """Every cell on the worksheet that no stepper output row or problem number accounts for."""
    store = sol.worksheet.store
    ids = np.unique(sol.worksheet.cell_ids())
    o = store.origins(ids)
    want = literals(expr)
    errors = []
    claimed = set()
    for cid, kind, batch, row, lit in zip(ids.tolist(), *(o[k].tolist() for k in ("kind", "batch", "row", "literal"))):
        sym = SYMBOLS[store.sym[cid]]
        if kind == 0:
            ok = 0 <= lit < len(want) and 0 <= row < len(want[lit]) and want[lit][row] == sym
            if not ok or (lit, row) in claimed:
                errors.append(f"input cell {cid} holds {sym!r} at number {lit}, position {row}")
            claimed.add((lit, row))
            continue
        if not (0 <= batch < len(outputs) and 0 <= row < len(outputs[batch])):
            errors.append(f"cell {cid} names batch {batch}, row {row}, which the stepper never returned")
            continue
        step = outputs[batch][row]
        if (step.sym if kind == 1 else step.flag) != sym:
            errors.append(f"cell {cid} holds {sym!r}, but batch {batch} row {row} is {step}")
    return errors


PROBLEMS = [
    "987654321 + -123456789",
    "-1234 * 5678",
    "-98765 // 43",
    "98765 % -43",
    "sqrt(123456789)",
    "gcd(-462, 1071)",
    "-(5 - 8)",
    "(12 + 3) * (4 - 50) // 7",
    "31415926535 * -27182818284 + sqrt(99999999999999)",
    # long enough for the batched paths: rows of one digit share a chain (Sheet.write_shared),
    # additions written all at once (Sheet.write_masked)
    "1234567890" * 6 + " * -" + "111222333444555666777888999000",
    # past 64 columns: sums of two rows of the same two digits read the same cells and share theirs
    "9876543210" * 8 + " * " + "12" * 40,
]


@pytest.mark.parametrize("recording", [RecordingList, RecordingArray])
@pytest.mark.parametrize("parallel", [True, False])
@pytest.mark.parametrize("expr", PROBLEMS)
def test_every_cell_is_a_stepper_output_row_or_a_problem_digit(expr, parallel, recording):
    st = recording()
    sol = solve(expr, st, parallel=parallel)
    assert len(st.outputs) == sol.batches
    assert provenance_errors(expr, sol, st.outputs) == []
    kinds = sol.worksheet.store.origins(np.unique(sol.worksheet.cell_ids()))["kind"]
    assert (kinds == 0).sum() == sum(len(s) for s in literals(expr)) and (kinds > 0).sum() > 0


def test_the_check_catches_a_runtime_that_writes_its_own_one_through_an_input_cell(monkeypatch):
    """The square root's odd number 20p+1: its units digit written as an input cell instead of
    being gathered from the ODD step."""

    def own_one(sheet, proot, p):
        twice = yield from P.add_rows(sheet, proot, proot, "2p")
        odd = sheet.row("20p+1", 2 * p)
        odd.put(0, int(sheet.store.inputs("1")[0]))
        odd.share(1, twice.ids)
        return odd

    expr = "sqrt(123456789)"
    st = RecordingArray()
    sol = solve(expr, st, parallel=False)
    assert provenance_errors(expr, sol, st.outputs) == []
    monkeypatch.setattr(P, "_odd_number", own_one)
    st = RecordingArray()
    sol = solve(expr, st, parallel=False)
    assert sol.value == 11111  # the runtime's own "1" is the right digit: only provenance sees it
    assert any("input cell" in e for e in provenance_errors(expr, sol, st.outputs))


@pytest.mark.parametrize("parallel", [True, False])
def test_the_check_catches_a_runtime_that_writes_one_digit_past_the_write_path(monkeypatch, parallel):
    """After a bulk write, the runtime changes one of the digits itself (a symbol no step gave)."""
    done = []

    def tamper(row):
        written = row.ids[row.ids >= 0]
        if not done and len(written) > 3 and row.store.sym[written[2]] < 10:
            cid = written[2]
            row.store.sym[cid] = (row.store.sym[cid] + 1) % 10  # one digit of its own
            done.append(int(cid))

    one, many, masked = Sheet.write, Sheet.write_steps, Sheet.write_masked

    def write(row, i, step, fld="sym"):
        cid = one(row, i, step, fld)
        tamper(row)
        return cid

    def write_steps(row, cols, batch, rows, fld="sym"):
        many(row, cols, batch, rows, fld)
        tamper(row)

    def write_masked(targets, starts, rows, mask, batch, fld):
        masked(targets, starts, rows, mask, batch, fld)
        for t in targets:
            if t is not None:
                tamper(t)

    monkeypatch.setattr(Sheet, "write", staticmethod(write))
    monkeypatch.setattr(Sheet, "write_steps", staticmethod(write_steps))
    monkeypatch.setattr(Sheet, "write_masked", staticmethod(write_masked))
    for expr in ("987654321 + 123456789", "-1234 * 5678", "sqrt(123456789)"):
        done.clear()
        st = RecordingArray()
        sol = solve(expr, st, parallel=parallel)
        assert done and any(f"cell {done[0]} holds" in e for e in provenance_errors(expr, sol, st.outputs)), expr


def test_the_check_catches_a_digit_written_under_a_forged_origin(monkeypatch):
    """A digit the runtime chose itself, recorded as if a stepper output row had given it."""
    original = Sheet.write

    def write(row, i, step, fld="sym"):
        cid = original(row, i, step, fld)
        if i == 0 and row.name == "q":
            row.store.sym[cid] = 7 if row.store.sym[cid] != 7 else 8
        return cid

    monkeypatch.setattr(Sheet, "write", staticmethod(write))
    expr = "-98765 // 43"
    st = RecordingList()
    sol = solve(expr, st)
    assert provenance_errors(expr, sol, st.outputs)


def test_symbols_reach_the_store_only_through_the_sheet():
    """Structural: only sheet.py assigns a cell's symbol or makes cells, and only the driver
    makes the step arrays the write path gathers from."""
    assign = re.compile(r"\.sym\[[^\]]*\]\s*=[^=]|\b_written1?\(|\.inputs\(")
    offenders = [p.name for p in ROOT.rglob("*.py") if p.name not in ("sheet.py",) and assign.search(p.read_text())]
    assert offenders == []
    makers = [p.name for p in ROOT.rglob("*.py") if re.search(r"\bBatchSteps\(", p.read_text())]
    assert makers == ["runtime.py"]


def test_scans_share_a_pattern_only_when_they_read_the_same_cells():
    """Long scans of one batch whose cells agree where the fingerprint looks (first, middle,
    last column) but differ elsewhere keep their own patterns (and chains, and cells)."""
    sheet = Worksheet().new("t")
    x1 = sheet.input_row("x1", "1234567890" * 10)
    x2 = sheet.shared_row("x2", x1.ids)
    x2.ids[10] = sheet.store.inputs("+7")[1]  # one other cell, away from the fingerprint
    x3 = sheet.shared_row("x3", x1.ids)  # the same cells as x1
    y = sheet.input_row("y", "9876543210" * 10)

    def scan(x):
        return SelectScan(ADD, x, y, sheet.row("c"), sheet.row("s"), 0, 102, None, FAMILIES[ADD])

    s1, s2, s3 = scan(x1), scan(x2), scan(x3)
    SelectScan.distinct_all([s1, s2, s3])
    assert s1.pattern is s3.pattern and s2.pattern is not s1.pattern
