"""The runtime never writes a symbol of its own: every computed cell on every sheet came from
a step the stepper returned, and the only write path takes a Step."""

import pathlib
import re

import pytest

from sketchpad import ReferenceStepper, solve
from sketchpad.sheet import INPUT

ROOT = pathlib.Path(__file__).resolve().parents[1] / "sketchpad"


class RecordingStepper(ReferenceStepper):
    """Hands out fresh Step objects and remembers each one, to check cell provenance."""

    name = "recording"

    def __init__(self):
        super().__init__()
        self.issued = {}

    def __call__(self, views):
        steps = [type(s)(*s) for s in super().__call__(views)]  # new objects, same values
        for s in steps:
            self.issued[id(s)] = s
        return steps


@pytest.mark.parametrize("parallel", [True, False])
@pytest.mark.parametrize(
    "expr",
    [
        "987654321 + -123456789",
        "-1234 * 5678",
        "-98765 // 43",
        "98765 % -43",
        "sqrt(123456789)",
        "gcd(-462, 1071)",
        "-(5 - 8)",
        "(12 + 3) * (4 - 50) // 7",
    ],
)
def test_every_computed_cell_comes_from_an_issued_step(expr, parallel):
    st = RecordingStepper()
    sol = solve(expr, st, parallel=parallel)
    n = 0
    for cell in sol.worksheet.cells():
        if cell.origin == INPUT:
            continue
        n += 1
        assert id(cell.origin) in st.issued and st.issued[id(cell.origin)] is cell.origin
        assert cell.sym == getattr(cell.origin, cell.field)
    assert n > 0


def test_cells_are_created_only_by_the_sheet():
    """Structural: `Cell(` appears only in sheet.py, and there only in Sheet.write and the
    input cells of a problem's own numbers."""
    offenders = [p.name for p in ROOT.rglob("*.py") if p.name != "sheet.py" and re.search(r"\bCell\(", p.read_text())]
    assert offenders == []
    text = (ROOT / "sheet.py").read_text()
    made = [line.strip() for line in text.splitlines() if re.search(r"\bCell\(", line) and "class Cell" not in line]
    assert made and all("INPUT" in line or "Cell(getattr(step, fld), step, fld)" in line for line in made), made
