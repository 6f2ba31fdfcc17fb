"""Polynomials modulo an integer m (a small prime p, or a prime power p^k while lifting), with
every coefficient operation on the sheet.

A polynomial mod m is an ordinary `Poly` whose coefficients are residues in [0, m).  The
functions here take *lists* of independent problems and advance them side by side, so one batch
of forward passes serves all of them (integer.batch, hence Context.batching is respected); a
modulus may be one per problem (a list), so problems modulo several primes advance together:

* `mul_many`: all coefficient products of all pairs in one batch, the sums as batched trees,
  then one batch of reductions (`product_many`: trees of them, for products of many factors);
* `Modulus`: a monic f with its table x^j mod f (j = n .. 2n-2), so reducing a product is one
  more product batch, sum tree and reduction (no sequential long division);
* `divmod_many` (monic divisors), `gcd_many` (pseudo-remainders, no inverses on the way) and
  `inverse_many` (a^(p-2) by square and multiply, all values side by side);
* `xgcd` (Bezout cofactors mod p, for Hensel lifting) and `powmod`;
* `inverse` (mod any m, by the extended Euclidean algorithm: a prime power while lifting) and
  `symmetric` / `symmetric_many` (residues as representatives in (-m/2, m/2]).

Only zero-ness, signs and lengths of computed values are read; the prime p itself is a
structural Python int (it counts residues), entering the audit as a recorded literal.
"""

from __future__ import annotations

from .integer import Z, batch, products, sums
from .poly import Poly, each, minus_many, mods, reduce_all


def residues(ctx, p: int) -> list[Z]:
    return [ctx.const(r, "a residue mod a small prime") for r in range(p)]


def reduce_many(polys: list, m) -> list:
    """[g mod m] for every g, all coefficients in one batch of divisions."""
    return reduce_all(list(zip(polys, each(m, len(polys)))))


def sum_terms(n: int, items) -> list[dict]:
    """n term dicts from ((i, k), value) items: the values of each (i, k) summed, every sum of
    every polynomial side by side (integer.sums: one batch per tree level)."""
    groups: dict = {}
    for key, v in items:
        groups.setdefault(key, []).append(v)
    out = [{} for _ in range(n)]
    for (i, k), v in zip(groups, sums(list(groups.values()))):
        out[i][k] = v
    return out


def sub_many(pairs: list, m: Z) -> list:
    """[(a - b) mod m], one batch of differences and one of reductions."""
    return reduce_many(minus_many([(a, b.terms) for a, b in pairs]), m)


def mul_many(pairs: list, m: Z) -> list:
    """[(a * b) mod m] for every pair: one product batch, the sum trees, one reduction batch
    (m None: the products unreduced)."""
    keys, flat = [], []
    for i, (a, b) in enumerate(pairs):
        for e, x in a.terms.items():
            for f, y in b.terms.items():
                keys.append((i, e + f))
                flat.append((x, y))
    out = sum_terms(len(pairs), zip(keys, products(flat)))
    prods = [a._new(t) for (a, _), t in zip(pairs, out)]
    return prods if m is None else reduce_many(prods, m)


def scale_many(pairs: list, m: Z) -> list:
    """[(c * g) mod m] for (g, c)."""
    flat = [(x, c) for g, c in pairs for x in g.terms.values()]
    ms = [q for (g, _), q in zip(pairs, each(m, len(pairs))) for _ in g.terms]
    prod = iter(mods(products(flat), ms))
    return [g._new({k: next(prod) for k in g.terms}) for g, _ in pairs]


