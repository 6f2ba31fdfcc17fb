"""Zassenhaus recombination with early factor detection: the lifted modular factors are put
together into the factors over Z while the lifting is still going on.

The work is a list of open pieces: a divisor G of f with the lifted factors T that belong to it
(G = lc(G) * prod T mod m).  At each precision m the lifting hands over:

* a piece whose bound is met, m > 2 B(G), is searched exhaustively: subsets S of T by
  increasing size up to half of what is left, skipping impossible degrees and those failing
  the trailing-coefficient test (the constant term of lc(G) prod_S g_i, a symmetric residue,
  must divide lc(G) G(0)), each candidate pp(lc(G) prod_S g_i mod m) checked by exact division.
  Every factor found is irreducible and so is what is left: the search is the proof.
* a piece whose bound is not met yet is searched among single factors and pairs only, each
  candidate checked by exact division: a factor found is a true divisor, and splits the piece
  into two open pieces with their own (usually much smaller) bounds.  When lc(G) is long the
  candidates are read as fractions instead (_early_fractions, ratrecon.py).

B(G) = C(d-1, floor((d-1)/2)) * (isqrt(sum of G's squared coefficients) + 1) bounds every
coefficient of lc(G)/lc(H) * H for a factor H of G (Mignotte, through the Mahler measure,
which the 2-norm bounds).  A piece of degree <= 3 is irreducible when f is known to have no rational root, and so is a
piece with one modular factor.
"""

from __future__ import annotations

import math
from itertools import combinations

from .integer import Z, batch, products, sums
from .modp import mul_many, symmetric_many
from .poly import Poly, mods
from .ratrecon import bound, lcm_many, reconstruct_many

EARLY_SIZES = 2  # subsets tried while a piece's bound is not met yet
FRACTION_DIGITS = 5  # the least modulus (in digits) at which early detection reads fractions


class Piece:
    """A divisor G of f with the indices of its lifted factors and its bound: the smaller of
    B(G) and B(f) (`cap`), both valid for G's factors (their Mahler measures are at most
    M(G) <= M(f)), so a modulus above 2 B(f) settles every piece."""

    def __init__(self, G: Poly, idx: list[int], cap: Z, rootless: bool = True):
        self.G, self.idx, self.cap, self.rootless = G, idx, cap, rootless
        own = cap if self.settled else factor_bound(G)
        self.bound = own if (own - cap).sign < 0 else cap

    @property
    def settled(self) -> bool:
        """Irreducible without a search: one modular factor, or degree <= 3 without a root."""
        return len(self.idx) == 1 or self.G.degree <= 1 or (self.rootless and self.G.degree <= 3)


