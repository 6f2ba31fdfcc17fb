"""Multifactor Hensel lifting: f = lc * g_1 * ... * g_r (mod p), g_i monic and pairwise coprime
mod p, becomes the same factorisation modulo M = p^K > bound.

f is first made monic modulo M (times the inverse of its leading coefficient, one extended
Euclid on the sheet).  The factors form a tree: a node splits its factors into two halves,
g = prod(first half) and h = prod(second half) mod p with Bezout cofactors s*g + t*h = 1 mod p,
and (g, h, s, t) are lifted together by the quadratic Hensel step (von zur Gathen and Gerhard,
Algorithm 15.10), each correction computed modulo p^(b-a) from the error divided exactly by
p^a.  The moduli are p^2, p^4, ... (each one divides the square of the one before), up to
p^K (K the least exponent with p^K > bound) or less when the caller's open pieces need less
(lifts); at each modulus the whole tree is
lifted, top down, every node of a depth in the same batches, and the lifted factors are
handed to the caller, who may stop there (early factor detection, zassenhaus.py).  Every
operation is a polynomial operation modulo p^e from modp.py, so all coefficient operations
run as batched procedures.
"""

from __future__ import annotations

import math

from .integer import Z, batch, products
from .modp import divmod_many, inverse, mul_many, reduce_many, xgcd
from .poly import Poly


def lifts(f: Poly, factors: list, P: Z, p: int, bound: Z):
    """Yield (lifted monic factors in their order, m) for m = p^e_1 < p^e_2 < ... < p^K: the whole
    factor tree is lifted one precision at a time (every node of a depth in the same batches),
    so the caller can stop as soon as the factors it needs are found (early detection).  The
    exponents double (p^2, p^4, ...: early detection by fractions, recombine.py, usually ends
    the lifting near the square of the factors' coefficients, long before p^K); the caller
    may send the bound its open pieces need, and the next modulus is then the least p^e above
    it when that is below the doubling."""
    K = _exponent(P, p, bound)
    power = {1: P, K: P**K}  # all powers computed on the sheet
    M = power[K]
    inv = inverse(f.lc, M)
    if inv is None:  # cannot happen: p does not divide lc(f)
        raise ArithmeticError(f"internal error: lc(f) = {f.lc} is not invertible mod {M}")
    F = reduce_many([f.scale(inv)], M)[0]
    root = _Node(list(range(len(factors))), factors, P, p)
    inner_nodes = root.inner()
    # a step from p^a to p^b (b <= 2a) needs s g + t h = 1 only modulo p^(b - a): the error
    # F - g* h* is e (1 - s g - t h) with e = 0 mod p^a.  The cofactors, known modulo p^c, are
    # lifted (each Newton step doubling c, up to a) only when c < b - a, so the costly last
    # steps often need none
    a, c, b = 1, 1, min(2, K)
    while True:
        while c < min(b - a, a):
            c0, c = c, min(2 * c, a)
            for e in (c, c - c0):
                if e not in power:
                    power[e] = P**e
            for n, st in zip(inner_nodes, _lift_st([n.quad for n in inner_nodes], power[c], power[c0], power[c - c0])):
                n.quad[2:] = st
        if b not in power:
            power[b] = P**b
        m = power[b]
        if b - a not in power:
            power[b - a] = P ** (b - a)
        leaves = {}
        level = [(root, reduce_many([F], m)[0])]
        while level:
            inner = [(n, Fm) for n, Fm in level if n.quad is not None]
            for n, Fm in level:
                if n.quad is None:
                    leaves[n.fs[0]] = Fm
            stepped = _lift_gh([(Fm, *n.quad) for n, Fm in inner], m, power[a], power[b - a]) if inner else []
            level = []
            for (n, _), gh in zip(inner, stepped):
                n.quad[:2] = gh
                level += [(n.left, gh[0]), (n.right, gh[1])]
        a = b
        need = yield [leaves[i] for i in range(len(factors))], m
        if a >= K:
            return
        # p^(2a) at most (the modulus divides the square of the one before), less when the
        # caller's open pieces are all settled below that (need: the modulus must exceed it)
        b = min(2 * a, K) if need is None else max(a + 1, min(2 * a, K, _exponent(P, p, need)))


class _Node:
    """A node of the factor tree: the factors fs split into halves g = prod(left), h =
    prod(right), with Bezout cofactors s g + t h = 1 (all mod p at first, then lifted)."""

    def __init__(self, fs: list[int], factors: list, P: Z, p: int):
        self.fs = fs
        self.quad = None
        if len(fs) == 1:
            return
        k = len(fs) // 2
        g, h = _product([factors[i] for i in fs[:k]], P), _product([factors[i] for i in fs[k:]], P)
        _, s, t = xgcd(g, h, P, p)
        self.quad = [g, h, s, t]
        self.left, self.right = _Node(fs[:k], factors, P, p), _Node(fs[k:], factors, P, p)

    def inner(self) -> list:
        """This node and every node below it that has two halves."""
        if self.quad is None:
            return []
        return [self] + self.left.inner() + self.right.inner()


