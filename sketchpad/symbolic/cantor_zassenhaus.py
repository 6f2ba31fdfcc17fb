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
from .modp import (
    Modulus,
    divmod_many,
    gcd_many,
    monic_many,
    product_many,
    reduce_many,
    reduce_mod_many,
    residues,
    sub_many,
    sum_terms,
)
from .poly import Poly, mod_eval_many

SEED = 20261201
# up to this degree the gcds for every d <= n/2 run side by side, each with f (far fewer batches);
# above it their operations (about n^3 / 2) outweigh that, and each d waits for the smaller rest
EVERY_DEGREE = 10


def _x(ctx, var: str) -> Poly:
    return Poly.monomial(ctx.const(1, "one"), 1, var)


def distinct_degree(f: Poly, P, p: int) -> tuple[list[tuple[int, Poly]], list | None]:
    """([(d, F_d)], frobenius): F_d monic, the product of f's irreducible factors of degree d
    (f monic and square-free mod p, degree >= 1); frobenius the rows (x^p)^j mod f (None when
    n < 4: no equal-degree split of degree >= 2 can then be needed)."""
    return distinct_degree_many([(f, P, p)])[0]


def distinct_degree_many(items: list, rests: bool = True) -> list:
    """distinct_degree of every (f, P, p), all of them side by side (one batch per step for
    every prime), so the degree patterns of several primes cost the batches of one.  With
    rests=False the factor of degree > n/2 left over is given as None (only its degree is
    known; factor_mod_p divides it out when this prime is the one used)."""
    out: list = [None] * len(items)
    run = []
    for i, (f, _, _) in enumerate(items):
        if f.degree <= 1:
            out[i] = ([(1, f)] if f.degree == 1 else []), None
        else:
            run.append(i)
    mats = {}
    # the Frobenius matrix: rows (x^p)^j mod f, j = 0..n-1, each the one before shifted by p
    # with the p spilled terms reduced through f's table x^k mod f (k < n + p): about 2 p n
    # operations a row, where a full product and reduction costs about 4 n^2
    shifted = [i for i in run if items[i][0].degree >= 4 and items[i][2] < 2 * items[i][0].degree]
    specs = [(items[i][0], items[i][1], items[i][0].degree - 1 + items[i][2]) for i in shifted]
    for i, M in zip(shifted, Modulus.many(specs)):
        f, _, p = items[i]
        x = _x(f.ctx, f.var)
        xp = x.shift(p - 1) if p < f.degree else M.table[p]
        mats[i] = (M, xp, [Poly.const(f.ctx.const(1, "one"), f.var), xp], x)
    for i in run:
        if i in mats:
            continue
        f, P, p = items[i]
        n, ctx, x = f.degree, f.ctx, _x(f.ctx, f.var)
        one = Poly.const(ctx.const(1, "one"), f.var)
        M = Modulus(f, P)
        xp = M.powmod(x, p)
        pw = [one, xp] if n >= 4 else None  # by doubling: full products, one batch per level
        while pw is not None and len(pw) < n:
            have = len(pw) - 1
            top = min(2 * have, n - 1)
            pw += M.mul_many([(pw[have], pw[j - have]) for j in range(have + 1, top + 1)])
        mats[i] = (M, xp, pw, x)
    while True:
        grow = [i for i in shifted if len(mats[i][2]) < items[i][0].degree]
        if not grow:
            break
        rows = reduce_mod_many([(mats[i][0], mats[i][2][-1].shift(items[i][2])) for i in grow])
        for i, row in zip(grow, rows):
            mats[i][2].append(row)
    every = [i for i in run if items[i][0].degree <= EVERY_DEGREE]
    _every_degree(items, every, mats, rests, out)
    _degree_by_degree(items, [i for i in run if i not in every], mats, out)
    return out


