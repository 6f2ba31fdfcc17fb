"""Every rational root of an integer polynomial, found exactly.

Two ways to get candidates, both followed by an exact check q^n f(p/q) = 0 on the sheet:

* "divisors": the rational root theorem.  A root p/q in lowest terms has p | a0 and q | an.
  The divisors come from trial division (intfactor), so this is used only when both numbers
  factor completely and the candidate count stays under MAX_CANDIDATES.
* "hensel": for large coefficients.  Pick a small prime p not dividing an such that every root
  of f mod p is simple; lift each root to a p-adic root mod M > 2H (H = |an| + max|ai| bounds
  |an * root|), and read the candidate an*root off its symmetric residue.  Each rational root
  reduces to a simple root mod p and lifts uniquely, so none is missed.
"""

from __future__ import annotations

import math

from ..errors import InputError
from .integer import Z
from .intfactor import PRIMES, divisors, trial_factor
from .modular import inverse, mod_eval, squarefree_mod, symmetric
from .poly import Poly
from .rational import Q

# auto prefers Hensel lifting beyond these (it costs fewer operations); an explicit
# method="divisors" accepts up to the LIMIT values
MAX_CANDIDATES, MAX_CANDIDATES_LIMIT = 64, 4000
MAX_TRIAL_DIGITS, MAX_TRIAL_DIGITS_LIMIT = 6, 12
SQUAREFREE_PRIMES = 8
HENSEL_PRIMES = PRIMES[:60]


def squarefree_part(f: Poly) -> Poly:
    if f.degree < 2:
        return f
    for p in PRIMES[:SQUAREFREE_PRIMES]:  # a cheap certificate first, over small fields
        P = f.ctx.const(p, "a small prime for the square-free test")
        if not P.divides(f.lc) and squarefree_mod(f, P):
            return f
    g = f.gcd(f.derivative())
    return f if g.degree == 0 else f.exact_quotient(g)


def rational_roots(f: Poly, method: str = "auto", squarefree: bool = False) -> list[Q]:
    """The distinct rational roots of f (any integer polynomial that is not zero)."""
    if f.is_zero:
        raise InputError("the zero polynomial has every number as a root")
    roots: list[Q] = []
    ctx = f.ctx
    if f.degree >= 1 and f.low > 0:  # x divides f: the root 0 (reading exponents)
        roots.append(Q(ctx.const(0, "zero")))
        f = f.shift(-f.low)
    if f.degree < 1:
        return roots
    f = f.primitive()[1]
    if not squarefree:
        f = squarefree_part(f)
    if f.degree == 1:
        return roots + [Q(-f.coeff(0), f.lc)]
    if f.degree == 2:  # rational roots iff b^2 - 4ac is a square
        return roots + _quadratic(f)
    found = None
    if method in ("auto", "divisors"):
        found = _by_divisors(
            f,
            *(
                (MAX_TRIAL_DIGITS, MAX_CANDIDATES)
                if method == "auto"
                else (MAX_TRIAL_DIGITS_LIMIT, MAX_CANDIDATES_LIMIT)
            ),
        )
        if found is None and method == "divisors":
            raise InputError(
                "the rational root theorem's candidate set is too large to enumerate "
                "(constant or leading coefficient not factorable by trial division)"
            )
    if found is None:
        found = _by_hensel(f)
    return roots + found


def _quadratic(f: Poly) -> list[Q]:
    a, b, c = f.lc, f.at(1), f.at(0)
    D = b * b - f.ctx.const(4, "the 4 of b^2 - 4ac") * a * c
    if D.sign < 0:
        return []
    w = D.isqrt()
    if not (w * w == D):
        return []
    return [Q(w - b, a + a), Q(-(w + b), a + a)]


