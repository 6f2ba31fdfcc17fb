"""Each distinct view once per batch, and the parallel quotient and root digits.

- With the deduplication on and off, sheets, answers and presented views are identical, in
  both modes, for every procedure; the stepper is only ever asked distinct views.
- The parallel mode writes exactly the sequential run's sheet for addition, subtraction,
  division, remainder, square root and gcd (products add their rows in a tree, by design).
- Every view a speculative block can present is in V; a stepper exact on V never leaves a
  block's batch; one that is wrong on a view may, and the run is still the sequential run's.
- A written step comes from the batch that is being followed: nothing is kept across batches.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.golden import _worksheet
from sketchpad import solve
from sketchpad.errors import SketchpadError
from sketchpad.faults import OneWrongStepper, wrong_steps
from sketchpad.procedures import ADD2_DIGITS, DQ_STATES, trial_probes
from sketchpad.reference import ReferenceStepper
from sketchpad.runtime import MUL_CARRIES
from sketchpad.sheet import Sheet, input_number
from sketchpad.views import load, view_set

V = view_set()


def ints(max_digits):
    return (
        st.integers(1, max_digits)
        .flatmap(lambda n: st.integers(0, 10**n - 1))
        .flatmap(lambda v: st.sampled_from([v, -v]))
    )


def exprs(a, b):
    out = [f"{a} + {b}", f"{a} - {b}", f"{a} * {b}", f"sqrt({abs(a)})", f"gcd({a}, {b})", f"-({a})"]
    if b:
        out += [f"{a} // {b}", f"{a} % {b}"]
    return out


class Spy(ReferenceStepper):
    """The reference stepper, recording every batch it is asked."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __call__(self, views):
        self.calls.append(list(views))
        return super().__call__(views)


def outcome(expr, stepper="reference", **kw):
    """(value or error, worksheet as the golden traces record it, presented batches, solution)."""
    presented = []
    try:
        sol = solve(
            expr,
            stepper,
            on_batch=lambda probes, steps: presented.append([(p.view, s) for p, s in zip(probes, steps)]),
            **kw,
        )
    except SketchpadError as e:
        return f"{type(e).__name__}: {e}", None, presented, None
    return sol.value, _worksheet(sol.worksheet), presented, sol


@pytest.mark.parametrize("parallel", [True, False])
@settings(max_examples=25, deadline=None)
@given(a=ints(45), b=ints(25))
def test_dedup_on_and_off_give_the_same_run(parallel, a, b):
    for e in exprs(a, b):
        spy = Spy()
        on = outcome(e, spy, parallel=parallel, dedup=True)
        off = outcome(e, parallel=parallel, dedup=False)
        assert on[:3] == off[:3], e
        sol, sol_off = on[3], off[3]
        assert all(len(set(c)) == len(c) for c in spy.calls), "a view asked twice in one batch"
        assert sol.forward_passes == sum(len(c) for c in spy.calls) == sum(len({v for v, _ in b}) for b in on[2])
        assert sol.views_presented == sum(len(b) for b in on[2]) == sol_off.forward_passes == sol_off.views_presented
        assert sol.batches == len(spy.calls) == sol_off.batches
        assert sol.views == sol_off.views and sol.views <= V


@settings(max_examples=40, deadline=None)
@given(a=ints(60), b=ints(30))
def test_the_parallel_mode_writes_the_sequential_sheet(a, b):
    for e in exprs(a, b):
        par, seq = outcome(e, parallel=True), outcome(e, parallel=False)
        assert par[0] == seq[0], e
        if "*" not in e:
            assert par[1] == seq[1], e
        assert par[3] is None or par[3].fallbacks == 0, e  # the reference never leaves a block's batch


def test_products_write_the_sequential_partial_rows():
    """Carry-select product rows: the partial products (and their carries) are the sequential
    ones; only the adding-in differs (a tree of additions instead of one after another)."""
    for e in ["31415926535 * -2718281828", "999 * 99", "7 * 8", "0 * 5", "123456789 * 1000000001"]:
        par, seq = outcome(e, parallel=True), outcome(e, parallel=False)
        assert par[0] == seq[0]
        width = len(e.split("*")[1].strip().lstrip("-"))
        head = 2 + 2 * width  # a, b, then a carry row and a product row per digit of b
        assert par[1][0]["rows"][:head] == seq[1][0]["rows"][:head], e
        assert len(par[2]) < len(seq[2])


@pytest.mark.parametrize("digits", [40, 120])
def test_long_operands_present_only_views_of_V_and_never_fall_back(digits):
    import random

    rnd = random.Random(digits)
    n = lambda d: rnd.randrange(10 ** (d - 1), 10**d)  # noqa: E731
    for e in [
        f"{n(2 * digits)} // {n(digits)}",
        f"-{n(2 * digits)} % {n(digits)}",
        f"sqrt({n(2 * digits)})",
        f"gcd({n(digits)}, {n(digits)})",
        f"{n(digits)} * {n(digits)}",
    ]:
        sol = solve(e, "reference")
        assert sol.views <= V and sol.fallbacks == 0, e
        assert sol.value == eval(e.replace("sqrt", "math.isqrt").replace("gcd", "math.gcd"), {"math": math})


