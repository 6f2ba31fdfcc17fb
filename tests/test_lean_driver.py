"""The Lean driver models (Driver.lean, Compare.lean, Signed.lean, Divide.lean, Gcd.lean) and the
parallel mode's models (Parallel.lean), mirrored in derive/lean.py, against the Python
procedures.  Split from tests/test_lean.py (hygiene and the generated tables)."""

from __future__ import annotations

import math
import random

from lean_helpers import _drive, _gen, _python_rows, _row, _sheet_of

from sketchpad import procedures as P
from sketchpad import views as views_mod
from sketchpad.api import solve as api_solve
from sketchpad.errors import InputError
from sketchpad.expr import Limits, evaluate_python, parse
from sketchpad.procedures import operand
from sketchpad.reference import ReferenceStepper, reference_step
from sketchpad.runtime import FAMILIES, MUL_CARRIES, PARALLEL, Run, scan
from sketchpad.sheet import INPUT, Cell, Sheet
from sketchpad.solve import solve
from sketchpad.symbols import ADD, MUL, SCAN_OPS, SUB, View

# ------------------------------------------------------------------ issue 11 (lean2a): the driver
# The Lean driver model (Sketchpad/Driver.lean, Compare.lean, Signed.lean), mirrored in
# derive/lean.py as drv_*, against the Python procedures run in the sequential mode.


def _drive_seq(gen):
    """Run a procedure generator with the reference, sequential mode; (value, flat trace)."""
    run = Run(ReferenceStepper(), trace=True, parallel=False)
    token = PARALLEL.set(False)
    try:
        value = run.drive(gen)
    finally:
        PARALLEL.reset(token)
    return value, [pair for batch in run.trace for pair in batch]


def _snum(rnd, max_len):
    """A signed number as the Python runtime's operands are: canonical digits (units first)."""
    n = rnd.randint(1, max_len)
    digits = "".join(rnd.choice("0123456789") for _ in range(n)).lstrip("0") or "0"
    return rnd.choice("+-"), list(reversed(digits))


def _num_of(sn):
    return operand("".join(reversed(sn[1])), sn[0] == "-")


def _pair_of(num):
    return num.sign.sym, [c.sym for c in num.cells]


def test_driver_model_matches_python_signed_procedures():
    """Signed addition and subtraction (SGN+ / SGN-, ADD or CMP + SUB/SWAP) and negation: the Lean
    model presents the same views, takes the same steps and returns the same number as
    `procedures.signed_add` / `negate` in the sequential mode."""
    gen = _gen()
    rnd = random.Random(11)
    for _ in range(300):
        a, b = _snum(rnd, 30), _snum(rnd, 30)
        for op, sub in (("SGN+", False), ("SGN-", True)):
            value, trace = _drive_seq(P.signed_add(Sheet("t"), _num_of(a), _num_of(b), subtract=sub))
            res, log = gen.drv_signed_add(reference_step, op, a, b)
            assert log == trace, (op, a, b)
            assert res == _pair_of(value)
            assert gen.drv_value(res) == gen.drv_value(a) + (-1 if sub else 1) * gen.drv_value(b)
        value, trace = _drive_seq(P.negate(Sheet("t"), _num_of(a)))
        res, log = gen.drv_negate(reference_step, a)
        assert log == trace and res == _pair_of(value)


