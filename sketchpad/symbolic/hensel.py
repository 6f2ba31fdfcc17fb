"""Multifactor Hensel lifting: f = lc * g_1 * ... * g_r (mod p), g_i monic and pairwise coprime
mod p, becomes the same factorisation modulo M = p^K > bound.

f is first made monic modulo M (times the inverse of its leading coefficient, one extended
Euclid on the sheet).  The factors form a tree: a node splits its factors into two halves,
g and h (the one of smaller degree) mod p with the cofactor s g = 1 mod h, and (g, h, s) are
lifted together by the quadratic Hensel step (von zur Gathen and Gerhard, Algorithm 15.10,
with t = (1 - s g) / h left implicit), each correction computed modulo p^(b-a) from the
error divided exactly by p^a.  The moduli are p^2, p^4, ... (each one divides the square of the one before), up to
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
from .modp import divmod_many, inverse, mul_many, product_many, reduce_many, xgcd
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
    if K == 1:  # p itself exceeds the bound: nothing to lift
        yield list(factors), P
        return
    power = {1: P, K: P**K}  # all powers computed on the sheet
    M = power[K]
    inv = inverse(f.lc, M)
    if inv is None:  # cannot happen: p does not divide lc(f)
        raise ArithmeticError(f"internal error: lc(f) = {f.lc} is not invertible mod {M}")
    F = reduce_many([f.scale(inv)], M)[0]
    root = _Node(list(range(len(factors))), factors, P, p)
    inner_nodes = root.inner()
    # a step from p^a to p^b (b <= 2a) needs s g = 1 mod h only modulo p^(b - a): the error
    # is p^a times a residue modulo p^(b - a).  The cofactors, known modulo p^c, are lifted
    # (each Newton step doubling c, up to a) only when c < b - a, so the costly last steps
    # often need none
    a, c, b = 1, 1, min(2, K)
    while True:
        while c < min(b - a, a):
            c0, c = c, min(2 * c, a)
            for e in (c, c - c0):
                if e not in power:
                    power[e] = P**e
            for n, s in zip(inner_nodes, _lift_st([n.quad for n in inner_nodes], power[c], power[c0], power[c - c0])):
                n.quad[2] = s
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
    prod(right), h the one of smaller degree, with the cofactor s g = 1 mod h (mod p at first,
    then lifted)."""

    def __init__(self, fs: list[int], factors: list, P: Z, p: int):
        self.fs = fs
        self.quad = None
        if len(fs) == 1:
            return
        k = len(fs) // 2
        left, right = fs[:k], fs[k:]
        if sum(factors[i].degree for i in left) < sum(factors[i].degree for i in right):
            left, right = right, left  # a step costs about 4 deg(g) deg(h) + 2 deg(h)^2 products
        (g,), (h,) = product_many([[factors[i] for i in left]], P), product_many([[factors[i] for i in right]], P)
        _, s, _ = xgcd(g, h, P, p)  # s g = 1 mod h: t is never needed
        self.quad = [g, h, s]
        self.left, self.right = _Node(left, factors, P, p), _Node(right, factors, P, p)

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


def _lift_gh(items: list, m: Z, ma: Z, mc: Z) -> list:
    """The factor half of a quadratic Hensel step from ma = p^a to m = p^b = ma mc (b <= 2a) for
    every (F, g, h, s) with F = g h and s g = 1 mod h, modulo ma: [(g*, h*)] with F = g* h*
    modulo m, g*, h* monic.  The error F - g h is ma e; with r = s e mod h (then r g = e mod h)
    the corrections are ma (e - r g) / h for g and ma r for h, all computed modulo mc: numbers
    of b - a digits, and only the cofactor s (t = (1 - s g) / h is never needed).  All items
    go through the same batches."""
    n = len(items)
    gh = mul_many([(g, h) for _, g, h, _ in items], m)
    e = reduce_many([F - x for (F, *_), x in zip(items, gh)], m)  # in [0, m), each a multiple of ma
    qr = iter(batch([("//", c, ma) for x in e for c in x.terms.values()]))
    e = [x._new({k: _exact(next(qr)) for k in x.terms}) for x in e]  # now in [0, mc)
    gr = [g for _, g, _, _ in items] + [h for _, _, h, _ in items]
    gr = gr if ma is mc else reduce_many(gr, mc)
    gs, hs = gr[:n], gr[n:]
    er = divmod_many([(x, h) for x, h in zip(e, hs)], mc)  # e mod h first: smaller products
    se = mul_many([(s, x) for (*_, s), (_, x) in zip(items, er)], mc)
    r = [x for _, x in divmod_many([(x, h) for x, h in zip(se, hs)], mc)]
    rg = mul_many([(x, g) for x, g in zip(r, gs)], mc)
    d = reduce_many([x - y for x, y in zip(e, rg)], mc)
    qg = [_exact_poly(qr) for qr in divmod_many([(x, h) for x, h in zip(d, hs)], mc)]
    out = _add_scaled([g for _, g, _, _ in items] + [h for _, _, h, _ in items], qg + r, ma)
    return list(zip(out[:n], out[n:]))


def _exact_poly(qr: tuple) -> Poly:
    q, r = qr
    if not r.is_zero:  # cannot happen: e - r g = e (1 - s g) = 0 mod h
        raise ArithmeticError("internal error: a Hensel correction is not divisible by its factor")
    return q


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
    """The cofactor half, for (g*, h*, s) with s g* = 1 mod h* modulo ma = p^c: [s*] with
    s* g* = 1 mod h* modulo m = ma mc (g*, h* known modulo m at least), by Newton's step for
    an inverse: u = s g* mod h* is 1 + ma b, and s* = s - ma (s b mod h*), computed modulo
    mc.  Done only when another step follows (the last step, and a step whose factors were
    all found, need no cofactors)."""
    if not items:
        return []
    n = len(items)
    gh = reduce_many([g for g, *_ in items] + [h for _, h, _ in items], m)
    sg = mul_many([(s, g) for (_, _, s), g in zip(items, gh[:n])], m)
    u = [x for _, x in divmod_many([(x, h) for x, h in zip(sg, gh[n:])], m)]
    one = [Poly.const(m.ctx.const(1, "one"), x.var) for x in u]
    u = [x - o for x, o in zip(u, one)]  # multiples of ma, in [0, m)
    qr = iter(batch([("//", c, ma) for x in u for c in x.terms.values()]))
    b = [x._new({k: _exact(next(qr)) for k in x.terms}) for x in u]
    hc = reduce_many(gh[n:], mc)
    sb = mul_many([(s, x) for (_, _, s), x in zip(items, b)], mc)
    neg = reduce_many([-x for _, x in divmod_many([(x, h) for x, h in zip(sb, hc)], mc)], mc)
    return _add_scaled([s for _, _, s in items], neg, ma)
