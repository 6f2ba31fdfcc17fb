"""The procedures: signed addition and subtraction, long multiplication, long division,
square root and gcd, each laid out on a sheet block and run as a generator (see runtime.py).

A number on the sheet is a `Num`: a sign cell and its digit cells (units first).  Procedures
pass numbers to one another by sharing cells; nothing is re-written.  Where a procedure must
decide (which way to subtract, whether a trial subtraction fitted, when a gcd is done) it
decides from a flag that a step emitted; where it must place things (which column, which
row, how many columns a remainder keeps) it uses positions only.
"""

from __future__ import annotations

from typing import NamedTuple

from .digits import to_digits, to_int
from .errors import InputError, StepperFault
from .runtime import FAMILIES, PARALLEL, Probe, ask, expect, scan, select_probes, speculate, together
from .sheet import Cell, Row, Sheet, input_number
from .symbols import (
    ABS,
    ADD,
    ADD2,
    ADJ,
    BLANK,
    CMP,
    CMP_EQ,
    DIGITS,
    DQ,
    HALT,
    INC,
    MINUS,
    MUL,
    NEG,
    NONZERO_FLAG,
    ODD,
    SGN_ADD,
    SGN_DIV,
    SGN_MUL,
    SGN_SUB,
    SUB,
    SWAP,
    ZERO_FLAG,
    ZT,
    View,
)


class Num(NamedTuple):
    sign: Cell
    cells: list  # digit cells, units first, at least one

    @property
    def digits(self) -> str:
        return "".join(c.sym for c in reversed(self.cells))

    def value(self) -> int:
        """Read a number off the sheet (reading writes nothing)."""
        d = self.digits
        if not d or any(ch not in DIGITS for ch in d):
            raise StepperFault(f"a result row holds non-digit symbols: {d!r}")
        if self.sign is None or self.sign.sym not in "+-":
            held = self.sign.sym if self.sign is not None else "nothing"
            raise StepperFault(f"a result sign cell holds {held!r}")
        v = to_int(d)
        return -v if self.sign.sym == MINUS else v


def operand(digits: str, negative: bool = False) -> Num:
    """A problem's own number as input cells (the runtime writes none of it)."""
    return Num(*input_number(digits, negative))


def operand_of(value: int) -> Num:
    return operand(to_digits(value), value < 0)


def canonical(cells: list) -> list:
    """Drop leading zero cells (keeping one): a position choice, no symbol is written."""
    n = len(cells)
    while n > 1 and (cells[n - 1] is None or cells[n - 1].sym == "0"):
        n -= 1
    out = cells[:n]
    if any(c is None for c in out):
        raise StepperFault("a result row has a gap")
    return out


def _row(sheet: Sheet, name: str, num: Num | None = None, cells=None, offset=0) -> Row:
    if num is not None:
        return sheet.shared_row(name, num.cells, num.sign, offset)
    return sheet.shared_row(name, cells or [], None, offset)


def _sign_view(op, a: Row, b: Row | None, c: Row | None = None, ci: int = 0):
    """The view of a sign decision: (op, sign of a, sign of b, flag cell)."""
    bs = b.sign.sym if b is not None else BLANK
    cs = c.sym(ci) if c is not None else BLANK
    return View(op, a.sign.sym, bs, cs), (
        (a, "sign"),
        (b, "sign") if b is not None else None,
        (c, ci) if c is not None else None,
    )


# ---------------------------------------------------------------- magnitudes


def add_rows(sheet: Sheet, x: Row, y: Row, name="sum", start=0, offset=0):
    """x + y from column `start` up (columns below it are x's cells, shared)."""
    carry = sheet.row("carry", offset)
    out = sheet.row(name, offset)
    for i in range(min(start, x.width())):
        out.put(i, x.cells[i])
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
    partial = []
    gens = []
    for j in range(y.width()):
        carry = sheet.row("carry", j)
        row = sheet.row(f"x{y.sym(j)}", j)
        partial.append(row)
        gens.append(_partial_row(x, y.cells[j], carry, row, y, j))
    yield from together(gens)
    if PARALLEL.get():
        return (yield from _sum_tree(sheet, [(row, j) for j, row in enumerate(partial)]))
    total = partial[0]
    for j in range(1, len(partial)):
        shifted = Row(partial[j].name, [None] * j + partial[j].cells)  # not drawn twice
        total = yield from add_rows(sheet, total, shifted, "sum", start=j)
    return total


