"""The sheet: rows of cells, as on paper.

Column 0 is the units column.  A cell remembers where its symbol came from: the problem's
input, or the Step (and the field of it) that a stepper emitted.  `Sheet.write` is the only
way to put a computed symbol on a sheet, and it takes a Step, so the runtime cannot write a
symbol of its own making.  Rows may share cells (the runtime lays a new row over cells that
already exist, e.g. a brought-down digit): sharing moves no symbol and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .symbols import BLANK, DIGITS, MINUS, PLUS, Step

INPUT = "input"


def input_number(digits: str, negative: bool = False) -> tuple[Cell, list]:
    """A problem's own number as input cells: (sign cell, digit cells units first).  Input
    cells and Sheet.write are the only ways a cell comes to exist."""
    digits = digits.lstrip("0") or "0"
    return Cell(MINUS if negative else PLUS, INPUT), [Cell(ch, INPUT) for ch in reversed(digits)]


class Cell:
    __slots__ = ("sym", "origin", "field")

    def __init__(self, sym: str, origin, fld: str | None = None):
        self.sym = sym
        self.origin = origin  # INPUT, or the Step object this symbol came from
        self.field = fld  # "sym" or "flag" for step-written cells


@dataclass
class Row:
    name: str
    cells: list = field(default_factory=list)  # index 0 = units; None = never written
    sign: Cell | None = None
    offset: int = 0  # drawn shifted left by this many columns

    def sym(self, i: int) -> str:
        if 0 <= i < len(self.cells):
            c = self.cells[i]
            if c is not None:
                return c.sym
        return BLANK

    def cell(self, i: int):
        return self.cells[i] if 0 <= i < len(self.cells) else None

    def put(self, i: int, cell: Cell) -> None:
        cells = self.cells
        if i >= len(cells):
            cells.extend([None] * (i + 1 - len(cells)))
        cells[i] = cell

    def width(self) -> int:
        return len(self.cells)

    def text(self) -> str:
        return "".join(self.sym(i) for i in reversed(range(len(self.cells))))


class Sheet:
    """One block of work: the rows one procedure used, in the order it made them."""

    def __init__(self, title: str):
        self.title = title
        self.rows: list[Row] = []
        self.last_view = None  # ((row, col), ...) positions of the last view, for drawing

    def row(self, name: str, offset: int = 0) -> Row:
        r = Row(name, offset=offset)
        self.rows.append(r)
        return r

    def input_row(self, name: str, digits: str, sign: str = PLUS) -> Row:
        """Write a problem operand (most significant digit first) as input cells."""
        if not digits or any(ch not in DIGITS for ch in digits):
            raise ValueError(f"not a digit string: {digits!r}")
        r = self.row(name)
        r.cells = [Cell(ch, INPUT) for ch in reversed(digits)]
        r.sign = Cell(sign, INPUT)
        return r

    def shared_row(self, name: str, cells: list, sign: Cell | None = None, offset: int = 0) -> Row:
        """A row laid over existing cells: no symbol is written."""
        r = self.row(name, offset)
        r.cells = list(cells)
        r.sign = sign
        return r

    @staticmethod
    def write(row: Row, i, step: Step, fld: str = "sym") -> Cell:
        """The only write path for computed symbols. `i` is a column or "sign"."""
        cell = Cell(getattr(step, fld), step, fld)
        if i == "sign":
            row.sign = cell
        else:
            row.put(i, cell)
        return cell

    def text(self) -> str:
        width = max([r.width() + r.offset for r in self.rows] + [1]) + 1
        lines = [f"[{self.title}]"]
        for r in self.rows:
            sign = r.sign.sym if r.sign is not None and r.sign.sym == MINUS else " "
            body = (sign + r.text()).rjust(width + 1)
            if r.offset:
                body = body[r.offset :] + " " * r.offset
            lines.append(f"{r.name:>8} {body}")
        return "\n".join(lines)


class Worksheet:
    """All blocks of one solve, in order."""

    def __init__(self):
        self.sheets: list[Sheet] = []

    def new(self, title: str) -> Sheet:
        s = Sheet(title)
        self.sheets.append(s)
        return s

    def text(self) -> str:
        return "\n\n".join(s.text() for s in self.sheets)

    def cells(self):
        """Every cell on every row (shared cells once per row that shows them)."""
        for s in self.sheets:
            for r in s.rows:
                if r.sign is not None:
                    yield r.sign
                for c in r.cells:
                    if c is not None:
                        yield c
