"""The sheet: rows of cells, as on paper, held as arrays.

Column 0 is the units column.  The cells of one worksheet live in one `Store`: a cell is an
index into its arrays (the symbol, as a code of sketchpad/codes.py, and where it came from),
and a row is an array of cell indices (-1: never written).  Rows share cells by holding the
same index: sharing moves no symbol and writes nothing.

A cell comes to exist in exactly two ways, both here: `Store.inputs` (a problem's own number:
each cell remembers which number and which digit of it) and the write path `Sheet.write*`,
which takes one batch's steps as the stepper returned them (`BatchSteps`, batch_steps.py) and
the rows it wants, and gathers the symbols itself.  So the runtime cannot put a symbol of its
own on a sheet, and every computed cell records the batch and the output row it was gathered
from (tests/test_provenance.py checks each one against that row).
"""

from __future__ import annotations

import numpy as np

from . import placing
from .batch_steps import BatchSteps, StepRow
from .chains import blanks
from .codes import BLANK_CODE, CODE_OF_BYTE, STEP_FLAG, STEP_SYM, SYMBOLS, step_fields, sym_code
from .sheet_text import block_text, origins_text, symbols_text
from .symbols import DIGITS, MINUS, PLUS, Step

INPUT = "input"
FIELDS = {"sym": 1, "flag": 2}  # a written cell holds its step's symbol or its flag; 0 = input
_NO_RUNS = np.zeros((0, 4), dtype=np.int64)
_COUNT = np.arange(64, dtype=np.int32)  # an input number's positions (src), for short numbers


class Store:
    """The cells of one worksheet (append-only arrays).  sym[-1] is always blank, so a gather
    through a row's indices reads a never-written cell (-1) as blank."""

    def __init__(self, capacity: int = 256):
        self.sym = np.empty(capacity, dtype=np.uint8)
        self.sym[-1] = BLANK_CODE
        self.src = np.zeros(capacity, dtype=np.int32)  # stepper output row, or the input digit's position
        self.n = 0
        # Runs of cells made by one call, rows of (first, batch, field, literal): cells from
        # first up to the next run's first came from batch (-1: input), field (0 input, 1 sym,
        # 2 flag), literal (the problem number of an input run, else -1).
        self._runs: list = []  # (first, batch, field, literal) tuples; `runs` is their array
        self._runs_array = _NO_RUNS
        self.literals: list[str] = []  # each problem number's symbols: sign, then digits units first

    def reserve(self, k: int) -> None:
        """Room for k more cells (a procedure that knows its size grows the arrays once)."""
        if self.n + k + 1 > len(self.sym):
            self._grow(self.n + k + 1)

    def _grow(self, cap: int) -> None:
        first = self.n
        sym = np.empty(cap, dtype=np.uint8)
        sym[:first] = self.sym[:first]
        sym[-1] = BLANK_CODE
        src = np.empty(cap, dtype=np.int32)
        src[:first] = self.src[:first]
        self.sym, self.src = sym, src

    def _alloc(self, k: int) -> int:
        first = self.n
        need = first + k + 1  # + the blank sentinel at the end
        if need > len(self.sym):
            self._grow(max(need, 2 * len(self.sym)))
        self.n = first + k
        return first

    def inputs(self, symbols: str) -> np.ndarray:
        """Cells for one problem number's symbols (sign, then digits units first)."""
        k = len(symbols)
        first = self._alloc(k)
        codes = symbols.encode().translate(CODE_OF_BYTE) if symbols.isascii() else b"\xff"
        if len(codes) == k and 255 not in codes:  # a sign and digits (the usual case): one copy
            self.sym[first : first + k] = np.frombuffer(codes, dtype=np.uint8)
        else:
            self.sym[first : first + k] = [sym_code(s) for s in symbols]
        self.src[first : first + k] = _COUNT[:k] if k <= len(_COUNT) else np.arange(k)
        ids = np.arange(first, first + k, dtype=np.int32)
        self._runs.append((first, -1, 0, len(self.literals)))
        self.literals.append(symbols)
        return ids

    @property
    def runs(self) -> np.ndarray:
        if len(self._runs_array) != len(self._runs):
            self._runs_array = np.array(self._runs, dtype=np.int64).reshape(-1, 4)
        return self._runs_array

    def _written1(self, sym: int, row: int, batch: int, field: int) -> int:
        first = self.n
        if first + 2 > len(self.sym):
            self._grow(2 * len(self.sym))
        self.n = first + 1
        self.sym[first] = sym
        self.src[first] = row
        self._runs.append((first, batch, field, -1))
        return first

    def _written(self, syms: np.ndarray, rows: np.ndarray, batch: int, field: int, ids: bool = True):
        """The new cells' indices (ids False: the first one; they are consecutive)."""
        first = self._alloc(len(syms))
        self.sym[first : first + len(syms)] = syms
        self.src[first : first + len(syms)] = rows
        self._runs.append((first, batch, field, -1))
        return np.arange(first, first + len(syms), dtype=np.int32) if ids else first

    def origins(self, ids) -> dict:
        """Where cells came from: kind (0 input, 1 step symbol, 2 step flag), batch, row (the
        stepper output row; for input cells the position in the number) and literal."""
        ids = np.asarray(ids, dtype=np.int64)
        runs = self.runs
        k = np.searchsorted(runs[:, 0], ids, side="right") - 1
        return {"kind": runs[k, 2], "batch": runs[k, 1], "row": self.src[ids], "literal": runs[k, 3]}

    def import_cells(self, cells) -> np.ndarray:
        """Indices here for Cell objects of another store (sheets built by hand): each copied
        with its symbol and origin, so provenance still names the batch and row."""
        out = np.full(len(cells), -1, dtype=np.int32)
        for j, c in enumerate(cells):
            if c is None:
                continue
            if c.store is self:
                out[j] = c.id
                continue
            o = c.store.origins([c.id])
            kind, batch, lit = int(o["kind"][0]), int(o["batch"][0]), int(o["literal"][0])
            if kind == 0:
                first = self._alloc(1)
                self._runs.append((first, -1, 0, len(self.literals)))
                self.literals.append(c.store.literals[lit][int(c.store.src[c.id])])
            else:
                first = self._alloc(1)
                self._runs.append((first, batch, kind, -1))
            self.sym[first] = c.store.sym[c.id]
            self.src[first] = 0 if kind == 0 else c.store.src[c.id]
            out[j] = first
        return out


