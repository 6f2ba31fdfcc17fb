"""The procedures: signed addition and subtraction, long multiplication, long division,
square root and gcd, each laid out on a sheet block and run as a generator (see runtime.py).

A number on the sheet is a `Num`: a sign cell and its digit cells (units first).  Procedures
pass numbers to one another by sharing cells; nothing is re-written.  Where a procedure must
decide (which way to subtract, whether a trial subtraction fitted, when a gcd is done) it
decides from a flag that a step emitted; where it must place things (which column, which
row, how many columns a remainder keeps) it uses positions only.
"""

from __future__ import annotations

import numpy as np

from .carry_select import scan_all, select_scans
from .chains import blanks
from .codes import SYMBOLS, text_of, view_code
from .digits import to_digits, to_int
from .errors import InputError, StepperFault
from .runtime import (
    FAMILIES,
    PARALLEL,
    Ask,
    Presented,
    ask,
    expect,
    scan,
    select_probes,
    sign_code,
    speculate,
    together,
)
from .sheet import EMPTY, Cell, Cells, Row, Sheet, Store, number_cells
from .symbols import (
    ABS,
    ADD,
    ADD2,
    ADJ,
    BLANK,
    CMP,
    CMP_EQ,
    DQ,
    HALT,
    INC,
    MINUS,
    MUL,
    NEG,
    NONZERO_FLAG,
    ODD,
    PLUS,
    SGN_ADD,
    SGN_DIV,
    SGN_MUL,
    SGN_SUB,
    SUB,
    SWAP,
    ZERO_FLAG,
    ZT,
)
from .trials import ADD2_DIGITS, DQ_STATES, digits_and, trial_probes  # noqa: F401  (DQ_STATES: derive/js_constants.py, tests)


class Num:
    """A number on the sheet: its store, its sign cell and its digit cells (units first)."""

    __slots__ = ("store", "sign_id", "ids")

    def __init__(self, store: Store, sign_id: int, ids: np.ndarray):
        self.store, self.sign_id, self.ids = store, int(sign_id), ids

    sign = property(lambda self: None if self.sign_id < 0 else Cell.at(self.store, self.sign_id))
    cells = property(lambda self: Cells(self.store, self.ids))

    @property
    def digits(self) -> str:
        return text_of(self.store.sym[self.ids[::-1]])

    def value(self) -> int:
        """Read a number off the sheet (reading writes nothing)."""
        syms = self.store.sym[self.ids]
        if not len(syms) or syms.max() > 9 or self.ids.min() < 0:
            raise StepperFault(f"a result row holds non-digit symbols: {self.digits!r}")
        sign = SYMBOLS[self.store.sym.item(self.sign_id)] if self.sign_id >= 0 else None
        if sign not in (PLUS, MINUS):
            raise StepperFault(f"a result sign cell holds {sign if sign is not None else 'nothing'!r}")
        if len(syms) <= 18:  # digit codes 0-9 are the digits: a few, added up in plain Python
            v = 0
            for d in reversed(syms.tolist()):
                v = v * 10 + d
        else:
            v = to_int((syms[::-1] + 48).tobytes().decode())  # as ASCII digits
        return -v if sign == MINUS else v


def operand(digits: str, negative: bool = False, store: Store | None = None) -> Num:
    """A problem's own number as input cells (the runtime writes none of it)."""
    store = store if store is not None else Store()
    ids = number_cells(store, digits, negative)
    return Num(store, ids[0], ids[1:])


def operand_of(value: int, store: Store | None = None) -> Num:
    return operand(to_digits(value), value < 0, store)


def canonical(cells) -> Cells:
    """Drop leading zero cells (keeping one): a position choice, no symbol is written."""
    store, ids = cells.store, cells.ids
    if not len(ids):
        return cells
    if len(ids) <= 64:
        syms, cids, n = store.sym[ids].tolist(), ids.tolist(), len(ids)
        while n > 1 and (cids[n - 1] < 0 or syms[n - 1] == 0):
            n -= 1
        gap = -1 in cids[:n]
    else:
        nonzero = np.flatnonzero((ids >= 0) & (store.sym[ids] != 0))
        n = int(nonzero[-1]) + 1 if len(nonzero) else 1
        gap = (ids[:n] < 0).any()
    if gap:
        raise StepperFault("a result row has a gap")
    return Cells(store, ids[:n])