def _by_divisors(f: Poly, max_digits: int, max_candidates: int) -> list[Q] | None:
    a0, an = f.coeff(0), f.lc
    if max(a0.digits, an.digits) > max_digits:  # reading lengths: trial division would be futile
        return None
    fa0, fan = trial_factor(a0), trial_factor(an)
    if not (fa0.complete and fan.complete) or fa0.divisor_count() * fan.divisor_count() > max_candidates:
        return None
    ctx = f.ctx
    one = ctx.const(1, "one")
    f1, fm1 = f.eval_int(one), f.eval_int(-one)
    roots = []
    for q in divisors(fan):
        for p in divisors(fa0):
            if not p.gcd(q).is_one:
                continue  # not in lowest terms: found as another candidate
            for pp in (p, -p):
                # cheap filters: (q - p) | f(1) and (q + p) | f(-1) for a root p/q
                d1, dm1 = q - pp, q + pp
                if not d1.is_zero and not d1.divides(f1):
                    continue
                if not dm1.is_zero and not dm1.divides(fm1):
                    continue
                if f.eval_homogeneous(pp, q).is_zero:
                    roots.append(Q(pp, q))
                    if len(roots) == f.degree:
                        return roots
    return roots


def _by_hensel(f: Poly) -> list[Q]:
    ctx = f.ctx
    df = f.derivative()
    height = abs(f.lc) + max((abs(c) for c in f.terms.values()), key=_Key)
    bound = height + height  # M must exceed 2H
    for p in HENSEL_PRIMES:
        P = ctx.const(p, "a small prime for Hensel lifting")
        if P.divides(f.lc):
            continue
        residues = [ctx.const(r, "a residue mod a small prime") for r in range(p)]
        simple, ok = [], True
        for r in residues:
            if mod_eval(f, r, P).is_zero:
                if mod_eval(df, r, P).is_zero:
                    ok = False  # a repeated root mod p: this prime cannot separate
                    break
                simple.append(r)
        if not ok:
            continue
        roots = []
        for r in simple:
            r, m = _lift(f, df, r, P, p, bound)
            u = symmetric((f.lc * r) % m, m)
            cand = Q(u, f.lc)
            if f.eval_homogeneous(cand.num, cand.den).is_zero:
                roots.append(cand)
        return roots
    raise InputError(
        f"no prime among the first {len(HENSEL_PRIMES)} separates the roots of this "
        f"polynomial modulo p; its rational roots cannot be searched"
    )


def _precisions(p: int, bound: Z) -> list[int]:
    """Exponents e_1 < e_2 < ... < K with e_(i+1) <= 2 e_i and p^K > bound.

    K comes from the length of the bound (reading its digits): p^K has more digits than it.
    Stopping at exactly K rather than squaring past it keeps the last, costliest step small."""
    # p^K > 10^digits > bound once K*log10(p) >= digits; +1 absorbs float rounding.  Only the
    # length of the bound is read here; the moduli themselves are powers computed on the sheet.
    K, e = math.ceil(bound.digits / math.log10(p)) + 1, 1
    out = []
    while e < K:
        e = min(2 * e, K)
        out.append(e)
    return out


def _lift(f: Poly, df: Poly, r: Z, P: Z, p: int, bound: Z) -> tuple[Z, Z]:
    """Newton-Hensel: a simple root r mod p^e becomes a root mod p^(e'), e' <= 2e, until the
    modulus exceeds the bound.

    The inverse of f'(r) is lifted alongside by Newton's iteration s <- s(2 - f'(r)s), so only
    the first one needs an extended Euclid (modulo the small prime)."""
    s = inverse(mod_eval(df, r, P), P)
    two = f.ctx.const(2, "the 2 of Newton's inverse iteration")
    m = P
    for e in _precisions(p, bound):
        m = P**e
        r = (r - mod_eval(f, r, m) * s) % m
        s = (s * (two - mod_eval(df, r, m) * s)) % m
    return r, m


class _Key:
    """Orders Z values for max() through computed comparisons."""

    __slots__ = ("z",)

    def __init__(self, z):
        self.z = z

    def __lt__(self, other):
        return self.z < other.z
