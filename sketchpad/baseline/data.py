"""Problems as character sequences:   <bos> a OP b = r e v e r s e d - a n s w e r <eos>

The answer is written least-significant digit first.  That is the format that gives a
direct (no-sheet) model its best chance: each answer digit is then emitted after the digits
and the carry it depends on (for addition, digit k needs only a_k, b_k and the carry out of
column k-1, which the model has just produced), instead of having to know the whole carry
chain before it writes the first digit.  By default the operands are reversed as well
("123+456=" is shown as "321+654="), so that digit k of each operand sits at a fixed distance
from the operator and the answer's digit k is produced in the same order the operands are read.
On the full budget (same seed, same problems) this format reached 100% / 86% / 20% on 1-, 2-
and 3-digit sums and 100% on 1-digit products; operands as written (`reverse_operands=False`,
`sketchpad baseline train --operands-as-written`) reached only 42% / 16% / 2% and 50%.
Which format was used is recorded with the trained model.

Operand length n means both operands have exactly n digits (leading digit non-zero, except
that a 1-digit operand may be 0).  The answer is Python's integer result.
"""

from __future__ import annotations

import random

OPS = {"+": lambda a, b: a + b, "*": lambda a, b: a * b}


def random_operand(n: int, rng: random.Random) -> int:
    """A uniformly random integer with exactly n digits (0-9 for n = 1)."""
    if n < 1:
        raise ValueError("operand length must be >= 1")
    if n == 1:
        return rng.randrange(10)
    return rng.randrange(10 ** (n - 1), 10**n)


def answer(a: int, op: str, b: int) -> int:
    return OPS[op](a, b)


def prompt(a: int, op: str, b: int, reverse_operands: bool = False) -> str:
    """What the model reads: 'a+b=' (no spaces); with reverse_operands each operand's digits
    are written least significant first too."""
    if op not in OPS:
        raise ValueError(f"unknown operation {op!r}")
    if reverse_operands:
        return f"{str(a)[::-1]}{op}{str(b)[::-1]}="
    return f"{a}{op}{b}="


def target(a: int, op: str, b: int) -> str:
    """What the model writes: the answer's digits, least significant first."""
    return str(answer(a, op, b))[::-1]


def decode_answer(text: str) -> int | None:
    """The model's written answer (reversed digits) back to an integer; None if not digits."""
    if not text or not text.isdigit():
        return None
    return int(text[::-1])


def problems(op: str, n: int, count: int, seed: int) -> list[tuple[int, str, int]]:
    """`count` problems with both operands of exactly n digits, from a seeded generator."""
    rng = random.Random(f"{seed}:{op}:{n}")
    return [(random_operand(n, rng), op, random_operand(n, rng)) for _ in range(count)]


def eval_set(add_lengths, mul_lengths, count: int, seed: int) -> list[tuple[int, str, int]]:
    """The evaluation problems: `count` per (operation, length).  The seed is distinct from
    any training seed, and training draws from its own generator stream."""
    out = []
    for n in add_lengths:
        out += problems("+", n, count, seed)
    for n in mul_lengths:
        out += problems("*", n, count, seed)
    return out
