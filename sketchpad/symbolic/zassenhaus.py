"""The irreducible factors over Z of a square-free primitive polynomial (Zassenhaus).

1. Primes: small odd primes p not dividing lc(f) for which f stays square-free mod p; each
   one's distinct-degree factorisation gives the degrees its factors can have (sums of
   subsets of the modular degrees).  The intersection over the primes tried is the set of
   degrees a factor over Z can have ("degree pruning"); when it holds no degree strictly
   between 0 and n, f is irreducible and nothing more is needed (up to five primes, stopping
   when one rules out no further degree; the first two side by side, in the same batches).
   Of the primes tried, the one with the fewest modular factors is used.
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

from ..errors import InputError
from .cantor_zassenhaus import EVERY_DEGREE, distinct_degree, distinct_degree_many, factor_mod_p, monic_mod_p
from .hensel import lifts
from .integer import batch
from .intfactor import PRIMES
from .modp import monic_many, reduce_many
from .poly import Poly
from .recombine import Piece, factor_bound, search
from .roots import squarefree_primes

MAX_PRIMES = 5  # primes whose degree patterns are compared (a DDF mod p costs far less than a lift)
MANY_FACTORS = 8  # ... and none after a first prime giving this many (an irreducible f rarely does)
FEW_FACTORS = 4  # ... unless one already gives this few modular factors (after two primes)
CANDIDATE_PRIMES = [q for q in PRIMES if q > 2][:40]
PAIRED = 2  # primes whose distinct-degree factorisations run side by side at first


def factor_squarefree(
    f: Poly, primes: list[int] | None = None, step: int = 1, base: Poly | None = None, rootless: bool = True
) -> list[Poly]:
    """The irreducible factors of f (square-free, primitive, lc > 0, f(0) != 0, degree >= 4).
    `rootless`: f is known to have no rational root (then no factor has degree 1 or n - 1, and
    a piece of degree <= 3 is irreducible); otherwise the linear factors are found here too.

    `primes`: odd primes not dividing lc(f) modulo which f is known to be square-free.
    `step`: every factor's degree is known to be a multiple of it (f = h(x^k) with h
    irreducible of degree `step`: a root b of a factor gives the root b^k of h, so Q(b)
    contains Q(b^k), of degree `step`).  `base`: h irreducible with f = h(x^2), so f is
    irreducible or c * g(x) * g(-x): an irreducible factor v of h mod p with v(x^2)
    irreducible mod p would divide both g(x) and g(-x), so f mod p has fewer than twice
    h's number of modular factors only when f is irreducible (see _halves_split).

    When |f(0)| is two digits shorter than lc(f) (reading lengths), the reversed polynomial x^n f(1/x) is
    factored instead: a candidate is lc * prod g_i mod m, so a small leading coefficient lets
    early detection find factors at a smaller modulus (the bound is the same)."""
    if f.at(0).digits + 1 < f.lc.digits:  # a digit shorter changes little
        ctx = f.ctx
        rev = _reversed(f)
        qs = list(primes or [])  # still good for the reversal when q does not divide f(0)
        qs = [
            q
            for q, (_, r) in zip(qs, batch([("//", f.at(0), ctx.const(q, "a small prime")) for q in qs]))
            if not r.is_zero
        ]
        found = _factor(rev, qs, step, _reversed(base) if base is not None else None, rootless)
        return [_reversed(g) for g in found]
    return _factor(f, primes, step, base, rootless)


def _reversed(f: Poly) -> Poly:
    """x^n f(1/x) with a positive leading coefficient (f(0) != 0): only exponents move, and
    the signs when f(0) < 0."""
    n = f.degree
    r = f._new({n - e: c for e, c in f.terms.items()})
    return -r if r.lc.sign < 0 else r


def _factor(f: Poly, primes: list[int] | None, step: int, base: Poly | None, rootless: bool) -> list[Poly]:
    n = f.degree
    chosen, allowed, tried = None, None, 0
    ctx = f.ctx
    pool = list(primes or [])
    # the caller tried the primes below its largest good one already (in order): skip them
    rest = [q for q in CANDIDATE_PRIMES if q > max(pool, default=0)]
    ready: dict = {}  # q -> (P, f mod q monic, its distinct-degree factorisation)
    while tried < MAX_PRIMES:
        if not pool:
            if not rest:
                break
            pool, rest = squarefree_primes(f, rest[:8], at_most=2), rest[8:]  # side by side, 2 at a time
            continue
        q = pool.pop(0)
        if q not in ready:  # the first two primes side by side: most f need a second one
            paired = tried == 0 and base is None and n <= EVERY_DEGREE  # larger: operations dominate
            group = [q] + (pool[: PAIRED - 1] if paired else [])
            Ps = [ctx.const(r, "a small prime for factoring mod p") for r in group]
            fms = monic_many(reduce_many([f] * len(group), Ps), Ps, group)
            for r, R, fr, dd in zip(group, Ps, fms, distinct_degree_many(list(zip(fms, Ps, group)), rests=False)):
                ready[r] = (R, fr, dd)
        P, fm, ddf = ready.pop(q)
        degrees = [d for d, F in ddf[0] for _ in range(F.degree // d if F is not None else 1)]
        sums_ = {d for d in _subset_sums(degrees) - ({1, n - 1} if rootless else set()) if d % step == 0}
        before = allowed
        allowed = sums_ if allowed is None else allowed & sums_
        count = len(degrees)
        if chosen is None or count < chosen[0]:
            chosen = (count, P, q, fm, ddf)
        tried += 1
        if not any(0 < d < n for d in allowed):
            return [f]  # irreducible: no degree of a proper factor is possible
        if base is not None and not _halves_split(base, P, q, count):
            return [f]  # irreducible: some v(x^2) stays irreducible mod p
        if count >= MANY_FACTORS and tried == 1 and base is None:
            break  # f very likely splits: another prime would cost a factorisation mod p for little
        if count <= FEW_FACTORS and tried >= 2:
            break  # recombining so few costs less than another prime's factorisation
        if before is not None and allowed == before:
            break  # this prime ruled out no degree: the pattern has settled (f likely splits)
    if chosen is None:
        raise InputError(f"no prime among the first {len(CANDIDATE_PRIMES)} keeps this polynomial square-free mod p")
    _, P, q, fm, ddf = chosen
    modular = factor_mod_p(fm, P, q, ddf)
    Bf = factor_bound(f)
    done, pieces = [], [Piece(f, list(range(len(modular))), Bf, rootless)]
    one = ctx.const(1, "one")
    lifting = lifts(f, modular, P, q, Bf + Bf + one)
    step = next(lifting)
    while True:
        lifted, m = step
        queue, pieces, first = pieces, [], True
        while queue:  # pieces split off at this modulus are searched again at once when their
            fresh = []  # (smaller) bound is met: often no further lifting step is needed
            for piece in queue:
                if piece.settled:
                    done.append(piece.G)
                    continue
                met = (m - (piece.bound + piece.bound)).sign > 0
                if not (met or first):
                    pieces.append(piece)  # searched at this modulus already, as part of its parent
                    continue
                irreducible, rest = search(piece, lifted, m, allowed, exhaustive=met)
                done += irreducible
                if len(rest) == 1 and rest[0].idx == piece.idx:
                    pieces += rest  # not split: its next search is at the next modulus
                else:
                    fresh += rest
            queue, first = fresh, False
        open_ = [p.bound for p in pieces if not p.settled]
        if not open_:
            break
        need = open_[0]
        for b in open_[1:]:
            need = b if (b - need).sign > 0 else need
        step = _send(lifting, need + need + one)
        if step is None:
            break
    if not all(p.settled for p in pieces):  # cannot happen: the last modulus exceeds 2 B(f)
        raise ArithmeticError("internal error: a piece was left unsearched at the full bound")
    return done + [p.G for p in pieces]


def _send(lifting, need):
    """The next (lifted, m) from the lifting, told the modulus must exceed need; None at the end."""
    try:
        return lifting.send(need)
    except StopIteration:
        return None


def _halves_split(h: Poly, P, q: int, count: int) -> bool:
    """Whether f = h(x^2) has twice as many factors mod q (count) as h: each irreducible v of
    h mod q gives v(x^2), irreducible or two factors, so this is the case exactly when every
    v(x^2) splits (one distinct-degree factorisation of h, of half f's degree)."""
    parts, _ = distinct_degree(monic_mod_p(h, P, q), P, q)
    return count == 2 * sum(F.degree // d for d, F in parts)


def _subset_sums(degrees: list[int]) -> set[int]:
    out = {0}
    for d in degrees:
        out |= {s + d for s in out}
    return out
