"""`solve(expr)`: parse, then run each operation as a procedure on its own sheet block,
passing numbers between blocks by sharing their cells.  Returns the value and the counters."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from . import procedures as P
from .errors import InputError
from .expr import Limits, parse
from .numbers import operand
from .procedures import Num
from .runtime import Run, Stepper
from .sheet import Worksheet


@dataclass
class Solution:
    value: int
    forward_passes: int
    batches: int
    views_used: int
    seconds: float
    stepper_seconds: float
    stepper: str
    worksheet: Worksheet = field(repr=False)
    trace: list | None = field(default=None, repr=False)
    last_where: object = field(default=None, repr=False)
    views: set = field(default_factory=set, repr=False)      # the distinct views presented

    def __int__(self) -> int:
        return self.value

    def as_dict(self) -> dict:
        from .numbers import to_digits
        v = self.value
        return {"result": ("-" if v < 0 else "") + to_digits(v), "forward_passes": self.forward_passes,
                "batches": self.batches, "views_used": self.views_used,
                "seconds": round(self.seconds, 6), "stepper_seconds": round(self.stepper_seconds, 6),
                "stepper": self.stepper}


def get_stepper(stepper) -> Stepper:
    """'reference', 'model' (the shipped default model), or any object with the Stepper interface."""
    if stepper is None or stepper == "reference":
        from .reference import ReferenceStepper
        return ReferenceStepper()
    if stepper == "model":
        from .model.stepper import load_default_stepper
        return load_default_stepper()
    if isinstance(stepper, str):
        raise InputError(f"unknown stepper {stepper!r} (use 'reference' or 'model')")
    return stepper


def _check(limits: Limits, op: str, *nums: Num) -> None:
    for n in nums:
        if len(n.cells) > limits.max_digits:
            raise InputError(f"an intermediate number has {len(n.cells):,} digits; the limit is {limits.max_digits:,}")
        if op in ("*", "//", "%", "sqrt", "gcd") and len(n.cells) > limits.max_quadratic_digits:
            raise InputError(f"an operand of {op} has {len(n.cells):,} digits; the limit for {op} is "
                             f"{limits.max_quadratic_digits:,}")


def solve(expr: str, stepper=None, *, parallel: bool = True, trace: bool = False,
          limits: Limits = Limits(), on_batch=None) -> Solution:
    """Evaluate `expr` on the sheet.  `parallel=False` is the one-view-per-pass sequential
    mode; the default carry-select mode presents the same kind of views in far fewer batches."""
    tree = parse(expr, limits)
    st = get_stepper(stepper)
    run = Run(st, trace=trace, on_batch=on_batch, parallel=parallel)
    ws = Worksheet()
    t0 = time.perf_counter()

    def ev(node) -> Num:
        kind = node[0]
        if kind == "num":
            return operand(node[1], node[2])
        if kind == "neg":
            x = ev(node[1])
            return run.drive(P.negate(ws.new("-a"), x))
        if kind == "bin":
            op, x, y = node[1], ev(node[2]), ev(node[3])
            _check(limits, op, x, y)
            sheet = ws.new(f"a {op} b")
            if op in "+-":
                return run.drive(P.signed_add(sheet, x, y, subtract=(op == "-")))
            if op == "*":
                return run.drive(P.signed_mul(sheet, x, y))
            q, r = run.drive(P.signed_divmod(sheet, x, y))
            return q if op == "//" else r
        name, args = node[1], [ev(a) for a in node[2]]
        _check(limits, name, *args)
        if name == "sqrt":
            return run.drive(P.signed_isqrt(ws.new("sqrt(a)"), args[0]))
        return run.drive(P.signed_gcd(ws.new("gcd(a, b)"), *args))

    result = ev(tree)
    if len(result.cells) > limits.max_digits:
        raise InputError(f"the result has {len(result.cells):,} digits; the limit is {limits.max_digits:,}")
    value = result.value()
    c = run.counters
    c.seconds = time.perf_counter() - t0
    return Solution(value, c.forward_passes, c.batches, len(c.views), c.seconds, c.stepper_seconds,
                    getattr(st, "name", type(st).__name__), ws, run.trace, run.last_where, c.views)