def test_driver_model_matches_python_small_procedures():
    """compare_rows, zero_test and increment (INC and ADD2) against the Lean model."""
    gen = _gen()
    rnd = random.Random(12)
    for _ in range(300):
        xs = _snum(rnd, 30)[1]
        ys = _snum(rnd, 30)[1]
        if rnd.random() < 0.2:
            ys = list(xs)
        sheet = Sheet("t")
        x, y = _row(sheet, "x", xs), _row(sheet, "y", ys)
        flag, trace = _drive_seq(P.compare_rows(sheet, x, y))
        res, log = gen.drv_compare(reference_step, xs, ys)
        assert log == trace and res == flag.sym(0)
        vx, vy = int("".join(reversed(xs))), int("".join(reversed(ys)))
        assert res == ("<" if vx < vy else "=" if vx == vy else ">")
        zs = ["0"] * rnd.randint(1, 3) if rnd.random() < 0.3 else xs
        sheet = Sheet("t")
        flag, trace = _drive_seq(P.zero_test(sheet, _row(sheet, "x", zs)))
        res, log = gen.drv_zero_test(reference_step, zs)
        assert log == trace and res == flag.sym(0)
        nines = ["9"] * rnd.randint(1, 5) + xs if rnd.random() < 0.3 else xs
        sheet = Sheet("t")
        out, trace = _drive_seq(P.increment(sheet, _row(sheet, "x", nines)))
        res, log = gen.drv_increment(reference_step, nines)
        assert log == trace and res == [c.sym for c in out.cells]
        odd = [rnd.choice("13579")] + nines[1:]
        sheet = Sheet("t")
        out, trace = _drive_seq(P.increment(sheet, _row(sheet, "x", odd), op="ADD2"))
        res, log = gen.drv_increment(reference_step, odd, "ADD2")
        assert log == trace and res == [c.sym for c in out.cells]


def test_driver_model_signed_mul_matches_python():
    """Signed multiplication (issue 21: the Lean product runs as Python's): the same views and
    steps in the same order (the partial rows in lock step, then each row added from its own
    column), the same number."""
    gen = _gen()
    rnd = random.Random(13)
    V = views_mod.view_set()
    for _ in range(150):
        a, b = _snum(rnd, 12), _snum(rnd, 12)
        value, trace = _drive_seq(P.signed_mul(Sheet("t"), _num_of(a), _num_of(b)))
        res, log = gen.drv_signed_mul(reference_step, a, b)
        assert res == _pair_of(value)
        assert log == trace
        assert all(v in V for v, _ in log)
        assert gen.drv_value(res) == gen.drv_value(a) * gen.drv_value(b)
        # the additions present only the ADD views of V_MULADD (Signed.lean, `mul_closed`)
        assert all(gen._mul_add(v) for v, _ in log if v.op == ADD)


def test_proc_witnesses_present_their_views():
    """Every witness of TableProc.lean presents its view in the Lean driver model (Lean re-checks
    this by decision: W_CMP_ok, …), and the view lists cover the procedures' views of V."""
    gen = _gen()
    W = gen.proc_witnesses()
    V = views_mod.view_set()
    for name, (wanted, wit) in W.items():
        assert set(wanted) <= V and len(set(wanted)) == len(wanted), name
        assert set(wit) == set(wanted), name
    for op in ("CMP=", "CMP<", "CMP>", "ZT", "INC", "ADD2", "SGN+", "SGN-", "SGN*", "NEG"):
        assert {v for v in V if v.op == op} <= {v for ws, _ in W.values() for v in ws}, op


def _rand_expr(rnd, depth, star=True):
    if depth == 0 or rnd.random() < 0.25:
        return ("-" if rnd.random() < 0.3 else "") + str(rnd.randint(0, 10 ** rnd.randint(1, 12)))
    if rnd.random() < 0.15:
        return f"-({_rand_expr(rnd, depth - 1, star)})"
    op = rnd.choice("+-*" if star else "+-")
    return f"({_rand_expr(rnd, depth - 1, star)} {op} {_rand_expr(rnd, depth - 1, star)})"


def test_driver_model_evaluator_matches_python_solve():
    """The evaluator of Evaluator.lean (mirrored as drv_eval) against `solve` in the sequential
    mode: the same value, the same views and steps, in order (products included, issue 21)."""
    gen = _gen()
    rnd = random.Random(14)
    V = views_mod.view_set()
    for k in range(120):
        expr = _rand_expr(rnd, 3, star=k % 2 == 0)
        sol = solve(expr, "reference", parallel=False, trace=True)
        res, log = gen.drv_eval(reference_step, parse(expr, Limits()))
        assert gen.drv_value(res) == sol.value == eval(expr.replace("/", "//")), expr
        trace = [pair for batch in sol.trace for pair in batch]
        assert log == trace, expr
        assert all(v in V for v, _ in log)


