"""Kronecker's method: search for a factor of degree d by interpolation.

A factor g of f has g(k) | f(k) at every integer k.  Choose d+1 integer points where f's
values factor completely by trial division (f has no rational root here, so no value is 0)
and walk through the choices of signed divisors (g and -g are the same factor, so the first
value is taken positive).  The walk builds g's Newton divided differences one point at a time:
for an integer polynomial every divided difference at integer points is an integer, so a
branch whose next difference is not exact is cut at once; at the end the top difference is
lc(g), which must divide lc(f).  Survivors are tested by exact division.  The walk is
exhaustive, hence a proof when it finds nothing, but only within a budget of visited branches;
past it the search reports that it could not decide.
"""

from __future__ import annotations

from .intfactor import divisors, trial_factor
from .poly import Poly

POINTS = (0, 1, -1, 2, -2, 3, -3, 4, -4)
BUDGET = 8_000  # branches visited per factor() call, all searches together


class Budget:
    """Branches left for Kronecker searches within one factorisation (shared, so that a
    high-degree input cannot multiply the work)."""

    def __init__(self, branches: int = BUDGET):
        self.left = branches


class _OutOfBudget(Exception):
    pass


def find_factor(f: Poly, d: int, budget: Budget | None = None) -> tuple[Poly | None, bool]:
    """(a factor of degree d, True) | (None, True) when none exists | (None, False) undecided."""
    budget = budget or Budget()
    if budget.left <= 0:
        return None, False
    ctx, var = f.ctx, f.var
    usable = []
    for k in POINTS:
        K = ctx.const(k, "an interpolation point (Kronecker)")
        fv = trial_factor(f.eval_int(K))
        if fv.complete:
            usable.append((fv.divisor_count(), k, K, fv))
        if len(usable) >= d + 3:
            break
    if len(usable) < d + 1:
        return None, False
    usable.sort(key=lambda u: u[0])  # fewest divisors first: fewest branches
    pts = usable[: d + 1]
    xs = [u[2] for u in pts]
    choices = [divisors(pts[0][3])] + [[s for v in divisors(u[3]) for s in (v, -v)] for u in pts[1:]]

    def walk(i: int, rows: list):
        """rows[j] = divided differences ending at point j: [v_j, [v_{j-1}, v_j], ...]."""
        for v in choices[i]:
            budget.left -= 1
            if budget.left < 0:
                raise _OutOfBudget
            row = [v]
            for k in range(1, i + 1):
                q, r = divmod(row[k - 1] - rows[i - 1][k - 1], xs[i] - xs[i - k])
                if not r.is_zero:
                    break  # not an integer polynomial: cut the branch
                row.append(q)
            else:
                if i < d:
                    found = walk(i + 1, rows + [row])
                    if found is not None:
                        return found
                    continue
                top = row[d]  # lc(g)
                if top.is_zero or not top.divides(f.lc):
                    continue
                g = _newton(rows + [row], xs, var).primitive()[1]
                if f.exact_quotient(g) is not None:
                    return g
        return None

    try:
        return walk(0, []), True
    except _OutOfBudget:
        return None, False


def _newton(rows: list, xs: list, var: str) -> Poly:
    """g = sum_k c_k (x - x_0)...(x - x_(k-1)) with c_k = rows[k][k]."""
    ctx = xs[0].ctx
    one = ctx.const(1, "one")
    basis = Poly.const(one, var)
    g = Poly(ctx, {}, var)
    for k, row in enumerate(rows):
        g = g + basis.scale(row[k]) if not row[k].is_zero else g
        basis = basis * Poly(ctx, {1: one, 0: -xs[k]}, var)
    return g
