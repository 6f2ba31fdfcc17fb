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
  into two open pieces with their own (usually much smaller) bounds.

B(G) = C(d-1, floor((d-1)/2)) * (isqrt(sum of G's squared coefficients) + 1) bounds every
coefficient of lc(G)/lc(H) * H for a factor H of G (Mignotte, through the Mahler measure,
which the 2-norm bounds).  A piece of degree <= 3 is irreducible here (f has no rational root
left when this runs), and so is a piece with one modular factor.
"""

from __future__ import annotations

import math
from itertools import combinations

from .integer import Z, batch, products, sums
from .modp import mul_many, symmetric_many
from .poly import Poly, mods

EARLY_SIZES = 2  # subsets tried while a piece's bound is not met yet


class Piece:
    """A divisor G of f with the indices of its lifted factors and its bound: the smaller of
    B(G) and B(f) (`cap`), both valid for G's factors (their Mahler measures are at most
    M(G) <= M(f)), so a modulus above 2 B(f) settles every piece."""

    def __init__(self, G: Poly, idx: list[int], cap: Z):
        self.G, self.idx, self.cap = G, idx, cap
        own = factor_bound(G) if G.degree > 3 and len(idx) > 1 else cap
        self.bound = own if (own - cap).sign < 0 else cap

    @property
    def settled(self) -> bool:
        """Irreducible without a search: one modular factor, or degree <= 3 without a root."""
        return len(self.idx) == 1 or self.G.degree <= 3


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
    G, T = piece.G, list(piece.idx)
    deg = {i: lifted[i].degree for i in T}
    zero = G.ctx.const(0, "zero")
    const = {i: lifted[i].terms.get(0, zero) for i in T}
    found = []  # (factor, its indices)
    size = 1
    while 2 * size <= len(T) and (exhaustive or size <= EARLY_SIZES):
        subsets = [S for S in combinations(T, size) if sum(deg[i] for i in S) in allowed]
        passing = _trailing_test(G, subsets, const, m) if subsets else []
        for S in passing:
            if not set(S) <= set(T):
                continue  # a factor found in this round used one of its modular factors
            H = _candidate(G, [lifted[i] for i in S], m)
            quotient = G.exact_quotient(H)
            if quotient is None:
                continue
            found.append((H, list(S)))
            G = quotient
            T = [i for i in T if i not in S]
        size += 1
    if exhaustive:
        rest = [G] if G.degree > 0 else []
        return [H for H, _ in found] + rest, []
    pieces = [Piece(H, S, piece.cap) for H, S in found] + ([Piece(G, T, piece.cap)] if G.degree > 0 else [])
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


def _candidate(G: Poly, factors: list, m: Z) -> Poly:
    """pp(lc(G) prod factors mod m), coefficients as symmetric residues."""
    g = Poly.const(G.lc, G.var)
    for h in factors:
        (g,) = mul_many([(g, h)], m)
    coeffs = symmetric_many(list(g.terms.values()), m)
    return g._new(dict(zip(g.terms, coeffs))).primitive()[1]
