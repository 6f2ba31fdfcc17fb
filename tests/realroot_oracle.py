"""SymPy and mpmath as the independent oracle for real roots (shared by the tests and the
benchmark): every interval holds exactly one real root of its factor (SymPy's exact count), is
at most 10^-N wide, the approximation is that root truncated to N digits toward the lower end
(SymPy's own root, evaluated by mpmath at N + 20 digits, agrees), and the real roots counted
with multiplicity are SymPy's."""

from __future__ import annotations

import mpmath
import sympy

X = sympy.Symbol("x")


def _rational(text: str) -> sympy.Rational:
    p, q = text.split("/")
    return sympy.Rational(int(p), int(q))


def check_real_roots(solved, coeffs: list[int], digits: int) -> None:
    """`coeffs`: the polynomial's integer coefficients, highest first (clear denominators first)."""
    poly = sympy.Poly(coeffs, X)
    want = sympy.real_roots(poly)  # with multiplicity
    got = sum(r.multiplicity for r in solved.real_roots)
    assert got == len(want), (got, want)
    assert solved.nonreal_roots == poly.degree() - len(want)
    unit = sympy.Rational(1, 10**digits)
    mpmath.mp.dps = digits + 20
    values = [sympy.Float(w.evalf(digits + 20), digits + 20) for w in want]
    for r in solved.real_roots:
        g = sympy.Poly(sympy.sympify(r.factor.__str__().replace("^", "**")), X)
        assert poly.rem(g**r.multiplicity).is_zero, (str(r.factor), r.multiplicity)
        lo, hi = (_rational(t) for t in r.interval)
        assert r.proven and hi - lo <= unit
        approx = sympy.Rational(r.approx_text)
        assert len(r.approx_text.split(".")[1]) == digits if digits else "." not in r.approx_text
        if lo == hi:  # a rational root, exact
            assert g.eval(lo) == 0 and approx == sympy.floor(lo / unit) * unit
            continue
        assert g.eval(lo) * g.eval(hi) < 0, "no sign change at the exact ends"
        assert g.count_roots(lo, hi) == 1, "the interval must hold exactly one root"
        assert approx <= lo and hi <= approx + unit, "approx is the root truncated toward the lower end"
        inside = [v for v in values if lo <= v <= hi]
        assert len(inside) == r.multiplicity, (r.interval, inside)
        assert 0 <= mpmath.mpf(inside[0]) - mpmath.mpf(approx.p) / approx.q < mpmath.mpf(10) ** -digits