def _every_degree(items: list, run: list, mats: dict, rests: bool, out: list) -> None:
    """distinct_degree_many's answers for the problems `run`, every d at once (into `out`)."""
    # h_d = x^(p^d) mod f for d <= n/2; G_d = gcd(h_d - x, f), the product of the factors of
    # degree dividing d, for every d and every prime side by side (one lockstep Euclid)
    hs = {i: [mats[i][1]] for i in run}
    while True:
        grow = [i for i in run if len(hs[i]) < items[i][0].degree // 2]
        if not grow:
            break
        for i, h in zip(grow, _frobenius_many([(hs[i][-1], mats[i][2], items[i][1]) for i in grow])):
            hs[i].append(h)
    flat = [(i, d) for i in run for d in range(1, len(hs[i]) + 1)]
    Ps, ps = [items[i][1] for i, _ in flat], [items[i][2] for i, _ in flat]
    diffs = sub_many([(hs[i][d - 1], mats[i][3]) for i, d in flat], Ps)
    gs = gcd_many([(g, items[i][0]) for (i, _), g in zip(flat, diffs)], Ps, ps)
    parts = _divide_out(dict(zip(flat, gs)), {i: items[i][1] for i in run})
    found = {i: [(d, parts[j, d]) for j, d in flat if j == i and parts[j, d].degree > 0] for i in run}
    left = [i for i in run if rests and found[i] and sum(F.degree for _, F in found[i]) < items[i][0].degree]
    rest = _rests([(items[i][0], found[i]) for i in left], [items[i][1] for i in left])
    rest = dict(zip(left, rest))
    for i in run:
        f = items[i][0]
        k = f.degree - sum(F.degree for _, F in found[i])
        # one irreducible factor of degree > n/2 is left (all of f when none was found)
        out[i] = found[i] + ([(k, rest.get(i, f if not found[i] else None))] if k > 0 else []), mats[i][2]


def _degree_by_degree(items: list, run: list, mats: dict, out: list) -> None:
    """distinct_degree_many's answers for the problems `run`, one d after another (into `out`)."""
    # h_d = x^(p^d) mod f; gcd(h_d - x, rest) is the product of the factors of degree d once
    # those of smaller degree are divided out of rest, and once deg rest < 2(d + 1) what is
    # left is irreducible: a loop stops there (for f with small factors, long before n/2).
    # Every prime's loop advances in the same batches.
    st = {i: [items[i][0], mats[i][1], 1, []] for i in run}  # rest, h_d, d, [(d, F_d)]
    live = [i for i in run if 2 <= items[i][0].degree]
    while live:
        Ps = [items[i][1] for i in live]
        hr = {i: st[i][1] for i in live}
        move = [i for i in live if st[i][0] is not items[i][0]]  # h mod rest, once rest is smaller
        for i, (_, r) in zip(move, divmod_many([(hr[i], st[i][0]) for i in move], [items[i][1] for i in move])):
            hr[i] = r
        diffs = sub_many([(hr[i], mats[i][3]) for i in live], Ps)
        gs = gcd_many([(g, st[i][0]) for i, g in zip(live, diffs)], Ps, [items[i][2] for i in live])
        split = [(i, g) for i, g in zip(live, gs) if g.degree > 0]
        for (i, g), (q, _) in zip(
            split, divmod_many([(st[i][0], g) for i, g in split], [items[i][1] for i, _ in split])
        ):
            st[i][3].append((st[i][2], g))
            st[i][0] = q
        for i in live:
            st[i][2] += 1
        live = [i for i in live if 2 * st[i][2] <= st[i][0].degree]
        for i, h in zip(live, _frobenius_many([(st[i][1], mats[i][2], items[i][1]) for i in live])):
            st[i][1] = h
    for i in run:
        rest, _, _, found = st[i]
        out[i] = found + ([(rest.degree, rest)] if rest.degree > 0 else []), mats[i][2]


def _rests(items: list, Ps: list) -> list:
    """f / prod F_d mod P for (f, [(d, F_d)]): the factor of degree > n/2 left over."""
    prods = product_many([[F for _, F in parts] for _, parts in items], Ps)
    return [q for q, _ in divmod_many([(f, g) for (f, _), g in zip(items, prods)], Ps)]


def _divide_out(cur: dict, Ps: dict) -> dict:
    """F_d = G_d / prod_(e | d, e < d) F_e for every (i, d) (i: the problem, modulo Ps[i]), the
    divisions of a round side by side."""
    todo = {(i, d): [(i, e) for e in range(1, d) if d % e == 0] for i, d in cur}
    F: dict = {}
    while len(F) < len(cur):
        work = []
        for key in sorted(cur):
            if key in F:
                continue
            while todo[key] and todo[key][0] in F and F[todo[key][0]].degree == 0:
                todo[key].pop(0)  # no factor of that degree: nothing to divide out
            if not todo[key] or cur[key].degree == 0:
                F[key] = cur[key]
            elif todo[key][0] in F:
                work.append(key)
        pairs = [(cur[k], F[todo[k][0]]) for k in work]
        for key, (q, _) in zip(work, divmod_many(pairs, [Ps[k[0]] for k in work])):
            cur[key] = q
            todo[key].pop(0)
    return F


def _frobenius(h: Poly, pw: list, P) -> Poly:
    return _frobenius_many([(h, pw, P)])[0]


def _frobenius_many(items: list) -> list:
    """[h^p mod f] for (h, pw, P) = sum_j h_j (x^p)^j mod f: one product batch, the sum trees,
    one reduction, for every item together."""
    keys, flat = [], []
    for i, (h, pw, _) in enumerate(items):
        for j, c in h.terms.items():
            for k, v in pw[j].terms.items():
                keys.append((i, k))
                flat.append((c, v))
    terms = sum_terms(len(items), zip(keys, products(flat)))
    return reduce_many([h._new(t) for (h, _, _), t in zip(items, terms)], [P for _, _, P in items])


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
    if any(F is None for _, F in parts):  # the leftover factor, not divided out yet
        (rest,) = _rests([(f, [(d, F) for d, F in parts if F is not None])], [P])
        parts = [(d, F if F is not None else rest) for d, F in parts]
    out = []
    for d, F in parts:
        out += equal_degree(F, d, P, p, rng, pw)
    return out


def monic_mod_p(f: Poly, P, p: int) -> Poly:
    return monic_many(reduce_many([f], P), P, p)[0]
