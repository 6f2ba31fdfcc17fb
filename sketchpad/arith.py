"""Integer arithmetic as a service: each call runs one Sketchpad procedure through a stepper.

This is what higher layers (the symbolic runtime) build on.  Every call is logged with its
operands, result and counters, so a caller can prove which numbers the stepper computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import procedures as P
from .errors import InputError
from .expr import Limits
from .procedures import operand_of
from .runtime import Run
from .sheet import Worksheet
from .solve import _check, as_stepper


@dataclass
class OpRecord:
    op: str
    operands: tuple
    result: object
    forward_passes: int
    batches: int


@dataclass
class Arithmetic:
    stepper: object  # a Stepper, or "reference" (sketchpad.steppers.get chooses)
    parallel: bool = True
    limits: Limits = field(default_factory=Limits)
    log: list = field(default_factory=list)

    def __post_init__(self):
        self._stepper = as_stepper(self.stepper)
        self.forward_passes = 0
        self.batches = 0

    def _run(self, op: str, title: str, proc, *args: int):
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise InputError(f"{op} needs integers, got {[type(a).__name__ for a in args]}")
        nums = [operand_of(a) for a in args]
        _check(self.limits, op, *nums)
        run = Run(self._stepper, parallel=self.parallel)
        out = run.drive(proc(Worksheet().new(title), *nums))
        value = out.value() if isinstance(out, P.Num) else tuple(n.value() for n in out)
        c = run.counters
        self.forward_passes += c.forward_passes
        self.batches += c.batches
        self.log.append(OpRecord(op, args, value, c.forward_passes, c.batches))
        return value

    def add(self, a: int, b: int) -> int:
        return self._run("+", "a + b", P.signed_add, a, b)

    def sub(self, a: int, b: int) -> int:
        return self._run("-", "a - b", lambda s, x, y: P.signed_add(s, x, y, subtract=True), a, b)

    def mul(self, a: int, b: int) -> int:
        return self._run("*", "a * b", P.signed_mul, a, b)

    def divmod(self, a: int, b: int) -> tuple[int, int]:
        return self._run("//", "a // b", P.signed_divmod, a, b)

    def neg(self, a: int) -> int:
        return self._run("neg", "-a", P.negate, a)

    def isqrt(self, a: int) -> int:
        return self._run("sqrt", "sqrt(a)", P.signed_isqrt, a)

    def gcd(self, a: int, b: int) -> int:
        return self._run("gcd", "gcd(a, b)", P.signed_gcd, a, b)