def _exponent(P: Z, p: int, bound: Z) -> int:
    """The least K with p^K > bound: a lower estimate from the bound's length (reading its
    digits: p^K0 <= 10^(digits-1) <= bound), then powers compared on the sheet."""
    K = max(1, int((bound.digits - 1) / math.log10(p)))
    power = P**K
    while power <= bound:
        power, K = power * P, K + 1
    return K


def _product(polys: list, m: Z) -> Poly:
    level = list(polys)
    while len(level) > 1:
        nxt = mul_many([(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)], m)
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def _lift_gh(items: list, m: Z, ma: Z, mc: Z) -> list:
    """The factor half of a quadratic Hensel step from ma = p^a to m = p^b = ma mc (b <= 2a) for
    every (F, g, h, s, t) with F = g*h, s*g + t*h = 1 modulo ma: [(g*, h*)] with F = g* h*
    modulo m, g*, h* monic.  The error F - g h is ma e, and the corrections are ma times
    (t e + q g, r) with s e = q h + r, all computed modulo mc: numbers of b - a digits instead
    of b.  All items go through the same batches."""
    n = len(items)
    gh = mul_many([(g, h) for _, g, h, _, _ in items], m)
    e = reduce_many([F - x for (F, *_), x in zip(items, gh)], m)  # in [0, m), each a multiple of ma
    qr = iter(batch([("//", c, ma) for x in e for c in x.terms.values()]))
    e = [x._new({k: _exact(next(qr)) for k in x.terms}) for x in e]  # now in [0, mc)
    gr = [g for _, g, _, _, _ in items] + [h for _, _, h, _, _ in items]
    gr = gr if ma is mc else reduce_many(gr, mc)
    st = mul_many([(s, ei) for (_, _, _, s, _), ei in zip(items, e)] + [(t, ei) for (*_, t), ei in zip(items, e)], mc)
    se, te = st[:n], st[n:]
    qr = divmod_many([(x, h) for x, h in zip(se, gr[n:])], mc)
    qg = mul_many([(q, g) for (q, _), g in zip(qr, gr[:n])], mc)
    cg = reduce_many([a + b for a, b in zip(te, qg)], mc)
    out = _add_scaled([g for _, g, _, _, _ in items] + [h for _, _, h, _, _ in items], cg + [r for _, r in qr], ma)
    return list(zip(out[:n], out[n:]))


def _exact(qr: tuple) -> Z:
    q, r = qr
    if not r.is_zero:  # cannot happen: the error of a Hensel step is a multiple of the old modulus
        raise ArithmeticError("internal error: a Hensel error is not divisible by the old modulus")
    return q


def _add_scaled(bases: list, corrections: list, ma: Z) -> list:
    """[b + ma c]: the products in one batch, the sums in another (no reduction: b < ma and
    c < mc give b + ma c < m)."""
    flat = iter(products([(c, ma) for x in corrections for c in x.terms.values()]))
    scaled = [{k: next(flat) for k in x.terms} for x in corrections]
    keys = [(i, k) for i, (b, c) in enumerate(zip(bases, scaled)) for k in c if k in b.terms]
    added = iter(batch([("+", bases[i].terms[k], scaled[i][k]) for i, k in keys]))
    out = []
    for b, c in zip(bases, scaled):
        terms = dict(b.terms)
        for k, v in c.items():
            terms[k] = next(added) if k in b.terms else v
        out.append(b._new(terms))
    return out


def _lift_st(items: list, m: Z, ma: Z, mc: Z) -> list:
    """The cofactor half, for (g*, h*, s, t) with s g* + t h* = 1 modulo ma = p^c: [(s*, t*)]
    with s* g* + t* h* = 1 modulo m = ma mc (g*, h* known modulo m at least).  The error
    s g* + t h* - 1 is ma b, and the corrections are ma times (-(s b mod h*), -(t b + (s b div
    h*) g*)), computed modulo mc.  Done only when another step follows (the last step, and a
    step whose factors were all found, need no cofactors)."""
    if not items:
        return []
    n = len(items)
    one = [Poly.const(m.ctx.const(1, "one"), g.var) for g, *_ in items]
    g2, h2 = [g for g, *_ in items], [h for _, h, _, _ in items]
    sgth = mul_many([(s, x) for (_, _, s, _), x in zip(items, g2)] + [(t, x) for (*_, t), x in zip(items, h2)], m)
    b = reduce_many([x + y - o for x, y, o in zip(sgth[:n], sgth[n:], one)], m)  # multiples of ma
    qr = iter(batch([("//", c, ma) for x in b for c in x.terms.values()]))
    b = [x._new({k: _exact(next(qr)) for k in x.terms}) for x in b]
    gh = reduce_many(g2 + h2, mc)
    sbtb = mul_many([(s, x) for (_, _, s, _), x in zip(items, b)] + [(t, x) for (*_, t), x in zip(items, b)], mc)
    sb, tb = sbtb[:n], sbtb[n:]
    cd = divmod_many([(x, h) for x, h in zip(sb, gh[n:])], mc)
    cg = mul_many([(c, g) for (c, _), g in zip(cd, gh[:n])], mc)
    neg = reduce_many([-d for _, d in cd] + [-(x + y) for x, y in zip(tb, cg)], mc)
    st2 = _add_scaled([s for _, _, s, _ in items] + [t for *_, t in items], neg, ma)
    return list(zip(st2[:n], st2[n:]))
