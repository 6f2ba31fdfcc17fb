"""The Lean model of the runtime, mirrored in Python: `trace` (Runtime.lean) and the driver
programs (`drv_*`: Driver.lean, Compare.lean, Signed.lean, Divide.lean, Sqrt.lean, Gcd.lean, the
evaluators) for an arbitrary stepper `step` (View -> Step).  The witness search runs them; Lean
re-checks every witness by `decide +kernel`, so a wrong mirror fails the Lean check rather than
proving anything.  tests/test_lean.py holds them equal to the Python runtime on random inputs."""

from __future__ import annotations

from sketchpad.reference import reference_step
from sketchpad.symbols import BLANK, SCAN_OPS, View


def _hd(xs):
    return xs[0] if xs else BLANK


def lean_trace(n: int, op: str, xs: list, ys: list, c: str) -> list:
    """Mirror of `Sketchpad.trace refStep n op xs ys c` (digit lists units first)."""
    out = []
    while n > 0:
        v = View(op, _hd(xs), _hd(ys), c)
        s = reference_step(v)
        out.append((v, s))
        if s.next not in SCAN_OPS:
            break
        op, xs, ys, c, n = s.next, xs[1:], ys[1:], s.flag, n - 1
    return out


def rows_trace(op: str, xs: list, ys: list) -> list:
    """`trace refStep (max xs.length ys.length + 3) op xs ys .blank` (addTrace / subTrace)."""
    return lean_trace(max(len(xs), len(ys)) + 3, op, xs, ys, BLANK)


def mul_row_trace(xs: list, d: str) -> list:
    """`mulRowTrace refStep xs d`."""
    n = len(xs) + 3
    return lean_trace(n, "MUL", xs, [d] * n, BLANK)


# Mirrors of Sketchpad/Driver.lean, Compare.lean and Signed.lean for an arbitrary stepper `step`
# (View -> Step).  Every function returns (result, log): the log is the list of (view, step)
# pairs the run presents, in order (`Prog.log`), the result is `Prog.out`.  Signed numbers are
# (sign cell, digit cells units first) pairs, as `SNum` in Lean.


def drv_scan(step, n: int, op: str, xs: list, ys: list, c: str, carry_row: bool = True):
    """`scanP n op xs ys c carryRow`: a column scan; without a carry row (compare, zero test,
    increments) the third cell stays blank, as Python's `scan` with `carry=None` presents it.
    Result and log are the same list (the scan's trace)."""
    out = []
    while n > 0:
        v = View(op, _hd(xs), _hd(ys), c)
        s = step(v)
        out.append((v, s))
        if s.next not in SCAN_OPS:
            break
        op, xs, ys, n = s.next, xs[1:], ys[1:], n - 1
        c = s.flag if carry_row else BLANK
    return out, list(out)


def drv_rows(step, op: str, xs: list, ys: list):
    """`rowsP op xs ys` (= `rowsTrace`): add_rows / sub_rows from the units column."""
    return drv_scan(step, max(len(xs), len(ys)) + 3, op, xs, ys, BLANK)


def drv_row_of(trace: list) -> list:
    """`rowOf`: the non-blank symbols the steps wrote, column by column."""
    return [s.sym for _, s in trace if s.sym != BLANK]


def drv_last_sym(trace: list) -> str:
    """`lastSym`: the symbol of the scan's last step (blank for an empty scan)."""
    return trace[-1][1].sym if trace else BLANK


def drv_canon(r: list) -> list:
    """`canon` = procedures.canonical on a gap-free row: drop top zero cells, keep one."""
    n = len(r)
    while n > 1 and r[n - 1] == "0":
        n -= 1
    return r[:n]


def drv_compare(step, xs: list, ys: list):
    """`compareP xs ys` (compare_rows): a CMP= scan without carry row; the flag is the last
    step's symbol."""
    _, log = drv_scan(step, max(len(xs), len(ys)) + 3, "CMP=", xs, ys, BLANK, carry_row=False)
    return drv_last_sym(log), log


def drv_zero_test(step, xs: list):
    """`zeroP xs` (zero_test): a ZT scan of one row; the flag is the last step's symbol."""
    _, log = drv_scan(step, len(xs) + 3, "ZT", xs, [], BLANK, carry_row=False)
    return drv_last_sym(log), log


def drv_increment(step, xs: list, op: str = "INC"):
    """`incP op xs` (increment): the written columns, then x's own cells above them."""
    _, log = drv_scan(step, len(xs) + 3, op, xs, [], BLANK, carry_row=False)
    return drv_row_of(log) + xs[len(log) :], log


