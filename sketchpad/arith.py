"""Integer arithmetic as a service: each call runs one Sketchpad procedure through a stepper.

This is what higher layers (the symbolic runtime) build on.  Every call is logged with its
operands, result and counters, so a caller can prove which numbers the stepper computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from .errors import InputError
from .expr import Limits
from .solve import OPERATIONS, as_stepper, start


@dataclass
class OpRecord:
    op: str
    operands: tuple
    result: object
    forward_passes: int
    batches: int
    group: int | None = None  # operations run together share one run; its counters sit on the last


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
        self._groups = 0

    def _start(self, op: str, args: tuple):
        """Check one operation's operands and return its procedure generator (not yet run)."""
        if op not in OPS:
            raise InputError(f"unknown operation {op!r}; known: {', '.join(OPS)}")
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise InputError(f"{op} needs integers, got {[type(a).__name__ for a in args]}")
        core = _core()
        arity = OPERATIONS[op][2]
        if len(args) != arity:
            raise InputError(f"{op} takes {arity} operand(s), got {len(args)}")
        ws = core.Worksheet()
        return start(ws, op, [core.operand_of(a, ws.store) for a in args], self.limits)

    def _record(self, ops, outs, run, group):
        Num = _core().Num
        values = [o.value() if isinstance(o, Num) else tuple(n.value() for n in o) for o in outs]
        c = run.counters
        self.forward_passes += c.forward_passes
        self.batches += c.batches
        for i, ((op, args), v) in enumerate(zip(ops, values)):
            last = i == len(ops) - 1
            self.log.append(OpRecord(op, args, v, c.forward_passes if last else 0, c.batches if last else 0, group))
        return values

    def _run(self, op: str, *args: int):
        gen = self._start(op, args)
        run = _core().Run(self._stepper, parallel=self.parallel)
        return self._record([(op, args)], [run.drive(gen)], run, None)[0]

    def many(self, ops: list[tuple]) -> list:
        """Run independent operations together: each runtime round of all of them is one batch.

        `ops` holds tuples `(op, a, b)` or `(op, a)` with op in OPS (`"+"`, `"-"`, `"*"`, `"//"`,
        `"neg"`, `"sqrt"`, `"gcd"`).  Results come back in order, exactly as one-by-one calls
        would give them; the log gets one record per operation, sharing one group number, with
        the group's forward passes and batches on its last record (so the log's sums stay
        equal to the totals).
        """
        ops = [(o[0], tuple(o[1:])) for o in ops]
        if not ops:
            return []
        gens = [self._start(op, args) for op, args in ops]
        run = _core().Run(self._stepper, parallel=self.parallel)
        if len(gens) == 1:  # as a call of its own (no group)
            return self._record(ops, [run.drive(gens[0])], run, None)
        self._groups += 1
        outs = run.drive(_core().together(gens))
        return self._record(ops, outs, run, self._groups)

    def add(self, a: int, b: int) -> int:
        return self._run("+", a, b)

    def sub(self, a: int, b: int) -> int:
        return self._run("-", a, b)

    def mul(self, a: int, b: int) -> int:
        return self._run("*", a, b)

    def divmod(self, a: int, b: int) -> tuple[int, int]:
        return self._run("//", a, b)

    def neg(self, a: int) -> int:
        return self._run("neg", a)

    def isqrt(self, a: int) -> int:
        return self._run("sqrt", a)

    def gcd(self, a: int, b: int) -> int:
        return self._run("gcd", a, b)


OPS = tuple(op for op in OPERATIONS if op != "%")  # `//` answers (quotient, remainder) here
_CORE: list = []


def _core() -> SimpleNamespace:
    """The runtime's names, imported on the first operation and kept (an import statement per
    operation costs more than a small operation's bookkeeping)."""
    if not _CORE:
        from .procedures import Num, operand_of  # lazy: numpy, as solve.py's
        from .runtime import Run, together  # lazy: numpy, as solve.py's
        from .sheet import Worksheet  # lazy: numpy, as solve.py's

        _CORE.append(SimpleNamespace(Num=Num, operand_of=operand_of, Run=Run, together=together, Worksheet=Worksheet))
    return _CORE[0]