class Cell:
    """A cell, seen from Python: its symbol and origin.  `Cell(sym, INPUT)` makes a lone input
    cell (a digit given by hand); computed cells exist only through Sheet.write."""

    __slots__ = ("store", "id")

    def __init__(self, sym: str, origin, fld: str | None = None):
        if origin != INPUT:
            raise TypeError("a computed cell is made only by Sheet.write, from a step")
        self.store = Store(4)
        self.id = int(self.store.inputs(sym)[0])

    @classmethod
    def at(cls, store: Store, cid: int) -> Cell:
        c = object.__new__(cls)
        c.store, c.id = store, int(cid)
        return c

    sym = property(lambda self: SYMBOLS[self.store.sym[self.id]])
    code = property(lambda self: int(self.store.sym[self.id]))

    @property
    def origin(self):
        """INPUT, or (batch, stepper output row) of the step this symbol was gathered from."""
        o = self.store.origins([self.id])
        return INPUT if o["kind"][0] == 0 else (int(o["batch"][0]), int(o["row"][0]))

    @property
    def field(self):
        return {0: None, 1: "sym", 2: "flag"}[int(self.store.origins([self.id])["kind"][0])]

    def __eq__(self, other):
        return isinstance(other, Cell) and other.store is self.store and other.id == self.id

    def __hash__(self):
        return hash((id(self.store), self.id))


class Cells:
    """A read-only sequence of cells (units first; None = never written): what `.cells` of a
    row or a number shows; `.ids` is the index array itself."""

    __slots__ = ("store", "ids")

    def __init__(self, store: Store, ids: np.ndarray):
        self.store, self.ids = store, ids

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return Cells(self.store, self.ids[k])
        cid = int(self.ids[k])
        return None if cid < 0 else Cell.at(self.store, cid)

    def __iter__(self):
        store = self.store
        return (None if c < 0 else Cell.at(store, c) for c in self.ids.tolist())

    def syms(self) -> np.ndarray:
        return self.store.sym[self.ids]


