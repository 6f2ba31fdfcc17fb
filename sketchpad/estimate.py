"""How many batches a solve will take, estimated before it starts (for a progress percentage).

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
