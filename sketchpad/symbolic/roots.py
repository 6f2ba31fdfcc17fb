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
from .heugcd import heu_gcd
from .integer import Z, batch, product_all, products
from .intfactor import PRIMES, TRIAL_LIMIT, divisors, trial_factor
from .modp import inverse, symmetric_many
from .poly import Poly, minus_many, mod_eval_many, mods, reduce_all
from .rational import Q

# auto prefers Hensel lifting beyond these (it costs fewer operations); an explicit
# method="divisors" accepts up to the LIMIT values
MAX_CANDIDATES, MAX_CANDIDATES_LIMIT = 64, 4000
MAX_TRIAL_DIGITS, MAX_TRIAL_DIGITS_LIMIT = 6, 12
SQUAREFREE_PRIMES = 8  # primes whose residues are looked at ...
SQUAREFREE_TRIED = 4  # ... of which at most this many (not dividing lc) run the Euclidean algorithm
HENSEL_PRIMES = PRIMES[:60]
NO_ROOT_PRIMES = 5  # primes looked at for a proof that there is no rational root


def squarefree_part(f: Poly) -> Poly:
    if f.degree < 2:
        return f
    if f.degree == 2 and not _discriminant(f).is_zero:  # a quadratic: b^2 - 4ac != 0 suffices
        return f
    if f.degree > 2 and _squarefree_mod_some_prime(f, PRIMES[:SQUAREFREE_PRIMES]):  # a cheap certificate
        return f
    g, part, _ = heu_gcd(f, f.derivative())  # the quotient comes with the gcd's proof
    return f if g.degree == 0 else part


def _squarefree_mod_some_prime(f: Poly, primes: list[int]) -> bool:
    """Whether gcd(f, f') = 1 over Z/p for some p in `primes` not dividing lc(f); then f is
    square-free over Z too, which saves the far costlier gcd over Z."""
    return bool(squarefree_primes(f, primes, first=True))


def squarefree_primes(f: Poly, primes: list[int], first: bool = False, at_most: int | None = None) -> list[int]:
    """The p in `primes` not dividing lc(f) with gcd(f, f') = 1 over Z/p (with first=True: stop
    at the first one found; with at_most: only the first at_most primes not dividing lc(f)
    are tried).

    The Euclidean algorithms modulo all the primes run side by side (one batch per step for
    all of them) with pseudo-remainders lc(b)*a - lc(a)*x^k*b, so no inverse mod p is needed:
    only the degrees of the remainder sequence matter, and a nonzero scalar mod p leaves them."""
    ctx = f.ctx
    Ps = [(ctx.const(p, "a small prime for the square-free test"), p) for p in primes]
    lc_rem = batch([("//", f.lc, P) for P, _ in Ps])
    Ps = [P for P, (_, r) in zip(Ps, lc_rem) if not r.is_zero][:at_most]
    df = f.derivative()
    pairs = reduce_all([(g, P) for P, _ in Ps for g in (f, df)])
    state = [(pairs[2 * i], pairs[2 * i + 1], P) for i, P in enumerate(Ps)]
    state = [(a, b, P) for a, b, P in state if not b.is_zero]  # f' = 0 mod p: no certificate
    good = []
    while state:
        done = [s for s in state if s[1].degree == 0]  # a nonzero constant: the gcd is 1
        good += [P[1] for _, _, P in done]
        if good and first:
            return good
        state = [(a, b, P) for a, b, P in state if b.degree > 0]
        if not state:
            break
        # one pseudo-division step for every prime: products, differences, reductions
        steps = []
        for a, b, _ in state:
            if a.degree < b.degree:
                a, b = b, a
            steps.append((a, b, a.degree - b.degree))
        n = [len(a.terms) for a, _, _ in steps]
        flat = products(
            [(c, b.lc) for a, b, _ in steps for c in a.terms.values()]
            + [(c, a.lc) for a, b, _ in steps for c in b.terms.values()]
        )
        scaled_a, at = [], 0
        for k in n:
            scaled_a.append(flat[at : at + k])
            at += k
        diffs = []
        for (a, b, k), sa in zip(steps, scaled_a):
            sb = flat[at : at + len(b.terms)]
            at += len(b.terms)
            diffs.append((a._new(dict(zip(a.terms, sa))), dict(zip((e + k for e in b.terms), sb))))
        diffs = minus_many(diffs)  # every prime's differences in one batch
        reduced = reduce_all([(r, P[0]) for r, (_, _, P) in zip(diffs, state)])
        # the remainder sequence moves on once the pseudo-remainder's degree drops below b's;
        # a zero remainder with b of positive degree: the gcd is b, not 1 (dropped)
        state = [
            (b, r, P) if r.degree < b.degree else (r, b, P)
            for (a, b, _), r, (_, _, P) in zip(steps, reduced, state)
            if not r.is_zero
        ]
    return sorted(good, key=primes.index)


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