def ids_in(store: Store, cells) -> np.ndarray:
    """Cell indices in `store` for an index array, a Cells of this store, or Cell objects."""
    if isinstance(cells, np.ndarray):
        return cells.astype(np.int32, copy=False)
    if isinstance(cells, Cells) and cells.store is store:
        return cells.ids
    return store.import_cells(list(cells))


EMPTY = np.zeros(0, dtype=np.int32)


class Row:
    __slots__ = ("name", "store", "ids", "sign_id", "offset")

    def __init__(self, name: str, store: Store, ids: np.ndarray = EMPTY, sign_id: int = -1, offset: int = 0):
        self.name = name
        self.store = store
        self.ids = ids  # cell indices, index 0 = units; -1 = never written
        self.sign_id = sign_id
        self.offset = offset  # drawn shifted left by this many columns

    @classmethod
    def shifted(cls, source: Row, shift: int) -> Row:
        """`source` moved up by `shift` columns (an addend of a product's sum); not drawn."""
        return cls(source.name, source.store, np.concatenate((blanks(shift), source.ids)))

    def width(self) -> int:
        return len(self.ids)

    def syms(self, lo: int, hi: int) -> np.ndarray:
        """Symbol codes of columns lo..hi-1 (blank where nothing is written)."""
        ids, w = self.ids, len(self.ids)
        if 0 <= lo and hi <= w:
            return self.store.sym[ids[lo:hi]]
        at = np.full(max(0, hi - lo), -1, dtype=np.int32)  # -1 reads the blank at sym[-1]
        a, b = max(lo, 0), min(hi, w)
        if a < b:
            at[a - lo : b - lo] = ids[a:b]
        return self.store.sym[at]

    def code(self, i: int) -> int:
        return self.store.sym.item(self.ids.item(i)) if 0 <= i < len(self.ids) else BLANK_CODE

    def sym(self, i: int) -> str:
        return SYMBOLS[self.code(i)]

    def cell(self, i: int):
        return None if not 0 <= i < len(self.ids) or self.ids[i] < 0 else Cell.at(self.store, self.ids[i])

    @property
    def cells(self) -> Cells:
        return Cells(self.store, self.ids)

    @cells.setter
    def cells(self, cells) -> None:
        self.ids = ids_in(self.store, cells).copy()

    @property
    def sign(self):
        return None if self.sign_id < 0 else Cell.at(self.store, self.sign_id)

    def sign_sym(self, default: str = "_") -> str:
        return default if self.sign_id < 0 else SYMBOLS[self.store.sym[self.sign_id]]

    def put(self, i: int, cid: int) -> None:
        """Show an existing cell in column i (sharing: nothing is written)."""
        if i >= len(self.ids):
            self._widen(i + 1)
        self.own().ids[i] = cid

    def share(self, lo: int, ids: np.ndarray) -> None:
        """Show existing cells in columns lo, lo+1, ... (sharing: nothing is written)."""
        if len(ids):
            if lo + len(ids) > len(self.ids):
                self._widen(lo + len(ids))
            self.own().ids[lo : lo + len(ids)] = ids

    def own(self) -> Row:
        """This row with an index array of its own (rows of one digit's partial product show
        one read-only array until one of them changes)."""
        if not self.ids.flags.writeable:
            self.ids = self.ids.copy()
        return self

    def _widen(self, w: int) -> None:
        self.ids = np.concatenate([self.ids, blanks(w - len(self.ids))])

    def text(self) -> str:
        return symbols_text(self.store.sym, self.ids)

    def origins(self) -> str:
        """i(nput), s(tep symbol), f(step flag), . (never written) per column, highest first."""
        return origins_text(self.store, self.ids)


def input_number(digits: str, negative: bool = False, store: Store | None = None) -> tuple[Cell, Cells]:
    """A problem's own number as input cells: (sign cell, digit cells units first).  Input
    cells and Sheet.write are the only ways a cell comes to exist."""
    store = store if store is not None else Store()
    ids = number_cells(store, digits, negative)
    return Cell.at(store, ids[0]), Cells(store, ids[1:])