def _sum_tree(sheet: Sheet, items: list):
    """Add shifted rows pairwise, all pairs of a level together: log2(rows) levels."""
    while len(items) > 1:
        gens = []
        for k in range(0, len(items) - 1, 2):
            (r1, s1), (r2, s2) = items[k], items[k + 1]
            shifted = Row(r2.name, [None] * (s2 - s1) + r2.cells)
            gens.append(add_rows(sheet, r1, shifted, "sum", start=s2 - s1, offset=s1))
        sums = yield from together(gens)
        nxt = [(row, items[2 * k][1]) for k, row in enumerate(sums)]
        if len(items) % 2:
            nxt.append(items[-1])
        items = nxt
    return items[0][0]


def _partial_row(x: Row, digit_cell: Cell, carry: Row, out: Row, y: Row, j: int):
    step, _ = yield from scan(MUL, x, None, carry, out, fixed=digit_cell)
    expect(step, (HALT,), "partial product")
    return out


def increment(sheet: Sheet, x: Row, name="x+1", op=INC):
    """x + 1 (or x + 2 with op ADD2): only the columns the carry reaches are written."""
    out = sheet.row(name, x.offset)
    step, i = yield from scan(op, x, None, None, out)
    expect(step, (HALT,), "increment")
    for k in range(i + 1, x.width()):
        out.put(k, x.cells[k])
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
        rounds = [(0, list(a.cells))]
        rem = None
    else:
        rounds = None
        rem = a.cells[la - lb + 1 :]
    positions = range(la - lb, -1, -1) if rounds is None else [0]
    for k in positions:
        cur = rounds[0][1] if rounds is not None else [a.cells[k]] + rem[:lb]
        r = _row(sheet, "r", cells=cur, offset=k)
        trials = _quotient_digit(sheet, r, b, quotient, k)
        if PARALLEL.get():
            r = yield from speculate(trial_probes(r, b, (quotient, k)), trials)
        else:
            r = yield from trials
        rem = r.cells
    return quotient, rem[: max(lb, 1)]


def _quotient_digit(sheet: Sheet, r: Row, b: Row, quotient: Row, k: int):
    """The trials of one quotient digit (sequential code): subtract |b| until a subtraction
    borrows, counting with DQ steps; returns the last row that fitted (the remainder)."""
    for _trial in range(10):
        t, borrow = yield from sub_rows(sheet, r, b, "-b", offset=k)
        step = yield from ask(View(DQ, borrow, quotient.sym(k), BLANK), ((t, None), (quotient, k), None))
        Sheet.write(quotient, k, step)
        if expect(step, (SUB, HALT), "quotient digit") == HALT:
            return r
        r = t
    raise StepperFault("a quotient digit counted past 9")


# Parallel quotient and root digits: what one digit's trials can present.
BORROWS = (BLANK, "1")
DQ_STATES = tuple(
    (bo, cnt) for cnt in (BLANK,) + tuple("123456789") for bo in BORROWS if not (bo == BLANK and cnt == "9")
)  # (borrow, count so far): the 19 DQ views of V
ADD2_DIGITS = tuple("13579")  # ADD2 reads the units digit of an odd number


def _digits_and(sym: str) -> tuple:
    return tuple(DIGITS) if sym in DIGITS else tuple(DIGITS) + (sym,)


_new = tuple.__new__
_SUB_BY_X = {
    (y, c): tuple(_new(View, (SUB, x, y, c)) for x in DIGITS) for y in tuple(DIGITS) + (BLANK,) for c in BORROWS
}