def inverse_many(values: list, P, p) -> list:
    """[a^-1 mod p] for residues a in [1, p) of small primes p (P, p: one, or a list of one per
    value): a^(p-2) by square and multiply (Fermat), all values side by side, the product and
    the square of a step in one batch, about 4 log2(p) operations each (trying every b with
    a*b = 1 costs 2(p - 1)); a zero result means a = 0, which has no inverse."""
    if not values:
        return []
    k = len(values)
    Ps, es = each(P, k), [q - 2 for q in each(p, k)]  # structural exponents
    out, base = [None] * k, list(values)
    while any(es):
        ops, keys = [], []
        for i in range(k):
            if es[i] & 1:
                if out[i] is None:
                    out[i] = base[i]
                else:
                    ops.append((out[i], base[i]))
                    keys.append(("out", i))
            es[i] >>= 1
            if es[i]:
                ops.append((base[i], base[i]))
                keys.append(("base", i))
        for (which, i), v in zip(keys, mods(products(ops), [Ps[i] for _, i in keys])):
            (out if which == "out" else base)[i] = v
    out = [v if v is not None else a for v, a in zip(out, values)]  # p = 2: 1 is its own inverse
    for a, r, q in zip(values, out, each(p, k)):
        if r.is_zero:
            raise ArithmeticError(f"{a} has no inverse mod {q}")
    return out


def monic_many(polys: list, P, p) -> list:
    """Every nonzero g mod p scaled to leading coefficient 1 (P, p: one, or one per g)."""
    mods_ = list(zip(each(P, len(polys)), each(p, len(polys))))
    need = [i for i, g in enumerate(polys) if not g.lc.is_one]
    invs = iter(inverse_many([polys[i].lc for i in need], [mods_[i][0] for i in need], [mods_[i][1] for i in need]))
    scaled = iter(scale_many([(polys[i], next(invs)) for i in need], [mods_[i][0] for i in need]))
    return [g if g.lc.is_one else next(scaled) for g in polys]


def divmod_many(pairs: list, m: Z) -> list:
    """[(q, r)] with a = q*b + r mod m, for monic b: long division, all pairs in lockstep.

    Only the coefficient about to become a quotient term is reduced at each step (one
    division instead of one per coefficient); the others take the products t*b_i unreduced
    (each below m^2, so they grow by one or two digits) and are reduced once at the end."""
    state = []
    for (a, b), q in zip(pairs, each(m, len(pairs))):
        # quotient, remainder (unreduced), divisor, next degree, modulus
        state.append([{}, dict(a.terms), b, a.degree, q])
    while True:
        active = [st for st in state if st[3] >= st[2].degree]
        if not active:
            break
        live = [st for st in active if st[3] in st[1]]
        for st, t in zip(live, mods([st[1][st[3]] for st in live], [st[4] for st in live])):
            st[1][st[3]] = t
        work = []
        for st in active:
            q, r, b, k, _ = st
            t = r.pop(k, None)
            st[3] = k - 1
            if t is None or t.is_zero:
                continue
            shift = k - b.degree
            q[shift] = t
            work.append((st, shift, t))
        flat = [(c, t) for st, shift, t in work for e, c in st[2].terms.items() if e < st[2].degree]
        prod = iter(products(flat))
        subs = []
        for st, shift, _ in work:
            for e in st[2].terms:
                if e < st[2].degree:
                    subs.append((st[1], e + shift, next(prod)))
        ops = [("-", r[k], v) if k in r else ("neg", v) for r, k, v in subs]
        for (r, k, _), v in zip(subs, batch(ops)):
            r[k] = v
    out = []
    for (a, _), (q, r, _, _, _) in zip(pairs, state):
        out.append((a._new(q), a._new(r)))
    rems = reduce_many([r for _, r in out], m)
    return [(q, r) for (q, _), r in zip(out, rems)]


def product_many(lists: list, m) -> list:
    """The product of each non-empty list of polynomials mod m (one, or one per list): trees of
    batched products, every list's level in one mul_many."""
    lists, ms = [list(g) for g in lists], each(m, len(lists))
    while any(len(g) > 1 for g in lists):
        pairs = [(i, j) for i, g in enumerate(lists) for j in range(0, len(g) - 1, 2)]
        prod = iter(mul_many([(lists[i][j], lists[i][j + 1]) for i, j in pairs], [ms[i] for i, _ in pairs]))
        lists = [
            [next(prod) if j + 1 < len(g) else g[j] for j in range(0, len(g), 2)] if len(g) > 1 else g for g in lists
        ]
    return [g[0] for g in lists]


