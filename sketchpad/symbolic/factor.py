"""Factorisation over Z: content, then irreducible factors with multiplicities, all proven.

1. content and sign, and the power of x (read off the exponents);
2. Yun's square-free decomposition (squarefree.py): f = a_1 a_2^2 ... a_k^k, so every
   multiplicity comes from the decomposition;
   x^n - 1 and x^n + 1 are recognised first: their factors are cyclotomic (structure.py);
3. for each square-free a_i: Eisenstein's criterion may prove it irreducible at once; when
   a_i(x) = g(x^k), g is split first and each factor h(x^k) split on (structure.py: it has
   no rational root); every rational root (roots.py) gives a linear factor, at any degree and
   any size (at degree >= 4 only when the end coefficients are short: otherwise Zassenhaus
   finds the linear factors with the others); a rest of degree 2 or 3 then has no linear
   factor and is irreducible; a rest of degree >= 4 is factored by Zassenhaus's method (zassenhaus.py: factors modulo a
   small prime by Cantor-Zassenhaus, Hensel lifting, recombination with degree pruning and the
   trailing-coefficient test, every factor checked by exact division over Z).  The search is
   exhaustive, so every factor is proven irreducible: `proven` is True for every result.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .integer import Z
from .poly import Poly
from .roots import rational_roots
from .squarefree import yun
from .structure import cyclotomic_factors, eisenstein, exponent_gcd, spread, substitute
from .zassenhaus import factor_squarefree

SHORT_ENDS = 3  # digits of f(0) and lc(f) up to which the rational root theorem runs first


@dataclass
class Factorization:
    content: Z
    factors: list  # [(Poly, multiplicity)], each primitive, lc > 0
    proven: bool = True  # every factor proven irreducible (the search is exhaustive: always)

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
        return Factorization(content, factors)
    cyclotomic = cyclotomic_factors(g)
    if cyclotomic is not None:  # x^n - 1 or x^n + 1: square-free, its factors known
        factors += [(h, 1) for h in cyclotomic]
        factors.sort(key=lambda fm: (fm[0].degree, fm[0].coeffs()))
        return Factorization(content, factors)
    k = exponent_gcd(g)
    if k > 1:  # g = G(x^k): G's factors H (multiplicity m) give H(x^k), split on
        for H, m in factor_poly(substitute(g, k), method).factors:
            factors += [(h, m) for h in _split(spread(H, k), method, [], spread_from=k)]
        factors.sort(key=lambda fm: (fm[0].degree, fm[0].coeffs()))
        return Factorization(content, factors)
    parts, primes = yun(g)
    for a, m in parts:
        factors += [(h, m) for h in _split(a, method, primes)]
    factors.sort(key=lambda fm: (fm[0].degree, fm[0].coeffs()))  # a stable display order
    return Factorization(content, factors)


def _split(f: Poly, method: str, primes: list[int], spread_from: int = 1) -> list:
    """The irreducible factors of a square-free primitive f with f(0) != 0 (`primes`: primes
    modulo which f is known to be square-free; they stay so for the factors of f, and for g
    when f = g(x^k)).  `spread_from`: f is h(x^k) for a factor h already split (k > 1), so
    the substitution is not tried again."""
    if f.degree <= 1:
        return [f]
    cyclotomic = cyclotomic_factors(f)
    if cyclotomic is not None:
        return cyclotomic
    if eisenstein(f):
        return [f]
    k = exponent_gcd(f)
    if k > 1 and spread_from == 1:
        out = []
        for h in _split(substitute(f, k), method, primes):
            out += _split(spread(h, k), method, primes, spread_from=k) if h.degree >= 1 else [h]
        return out
    step = f.degree // spread_from if spread_from > 1 else 1  # f = h(x^k), h irreducible: every
    if step >= 2 and f.degree >= 4:  # factor's degree is a multiple of deg h, so no rational root
        return factor_squarefree(f, primes, step=step, base=substitute(f, 2) if spread_from == 2 else None)
    long_ends = max(f.at(0).digits, f.lc.digits) > SHORT_ENDS  # reading lengths
    if f.degree >= 4 and method == "auto" and long_ends:
        # the roots would cost trial factoring or p-adic lifting (roots.py): Zassenhaus lifts
        # the linear factors with the rest instead
        return factor_squarefree(f, primes, rootless=False)
    roots = rational_roots(f, method=method, squarefree=True)
    out = []
    rest = f
    for r in roots:
        lin = Poly(f.ctx, {1: r.den, 0: -r.num}, f.var)
        out.append(lin)
        q = rest.exact_quotient(lin)
        if q is None:  # cannot happen: a root gives a factor
            raise ArithmeticError(f"internal error: the root {r} gives no factor of {rest}")
        rest = q
    if rest.degree >= 4:
        out += factor_squarefree(rest, primes, step=step)
    elif rest.degree >= 1:
        out.append(rest)  # degree 2 or 3 without a rational root: irreducible
    return out