def test_procedure_view_sets_count():
    """The view sets Signed.lean names: V_SUBGE and V_MULADD (222 each, filters of V's SUB and
    ADD views), VSADD (837 per sign op), VSMUL (732), all inside V."""
    gen = _gen()
    V = views_mod.view_set()
    by = lambda op: {v for v in V if v.op == op}  # noqa: E731
    subge = {v for v in by(SUB) if gen._sub_ge(v)}
    muladd = {v for v in by(ADD) if gen._mul_add(v)}
    cmp = by("CMP=") | by("CMP<") | by("CMP>")
    assert len(subge) == len(muladd) == 222 and len(cmp) == 363
    for op in ("SGN+", "SGN-"):
        assert len(by(op) | by(ADD) | cmp | subge) == 837
    assert len(by("SGN*") | by(MUL) | muladd) == 732


# ---------------------------------------------------------------- issue 15: the parallel mode
# Lean: Sketchpad/Parallel.lean (lean/README.md, "Parallel = sequential").


def _lean_select_scan(n: int, op: str, xs: list, ys: list, c: str, states, cr: bool = True):
    """Mirror of Lean's `selectScan refStep cr S n op xs ys c`: the batch (the first column under
    its real state, every later column under every state of `S`, in `S`'s order) and the followed
    run (`selFollow`: the probe of the emitted state; stop at a control word or a state outside
    `S`)."""

    def hd(r, i):
        return r[i] if i < len(r) else "_"

    if n == 0:
        return [], []
    first = View(op, hd(xs, 0), hd(ys, 0), c)
    cols = [[View(o, hd(xs, i), hd(ys, i), cc) for o, cc in states] for i in range(1, n)]
    step = reference_step(first)
    run = [(first, step)]
    for col in cols:
        if step.next not in SCAN_OPS:
            break
        state = (step.next, step.flag if cr else "_")
        match = [v for v in col if (v.op, v.c) == state]
        if not match:
            break
        step = reference_step(match[0])
        run.append((match[0], step))
    return [first] + [v for col in cols for v in col], run


def _lean_mul_states(d: str) -> list:
    """Lean's `mulStates d` (`mulCarries.filter (mulOK d)`, in `mulCarries` order)."""
    return [(MUL, c) for c in [str(k) for k in range(1, 9)] + ["_"] if c == "_" or int(c) < int(d)]


def test_lean_select_scan_model_matches_python_carry_select():
    """Lean's carry-select model (`selectScan`, `selRowsTrace`, `selMulRowTrace`) presents the
    batch Python's `_scan_select` presents (the states of `FAMILIES` / `MUL_CARRIES`, Python's
    limit), writes the sheet Python's parallel scan writes, and its followed run is the sequential
    run (`sel_add_exact`, `sel_sub_exact`, `sel_mul_row_exact`)."""
    gen = _gen()
    assert FAMILIES[ADD] == ((ADD, "_"), (ADD, "1")) and FAMILIES[SUB] == ((SUB, "_"), (SUB, "1"))
    for d in "0123456789":
        assert sorted(_lean_mul_states(d)) == sorted((MUL, c) for c in MUL_CARRIES[d])
    rnd = random.Random(15)
    for _ in range(200):
        xs = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 30))]
        ys = [rnd.choice("0123456789") for _ in range(rnd.randint(1, 30))]
        for op in (ADD, SUB):
            states = [(op, "_"), (op, "1")]  # Lean's `rowStates op`
            batch, run = _lean_select_scan(max(len(xs), len(ys)) + 2, op, xs, ys, "_", states)
            trace, out, carry = _python_rows(op, xs, ys, parallel=True)
            assert [v for v, _ in trace] == batch  # one batch, Python's order
            assert _sheet_of(run) == (out, carry)
            assert run == gen.rows_trace(op, xs, ys)  # = the sequential run
        d = rnd.choice("0123456789")
        n = len(xs) + 2
        batch, run = _lean_select_scan(n, MUL, xs, [d] * n, "_", _lean_mul_states(d))
        sheet = Sheet("t")
        x = _row(sheet, "x", xs)
        carry, out = sheet.row("carry"), sheet.row("out")
        trace = _drive(scan(MUL, x, None, carry, out, fixed=Cell(d, INPUT)), True)
        assert sorted(v for v, _ in trace) == sorted(batch)  # same batch (Lean orders states by mulCarries)
        assert _sheet_of(run) == (out.text(), carry.text())
        assert run == gen.mul_row_trace(xs, d)