def gcd_many(pairs: list, P, p) -> list:
    """Monic gcd mod p of every pair (P, p: one, or one per pair), all Euclidean sequences in
    lockstep with pseudo-remainders lc(b)*a - lc(a)*x^k*b (no inverse until the final
    normalisation)."""
    mods_ = list(zip(each(P, len(pairs)), each(p, len(pairs))))
    state = [[a, b, q] for (a, b), q in zip(pairs, mods_)]
    while True:
        active = [s for s in state if not s[1].is_zero]
        if not active:
            break
        for s in active:
            if s[0].is_zero or s[0].degree < s[1].degree:
                s[0], s[1] = s[1], s[0]
        active = [s for s in state if not s[1].is_zero]
        work = [s for s in active if not s[0].is_zero]
        if not work:
            break
        flat = []
        for a, b, _ in work:
            flat += [(c, b.lc) for c in a.terms.values()] + [(c, a.lc) for c in b.terms.values()]
        prod = iter(products(flat))
        diffs = []
        for a, b, _ in work:
            k = a.degree - b.degree
            sa = a._new({e: next(prod) for e in a.terms})
            sb = {e + k: next(prod) for e in b.terms}
            diffs.append((sa, sb))
        for s, r in zip(work, reduce_many(minus_many(diffs), [s[2][0] for s in work])):
            # a <- pseudo-remainder step; when its degree falls below b's, the pair turns round
            s[0] = r
    gs = [a if b.is_zero else b for a, b, _ in state]
    nz = [i for i, g in enumerate(gs) if not g.is_zero]
    monic = iter(monic_many([gs[i] for i in nz], [mods_[i][0] for i in nz], [mods_[i][1] for i in nz]))
    return [next(monic) if not g.is_zero else g for g in gs]


def xgcd(a: Poly, b: Poly, P: Z, p: int) -> tuple[Poly, Poly, Poly]:
    """(g, s, t) with s*a + t*b = g = gcd(a, b), g monic, everything mod p (extended Euclid)."""
    zero = Poly(a.ctx, {}, a.var)
    r0, r1 = monic_many([a], P, p)[0], monic_many([b], P, p)[0]
    i0, i1 = inverse_many([a.lc, b.lc], P, p)
    s0, t0 = Poly.const(i0, a.var), zero
    s1, t1 = zero, Poly.const(i1, a.var)
    while not r1.is_zero:
        ((q, r),) = divmod_many([(r0, r1)], P)
        qs = mul_many([(q, s1), (q, t1)], P)
        s2, t2 = sub_many([(s0, qs[0]), (t0, qs[1])], P)
        if r.is_zero:
            r0, s0, t0, r1 = r1, s1, t1, r
            break
        (inv,) = inverse_many([r.lc], P, p)
        r2, s2, t2 = scale_many([(r, inv), (s2, inv), (t2, inv)], P)
        r0, s0, t0, r1, s1, t1 = r1, s1, t1, r2, s2, t2
    return r0, s0, t0


class Modulus:
    """A monic f mod m with x^j mod f for j = n .. max(2n-2, upto), so a product of two reduced
    polynomials (or a reduced polynomial shifted by up to upto - n + 1) is reduced by one
    product batch, one sum tree and one reduction batch."""

    def __init__(self, f: Poly, m: Z, upto: int = 0, table: dict | None = None):
        self.f, self.m, self.n = f, m, f.degree
        self.table = table if table is not None else _tables([(f, m, upto)])[0]

    @classmethod
    def many(cls, items: list) -> list:
        """[Modulus(f, m, upto)] for (f, m, upto), their tables made side by side."""
        return [cls(f, m, upto, t) for (f, m, upto), t in zip(items, _tables(items))]

    def reduce_many(self, polys: list) -> list:
        """[g mod f] for g of degree <= max(2n - 2, upto) (coefficients already reduced mod m)."""
        return reduce_mod_many([(self, g) for g in polys])

    def mul_many(self, pairs: list) -> list:
        return self.reduce_many(mul_many(pairs, None))

    def powmod(self, g: Poly, e: int) -> Poly:
        """g^e mod f by square and multiply (e a structural exponent)."""
        result = None
        base = g
        while e:
            if e & 1:
                result = base if result is None else self.mul_many([(result, base)])[0]
            e >>= 1
            if e:
                base = self.mul_many([(base, base)])[0]
        return result if result is not None else Poly.const(self.m.ctx.const(1, "one"), g.var)