def test_division_and_root_batches_are_one_per_digit():
    # 200/100 digits: the zero test, the sign, one batch per quotient digit (101), the remainder's
    # zero test: 104; and at most ~10 (x) * 11 (y) * 2 (borrow) + 19 DQ forward rows per digit
    import random

    rnd = random.Random(2026)
    a, b = rnd.randrange(10**199, 10**200), rnd.randrange(10**99, 10**100)
    sol = solve(f"{a} // {b}", "reference")
    assert sol.batches == 3 + 101 and sol.forward_passes <= 101 * 241 + 20 and sol.forward_passes < 25_000
    s = solve(f"sqrt({a})", "reference")
    assert s.batches == 1 + 2 * 100
    assert solve(f"{a} + {b}", "reference").batches == 2
    assert solve(f"{a} + {b}", "reference").forward_passes <= 1 + 242


def test_every_view_a_speculative_block_can_present_is_in_V():
    dq = {(v.a, v.b) for v in V if v.op == "DQ"}
    assert set(DQ_STATES) == dq and len(DQ_STATES) == len(dq) == 19
    assert set(ADD2_DIGITS) == {v.a for v in V if v.op == "ADD2"}
    assert {(d, c) for d, cs in MUL_CARRIES.items() for c in cs} == {
        (v.b, v.c) for v in V if v.op == "MUL" and v.a == "1"
    }

    def row(sheet, name, digits):
        r = sheet.row(name)
        r.cells = input_number(digits)[1]
        return r

    for rd in ("7", "90", "12345678", "0", "99999999999"):
        for yd in ("3", "123", "9876543210", "1", "100000000000"):  # y wider than r: blank x
            sheet = Sheet("t")
            r, y, q = row(sheet, "r", rd), row(sheet, "y", yd), sheet.row("q")
            for free in (0, 2):
                block = trial_probes(r, y, (q, 0), free_y=free)
                views = {p.view for p in block.probes()}
                assert len(block.probes()) == block.size == len(block.codes())
                assert views <= V, views - V


@pytest.mark.parametrize("op", ["SUB", "DQ", "ADD2", "INC", "ODD", "ADD", "ZT"])
def test_a_stepper_wrong_on_one_view_gives_the_sequential_run(op):
    """Fault injection in the parallel mode: for every view of these operations and every
    plausible wrong step, the parallel run of its witness equals the sequential run (value or
    error, and the sheet); some of them lead a speculative block outside its batch."""
    fell_back = 0
    for d in load():
        view = d["view"]
        if view.op != op or "*" in d["witness"]:
            continue
        for wrong in wrong_steps(view):
            par = outcome(d["witness"], OneWrongStepper(view, wrong), parallel=True)
            seq = outcome(d["witness"], OneWrongStepper(view, wrong), parallel=False)
            assert par[:2] == seq[:2], (view, wrong, d["witness"])
            fell_back += par[3] is not None and par[3].fallbacks > 0
    if op == "SUB":
        assert fell_back > 0


class Counting(ReferenceStepper):
    """The reference stepper, counting its calls (through the list path)."""

    def __init__(self):
        super().__init__()
        self.batches = 0

    def __call__(self, views):
        self.batches += 1
        return super().__call__(views)


@pytest.mark.parametrize("parallel", [True, False])
@pytest.mark.parametrize(
    "expr",
    [
        "98765432109876 // -1234567",
        "sqrt(98765432109876543)",
        "gcd(1071, 462)",
        "31415926535 * -2718281828",
        "-99999 + 99999",
    ],
)
def test_every_written_step_comes_from_the_batch_being_followed(expr, parallel, monkeypatch):
    """Every write gathers from the steps of the batch the stepper answered last (a result's
    sign is decided first and written once its row exists: the only exception)."""
    st = Counting()
    one, many = Sheet.write, Sheet.write_steps
    written = []

    def write(row, i, step, fld="sym"):
        assert i == "sign" or step.batch.index == st.batches - 1, "a step written after its batch"
        written.append(1)
        return one(row, i, step, fld)

    def write_steps(row, cols, batch, rows, fld="sym"):
        assert batch.index == st.batches - 1, "steps written after their batch"
        written.append(len(cols))
        return many(row, cols, batch, rows, fld)

    monkeypatch.setattr(Sheet, "write", staticmethod(write))
    monkeypatch.setattr(Sheet, "write_steps", staticmethod(write_steps))
    sol = solve(expr, st, parallel=parallel)
    assert sum(written) > 0 and sol.batches == st.batches
    assert sol.value == eval(expr.replace("sqrt", "math.isqrt").replace("gcd", "math.gcd"), {"math": math})


def test_counters_in_the_json_answer():
    d = solve("98765432109876 // 1234567", "reference").as_dict()
    assert {"forward_passes", "views_presented", "batches", "distinct_views"} <= set(d)
    assert d["views_presented"] > d["forward_passes"] >= d["distinct_views"] > 0
    seq = solve("98765432109876 // 1234567", "reference", parallel=False).as_dict()
    assert seq["views_presented"] == seq["forward_passes"] == seq["batches"]
