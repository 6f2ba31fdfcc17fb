"""Factorisation of a square-free polynomial modulo a small odd prime p (Cantor-Zassenhaus).

1. distinct-degree factorisation: with the Frobenius matrix (the rows x^(p*j) mod f, made by
   repeated doubling, all products of a level in one batch), h_i = x^(p^i) mod f is one
   matrix-vector product from h_(i-1); the gcds G_i = gcd(h_i - x, f) for i = 1..n/2 run side
   by side; F_d = G_d / prod_(e | d, e < d) F_e is the product of the irreducible factors of
   degree d, and what is left over has one irreducible factor of degree > n/2 (or none);
2. equal-degree splitting of each F_d: the linear factors from F_1's roots (F_1 at every
   residue, side by side), the others by gcd(a^((p^d - 1)/2) - 1, F_d) for pseudo-random a.

The "random" polynomials come from a generator with a fixed seed, so the results and every
counter are reproducible; their coefficients enter the audit as recorded literals.
"""

from __future__ import annotations

import random

from .integer import batch, products
from .modp import Modulus, divmod_many, gcd_many, monic_many, reduce_many, residues, sub_many, sum_terms
from .poly import Poly, mod_eval_many

SEED = 20261201


def _x(ctx, var: str) -> Poly:
    return Poly.monomial(ctx.const(1, "one"), 1, var)


def distinct_degree(f: Poly, P, p: int) -> tuple[list[tuple[int, Poly]], list | None]:
    """([(d, F_d)], frobenius): F_d monic, the product of f's irreducible factors of degree d
    (f monic and square-free mod p, degree >= 1); frobenius the rows (x^p)^j mod f (None when
    n < 4: no equal-degree split of degree >= 2 can then be needed)."""
    n, ctx = f.degree, f.ctx
    if n <= 1:
        return ([(n, f)] if n == 1 else []), None
    x = _x(ctx, f.var)
    pw = None
    if n >= 4 and p < 2 * n:
        # the Frobenius matrix: rows (x^p)^j mod f, j = 0..n-1, each the one before shifted by
        # p with the p spilled terms reduced through f's table x^k mod f (k < n + p): about
        # 2 p n operations a row, where a full product and reduction costs about 4 n^2
        M = Modulus(f, P, upto=n - 1 + p)
        xp = x.shift(p - 1) if p < n else M.table[p]
        pw = [Poly.const(ctx.const(1, "one"), f.var), xp]
        while len(pw) < n:
            pw += M.reduce_many([pw[-1].shift(p)])
    else:
        M = Modulus(f, P)
        xp = M.powmod(x, p)
        if n >= 4:  # by doubling: full products, one batch per level
            pw = [Poly.const(ctx.const(1, "one"), f.var), xp]
        while pw is not None and len(pw) < n:
            have = len(pw) - 1
            top = min(2 * have, n - 1)
            pw += M.mul_many([(pw[have], pw[j - have]) for j in range(have + 1, top + 1)])
    # h_d = x^(p^d) mod f; gcd(h_d - x, rest) is the product of the factors of degree d once
    # those of smaller degree are divided out of rest, and once deg rest < 2(d + 1) what is
    # left is irreducible: the loop stops there (for f with small factors, long before n/2)
    out, rest, h, d = [], f, xp, 1
    while 2 * d <= rest.degree:
        hr = h if rest is f else divmod_many([(h, rest)], P)[0][1]
        (g,) = gcd_many([(sub_many([(hr, x)], P)[0], rest)], P, p)
        if g.degree > 0:
            out.append((d, g))
            rest = divmod_many([(rest, g)], P)[0][0]
        d += 1
        if 2 * d <= rest.degree:
            h = _frobenius(h, pw, P)
    if rest.degree > 0:
        out.append((rest.degree, rest))
    return out, pw


def _frobenius(h: Poly, pw: list, P) -> Poly:
    """h^p mod f = sum_j h_j (x^p)^j mod f: one product batch, the sum trees, one reduction."""
    keys, flat = [], []
    for j, c in h.terms.items():
        for k, v in pw[j].terms.items():
            keys.append((0, k))
            flat.append((c, v))
    (terms,) = sum_terms(1, zip(keys, products(flat)))
    return reduce_many([h._new(terms)], P)[0]


def linear_factors(F: Poly, P, p: int) -> list[Poly]:
    """The factors x - r of F (a product of distinct monic linear factors mod p): F at every
    residue in one set of batches (poly.mod_eval_many), the roots read off by zero-ness."""
    ctx = F.ctx
    res = residues(ctx, p)
    roots = [r for r, v in zip(res, mod_eval_many([(F, r) for r in res], P)) if v.is_zero]
    negs = batch([("-", P, r) for r in roots if not r.is_zero])  # -r mod p is p - r
    one, it = ctx.const(1, "one"), iter(negs)
    return [Poly(ctx, {1: one} if r.is_zero else {1: one, 0: next(it)}, F.var) for r in roots]


def equal_degree(F: Poly, d: int, P, p: int, rng: random.Random, pw: list) -> list[Poly]:
    """The monic irreducible factors (each of degree d) of F, a product of such factors.

    a^((p^d - 1)/2) = (a * a^p * ... * a^(p^(d-1)))^((p - 1)/2) mod F, each a^(p^i) one
    product with f's Frobenius matrix `pw` (then reduced mod F, a factor of f)."""
    if F.degree == d:
        return [F]
    if d == 1:
        found = linear_factors(F, P, p)
        if sum(g.degree for g in found) != F.degree:  # cannot happen for a square-free F
            raise ArithmeticError(f"internal error: {F} is not a product of distinct linear factors mod {p}")
        return found
    ctx = F.ctx
    res = residues(ctx, p)
    one = Poly.const(ctx.const(1, "one"), F.var)
    M = Modulus(F, P)
    while True:
        a = Poly(ctx, {k: res[rng.randrange(p)] for k in range(F.degree)}, F.var)
        if a.degree < 1:
            continue
        conj, t = a, a
        for _ in range(1, d):
            conj = divmod_many([(_frobenius(conj, pw, P), F)], P)[0][1]
            (t,) = M.mul_many([(t, conj)])
        b = M.powmod(t, (p - 1) // 2)  # a structural exponent
        (g,) = gcd_many([(sub_many([(b, one)], P)[0], F)], P, p)
        if 0 < g.degree < F.degree:
            h = divmod_many([(F, g)], P)[0][0]
            return equal_degree(g, d, P, p, rng, pw) + equal_degree(h, d, P, p, rng, pw)


def factor_mod_p(f: Poly, P, p: int, ddf: tuple | None = None) -> list[Poly]:
    """The monic irreducible factors of f mod p (f monic and square-free mod p); `ddf`:
    distinct_degree's answer when it is known already."""
    rng = random.Random(SEED + 1009 * p + f.degree)
    parts, pw = ddf if ddf is not None else distinct_degree(f, P, p)
    out = []
    for d, F in parts:
        out += equal_degree(F, d, P, p, rng, pw)
    return out


def monic_mod_p(f: Poly, P, p: int) -> Poly:
    return monic_many(reduce_many([f], P), P, p)[0]
