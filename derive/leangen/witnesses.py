"""The witness search: for every view a Lean reduction needs, the first small input (in a fixed
order) whose run in the Lean model (leangen.mirror, reference stepper) presents it."""

from __future__ import annotations

import itertools

from sketchpad import views as views_mod
from sketchpad.reference import reference_step
from sketchpad.symbols import BLANK, View

from .lean_text import lean_ident, view_key
from .mirror import (
    drv_compare,
    drv_divide,
    drv_increment,
    drv_mul,
    drv_negate,
    drv_rows,
    drv_signed_add,
    drv_signed_divmod,
    drv_signed_gcd,
    drv_signed_isqrt,
    drv_signed_mul,
    drv_zero_test,
    mul_row_trace,
    rows_trace,
)


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
