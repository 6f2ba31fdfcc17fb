"""Yun's square-free decomposition over Z: f = a_1 * a_2^2 * ... * a_k^k with the a_i square-free
and pairwise coprime, so every multiplicity comes from the decomposition itself.

For a primitive f with positive leading coefficient (over Z, with primitive gcds, every
division below is exact by Gauss's lemma):

    a_0 = gcd(f, f'),  b_1 = f / a_0,  c_1 = f' / a_0,  d_1 = c_1 - b_1'
    a_i = gcd(b_i, d_i),  b_(i+1) = b_i / a_i,  c_(i+1) = d_i / a_i,  d_(i+1) = c_(i+1) - b_(i+1)'

until b_i is a constant.  A polynomial that is square-free modulo one of a few small primes is
square-free over Z: that cheap certificate (roots.squarefree_primes, all primes side by side)
skips the gcds altogether in the common case, and the primes it finds serve Zassenhaus again.
Otherwise each gcd is heuristic (heugcd.py), its cofactors the next b_i and c_i.
"""

from __future__ import annotations

from .heugcd import exact, heu_gcd
from .intfactor import PRIMES
from .poly import Poly
from .roots import SQUAREFREE_PRIMES, SQUAREFREE_TRIED, _discriminant, squarefree_primes

ODD_PRIMES = [p for p in PRIMES if p > 2][:SQUAREFREE_PRIMES]
MORE_ODD_PRIMES = [p for p in PRIMES if p > 2][SQUAREFREE_PRIMES : 3 * SQUAREFREE_PRIMES]
LONG_COEFFICIENTS = 8  # digits above which (degree >= 10) the square-free test tries more primes


def yun(f: Poly) -> tuple[list[tuple[Poly, int]], list[int]]:
    """([(a_i, i)] for the non-constant a_i, each primitive with positive leading coefficient;
    the odd primes p not dividing lc(f) modulo which f is square-free, when it is)."""
    if f.degree < 2:
        return ([(f, 1)] if f.degree >= 1 else []), []
    if f.degree == 2:  # a quadratic is square-free iff b^2 - 4ac != 0 (and never needs primes)
        return ([(f, 1)] if not _discriminant(f).is_zero else _yun(f)), []
    good = squarefree_primes(f, ODD_PRIMES, at_most=SQUAREFREE_TRIED)
    long_ = f.degree >= 10 and max(c.digits for c in f.terms.values()) > LONG_COEFFICIENTS  # lengths
    if not good and long_:
        # a product of several factors often has a discriminant divisible by every small prime;
        # at high degree with long coefficients the remainder sequence over Z grows far costlier
        # than a few more primes mod p
        good = squarefree_primes(f, MORE_ODD_PRIMES, at_most=SQUAREFREE_TRIED)
    if good:
        return [(f, 1)], good
    return _yun(f), []


def _yun(f: Poly) -> list[tuple[Poly, int]]:
    # every gcd is heuristic (heugcd: one integer gcd, proven by the exact divisions that also
    # give the cofactors used next), the remainder sequence only when the heuristic fails
    a0, b, c = heu_gcd(f, f.derivative())
    if a0.degree == 0:
        return [(f, 1)]
    d = c - b.derivative()
    out, i = [], 1
    while b.degree > 0:
        if d.is_zero:
            a = b.primitive()[1]
            b, c = exact(b, a), d
        else:
            a, b, c = heu_gcd(b, d)
        if a.degree > 0:
            out.append((a, i))
        if b.degree <= 0:
            break
        d = c - b.derivative()
        i += 1
    return out
