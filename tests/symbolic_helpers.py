"""Shared helpers for the symbolic tests: SymPy as the independent oracle."""

from __future__ import annotations

import sympy

X = sympy.Symbol("x")


def to_sympy(text: str):
    """Our canonical output ('3*x^2 - 12', '(x - 1)^2*(x + 1)') read by SymPy."""
    return sympy.sympify(text.replace("^", "**"), locals={"x": X, "i": sympy.I})


def coeff_key(expr) -> tuple[int, tuple]:
    """(sign, coefficients) of a SymPy polynomial with positive leading coefficient."""
    c = [int(v) for v in sympy.Poly(expr, X).all_coeffs()]
    return (-1, tuple(-v for v in c)) if c[0] < 0 else (1, tuple(c))


def assert_factors_match(result, expr) -> None:
    """Our factorisation equals SymPy's factor_list up to order and sign, and multiplies back."""
    sc, sf = sympy.factor_list(sympy.expand(expr), X)
    sign, theirs = 1, []
    for f, m in sf:
        s, key = coeff_key(f)
        sign *= s**m
        theirs.append((key, m))
    ours = [(tuple(g.coeffs()), m) for g, m in result.factors]
    assert sorted(ours) == sorted(theirs), (result, sf)
    assert result.content.value == sc * sign
    product = sympy.Integer(result.content.value)
    for g, m in result.factors:
        product *= to_sympy(str(g)) ** m
    assert sympy.expand(product - expr) == 0


def assert_roots_match(solution, expr) -> None:
    """Our roots (with multiplicities) are SymPy's exact roots, each in simplest form."""
    theirs = sympy.roots(sympy.Poly(sympy.expand(expr), X))
    assert sum(theirs.values()) == sympy.degree(expr, X), "oracle must find every root"
    remaining = dict(theirs)
    for r in solution.roots:
        ours = sympy.sympify(_sympy_text(r))
        match = [t for t in remaining if sympy.expand(ours - t) == 0]
        assert match, (str(r), theirs)
        assert remaining[match[0]] == r.multiplicity
        del remaining[match[0]]
        if r.kind != "rational":
            s = r.value
            assert sympy.igcd(s.A.value, s.B.value, s.E.value) == 1 and s.E.value > 0 and s.B.value > 0
            if s.simplified:
                assert all(e == 1 for e in sympy.factorint(abs(s.C.value)).values()), s.C
    assert not remaining and not solution.unsolved


def _sympy_text(root) -> str:
    v = root.value
    if root.kind == "rational":
        return f"Rational({v.num.value}, {v.den.value})"
    return v.text(python=True)
