"""How many batches a solve will take, and how many views it will present and how much memory
it will hold, estimated before it starts (for a progress percentage, and for the server's
per-request budget, which refuses a problem whose estimate is over it before it runs).

The runtime cannot know the count exactly in advance (a quotient digit's trials, a gcd's number
of Euclid steps and every intermediate length depend on the digits), so this is a model of the
counts fitted to the reference stepper's runs (tests/test_estimate.py holds it to within a
factor of two on random problems of every operation).  Lengths of intermediate results are
estimated from the operands' lengths: a sum has max + 1 digits, a product la + lb, and so on.

    parallel mode (default)           sequential mode (one view per batch)
    a + b    2                        max(la, lb) + 2
    a - b    4                        2 (max(la, lb) + 2)
    a * b    2 + ceil(log2 min)       la lb + la + lb
    a // b   la - lb + 4              (la - lb + 1) * 5 (lb + 2.5) + 20  (la >= lb)
    sqrt(a)  2 ceil(la / 2) + 1       4.3 n^2 + 20 n, n = ceil(la / 2)
    gcd(a,b) the first division,      the first division, then 5 n^2, n = min(la, lb)
             then 4.9 min(la, lb)

Views presented (parallel mode; the sequential mode presents one view per batch), fitted the
same way (tests/test_estimate.py: within a factor of two on random problems):

    a + b, a - b   3.5 n            a // b, a % b   20.5 (lb + 1)(la - lb + 1)
    a * b          6.8 la lb        sqrt(a)         12 m^2 + 400 m, m = ceil(la / 2)
    gcd(a, b)      the first division, then 31 min(la, lb)^2

Memory: the runtime holds about 10 bytes per presented view at its peak (the cells it wrote,
their rows, and one batch's arrays; parallel mode) or 48 (sequential mode, a cell and a record
per view), plus 40 bytes per digit of the numbers and a megabyte for one batch's tables.  A
product (parallel mode) holds less than its views: the partial rows of one digit share their
cells, so only the sums' cells and one level's arrays are its own: 24 la lb + 3,000 (la + lb)
bytes (measured peaks, tracemalloc: 18.8 la lb at 2,000 x 2,000, about 1,800 (la + lb) more on
short operands).
"""

from __future__ import annotations

import math


def expected_batches(tree: tuple, parallel: bool = True) -> int:
    """Estimated batches of a solve of `tree` (from sketchpad.expr.parse); at least 1."""
    total, _ = _walk(tree, parallel)
    return max(1, round(total))


def _walk(tree: tuple, parallel: bool) -> tuple[float, int]:
    """(estimated batches, estimated length of the result in digits)."""
    kind = tree[0]
    if kind == "num":
        return 0.0, len(tree[1])
    if kind == "neg":
        cost, n = _walk(tree[1], parallel)
        return cost + 1, n
    if kind == "bin":
        (ca, la), (cb, lb) = _walk(tree[2], parallel), _walk(tree[3], parallel)
        cost, n = _binary(tree[1], la, lb, parallel)
        return ca + cb + cost, n
    if kind == "call":
        parts = [_walk(a, parallel) for a in tree[2]]
        done = sum(c for c, _ in parts)
        if tree[1] == "sqrt":
            ((_, la),) = parts
            n = (la + 1) // 2
            return done + (2 * n + 1 if parallel else 4.3 * n * n + 20 * n), n
        (_, la), (_, lb) = parts
        return done + _gcd(la, lb, parallel), min(la, lb)
    raise ValueError(kind)


def _binary(op: str, la: int, lb: int, parallel: bool) -> tuple[float, int]:
    if op in "+-":
        n = max(la, lb)
        steps = (2 if op == "+" else 4) if parallel else (n + 2) * (1 if op == "+" else 2)
        return steps, n + 1
    if op == "*":
        steps = 2 + math.ceil(math.log2(max(1, min(la, lb)))) if parallel else la * lb + la + lb
        return steps, la + lb
    return _division(la, lb, parallel), (max(1, la - lb + 1) if op == "//" else lb)