def number_cells(store: Store, digits: str, negative: bool = False) -> np.ndarray:
    """[sign cell, digit cells units first] of a problem number, in `store`."""
    digits = digits.lstrip("0") or "0"
    return store.inputs((MINUS if negative else PLUS) + digits[::-1])


class Sheet:
    """One block of work: the rows one procedure used, in the order it made them."""

    def __init__(self, title: str, store: Store | None = None):
        self.title = title
        self.store = store if store is not None else Store()
        self.rows: list[Row] = []

    def row(self, name: str, offset: int = 0) -> Row:
        r = Row(name, self.store, EMPTY, -1, offset)
        self.rows.append(r)
        return r

    def new_rows(self, names: list, offsets: list) -> list:
        """Rows as `row` makes them, many at once (a product's thousands)."""
        made = [Row(name, self.store, EMPTY, -1, offset) for name, offset in zip(names, offsets)]
        self.rows += made
        return made

    def input_row(self, name: str, digits: str, sign: str = PLUS) -> Row:
        """Write a problem operand (most significant digit first) as input cells."""
        if not digits or any(ch not in DIGITS for ch in digits):
            raise ValueError(f"not a digit string: {digits!r}")
        ids = self.store.inputs(sign + digits[::-1])
        r = self.row(name)
        r.ids, r.sign_id = ids[1:].copy(), int(ids[0])
        return r

    def shared_row(self, name: str, cells, sign=-1, offset: int = 0) -> Row:
        """A row laid over existing cells: no symbol is written."""
        r = self.row(name, offset)
        r.ids = ids_in(self.store, cells).copy()
        if isinstance(sign, Cell):
            sign = int(ids_in(self.store, [sign])[0])
        r.sign_id = -1 if sign is None else int(sign)
        return r

    @staticmethod
    def write(row: Row, i, step: StepRow, fld: str = "sym") -> int:
        """The write path for one computed symbol: field `fld` of the step in row `step.row`
        of its batch's stepper output.  `i` is a column or "sign"."""
        sym = step_fields()[step.batch.steps[step.row]][0 if fld == "sym" else 1]
        cid = row.store._written1(sym, step.row, step.batch.index, FIELDS[fld])
        if i == "sign":
            row.sign_id = cid
        else:
            row.put(i, cid)
        return cid

    @staticmethod
    def write_steps(row: Row, cols, batch: BatchSteps, rows, fld: str = "sym") -> None:
        """The write path for many: column cols[k] gets field `fld` of row rows[k] of the
        batch's stepper output (one gather; cols and rows may be lists, for a few cells)."""
        if len(cols) == 0:
            return
        if type(rows) is list and len(row.ids) <= 64:  # a short walk's few cells: plain Python
            steps, fields, k, n = batch.listed(), step_fields(), 0 if fld == "sym" else 1, len(rows)
            first = row.store._written([fields[steps[r]][k] for r in rows], rows, batch.index, FIELDS[fld], ids=False)
            n0, top = len(row.ids), cols[-1] + 1
            if cols[0] == n0 and top - n0 == n:  # the columns just above the row's (the usual case)
                new = np.arange(first, first + n, dtype=np.int32)
                row.ids = new if n0 == 0 else np.concatenate([row.ids, new])
                return
            ids = row.ids.tolist() + [-1] * (top - n0) if top > n0 else row.ids.tolist()
            for c, cid in zip(cols, range(first, first + n)):
                ids[c] = cid
            row.ids = np.array(ids, dtype=np.int32)  # a new array: nothing else shows it
            return
        syms = (STEP_SYM if fld == "sym" else STEP_FLAG)[batch.steps[rows]]
        ids = row.store._written(syms, rows, batch.index, FIELDS[fld])
        lo, top, n0 = int(cols[0]), int(cols[-1]) + 1, len(row.ids)
        if top - lo == len(ids) and n0 <= lo:  # consecutive columns above the row's: one new array
            row.ids = ids if n0 == lo == 0 else np.concatenate([row.ids, np.full(lo - n0, -1, dtype=np.int32), ids])
            return
        if top > n0:
            row._widen(top)
        row.own().ids[cols] = ids

    @staticmethod
    def write_shared(targets: list, cols: np.ndarray, batch: BatchSteps, rows: np.ndarray, fld: str) -> None:
        """The write path for rows that follow the same steps (a product's partial rows of one
        digit: the same views, so the same stepper output rows): column cols[k] gets field `fld`
        of row rows[k] of the batch's stepper output, gathered once; every row in `targets`
        shows those cells (sharing, as rows share any cell)."""
        if len(cols) == 0:
            return
        syms = (STEP_SYM if fld == "sym" else STEP_FLAG)[batch.steps[rows]]
        top = int(cols[-1]) + 1
        by_store: dict = {}
        for t in targets:
            by_store.setdefault(id(t.store), []).append(t)
        lo = int(cols[0])
        for group in by_store.values():
            ids = group[0].store._written(syms, rows, batch.index, FIELDS[fld])
            shown = np.full(top, -1, dtype=np.int32)  # the columns as every row of the group shows them
            shown[cols] = ids
            shown.flags.writeable = False  # shown by many rows: a row that changes copies it (Row.own)
            made: dict = {}  # rows that show the same cells below lo (a level's sums of one digit pair): one array
            for row in group:
                n0 = len(row.ids)
                if n0 == 0:  # a new row: it shows the group's array
                    row.ids = shown
                elif n0 <= lo:  # new cells above what the row shows: one new array, shared read-only
                    key = row.ids.tobytes()
                    if key not in made:
                        made[key] = np.concatenate((row.ids, shown[n0:]))
                        made[key].flags.writeable = False
                    row.ids = made[key]
                else:
                    if top > n0:
                        row._widen(top)
                    row.own().ids[cols] = ids

    @staticmethod
    def write_masked(targets: list, starts, rows, mask, batch: BatchSteps, fld: str, got=None) -> None:
        """The write path for many rows at once: where mask[s, j], column starts[s] + j of
        row targets[s] gets field `fld` of row rows[s, j] of the batch's stepper output (one
        gather for all of them).  The rows are new ones (nothing written there yet).  got: those
        steps already picked, row by row (placing.Masked: the compiled walk picks them as it goes)."""
        got = got if got is not None else placing.masked(rows, mask)
        if len(got.rows) == 0:
            return
        syms = placing.codes((STEP_SYM if fld == "sym" else STEP_FLAG)[batch.steps], got.rows)
        stores = {id(t.store): t.store for t in targets if t is not None}
        if len(stores) == 1:  # (the usual case) the cells in one run
            first = next(iter(stores.values()))._written(syms, got.rows, batch.index, FIELDS[fld], ids=False)
            cells = np.arange(first, first + len(got.rows), dtype=np.int32)
        else:  # scans of several worksheets in one batch: each store its own cells, in order
            owner = np.repeat([id(t.store) if t is not None else 0 for t in targets], got.counts)
            cells = np.empty(len(got.rows), dtype=np.int32)
            for key, store in stores.items():
                mine = owner == key
                cells[mine] = store._written(syms[mine], got.rows[mine], batch.index, FIELDS[fld])
        placing.lay_out(targets, starts, mask, got, cells)

    def text(self) -> str:
        return block_text(self.title, self.rows)


class Worksheet:
    """All blocks of one solve, in order, over one store of cells."""

    def __init__(self):
        self.store = Store()
        self.sheets: list[Sheet] = []

    def new(self, title: str) -> Sheet:
        s = Sheet(title, self.store)
        self.sheets.append(s)
        return s

    def text(self) -> str:
        return "\n\n".join(s.text() for s in self.sheets)

    def cell_ids(self) -> np.ndarray:
        """Every cell shown on a row (a shared cell once per row that shows it)."""
        parts = [np.array([r.sign_id], dtype=np.int32) for s in self.sheets for r in s.rows if r.sign_id >= 0]
        parts += [r.ids[r.ids >= 0] for s in self.sheets for r in s.rows]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)

    def cells(self):
        """Every cell on every row, as Cell objects (shared cells once per row that shows them)."""
        return (Cell.at(self.store, c) for c in self.cell_ids().tolist())


__all__ = ["BatchSteps", "Cell", "Cells", "INPUT", "Row", "Sheet", "Step", "StepRow", "Store", "Worksheet"]
