"""Descartes' rule of signs on the cells of a dyadic grid: the transforms that real-root
isolation needs, as fixed integer matrices applied to coefficients on the sheet.

A cell polynomial P of degree n stands for one cell of the grid: its roots in (0, 1) are the
real roots of the original polynomial in that cell, through x -> (K + x) / 2^s.  Halving it:

    left:   P_L(x) = 2^n P(x/2)              (the left half as (0, 1))
    right:  P_R(x) = 2^n P((x + 1)/2)        (the right half)
    tests:  T(Q)(x) = (x + 1)^n Q(1/(x + 1)) for Q = P_L, P_R

The roots of Q in (0, 1) are the roots of T(Q) in (0, inf), so var(T(Q)), the number of sign
changes of its coefficients, bounds how many there are and has the same parity (Descartes): 0
means none, 1 exactly one.  T(Q)'s coefficients also hold Q(0) (the leading one) and Q(1) (the
constant term): the values at the two ends of the half, times one common positive constant.

All four come straight from P's coefficients, P_R for example as sum_j p_j 2^(n-j) (x + 1)^j, so
one round of products (every node of a level together) and one batched sum tree give them.  The
matrices' entries are binomial coefficients times powers of 2 and 3: they depend on n alone,
never on a coefficient, and enter the audit as recorded literals (this is where the line is:
those structural integers are formed here, every product and sum with a coefficient runs on the
sheet).
"""

from __future__ import annotations

import functools
from math import comb

from .integer import Z, batch, products, sums

WHY = "an entry of a Descartes bisection matrix (binomials times powers of 2 and 3, fixed by the degree)"


def _mul(a: list[int], b: list[int]) -> list[int]:
    """Product of two small structural polynomials (coefficient lists, lowest first)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _power(base: list[int], k: int) -> list[int]:
    out = [1]
    for _ in range(k):
        out = _mul(out, base)
    return out


@functools.lru_cache(maxsize=64)
def halving(n: int) -> dict[str, tuple]:
    """The four matrices for degree n: rows i (output coefficient of x^i), columns j (p_j)."""
    left = [[(1 << (n - j)) if i == j else 0 for j in range(n + 1)] for i in range(n + 1)]
    right = [[(1 << (n - j)) * comb(j, i) if i <= j else 0 for j in range(n + 1)] for i in range(n + 1)]
    test_left = [[(1 << (n - j)) * comb(n - j, i) if i <= n - j else 0 for j in range(n + 1)] for i in range(n + 1)]
    cols = [_mul(_power([2, 1], j), _power([1, 1], n - j)) for j in range(n + 1)]  # (x + 2)^j (x + 1)^(n-j)
    test_right = [[(1 << (n - j)) * cols[j][i] for j in range(n + 1)] for i in range(n + 1)]
    return {"left": _rows(left), "right": _rows(right), "test_left": _rows(test_left), "test_right": _rows(test_right)}


@functools.lru_cache(maxsize=64)
def test_matrix(n: int) -> tuple:
    """T(P) for the cell itself: (x + 1)^n P(1/(x + 1)) = sum_j p_j (x + 1)^(n-j)."""
    return _rows([[comb(n - j, i) if i <= n - j else 0 for j in range(n + 1)] for i in range(n + 1)])


@functools.lru_cache(maxsize=256)
def shell(n: int, a: int) -> tuple:
    """P(x) = h(2^a (1 + x)), times 2^(-a n) when a < 0: the cell (2^a, 2^(a+1)) as (0, 1)."""
    w = [(1 << (a * j)) if a >= 0 else (1 << (-a * (n - j))) for j in range(n + 1)]
    return _rows([[w[j] * comb(j, i) if i <= j else 0 for j in range(n + 1)] for i in range(n + 1)])


@functools.lru_cache(maxsize=256)
def tested(n: int, m: tuple) -> tuple:
    """The test of a cell polynomial given as a matrix on h: test_matrix(n) times m."""
    t = test_matrix(n)
    return _rows([[sum(t[r][k] * m[k][c] for k in range(n + 1)) for c in range(n + 1)] for r in range(n + 1)])


@functools.lru_cache(maxsize=256)
def scaling(n: int, e: int) -> tuple:
    """P(x) = h(2^e x) (e >= 0) or 2^(-e n) h(2^e x) (e < 0): the cell (0, 2^e) as (0, 1)."""
    diag = [1 << (e * j) for j in range(n + 1)] if e >= 0 else [1 << (-e * (n - j)) for j in range(n + 1)]
    return _rows([[diag[j] if i == j else 0 for j in range(n + 1)] for i in range(n + 1)])


def _rows(m: list[list[int]]) -> tuple:
    return tuple(tuple(r) for r in m)


def apply_many(jobs: list) -> list:
    """[M c for (c, M)]: c a dense coefficient list (Z, lowest first), M a literal matrix.

    All products of all jobs in one batch (a literal 1 is no work, a zero coefficient or entry
    neither: reading), then every output coefficient's sum as one batched tree."""
    if not jobs:
        return []
    ctx = jobs[0][0][0].ctx
    zero = ctx.const(0, "zero")
    pairs, slots = [], []
    groups: list[list] = []
    for cs, mat in jobs:
        for row in mat:
            g = []
            for lit, c in zip(row, cs):
                if lit == 0 or c.is_zero:
                    continue
                if lit == 1:
                    g.append(c)
                else:
                    slots.append((len(groups), len(g)))
                    g.append(None)
                    pairs.append((c, ctx.const(lit, WHY)))
            groups.append(g)
    for (gi, k), v in zip(slots, products(pairs)):
        groups[gi][k] = v
    live = [i for i, g in enumerate(groups) if g]
    totals = dict(zip(live, sums([groups[i] for i in live])))
    flat = [totals.get(i, zero) for i in range(len(groups))]
    out, at = [], 0
    for _, mat in jobs:
        out.append(flat[at : at + len(mat)])
        at += len(mat)
    return out


def variations(cs: list) -> int:
    """Sign changes in a coefficient sequence, zeros skipped (reading signs only)."""
    signs = [c.sign for c in cs if not c.is_zero]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def negated_variable(cs: list) -> list:
    """h(-x): the odd coefficients negated, one batch."""
    odd = [k for k in range(1, len(cs), 2) if not cs[k].is_zero]
    out = list(cs)
    for k, v in zip(odd, batch([("neg", cs[k]) for k in odd])):
        out[k] = v
    return out


def dense(poly) -> list[Z]:
    """A Poly's coefficients, lowest first, with the recorded zero where a term is absent."""
    return [poly.at(k) for k in range(poly.degree + 1)]
