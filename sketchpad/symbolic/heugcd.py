"""The heuristic polynomial gcd over Z (GCDHEU: Char, Geddes and Gonnet; SymPy's dup_zz_heu_gcd).

Evaluate f and g at an integer xi, take one integer gcd, and read the gcd's coefficients back as
the symmetric base-xi digits of that integer.  With xi >= 2 min(|f|, |g|) + 2 (max norms), a
primitive candidate that divides both f and g IS their gcd (Geddes, Czapor and Labahn,
Algorithms for Computer Algebra, theorem 7.7), so the exact divisions below are the proof.  A
failed try (an extra integer factor in the gcd of the values) retries with a larger xi, then
falls back to the primitive remainder sequence.  Every integer operation runs on the sheet;
xi itself is a literal chosen from the coefficients' lengths.
"""

from __future__ import annotations

from .integer import batch, products, sums
from .poly import Poly, powers

TRIES = 3  # evaluation points tried before the remainder sequence
MIN_DEGREE = 6  # below, the remainder sequence has a few steps and fewer batches (corpus #33, #123)
SPARSE = 3  # at most one term in SPARSE per degree (x^5 structure, corpus #33): remainders stay
# short there, and the remainder sequence measured 7x faster than the values' hundreds of digits


def heu_gcd(f: Poly, g: Poly) -> tuple[Poly, Poly, Poly]:
    """(h, f / h, g / h): h the primitive gcd with positive leading coefficient (as Poly.gcd)."""
    if f.degree > 0 and g.degree > 0:
        dmin = min(max(c.digits for c in p.terms.values()) for p in (f, g))  # |coefficient| < 10^dmin
        dmax = max(c.digits for p in (f, g) for c in p.terms.values())
        tries = [i for i in range(TRIES) if _value_digits(f, g, dmin, dmax, i) <= f.ctx.arith.limits.limit_for("gcd")]
        if max(f.degree, g.degree) < MIN_DEGREE or any(SPARSE * len(p.terms) <= p.degree + 1 for p in (f, g)):
            tries = []
        for i in tries:
            # 2 * 10^d + 2 > 2 min norm + 2; each retry about a quarter more digits, a different residue
            d = _point_digits(dmin, i)
            xi = f.ctx.lit(2 * 10**d + 2 * i + 29, "GCDHEU evaluation point (from coefficient lengths)")
            out = _try(f, g, xi)
            if out is not None:
                return out
    h = f.gcd(g)
    return h, exact(f, h), exact(g, h)


def _point_digits(dmin: int, i: int) -> int:
    return dmin + i * (dmin // 4 + 1)


def _value_digits(f: Poly, g: Poly, dmin: int, dmax: int, i: int) -> int:
    """A bound on the digits of f(xi) and g(xi) at try i (lengths only): the operands' limit."""
    return max(f.degree, g.degree) * (_point_digits(dmin, i) + 1) + dmax + 2


def _try(f: Poly, g: Poly, xi) -> tuple[Poly, Poly, Poly] | None:
    ctx = f.ctx
    n = min(f.degree, g.degree)  # the gcd has at most n + 1 coefficients
    pw = powers([xi], max(f.degree, g.degree, n + 1))[0]
    fv, gv = _eval_together([f, g], pw)
    if fv.is_zero or gv.is_zero:
        return None
    one, two = ctx.const(1, "one"), ctx.const(2, "two")
    gamma, xm1 = batch([("gcd", fv, gv), ("-", xi, one)])
    # symmetric digits in [-off, xi - 1 - off]: add off to every digit (off * (1 + xi + ... + xi^n),
    # products and a sum tree: a division or a borrow along hundreds of digits costs one batch
    # per digit), take the plain digits, subtract off again
    off = batch([("//", xm1, two)])[0][0]
    shifted = sums([[gamma, off, *products([(pw[k], off) for k in range(1, n + 1)])]])[0]
    q, rest = batch([("//", shifted, pw[n + 1])])[0]
    if not q.is_zero:  # more digits than any divisor of f and g has: an extra factor
        return None
    digits = _digits(rest, n + 1, pw)
    coeffs = batch([("-", c, off) for c in digits])
    cand = Poly(ctx, dict(enumerate(coeffs)), f.var)
    if cand.degree <= 0:  # a constant candidate: its primitive part 1 divides both
        return Poly.const(one, f.var), f, g
    h = cand.primitive()[1]
    qf = f.exact_quotient(h)
    if qf is None:
        return None
    qg = g.exact_quotient(h)
    return None if qg is None else (h, qf, qg)


def _eval_together(polys: list, pw: list) -> list:
    """[p(xi) for p in polys] from the shared powers pw of xi: one batch of products, then sums."""
    terms = [[(c, pw[k]) if k else None for k, c in p.terms.items()] for p in polys]
    prod = iter(products([t for ts in terms for t in ts if t is not None]))
    return sums([[next(prod) if t is not None else p.terms[0] for t in ts] for p, ts in zip(polys, terms)])


def _digits(value, length: int, pw: list) -> list:
    """The base-xi digits (lowest first) of 0 <= value < xi^length: split by xi^m with m half the
    length, every part of one level in one batch (log2(length) batches)."""
    out: dict = {}
    parts = [(value, 0, length)]
    while parts:
        for v, lo, ln in parts:
            if ln == 1:
                out[lo] = v
        split = [(v, lo, ln, ln // 2) for v, lo, ln in parts if ln > 1]
        qr = batch([("//", v, pw[m]) for v, _, _, m in split])
        parts = [p for (_, lo, ln, m), (q, r) in zip(split, qr) for p in ((r, lo, m), (q, lo + m, ln - m))]
    return [out[k] for k in range(length)]


def exact(f: Poly, g: Poly) -> Poly:
    """f / g for a known divisor g (a gcd of f), or an internal error."""
    q = f.exact_quotient(g)
    if q is None:
        raise ArithmeticError(f"internal error: the gcd {g} does not divide {f}")
    return q
