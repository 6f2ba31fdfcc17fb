"""Real-root isolation: Descartes' rule of signs with bisection (Collins-Akritas), every
transform of every coefficient on the sheet, every polynomial and every cell of one level in
the same batches.

For a square-free integer polynomial h of degree n >= 1 with h(0) != 0 (the positive roots of a
factor g, or of g(-x) for its negative roots):

1. bounds 2^a < every positive root < 2^e from the lengths of the coefficients
   (Kioustelidis: roots <= 2 max (|c_(n-k)| / |c_n|)^(1/k) over the c_(n-k) of the other sign,
   and |c_(n-k)| / |c_n| < 10^(len c_(n-k) - len c_n + 1), sharpened by the quotients
   c_(n-k) // c_n where that leaves a wide bound; the same on the reversed polynomial for the
   lower bound);
2. the shells (2^b, 2^(b+1)) for a <= b < e, each as a cell polynomial with its Descartes test
   (descartes.py), all in one round: a root near 1 and one near 2^20 are found on the first
   round, not twenty halvings apart (more than 16 shells: the one cell (0, 2^e) instead);
3. every cell whose test has two or more sign changes is halved: both halves' polynomials and
   tests (and their grid indices 2K, 2K + 1) come from the parent in one round of products and
   sums.  No sign change: no root there; one: exactly one, the cell isolates it.

Bisection ends for a square-free h (Vincent's theorem; the tests of cells far from every
complex root and holding at most one real root have at most one sign change).  A cell
holding a rational root would show a zero at an end: a factor of degree >= 2 of the
factorisation is irreducible and has none (the code checks and stops if it ever happened).

The result, per root: the cell (K/2^s, (K+1)/2^s) and C*h at both ends, C > 0 one constant,
so the values' signs and their ratio are exact: refine.py carries on from there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from .descartes import apply_many, halving, scaling, shell, tested, variations
from .integer import Z, batch

MAX_SHELLS = 16


@dataclass
class IsolatingCell:
    """One real root of `h` in (K/2^scale, (K+1)/2^scale); left/right: C*h at the two ends."""

    job: int  # which polynomial of the call
    path: tuple  # the halves taken from (0, 2^e), 0 left, 1 right: orders the cells (bookkeeping)
    scale: int
    K: Z
    left: Z
    right: Z


def _bound_terms(cs: list) -> list:
    """[(k, e)] for the c_(n-k) of the other sign than c_n: 2^(k(e-1)) >= 10^a > |c_(n-k) / c_n|."""
    n = len(cs) - 1
    top, ln = cs[n].sign, cs[n].digits
    out = []
    for k in range(1, n + 1):
        c = cs[n - k]
        if c.is_zero or c.sign == top:
            continue
        a = c.digits - ln + 1  # |c_(n-k)| / |c_n| < 10^a
        # roots < 2 * 10^(a/k) <= 2^e  <=>  2^(k(e-1)) >= 10^a  (exact, on structural integers)
        out.append((k, _least_e(k, a, -4 * n - 8)))
    return out


def _least_e(k: int, a: int, floor: int) -> int:
    """The least e > floor with 2^(k(e-1)) >= 10^a (structural integers)."""
    e = 1 + max(0, (a * 10) // (3 * k) + 1) if a > 0 else 1
    while e > floor and Fraction(2) ** (k * (e - 2)) >= Fraction(10) ** a:
        e -= 1
    while Fraction(2) ** (k * (e - 1)) < Fraction(10) ** a:
        e += 1
    return e


def bound_exponents(polys: list) -> list:
    """[e] per cs: the least e found with every positive root of sum c_k x^k below 2^e (None
    when no coefficient has the other sign than the leading one).  From lengths and signs
    first, then sharpened on the sheet where a ratio can be large: q =
    c_(n-k) // c_n (opposite signs, so |c_(n-k) / c_n| <= -q; one batch), then the least e
    with 2^(k(e-1)) + q > 0 among the few the lengths leave (one batch).  Lengths alone lose
    up to a factor 10 per coefficient, and a loose bound costs halvings or shells later."""
    terms = [_bound_terms(cs) for cs in polys]
    wide = [(i, k, e) for i, ts in enumerate(terms) for k, e in ts if e > 2]
    if not wide:
        return [max((e for _, e in ts), default=None) for ts in terms]
    ctx = polys[0][0].ctx
    qs = batch([("//", polys[i][-1 - k], polys[i][-1]) for i, k, _ in wide])
    checks, owner = [], []
    for w, ((_, k, e), (q, _)) in enumerate(zip(wide, qs)):
        for f in range(_least_e(k, q.digits - 1, 0), e):  # -q >= 10^(digits - 1)
            checks.append(("+", ctx.const(2 ** (k * (f - 1)), "a power of two: a root bound"), q))
            owner.append((w, f))
    best = {w: e for w, (_, _, e) in enumerate(wide)}
    for (w, f), v in zip(owner, batch(checks) if checks else []):
        if v.sign > 0:  # 2^(k(f-1)) > -q >= the ratio: roots < 2^f, strictly
            best[w] = min(best[w], f)
    sharp = {(i, k): best[w] for w, (i, k, _) in enumerate(wide)}
    return [max((sharp.get((i, k), e) for k, e in ts), default=None) for i, ts in enumerate(terms)]


def isolate_many(polys: list, max_levels: int = 4000) -> list[list[IsolatingCell]]:
    """The isolating cells of the positive roots of every polynomial (dense Z lists, lowest
    first), in increasing order of their roots; all polynomials advance together."""
    out: list[list[IsolatingCell]] = [[] for _ in polys]
    start = []  # (job, path, scale, K literal, cell matrix)
    live = [i for i, cs in enumerate(polys) if variations(cs)]  # none: Descartes, no positive root
    bounds = bound_exponents([polys[i] for i in live] + [polys[i][::-1] for i in live])
    for j, i in enumerate(live):
        n = len(polys[i]) - 1
        e, a = bounds[j], -bounds[len(live) + j]
        if e - a > MAX_SHELLS:
            start.append((i, (0,), -e, 0, scaling(n, e)))
        else:
            start += [(i, (1, b), -b, 1, shell(n, b)) for b in range(a, e)]
    if not start:
        return out
    ctx = polys[start[0][0]][0].ctx
    one = ctx.const(1, "one")
    # the tests only: a first cell's own polynomial P = M h is needed when it is halved, and
    # then its halves come from h through the composed matrices, so P is never formed
    res = apply_many([(polys[i], tested(len(polys[i]) - 1, cell)) for i, _, _, _, cell in start])
    nodes = []  # (job, path, scale, K, (c, M)): P = M c, with var(T(P)) >= 2
    for k, (i, path, s, K, cell) in enumerate(start):
        K = ctx.const(K, "the grid index of a first cell")
        _settle(out, nodes, i, path, s, K, (polys[i], cell), res[k])
    levels = 0
    while nodes:
        levels += 1
        if levels > max_levels:
            raise ArithmeticError("internal error: real-root isolation did not separate the roots")
        jobs = []
        for _, _, _, K, (c, M) in nodes:
            n = len(c) - 1
            ext = list(c) + [K, one]  # the grid index rides along: 2K and 2K + 1
            for name in ("left", "right", "test_left", "test_right"):
                jobs.append((ext, _composed(n, name, M)))
        res = apply_many(jobs)
        nxt = []
        for k, (i, path, s, _, (c, _)) in enumerate(nodes):
            n = len(c) - 1
            L, R, TL, TR = res[4 * k : 4 * k + 4]
            _settle(out, nxt, i, path + (0,), s + 1, L[n + 1], (L[: n + 1], None), TL)
            _settle(out, nxt, i, path + (1,), s + 1, R[n + 1], (R[: n + 1], None), TR)
        nodes = nxt
    return [sorted(cells, key=lambda c: c.path) for cells in out]  # left to right


@functools.lru_cache(maxsize=256)
def _with_index(n: int, name: str) -> tuple:
    """A halving matrix widened by two columns (K, 1) and, for the halves, one row: 2K or 2K + 1."""
    rows = [tuple(r) + (0, 0) for r in halving(n)[name]]
    if name == "left":
        rows.append((0,) * (n + 1) + (2, 0))
    elif name == "right":
        rows.append((0,) * (n + 1) + (2, 1))
    return tuple(rows)


@functools.lru_cache(maxsize=256)
def _composed(n: int, name: str, M: tuple | None) -> tuple:
    """_with_index(n, name) applied after P = M c (M None: P = c itself), as one matrix on (c, K, 1)."""
    W = _with_index(n, name)
    if M is None:
        return W
    cols = n + 3
    full = [tuple(M[r]) + (0, 0) for r in range(n + 1)] + [(0,) * (n + 1) + (1, 0), (0,) * (n + 1) + (0, 1)]
    return tuple(tuple(sum(w[k] * full[k][j] for k in range(cols)) for j in range(cols)) for w in W)


def _settle(out: list, nodes: list, i: int, path: tuple, s: int, K: Z, P: tuple, T: list) -> None:
    """File one cell by its test T: dropped (no sign change), isolated (one) or kept (more).
    P = (c, M): the cell's polynomial M c, or c itself when M is None."""
    if T[0].is_zero or T[-1].is_zero:  # T's lead is P(0), its constant P(1)
        raise ArithmeticError("internal error: a rational root at a grid point of an irreducible factor")
    v = variations(T)
    if v == 1:
        out[i].append(IsolatingCell(i, path, s, K, T[-1], T[0]))  # T's lead: P(0); constant: P(1)
    elif v >= 2:
        nodes.append((i, path, s, K, P))