def factor_bound(G: Poly) -> Z:
    """B(G) = C(d-1, floor((d-1)/2)) * (isqrt(sum of squares) + 1), on the sheet."""
    ctx = G.ctx
    cs = list(G.terms.values())
    (ss,) = sums([products([(c, c) for c in cs])])
    norm = ss.isqrt() + ctx.const(1, "one")
    d = max(G.degree, 1)
    return ctx.const(math.comb(d - 1, (d - 1) // 2), "the binomial C(n-1, (n-1)/2) of the factor bound") * norm


def search(piece: Piece, lifted: list, m: Z, allowed: set[int], exhaustive: bool) -> tuple[list, list]:
    """(irreducible factors found, open pieces left) for one piece at modulus m."""
    if not exhaustive and 2 * piece.G.lc.digits >= m.digits:  # reading lengths: lc(G) g needs
        # m > 2 lc(G) |H|, fractions m > 2 |H|^2; below FRACTION_DIGITS nearly every fraction
        # passes the end tests (n, d tiny), for factors that the next modulus finds anyway
        early = m.digits >= FRACTION_DIGITS
        return [], _early_fractions(piece, lifted, m, allowed) if early else [piece]
    G, T = piece.G, list(piece.idx)
    deg = {i: lifted[i].degree for i in T}
    zero = G.ctx.const(0, "zero")
    const = {i: lifted[i].terms.get(0, zero) for i in T}
    found = []  # (factor, its indices)
    size = 1
    while 2 * size <= len(T) and (exhaustive or size <= EARLY_SIZES):
        subsets = [S for S in combinations(T, size) if sum(deg[i] for i in S) in allowed]
        passing = _trailing_test(G, subsets, const, m) if subsets else []
        cands = _candidates(G, passing, lifted, m) if passing else []
        kept = _value_test(G, cands)
        changed = False
        for S, g, keep in zip(passing, cands, kept):
            if not keep or not set(S) <= set(T):
                continue  # fails the value test, or a factor found in this round used one of its modular factors
            H = _candidate(G, [lifted[i] for i in S], m) if changed else g.primitive()[1]
            quotient = G.exact_quotient(H)
            if quotient is None:
                continue
            found.append((H, list(S)))
            G, changed = quotient, True
            T = [i for i in T if i not in S]
        size += 1
    if exhaustive:
        rest = [G] if G.degree > 0 else []
        return [H for H, _ in found] + rest, []
    pieces = [Piece(H, S, piece.cap, piece.rootless) for H, S in found]
    pieces += [Piece(G, T, piece.cap, piece.rootless)] if G.degree > 0 else []
    return [], pieces


def _trailing_test(G: Poly, subsets: list, const: dict, m: Z) -> list:
    """The subsets whose candidate's constant term divides lc(G) G(0), all in a few batches."""
    b = G.lc
    bg0 = b * G.at(0)
    vals = [b] * len(subsets)
    for j in range(len(subsets[0])):
        vals = mods(products([(v, const[S[j]]) for v, S in zip(vals, subsets)]), m)
    syms = symmetric_many(vals, m)
    live = [(S, u) for S, u in zip(subsets, syms) if not u.is_zero]
    rems = batch([("//", bg0, u) for _, u in live])
    return [S for (S, _), (_, r) in zip(live, rems) if r.is_zero]


def _candidates(G: Poly, subsets: list, lifted: list, m: Z) -> list:
    """lc(G) prod_S g_i mod m for every subset S, coefficients as symmetric residues: the
    subsets side by side (one product round per factor position, one residue round)."""
    polys = [Poly.const(G.lc, G.var)] * len(subsets)
    for j in range(len(subsets[0])):
        polys = mul_many([(g, lifted[S[j]]) for g, S in zip(polys, subsets)], m)
    sym = iter(symmetric_many([c for g in polys for c in g.terms.values()], m))
    return [g._new({k: next(sym) for k in g.terms}) for g in polys]


def _value_test(G: Poly, cands: list) -> list[bool]:
    """For each candidate g (lc(g) = lc(G) times the lifted factors' leading coefficients, mod m):
    False when g(a) does not divide lc(g) G(a) for a = 1 or a = -1, so pp(g) cannot divide G
    (pp(g) = H | G gives H(a) | G(a), and g(a) = c H(a) with c | lc(g)).  A cheap filter before
    the exact division: a few sums, products and divisions for all candidates in one round each."""
    if not cands:
        return []
    zero = G.ctx.const(0, "zero")
    polys = [G] + cands
    halves = []  # per polynomial: the sums of its even and of its odd terms
    for g in polys:
        halves += [
            [c for k, c in g.terms.items() if k % 2 == 0] or [zero],
            [c for k, c in g.terms.items() if k % 2] or [zero],
        ]
    s = sums(halves)
    vals = batch([(op, s[2 * i], s[2 * i + 1]) for i in range(len(polys)) for op in ("+", "-")])  # g(1), g(-1)
    live = [(i, a) for i in range(1, len(polys)) for a in (0, 1) if not vals[2 * i + a].is_zero]
    scaled = products([(polys[i].lc, vals[a]) for i, a in live])
    rems = batch([("//", v, vals[2 * i + a]) for v, (i, a) in zip(scaled, live)])
    keep = [True] * len(cands)
    for (i, _), (_, r) in zip(live, rems):
        if not r.is_zero:
            keep[i - 1] = False
    return keep


def _candidate(G: Poly, factors: list, m: Z) -> Poly:
    """pp(lc(G) prod factors mod m), coefficients as symmetric residues."""
    g = Poly.const(G.lc, G.var)
    for h in factors:
        (g,) = mul_many([(g, h)], m)
    coeffs = symmetric_many(list(g.terms.values()), m)
    return g._new(dict(zip(g.terms, coeffs))).primitive()[1]


def _early_fractions(piece: Piece, lifted: list, m: Z, allowed: set[int]) -> list:
    """Early detection without lc(G): the open pieces left after trying the subsets S of up to
    EARLY_SIZES factors, each product g = prod_S g_i mod m read as fractions H_k / lc(H)
    (ratrecon.py).  A subset passes first when the fraction n/d of its constant term has
    n | G(0) and d | lc(G) (as H(0) / lc(H) does in lowest terms); its candidate H = L g
    (L the lcm of the denominators, H_k = n_k L / d_k) is then checked by exact division."""
    G, T = piece.G, list(piece.idx)
    N = bound(m)
    zero = G.ctx.const(0, "zero")
    deg = {i: lifted[i].degree for i in T}
    const = {i: lifted[i].terms.get(0, zero) for i in T}
    found = []
    size = 1
    while 2 * size <= len(T) and size <= EARLY_SIZES:
        subsets = [S for S in combinations(T, size) if sum(deg[i] for i in S) in allowed]
        vals = [const[S[0]] for S in subsets]
        for j in range(1, size):
            vals = mods(products([(v, const[S[j]]) for v, S in zip(vals, subsets)]), m)
        fr = reconstruct_many(vals, m, N)
        live = [(S, nd) for S, nd in zip(subsets, fr) if nd is not None and not nd[0].is_zero]
        rems = batch([("//", G.at(0), n) for _, (n, _) in live] + [("//", G.lc, d) for _, (_, d) in live])
        k = len(live)
        passing = [S for j, (S, _) in enumerate(live) if rems[j][1].is_zero and rems[k + j][1].is_zero]
        cands = [(S, H) for S, H in zip(passing, _fraction_candidates(passing, lifted, m, N)) if H is not None]
        kept = _value_test(G, [H for _, H in cands])
        for (S, H), keep in zip(cands, kept):
            if not keep or not set(S) <= set(T):
                continue
            quotient = G.exact_quotient(H)
            if quotient is None:
                continue
            found.append((H, list(S)))
            G = quotient
            T = [i for i in T if i not in S]
        size += 1
    pieces = [Piece(H, S, piece.cap, piece.rootless) for H, S in found]
    return pieces + ([Piece(G, T, piece.cap, piece.rootless)] if G.degree > 0 else [])


def _fraction_candidates(subsets: list, lifted: list, m: Z, N: Z) -> list:
    """For each subset, pp(L prod_S g_i) from the fractions of its coefficients, or None when
    some coefficient has no fraction within N: all subsets side by side."""
    if not subsets:
        return []
    polys = [lifted[S[0]] for S in subsets]
    for j in range(1, len(subsets[0])):
        polys = mul_many([(g, lifted[S[j]]) for g, S in zip(polys, subsets)], m)
    fr = iter(reconstruct_many([c for g in polys for c in g.terms.values()], m, N))
    fracs = [[next(fr) for _ in g.terms] for g in polys]
    ok = [j for j, fs in enumerate(fracs) if all(x is not None for x in fs)]
    lcms = lcm_many([[d for _, d in fracs[j]] for j in ok])
    qs = iter(batch([("//", L, d) for j, L in zip(ok, lcms) for _, d in fracs[j]]))
    scaled = iter(products([(n, next(qs)[0]) for j in ok for n, _ in fracs[j]]))
    out = [None] * len(subsets)
    for j in ok:
        H = polys[j]._new({k: next(scaled) for k in polys[j].terms})
        out[j] = H.primitive()[1]
    return out