def trial_probes(r: Row, y: Row, count: tuple, free_y: int = 0) -> list:
    """Every view the trial subtractions of one digit could present, and the DQ views.

    Trial 1 subtracts y from r; trial j subtracts from trial j-1's difference, whose digits
    are not known before the batch: so column i (0 <= i < W = max(width r, width y)) is
    presented with every digit x (and r's own symbol there, when it is not a digit), under
    every borrow (none in column 0), and column W as (SUB, _, _, borrow).  y is fixed (a
    division's divisor), except in its lowest `free_y` columns, which are presented with every
    digit too (a square root's odd number grows by 2 per trial).  Then every DQ view (borrow,
    count so far); `count` = (row, column) of the digit being counted.  Order: column, then y,
    then borrow, then x.  A probe's position names only the cells that hold its symbols now
    (the page highlights those): a hypothetical digit has none."""
    W = max(r.width(), y.width())
    probes = []
    append = probes.append
    for i in range(W):
        yi, xi = y.sym(i), r.sym(i)
        here = ((r, i), (y, i), None)
        only_y = (None, (y, i), None)
        for yy in _digits_and(yi) if i < free_y else (yi,):
            w_x, w = (here, only_y) if yy == yi else (((r, i), None, None), None)
            for c in (BLANK,) if i == 0 else BORROWS:
                for v in _SUB_BY_X[(yy, c)]:
                    append(_new(Probe, (v, w_x if v[1] == xi else w)))
                if xi not in DIGITS:
                    append(Probe(View(SUB, xi, yy, c), w_x))
    for c in BORROWS:
        probes.append(Probe(View(SUB, BLANK, BLANK, c), ((r, W), (y, W), None)))
    row, col = count
    for bo, cnt in DQ_STATES:
        probes.append(Probe(View(DQ, bo, cnt, BLANK), (None, (row, col), None) if cnt == row.sym(col) else None))
    return probes


