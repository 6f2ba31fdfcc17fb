"""Kronecker's method: search for a factor of degree d by interpolation.

A factor g of f has g(k) | f(k) at every integer k.  Choose d+1 integer points where f's
values factor completely by trial division (f has no rational root here, so no value is 0),
run through every choice of signed divisors (g and -g are the same factor, so the first value
is taken positive), interpolate, and test each integral candidate by exact division.  The
search is exhaustive, hence a proof when it finds nothing, but only while the candidate count
stays under the budget; otherwise it reports that it could not decide.
"""
from __future__ import annotations

from itertools import product

from .intfactor import divisors, trial_factor
from .poly import Poly
from .qhelp import lcm

POINTS = (0, 1, -1, 2, -2, 3, -3)
BUDGET = 3000


def find_factor(f: Poly, d: int, budget: int = BUDGET) -> tuple[Poly | None, bool]:
    """(a factor of degree d, True) | (None, True) when none exists | (None, False) undecided."""
    ctx, var = f.ctx, f.var
    one = ctx.const(1, "one")
    usable = []
    for k in POINTS:
        K = ctx.const(k, "an interpolation point (Kronecker)")
        v = f.eval_int(K)
        fv = trial_factor(v)
        if fv.complete:
            usable.append((fv.divisor_count(), k, K, fv))
    if len(usable) < d + 1:
        return None, False
    usable.sort(key=lambda u: u[0])            # fewest divisors first: fewest candidates
    pts = usable[:d + 1]
    count = pts[0][0]
    for u in pts[1:]:
        count *= 2 * u[0]
    if count > budget:
        return None, False
    # Lagrange basis with a common denominator W:  W*g = sum_i v_i * (W/den_i) * N_i(x)
    xs = [u[2] for u in pts]
    basis, dens = [], []
    for i, xi in enumerate(xs):
        N = Poly.const(one, var)
        den = one
        for j, xj in enumerate(xs):
            if j != i:
                N = N * Poly(ctx, {1: one, 0: -xj}, var)
                den = den * (xi - xj)
        basis.append(N)
        dens.append(den)
    W = abs(dens[0])
    for den in dens[1:]:
        W = lcm(W, abs(den))
    basis = [N.scale(W.exact_div(den)) for N, den in zip(basis, dens)]
    choices = [divisors(pts[0][3])] + [[s for d_ in divisors(u[3]) for s in (d_, -d_)] for u in pts[1:]]
    for vals in product(*choices):
        Wg = Poly(ctx, {}, var)
        for v, N in zip(vals, basis):
            Wg = Wg + N.scale(v)
        if Wg.degree != d:
            continue
        if not all(W.divides(c) for c in Wg.terms.values()):
            continue                          # not an integer polynomial
        g = Poly(ctx, {k: c.exact_div(W) for k, c in Wg.terms.items()}, var)
        if not g.lc.divides(f.lc):
            continue
        g = g.primitive()[1]
        if f.exact_quotient(g) is not None:
            return g, True
    return None, True
