"""Integers <-> digit strings without Python's 4,300-digit conversion limit."""

from __future__ import annotations

_CHUNK = 4000
_LIMIT = 10**_CHUNK  # computed once: to_digits runs for every operand of every operation


def to_int(digits: str) -> int:
    if len(digits) <= _CHUNK:
        return int(digits)
    half = len(digits) // 2
    return to_int(digits[:half]) * 10 ** (len(digits) - half) + to_int(digits[half:])


def to_digits(n: int) -> str:
    """Decimal digits of |n|."""
    n = abs(n)
    if n < _LIMIT:
        return str(n)
    k = max(1, (n.bit_length() * 3 // 10) // 2)
    hi, lo = divmod(n, 10**k)
    return to_digits(hi) + to_digits(lo).rjust(k, "0")
