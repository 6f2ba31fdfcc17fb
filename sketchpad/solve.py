"""`solve(expr)`: parse, then run each operation as a procedure on its own sheet block,
passing numbers between blocks by sharing their cells.  Returns the value and the counters."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import InputError
from .expr import Limits, parse

if TYPE_CHECKING:  # the runtime (numpy) loads when a solve starts, not when the package does
    from .procedures import Num
    from .runtime import Stepper
    from .sheet import Worksheet

QUADRATIC_OPS = ("*", "//", "%", "sqrt", "gcd")  # work grows as n^2: their own size limit


@dataclass
class Solution:
    """The value and the counters of one solve.  forward_passes: forward rows the stepper
    computed (each distinct view of a batch once); views_presented: views the runtime
    presented (a view presented twice in a batch counts twice); batches: stepper calls, the
    sequential depth; views_used: distinct views of the whole solve."""

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
    view_codes: set = field(default_factory=set, repr=False)  # the distinct views, as codes
    views_presented: int = 0
    fallbacks: int = field(default=0, repr=False)  # speculative blocks that fell back (see runtime)

    def __int__(self) -> int:
        return self.value

    @property
    def views(self) -> set:
        """The distinct views presented."""
        from .codes import views_from_codes

        return set(views_from_codes(sorted(self.view_codes)))

    def as_dict(self) -> dict:
        from .digits import to_digits

        v = self.value
        return {
            "result": ("-" if v < 0 else "") + to_digits(v),
            "forward_passes": self.forward_passes,
            "views_presented": self.views_presented,
            "batches": self.batches,
            "views_used": self.views_used,
            "seconds": round(self.seconds, 6),
            "stepper_seconds": round(self.stepper_seconds, 6),
            "stepper": self.stepper,
        }


def as_stepper(stepper) -> Stepper:
    """A Stepper object, or "reference" for the specification itself.  Choosing the model (and
    its certificate) is the layer above's job: sketchpad.steppers.get."""
    if stepper == "reference":
        from .reference import ReferenceStepper

        return ReferenceStepper()
    if isinstance(stepper, str) or stepper is None or not callable(stepper):
        raise InputError(
            f"solve needs a stepper: 'reference' or a batched stepper object such as "
            f"sketchpad.steppers.get() (the certified model), not {stepper!r}"
        )
    return stepper


def _check(limits: Limits, op: str, *nums: Num) -> None:
    for n in nums:
        if len(n.ids) > limits.max_digits:
            raise InputError(f"an intermediate number has {len(n.ids):,} digits; the limit is {limits.max_digits:,}")
        if op in QUADRATIC_OPS and len(n.ids) > limits.limit_for(op):
            raise InputError(
                f"an operand of {op} has {len(n.ids):,} digits; the limit for {op} is {limits.limit_for(op):,}"
            )


def solve(
    expr: str,
    stepper,
    *,
    parallel: bool = True,
    trace: bool = False,
    limits: Limits = Limits(),
    on_batch=None,
    dedup: bool = True,
) -> Solution:
    """Evaluate `expr` on the sheet with `stepper` (a Stepper, or "reference").
    `parallel=False` is the one-view-per-pass sequential mode; the default carry-select mode
    presents the same kind of views in far fewer batches.  `dedup=False` sends every presented
    view through the stepper, repeats included (same sheet, more forward rows)."""
    from . import procedures as P
    from .procedures import operand
    from .runtime import Run
    from .sheet import Worksheet

    tree = parse(expr, limits)
    st = as_stepper(stepper)
    run = Run(st, trace=trace, on_batch=on_batch, parallel=parallel, dedup=dedup)
    ws = Worksheet()
    t0 = time.perf_counter()

    def ev(node) -> Num:
        kind = node[0]
        if kind == "num":
            return operand(node[1], node[2], ws.store)
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

    try:
        result = ev(tree)
    finally:
        ev = None  # ev refers to itself: without this the worksheet would wait for the collector
    if len(result.ids) > limits.max_digits:
        raise InputError(f"the result has {len(result.ids):,} digits; the limit is {limits.max_digits:,}")
    value = result.value()
    c = run.counters
    c.seconds = time.perf_counter() - t0
    return Solution(
        value,
        c.forward_passes,
        c.batches,
        len(c.seen),
        c.seconds,
        c.stepper_seconds,
        getattr(st, "name", type(st).__name__),
        ws,
        run.trace,
        run.last_where,
        c.seen,
        c.views_presented,
        c.fallbacks,
    )