def _row(sheet: Sheet, name: str, num: Num | None = None, cells=None, offset=0) -> Row:
    if num is not None and num.store is sheet.store:  # cells of this store: their index arrays
        return sheet.shared_row(name, num.ids, num.sign_id, offset)
    if num is not None:
        return sheet.shared_row(name, num.cells, num.sign, offset)
    return sheet.shared_row(name, cells if cells is not None else EMPTY, None, offset)


# ---------------------------------------------------------------- magnitudes


def add_rows(sheet: Sheet, x: Row, y: Row, name="sum", start=0, offset=0):
    """x + y from column `start` up (columns below it are x's cells, shared)."""
    carry, out = _sum_rows(sheet, x, name, start, offset)
    return (yield from _added(x, y, carry, out, start))


def _sum_rows(sheet: Sheet, x: Row, name: str, start: int, offset: int) -> tuple:
    carry = sheet.row("carry", offset)
    out = sheet.row(name, offset)
    _show_below(out, x, start, {})
    return carry, out


def _show_below(out: Row, x: Row, start: int, views: dict) -> None:
    """Show x's cells below `start` (start >= 0) in `out` (not copied: the scan's write makes the
    row's own array; a read-only view is copied before any change).  `views`: the views made so
    far, by (x's index array, start): sums of the same rows show one."""
    key = (id(x.ids), start)
    shown = views.get(key)
    if shown is None:
        shown = views[key] = x.ids[:start]
        if len(shown):
            shown.flags.writeable = False
    if len(shown):
        out.ids = shown


def add_rows_all(sheet: Sheet, pairs: list):
    """add_rows of each (x, y, start, offset), all in one batch: in the parallel mode one
    carry-select scan each, with no generator per addition (a level of a product's sum)."""
    n = len(pairs)
    offsets = [None] * (2 * n)
    offsets[0::2] = offsets[1::2] = [offset for _, _, _, offset in pairs]
    made = sheet.new_rows(["carry", "sum"] * n, offsets)  # (each pair's carry row, then its sum row)
    carries, outs = made[0::2], made[1::2]
    xs, ys, starts = [x for x, _, _, _ in pairs], [y for _, y, _, _ in pairs], [s for _, _, s, _ in pairs]
    views: dict = {}
    for x, start, out in zip(xs, starts, outs):
        _show_below(out, x, start, views)
    parts = select_scans(ADD, xs, ys, carries, outs, starts) if PARALLEL.get() else None
    if parts is None:
        return (yield from together(map(_added, xs, ys, carries, outs, starts)))
    for step, _ in (yield from scan_all(parts)) or ():
        expect(step, (HALT,), "addition")
    return outs


def _added(x: Row, y: Row, carry: Row, out: Row, start: int):
    step, _ = yield from scan(ADD, x, y, carry, out, start)
    expect(step, (HALT,), "addition")
    return out


def sub_rows(sheet: Sheet, x: Row, y: Row, name="diff", offset=0):
    """x - y column by column; returns (row, final borrow symbol)."""
    borrow = sheet.row("borrow", offset)
    out = sheet.row(name, offset)
    step, _ = yield from scan(SUB, x, y, borrow, out)
    expect(step, (HALT,), "subtraction")
    return out, step.flag


def compare_rows(sheet: Sheet, x: Row, y: Row):
    """Compare |x| and |y|; the final step writes <, = or > into a flag cell."""
    flag = sheet.row("cmp")
    step, _ = yield from scan(CMP_EQ, x, y)
    expect(step, (HALT,), "comparison")
    Sheet.write(flag, 0, step)
    return flag


def zero_test(sheet: Sheet, x: Row, name="zero?"):
    flag = sheet.row(name)
    step, _ = yield from scan(ZT, x)
    expect(step, (HALT,), "zero test")
    Sheet.write(flag, 0, step)
    if step.sym not in (ZERO_FLAG, NONZERO_FLAG):
        raise StepperFault(f"zero test wrote {step.sym!r}")
    return flag


