"""Recombination's filters (issue 23): the value test before a trial division, and the degree
step of f = h(x^k) with h irreducible; each must reject what it should and never a true factor."""

from __future__ import annotations

import pytest
import sympy

from sketchpad.symbolic import Context, factor, parse_poly, recombine
from sketchpad.symbolic.recombine import _value_test

from symbolic_helpers import X, assert_factors_match


def _poly(text: str, ctx: Context):
    return parse_poly(ctx, text)


def test_the_value_test_keeps_true_factors_and_rejects_others():
    ctx = Context("reference")
    G = _poly("(x^2 + x + 3)*(2*x^3 - x + 5)", ctx)
    true = [_poly("2*x^2 + 2*x + 6", ctx), _poly("2*x^3 - x + 5", ctx), _poly("x^2 + x + 3", ctx)]
    false = [_poly("2*x^2 + 2*x + 7", ctx), _poly("2*x^3 + x + 5", ctx)]
    # a candidate's leading coefficient is lc(G) (here 2) times a unit mod m: scale the monic ones
    assert _value_test(G, true + false) == [True, True, True, False, False]


def test_the_value_test_is_needed_and_breaking_it_breaks_factoring(monkeypatch):
    """Fault injection: a value test that rejects everything leaves a reducible polynomial whole."""
    text = "(x^4 + 3*x + 1)*(x^4 - 2*x^3 + 7)"
    assert len(factor(text, "reference").factors) == 2
    monkeypatch.setattr(recombine, "_value_test", lambda G, cands: [False] * len(cands))
    assert len(factor(text, "reference").factors) == 1


@pytest.mark.parametrize(
    "expr",
    [
        # h(x^2) for an irreducible h: irreducible, or h(x^2) = c q(x) q(-x)
        X**16 + X**14 - X**10 - X**8 - X**6 + X**2 + 1,
        (X**4 + 3 * X + 1).subs(X, X**2),
        sympy.expand((X**3 + X + 1) * (X**3 - X + 1) * (X**3 + 2 * X - 5)).subs(X, X**2),
        sympy.expand((X**4 + 2 * X**3 + 3) * (X**4 - 2 * X**3 + 3)),  # q(x) q(-x) = h(x^2)
        (X**2 + 8).subs(X, X**3),  # (x^2 + 2)(x^4 - 2x^2 + 4): degrees 2 and 4, multiples of 2
        (X**2 - 2 * X - 1).subs(X, X**3),
    ],
)
def test_spread_factors_equal_sympys(expr):
    text = str(sympy.expand(expr)).replace("**", "^")
    r = factor(text, "reference", max_operations=2_000_000)
    assert r.proven
    assert_factors_match(r, expr)
