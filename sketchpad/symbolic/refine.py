"""Refining isolated real roots to N decimal digits: quadratic interval refinement (Abbott's
QIR) on a decimal grid, every number on the sheet, every root of every factor in the same
batches.

A bracket is [L, H] on the grid 10^-s (integers L < H) holding exactly one root of h, with vL,
vH of opposite signs: h at its two ends times one common positive constant (10^(s n) once a
round has evaluated them, the isolating cell's own constant at the start).  One round:

* the chord: j = floor(W vL / (vL - vH)) with W = (H - L) 10^t, so [X, X + 1] with
  X = L 10^t + j is the cell of the grid 10^-(s+t) where the chord through the ends meets zero;
* h at X and X + 1, homogeneous: sum_k c_k X^k 10^((s+t)(n-k)), every point of every root
  together (`values_at`);
* opposite signs: the root lies in that cell (h is continuous, the bracket holds one root), and
  the next round aims at twice as many digits: near a simple root the chord's error squares,
  so the digits double as with Newton's method;  the same sign: the root lies on one side,
  which becomes the bracket, and the next round cuts it into ten equal parts (eleven points,
  the same batches) before aiming again at one digit.

It stops at one cell [X, X + 1] of a grid 10^-S with S >= N: width 10^-S <= 10^-N, and since
the open cell holds no point of the grid 10^-N, floor(root 10^N) = floor(X / 10^(S-N)) exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from .integer import Z, batch, products, sums

TEN = "a power of ten (the decimal grid of the refinement)"


@dataclass
class Bracket:
    cs: list  # h, dense, lowest first
    s: int  # grid 10^-s
    L: Z
    H: Z
    D: Z  # H - L
    vL: Z | None  # None: the ends need evaluating (a cut into ten comes next)
    vH: Z | None
    gain: int = 1  # digits the next chord aims at


def scalings(jobs: list) -> list:
    """The products d_k = c_k 10^(s(n-k)) that `values_at` needs for (cs, s, points) jobs, as
    ((job, k), (c_k, 10^(s(n-k)))): they depend on the grid alone, so a caller runs them in
    an earlier batch of its own."""
    out = []
    for ji, (cs, s, _) in enumerate(jobs):
        n = len(cs) - 1
        if not s:
            continue
        ctx = cs[0].ctx
        out += [((ji, k), (cs[k], ctx.const(10 ** (s * (n - k)), TEN))) for k in range(n) if not cs[k].is_zero]
    return out


def values_at(jobs: list, scaled: dict | None = None) -> list:
    """[[10^(s n) h(X / 10^s) for X in points] for (cs, s, points)]: integers, all together.

    d_k = c_k 10^(s(n-k)) first (`scalings`; given in `scaled` when already run), then
    sum d_k X^k by Estrin's scheme: log2(n + 1) levels of products, each a batch whose
    distinct views saturate, so the fewest levels are the fewest forward rows (Horner's rule,
    n levels, needs fewer digit products but about twice the rows).  Every point of every job
    advances in the same batches."""
    if not jobs:
        return []
    if scaled is None:
        todo = scalings(jobs)
        scaled = dict(zip([k for k, _ in todo], products([p for _, p in todo])))
    runs = []
    for ji, (cs, _, pts) in enumerate(jobs):
        d = [scaled.get((ji, k), cs[k]) for k in range(len(cs))]
        runs += [(d, X) for X in pts]
    vals = iter(_estrin(runs))
    return [[next(vals) for _ in pts] for _, _, pts in jobs]


def _estrin(runs: list) -> list:
    """[sum_k d_k X^k]: blocks of coefficients paired level by level, the upper block's value
    times X^m joining the lower one; X^(2m) for the next level rides in the same batch, so
    ceil(log2(n + 1)) levels of products in all."""
    if not runs:
        return []
    ctx = runs[0][1].ctx
    zero = ctx.const(0, "zero")
    state = [[list(d), X] for d, X in runs]  # blocks, X^m
    while any(len(st[0]) > 1 for st in state):
        mul, plan = [], []
        for idx, (blocks, P) in enumerate(state):
            if len(blocks) == 1:
                continue
            joined = []
            for b in range(0, len(blocks) - 1, 2):
                lo, hi = blocks[b], blocks[b + 1]
                k = None if hi.is_zero else len(mul)
                if k is not None:
                    mul.append((hi, P))
                joined.append((lo, k))
            odd = blocks[-1] if len(blocks) % 2 else None
            k2 = None
            if len(blocks) > 2:  # X^(2m) is needed on the next level
                k2 = len(mul)
                mul.append((P, P))
            plan.append((idx, joined, odd, k2))
        prods = products(mul) if mul else []
        groups, where = [], []
        for idx, joined, _, _ in plan:
            for lo, k in joined:
                terms = [t for t in (lo, prods[k] if k is not None else None) if t is not None and not t.is_zero]
                where.append((idx, len(groups) if terms else None))
                if terms:
                    groups.append(terms)
        summed = sums(groups) if groups else []
        fresh: dict = {}
        for idx, g in where:
            fresh.setdefault(idx, []).append(summed[g] if g is not None else zero)
        for idx, _, odd, k2 in plan:
            st = state[idx]
            st[0] = fresh[idx] + ([odd] if odd is not None else [])
            st[1] = prods[k2] if k2 is not None else None
    return [st[0][0] for st in state]


def refine_many(brackets: list[Bracket], digits: int) -> list[tuple[int, Z]]:
    """[(S, X)] per bracket: the root lies in (X/10^S, (X+1)/10^S), S >= digits.

    The chords aim at the stages N, N/2 + 1, N/4 + 2, ...: each about half the next, with a
    digit to spare, so a doubling chord reaches the next stage; a chord that reaches past
    several lands on the farthest; and no bracket moves more than two stages past the slowest,
    so the roots reach the costliest stages in the same rounds."""
    stages = [digits]
    while stages[-1] > 2:
        stages.append(-(-stages[-1] // 2) + 1)
        if stages[-1] >= stages[-2]:
            stages.pop()
            break
    stages = sorted(set(stages))
    live = list(brackets)
    while True:
        live = [b for b in live if not (b.s >= digits and b.D.is_one and b.vL is not None)]
        if not live:
            break
        slowest = min(_stage(b.s, stages) for b in live)
        _round(live, digits, stages, slowest)
    return [(b.s, b.L) for b in brackets]


def _stage(s: int, stages: list[int]) -> int:
    return sum(1 for x in stages if x <= s)


def _step(b: Bracket, digits: int, stages: list[int], slowest: int) -> int | None:
    """Digits t of the next chord: at most its gain (less the bracket's own width in units),
    landing on the farthest stage it can reach, never more than two stages past the slowest
    bracket (None: wait this round).  Bookkeeping on lengths and counts only."""
    budget = max(0, b.gain - (b.D.digits - 1))
    if budget == 0 and b.D.is_one:
        budget = 1
    nxt = next((x for x in stages if x > b.s), None)
    if nxt is None:  # past N already (roots closer than 10^-N): make the bracket one cell
        return 0 if not b.D.is_one else 1
    if budget < nxt - b.s:
        t = budget
    else:  # the farthest stage within reach: a round per doubling, none spent on small stages
        t = max(x for x in stages if b.s < x <= b.s + budget) - b.s
        while _stage(b.s + t, stages) > slowest + 2 and b.s + t > nxt:
            t = max(x for x in stages if x < b.s + t) - b.s
    if _stage(b.s + t, stages) > slowest + 2:
        return None
    return t


class _Ops:
    """Independent operations gathered under keys and run as one batch."""

    def __init__(self):
        self.keys, self.ops = [], []

    def add(self, key, op: tuple) -> None:
        self.keys.append(key)
        self.ops.append(op)

    def run(self) -> dict:
        return dict(zip(self.keys, batch(self.ops))) if self.ops else {}


def _round(live: list[Bracket], digits: int, stages: list[int], slowest: int) -> None:
    """One round for every live bracket: a chord where both end values are known, a cut into
    ten where they are not; three or four batches of arithmetic (the grid's scalings of the
    coefficients riding in the first), then one evaluation for all points."""
    ctx = live[0].L.ctx
    one = ctx.const(1, "one")
    chords, steps = [], []
    for b in live:
        if b.vL is not None:
            t = _step(b, digits, stages, slowest)
            if t is not None:
                chords.append(b)
                steps.append(t)
    cuts = [b for b in live if b.vL is None]
    grids = [(b.cs, b.s + t, None) for b, t in zip(chords, steps)] + [(b.cs, b.s + 1, None) for b in cuts]
    a = _Ops()
    for key, pair in scalings(grids):
        a.add(("d", key), ("*", *pair))
    for i, (b, t) in enumerate(zip(chords, steps)):
        F = ctx.const(10**t, TEN)
        a.add(("den", i), ("-", b.vL, b.vH))
        if t:
            a.add(("vLF", i), ("*", b.vL, F))
            a.add(("LF", i), ("*", b.L, F))
            a.add(("HF", i), ("*", b.H, F))
        elif not b.D.is_one:
            a.add(("num", i), ("*", b.vL, b.D))
    for i, b in enumerate(cuts):
        a.add(("L10", i), ("*", b.L, ctx.const(10, TEN)))
        for k in range(2, 11):
            a.add(("kD", i, k), ("*", b.D, ctx.const(k, "a tenth of a bracket, counted")))
    A = a.run()
    for i, b in enumerate(chords):
        if not steps[i]:
            A["vLF", i], A["LF", i], A["HF", i] = b.vL, b.L, b.H
    bb = _Ops()  # only a wide bracket's chord with new digits needs its numerator first
    for i, b in enumerate(chords):
        if steps[i] and not b.D.is_one:
            bb.add(("num", i), ("*", A["vLF", i], b.D))
    A.update(bb.run())
    c = _Ops()
    for i in range(len(chords)):
        c.add(("j", i), ("//", A.get(("num", i), A["vLF", i]), A["den", i]))
        c.add(("LF1", i), ("+", A["LF", i], one))
    for i, b in enumerate(cuts):
        for k in range(1, 11):
            c.add(("Y", i, k), ("+", A["L10", i], b.D if k == 1 else A["kD", i, k]))
    C = c.run()
    d = _Ops()
    for i in range(len(chords)):
        j = C["j", i][0]
        d.add(("X1", i), ("+", A["LF", i], j))
        d.add(("X2", i), ("+", C["LF1", i], j))
    X = d.run()
    jobs = [(b.cs, b.s + steps[i], [X["X1", i], X["X2", i]]) for i, b in enumerate(chords)]
    cut_pts = [[A["L10", i]] + [C["Y", i, k] for k in range(1, 11)] for i in range(len(cuts))]
    jobs += [(b.cs, b.s + 1, pts) for b, pts in zip(cuts, cut_pts)]
    scaled = {key[1]: v for key, v in A.items() if key[0] == "d"}
    vals = values_at(jobs, scaled)
    if any(v.is_zero for vs in vals for v in vs):
        raise ArithmeticError("internal error: a rational root at a grid point of an irreducible factor")
    right = []
    for i, b in enumerate(chords):
        v1, v2 = vals[i]
        s2 = b.s + steps[i]
        if v1.sign != v2.sign:  # the cell holds the root: the chords' digits double from here
            b.s, b.L, b.H, b.D, b.vL, b.vH, b.gain = s2, X["X1", i], X["X2", i], one, v1, v2, 2 * b.gain
        elif v1.sign == b.vL.sign:  # the root is above the cell: [X2, H 10^t], cut next
            b.s, b.L, b.H, b.vL, b.vH, b.gain = s2, X["X2", i], A["HF", i], None, None, max(1, b.gain // 2)
            right.append(b)
        else:  # below it: [L 10^t, X1], whose width is j
            b.s, b.L, b.H, b.D, b.vL, b.vH = s2, A["LF", i], X["X1", i], C["j", i][0], None, None
            b.gain = max(1, b.gain // 2)
    for b, width in zip(right, batch([("-", b.H, b.L) for b in right]) if right else []):
        b.D = width
    for b, pts, vs in zip(cuts, cut_pts, vals[len(chords) :]):
        k = next((k for k in range(10) if vs[k].sign != vs[k + 1].sign), None)
        if k is None:  # the ends had opposite signs, so some tenth must: the arithmetic is inconsistent
            raise ArithmeticError("internal error: no sign change in any tenth of a bracket whose ends change sign")
        b.s, b.L, b.H, b.vL, b.vH = b.s + 1, pts[k], pts[k + 1], vs[k], vs[k + 1]
