"""Every real root of a factored polynomial, to N decimal digits, each proven.

* a linear factor q x - p: the root p/q exactly, its interval [p/q, p/q];
* a factor of degree >= 2 (irreducible, so square-free and without rational roots): its positive
  roots, and the positive roots of g(-x) for the negative ones, are isolated by Descartes' rule of
  signs (isolate.py) and refined on a decimal grid (refine.py), every factor and root together.

Each irrational root ends in a cell [X/10^S, (X+1)/10^S] with S >= N and g of opposite signs at
the two exact ends, inside a cell that holds exactly one root: that is the proof (`proven`).
`approx` is the root truncated to N digits toward the lower end: floor(root 10^N) / 10^N.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .descartes import dense, negated_variable
from .integer import Z, batch
from .isolate import isolate_many
from .poly import Poly
from .rational import Q
from .refine import TEN, Bracket, refine_many

DEFAULT_DIGITS = 15  # decimal digits of a real root when the caller does not say
SORT_LIMIT = 64  # more real roots than this are listed factor by factor


@dataclass
class RealRoot:
    factor: Poly
    multiplicity: int
    lower: Z  # the interval [lower/den, upper/den] holds the root and no other root of factor
    upper: Z
    den: Z  # 10^scale for a refined root (a literal of the grid), q for a rational root p/q
    scale: int | None  # None: a rational root, exact (lower = upper)
    approx: Z  # floor(root * 10^digits)
    digits: int
    exact: object = None  # the rational root (Q) of a linear factor
    proven: bool = True

    @property
    def interval(self) -> list[str]:
        return [f"{self.lower}/{self.den}", f"{self.upper}/{self.den}"]

    @property
    def interval_text(self) -> list[str]:
        """The ends as decimals (a refined root's ends are exact decimals) or fractions."""
        if self.scale is None:
            return [str(self.exact)] * 2
        return [decimal_text(self.lower, self.scale), decimal_text(self.upper, self.scale)]

    @property
    def approx_text(self) -> str:
        return decimal_text(self.approx, self.digits)

    def as_dict(self) -> dict:
        return {
            "factor": str(self.factor),
            "multiplicity": self.multiplicity,
            "interval": self.interval,
            "approx": self.approx_text,
            "proven": self.proven,
        }


def decimal_text(k: Z, digits: int) -> str:
    """k / 10^digits written with `digits` digits after the point (reading k's digits)."""
    body = str(k).lstrip("-").rjust(digits + 1, "0")
    text = body if digits == 0 else f"{body[:-digits]}.{body[-digits:]}"
    return ("-" if k.sign < 0 else "") + text


def real_roots(factors: list, digits: int) -> tuple[list[RealRoot], int]:
    """(the real roots in increasing order; the number of non-real roots counted with
    multiplicity) for [(g, multiplicity)] irreducible primitive factors."""
    if type(digits) is not int or digits < 0:
        raise ValueError("digits must be a non-negative int")
    if not factors:
        return [], 0
    ctx = factors[0][0].ctx
    linear = [(g, m) for g, m in factors if g.degree == 1]
    others = [(g, m) for g, m in factors if g.degree >= 2]
    exact = _rational(linear, digits)
    sides = []  # (factor index, side, h)
    for i, (g, _) in enumerate(others):
        h = dense(g)
        sides += [(i, +1, h), (i, -1, negated_variable(h))]
    cells = isolate_many([h for _, _, h in sides])
    brackets, owners = [], []
    starts = []
    for (i, side, _), found in zip(sides, cells):
        for c in found:
            if c.scale >= 0:
                width = ctx.const(5**c.scale, "a power of five: a dyadic cell on the decimal grid")
            else:
                width = ctx.const(2 ** (-c.scale), "a power of two: a dyadic cell's width")
            starts.append((c, width))
            owners.append((i, side))
    lows = batch([("*", c.K, w) for c, w in starts]) if starts else []
    highs = batch([("+", lo, w) for lo, (_, w) in zip(lows, starts)]) if starts else []
    for (c, w), lo, hi in zip(starts, lows, highs):
        brackets.append(Bracket(sides[c.job][2], max(c.scale, 0), lo, hi, w, None, None))  # a cut first
    with _room_for(ctx, others, digits):
        ends = refine_many(brackets, digits)
    found = _irrational(others, owners, ends, digits)
    out = []
    for g, _ in factors:
        if g.degree == 1:
            out.append(exact[next(k for k, (h, _) in enumerate(linear) if h is g)])
        else:
            k = next(k for k, (h, _) in enumerate(others) if h is g)
            out += found[k]
    nonreal = sum(m * (g.degree - len(found[k])) for k, (g, m) in enumerate(others))
    return _ascending(out), nonreal


def _ascending(roots: list[RealRoot]) -> list[RealRoot]:
    """Sorted by value: every pair's truncations compared by the sign of their difference (one
    batch), ties (roots of two factors closer than 10^-N) by their intervals' lower ends,
    cross-multiplied (one more).  Over SORT_LIMIT roots: by factor, each factor's in order."""
    r = len(roots)
    if r < 2 or r > SORT_LIMIT:
        return roots
    pairs = [(i, j) for i in range(r) for j in range(i + 1, r)]
    diff = dict(zip(pairs, batch([("-", roots[i].approx, roots[j].approx) for i, j in pairs])))
    ties = [(i, j) for (i, j), d in diff.items() if d.is_zero]
    if ties:
        cross = batch(
            [("*", roots[i].lower, roots[j].den) for i, j in ties]
            + [("*", roots[j].lower, roots[i].den) for i, j in ties]
        )
        for k, t in enumerate(batch([("-", cross[k], cross[len(ties) + k]) for k in range(len(ties))])):
            diff[ties[k]] = t
    below = [sum(1 for j in range(r) if j != i and _sign(diff, j, i) < 0) for i in range(r)]
    return [roots[i] for i in sorted(range(r), key=lambda i: (below[i], i))]


def _sign(diff: dict, i: int, j: int) -> int:
    """sign(root_i - root_j) from the computed differences (reading signs)."""
    return diff[i, j].sign if (i, j) in diff else -diff[j, i].sign


def _rational(linear: list, digits: int) -> list[RealRoot]:
    """q x - p: the root p/q exactly (lowest terms, q > 0) and floor(p 10^N / q)."""
    if not linear:
        return []
    ctx = linear[0][0].ctx
    qs = [Q(-g.at(0), g.lc) for g, _ in linear]
    scale = ctx.const(10**digits, TEN)
    scaled = batch([("*", q.num, scale) for q in qs])
    floors = batch([("//", v, q.den) for v, q in zip(scaled, qs)])
    return [
        RealRoot(g, m, q.num, q.num, q.den, None, k, digits, exact=q) for (g, m), q, (k, _) in zip(linear, qs, floors)
    ]


def _irrational(others: list, owners: list, ends: list, digits: int) -> list[list[RealRoot]]:
    """The refined cells as roots of the factors: a cell of g(-x) at [X, X + 1] is the root of g
    in [-(X + 1), -X], and floor(root 10^N) = -floor(X / 10^(S-N)) - 1 there."""
    if not ends:
        return [[] for _ in others]
    ctx = ends[0][1].ctx
    one = ctx.const(1, "one")
    tops = batch([("+", X, one) for _, X in ends])
    cut = [(k, X, ctx.const(10 ** (S - digits), TEN)) for k, (S, X) in enumerate(ends) if S > digits]
    approx = [X for _, X in ends]
    for (k, _, _), (q, _) in zip(cut, batch([("//", X, p) for _, X, p in cut]) if cut else []):
        approx[k] = q
    neg = [k for k, (_, side) in enumerate(owners) if side < 0]
    flips = [op for k in neg for op in (("neg", tops[k]), ("neg", ends[k][1]), ("neg", approx[k]))]
    flipped = batch(flips) if neg else []
    lowered = batch([("-", flipped[3 * j + 2], one) for j in range(len(neg))]) if neg else []
    per: list[list] = [[] for _ in others]
    for k, ((i, side), (S, X)) in enumerate(zip(owners, ends)):
        den = ctx.const(10**S, TEN)
        if side > 0:
            lo, hi, a = X, tops[k], approx[k]
        else:
            j = neg.index(k)
            lo, hi, a = flipped[3 * j], flipped[3 * j + 1], lowered[j]
        g, m = others[i]
        per[i].append((side, RealRoot(g, m, lo, hi, den, S, a, digits)))
    # negative roots first, in increasing order (the cells of g(-x) came in decreasing order of
    # the roots of g), then the positive ones as found
    return [[r for s, r in reversed(rs) if s < 0] + [r for s, r in rs if s > 0] for rs in per]


class _room_for:
    """Products of about n (N + a few) digits are needed to evaluate a degree-n factor on the
    grid 10^-N: the quadratic-operation limit is raised to that for the refinement only."""

    def __init__(self, ctx, others: list, digits: int):
        self.ctx = ctx
        sizes = (g.degree * (digits + 12) + max(c.digits for c in g.terms.values()) for g, _ in others)
        self.need = max(sizes, default=0)

    def __enter__(self):
        lim = self.ctx.arith.limits
        self.saved = lim
        if self.need > lim.max_quadratic_digits:
            self.ctx.arith.limits = dataclasses.replace(lim, max_quadratic_digits=min(self.need, lim.max_digits))

    def __exit__(self, *exc):
        self.ctx.arith.limits = self.saved