def test_lean_sum_tree_model_pairs_rows_as_python():
    """Lean's `treeLevel`/`sumTree` (Parallel.lean) add the partial rows in the pairs, at the
    shifts and in the order Python's `_sum_tree` does."""

    def lean_pairs(m: int) -> list:
        items, calls = list(range(m)), []
        while len(items) > 1:
            nxt = []
            for k in range(0, len(items) - 1, 2):
                calls.append((items[k], items[k + 1] - items[k]))  # (shift s1, s2 - s1)
                nxt.append(items[k])
            if len(items) % 2:
                nxt.append(items[-1])
            items = nxt
        return calls

    original = P.add_rows_all
    calls: list = []

    def recording(sheet, pairs):
        calls.extend((offset, start) for _, _, start, offset in pairs)
        return original(sheet, pairs)

    for m in (1, 2, 3, 5, 8, 13):
        calls.clear()
        P.add_rows_all = recording
        try:
            b = int("7" * m)
            assert api_solve(f"98765 * {b}", "reference", parallel=True).value == 98765 * b
        finally:
            P.add_rows_all = original
        assert calls == lean_pairs(m), m


# ------------------------------------------------------------------ issue 11 (lean2b): division,
# gcd, square root: the Lean driver model (Divide.lean, Gcd.lean, mirrored in derive/lean.py as
# drv_divide, drv_signed_divmod, drv_signed_gcd, drv_signed_isqrt) against the Python procedures.


def test_div_witnesses_present_their_views():
    """Every witness of TableDiv.lean presents its view in the Lean model (Lean re-checks this
    by decision: W_DIV_ok, W_SDIV_ok, W_GCD_ok), and the view sets have the sizes the Lean
    modules name: V_DIV 260 (241 SUB of subDiv, 19 DQ), VSDIV 291, VGCD 273."""
    gen = _gen()
    W = gen.div_witnesses()
    V = views_mod.view_set()
    for name, (wanted, wit) in W.items():
        assert set(wanted) <= V and len(set(wanted)) == len(wanted), name
        assert set(wit) == set(wanted), name
    by = lambda op: {v for v in V if v.op == op}  # noqa: E731
    div = {v for v in by(SUB) if gen._sub_div(v)} | by("DQ")
    assert len(div) == 260 and set(W["DIV"][0]) == div
    assert len(by(SUB) | by("DQ") | by("ZT") | by("INC") | by("SGN/")) == 291
    assert len(by("ABS") | by("ZT") | div) == 273
    assert set(W["SDIV"][0]) | div == by(SUB) | by("DQ") | by("ZT") | by("INC") | by("SGN/")


def _canon_snum(rnd, max_len, nonzero=False):
    while True:
        s, xs = _snum(rnd, max_len)
        if not nonzero or xs != ["0"]:
            return s, xs


