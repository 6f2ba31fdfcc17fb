"""Factorisation over Z: content, then irreducible factors with multiplicities.

1. content and sign, and the power of x (read off the exponents);
2. the square-free part f / gcd(f, f');
3. every rational root (roots.py) gives a linear factor, at any degree and any size;
4. what is left has no rational root: degree 2 and 3 are then irreducible, degree 4 is split
   or proven irreducible by the resolvent cubic (quartic.py), degree >= 5 goes to Kronecker's
   method for factors of degree 2 .. n/2 (kronecker.py), which may be undecided within its
   budget: then the factor is reported with proven=False rather than guessed;
5. the multiplicity of each irreducible factor is counted by exact division of f.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .integer import Z
from .kronecker import Budget, find_factor
from .poly import Poly
from .quartic import split_quartic
from .roots import rational_roots, squarefree_part


@dataclass
class Factorization:
    content: Z
    factors: list  # [(Poly, multiplicity)], each primitive, lc > 0
    proven: bool = True  # every factor proven irreducible

    def __str__(self) -> str:
        parts = []
        c = self.content
        for g, m in self.factors:
            s = str(g)
            if len(g.terms) > 1 and (len(self.factors) > 1 or m > 1 or not c.is_one):
                s = f"({s})"
            parts.append(s if m == 1 else f"{s}^{m}")
        if not parts:
            return str(c)
        if c.is_one:
            return "*".join(parts)
        if (-c).is_one:
            return "-" + "*".join(parts)
        return f"{c}*" + "*".join(parts)


def factor_poly(f: Poly, method: str = "auto") -> Factorization:
    if f.is_zero:
        raise InputError("cannot factor the zero polynomial")
    ctx, var = f.ctx, f.var
    content, g = f.primitive()
    factors = []
    if g.degree >= 1 and g.low > 0:  # x^k divides f: read off the exponents
        factors.append((Poly.monomial(ctx.const(1, "one"), 1, var), g.low))
        g = g.shift(-g.low)
    if g.degree < 1:
        return Factorization(content, factors, True)
    irreducible, proven = _split(squarefree_part(g), method)
    for h in irreducible:
        m = 0
        while True:
            q = g.exact_quotient(h)
            if q is None:
                break
            g, m = q, m + 1
        factors.append((h, m))
    if g.degree != 0:  # cannot happen: the factors must account for f
        raise ArithmeticError(f"internal error: {g} left over after factoring")
    factors.sort(key=lambda fm: (fm[0].degree, fm[0].coeffs()))  # a stable display order
    return Factorization(content, factors, proven)


def _split(f: Poly, method: str) -> tuple[list, bool]:
    """The irreducible factors of a square-free primitive f, and whether all are proven."""
    roots = rational_roots(f, method=method, squarefree=True)
    out = []
    rest = f
    for r in roots:
        lin = Poly(f.ctx, {1: r.den, 0: -r.num}, f.var)
        out.append(lin)
        rest = rest.exact_quotient(lin)
    proven = True
    budget = Budget()
    pending = [rest] if rest.degree >= 1 else []
    while pending:
        h = pending.pop()
        if h.degree <= 3:
            out.append(h)
            continue
        if h.degree == 4:
            pair = split_quartic(h)
            if pair is None:
                out.append(h)
            else:
                pending += pair
            continue
        decided_all = True
        for d in range(2, h.degree // 2 + 1):
            g, decided = find_factor(h, d, budget)
            if g is not None:
                pending += [g, h.exact_quotient(g).primitive()[1]]
                break
            decided_all = decided_all and decided
        else:
            out.append(h)
            proven = proven and decided_all
    return out, proven