def drv_mul(step, xs: list, ys: list):
    """`mulP xs ys` (product_rows, sequential, as Python runs it): every partial row in lock step
    (round i asks column i of every row still running: `roundsP`), then each row added to the
    running total from its own column on (`addChainP`: the total's cells below column j stay)."""
    n = len(xs) + 3
    scans = [drv_scan(step, n, "MUL", xs, [d] * n, BLANK)[1] for d in ys]
    log = [t[i] for i in range(max((len(t) for t in scans), default=0)) for t in scans if i < len(t)]
    rows = [drv_row_of(t) for t in scans]
    if not rows:
        return [], log
    total = rows[0]
    for j, r in enumerate(rows[1:], start=1):
        _, u = drv_rows(step, "ADD", total[j:], r)
        log += u
        total = total[:j] + drv_row_of(u)
    return total, log


def drv_signed_add(step, op: str, a: tuple, b: tuple):
    """`sgnAddP op a b` (signed_add; op SGN+ or SGN-)."""
    (sa, xs), (sb, ys) = a, b
    v = View(op, sa, sb, BLANK)
    s = step(v)
    log = [(v, s)]
    if s.next == "ADD":
        _, t = drv_rows(step, "ADD", xs, ys)
        return (s.sym, drv_canon(drv_row_of(t))), log + t
    fl, t = drv_compare(step, xs, ys)
    log += t
    v2 = View(op, sa, sb, fl)
    s2 = step(v2)
    log.append((v2, s2))
    top, bottom = (ys, xs) if s2.next == "SWAP" else (xs, ys)
    _, u = drv_rows(step, "SUB", top, bottom)
    return (s2.sym, drv_canon(drv_row_of(u))), log + u


def drv_signed_mul(step, a: tuple, b: tuple):
    """`sgnMulP a b` (signed_mul)."""
    (sa, xs), (sb, ys) = a, b
    v = View("SGN*", sa, sb, BLANK)
    s = step(v)
    r, log = drv_mul(step, xs, ys)
    return (s.sym, drv_canon(r)), [(v, s)] + log


def drv_negate(step, a: tuple):
    """`negP a` (negate): one NEG view; the digits are a's own cells."""
    v = View("NEG", a[0], BLANK, BLANK)
    s = step(v)
    return (s.sym, a[1]), [(v, s)]


def drv_value(n: tuple) -> int:
    """`SNum.val`: the signed integer a sign cell and a digit row denote."""
    m = sum(int(d) * 10**i for i, d in enumerate(n[1]) if d in "0123456789")
    return -m if n[0] == "-" else m


def drv_eval(step, node):
    """`evalP procs1 procs2` (Evaluator.lean) on a tree of `sketchpad.expr.parse`: a leaf is the
    problem's own signed number; operands run first, left to right, then the procedure."""
    kind = node[0]
    if kind == "num":
        digits = node[1].lstrip("0") or "0"
        return ("-" if node[2] else "+", list(reversed(digits))), []
    if kind == "neg":
        x, lx = drv_eval(step, node[1])
        r, lr = drv_negate(step, x)
        return r, lx + lr
    if kind == "bin" and node[1] in "+-*":
        x, lx = drv_eval(step, node[2])
        y, ly = drv_eval(step, node[3])
        if node[1] == "*":
            r, lr = drv_signed_mul(step, x, y)
        else:
            r, lr = drv_signed_add(step, "SGN+" if node[1] == "+" else "SGN-", x, y)
        return r, lx + ly + lr
    raise ValueError(f"not modelled in Evaluator.lean's instance: {node!r}")


# ------------------------------------------------------------------ issue 11 (lean2b): division,
# square root, gcd.


def _last_flag(trace: list, c: str = BLANK) -> str:
    """`lastFlag`: the flag of the scan's last step (a subtraction's final borrow)."""
    return trace[-1][1].flag if trace else c


def drv_qdigit(step, fuel: int, r: list, b: list, cnt: str = BLANK):
    """`qdigP fuel r b cnt` (_quotient_digit): subtract b until a subtraction borrows, counting
    with DQ steps; the result is (the digit cell, the last row that fitted)."""
    log = []
    for _ in range(fuel):
        _, t = drv_rows(step, "SUB", r, b)
        v = View("DQ", _last_flag(t), cnt, BLANK)
        s = step(v)
        log += t + [(v, s)]
        if s.next == "HALT":
            return (s.sym, r), log
        r, cnt = drv_row_of(t), s.sym
    return (cnt, r), log


def drv_divide(step, a: list, b: list):
    """`divP a b` (divide_rows, sequential): ((quotient cells, remainder cells), log)."""
    la, lb = len(a), len(b)
    if la < lb:
        (d, r), log = drv_qdigit(step, 10, a, b)
        return ([d], r[: max(lb, 1)]), log
    rem, q, log = a[la - lb + 1 :], [], []
    for k in range(la - lb, -1, -1):
        (d, r), lg = drv_qdigit(step, 10, [a[k]] + rem[:lb], b)
        q, rem = [d] + q, r
        log += lg
    return (q, rem[: max(lb, 1)]), log