def test_driver_model_matches_python_division_and_gcd():
    """divide_rows, signed_divmod, signed_gcd and signed_isqrt (sequential mode) against the Lean
    model: the same views and steps in order, the same numbers, and Python's // % gcd isqrt."""
    gen = _gen()
    rnd = random.Random(15)
    V = views_mod.view_set()
    for k in range(120):
        a = _canon_snum(rnd, 14 if k % 3 else 3)
        b = _canon_snum(rnd, 6 if k % 2 else 2, nonzero=True)
        va, vb = gen.drv_value(a), gen.drv_value(b)
        sheet = Sheet("t")
        (q, rem), trace = _drive_seq(P.divide_rows(sheet, _row(sheet, "a", a[1]), _row(sheet, "b", b[1])))
        (mq, mr), log = gen.drv_divide(reference_step, a[1], b[1])
        assert log == trace, (a, b)
        assert mq == [c.sym for c in q.cells] and mr == [c.sym for c in rem], (a, b)
        (qn, rn), trace = _drive_seq(P.signed_divmod(Sheet("t"), _num_of(a), _num_of(b)))
        (mq, mr), log = gen.drv_signed_divmod(reference_step, a, b)
        assert log == trace and mq == _pair_of(qn) and mr == _pair_of(rn), (a, b)
        assert (gen.drv_value(mq), gen.drv_value(mr)) == (va // vb, va % vb)
        assert all(v in V for v, _ in log)
        b0 = b if k % 5 else ("+", ["0"])
        g, trace = _drive_seq(P.signed_gcd(Sheet("t"), _num_of(a), _num_of(b0)))
        mg, log = gen.drv_signed_gcd(reference_step, a, b0)
        assert log == trace and mg == _pair_of(g), (a, b0)
        assert gen.drv_value(mg) == math.gcd(va, gen.drv_value(b0))
        r = (a[0] if a[1] == ["0"] else "+", a[1])
        root, trace = _drive_seq(P.signed_isqrt(Sheet("t"), _num_of(r)))
        mroot, log = gen.drv_signed_isqrt(reference_step, r)
        assert log == trace and mroot == _pair_of(root), r
        assert gen.drv_value(mroot) == math.isqrt(abs(va))


def test_sqrt_view_set():
    """V_SQRT of Sqrt.lean: 22 ADD views p + p, 222 SUB views of subSq, 6 INC views of incSq,
    5 ADD2, 19 DQ, 1 ODD, 2 ABS (277), all in V, and the square root of the Lean model presents
    only those (random inputs of up to 30 digits)."""
    gen = _gen()
    V = views_mod.view_set()
    vs = gen.sqrt_views()
    assert len(vs) == len(set(vs)) == 277 and set(vs) <= V
    rnd = random.Random(16)
    for _ in range(60):
        a = _canon_snum(rnd, 30)
        a = ("+", a[1])
        _, log = gen.drv_signed_isqrt(reference_step, a)
        assert {v for v, _ in log} <= set(vs)


def _rand_expr_all(rnd, depth):
    if depth == 0 or rnd.random() < 0.25:
        return str(rnd.randint(0, 10 ** rnd.randint(1, 8)))
    r = rnd.random()
    if r < 0.1:
        return f"-({_rand_expr_all(rnd, depth - 1)})"
    if r < 0.2:
        return f"sqrt({_rand_expr_all(rnd, depth - 1)})"
    if r < 0.3:
        return f"gcd({_rand_expr_all(rnd, depth - 1)}, {_rand_expr_all(rnd, depth - 1)})"
    op = rnd.choice(["+", "-", "*", "//", "%"])
    return f"({_rand_expr_all(rnd, depth - 1)} {op} {_rand_expr_all(rnd, depth - 1)})"


def test_driver_model_evaluator_all_matches_python_solve():
    """The evaluator of EvalAll.lean (drv_eval_all) against `solve` in the sequential mode, with
    every operation: the same value and the same views and steps in order."""
    gen = _gen()
    rnd = random.Random(17)
    V = views_mod.view_set()
    done = 0
    while done < 60:
        expr = _rand_expr_all(rnd, 3)
        try:
            sol = solve(expr, "reference", parallel=False, trace=True)
        except (InputError, ValueError):
            continue
        tree = parse(expr, Limits())
        res, log = gen.drv_eval_all(reference_step, tree)
        assert gen.drv_value(res) == sol.value == evaluate_python(tree), expr
        assert log == [pair for batch in sol.trace for pair in batch], expr
        assert all(v in V for v, _ in log)
        done += 1
