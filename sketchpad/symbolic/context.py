"""A Context owns the Arithmetic service that computes every number of one symbolic call.

All numbers of a call belong to one context, so its log is the complete audit of that call:
every operation the procedures ran, plus every literal that entered from outside (the
expression's own coefficients, and small structural constants such as an exponent or a trial
divisor, each recorded with the reason it was needed).
"""

from __future__ import annotations

import time

from ..arith import Arithmetic
from ..digits import to_digits
from ..errors import InputError
from ..expr import Limits
from ..steppers import get
from .integer import Z


def _text(v) -> str:
    if isinstance(v, tuple):
        return [_text(x) for x in v]
    return ("-" if v < 0 else "") + to_digits(v)


MAX_OPERATIONS = 200_000  # the default budget of one call; the user can raise it


class Context:
    """The arithmetic of one computation: Context(stepper) (None: the certified shipped model, exactly as
    sketchpad.solve; "reference": the reference stepper).  ctx.lit(value, why) brings an integer in."""

    def __init__(
        self,
        stepper=None,
        limits: Limits | None = None,
        max_degree: int = 200,
        max_operations: int = MAX_OPERATIONS,
        batching: bool = True,
    ):
        resolved = get(stepper)  # None: the certified shipped model, as everywhere
        self.stepper_name = (
            "model"
            if stepper is None
            else (stepper if isinstance(stepper, str) else getattr(stepper, "name", type(stepper).__name__))
        )
        self.arith = Arithmetic(stepper=resolved, limits=limits or Limits())
        if type(max_operations) is not int or max_operations < 1:
            raise InputError("the operation budget (max_operations) must be a positive integer")
        self.max_degree = max_degree
        # True: independent operations run together (one runtime batch per round, issue 14);
        # False: one at a time, as before (the same numbers; kept for tests and measurement)
        self.batching = batching
        self.max_operations = max_operations
        self.literals: list[tuple[int, str, int]] = []  # (value, why it entered, ops before it)
        self._consts: dict[int, object] = {}
        self.started = time.perf_counter()

    def lit(self, value: int, why: str):
        """Bring an integer from outside into the context (recorded; never computed here)."""
        if type(value) is not int:
            raise TypeError(f"a literal must be a Python int, got {type(value).__name__}")
        self.literals.append((value, why, len(self.arith.log)))
        return Z(self, value)

    def const(self, value: int, why: str):
        """A structural constant (1, 2, an exponent, a trial divisor): recorded once, then reused."""
        z = self._consts.get(value)
        if z is None:
            z = self._consts[value] = self.lit(value, why)
        return z

    def _wrap(self, value: int):
        """A value the procedures just computed (only the number types call this)."""
        if len(self.arith.log) > self.max_operations:
            raise InputError(
                f"this problem needs more than {self.max_operations:,} arithmetic operations, the budget; "
                f"raise it with --max-operations N (max_operations=N in Python)"
            )
        return Z(self, value)

    # counters and audit -------------------------------------------------------------------
    @property
    def forward_passes(self) -> int:
        """Forward passes of the stepper so far."""
        return self.arith.forward_passes

    @property
    def batches(self) -> int:
        """Runtime batches so far."""
        return self.arith.batches

    @property
    def log(self):
        """Every operation the procedures ran, in order."""
        return self.arith.log

    def audit(self) -> list[dict]:
        """Literals and operations in the order they happened."""
        out, lits = [], iter(self.literals)
        nxt = next(lits, None)
        for i, r in enumerate(self.log + [None]):
            while nxt is not None and nxt[2] <= i:
                out.append(
                    {
                        "op": "literal",
                        "operands": [],
                        "result": _text(nxt[0]),
                        "why": nxt[1],
                        "forward_passes": 0,
                        "batches": 0,
                    }
                )
                nxt = next(lits, None)
            if r is not None:
                out.append(
                    {
                        "op": r.op,
                        "operands": [_text(o) for o in r.operands],
                        "result": _text(r.result),
                        "forward_passes": r.forward_passes,
                        "batches": r.batches,
                    }
                )
        return out

    def check_degree(self, degree: int) -> None:
        """An InputError when a polynomial of this degree would pass the limit."""
        if degree > self.max_degree:
            raise InputError(f"the polynomial would have degree {degree:,}; the limit is {self.max_degree:,}")
