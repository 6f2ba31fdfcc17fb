"""Small helpers shared by the factoring code: rational square roots, and turning a
polynomial with rational coefficients into a primitive integer one (all on the sheet)."""
from __future__ import annotations

from .integer import Z
from .poly import Poly
from .rational import Q


def sqrt_q(x: Q) -> Q | None:
    """The rational square root of x when x is the square of a rational, else None."""
    if x.sign < 0:
        return None
    roots = []
    for n in (x.num, x.den):
        r = n.isqrt()
        if not (r * r == n):
            return None
        roots.append(r)
    return Q(roots[0], roots[1])


def lcm(a: Z, b: Z) -> Z:
    if a.is_one:
        return b
    if b.is_one:
        return a
    return (a * b).exact_div(a.gcd(b))


def integer_poly(coeffs: dict, var: str) -> Poly:
    """{exponent: Q} -> the primitive integer polynomial with positive leading coefficient
    that is a rational multiple of it."""
    qs = [c for c in coeffs.values() if not c.is_zero]
    ctx = qs[0].ctx
    L = qs[0].den
    for c in qs[1:]:
        L = lcm(L, c.den)
    terms = {k: (c.num if L.is_one else c.num * L.exact_div(c.den)) for k, c in coeffs.items() if not c.is_zero}
    return Poly(ctx, terms, var).primitive()[1]