def product_rows(sheet: Sheet, x: Row, y: Row):
    """|x| * |y|: one partial-product row per digit of y, all rows advancing together (one
    batch per column), then the rows added in, each shifted one more column."""
    store = sheet.store
    store.reserve(3 * x.width() * y.width() // 2)  # about the cells it writes (rows of one digit share theirs)
    w, cids, syms = y.width(), y.ids.tolist(), y.syms(0, y.width())
    names = {c: f"x{SYMBOLS[c]}" for c in set(syms.tolist())}  # a digit's rows' name (made once, not per row)
    labels = ["carry", None] * w
    labels[1::2] = [names[c] for c in syms.tolist()]
    offsets = [None] * (2 * w)
    offsets[0::2] = offsets[1::2] = range(w)
    made = sheet.new_rows(labels, offsets)  # (each digit's carry row, then its partial row)
    carries, partial = made[0::2], made[1::2]
    fixed = [None if cid < 0 else Cell.at(store, cid) for cid in cids]
    codes = np.where(y.ids < 0, -1, syms).tolist()  # each digit's code (-1: no cell)
    parallel = PARALLEL.get()
    parts = select_scans(MUL, [x] * w, [None] * w, carries, partial, [0] * w, (fixed, codes)) if parallel else None
    if parts is not None:  # every row one carry-select scan, with no generator per row
        for step, _ in (yield from scan_all(parts)) or ():
            expect(step, (HALT,), "partial product")
    else:
        yield from together(map(_partial_row, [x] * w, fixed, carries, partial))
    if parallel:
        return (yield from _sum_tree(sheet, [(row, j) for j, row in enumerate(partial)]))
    total = partial[0]
    for j in range(1, len(partial)):
        shifted = Row.shifted(partial[j], j)  # not drawn twice
        total = yield from add_rows(sheet, total, shifted, "sum", start=j)
    return total


def _sum_tree(sheet: Sheet, items: list):
    """Add shifted rows pairwise, all pairs of a level together: log2(rows) levels."""
    while len(items) > 1:
        pairs, shifted = [], {}
        for (r1, s1), (r2, s2) in zip(items[0::2], items[1::2]):
            key = (id(r2.ids), s2 - s1)  # rows that show one array (one digit's partial rows): one shifted row
            if key not in shifted:
                shifted[key] = (r2, s2 - s1)
            pairs.append((r1, key, s2 - s1, s1))
        ys = dict(zip(shifted, _shifted_all(list(shifted.values()))))
        pairs = [(r1, ys[key], d, s1) for r1, key, d, s1 in pairs]
        sums = yield from add_rows_all(sheet, pairs)
        nxt = list(zip(sums, [s1 for _, _, _, s1 in pairs]))
        if len(items) % 2:
            nxt.append(items[-1])
        items = nxt
    return items[0][0]


def _shifted_all(rows: list) -> list:
    """Row.shifted of each (row, shift), as read-only views of one array (a level's addends: one
    copy, not an array each)."""
    if len(rows) < 2:
        return [Row.shifted(r, d) for r, d in rows]
    buf = np.concatenate([a for r, d in rows for a in (blanks(d), r.ids)])
    buf.flags.writeable = False
    ends = np.cumsum([d + len(r.ids) for r, d in rows]).tolist()
    return [Row(r.name, r.store, buf[e - d - len(r.ids) : e]) for (r, d), e in zip(rows, ends)]


def _partial_row(x: Row, digit_cell: Cell, carry: Row, out: Row):
    step, _ = yield from scan(MUL, x, None, carry, out, fixed=digit_cell)
    expect(step, (HALT,), "partial product")
    return out


def increment(sheet: Sheet, x: Row, name="x+1", op=INC):
    """x + 1 (or x + 2 with op ADD2): only the columns the carry reaches are written."""
    out = sheet.row(name, x.offset)
    step, i = yield from scan(op, x, None, None, out)
    expect(step, (HALT,), "increment")
    out.share(i + 1, x.ids[i + 1 :])
    return out


def divide_rows(sheet: Sheet, a: Row, b: Row):
    """Long division of magnitudes |a| = q|b| + r, 0 <= r < |b|.

    For each quotient position the runtime brings down one digit of a (sharing its cell) and
    subtracts |b| until a subtraction borrows; a DQ step reads that borrow and the digit so far
    and writes the next count, or declares the digit final.  The remainder keeps |b|'s width
    plus one column; its top column is zero whenever the steps are right.  In the parallel
    mode all trials of one quotient digit are one batch (`trial_probes`, `speculate`).
    """
    la, lb = a.width(), b.width()
    quotient = sheet.row("q")
    if la < lb:
        rounds = [(0, a.ids.copy())]
        rem = None
    else:
        rounds = None
        rem = a.ids[la - lb + 1 :]
    positions = range(la - lb, -1, -1) if rounds is None else [0]
    for k in positions:
        cur = rounds[0][1] if rounds is not None else np.concatenate([a.ids[k : k + 1], rem[:lb]])
        r = _row(sheet, "r", cells=cur, offset=k)
        trials = _quotient_digit(sheet, r, b, quotient, k)
        if PARALLEL.get():
            r = yield from speculate([trial_probes(r, b, (quotient, k))], trials)
        else:
            r = yield from trials
        rem = r.ids
    return quotient, Cells(sheet.store, rem[: max(lb, 1)])


def _quotient_digit(sheet: Sheet, r: Row, b: Row, quotient: Row, k: int):
    """The trials of one quotient digit (sequential code): subtract |b| until a subtraction
    borrows, counting with DQ steps; returns the last row that fitted (the remainder)."""
    for _trial in range(10):
        t, borrow = yield from sub_rows(sheet, r, b, "-b", offset=k)
        step = yield from ask(view_code(DQ, borrow, quotient.sym(k), BLANK), ((t, None), (quotient, k), None))
        Sheet.write(quotient, k, step)
        if expect(step, (SUB, HALT), "quotient digit") == HALT:
            return r
        r = t
    raise StepperFault("a quotient digit counted past 9")


def sqrt_rows(sheet: Sheet, a: Row):
    """Digit-by-digit square root: for each pair of digits, subtract 20p+1, 20p+3, ... until a
    subtraction borrows; the count is the next root digit (a DQ step, as in division).  In the
    parallel mode each root digit is two batches: 2p with the odd number's units digit, then
    all trials (`speculate`)."""
    la = a.width()
    root = EMPTY
    rem = EMPTY
    parallel = PARALLEL.get()
    odd_code = view_code(ODD, BLANK, BLANK, BLANK)
    for p in range((la + 1) // 2 - 1, -1, -1):
        r = _row(sheet, "r", cells=np.concatenate([a.ids[2 * p : 2 * p + 2], rem]), offset=2 * p)
        proot = _row(sheet, "p", cells=root)
        first = _odd_number(sheet, proot, p)
        if parallel:
            parts = [select_probes(ADD, proot, proot, BLANK, 0, proot.width() + 2, FAMILIES[ADD]), Ask(odd_code)]
            odd = yield from speculate(parts, first)
        else:
            odd = yield from first
        digit = sheet.row("digit")
        trials = _root_digit(sheet, r, odd, digit, p)
        if parallel:
            units, tens = odd.sym(0), odd.sym(1)
            parts = [
                trial_probes(r, odd, (digit, 0), free_y=2),
                Presented(
                    [view_code(ADD2, d, BLANK, BLANK) for d in ADD2_DIGITS],
                    where=lambda odd=odd, u=units: [((odd, 0), None, None) if d == u else None for d in ADD2_DIGITS],
                ),
                Presented(
                    [view_code(INC, d, BLANK, BLANK) for d in digits_and(tens)],
                    where=lambda odd=odd, t=tens: [((odd, 1), None, None) if d == t else None for d in digits_and(t)],
                ),
            ]
            r = yield from speculate(parts, trials)
        else:
            r = yield from trials
        root = np.concatenate([digit.ids[:1], root])
        rem = r.ids[: len(root) + 1]
    return Cells(sheet.store, root)


def _odd_number(sheet: Sheet, proot: Row, p: int):
    """20p+1: the row 2p (an addition p + p) with a units digit 1 from an ODD step."""
    twice = yield from add_rows(sheet, proot, proot, "2p")
    odd = sheet.row("20p+1", 2 * p)
    step = yield from ask(view_code(ODD, BLANK, BLANK, BLANK), None)
    expect(step, (HALT,), "odd number")
    Sheet.write(odd, 0, step)
    odd.share(1, twice.ids)
    return odd


def _root_digit(sheet: Sheet, r: Row, odd: Row, digit: Row, p: int):
    """The trials of one root digit (sequential code): subtract 20p+1, 20p+3, ... until a
    subtraction borrows, counting with DQ steps; returns the last row that fitted."""
    for _trial in range(10):
        t, borrow = yield from sub_rows(sheet, r, odd, "-odd", offset=2 * p)
        step = yield from ask(view_code(DQ, borrow, digit.sym(0), BLANK), ((t, None), (digit, 0), None))
        Sheet.write(digit, 0, step)
        if expect(step, (SUB, HALT), "root digit") == HALT:
            return r
        r = t
        odd = yield from increment(sheet, odd, "+2", op=ADD2)
    raise StepperFault("a root digit counted past 9")


# ---------------------------------------------------------------- signed procedures


def _num(row: Row, cells) -> Num:
    return Num(row.store, row.sign_id, cells.ids if isinstance(cells, Cells) else cells)


def signed_add(sheet: Sheet, x: Num, y: Num, subtract=False):
    op = SGN_SUB if subtract else SGN_ADD
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    result_sign = sheet.row("sign")
    step = yield from ask(*sign_code(op, a, b))
    if step.sym != BLANK:
        Sheet.write(result_sign, "sign", step)
    if expect(step, (ADD, CMP), "sign") == ADD:
        out = yield from add_rows(sheet, a, b, "|a|+|b|")
    else:
        flag = yield from compare_rows(sheet, a, b)
        step = yield from ask(*sign_code(op, a, b, flag, 0))
        Sheet.write(result_sign, "sign", step)
        swap = expect(step, (SUB, SWAP), "sign") == SWAP
        top, bottom = (b, a) if swap else (a, b)
        out, borrow = yield from sub_rows(sheet, top, bottom, "|b|-|a|" if swap else "|a|-|b|")
        if borrow != BLANK:
            raise StepperFault("a subtraction after a comparison borrowed at the top")
    return _num(result_sign, canonical(out.cells))


def signed_mul(sheet: Sheet, x: Num, y: Num):
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    step = yield from ask(*sign_code(SGN_MUL, a, b))
    expect(step, (MUL,), "sign")
    total = yield from product_rows(sheet, a, b)
    Sheet.write(total, "sign", step)
    return _num(total, canonical(total.cells))


def signed_divmod(sheet: Sheet, x: Num, y: Num):
    """Floor division, as Python's // and %: q = floor(x / y), r = x - q*y, r has y's sign."""
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    zf = yield from zero_test(sheet, b, "b=0?")
    if zf.sym(0) == ZERO_FLAG:
        raise InputError("division by zero")
    q, rem = yield from divide_rows(sheet, a, b)
    r = _row(sheet, "r", cells=canonical(rem))
    rz = yield from zero_test(sheet, r, "r=0?")
    step = yield from ask(*sign_code(SGN_DIV, a, b, rz, 0))
    if expect(step, (HALT, ADJ), "sign") == ADJ:
        q = yield from increment(sheet, q, "q+1")
        r, borrow = yield from sub_rows(sheet, b, r, "|b|-r")
        if borrow != BLANK:
            raise StepperFault("the remainder adjustment borrowed at the top")
    Sheet.write(q, "sign", step)
    Sheet.write(r, "sign", step, "flag")
    return _num(q, canonical(q.cells)), _num(r, canonical(r.cells))


def signed_isqrt(sheet: Sheet, x: Num):
    a = _row(sheet, "a", x)
    if a.sign_sym() == MINUS and not (len(a.ids) == 1 and a.sym(0) == "0"):
        raise InputError("square root of a negative number")
    step = yield from ask(*sign_code(ABS, a, None))
    expect(step, (HALT,), "sign")
    root = yield from sqrt_rows(sheet, a)
    out = _row(sheet, "root", cells=root)
    Sheet.write(out, "sign", step)
    return _num(out, canonical(out.cells))


def signed_gcd(sheet: Sheet, x: Num, y: Num):
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    step = yield from ask(*sign_code(ABS, a, None))
    expect(step, (HALT,), "sign")
    limit = 5 * (a.width() + b.width()) + 10
    for _ in range(limit):
        zf = yield from zero_test(sheet, b, "b=0?")
        if zf.sym(0) == ZERO_FLAG:
            break
        _, rem = yield from divide_rows(sheet, a, b)
        a, b = b, _row(sheet, "r", cells=canonical(rem))
    else:
        raise StepperFault("gcd did not finish")
    out = _row(sheet, "gcd", cells=a.ids)
    Sheet.write(out, "sign", step)
    return _num(out, canonical(out.cells))


def negate(sheet: Sheet, x: Num):
    a = _row(sheet, "a", x)
    step = yield from ask(*sign_code(NEG, a, None))
    expect(step, (HALT,), "sign")
    out = _row(sheet, "-a", cells=a.ids)
    Sheet.write(out, "sign", step)
    return _num(out, out.ids)
