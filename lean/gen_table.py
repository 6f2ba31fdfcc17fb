"""Generate lean/Sketchpad/Table.lean from the Python reference stepper and the view set.

The Lean project never retypes the specification: this script reads the committed view set
(sketchpad/data/views.jsonl), recomputes every step with `sketchpad.reference.reference_step`
(and refuses to run if the two disagree), and writes

* one table `T_<OP> : List (View × Step)` per operation, in the order of views.jsonl;
* `refStep : View → Step`, the reference stepper f*, looking a view up in its op's table;
* `V_<OP>` and `V`, the view set (the keys of the tables);
* witnesses in the Lean model for the scans the Lean project reasons about (ADD, SUB: two
  digit rows; MUL: a digit row and one multiplier digit), found by running a Python mirror of
  the Lean runtime (`trace` in Sketchpad/Runtime.lean) on small inputs.  Lean re-checks every
  witness by `decide`, so a wrong mirror makes `lake build` fail rather than prove anything.

Usage:  python lean/gen_table.py            (rewrite the file)
        python lean/gen_table.py --check    (exit 1 if the committed file is stale)
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sketchpad import views as views_mod  # noqa: E402
from sketchpad.reference import reference_step  # noqa: E402
from sketchpad.symbols import BLANK, NEXT_WORDS, OPS, SCAN_OPS, Step, View  # noqa: E402

OUT = Path(__file__).resolve().parent / "Sketchpad" / "Table.lean"

CELL = {
    **{str(d): f".d{d}" for d in range(10)},
    BLANK: ".blank",
    "+": ".plus",
    "-": ".minus",
    "<": ".less",
    "=": ".equal",
    ">": ".greater",
    "Z": ".zero",
    "N": ".nonzero",
}
OP = {
    "ADD": ".ADD",
    "SUB": ".SUB",
    "CMP=": ".CMPEQ",
    "CMP<": ".CMPLT",
    "CMP>": ".CMPGT",
    "MUL": ".MUL",
    "ZT": ".ZT",
    "INC": ".INC",
    "ADD2": ".ADD2",
    "DQ": ".DQ",
    "ODD": ".ODD",
    "NEG": ".NEG",
    "ABS": ".ABS",
    "SGN+": ".SGNADD",
    "SGN-": ".SGNSUB",
    "SGN*": ".SGNMUL",
    "SGN/": ".SGNDIV",
    "HALT": ".HALT",
    "CMP": ".CMP",
    "SWAP": ".SWAP",
    "ADJ": ".ADJ",
}
assert set(OP) == set(NEXT_WORDS)


def lean_ident(op: str) -> str:
    return OP[op][1:]


# Every generated term elaborates without an expected type (long list literals are elaborated
# through intermediate `let`s): constructors are named, cells in lists are fully qualified.
def view_lean(v: View) -> str:
    return f"View.mk {OP[v.op]} {CELL[v.a]} {CELL[v.b]} {CELL[v.c]}"


def step_lean(s: Step) -> str:
    return f"Step.mk {CELL[s.sym]} {CELL[s.flag]} {OP[s.next]}"


def cell_q(c: str) -> str:
    return "Cell" + CELL[c]


def cells_lean(cells) -> str:
    return "[" + ", ".join(cell_q(c) for c in cells) + "]"


# ------------------------------------------------------------------ the Lean runtime, mirrored


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


def _digit_lists(max_len: int):
    for n in range(1, max_len + 1):
        for t in itertools.product("0123456789", repeat=n):
            yield list(t)


def _first_witnesses(wanted: list[View], inputs, trace_of) -> dict:
    """For each wanted view, the first input (in `inputs` order) whose Lean-model run presents it."""
    need = set(wanted)
    found: dict = {}
    for inp in inputs:
        for v, _ in trace_of(*inp):
            if v in need and v not in found:
                found[v] = inp
        if len(found) == len(need):
            break
    missing = need - set(found)
    if missing:
        raise SystemExit(f"no Lean-model witness for {sorted(missing)[:5]}")
    return found


def find_row_witnesses(op: str, wanted: list[View]) -> dict:
    lists = list(_digit_lists(2))
    return _first_witnesses(wanted, itertools.product(lists, lists), lambda xs, ys: rows_trace(op, xs, ys))


def find_mul_witnesses(wanted: list[View]) -> dict:
    inputs = ((xs, d) for xs in _digit_lists(3) for d in "0123456789")
    return _first_witnesses(wanted, inputs, mul_row_trace)


# ------------------------------------------------------------------ issue 11 (lean2a): the driver
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
    """`mulP xs ys` (= `mulRun`): partial rows and shifted additions, one after another."""
    if not ys:
        return [], []
    _, log = drv_scan(step, len(xs) + 3, "MUL", xs, [ys[0]] * (len(xs) + 3), BLANK)
    acc = drv_row_of(log)
    for j, d in enumerate(ys[1:], start=1):
        _, t = drv_scan(step, len(xs) + 3, "MUL", xs, [d] * (len(xs) + 3), BLANK)
        _, u = drv_rows(step, "ADD", acc, ["0"] * j + drv_row_of(t))
        log += t + u
        acc = drv_row_of(u)
    return acc, log


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


# ------------------------------------------------------------------ emission

CELL_ORDER = list(CELL)  # the constructor order of `Cell` in Basic.lean
OP_ORDER = list(OP)  # the constructor order of `Op`


def view_key(v: View) -> tuple:
    """Views of one op in the order of their cells' constructors (the order in which the grids
    of Sketchpad/Facts.lean enumerate them, so that `V_ADD = rowsGrid .ADD` is one list check)."""
    return (OP_ORDER.index(v.op), CELL_ORDER.index(v.a), CELL_ORDER.index(v.b), CELL_ORDER.index(v.c))


def step_function(name: str, op: str, rows: list) -> list[str]:
    """`def step<OP> (a b c : Cell) : Step`: one nested `match` per cell, an arm per view of V
    (its reference step), `dfltStep` for every other cell.  The kernel evaluates it by three
    `casesOn` reductions, where a lookup in a list of pairs compares views one by one."""
    tree: dict = {}
    for v, s in rows:
        tree.setdefault(v.a, {}).setdefault(v.b, {})[v.c] = s
    L = [f"def step{name} (a b c : Cell) : Step :=", "  match a with"]

    def wild(ind: str, keys) -> None:
        if len(keys) < len(CELL_ORDER):
            L.append(f"{ind}| _ => dfltStep")

    for a, ta in tree.items():
        L.append(f"  | {CELL[a]} =>")
        L.append("    match b with")
        for b, tb in ta.items():
            L.append(f"    | {CELL[b]} =>")
            L.append("      match c with")
            for c, s in tb.items():
                L.append(f"      | {CELL[c]} => {step_lean(s)}")
            wild("      ", tb)
        wild("    ", ta)
    wild("  ", tree)
    return L


def generate(fault: tuple[View, Step] | None = None) -> str:
    """The text of Sketchpad/Table.lean.  `fault = (view, step)` emits `step` for `view` instead
    of the reference step (fault injection for tests only: the result is not the spec)."""
    entries = views_mod.load()
    by_op: dict[str, list] = {op: [] for op in OPS}
    for e in entries:
        v, s = e["view"], e["step"]
        if reference_step(v) != s:
            raise SystemExit(f"views.jsonl is stale at {v}: {s} != {reference_step(v)}")
        if fault is not None and v == fault[0]:
            s = fault[1]
        by_op[v.op].append((v, s))
    if fault is not None and fault[0] not in {v for rows in by_op.values() for v, _ in rows}:
        raise SystemExit(f"fault view {fault[0]} is not in V")
    for op in by_op:
        by_op[op].sort(key=lambda p: view_key(p[0]))
    ops = [op for op in OPS if by_op[op]]
    total = sum(len(by_op[op]) for op in ops)

    L = []
    L.append("-- GENERATED by lean/gen_table.py from sketchpad/reference.py (reference_step) and")
    L.append("-- sketchpad/data/views.jsonl (the view set V).  Do not edit: run `python lean/gen_table.py`.")
    L.append("-- tests/test_lean.py checks that this file equals a fresh generation.")
    L.append("module")
    L.append("")
    L.append("public import Sketchpad.Basic")
    L.append("")
    L.append("@[expose] public noncomputable section")
    L.append("")
    L.append("namespace Sketchpad")
    L.append("")
    for op in ops:
        rows = by_op[op]
        name = lean_ident(op)
        L.append(f"/-- The reference step (`reference_step`) of each of the {len(rows)} `{op}` views of V,")
        L.append("as a function of the view's cells; cells of no view of V give `dfltStep`. -/")
        L.extend(step_function(name, op, rows))
        L.append("")
    L.append("/-- The reference stepper f* (the specification), as generated from")
    L.append("`sketchpad.reference.reference_step`: the step of a view of V is the generated step of its")
    L.append("operation.  Views outside V get `dfltStep`; no theorem depends on that value. -/")
    L.append("def refStep (v : View) : Step :=")
    L.append("  match v.op with")
    for op in ops:
        L.append(f"  | {OP[op]} => step{lean_ident(op)} v.a v.b v.c")
    if len(ops) < len(OP):
        L.append("  | _ => dfltStep")
    L.append("")
    for op in ops:
        name = lean_ident(op)
        rows = by_op[op]
        L.append(f"/-- The {len(rows)} `{op}` views of V (in the order of their cells' constructors). -/")
        L.append(f"def V_{name} : List View := [")
        L.append(",\n".join(f"  {view_lean(v)}" for v, _ in rows))
        L.append("]")
        L.append("")
    L.append(f"/-- The view set V: every view the Python runtime can present ({total} views). -/")
    L.append("def V : List View :=")
    L.append("  " + " ++ ".join(f"V_{lean_ident(op)}" for op in ops))
    L.append("")
    L.append("/-- The number of views, as in views.jsonl. -/")
    L.append(f"def V_count : Nat := {total}")
    L.append("")

    for op in ("ADD", "SUB"):
        wanted = [v for v, _ in by_op[op]]
        wit = find_row_witnesses(op, wanted)
        name = lean_ident(op)
        L.append(f"/-- For every `{op}` view, two digit rows (units first) whose `{op}` scan in the Lean")
        L.append("model presents it (checked in Sketchpad/Facts.lean), in the order of `V_" + name + "`. -/")
        L.append(f"def W_{name} : List (View × List Cell × List Cell) := [")
        body = [f"  ({view_lean(v)}, {cells_lean(wit[v][0])}, {cells_lean(wit[v][1])})" for v in wanted]
        L.append(",\n".join(body))
        L.append("]")
        L.append("")
    wanted = [v for v, _ in by_op["MUL"]]
    wit = find_mul_witnesses(wanted)
    L.append("/-- For every `MUL` view, a digit row and a multiplier digit whose partial-product scan")
    L.append("in the Lean model presents it (checked in Sketchpad/Facts.lean), in the order of `V_MUL`. -/")
    L.append("def W_MUL : List (View × List Cell × Cell) := [")
    body = [f"  ({view_lean(v)}, {cells_lean(wit[v][0])}, {cell_q(wit[v][1])})" for v in wanted]
    L.append(",\n".join(body))
    L.append("]")
    L.append("")
    L.append("end Sketchpad")
    L.append("")
    return "\n".join(L)


# ------------------------------------------------------------------ issue 11 (lean2a): witnesses
# Sketchpad/TableProc.lean: for every view of the procedures of Compare.lean and Signed.lean, an
# input whose run in the Lean driver model (drv_* above, reference stepper) presents it.  Lean
# re-checks every entry by `decide +kernel`.

PROC_OUT = Path(__file__).resolve().parent / "Sketchpad" / "TableProc.lean"


def _views_of(op: str) -> list:
    return sorted((e["view"] for e in views_mod.load() if e["view"].op == op), key=view_key)


def _logs(fn):
    return lambda *inp: fn(reference_step, *inp)[1]


def _upto(n: int) -> list:
    return [[]] + list(_digit_lists(n))


def _sub_ge(v: View) -> bool:
    """The SUB views a subtraction of a larger-or-equal row presents (`subGE` in Signed.lean)."""
    return v.a != BLANK or (v.c == BLANK and v.b in ("0", BLANK))


def _mul_add(v: View) -> bool:
    """The ADD views of a product's additions (`mulAddOK` in Signed.lean): the running total is
    never longer than the shifted row it is added to."""
    return not (v.a != BLANK and v.b == BLANK)


def _val(xs: list) -> int:
    return sum(int(d) * 10**i for i, d in enumerate(xs))


def proc_witnesses() -> dict:
    """name -> (wanted views in Lean's order, {view: input})."""
    rows2, rows3 = _upto(2), _upto(3)
    signs = ("+", "-")
    snums = [(s, xs) for xs in rows2 for s in signs]
    out = {}
    cmp_views = _views_of("CMP=") + _views_of("CMP<") + _views_of("CMP>")
    out["CMP"] = (
        cmp_views,
        _first_witnesses(
            cmp_views, itertools.product(rows2, rows2), lambda xs, ys: drv_compare(reference_step, xs, ys)[1]
        ),
    )
    out["ZT"] = (_views_of("ZT"), _first_witnesses(_views_of("ZT"), ((xs,) for xs in rows2), _logs(drv_zero_test)))
    out["INC"] = (_views_of("INC"), _first_witnesses(_views_of("INC"), ((xs,) for xs in rows2), _logs(drv_increment)))
    add2 = _views_of("ADD2") + _views_of("INC")
    odd_rows = [xs for xs in rows3 if xs and xs[0] in "13579"]
    out["ADD2P"] = (
        add2,
        _first_witnesses(add2, ((xs,) for xs in odd_rows), lambda xs: drv_increment(reference_step, xs, "ADD2")[1]),
    )
    sub = [v for v in _views_of("SUB") if _sub_ge(v)]
    ge = ((xs, ys) for xs in rows3 for ys in rows2 if _val(ys) <= _val(xs))
    out["SUBGE"] = (sub, _first_witnesses(sub, ge, lambda xs, ys: drv_rows(reference_step, "SUB", xs, ys)[1]))
    for op in ("SGN+", "SGN-"):
        out[lean_ident(op)] = (
            _views_of(op),
            _first_witnesses(
                _views_of(op),
                itertools.product(snums, snums),
                lambda a, b, op=op: drv_signed_add(reference_step, op, a, b)[1],
            ),
        )
    out["SGNMUL"] = (
        _views_of("SGN*"),
        _first_witnesses(_views_of("SGN*"), itertools.product(snums, snums), _logs(drv_signed_mul)),
    )
    out["NEG"] = (_views_of("NEG"), _first_witnesses(_views_of("NEG"), ((a,) for a in snums), _logs(drv_negate)))
    madd = [v for v in _views_of("ADD") if _mul_add(v)]
    out["MULADD"] = (
        madd,
        _first_witnesses(
            madd, ((xs, ys) for ys in rows2 for xs in rows3), lambda xs, ys: drv_mul(reference_step, xs, ys)[1]
        ),
    )
    return out


def _cells(cells) -> str:
    """A digit row in Lean; the empty row with its type (a bare `[]` may not elaborate)."""
    return cells_lean(cells) if cells else "([] : List Cell)"


def _snum_lean(a: tuple) -> str:
    return f"({cell_q(a[0])}, {_cells(a[1])})"


def generate_proc() -> str:
    W = proc_witnesses()
    L = [
        "-- GENERATED by lean/gen_table.py (issue 11, lean2a: `generate_proc`) from sketchpad/reference.py",
        "-- and the view set.  Do not edit: run `python lean/gen_table.py`.",
        "-- tests/test_lean.py checks that this file equals a fresh generation.",
        "module",
        "",
        "public import Sketchpad.Basic",
        "",
        "@[expose] public noncomputable section",
        "",
        "namespace Sketchpad",
        "",
    ]

    def emit(name: str, doc: str, typ: str, fmt) -> None:
        wanted, wit = W[name]
        L.append(f"/-- {doc} -/")
        L.append(f"def W_{name} : List (View × {typ}) := [")
        L.append(",\n".join(f"  ({view_lean(v)}, {fmt(wit[v])})" for v in wanted))
        L.append("]")
        L.append("")

    two = lambda i: f"{_cells(i[0])}, {_cells(i[1])}"  # noqa: E731
    one = lambda i: _cells(i[0])  # noqa: E731
    emit(
        "CMP",
        "For every comparison view (`V_CMPEQ ++ V_CMPLT ++ V_CMPGT`), two digit rows whose `compareP` run presents it.",
        "List Cell × List Cell",
        two,
    )
    emit("ZT", "For every `ZT` view, a digit row whose `zeroP` run presents it.", "List Cell", one)
    emit("INC", "For every `INC` view, a digit row whose `incP .INC` run presents it.", "List Cell", one)
    emit(
        "ADD2P",
        "For every view of `V_ADD2 ++ V_INC`, a digit row with an odd units digit whose `incP .ADD2` run presents it.",
        "List Cell",
        one,
    )
    emit(
        "SUBGE",
        "For every `SUB` view of `subGE`, digit rows `xs`, `ys` with `ys ≤ xs` whose subtraction presents it.",
        "List Cell × List Cell",
        two,
    )
    pair = lambda i: f"{_snum_lean(i[0])}, {_snum_lean(i[1])}"  # noqa: E731
    emit(
        "SGNADD",
        "For every `SGN+` view, two signed numbers whose `sgnAddP .SGNADD` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit(
        "SGNSUB",
        "For every `SGN-` view, two signed numbers whose `sgnAddP .SGNSUB` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit("SGNMUL", "For every `SGN*` view, two signed numbers whose `sgnMulP` run presents it.", "SNumL × SNumL", pair)
    emit(
        "NEG",
        "For every `NEG` view, a signed number whose `negP` run presents it.",
        "SNumL",
        lambda i: _snum_lean(i[0]),
    )
    emit(
        "MULADD",
        "For every `ADD` view of `mulAddOK`, digit rows whose long multiplication (`mulRun`) presents it.",
        "List Cell × List Cell",
        two,
    )
    L.append("end Sketchpad")
    L.append("")
    text = "\n".join(L)
    return text.replace("SNumL", "(Cell × List Cell)")


# Every generated Lean file and the function that writes its text.
GENERATED: list = [(OUT, generate)]
GENERATED.append(
    (Path(__file__).resolve().parent / "Sketchpad" / "TableProc.lean", lambda: generate_proc())
)  # issue 11 (lean2a), defined below


def main(argv: list[str]) -> int:
    stale = False
    for out, make in GENERATED:
        text = make()
        if "--check" in argv:
            if not out.exists() or out.read_text() != text:
                print(f"{out} is stale: run python lean/gen_table.py", file=sys.stderr)
                stale = True
            continue
        out.write_text(text)
        print(f"wrote {out}")
    if "--check" in argv:
        if stale:
            return 1
        print("up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# ------------------------------------------------------------------ issue 11 (lean2b): division,
# square root, gcd.  Mirrors of Sketchpad/Divide.lean, Sqrt.lean and Gcd.lean (driver programs
# over an arbitrary stepper `step`), returning (result, log) as the drv_* functions above.


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


def _sub_div(v: View) -> bool:
    """The SUB views a trial subtraction of a long division presents (`subDiv` in Divide.lean):
    never a 9 over the divisor's end without a borrow (the row is below 10 times the divisor)."""
    return not (v.a == "9" and v.b == BLANK and v.c == BLANK)


def _top_nz(xs: list) -> bool:
    """`topNZ`: a non-empty row whose top digit is not 0 (a canonical non-zero divisor)."""
    return bool(xs) and xs[-1] != "0"


def _sized(max_len: int):
    """Digit rows by length, then lexicographically: [], then 1 digit, 2 digits, ..."""
    return _upto(max_len)


def div_witnesses() -> dict:
    """name -> (wanted views in Lean's order, {view: input}) for Divide.lean and Gcd.lean."""
    out = {}
    divs = [ys for ys in _sized(3) if _top_nz(ys)]
    div_views = [v for v in _views_of("SUB") if _sub_div(v)] + _views_of("DQ")

    def pairs():
        for n in range(1, 5):
            for ys in divs:
                for xs in _sized(n):
                    if len(xs) == n or n == 1:
                        yield xs, ys

    out["DIV"] = (div_views, _first_witnesses(div_views, pairs(), _logs(drv_divide)))
    signs = ("+", "-")
    snums = [(s, xs) for xs in _sized(2) for s in signs]
    sdivs = [(s, ys) for ys in divs for s in signs]
    sdiv_views = _views_of("ZT") + _views_of("SGN/") + _views_of("INC") + [View("SUB", "9", BLANK, BLANK)]
    sdiv_views.sort(key=view_key)
    out["SDIV"] = (
        sdiv_views,
        _first_witnesses(
            sdiv_views, ((a, b) for b in sdivs for a in snums), lambda a, b: drv_signed_divmod(reference_step, a, b)[1]
        ),
    )
    gcd_views = _views_of("ABS") + _views_of("ZT")
    zero_or = [(s, ys) for ys in _sized(2) if not ys or _top_nz(ys) or ys == ["0"] for s in signs]
    out["GCD"] = (
        gcd_views,
        _first_witnesses(
            gcd_views, ((a, b) for b in zero_or for a in snums), lambda a, b: drv_signed_gcd(reference_step, a, b)[1]
        ),
    )
    return out


DIV_OUT = Path(__file__).resolve().parent / "Sketchpad" / "TableDiv.lean"


def generate_div() -> str:
    """The text of Sketchpad/TableDiv.lean: witnesses of the views of division and gcd."""
    W = div_witnesses()
    L = [
        "-- GENERATED by lean/gen_table.py (issue 11, lean2b: `generate_div`) from sketchpad/reference.py",
        "-- and the view set.  Do not edit: run `python lean/gen_table.py`.",
        "-- tests/test_lean.py checks that this file equals a fresh generation.",
        "module",
        "",
        "public import Sketchpad.Basic",
        "",
        "@[expose] public noncomputable section",
        "",
        "namespace Sketchpad",
        "",
    ]

    def emit(name: str, doc: str, typ: str, fmt) -> None:
        wanted, wit = W[name]
        L.append(f"/-- {doc} -/")
        L.append(f"def W_{name} : List (View × {typ}) := [")
        L.append(",\n".join(f"  ({view_lean(v)}, {fmt(wit[v])})" for v in wanted))
        L.append("]")
        L.append("")

    two = lambda i: f"{_cells(i[0])}, {_cells(i[1])}"  # noqa: E731
    pair = lambda i: f"{_snum_lean(i[0])}, {_snum_lean(i[1])}"  # noqa: E731
    emit(
        "DIV",
        "For every view of `V_DIV` (the `SUB` views of `subDiv`, then `V_DQ`), a digit row and a divisor "
        "(top digit not 0) whose long division `divP` presents it.",
        "List Cell × List Cell",
        two,
    )
    emit(
        "SDIV",
        "For every `ZT`, `SGN/` and `INC` view and the `SUB` view `(9, _, _)`, two signed numbers whose "
        "`divmodP` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit(
        "GCD",
        "For every `ABS` and `ZT` view, two signed numbers whose `gcdP` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    L.append("end Sketchpad")
    L.append("")
    return "\n".join(L).replace("SNumL", "(Cell × List Cell)")


GENERATED.append((DIV_OUT, generate_div))  # issue 11 (lean2b)


def _sub_sq(v: View) -> bool:
    """The SUB views a square root's trial subtraction presents (`subSq` in Sqrt.lean): the row
    is never shorter than the odd number subtracted from it."""
    return v.a != BLANK or v.b == BLANK


def _add_sq(v: View) -> bool:
    """The ADD views of `2p = p + p` (`addSq` in Sqrt.lean): both cells are p's."""
    return v.a == v.b


def _inc_sq(v: View) -> bool:
    """The INC views after `ADD2` of the odd numbers 20p+9 (`incSq`): an even digit or blank."""
    return v.a in ("0", "2", "4", "6", "8", BLANK)


def sqrt_views() -> list:
    """The views of `isqrtP` (Sqrt.lean's `V_SQRT`), in Lean's order."""
    return (
        [v for v in _views_of("ADD") if _add_sq(v)]
        + [v for v in _views_of("SUB") if _sub_sq(v)]
        + [v for v in _views_of("INC") if _inc_sq(v)]
        + _views_of("ADD2")
        + _views_of("DQ")
        + _views_of("ODD")
        + _views_of("ABS")
    )


def sqrt_witnesses() -> dict:
    wanted = sqrt_views()

    def inputs():
        for n in range(0, 9):
            for xs in itertools.product("0123456789", repeat=n):
                for s in ("+", "-"):
                    if s == "-" and xs != ("0",):
                        continue
                    yield ((s, list(xs)),)

    return {"SQRT": (wanted, _first_witnesses(wanted, inputs(), lambda a: drv_signed_isqrt(reference_step, a)[1]))}


SQRT_OUT = Path(__file__).resolve().parent / "Sketchpad" / "TableSqrt.lean"


def generate_sqrt() -> str:
    """The text of Sketchpad/TableSqrt.lean: witnesses of the square root's views."""
    wanted, wit = sqrt_witnesses()["SQRT"]
    L = [
        "-- GENERATED by lean/gen_table.py (issue 11, lean2b: `generate_sqrt`) from sketchpad/reference.py",
        "-- and the view set.  Do not edit: run `python lean/gen_table.py`.",
        "-- tests/test_lean.py checks that this file equals a fresh generation.",
        "module",
        "",
        "public import Sketchpad.Basic",
        "",
        "@[expose] public noncomputable section",
        "",
        "namespace Sketchpad",
        "",
        "/-- For every view of `V_SQRT`, a signed number (`+`, or `-0`) whose `isqrtP` run presents it. -/",
        "def W_SQRT : List (View × (Cell × List Cell)) := [",
        ",\n".join(f"  ({view_lean(v)}, {_snum_lean(wit[v][0])})" for v in wanted),
        "]",
        "",
        "end Sketchpad",
        "",
    ]
    return "\n".join(L)


GENERATED.append((SQRT_OUT, generate_sqrt))  # issue 11 (lean2b)


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