def drv_signed_divmod(step, a: tuple, b: tuple):
    """`divmodP a b` (signed_divmod): ((quotient, remainder), log); floor division."""
    (sa, xs), (sb, ys) = a, b
    _, log = drv_zero_test(step, ys)
    (q, rem), lg = drv_divide(step, xs, ys)
    log += lg
    r = drv_canon(rem)
    rz, lg = drv_zero_test(step, r)
    log += lg
    v = View("SGN/", sa, sb, rz)
    s = step(v)
    log.append((v, s))
    if s.next == "ADJ":
        q, lg = drv_increment(step, q)
        log += lg
        _, t = drv_rows(step, "SUB", ys, r)
        log += t
        r = drv_row_of(t)
    return ((s.sym, drv_canon(q)), (s.flag, drv_canon(r))), log


def drv_rdigit(step, fuel: int, r: list, odd: list, cnt: str = BLANK):
    """`rdigP fuel r odd cnt` (_root_digit): subtract 20p+1, 20p+3, ... until a subtraction
    borrows, counting with DQ steps."""
    log = []
    for _ in range(fuel):
        _, t = drv_rows(step, "SUB", r, odd)
        v = View("DQ", _last_flag(t), cnt, BLANK)
        s = step(v)
        log += t + [(v, s)]
        if s.next == "HALT":
            return (s.sym, r), log
        r, cnt = drv_row_of(t), s.sym
        odd, lg = drv_increment(step, odd, "ADD2")
        log += lg
    return (cnt, r), log


def drv_sqrt(step, a: list):
    """`sqrtP a` (sqrt_rows, sequential): (root cells, log)."""
    root, rem, log = [], [], []
    for p in range((len(a) + 1) // 2 - 1, -1, -1):
        r = a[2 * p : 2 * p + 2] + rem
        _, t = drv_rows(step, "ADD", root, root)
        v = View("ODD", BLANK, BLANK, BLANK)
        s = step(v)
        log += t + [(v, s)]
        (d, r), lg = drv_rdigit(step, 10, r, [s.sym] + drv_row_of(t))
        log += lg
        root = [d] + root
        rem = r[: len(root) + 1]
    return root, log


def drv_signed_isqrt(step, a: tuple):
    """`isqrtP a` (signed_isqrt)."""
    v = View("ABS", a[0], BLANK, BLANK)
    s = step(v)
    root, log = drv_sqrt(step, a[1])
    return (s.sym, drv_canon(root)), [(v, s)] + log


def drv_gcd_loop(step, fuel: int, xs: list, ys: list):
    """`gcdLoopP fuel xs ys` (the loop of signed_gcd)."""
    log = []
    for _ in range(fuel):
        zf, lg = drv_zero_test(step, ys)
        log += lg
        if zf == "Z":
            return xs, log
        (_, rem), lg = drv_divide(step, xs, ys)
        log += lg
        xs, ys = ys, drv_canon(rem)
    return xs, log


def drv_signed_gcd(step, a: tuple, b: tuple):
    """`gcdP a b` (signed_gcd): an ABS view of a's sign, then Euclid's loop."""
    v = View("ABS", a[0], BLANK, BLANK)
    s = step(v)
    g, log = drv_gcd_loop(step, 5 * (len(a[1]) + len(b[1])) + 10, a[1], b[1])
    return (s.sym, drv_canon(g)), [(v, s)] + log


def drv_eval_all(step, node):
    """`evalP procs1x procs2x` (EvalAll.lean): every operation of `sketchpad.expr.parse`'s tree."""
    kind = node[0]
    if kind == "num":
        return drv_eval(step, node)
    if kind == "neg":
        x, lx = drv_eval_all(step, node[1])
        r, lr = drv_negate(step, x)
        return r, lx + lr
    if kind == "bin":
        x, lx = drv_eval_all(step, node[2])
        y, ly = drv_eval_all(step, node[3])
        op = node[1]
        if op == "*":
            r, lr = drv_signed_mul(step, x, y)
        elif op in "+-":
            r, lr = drv_signed_add(step, "SGN+" if op == "+" else "SGN-", x, y)
        else:
            (q, rm), lr = drv_signed_divmod(step, x, y)
            r = q if op == "//" else rm
        return r, lx + ly + lr
    args = [drv_eval_all(step, a) for a in node[2]]
    logs = [lg for _, lg in args]
    if node[1] == "sqrt":
        r, lr = drv_signed_isqrt(step, args[0][0])
    else:
        r, lr = drv_signed_gcd(step, args[0][0], args[1][0])
    return r, [p for lg in logs for p in lg] + lr
