"""Large coefficients (30+ digits): the long arithmetic of the procedures is really exercised."""

from __future__ import annotations

import sympy

from sketchpad.symbolic import expand, factor, solve

from symbolic_helpers import X, assert_factors_match, assert_roots_match, to_sympy

A = 123456789012345678901234567890123  # 33 digits
B = 987654321098765432109876543210987  # 33 digits
C = 555555555555555555555555555555555555557  # 39 digits


def test_expand_with_33_digit_coefficients():
    r = expand(f"({A}x - {B})^3 + {C}x", "reference")
    want = sympy.expand((A * X - B) ** 3 + C * X)
    assert sympy.expand(to_sympy(str(r)) - want) == 0
    assert max(len(str(abs(c))) for c in r.poly.coeffs()) >= 99
    assert any(
        e["op"] == "*" and len(e["operands"][0].lstrip("-")) >= 33 and len(e["operands"][1].lstrip("-")) >= 33
        for e in r.audit
    )


def test_factor_with_30_digit_rational_roots():
    """Roots whose numerator and denominator cannot be found by trial division (Hensel)."""
    expr = (A * X - B) * (X**2 + 1) * 6
    r = factor(str(sympy.expand(expr)).replace("**", "^"), "reference")
    assert r.proven
    assert_factors_match(r, expr)


def test_solve_quadratic_with_30_digit_coefficients():
    expr = A * X**2 + B * X - C
    s = solve(f"{A}x^2 + {B}x - {C}", "reference")
    assert_roots_match(s, expr)
    assert s.roots[0].value.E.value == 2 * A
