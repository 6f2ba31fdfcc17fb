"""Rational reconstruction on the sheet: from a residue u mod m, the fraction n/d with
n = d u mod m and |n|, d <= N = isqrt(m // 2) (Wang; such a fraction is unique when it exists).

It lets early factor detection (recombine.py) see a factor H of G from a product g of lifted
monic factors without multiplying by lc(G): g = H / lc(H) mod m, so each coefficient of g is
the fraction H_k / lc(H), found once m > 2 max(|H_k|, lc(H))^2, usually far below the modulus
2 lc(G) |H| that the product lc(G) g needs when lc(G) is long.  A reconstruction is only a
guess: every candidate built from one is checked by exact division over Z.
"""

from __future__ import annotations

from .integer import Z, batch, products


def bound(m: Z) -> Z:
    """N = isqrt(m // 2), on the sheet."""
    return (m // m.ctx.const(2, "the 2 of the reconstruction bound sqrt(m/2)")).isqrt()


def reconstruct_many(values: list, m: Z, N: Z) -> list:
    """For residues u in [0, m): (n, d) with n = d u mod m, |n| <= N, 0 < d <= N, or None when
    there is none.  The half-extended Euclidean algorithm on (m, u), stopped at the first
    remainder <= N, for all values in lockstep: each round one batch of comparisons, one of
    divisions, one of products and one of differences."""
    ctx = m.ctx
    zero, one = ctx.const(0, "zero"), ctx.const(1, "one")
    state = [[m, u, zero, one] for u in values]  # r0, r1, t0, t1 with r_i = t_i u mod m
    active = list(range(len(values)))
    while active:
        over = batch([("-", state[i][1], N) for i in active])
        active = [i for i, o in zip(active, over) if o.sign > 0]
        if not active:
            break
        qr = batch([("//", state[i][0], state[i][1]) for i in active])
        qt = products([(q, state[i][3]) for i, (q, _) in zip(active, qr)])
        t2 = batch([("-", state[i][2], x) for i, x in zip(active, qt)])
        for i, (_, r), t in zip(active, qr, t2):
            st = state[i]
            st[0], st[1], st[2], st[3] = st[1], r, st[3], t
    flips = [i for i, st in enumerate(state) if st[3].sign < 0]  # d > 0: both signs change
    flipped = iter(batch([("neg", state[i][k]) for i in flips for k in (1, 3)]))
    for i in flips:
        state[i][1], state[i][3] = next(flipped), next(flipped)
    small = batch([("-", st[3], N) for st in state])
    return [(st[1], st[3]) if s.sign <= 0 else None for st, s in zip(state, small)]


def lcm_many(groups: list) -> list:
    """The lcm of each non-empty list of positive values: trees side by side, each level one
    batch of gcds, one of exact divisions and one of products for all lists together."""
    groups = [list(g) for g in groups]
    while any(len(g) > 1 for g in groups):
        pairs = [(g[j], g[j + 1]) for g in groups for j in range(0, len(g) - 1, 2)]
        gs = batch([("gcd", a, b) for a, b in pairs])
        qs = batch([("//", b, g) for (_, b), g in zip(pairs, gs)])
        out = iter(products([(a, q) for (a, _), (q, _) in zip(pairs, qs)]))
        groups = [[next(out) for _ in range(len(g) // 2)] + ([g[-1]] if len(g) % 2 else []) for g in groups]
    return [g[0] for g in groups]