def _discriminant(f: Poly) -> Z:
    """b^2 - 4ac of a quadratic: b^2 and 4a in one batch, then (4a)c, then the difference."""
    a, b, c = f.lc, f.at(1), f.at(0)
    bb, a4 = products([(b, b), (f.ctx.const(4, "the 4 of b^2 - 4ac"), a)])
    return bb - a4 * c


def _quadratic(f: Poly) -> list[Q]:
    a, b = f.lc, f.at(1)
    D = _discriminant(f)
    if D.sign < 0:
        return []
    w = D.isqrt()
    if not (w * w == D):
        return []
    d, t, a2 = batch([("-", w, b), ("+", w, b), ("+", a, a)])
    return [Q(d, a2), Q(-t, a2)]


def _by_divisors(f: Poly, max_digits: int, max_candidates: int) -> list[Q] | None:
    a0, an = f.coeff(0), f.lc
    if max(a0.digits, an.digits) > max_digits:  # reading lengths: trial division would be futile
        return None
    fa0, fan = trial_factor(a0), trial_factor(an)
    if not (fa0.complete and fan.complete) or fa0.divisor_count() * fan.divisor_count() > max_candidates:
        return None
    ctx = f.ctx
    one = ctx.const(1, "one")
    f1, fm1 = f.eval_many([one, -one])
    # every stage below is one batch for all candidates (the original walked them one by one)
    pairs = [(p, q) for q in divisors(fan) for p in divisors(fa0)]
    coprime = [pq for pq, g in zip(pairs, batch([("gcd", p, q) for p, q in pairs])) if g.is_one]
    negs = batch([("neg", p) for p, _ in coprime])  # not in lowest terms: found as another candidate
    cands = [(pp, q) for (p, q), m in zip(coprime, negs) for pp in (p, m)]
    # cheap filters: (q - p) | f(1) and (q + p) | f(-1) for a root p/q
    diffs = batch([op for pp, q in cands for op in (("-", q, pp), ("+", q, pp))])
    checks = [(i, v, d) for i in range(len(cands)) for v, d in ((f1, diffs[2 * i]), (fm1, diffs[2 * i + 1]))]
    checks = [(i, v, d) for i, v, d in checks if not d.is_zero]
    failed = {i for (i, _, _), (_, r) in zip(checks, batch([("//", v, d) for _, v, d in checks])) if not r.is_zero}
    survivors = [c for i, c in enumerate(cands) if i not in failed]
    values = f.eval_homogeneous_many(survivors)
    return [Q(pp, q) for (pp, q), v in zip(survivors, values) if v.is_zero]


