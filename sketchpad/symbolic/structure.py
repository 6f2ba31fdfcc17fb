"""Structure recognised before the general factoring path, each a proof, all on the sheet.

* x^n - 1 and x^n + 1.  Their factors are cyclotomic polynomials, irreducible over Q:
  x^n - 1 = prod_(d | n) Phi_d and x^n + 1 = prod_(d | 2n, d not | n) Phi_d.  Each Phi_d is
  prod_(e | d) (x^e - 1)^mu(d/e): products of binomials, then exact divisions by binomials
  (q = g / (x^e - 1) has q_k = -(g_k + g_(k-e) + g_(k-2e) + ...), a batched sum), every d side
  by side; the product of the factors is then checked against the input.
* Eisenstein's criterion: a prime p dividing every coefficient but the leading one, p^2 not
  dividing the constant one and p not dividing the leading one proves irreducibility (so does
  the same with the roles of the two ends swapped).  Every coefficient modulo each of the
  primes below 50 is one batch of divisions; the constants modulo p^2 one more.
* f(x) = g(x^k) (the exponents' gcd k > 1): `substitute` and `spread` move between the two, so
  factor.py can split g first (a factor h of g gives the factor h(x^k) of f, to be split on).

The exponents, divisors and the Moebius function are structural integers (bookkeeping on
exponents); every coefficient is computed on the sheet.
"""

from __future__ import annotations

from math import gcd

from .integer import batch, gcd_all, sums
from .intfactor import PRIMES
from .modp import mul_many
from .poly import Poly

EISENSTEIN_PRIMES = [p for p in PRIMES if p < 50]


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _mobius(n: int) -> int:
    out, p = 1, 2
    while p * p <= n:
        if n % p == 0:
            n //= p
            if n % p == 0:
                return 0
            out = -out
        p += 1
    return -out if n > 1 else out


def cyclotomic_factors(f: Poly) -> list[Poly] | None:
    """The irreducible factors of x^n - 1 or x^n + 1 (n >= 1), or None for any other f."""
    if len(f.terms) != 2 or f.low != 0 or not f.lc.is_one:
        return None
    c = f.terms[0]
    if not (c.is_one or (-c).is_one):
        return None
    n = f.degree
    plus = c.sign > 0
    ds = [d for d in _divisors(2 * n) if n % d] if plus else _divisors(n)
    factors = phi_many(f.ctx, ds, f.var)
    check = _product(factors)
    diff = check - f
    if not diff.is_zero:  # cannot happen: the product formula is an identity
        raise ArithmeticError(f"internal error: the cyclotomic factors of {f} multiply to {check}")
    return factors


def phi_many(ctx, ds: list[int], var: str) -> list[Poly]:
    """[Phi_d] for every d, side by side: the binomials x^e - 1 with mu(d/e) = 1 multiplied
    together level by level, then one exact division by a binomial per round."""
    one = ctx.const(1, "one")
    minus = -one

    def binomial(e: int) -> Poly:
        return Poly(ctx, {e: one, 0: minus}, var)

    ups = {d: [binomial(e) for e in _divisors(d) if _mobius(d // e) == 1] for d in ds}
    downs = {d: [e for e in _divisors(d) if _mobius(d // e) == -1] for d in ds}
    while any(len(v) > 1 for v in ups.values()):
        pairs, where = [], []
        for d, v in ups.items():
            for j in range(0, len(v) - 1, 2):
                pairs.append((v[j], v[j + 1]))
                where.append(d)
        prods = iter(mul_many(pairs, None))
        for d, v in ups.items():
            ups[d] = [next(prods) for _ in range(len(v) // 2)] + ([v[-1]] if len(v) % 2 else [])
    cur = {d: v[0] for d, v in ups.items()}
    while any(downs.values()):
        live = [d for d in ds if downs[d]]
        quotients = _divide_by_binomials([(cur[d], downs[d].pop()) for d in live])
        cur.update(zip(live, quotients))
    return [cur[d] for d in ds]


def _divide_by_binomials(jobs: list) -> list[Poly]:
    """[g / (x^e - 1)] for (g, e), each division exact: q_k = -(g_k + g_(k-e) + ...)."""
    groups, shape = [], []
    for g, e in jobs:
        top = g.degree - e
        ks = []
        for k in range(top + 1):
            terms = [g.terms[i] for i in range(k, -1, -e) if i in g.terms]
            if terms:
                ks.append(k)
                groups.append(terms)
        shape.append(ks)
    negs = iter(batch([("neg", s) for s in sums(groups)]))
    return [Poly(g.ctx, {k: next(negs) for k in ks}, g.var) for (g, _), ks in zip(jobs, shape)]


def _product(polys: list[Poly]) -> Poly:
    level = list(polys)
    while len(level) > 1:
        nxt = mul_many([(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)], None)
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def eisenstein(f: Poly) -> bool:
    """Whether Eisenstein's criterion at a prime below 50 proves f irreducible, read either
    way round (f primitive, degree >= 2, f(0) != 0)."""
    ctx = f.ctx
    n = f.degree
    cs = [f.at(k) for k in range(n + 1)]
    middle = [c for c in cs[1:n] if not c.is_zero]
    if middle and gcd_all(middle).is_one:  # p must divide every middle coefficient: a gcd tree
        return False  # (stopping at the first 1) rules most polynomials out in a batch or two
    Ps = [ctx.const(p, "a prime for Eisenstein's criterion") for p in EISENSTEIN_PRIMES]
    rems = [r for _, r in batch([("//", c, P) for P in Ps for c in cs])]
    cands = []  # (P, the end that must not divide by p^2)
    for i, P in enumerate(Ps):
        zero = [r.is_zero for r in rems[i * (n + 1) : (i + 1) * (n + 1)]]
        if all(zero[:n]) and not zero[n]:
            cands.append((P, cs[0]))  # p | a_0..a_(n-1), p does not divide a_n
        if all(zero[1:]) and not zero[0]:
            cands.append((P, cs[n]))  # the same, reversed
    if not cands:
        return False
    squares = batch([("*", P, P) for P, _ in cands])
    return any(not r.is_zero for _, r in batch([("//", c, sq) for (_, c), sq in zip(cands, squares)]))


def exponent_gcd(f: Poly) -> int:
    """The gcd of f's exponents (f(0) != 0): f = g(x^k) for this k (bookkeeping)."""
    k = 0
    for e in f.terms:
        k = gcd(k, e)
    return k


def substitute(f: Poly, k: int) -> Poly:
    """g with f(x) = g(x^k): only exponents move."""
    return f._new({e // k: c for e, c in f.terms.items()})


def spread(g: Poly, k: int) -> Poly:
    """g(x^k): only exponents move."""
    return g._new({e * k: c for e, c in g.terms.items()})
