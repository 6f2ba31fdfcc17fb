"""Multifactor Hensel lifting: f = lc * g_1 * ... * g_r (mod p), g_i monic and pairwise coprime
mod p, becomes the same factorisation modulo M = p^K > bound.

f is first made monic modulo M (times the inverse of its leading coefficient, one extended
Euclid on the sheet).  The factors are split into two halves, g = prod(first half) and
h = prod(second half) mod p with Bezout cofactors s*g + t*h = 1 mod p, and (g, h, s, t) are
lifted together by the quadratic Hensel step (von zur Gathen and Gerhard, Algorithm 15.10)
through moduli p^e_1 < p^e_2 < ... < p^K (K the least exponent with p^K > bound, the e_i
from halving K, so each modulus divides the square of the one before and the costliest step
is no larger than it must be); then each half is lifted the
same way against its own factors.  Every operation is a polynomial operation modulo p^e from
modp.py, so all coefficient operations run as batched procedures.
"""

from __future__ import annotations

import math

from .integer import Z
from .modp import divmod_many, inverse, mul_many, reduce_many, xgcd
from .poly import Poly


def lift(f: Poly, factors: list, P: Z, p: int, bound: Z) -> tuple[list, Z]:
    """(lifted monic factors, M) with f = lc(f) * prod(lifted) mod M and M = p^K > bound."""
    K = _exponent(P, p, bound)
    exps = []
    e = K
    while e > 1:  # K, ceil(K/2), ... : each modulus divides the square of the one before
        exps.append(e)
        e = (e + 1) // 2
    moduli = [P] + [P**e for e in reversed(exps)]  # all powers computed on the sheet
    M = moduli[-1]
    inv = inverse(f.lc, M)
    if inv is None:  # cannot happen: p does not divide lc(f)
        raise ArithmeticError(f"internal error: lc(f) = {f.lc} is not invertible mod {M}")
    F = reduce_many([f.scale(inv)], M)[0]
    return _tree(F, factors, moduli, P, p), M


def _exponent(P: Z, p: int, bound: Z) -> int:
    """The least K with p^K > bound: a lower estimate from the bound's length (reading its
    digits: p^K0 <= 10^(digits-1) <= bound), then powers compared on the sheet."""
    K = max(1, int((bound.digits - 1) / math.log10(p)))
    power = P**K
    while power <= bound:
        power, K = power * P, K + 1
    return K


def _tree(F: Poly, factors: list, moduli: list, P: Z, p: int) -> list:
    """Lift the factor tree level by level: every node of a level split into its two halves
    and lifted side by side (one set of batches per Hensel step for the whole level)."""
    nodes = [(F, factors)]
    while any(len(fs) > 1 for _, fs in nodes):
        split = [(G, fs) for G, fs in nodes if len(fs) > 1]
        quads = []
        for _, fs in split:
            k = len(fs) // 2
            g, h = _product(fs[:k], P), _product(fs[k:], P)
            _, s, t = xgcd(g, h, P, p)
            quads.append([g, h, s, t])
        for m in moduli[1:]:
            Fm = reduce_many([G for G, _ in split], m)
            quads = _step_many([(Fm_i, *q) for Fm_i, q in zip(Fm, quads)], m)
        children = iter(quads)
        nxt = []
        for G, fs in nodes:
            if len(fs) == 1:
                nxt.append((G, fs))
                continue
            g, h, _, _ = next(children)
            k = len(fs) // 2
            nxt += [(g, fs[:k]), (h, fs[k:])]
        nodes = nxt
    return [G for G, _ in nodes]


def _product(polys: list, m: Z) -> Poly:
    level = list(polys)
    while len(level) > 1:
        nxt = mul_many([(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)], m)
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def _step_many(items: list, m: Z) -> list:
    """One quadratic Hensel step to the modulus m (m divides the square of the old one) for
    every (F, g, h, s, t): F = g*h, s*g + t*h = 1 modulo the old modulus become the same
    modulo m (g, h monic).  All items go through the same batches."""
    ctx = m.ctx
    n = len(items)
    one = [Poly.const(ctx.const(1, "one"), F.var) for F, *_ in items]
    gh = mul_many([(g, h) for _, g, h, _, _ in items], m)
    e = reduce_many([F - x for (F, *_), x in zip(items, gh)], m)
    st = mul_many([(s, ei) for (_, _, _, s, _), ei in zip(items, e)] + [(t, ei) for (*_, t), ei in zip(items, e)], m)
    se, te = st[:n], st[n:]
    qr = divmod_many([(x, h) for x, (_, _, h, _, _) in zip(se, items)], m)
    qg = mul_many([(q, g) for (q, _), (_, g, _, _, _) in zip(qr, items)], m)
    gh2 = reduce_many(
        [g + a + b for (_, g, _, _, _), a, b in zip(items, te, qg)]
        + [h + r for (_, _, h, _, _), (_, r) in zip(items, qr)],
        m,
    )
    g2, h2 = gh2[:n], gh2[n:]
    sgth = mul_many([(s, x) for (_, _, _, s, _), x in zip(items, g2)] + [(t, x) for (*_, t), x in zip(items, h2)], m)
    b = reduce_many([x + y - o for x, y, o in zip(sgth[:n], sgth[n:], one)], m)
    sbtb = mul_many([(s, x) for (_, _, _, s, _), x in zip(items, b)] + [(t, x) for (*_, t), x in zip(items, b)], m)
    sb, tb = sbtb[:n], sbtb[n:]
    cd = divmod_many([(x, h) for x, h in zip(sb, h2)], m)
    cg = mul_many([(c, g) for (c, _), g in zip(cd, g2)], m)
    st2 = reduce_many(
        [s - d for (_, _, _, s, _), (_, d) in zip(items, cd)] + [t - x - y for (*_, t), x, y in zip(items, tb, cg)], m
    )
    return [[g2[i], h2[i], st2[i], st2[n + i]] for i in range(n)]