def _tables(items: list) -> list:
    """{j: x^j mod f} for j = n .. max(2n-2, upto), for every (f, m, upto), all side by side:
    x^j = x * x^(j-1), only the spilled coefficient reduced on the way, every row at the end."""
    ns = [f.degree for f, _, _ in items]
    ms = [m for _, m, _ in items]
    lowers = [{e: v for e, v in f.terms.items() if e != n} for (f, _, _), n in zip(items, ns)]
    tops = reduce_many(minus_many([(f._new({}), low) for (f, _, _), low in zip(items, lowers)]), ms)
    raws = [{n: t} for n, t in zip(ns, tops)]  # x^n = -(f - x^n) mod f
    ends = [max(2 * n - 1, upto + 1) for n, (_, _, upto) in zip(ns, items)]
    curs = list(tops)
    j = 1
    while any(n + j < e for n, e in zip(ns, ends)):
        live = [i for i, (n, e) in enumerate(zip(ns, ends)) if n + j < e]
        for i in live:
            curs[i] = curs[i].shift(1)
        spill = [i for i in live if curs[i].coeff(ns[i]) is not None]  # x^n -> x^n mod f
        cs = dict(zip(spill, mods([curs[i].coeff(ns[i]) for i in spill], [ms[i] for i in spill])))
        for i in spill:
            curs[i] = curs[i]._new({e: v for e, v in curs[i].terms.items() if e != ns[i]})
        move = [i for i in spill if not cs[i].is_zero]
        prod = iter(products([(v, cs[i]) for i in move for v in tops[i].terms.values()]))
        adds = [(i, k, next(prod)) for i in move for k in tops[i].terms]
        ops = [("+", curs[i].terms[k], v) for i, k, v in adds if k in curs[i].terms]
        summed = iter(batch(ops))
        new = {i: dict(curs[i].terms) for i in move}
        for i, k, v in adds:
            new[i][k] = next(summed) if k in curs[i].terms else v
        for i in move:
            curs[i] = curs[i]._new(new[i])
        for i in live:
            raws[i][ns[i] + j] = curs[i]
        j += 1
    rows = reduce_many([g for r in raws for g in r.values()], [m for r, m in zip(raws, ms) for _ in r])
    it = iter(rows)
    return [{k: next(it) for k in r} for r in raws]


def reduce_mod_many(items: list) -> list:
    """[g mod M.f] for (M, g), M a Modulus (g as in Modulus.reduce_many): every item's products
    in one batch, its sums in the same trees, one batch of reductions, whatever its modulus."""
    flat, keys = [], []
    for i, (M, g) in enumerate(items):
        for k, c in g.terms.items():
            if k >= M.n:
                for e, v in M.table[k].terms.items():
                    keys.append((i, e))
                    flat.append((c, v))
    low = [((i, k), c) for i, (M, g) in enumerate(items) for k, c in g.terms.items() if k < M.n]
    out = sum_terms(len(items), low + list(zip(keys, products(flat))))
    return reduce_many([g._new(t) for (_, g), t in zip(items, out)], [M.m for M, _ in items])


def inverse(a: Z, m: Z) -> Z | None:
    """a^-1 mod m by the extended Euclidean algorithm, or None when gcd(a, m) != 1."""
    ctx = a.ctx
    old_r, r = a % m, m
    old_s, s = ctx.const(1, "one"), ctx.const(0, "zero")
    while not r.is_zero:
        q, rem = divmod(old_r, r)
        old_r, r = r, rem
        old_s, s = s, old_s - q * s
    if not old_r.is_one:
        return None
    return old_s % m


def symmetric(u: Z, m: Z) -> Z:
    """The representative of u mod m in (-m/2, m/2]."""
    return u - m if (u + u) > m else u


def symmetric_many(values: list, M: Z) -> list:
    """Each residue u in [0, M) as its representative in (-M/2, M/2]."""
    if not values:
        return []
    twice = batch([("+", u, u) for u in values])
    over = batch([("-", t, M) for t in twice])
    big = [i for i, o in enumerate(over) if o.sign > 0]
    moved = iter(batch([("-", values[i], M) for i in big]))
    bigset = set(big)
    return [next(moved) if i in bigset else u for i, u in enumerate(values)]