def _division(la: int, lb: int, parallel: bool) -> float:
    if la < lb:  # the quotient is 0: one round, and its first trial borrows
        return 4 if parallel else lb + 25
    digits = la - lb + 1
    return digits + 3 if parallel else digits * 5 * (lb + 2.5) + 20


def _gcd(la: int, lb: int, parallel: bool) -> float:
    lo, hi = min(la, lb), max(la, lb)
    first = _division(hi, lo, parallel) if hi > lo else 0.0
    return first + (4.9 * lo + 2 if parallel else 5 * lo * lo + 20)


BYTES_PER_VIEW = {True: 10, False: 48}
BYTES_PER_DIGIT = 40
BASE_BYTES = 1 << 20  # a batch's tables (view code -> row) and small arrays
PRODUCT_BYTES = (24, 3000)  # a product's peak (parallel mode): per la * lb, per digit of la + lb


def expected_views(tree: tuple, parallel: bool = True) -> int:
    """Estimated views a solve of `tree` presents (repeats included); at least 1."""
    if not parallel:
        return expected_batches(tree, False)
    total, _ = _views(tree)
    return max(1, round(total))


def expected_bytes(tree: tuple, parallel: bool = True) -> int:
    """Estimated peak memory a solve of `tree` holds beyond the process itself, in bytes."""
    views, held = expected_views(tree, parallel), 0
    if parallel:  # products by their own measure (shared partial rows), the rest by their views
        for la, lb in _products(tree):
            views -= _product_views(la, lb)
            held += PRODUCT_BYTES[0] * la * lb + PRODUCT_BYTES[1] * (la + lb)
    return BASE_BYTES + BYTES_PER_VIEW[parallel] * max(0, round(views)) + held + BYTES_PER_DIGIT * _digits(tree)


def _products(tree: tuple) -> list:
    """(la, lb) of every product in the tree, by the estimated lengths of its operands."""
    kind = tree[0]
    if kind == "num":
        return []
    if kind == "neg":
        return _products(tree[1])
    if kind == "bin":
        out = _products(tree[2]) + _products(tree[3])
        return out + [(_views(tree[2])[1], _views(tree[3])[1])] if tree[1] == "*" else out
    return [p for a in tree[2] for p in _products(a)]


def _product_views(la: int, lb: int) -> float:
    return 6.8 * la * lb + 2 * (la + lb)


def _digits(tree: tuple) -> int:
    kind = tree[0]
    if kind == "num":
        return len(tree[1])
    if kind == "neg":
        return _digits(tree[1])
    if kind == "bin":
        return _digits(tree[2]) + _digits(tree[3])
    return sum(_digits(a) for a in tree[2])


def _views(tree: tuple) -> tuple[float, int]:
    """(estimated views presented, estimated length of the result in digits)."""
    kind = tree[0]
    if kind == "num":
        return 0.0, len(tree[1])
    if kind == "neg":
        cost, n = _views(tree[1])
        return cost + 1, n
    if kind == "bin":
        (ca, la), (cb, lb) = _views(tree[2]), _views(tree[3])
        op = tree[1]
        if op in "+-":
            return ca + cb + 3.5 * max(la, lb) + 10, max(la, lb) + 1
        if op == "*":
            return ca + cb + _product_views(la, lb), la + lb
        return ca + cb + _division_views(la, lb), (max(1, la - lb + 1) if op == "//" else lb)
    parts = [_views(a) for a in tree[2]]
    done = sum(c for c, _ in parts)
    if tree[1] == "sqrt":
        ((_, la),) = parts
        m = (la + 1) // 2
        return done + 12 * m * m + 400 * m, m
    (_, la), (_, lb) = parts
    lo, hi = min(la, lb), max(la, lb)
    return done + (_division_views(hi, lo) if hi > lo else 0.0) + 31 * lo * lo + 50, lo


def _division_views(la: int, lb: int) -> float:
    if la < lb:
        return 21.0 * (lb + 1) + 50
    return 20.5 * (lb + 1) * (la - lb + 1) + 50
