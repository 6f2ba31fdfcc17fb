"""Integers <-> digit strings without Python's 4,300-digit conversion limit, and input operands."""
from __future__ import annotations

from .procedures import Num
from .sheet import INPUT, Cell
from .symbols import MINUS, PLUS

_CHUNK = 4000


def to_int(digits: str) -> int:
    if len(digits) <= _CHUNK:
        return int(digits)
    half = len(digits) // 2
    return to_int(digits[:half]) * 10 ** (len(digits) - half) + to_int(digits[half:])


def to_digits(n: int) -> str:
    """Decimal digits of |n|."""
    n = abs(n)
    if n < 10 ** _CHUNK:
        return str(n)
    k = max(1, (n.bit_length() * 3 // 10) // 2)
    hi, lo = divmod(n, 10 ** k)
    return to_digits(hi) + to_digits(lo).rjust(k, "0")


def operand(digits: str, negative: bool = False) -> Num:
    """A problem's own number as input cells (the runtime writes none of it)."""
    digits = digits.lstrip("0") or "0"
    return Num(Cell(MINUS if negative else PLUS, INPUT), [Cell(ch, INPUT) for ch in reversed(digits)])


def operand_of(value: int) -> Num:
    return operand(to_digits(value), value < 0)
