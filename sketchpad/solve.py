"""`solve(expr)`: parse, then run each operation as a procedure on its own sheet block,
passing numbers between blocks by sharing their cells.  Returns the value and the counters."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .digits import to_digits
from .errors import InputError
from .expr import Limits, parse
from .reference import ReferenceStepper

if TYPE_CHECKING:  # the runtime (numpy) loads when a solve starts, not when the package does
    from .procedures import Num
    from .runtime import Stepper
    from .sheet import Worksheet

QUADRATIC_OPS = ("*", "//", "%", "sqrt", "gcd")  # work grows as n^2: their own size limit
STEPPER_NAMES = ("model", "reference")  # the steppers a string can name (sketchpad.steppers.get)


@dataclass
class Solution:
    """The value and the counters of one solve.  forward_passes: forward rows the stepper
    computed (each distinct view of a batch once); views_presented: views the runtime
    presented (a view presented twice in a batch counts twice); batches: stepper calls, the
    sequential depth; distinct_views: distinct views of the whole solve.  certificate: the summary
    of the certificate the steps ran under (sketchpad.certify.certified.CertifiedStepper), set
    by whoever chose the stepper (sketchpad.solve, the server); None for the reference stepper
    or a stepper object that no certificate covers."""

    value: int
    forward_passes: int
    batches: int
    distinct_views: int
    seconds: float
    stepper_seconds: float
    stepper: str
    worksheet: Worksheet = field(repr=False)
    trace: list | None = field(default=None, repr=False)
    last_where: object = field(default=None, repr=False)
    view_codes: set = field(default_factory=set, repr=False)  # the distinct views, as codes
    views_presented: int = 0
    fallbacks: int = field(default=0, repr=False)  # speculative blocks that fell back (see runtime)
    certificate: dict | None = field(default=None, repr=False)

    def __int__(self) -> int:
        return self.value

    @property
    def views(self) -> set:
        """The distinct views presented."""
        from .codes import views_from_codes  # lazy: numpy (see start)

        return set(views_from_codes(sorted(self.view_codes)))

    def as_dict(self) -> dict:
        v = self.value
        return {
            "result": ("-" if v < 0 else "") + to_digits(v),
            "forward_passes": self.forward_passes,
            "views_presented": self.views_presented,
            "batches": self.batches,
            "distinct_views": self.distinct_views,
            "seconds": round(self.seconds, 6),
            "stepper_seconds": round(self.stepper_seconds, 6),
            "stepper": self.stepper,
            "certificate": self.certificate,
        }


def as_stepper(stepper) -> Stepper:
    """A Stepper object, or "reference" for the specification itself: the core's half of the
    one stepper choice.  The model (and its certificate) is the layer above's half:
    sketchpad.steppers.get, which hands everything else to this function."""
    if stepper == "reference":
        return ReferenceStepper()
    if isinstance(stepper, str) or stepper is None or not callable(stepper):
        raise InputError(
            f"a stepper is 'model', 'reference', a model directory or a batched stepper object "
            f"(sketchpad.steppers.get), not {stepper!r}"
        )
    return stepper


# The one op -> procedure dispatch table (arith.py runs the same): op -> (sheet title,
# procedure of procedures.py by name, operands, keyword arguments).  By name, because the
# procedures (numpy) load when a solve starts, not when the package does.  `%` runs `//`'s
# procedure and keeps the remainder.
OPERATIONS = {
    "+": ("a + b", "signed_add", 2, {}),
    "-": ("a - b", "signed_add", 2, {"subtract": True}),
    "*": ("a * b", "signed_mul", 2, {}),
    "//": ("a // b", "signed_divmod", 2, {}),
    "%": ("a % b", "signed_divmod", 2, {}),
    "neg": ("-a", "negate", 1, {}),
    "sqrt": ("sqrt(a)", "signed_isqrt", 1, {}),
    "gcd": ("gcd(a, b)", "signed_gcd", 2, {}),
}


def start(ws: Worksheet, op: str, nums: list, limits: Limits):
    """Check `op`'s operands against the limits and return its procedure's generator, on a new
    sheet block of `ws` (not yet run).  Both solve() and arith.Arithmetic start operations here."""
    from . import procedures as P  # lazy: numpy; bad input and --help load nothing heavy (tests/test_start.py)

    title, name, _, kwargs = OPERATIONS[op]
    check_operands(limits, op, *nums)
    return getattr(P, name)(ws.new(title), *nums, **kwargs)


def check_operands(limits: Limits, op: str, *nums: Num) -> None:
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
    from .procedures import operand  # lazy: numpy; bad input and --help load nothing heavy (tests/test_start.py)
    from .runtime import Run  # lazy: numpy, as above
    from .sheet import Worksheet  # lazy: numpy, as above

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
            op, args = "neg", [ev(node[1])]
        elif kind == "bin":
            op, args = node[1], [ev(node[2]), ev(node[3])]
        else:
            op, args = node[1], [ev(a) for a in node[2]]
        out = run.drive(start(ws, op, args, limits))
        return out[1] if op == "%" else out[0] if op == "//" else out

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
