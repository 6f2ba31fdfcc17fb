"""Reading polynomials and equations from text: parse_poly (the grammar in grammar.py, the
values built by qpoly.RationalRing) and parse_equation ('lhs = rhs' -> lhs - rhs)."""

from __future__ import annotations

from ..errors import InputError
from .grammar import Parser, check_text
from .poly import expect_context
from .qpoly import RationalRing, _finish, _lift, parse_poly

__all__ = ["parse_poly", "parse_equation"]


def parse_equation(ctx, text: str):
    """'lhs = rhs' -> the polynomial lhs - rhs, computed in Context `ctx` (a Poly, or a QPoly with
    rational coefficients); a plain expression is taken as '= 0'.  The grammar is parse_poly's."""
    expect_context(ctx, "parse_equation(ctx, text)")
    text = check_text(text)
    if text.count("=") > 1:
        raise InputError("an equation has at most one '='")
    if "=" not in text:
        return parse_poly(ctx, text)
    lhs, rhs = text.split("=")
    if not lhs.strip() or not rhs.strip():
        raise InputError("both sides of '=' must be expressions")
    pl, pr = Parser(ctx, lhs, RationalRing), Parser(ctx, rhs, RationalRing)
    a = pl.parse()
    pr.var = pl.var
    b = pr.parse()
    p = _lift(a, b, "-")
    p.var = pr.var or pl.var or "x"
    return _finish(p)