def sqrt_rows(sheet: Sheet, a: Row):
    """Digit-by-digit square root: for each pair of digits, subtract 20p+1, 20p+3, ... until a
    subtraction borrows; the count is the next root digit (a DQ step, as in division).  In the
    parallel mode each root digit is two batches: 2p with the odd number's units digit, then
    all trials (`speculate`)."""
    la = a.width()
    root: list = []
    rem: list = []
    parallel = PARALLEL.get()
    for p in range((la + 1) // 2 - 1, -1, -1):
        r = _row(sheet, "r", cells=a.cells[2 * p : 2 * p + 2] + rem, offset=2 * p)
        proot = _row(sheet, "p", cells=root)
        first = _odd_number(sheet, proot, p)
        if parallel:
            probes = select_probes(ADD, proot, proot, BLANK, 0, proot.width() + 2, FAMILIES[ADD])
            probes.append(Probe(View(ODD, BLANK, BLANK, BLANK), None))
            odd = yield from speculate(probes, first)
        else:
            odd = yield from first
        digit = sheet.row("digit")
        trials = _root_digit(sheet, r, odd, digit, p)
        if parallel:
            probes = trial_probes(r, odd, (digit, 0), free_y=2)
            probes += [
                Probe(View(ADD2, d, BLANK, BLANK), ((odd, 0), None, None) if d == odd.sym(0) else None)
                for d in ADD2_DIGITS
            ]
            probes += [
                Probe(View(INC, d, BLANK, BLANK), ((odd, 1), None, None) if d == odd.sym(1) else None)
                for d in _digits_and(odd.sym(1))
            ]
            r = yield from speculate(probes, trials)
        else:
            r = yield from trials
        root = [digit.cells[0]] + root
        rem = r.cells[: len(root) + 1]
    return root


def _odd_number(sheet: Sheet, proot: Row, p: int):
    """20p+1: the row 2p (an addition p + p) with a units digit 1 from an ODD step."""
    twice = yield from add_rows(sheet, proot, proot, "2p")
    odd = sheet.row("20p+1", 2 * p)
    step = yield from ask(View(ODD, BLANK, BLANK, BLANK), None)
    expect(step, (HALT,), "odd number")
    Sheet.write(odd, 0, step)
    for i, c in enumerate(twice.cells):
        odd.put(i + 1, c)
    return odd


def _root_digit(sheet: Sheet, r: Row, odd: Row, digit: Row, p: int):
    """The trials of one root digit (sequential code): subtract 20p+1, 20p+3, ... until a
    subtraction borrows, counting with DQ steps; returns the last row that fitted."""
    for _trial in range(10):
        t, borrow = yield from sub_rows(sheet, r, odd, "-odd", offset=2 * p)
        step = yield from ask(View(DQ, borrow, digit.sym(0), BLANK), ((t, None), (digit, 0), None))
        Sheet.write(digit, 0, step)
        if expect(step, (SUB, HALT), "root digit") == HALT:
            return r
        r = t
        odd = yield from increment(sheet, odd, "+2", op=ADD2)
    raise StepperFault("a root digit counted past 9")


# ---------------------------------------------------------------- signed procedures


def signed_add(sheet: Sheet, x: Num, y: Num, subtract=False):
    op = SGN_SUB if subtract else SGN_ADD
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    result_sign = sheet.row("sign")
    view, where = _sign_view(op, a, b)
    step = yield from ask(view, where)
    if step.sym != BLANK:
        Sheet.write(result_sign, "sign", step)
    if expect(step, (ADD, CMP), "sign") == ADD:
        out = yield from add_rows(sheet, a, b, "|a|+|b|")
    else:
        flag = yield from compare_rows(sheet, a, b)
        view, where = _sign_view(op, a, b, flag, 0)
        step = yield from ask(view, where)
        Sheet.write(result_sign, "sign", step)
        swap = expect(step, (SUB, SWAP), "sign") == SWAP
        top, bottom = (b, a) if swap else (a, b)
        out, borrow = yield from sub_rows(sheet, top, bottom, "|b|-|a|" if swap else "|a|-|b|")
        if borrow != BLANK:
            raise StepperFault("a subtraction after a comparison borrowed at the top")
    return Num(result_sign.sign, canonical(out.cells))


def signed_mul(sheet: Sheet, x: Num, y: Num):
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    view, where = _sign_view(SGN_MUL, a, b)
    step = yield from ask(view, where)
    expect(step, (MUL,), "sign")
    total = yield from product_rows(sheet, a, b)
    Sheet.write(total, "sign", step)
    return Num(total.sign, canonical(total.cells))


def signed_divmod(sheet: Sheet, x: Num, y: Num):
    """Floor division, as Python's // and %: q = floor(x / y), r = x - q*y, r has y's sign."""
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    zf = yield from zero_test(sheet, b, "b=0?")
    if zf.sym(0) == ZERO_FLAG:
        raise InputError("division by zero")
    q, rem = yield from divide_rows(sheet, a, b)
    r = _row(sheet, "r", cells=canonical(rem))
    rz = yield from zero_test(sheet, r, "r=0?")
    view, where = _sign_view(SGN_DIV, a, b, rz, 0)
    step = yield from ask(view, where)
    if expect(step, (HALT, ADJ), "sign") == ADJ:
        q = yield from increment(sheet, q, "q+1")
        r, borrow = yield from sub_rows(sheet, b, r, "|b|-r")
        if borrow != BLANK:
            raise StepperFault("the remainder adjustment borrowed at the top")
    Sheet.write(q, "sign", step)
    Sheet.write(r, "sign", step, "flag")
    return Num(q.sign, canonical(q.cells)), Num(r.sign, canonical(r.cells))


def signed_isqrt(sheet: Sheet, x: Num):
    a = _row(sheet, "a", x)
    if a.sign.sym == MINUS and not (len(x.cells) == 1 and x.cells[0].sym == "0"):
        raise InputError("square root of a negative number")
    view, where = _sign_view(ABS, a, None)
    step = yield from ask(view, where)
    expect(step, (HALT,), "sign")
    root = yield from sqrt_rows(sheet, a)
    out = _row(sheet, "root", cells=root)
    Sheet.write(out, "sign", step)
    return Num(out.sign, canonical(out.cells))


def signed_gcd(sheet: Sheet, x: Num, y: Num):
    a, b = _row(sheet, "a", x), _row(sheet, "b", y)
    view, where = _sign_view(ABS, a, None)
    step = yield from ask(view, where)
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
    out = _row(sheet, "gcd", cells=a.cells)
    Sheet.write(out, "sign", step)
    return Num(out.sign, canonical(out.cells))


def negate(sheet: Sheet, x: Num):
    a = _row(sheet, "a", x)
    view, where = _sign_view(NEG, a, None)
    step = yield from ask(view, where)
    expect(step, (HALT,), "sign")
    out = _row(sheet, "-a", cells=a.cells)
    Sheet.write(out, "sign", step)
    return Num(out.sign, out.cells)