def square_part(n: Z) -> tuple[Z, Z, bool]:
    """n = s^2 * c with s > 0, and c as square-free as trial division can show: (s, c, proven).

    The same facts as intfactor.square_part, with far fewer sequential steps: n is divided by
    all primes below TRIAL_LIMIT in one batch, the multiplicities of the primes that divide come
    from repeated divisions side by side, and the cofactor R (no prime factor below the limit)
    is then tested for being a square.  c is proven square-free when R is a square, or
    R < TRIAL_LIMIT^3 (then R is 1, a prime or a product of two distinct primes)."""
    ctx = n.ctx
    one = ctx.const(1, "one")
    m = abs(n)
    Ps = [ctx.const(p, "a trial divisor") for p in PRIMES]
    hits = [(P, q) for P, (q, r) in zip(Ps, batch([("//", m, P) for P in Ps])) if r.is_zero]
    exps = {id(P): 1 for P, _ in hits}
    while hits:  # divide each quotient again by its prime while it divides: all primes together
        qr = batch([("//", q, P) for P, q in hits])
        hits = [(P, q2) for (P, _), (q2, r) in zip(hits, qr) if r.is_zero]
        for P, _ in hits:
            exps[id(P)] += 1
    found = [(P, exps[id(P)]) for P in Ps if id(P) in exps]
    halves = [P for P, e in found for _ in range(e // 2)]
    odd = [P for P, e in found if e % 2]
    s, c = product_all(halves, lambda: one), product_all(odd, lambda: one)
    R = m.exact_div(product_all([s, s, c], lambda: one)) if found else m
    r = R.isqrt()
    if r * r == R:  # one more square factor (or R = 1)
        s, proven = (s * r if found else r), True
    else:
        c = c * R if found else R
        proven = R < ctx.const(TRIAL_LIMIT**3, "the bound below which an unfactored cofactor is square-free")
    return s, (-c if n.sign < 0 else c), proven


def _by_hensel(f: Poly) -> list[Q]:
    """A prime p modulo which every root of f is simple, its roots lifted (_lift_all).  A
    rational root is a root modulo every prime not dividing lc(f), so a prime without roots
    proves there is none: up to NO_ROOT_PRIMES such primes are looked at first."""
    ctx = f.ctx
    df = f.derivative()
    height = abs(f.lc) + _max_abs(list(f.terms.values()))
    bound = height + height  # M must exceed 2H
    chosen, seen = None, 0
    for p in HENSEL_PRIMES:
        P = ctx.const(p, "a small prime for Hensel lifting")
        if P.divides(f.lc):
            continue
        residues = [ctx.const(r, "a residue mod a small prime") for r in range(p)]
        # f at every residue, then f' at the roots found: each a handful of batches
        roots = [r for r, v in zip(residues, mod_eval_many([(f, r) for r in residues], P)) if v.is_zero]
        if not roots:
            return []  # no root modulo p: no rational root
        seen += 1
        if chosen is None and not any(v.is_zero for v in mod_eval_many([(df, r) for r in roots], P)):
            chosen = (roots, P, p)  # every root simple modulo p: this prime can separate them
        if chosen is not None and seen >= NO_ROOT_PRIMES:
            return _lift_all(f, df, chosen[0], chosen[1], chosen[2], bound)
    if chosen is not None:
        return _lift_all(f, df, chosen[0], chosen[1], chosen[2], bound)
    raise InputError(
        f"no prime among the first {len(HENSEL_PRIMES)} separates the roots of this "
        f"polynomial modulo p; its rational roots cannot be searched"
    )


def _candidates(f: Poly, rs: list, m: Z) -> list[Q]:
    """The rational roots among the lifted roots rs mod m: lc*r as a symmetric residue u is
    lc*root when m is large enough; a root p/q has p | a_0 and q | lc, so u | lc*a_0 (one
    division each) before the exact test q^n f(p/q) = 0."""
    us = symmetric_many(mods(products([(f.lc, r) for r in rs]), m), m)
    la0 = f.lc * f.at(0)
    live = [(i, u) for i, u in enumerate(us) if not u.is_zero]
    live = [(i, u) for (i, u), (_, rem) in zip(live, batch([("//", la0, u) for _, u in live])) if rem.is_zero]
    cands = [(i, Q(u, f.lc)) for i, u in live]
    values = f.eval_homogeneous_many([(c.num, c.den) for _, c in cands])
    return [(i, c) for (i, c), v in zip(cands, values) if v.is_zero]


def _max_abs(values: list) -> Z:
    """max |v|: a tree of batched comparisons (the sign of a computed difference)."""
    negs = iter(batch([("neg", v) for v in values if v.sign < 0]))
    level = [next(negs) if v.sign < 0 else v for v in values]
    while len(level) > 1:
        pairs = [(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)]
        diffs = batch([("-", a, b) for a, b in pairs])
        level = [a if d.sign >= 0 else b for (a, b), d in zip(pairs, diffs)] + ([level[-1]] if len(level) % 2 else [])
    return level[0]


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


def _lift_all(f: Poly, df: Poly, rs: list, P: Z, p: int, bound: Z) -> list[Q]:
    """Newton-Hensel for all simple roots side by side: a root r mod p^e becomes a root mod
    p^(e'), e' <= 2e, until the modulus exceeds the bound; after every step the roots whose
    candidate is already a rational root are taken out (early detection: small roots are
    found after a step or two, not at the full bound).

    The inverse of f'(r) is lifted alongside by Newton's iteration s <- s(2 - f'(r)s), so only
    the first one needs an extended Euclid (modulo the small prime)."""
    if not rs:
        return []
    ss = [inverse(d, P) for d in mod_eval_many([(df, r) for r in rs], P)]
    two = f.ctx.const(2, "the 2 of Newton's inverse iteration")
    found = []
    for e in _precisions(p, bound):
        m = P**e
        fr = mod_eval_many([(f, r) for r in rs], m)
        rs = mods(batch([("-", r, t) for r, t in zip(rs, products(list(zip(fr, ss))))]), m)
        hits = _candidates(f, rs, m)
        found += [c for _, c in hits]
        keep = [i for i in range(len(rs)) if i not in {i for i, _ in hits}]
        rs, ss = [rs[i] for i in keep], [ss[i] for i in keep]
        if not rs:
            break
        dr = mod_eval_many([(df, r) for r in rs], m)
        ss = mods(products(list(zip(ss, batch([("-", two, t) for t in products(list(zip(dr, ss)))])))), m)
    return found
