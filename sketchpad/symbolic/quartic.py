"""Split a quartic with no rational root into two quadratics over Z, or prove it irreducible.

Make it monic with integer coefficients:  F(y) = a^3 f(y/a) = y^4 + B y^3 + C y^2 + D y + E
(B = b, C = ac, D = a^2 d, E = a^3 e).  By Gauss's lemma F splits over Q exactly when it is
(y^2 + al*y + be)(y^2 + ga*y + de) with integers, and then u = be + de is an integer root of
the resolvent cubic
    u^3 - C u^2 + (BD - 4E) u - (B^2 E - 4CE + D^2)
(its roots are r1r2 + r3r4, r1r3 + r2r4, r1r4 + r2r3).  Given u: be, de are the roots of
z^2 - u z + E and al, ga those of z^2 - B z + (C - u); both discriminants must be squares, and
one of the two pairings must satisfy al*de + be*ga = D.  Trying every integer root u of the
resolvent therefore finds a split whenever one exists.  The resolvent's roots come from
`rational_roots`, so this works at any coefficient size; no fractions are ever formed.
"""

from __future__ import annotations

from .integer import Z
from .poly import Poly
from .roots import rational_roots


def _sqrt_exact(n: Z) -> Z | None:
    if n.sign < 0:
        return None
    r = n.isqrt()
    return r if r * r == n else None


def _halves(s: Z, t: Z, two: Z) -> tuple[Z, Z] | None:
    """((s + t)/2, (s - t)/2) when both are integers."""
    q1, r1 = divmod(s + t, two)
    if not r1.is_zero:
        return None
    return q1, (s - t).exact_div(two)


def split_quartic(f: Poly) -> tuple[Poly, Poly] | None:
    assert f.degree == 4
    ctx, var = f.ctx, f.var
    two, four = ctx.const(2, "a constant of the quartic resolvent"), ctx.const(4, "a constant of the quartic resolvent")
    a = f.lc
    a2 = a * a
    B, C, D, E = f.at(3), f.at(2) * a, f.at(1) * a2, f.at(0) * a2 * a
    BE = B * E
    resolvent = Poly(
        ctx, {3: ctx.const(1, "one"), 2: -C, 1: B * D - four * E, 0: -(B * BE - four * C * E + D * D)}, var
    )
    for root in rational_roots(resolvent):
        if not root.is_integer:
            continue  # a monic integer cubic: only integer roots matter
        u = root.num
        s1, s2 = _sqrt_exact(u * u - four * E), _sqrt_exact(B * B - four * (C - u))
        if s1 is None or s2 is None:
            continue
        bd, ag = _halves(u, s1, two), _halves(B, s2, two)
        if bd is None or ag is None:
            continue
        (be, de), (al, ga) = bd, ag
        for be_, de_ in ((be, de), (de, be)):
            if al * de_ + be_ * ga == D:
                g = Poly(ctx, {2: a2, 1: al * a, 0: be_}, var).primitive()[1]  # G(a x), made primitive
                h = f.exact_quotient(g)
                if h is not None:
                    return g, h.primitive()[1]
    return None
