"""Multifactor Hensel lifting: f = lc * g_1 * ... * g_r (mod p), g_i monic and pairwise coprime
mod p, becomes the same factorisation modulo M = p^K > bound.

f is first made monic modulo M (times the inverse of its leading coefficient, one extended
Euclid on the sheet).  The factors are split into two halves, g = prod(first half) and
h = prod(second half) mod p with Bezout cofactors s*g + t*h = 1 mod p, and (g, h, s, t) are
lifted together by the quadratic Hensel step (von zur Gathen and Gerhard, Algorithm 15.10)
through moduli p^e_1 < p^e_2 < ... < p^K (each at most the square of the one before, the last
exactly K, so the costliest step is no larger than it must be); then each half is lifted the
same way against its own factors.  Every operation is a polynomial operation modulo p^e from
modp.py, so all coefficient operations run as batched procedures.
"""

from __future__ import annotations

from .integer import Z
from .modp import divmod_many, mul_many, reduce_many, xgcd
from .modular import inverse
from .poly import Poly
from .roots import _precisions


def lift(f: Poly, factors: list, P: Z, p: int, bound: Z) -> tuple[list, Z]:
    """(lifted monic factors, M) with f = lc(f) * prod(lifted) mod M and M = p^K > bound."""
    exps = _precisions(p, bound)
    moduli = [P] + [P**e for e in exps]  # all powers computed on the sheet
    M = moduli[-1]
    inv = inverse(f.lc, M)
    if inv is None:  # cannot happen: p does not divide lc(f)
        raise ArithmeticError(f"internal error: lc(f) = {f.lc} is not invertible mod {M}")
    F = reduce_many([f.scale(inv)], M)[0]
    return _tree(F, factors, moduli, P, p), M


def _tree(F: Poly, factors: list, moduli: list, P: Z, p: int) -> list:
    if len(factors) == 1:
        return [F]
    k = len(factors) // 2
    g, h = _product(factors[:k], P), _product(factors[k:], P)
    _, s, t = xgcd(g, h, P, p)
    for m in moduli[1:]:
        g, h, s, t = _step(reduce_many([F], m)[0], g, h, s, t, m)
    return _tree(g, factors[:k], moduli, P, p) + _tree(h, factors[k:], moduli, P, p)


def _product(polys: list, m: Z) -> Poly:
    level = list(polys)
    while len(level) > 1:
        nxt = mul_many([(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)], m)
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def _step(F: Poly, g: Poly, h: Poly, s: Poly, t: Poly, m: Z) -> tuple:
    """One quadratic Hensel step to the modulus m (m divides the square of the old one):
    F = g*h, s*g + t*h = 1 modulo the old modulus become the same modulo m (g, h monic)."""
    (gh,) = mul_many([(g, h)], m)
    (e,) = reduce_many([F - gh], m)
    se, te = mul_many([(s, e), (t, e)], m)
    ((q, r),) = divmod_many([(se, h)], m)
    (qg,) = mul_many([(q, g)], m)
    g2, h2 = reduce_many([g + te + qg, h + r], m)
    sg, th = mul_many([(s, g2), (t, h2)], m)
    one = Poly.const(m.ctx.const(1, "one"), F.var)
    (b,) = reduce_many([sg + th - one], m)
    sb, tb = mul_many([(s, b), (t, b)], m)
    ((c, d),) = divmod_many([(sb, h2)], m)
    (cg,) = mul_many([(c, g2)], m)
    s2, t2 = reduce_many([s - d, t - tb - cg], m)
    return g2, h2, s2, t2
