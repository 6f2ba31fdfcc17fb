"""Job: lean/Sketchpad/Corpus.lean, a differential corpus checked by the Lean kernel.

A seeded random corpus of problems — every operation, both signs, operands from 1 to 35 digits,
both modes — is solved by the shipped Python (`derive.golden.trace`, the function that writes
the golden traces), and each trace becomes a theorem exactly like a golden one (leangen.golden):
the Lean model of the shipped runtime, run on the problem, presents the trace's batches and
returns its result.  The traces live only in the generated module (web/golden/ is not touched);
tests/test_derived.py regenerates the module from the Python of the day, so a change in the
Python runtime makes it stale, and the kernel then checks the model against the new traces.

The corpus is sized to the check's time budget (lean/README.md): its long operands go where the
kernel's cost is linear (sums, differences, products and divisions by short divisors); square
roots and gcds stay shorter, the golden traces already hold a 30-digit root and a 20-digit gcd.
"""

from __future__ import annotations

import random
from pathlib import Path

from derive.golden import trace

from . import LEAN, golden

OUT = LEAN / "Sketchpad" / "Corpus.lean"
SEED = 20261202

# (operation, digits of the first operand, digits of the second) for each problem, both modes.
SHAPES = [
    ("+", 1, 1),
    ("+", 9, 4),
    ("+", 35, 33),
    ("-", 2, 3),
    ("-", 8, 8),
    ("-", 34, 35),
    ("*", 3, 2),
    ("*", 7, 4),
    ("*", 31, 2),
    ("//", 4, 1),
    ("//", 8, 3),
    ("//", 32, 1),
    ("%", 6, 2),
    ("%", 24, 1),
    ("sqrt", 5, 0),
    ("sqrt", 9, 0),
    ("gcd", 6, 5),
    ("gcd", 8, 7),
    ("neg", 3, 0),
    ("mix", 4, 3),
]


def _number(rnd: random.Random, digits: int) -> int:
    if digits == 1:
        return rnd.randrange(10)
    return rnd.randrange(10 ** (digits - 1), 10**digits)


def problems() -> list[str]:
    """The corpus, in order (deterministic: SEED)."""
    rnd = random.Random(SEED)
    out = []
    for op, da, db in SHAPES:
        a, b = _number(rnd, da), _number(rnd, max(db, 1))
        sa = "-" if rnd.random() < 0.5 else ""
        sb = "-" if rnd.random() < 0.5 else ""
        if op in ("+", "-", "*"):
            out.append(f"{sa}{a} {op} {sb}{b}")
        elif op in ("//", "%"):
            out.append(f"{sa}{a} {op} {sb}{max(b, 1)}")
        elif op == "sqrt":
            out.append(f"sqrt({a})")
        elif op == "gcd":
            out.append(f"gcd({sa}{a}, {sb}{b})")
        elif op == "neg":
            out.append(f"-({sa}{a} - {b})")
        else:
            c = _number(rnd, 2)
            out.append(f"({sa}{a} * {b} - {c}) // {max(c % 7, 1)} + sqrt({a})")
    return out


def files() -> dict[Path, str]:
    body = [golden.HEADER.format(source=f"the Python runtime on a seeded random corpus (seed {SEED})")]
    k = 0
    for expr in problems():
        for parallel in (True, False):
            t = trace(expr, parallel)
            name = f"corpus_{k:02d}"
            source = f"derive/leangen/corpus.py, problem {k // 2} ({'parallel' if parallel else 'sequential'})"
            body.append(golden.theorem(name, source, t))
            k += 1
    body.append("end Sketchpad\n")
    return {OUT: "\n".join(body)}
