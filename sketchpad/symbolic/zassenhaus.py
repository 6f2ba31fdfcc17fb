"""The irreducible factors over Z of a square-free primitive polynomial (Zassenhaus).

1. Primes: small odd primes p not dividing lc(f) for which f stays square-free mod p; each
   one's distinct-degree factorisation gives the degrees its factors can have (sums of
   subsets of the modular degrees).  The intersection over the primes tried is the set of
   degrees a factor over Z can have ("degree pruning"); when it holds no degree strictly
   between 0 and n, f is irreducible and nothing more is needed.  Of the primes tried, the
   one with the fewest modular factors is used.
2. The factors mod p (Cantor-Zassenhaus) are lifted to M = p^K > 2B (hensel.py), with
   B = C(n-1, floor((n-1)/2)) * (isqrt(sum a_i^2) + 1): every coefficient of the candidate
   lc(f)/lc(g) * g of any proper factor g is at most B in size (see _bound).
3. Recombination: subsets S of the lifted factors by increasing size, skipping sizes whose
   degree is impossible and those failing the trailing-coefficient test (the constant term
   of lc * prod_S g_i, as a symmetric residue, must divide lc * f(0)); a candidate
   G = pp(lc * prod_S g_i mod M) is a factor only if it divides f exactly over Z.  When no
   subset of at most half of the remaining factors gives one, what is left is irreducible:
   that exhaustive search is the proof, so every factor returned is proven irreducible.
"""

from __future__ import annotations

import math
from itertools import combinations

from ..errors import InputError
from .cantor_zassenhaus import distinct_degree, factor_mod_p, monic_mod_p
from .hensel import lift
from .integer import Z, batch, products, sums
from .intfactor import PRIMES
from .modp import mul_many, symmetric_many
from .poly import Poly, mods
from .roots import squarefree_primes

MAX_PRIMES = 3  # primes whose degree patterns are compared
FEW_FACTORS = 4  # ... unless one already gives this few modular factors
CANDIDATE_PRIMES = [q for q in PRIMES if q > 2][:40]


def factor_squarefree(f: Poly, primes: list[int] | None = None) -> list[Poly]:
    """The irreducible factors of f (square-free, primitive, lc > 0, f(0) != 0, degree >= 2).

    `primes`: odd primes not dividing lc(f) modulo which f is known to be square-free."""
    n = f.degree
    chosen, allowed, tried = None, None, 0
    ctx = f.ctx
    pool = list(primes or [])
    rest = [q for q in CANDIDATE_PRIMES if q not in pool]
    while tried < MAX_PRIMES:
        if not pool:
            if not rest:
                break
            pool, rest = squarefree_primes(f, rest[:8]), rest[8:]  # side by side, 8 at a time
            continue
        q = pool.pop(0)
        P = ctx.const(q, "a small prime for factoring mod p")
        fm = monic_mod_p(f, P, q)
        ddf = distinct_degree(fm, P, q)
        degrees = [d for d, F in ddf[0] for _ in range(F.degree // d)]
        sums_ = _subset_sums(degrees)
        allowed = sums_ if allowed is None else allowed & sums_
        count = len(degrees)
        if chosen is None or count < chosen[0]:
            chosen = (count, P, q, fm, ddf)
        tried += 1
        if not any(0 < d < n for d in allowed):
            return [f]  # irreducible: no degree of a proper factor is possible
        if count <= FEW_FACTORS:
            break  # recombining so few costs less than another prime's factorisation
    if chosen is None:
        raise InputError(f"no prime among the first {len(CANDIDATE_PRIMES)} keeps this polynomial square-free mod p")
    _, P, q, fm, ddf = chosen
    modular = factor_mod_p(fm, P, q, ddf)
    lifted, M = lift(f, modular, P, q, _bound(f))
    return _recombine(f, lifted, M, allowed)


def _subset_sums(degrees: list[int]) -> set[int]:
    out = {0}
    for d in degrees:
        out |= {s + d for s in out}
    return out


def _bound(f: Poly) -> Z:
    """2B + 1 with B = C(n-1, floor((n-1)/2)) * (isqrt(sum of squares) + 1), on the sheet.

    For a proper factor g of f (degree d <= n-1) the candidate G = lc(f)/lc(g) * g is
    lc(f) * prod (x - a) over the roots a of g, so |G_j| <= |lc(f)| * C(d, j) * prod max(1, |a|)
    <= C(d, j) * M(f) <= C(n-1, floor((n-1)/2)) * ||f||_2 (M the Mahler measure, at most the
    2-norm; the roots of g are roots of f).  The same holds for the cofactors met later, whose
    Mahler measure is at most M(f)."""
    ctx = f.ctx
    cs = list(f.terms.values())
    (ss,) = sums([products([(c, c) for c in cs])])
    norm = ss.isqrt() + ctx.const(1, "one")
    n = f.degree
    binom = ctx.const(math.comb(n - 1, (n - 1) // 2), "the binomial C(n-1, (n-1)/2) of the factor bound")
    B = binom * norm
    return B + B + ctx.const(1, "one")


def _recombine(f: Poly, lifted: list, M: Z, allowed: set[int]) -> list[Poly]:
    ctx = f.ctx
    zero = ctx.const(0, "zero")
    T = list(range(len(lifted)))
    deg = [g.degree for g in lifted]
    const = [g.terms.get(0, zero) for g in lifted]
    found = []
    size = 1
    while 2 * size <= len(T):
        b, f0 = f.lc, f.at(0)
        bf0 = b * f0
        subsets = [S for S in combinations(T, size) if sum(deg[i] for i in S) in allowed]
        # trailing-coefficient test for every subset of this size together
        vals = [b] * len(subsets)
        for j in range(size):
            vals = mods(products([(v, const[S[j]]) for v, S in zip(vals, subsets)]), M)
        syms = symmetric_many(vals, M)
        live = [(S, u) for S, u in zip(subsets, syms) if not u.is_zero]
        rems = batch([("//", bf0, u) for _, u in live])
        passing = [S for (S, _), (_, r) in zip(live, rems) if r.is_zero]
        for S in passing:
            if not set(S) <= set(T):
                continue  # a factor found in this round used one of its modular factors
            g = Poly.const(f.lc, f.var)
            for i in S:
                (g,) = mul_many([(g, lifted[i])], M)
            coeffs = symmetric_many(list(g.terms.values()), M)
            G = g._new(dict(zip(g.terms, coeffs))).primitive()[1]
            quotient = f.exact_quotient(G)
            if quotient is None:
                continue
            found.append(G)
            f = quotient
            T = [i for i in T if i not in S]
            b, f0 = f.lc, f.at(0)
            bf0 = b * f0
        size += 1
    if f.degree > 0:
        found.append(f)  # no subset of at most half the rest splits it: irreducible
    return found
